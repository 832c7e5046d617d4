"""The judge's own modules reach the sandbox with their bytecode (checked-hash pycs): an
interpreter of the server's version loads them without compiling, and compiles the source
as before when the pyc is not the source's."""

from __future__ import annotations

import subprocess
import sys

from codeteam.execution.pytest_run import CODEC_FILE, _bytecode, _source


def _import_verbosely(folder) -> str:
    done = subprocess.run(
        [sys.executable, "-s", "-B", "-v", "-c", "import _codeteam_pytest_codec as c; c.Codec"],
        cwd=folder, capture_output=True, text=True, timeout=60, check=True)
    return done.stderr


def test_the_codec_is_loaded_from_its_pyc(tmp_path):
    (tmp_path / CODEC_FILE).write_text(_source("pytest_codec.py"), encoding="utf-8")
    [(name, data)] = _bytecode(CODEC_FILE, "pytest_codec.py").items()
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / name).write_bytes(data)
    loaded = f"code object from '{tmp_path / name}'"
    assert loaded in _import_verbosely(tmp_path)


def test_a_pyc_that_is_not_the_sources_is_not_used(tmp_path):
    changed = _source("pytest_codec.py") + "\nCHANGED = 1\n"
    (tmp_path / CODEC_FILE).write_text(changed, encoding="utf-8")
    [(name, data)] = _bytecode(CODEC_FILE, "pytest_codec.py").items()
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / name).write_bytes(data)
    printed = _import_verbosely(tmp_path)
    assert f"code object from '{tmp_path / name}'" not in printed
    done = subprocess.run(
        [sys.executable, "-s", "-B", "-c", "import _codeteam_pytest_codec as c; print(c.CHANGED)"],
        cwd=tmp_path, capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "1"


async def test_an_offload_compiles_the_judges_modules_once(monkeypatch):
    """The first judged run compiled the judge's 200 kB of source on the event loop (55-90 ms
    of its CPU in one callback): with an offload (the editor's parse worker) it is compiled
    there, once per process, and a run then compiles nothing here."""
    import asyncio

    from codeteam.execution import pytest_run

    monkeypatch.setattr(pytest_run, "_compiled", {})
    called = []

    async def offload(function, *args):  # elsewhere than the caller's thread
        called.append(function)
        return await asyncio.to_thread(function, *args)

    await pytest_run.bytecode_by(offload)
    await pytest_run.bytecode_by(offload)
    assert called == [pytest_run.judge_bytecode]
    compiled_here = []
    monkeypatch.setattr(pytest_run, "compile_judge_module",
                        lambda *args: compiled_here.append(args) or {})
    for file, name in pytest_run.JUDGE_MODULES:
        [(path, data)] = pytest_run._bytecode(file, name).items()
        assert path.startswith("__pycache__/") and data
    assert compiled_here == []


async def test_an_offload_of_another_interpreter_brings_nothing(monkeypatch):
    """A pyc only serves the interpreter version that wrote it: what an offload of another
    cache tag would answer is not kept (the modules are compiled here when a run needs them)."""
    from codeteam.execution import pytest_run

    monkeypatch.setattr(pytest_run, "_compiled", {})

    async def other_version(function, *args):
        return function("cpython-0")

    await pytest_run.bytecode_by(other_version)
    assert pytest_run._compiled == {}


async def test_run_suite_has_its_offload_compile_the_judges_modules(monkeypatch):
    from codeteam.execution import pytest_run
    from codeteam.execution.outcomes import Program, TestCase
    from codeteam.execution.sandbox import SandboxPolicy
    from codeteam.execution.suite import run_suite

    monkeypatch.setattr(pytest_run, "_compiled", {})
    called = []

    async def offload(function, *args):
        called.append(function)
        return function(*args)

    text = "def f(x):\n    return x\n"
    program = Program(text=text, function_start=0, function_lines=2, original=text,
                      qualname="missing")  # no judge view: nothing runs in a sandbox
    tests = [TestCase(id="ai:1", kind="assert", origin="ai", source="assert f(1) == 1")]
    report = await run_suite(program, tests, SandboxPolicy(mode="none"), offload=offload)
    assert [o.status for o in report.outcomes] == ["error"]
    assert pytest_run.judge_bytecode in called
    assert set(pytest_run._compiled) == set(pytest_run.JUDGE_MODULES)


def test_a_subject_starts_from_its_pyc_as_its_script_would(tmp_path):
    """A subject ran its file as a script, which Python compiles at every start (2,700 lines:
    14-20 ms of CPU a subject): it starts from the pyc beside the file now, still as
    ``__main__`` with the script's ``sys.argv`` and ``sys.path[0]``. Started here the way the
    sandbox starts it (its files in a folder, the file's name in ``argv`` replaced by its
    path, the channel's placeholder by a descriptor), on a channel closed before its first
    message: its ``main`` runs and ends on that end of file."""
    import socket

    from codeteam.execution.outcomes import PytestTarget
    from codeteam.execution.pytest_run import SUBJECT_FILE, subject_launch
    from codeteam.execution.sandbox_policy import CHANNEL_PLACEHOLDER

    target = PytestTarget(root=str(tmp_path), path=str(tmp_path / "m.py"), module="m",
                          qualname="f", name="f", first_line=1, python=sys.executable)
    launch = subject_launch(target, "def f():\n    return 1\n")
    for name, content in launch.files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            (tmp_path / name).write_bytes(content)
        else:
            (tmp_path / name).write_text(content, encoding="utf-8")
    ours, theirs = socket.socketpair()
    ours.close()
    argv = [str(tmp_path / a) if a in launch.files else a.replace(CHANNEL_PLACEHOLDER, str(
        theirs.fileno())) for a in launch.argv]
    argv.insert(1, "-v")  # the interpreter's flags: which code object came from where
    done = subprocess.run(argv, cwd="/", capture_output=True, text=True, timeout=60,
                          pass_fds=(theirs.fileno(),), check=False)  # (it exits 1: EOFError)
    theirs.close()
    tag = sys.implementation.cache_tag
    for stem in (SUBJECT_FILE[:-3], CODEC_FILE[:-3]):  # the codec: from the script's folder
        pyc = tmp_path / "__pycache__" / f"{stem}.{tag}.pyc"
        assert f"code object from '{pyc}'" in done.stderr, done.stderr[-3000:]
    # main() ran (as __main__, its channel from argv[1]) and read the closed channel; its
    # frames are named by the file's path, as a script's are (the subject tells its own
    # frames apart from the code's by that name)
    assert "EOFError" in done.stderr, done.stderr[-3000:]
    assert f'File "{tmp_path / SUBJECT_FILE}", line' in done.stderr, done.stderr[-3000:]
