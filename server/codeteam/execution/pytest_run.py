"""pytest runs in the sandbox, host side: where (:class:`~codeteam.execution.outcomes.PytestTarget`),
which project tests reach the function (:func:`select_tests`) and one judged session
(:func:`judged_session`). The verdicts are :mod:`codeteam.execution.trust`'s.

Every run is one sandboxed pytest process with codeteam's plugin (the judge,
:mod:`codeteam.execution.pytest_plugin`) in the project's interpreter, from the project root
(pytest finds rootdir, ini files, ``addopts`` and conftest.py files as it always does; the
plugin turns off ``-x``, ``--maxfail``, ``--lf`` and ``--sw``; the cache is written only to
the run's copy-on-write view of the project), the target's file laid over by its *judge view*
(:mod:`codeteam.execution.judge_view`), the candidate text in the run's files for the subject
process (:mod:`codeteam.execution.pytest_subject`), which alone runs it.

Selection (:func:`select_tests`) is such a judged session of everything plain ``pytest``
collects in the project, on the user's current text: a test during which the judge view's
forwarding stub is called is one that reaches the function (through a dispatch dict,
``__call__``, an alias, a fixture, an rst doctest: whatever the test does), counted in the
judge and ended at that call, so no code under test runs for it. Cached per project,
interpreter, function, module text and the modification times of the files pytest collected
(and their folders, conftest and ini files).
"""

from __future__ import annotations

import asyncio
import configparser
import hashlib
import json
import logging
import os
import re
import sys
import time
import tomllib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from codeteam.execution.judge_view import JudgeView, judge_view, placement
from codeteam.execution.outcomes import PytestTarget, TestCase
from codeteam.execution.sandbox import (
    BACKSTOP_STRETCH,
    ProcessResult,
    ProjectMount,
    SandboxPolicy,
    SubjectLaunch,
    python_argv,
    run_sandboxed,
)
from codeteam.execution.sandbox_policy import raise_run_limit
from codeteam.project import InterpreterError, probe_interpreter

log = logging.getLogger(__name__)

PLUGIN_FILE = "_codeteam_pytest_plugin.py"
SPEC_FILE = "_codeteam_pytest_spec.json"
SUBJECT_FILE = "_codeteam_pytest_subject.py"
CODEC_FILE = "_codeteam_pytest_codec.py"
CANDIDATE_FILE = "_codeteam_candidate.py"
OUTPUT_TAIL = 4000
NO_PYTEST_EXIT = 97
"""The launcher's exit status when the interpreter has no pytest."""
INI_FILES = ("pytest.ini", ".pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini")
SKIPPED_DIRS = frozenset({"node_modules", "site-packages", "__pycache__", "build", "dist"})
MAX_FILES = 5000
_TEST_FILE = re.compile(r"^(test_.*|.*_test)\.py$")


class NotRun(BaseModel):
    """Tests that could not run, all for one ``reason`` (pytest's own words)."""

    reason: str
    node_ids: list[str]


class Selection(BaseModel):
    """What :func:`select_tests` found: ``selected`` the node ids during which the function
    was called (in pytest's order) with their ``files`` and 0-based ``lines`` (relative to the
    project root); ``doctests`` the selected ones that are the function's own doctest
    (collected by the project's ``--doctest-modules``); ``not_run`` groups by reason (pytest's
    skips, collection errors, tests naming the function that failed before reaching it, the
    tests not looked at when the run ran out of time); ``problem`` set when pytest could not
    run at all; ``collected`` how many tests pytest collected; ``seconds`` the run's time."""

    selected: list[str] = Field(default_factory=list)
    files: dict[str, str] = Field(default_factory=dict)
    lines: dict[str, int] = Field(default_factory=dict)
    doctests: list[str] = Field(default_factory=list)
    not_run: list[NotRun] = Field(default_factory=list)
    rootdir: str | None = None
    problem: str | None = None
    collected: int = 0
    seconds: float = 0.0


# --------------------------------------------------------------------------------------------
# The project


def _config_text(root: Path) -> str:
    parts = []
    for name in INI_FILES:
        try:
            parts.append((root / name).read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue
    return "\n".join(parts)


_XDIST = re.compile(r"(?:^|[\s\"'=\[,])(?:-n\s*\S|--numprocesses\b|-p\s*xdist\b|--dist\b)")


def _addopts(root: Path) -> str:
    """The ``addopts`` of pytest's sections in the configuration files (``[pytest]``,
    ``[tool:pytest]``, ``[tool.pytest.ini_options]``, ``[tool.pytest]``), joined; not what
    other tools' sections name (click's ``[tool.tox]`` runs ``pytest --numprocesses=auto``)."""
    found = []
    for name in INI_FILES:
        path = root / name
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if name == "pyproject.toml":
            try:
                pytest_table = tomllib.loads(text).get("tool", {}).get("pytest", {})
            except (tomllib.TOMLDecodeError, AttributeError):
                continue
            for table in (pytest_table.get("ini_options", {}), pytest_table):
                value = table.get("addopts", "") if isinstance(table, dict) else ""
                found.append(" ".join(map(str, value)) if isinstance(value, list) else str(value))
            continue
        parser = configparser.RawConfigParser(strict=False, interpolation=None)
        try:
            parser.read_string(text)
        except configparser.Error:
            continue
        for section in ("pytest", "tool:pytest"):
            if parser.has_option(section, "addopts"):
                found.append(parser.get(section, "addopts"))
    return "\n".join(found)


def distributes_tests(root: Path) -> bool:
    """Whether the project's ``addopts`` ask pytest-xdist for worker processes (``-n auto``):
    the judge reports from pytest's own process, so the runs then add ``-n0`` (which pytest
    refuses where xdist is not installed: only ``addopts`` count)."""
    return _XDIST.search(_addopts(root)) is not None


def runs_doctests(root: Path) -> bool:
    """Whether the project's configuration names ``--doctest-modules`` or ``--doctest-glob``
    (then pytest collects doctests of its own: the function's docstring is the project's
    test, or rst files may call it)."""
    text = _config_text(root)
    return "doctest-modules" in text or "doctest-glob" in text


def has_tests(root: Path, ignore: list[str] | None = None) -> bool:
    """Whether plain pytest could collect anything here worth a selection run: a test file
    (``test_*.py``, ``*_test.py``, outside dot folders, virtualenvs and the folders of
    ``ignore``, relative to ``root``), or doctests in the configuration. Cheap: no code runs."""
    if runs_doctests(root):
        return True
    skipped = {os.path.join(str(root), folder) for folder in ignore or ()}
    seen = 0
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in SKIPPED_DIRS
                   and not os.path.isfile(os.path.join(folder, d, "pyvenv.cfg"))
                   and os.path.join(folder, d) not in skipped]
        if any(_TEST_FILE.match(f) for f in files):
            return True
        seen += len(files)
        if seen > MAX_FILES:
            return False
    return False


def hidden_paths(root: Path, keep: list[str]) -> list[str]:
    """The dot entries of ``root`` (``.git``, ``.env``, ``.pypirc``...) that the tests must not
    see, except those holding a path of ``keep`` (the interpreter's virtualenv) and
    ``.pytest.ini``/``.coveragerc``."""
    hidden = []
    try:
        entries = sorted(os.scandir(root), key=lambda e: e.name)
    except OSError:
        return []
    for entry in entries:
        path = os.path.join(str(root), entry.name)
        if not entry.name.startswith(".") or entry.name in (".pytest.ini", ".coveragerc"):
            continue
        if not any(k == path or k.startswith(path + "/") for k in keep):
            hidden.append(path)
    return hidden


@cache
def interpreter_dirs(python: str) -> tuple[str, ...]:
    """The prefixes and site-packages folders of ``python`` (resolved, existing, no
    duplicates), which the sandbox mounts read-only, from
    :func:`codeteam.project.probe_interpreter`'s answer (cached: the interpreter is not
    started again for :func:`borrowed_pytest`); empty when it cannot be probed."""
    try:
        found = probe_interpreter(python)
    except InterpreterError:
        return ()
    paths = map(os.path.realpath, (found.prefix, found.base_prefix, *found.exec_prefixes,
                                   *found.site_packages))
    return tuple(dict.fromkeys(path for path in paths if os.path.isdir(path)))


@cache
def borrowed_pytest(python: str) -> tuple[str, ...]:
    """Where ``python`` finds pytest when it has none of its own: codeteam's own
    site-packages, appended to its ``sys.path`` (after the project's packages), when it is the
    same Python version as codeteam's; else nothing (its runs then say it has no pytest).
    Read from :func:`codeteam.project.probe_interpreter`'s answer (one run of ``python`` per
    process, which the project's search made already; no second start of the interpreter and
    its ``import pytest``, about 0.15 CPU-s); an interpreter that cannot be probed borrows
    nothing. codeteam's own interpreter (lone modules) is not started at all when its pytest
    is in its site-packages, where the sandbox's ``python -s`` finds it too."""
    if python == sys.executable and _own_site_pytest():
        return ()
    try:
        interpreter = probe_interpreter(python)
    except InterpreterError:
        return ()
    own = "{}.{}".format(*sys.version_info[:2])
    if interpreter.has_pytest or interpreter.version.rsplit(".", 1)[0] != own:
        return ()
    import site

    return tuple(os.path.realpath(p) for p in site.getsitepackages() if os.path.isdir(p))


def _own_site_pytest() -> bool:
    """Whether this process finds pytest in its interpreter's site-packages (no process
    started: the module is looked up, not imported)."""
    import importlib.util
    import site

    try:
        spec = importlib.util.find_spec("pytest")
    except (ImportError, ValueError):
        return False
    origin = spec.origin if spec is not None else None
    return type(origin) is str and any(
        os.path.realpath(origin).startswith(os.path.join(os.path.realpath(folder), ""))
        for folder in site.getsitepackages())


def target_for(root: Path, path: Path, module: str, qualname: str, first_line: int,
               python: str | None, *, extra_ro: list[str] | None = None,
               hidden: list[str] | None = None, import_root: Path | str | None = None,
               lone: bool = False, ignore: list[str] | None = None) -> PytestTarget:
    """A :class:`PytestTarget` (``python`` default: the one running codeteam). ``extra_ro``
    (default: the interpreter's prefix and site-packages, asked once) and ``hidden`` (default:
    the root's dot entries, :func:`hidden_paths`) come from the project layer when known."""
    python = python or sys.executable
    extra = list(extra_ro) if extra_ro is not None else list(interpreter_dirs(python))
    root_text = os.path.realpath(root)
    return PytestTarget(
        root=root_text, path=os.path.realpath(path), module=module, qualname=qualname,
        name=qualname.rsplit(".", 1)[-1], first_line=first_line, python=python, extra_ro=extra,
        hidden=hidden if hidden is not None else hidden_paths(Path(root_text), [python, *extra]),
        import_root=None if import_root is None
        else os.path.relpath(os.path.realpath(import_root), root_text), lone=lone,
        ignore=list(ignore or ()), pytest_path=list(borrowed_pytest(python)))


# --------------------------------------------------------------------------------------------
# One judged session


@dataclass
class Heard:
    """What one pytest session reported (see :mod:`codeteam.execution.pytest_plugin`)."""

    collected: bool = False
    rootdir: str | None = None
    collect_errors: dict[str, dict] = field(default_factory=dict)
    outcomes: dict[str, dict] = field(default_factory=dict)
    own: dict[str, dict] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    running: str | None = None
    running_ids: list[str] = field(default_factory=list)
    done: dict | None = None
    items: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    renamed: set[str] = field(default_factory=set)  # kept tests whose function pytest
    # collected again under other parameter ids only (ids made from the time...)


_SHARED = ("nodeid", "duration", "cpu", "code_cpu", "calls", "file", "ids", "judge")
"""What the examples of one docstring share of their item's outcome event."""


def read_events(results: str) -> Heard:
    """The plugin's results lines as a :class:`Heard`. An outcome line for a test already
    reported is ignored (pytest reports a test once); codeteam's own tests are filed by their
    test ids (``own``), a docstring's examples each apart."""
    heard = Heard()
    for line in results.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if not isinstance(event, dict):
            continue
        kind = event.get("event")
        if kind == "collect_error":
            for test_id in event.get("ids") or []:
                heard.own.setdefault(str(test_id), {"outcome": "error", **event,
                                                    "when": "collect"})
            if not event.get("ids"):
                heard.collect_errors.setdefault(str(event.get("nodeid")), event)
        elif kind == "collected":
            heard.collected = True
            heard.rootdir = event.get("rootdir")
            heard.items = [str(i) for i in event.get("items") or []]
            heard.files = [str(f) for f in event.get("files") or []]
        elif kind == "renamed":
            heard.renamed.update(str(i) for i in event.get("ids") or [])
        elif kind == "start":
            heard.running = str(event.get("nodeid"))
            heard.running_ids = [str(i) for i in event.get("ids") or []]
        elif kind == "outcome":
            nodeid = str(event.get("nodeid"))
            heard.running = None
            if nodeid in heard.outcomes:
                continue
            heard.outcomes[nodeid] = event
            heard.order.append(nodeid)
            examples = event.get("examples")
            for test_id in event.get("ids") or []:
                own = event
                if isinstance(examples, dict):  # a docstring's examples: each its own outcome
                    own = {key: event[key] for key in _SHARED if key in event}
                    own.update(examples.get(test_id) or {"outcome": "error", "message":
                                                         "pytest did not run this example"})
                heard.own.setdefault(str(test_id), own)
        elif kind == "done":
            heard.done = event
    return heard


@cache
def _source(name: str) -> str:
    return Path(__file__).with_name(name).read_text(encoding="utf-8")


JUDGE_MODULES = ((CODEC_FILE, "pytest_codec.py"), (PLUGIN_FILE, "pytest_plugin.py"),
                 (SUBJECT_FILE, "pytest_subject.py"))
"""The judge's own modules: (file name in a run, source file here)."""

_compiled: dict[tuple[str, str], dict[str, bytes]] = {}
"""(file, name) -> :func:`compile_judge_module`'s answer, compiled here or by an offload."""


def _bytecode(file: str, name: str) -> dict[str, bytes]:
    """:func:`compile_judge_module`, once per process (or what :func:`bytecode_by` brought)."""
    found = _compiled.get((file, name))
    if found is None:
        found = _compiled[(file, name)] = compile_judge_module(file, name)
    return found


def compile_judge_module(file: str, name: str) -> dict[str, bytes]:
    """``{"__pycache__/<file's stem>.<tag>.pyc": bytes}``: :func:`_source` ``(name)`` compiled
    by this interpreter as a *checked-hash* pyc (PEP 552), to be put beside ``file`` in a
    run. An interpreter of this version loads it instead of compiling the source again (the
    judge's three modules are 200 kB: 0.09 s of CPU at each judge's start, a subject's codec
    0.03 s); it checks the source's hash first and compiles the source as before when they
    differ, and an interpreter of another version looks for another file name. Nothing is
    trusted that was not before: whoever could write the pyc could write the source. ``{}``
    where this interpreter has no cache tag."""
    import marshal
    from importlib.util import MAGIC_NUMBER, source_hash

    if sys.implementation.cache_tag is None:
        return {}
    text = _source(name).encode("utf-8")
    code = compile(text, file, "exec", dont_inherit=True)
    path = f"__pycache__/{Path(file).stem}.{sys.implementation.cache_tag}.pyc"
    checked_hash = (0b11).to_bytes(4, "little")  # PEP 552's flags: hash-based, checked
    return {path: MAGIC_NUMBER + checked_hash + source_hash(text) + marshal.dumps(code)}


def judge_bytecode(cache_tag: str | None) -> dict[tuple[str, str], dict[str, bytes]]:
    """The judge's modules compiled (:func:`compile_judge_module`), for :func:`bytecode_by`'s
    offload; ``{}`` when this interpreter's cache tag is not ``cache_tag`` (the caller's)."""
    if sys.implementation.cache_tag != cache_tag:
        return {}
    return {(file, name): compile_judge_module(file, name) for file, name in JUDGE_MODULES}


async def bytecode_by(offload: Callable[..., Awaitable[Any]]) -> None:
    """Have ``offload`` compile the judge's modules, once per process (the first judged run
    compiled 200 kB of source on the event loop: 55-90 ms of its CPU in one callback, more on
    a busy machine). What it cannot do is compiled here when a run needs it, as before."""
    if all(key in _compiled for key in JUDGE_MODULES):
        return
    try:
        compiled = await offload(judge_bytecode, sys.implementation.cache_tag)
    except Exception as error:  # noqa: BLE001 - compiled here later, as without an offload
        log.debug("the judge's modules were not compiled elsewhere: %s", error)
        return
    for key, files in compiled.items():
        if key in JUDGE_MODULES:
            _compiled.setdefault(key, files)


def session_spec(target: PytestTarget, view: JudgeView, candidate: str, mode: str,
                 policy: SandboxPolicy, *, place: tuple[list[int], int] | None = None,
                 **more) -> dict:
    """The plugin's spec (see :mod:`codeteam.execution.pytest_plugin`) for a session on
    ``candidate`` (the candidate's module text) judged through ``view``; ``place`` is
    ``placement(view, candidate)`` when the caller has it already."""
    lines, shift = place if place is not None else placement(view, candidate)
    limit = min(policy.per_test_timeout_s, policy.timeout_s)
    return {
        "mode": mode,
        "target": {"module": target.module, "qualname": target.qualname,
                   "judged": view.qualname, "file": target.relative_path, "name": target.name},
        "judge": {"candidate": CANDIDATE_FILE, "lines": lines, "shift": shift,
                  "span": [view.start_line + 1, view.end_line + 1]},
        "cpu_limit": limit,
        "wall_limit": wall_backstop(limit),
        "judge_cpu_limit": judge_cpu_limit(limit),
        "import_limit": policy.import_timeout_s,
        "import_root": target.import_root,
        "pytest_path": target.pytest_path,
        "lone": target.lone,
        "shared_tmp": "/tmp" if policy.mode == "bwrap" else None,  # (the code writes there)
        **more,
    }


def subject_launch(target: PytestTarget, candidate: str) -> SubjectLaunch:
    """How the run's subjects (the code under test, each in a sandbox of its own, started when
    the judge asks) start: the subject's file run by
    :data:`~codeteam.execution.pytest_launch.SUBJECT_LAUNCHER` in the project's interpreter,
    with the codec, ``candidate`` (the candidate's module text) and the two modules' pycs
    beside it."""
    from codeteam.execution.pytest_launch import SUBJECT_LAUNCHER

    files = {SUBJECT_FILE: _source("pytest_subject.py"), CODEC_FILE: _source("pytest_codec.py"),
             CANDIDATE_FILE: candidate, **_bytecode(CODEC_FILE, "pytest_codec.py"),
             **_bytecode(SUBJECT_FILE, "pytest_subject.py")}
    return SubjectLaunch(
        argv=python_argv("-c", SUBJECT_LAUNCHER, SUBJECT_FILE, "{channel}",
                         python=target.python, site=True),
        files=files, overlays={target.path: candidate})


def judge_cpu_limit(cpu_limit: float) -> float:
    """CPU seconds a test's own code may use in pytest's process (and, apart, the crossing of
    its calls to the code there) when the code's CPU limit is ``cpu_limit``: more, the test
    runs there (0: none)."""
    return max(4 * cpu_limit, 20.0) if cpu_limit else 0.0


def wall_backstop(cpu_limit: float) -> float:
    """Wall-clock seconds a test may take whose CPU limit is ``cpu_limit``: generous, so that
    a busy machine does not cut a test that is within its CPU time."""
    return max(6 * cpu_limit, cpu_limit + 30.0)


async def judged_session(target: PytestTarget, view: JudgeView, candidate: str,
                         args: list[str], spec: dict, policy: SandboxPolicy
                         ) -> tuple[Heard, ProcessResult]:
    """One sandboxed pytest session: ``args`` for pytest, the target's file laid over by the
    view, ``candidate`` for the subject. Raises
    :class:`~codeteam.execution.outcomes.SandboxUnavailable` when the sandbox cannot run."""
    from codeteam.execution.pytest_launch import LAUNCHER

    subject = subject_launch(target, candidate)
    files = {PLUGIN_FILE: _source("pytest_plugin.py"), SPEC_FILE: json.dumps(spec),
             **subject.files, **_bytecode(PLUGIN_FILE, "pytest_plugin.py")}  # (the judge
    # imports the subject's module and the codec too)
    extra = ["-n0"] if distributes_tests(Path(target.root)) else []
    extra += [f"--ignore={folder}" for folder in target.ignore]  # relative to the root
    argv = python_argv("-c", LAUNCHER,
                       "--continue-on-collection-errors", *extra, *args,
                       python=target.python, site=True)  # fmt: skip
    mount = ProjectMount(root=target.root, overlays={target.path: view.text},
                         hidden=target.hidden, python=target.python, workdir=target.root,
                         extra_ro=[*target.extra_ro, *target.pytest_path], writable=True)
    try:
        result = await run_sandboxed(files, argv, policy, project=mount, subject=subject)
    except OSError as error:  # the interpreter cannot be started there
        result = ProcessResult(exit_code=None, stderr=f"pytest could not be started: {error}",
                               sandbox=policy.mode)
    return read_events(result.results), result


def run_problem(result: ProcessResult, heard: Heard, policy: SandboxPolicy) -> str | None:
    """Why pytest did not run the tests at all (pytest's own words), or None."""
    if heard.collected:
        return None
    if result.exit_code is None and not result.killed:
        return result.stderr or "pytest could not be started"
    if result.exit_code == NO_PYTEST_EXIT:
        return result.stderr.strip().splitlines()[-1] if result.stderr.strip() else "no pytest"
    if result.killed:
        return (f"pytest did not finish collecting within the {policy.timeout_s:g} s limit; "
                f"{raise_run_limit(policy.timeout_s)}")
    lines = [line.strip() for line in (result.stderr + "\n" + result.stdout).splitlines()
             if line.strip()]
    errors = [line for line in lines if "error:" in line.lower()
              and not line.startswith("ERROR: usage")]
    errors = errors or [line for line in lines if line.startswith(("ERROR", "E ", "ImportError"))]
    detail = (errors or lines or [f"exit status {result.exit_code}"])[-1]
    return f"pytest could not run ({detail[:400]})"


def held_up(result: ProcessResult) -> bool:
    """Whether a run the wall clock ended was held up by a busy machine: its processes used
    well under its wall-clock time of CPU (or the sandbox could not tell)."""
    return result.cpu_seconds is None or result.cpu_seconds < 0.5 * result.seconds


_WATCHDOG_LINE = re.compile(r"^Timeout \(\d+:\d\d:\d\d(?:\.\d+)?\)!$", re.MULTILINE)


def watchdog_ended(result: ProcessResult) -> bool:
    """Whether the judge's watchdog (``faulthandler.dump_traceback_later(exit=True)``, armed
    by :meth:`~codeteam.execution.pytest_plugin.Judge._feed_watchdog` for a test stuck in C
    past its wall-clock backstop) ended the pytest process: exit status 1 after
    faulthandler's ``Timeout (H:MM:SS)!`` line on its stderr (of which the run keeps the
    head: a test that wrote past ``output_limit_bytes`` there hides it, and the process is
    then said to have died)."""
    return (result.exit_code == 1 and not result.killed
            and _WATCHDOG_LINE.search(result.stderr) is not None)


def output_tail(result: ProcessResult) -> str:
    parts = []
    for name, text in (("stdout", result.stdout), ("stderr", result.stderr)):
        if text:
            tail = text if len(text) <= OUTPUT_TAIL else "…" + text[-OUTPUT_TAIL:]
            parts.append(f"{name}:\n{tail}")
    return "\n".join(parts)


def node_args(target: PytestTarget, node_ids: list[str]) -> list[str]:
    """pytest's arguments for a session of ``node_ids`` (their files, with the selection's
    rootdir when it is not the project root); the target's own file when there are none
    (nothing of the project's suite collected, codeteam's own tests only)."""
    rootdir = target.rootdir
    moved = rootdir not in (None, "", ".")
    files: list[str] = []
    for nodeid in node_ids:
        file = nodeid.split("::", 1)[0]
        if moved:
            file = os.path.normpath(os.path.join(rootdir, file))
        if file not in files:
            files.append(file)
    args = files or [target.relative_path]
    if moved:  # the same rootdir as the selection's, so that the node ids are the same
        args = ["--rootdir", os.path.join(target.root, rootdir), *args]
    return args


# --------------------------------------------------------------------------------------------
# Selection

SELECTION_RESUMES = 3
"""Times the selection session is started again, after the tests already reported, when its
process ended during a test (that test is then "not run") or pytest's own error
(``INTERNALERROR``) ended it. A session the wall clock cut on a
busy machine (its processes used under half that time of CPU) is started again too, as long
as each one gets further. All of them end within the time one session may take on a busy
machine (:data:`~codeteam.execution.sandbox.BACKSTOP_STRETCH` times ``timeout_s``): the
tests not reached then are "not looked at" (packaging's 64,207 tests at load 8-17: sessions
of 412 s, one after the other, for over 20 minutes, issue 24)."""
_CACHE_SIZE = 64
_selections: dict[tuple, tuple[tuple, list[str], Selection]] = {}


def _stamps(root: str, files: list[str]) -> tuple:
    """Modification times of ``files`` (relative to ``root``), their folders, and the ini and
    conftest.py files around them: what, changed, may change the selection."""
    paths = {os.path.join(root, name) for name in INI_FILES}
    for file in files:
        path = os.path.join(root, file)
        paths.add(path)
        folder = os.path.dirname(path)
        while folder.startswith(root) and folder not in paths:
            paths.update((folder, os.path.join(folder, "conftest.py")))
            folder = os.path.dirname(folder)
    stamps = []
    for path in sorted(paths):
        try:
            stamps.append((path, os.stat(path).st_mtime_ns))
        except OSError:
            stamps.append((path, None))
    return tuple(stamps)


async def select_tests(target: PytestTarget, text: str, policy: SandboxPolicy) -> Selection:
    """The project's tests that reach ``target``'s function, with ``text`` as its file's content
    (the document as it is; the function may be a stub: reaching it is what counts), found by
    a judged session of everything plain pytest collects (see the module docstring); tests
    never reached because the session ran out of time (``policy.timeout_s``; its sessions
    together: :data:`SELECTION_RESUMES`) are "not looked at", named. Raises :class:`~codeteam.execution.outcomes.SandboxUnavailable`."""
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    key = (policy.mode, target.root, target.module, target.qualname, target.python, digest)
    known = _selections.get(key)
    if known is not None and known[0] == await asyncio.to_thread(_stamps, target.root, known[1]):
        return known[2]
    view = judge_view(text, target.qualname, target.first_line)
    if view is None:
        return Selection(problem=f"{target.qualname} cannot be found in its module's text")
    started = time.monotonic()
    deadline = started + BACKSTOP_STRETCH * policy.timeout_s  # (one session's longest)
    spec = session_spec(target, view, text, "select", policy)
    heard, result = await judged_session(target, view, text, [], spec, policy)
    ended: list[str] = []  # tests during which the process ended (a crash, os._exit, C code)
    resumes = 0
    while (heard.done is None or heard.done.get("internal")) and heard.collected and (
            resumes < SELECTION_RESUMES):  # (pytest's own error ends a session too)
        busy = result.killed and held_up(result)
        if result.killed and not busy:
            break  # the suite used its time computing: the rest is "not looked at"
        if heard.running is not None and heard.running not in heard.outcomes and not busy:
            ended.append(heard.running)
        resumes += not busy
        rest = [i for i in heard.items if i not in heard.outcomes and i not in ended]
        left = (deadline - time.monotonic()) / BACKSTOP_STRETCH
        if not rest or left < 1.0:
            break  # (out of time: a busy machine gets no session more than an idle one)
        more, result = await judged_session(
            target, view, text, [], dict(spec, keep=rest),
            policy.model_copy(update={"timeout_s": min(policy.timeout_s, left)}))
        if busy and not more.order:
            heard.running = more.running or heard.running
            break  # not one more test in a whole session: "not looked at"
        for nodeid in more.order:
            heard.outcomes[nodeid] = more.outcomes[nodeid]
            heard.order.append(nodeid)
        heard.collect_errors.update(more.collect_errors)
        heard.running, heard.done, heard.collected = more.running, more.done, more.collected
    selection = _selection(target, heard, result, policy, ended)
    selection.seconds = time.monotonic() - started
    if not result.killed and result.exit_code is not None:
        stamps = await asyncio.to_thread(_stamps, target.root, heard.files)
        _selections[key] = (stamps, heard.files, selection)
        while len(_selections) > _CACHE_SIZE:
            _selections.pop(next(iter(_selections)))
    return selection


def _selection(target: PytestTarget, heard: Heard, result: ProcessResult,
               policy: SandboxPolicy, ended: list[str]) -> Selection:
    selection = Selection(rootdir=heard.rootdir, collected=len(heard.items),
                          problem=run_problem(result, heard, policy))
    groups: dict[str, list[str]] = {}
    for nodeid, event in heard.collect_errors.items():
        message = event.get("message")
        if nodeid == target.relative_path or nodeid.startswith(target.relative_path + "::"):
            reason = f"the module {target.module} cannot be collected: {message}"
        else:
            reason = f"collection error: {message}"
        groups.setdefault(reason, []).append(nodeid)
    for nodeid in heard.order:
        event = heard.outcomes[nodeid]
        outcome = event.get("outcome")
        if event.get("calls"):
            if outcome == "skipped":  # (an xfail reached the function: its real outcome later)
                groups.setdefault(_reason(event), []).append(nodeid)
                continue
            selection.selected.append(nodeid)
            selection.files[nodeid] = str(event.get("file") or "")
            if isinstance(event.get("line"), int):
                selection.lines[nodeid] = event["line"]
            if event.get("own_doctest"):
                selection.doctests.append(nodeid)
        elif outcome not in ("passed", "xpassed") and event.get("mentions"):
            # names the function but did not reach it: not run, never dropped silently
            groups.setdefault(_reason(event, target.name), []).append(nodeid)
    if heard.running is not None and heard.running not in heard.outcomes:
        ended.append(heard.running)
    for nodeid in dict.fromkeys(ended):
        reason = ("not looked at: the selection ran out of time during this test"
                  if result.killed and nodeid == heard.running
                  else "the pytest process ended during this test")
        groups.setdefault(reason, []).append(nodeid)
    rest = [i for i in heard.items if i not in heard.outcomes and i not in ended]
    if rest:  # every test pytest collected and did not run is named, with why
        groups.setdefault(_not_looked_at(heard, result), []).extend(rest)
    selection.not_run = [NotRun(reason=r, node_ids=ids) for r, ids in groups.items()]
    return selection


def _not_looked_at(heard: Heard, result: ProcessResult) -> str:
    """Why the selection did not run the tests pytest collected and reported nothing for."""
    done = heard.done or {}
    if result.killed:
        return "not looked at: the selection ran out of time"
    if heard.done is None:
        return "not looked at: the pytest process ended before this test"
    if done.get("internal"):
        return ("not looked at: pytest stopped with an internal error before this test "
                f"({done['internal']})")
    if done.get("stopped"):
        return f"not looked at: pytest stopped the session before this test ({done['stopped']})"
    return "not looked at: pytest reported nothing for this test"


def _reason(event: dict, name: str | None = None) -> str:
    outcome = event.get("outcome")
    message = " ".join(str(event.get("message") or "").split())
    if outcome == "xfailed":
        return f"xfail: {message}" if message else "xfail"
    if outcome == "skipped":
        return message or "skipped"
    if outcome in ("failed", "xpassed"):
        return f"failed before calling {name}: {message}" if message else f"failed before calling {name}"
    when = event.get("when")
    return f"error in {when}: {message}" if message else f"error in {when}"


def selection_cases(selection: Selection) -> list[TestCase]:
    """The public pytest tests of a selection: the selected ones, then the not-run ones (with
    ``skip_reason``: reported as not run, never dropped silently); or one not-run entry when
    pytest could not run at all."""
    def case(nodeid: str, **more: Any) -> TestCase:
        return TestCase(id=nodeid, kind="pytest", origin="public", source=nodeid,
                        name=nodeid.split("::", 1)[-1], **more)

    cases = [case(nodeid, file=selection.files.get(nodeid) or None,
                  line=selection.lines.get(nodeid)) for nodeid in selection.selected]
    cases += [case(nodeid, skip_reason=group.reason)
              for group in selection.not_run for nodeid in group.node_ids]
    if selection.problem and not selection.selected:
        cases.append(TestCase(id="pytest", kind="pytest", origin="public", source="",
                              name="pytest", skip_reason=selection.problem))
    return cases
