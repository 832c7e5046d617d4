"""``codeteam run --write`` never loses the user's file (issue 25): a full disk leaves it as
it was (item 1), code holding the API key is never written (item 4), code that did not pass
is written only with --write-failing and never over a body passing more (item 7). Always
with the scripted model's base_url, never the embedded model."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from scripted_replies import DIRECT

pytestmark = pytest.mark.sandbox

STUB = 'def double(x):\n    """Double x.\n\n    >>> double(2)\n    4\n    """\n'


def codeteam_run(scripted, *args: str, env_extra: dict[str, str] | None = None,
                 **settings) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("CODETEAM_") and k != "OPENAI_API_KEY"}
    values = {"base_url": scripted.base_url, "max_retries": 0, "timeout_s": 20, "ai_tests": 0,
              "max_rounds": 1, **settings}
    env.update({f"CODETEAM_{key.upper()}": str(value) for key, value in values.items()})
    env.update(env_extra or {})
    return subprocess.run(
        [sys.executable, "-m", "codeteam", "run", *args],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )


@pytest.fixture
def full_disk(tmp_path):
    """A small tmpfs (root only) holding m.py and a filler that uses up the rest of it."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root (tests/unit/test_atomic_write.py fakes it)")
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mount)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        path = mount / "m.py"
        path.write_text(STUB + "".join(f"\n\ndef f{i}():\n    return {i}\n" for i in range(3000)))
        filler = os.open(mount / "filler", os.O_WRONLY | os.O_CREAT)
        try:
            while os.write(filler, b"\0" * 4096):
                pass
        except OSError:  # the disk is full
            pass
        finally:
            os.close(filler)
        yield path
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def test_a_full_disk_leaves_the_file_as_it_was(scripted, full_disk):
    before = full_disk.read_bytes()
    comment = "".join(f"    # step {i}: double the value, as the docstring says\n"
                      for i in range(200))  # 10 kB more than the stub: it cannot fit
    scripted.reply(DIRECT, f"```python\ndef double(x):\n{comment}    return 2 * x\n```")
    done = codeteam_run(scripted, str(full_disk), "--function", "double", "--pipeline",
                        "direct", "--write")
    assert done.returncode == 1, done.stderr
    assert (f"codeteam: could not write {full_disk}: No space left on device; the file is "
            "unchanged") in done.stderr, done.stderr
    assert "# wrote" not in done.stderr and "Traceback" not in done.stderr
    assert full_disk.read_bytes() == before


# --- item 4: the API key is never written ----------------------------------------------------
KEY = "sk-proj-Echo81kQmW0pAsecretKEY4711"
OTHER_KEY = "sk-other-layer-2b7f0c9e1d5a4433"


def echoing(key: str) -> str:
    return f'```python\ndef double(x):\n    token = "{key}"\n    return 2 * x\n```'


@pytest.mark.parametrize("layer", ["set", "env", "openai_env"])
def test_code_holding_the_api_key_is_never_written(scripted, tmp_path, layer):
    path = tmp_path / "m.py"
    path.write_text(STUB)
    echoed = KEY if layer != "openai_env" else OTHER_KEY
    scripted.reply(DIRECT, echoing(echoed))
    args = [str(path), "--function", "double", "--pipeline", "direct", "--write",
            "--write-failing", "--write-untested"]
    settings = {}
    if layer == "set":
        args += ["--set", f"api_key={KEY}"]
    else:
        settings["api_key"] = KEY
    env_extra = {"OPENAI_API_KEY": OTHER_KEY} if layer == "openai_env" else {}
    done = codeteam_run(scripted, *args, env_extra=env_extra, **settings)
    assert done.returncode == 1, done.stderr
    assert ("# not written: the new code holds the configured API key (the model wrote it "
            "into the code); code holding the key is never written to a file") in done.stderr
    assert path.read_text() == STUB
    assert KEY not in done.stdout + done.stderr and OTHER_KEY not in done.stdout + done.stderr
    assert "direct: passed" in done.stderr  # the code passed: only the key stopped it


# --- item 7: failing code does not overwrite working code ------------------------------------
WRONG = "```python\ndef double(x):\n    return x + 1\n```"
WORKING = STUB + "    return x * 2\n"


def test_failing_code_is_not_written(scripted, tmp_path):
    path = tmp_path / "m.py"
    path.write_text(WORKING)
    scripted.reply(DIRECT, WRONG)
    done = codeteam_run(scripted, str(path), "--function", "double", "--pipeline", "direct",
                        "--write")
    assert done.returncode == 1, done.stderr
    assert ("# not written: the new code fails 1 of its 1 tests; pass --write-failing to "
            "write code that did not pass") in done.stderr, done.stderr
    assert "# wrote" not in done.stderr
    assert path.read_text() == WORKING


def test_write_failing_never_replaces_a_body_that_passes_more(scripted, tmp_path):
    path = tmp_path / "m.py"
    path.write_text(WORKING)
    scripted.reply(DIRECT, WRONG)
    done = codeteam_run(scripted, str(path), "--function", "double", "--pipeline", "direct",
                        "--write", "--write-failing")
    assert done.returncode == 1, done.stderr
    assert ("# not written: the function as it is passes 1 of the 1 public tests and the new "
            "code 0: it is not written over code that passes more") in done.stderr, done.stderr
    assert path.read_text() == WORKING


def test_write_failing_writes_over_a_stub_that_fails_too(scripted, tmp_path):
    path = tmp_path / "m.py"
    path.write_text(STUB + "    raise NotImplementedError\n")
    scripted.reply(DIRECT, WRONG)
    done = codeteam_run(scripted, str(path), "--function", "double", "--pipeline", "direct",
                        "--write", "--write-failing")
    assert done.returncode == 1, done.stderr  # the code still fails: exit 1, but written
    assert (f"# wrote {path} though the new code fails 1 of its 1 tests (--write-failing)"
            in done.stderr), done.stderr
    assert "    return x + 1\n" in path.read_text()


# --- item 9: the file's own line ending, everywhere in the new function -----------------------
@pytest.mark.parametrize("ending", ["\r", "\r\n"])
def test_write_keeps_the_files_line_ending(scripted, tmp_path, ending):
    path = tmp_path / "m.py"
    before = "import os" + ending * 3
    after = ending * 2 + "def after():" + ending + "    return 1" + ending
    path.write_bytes((before + STUB.replace("\n", ending) + after).encode())
    scripted.reply(DIRECT, '```python\ndef double(x):\n    """Double x.\n\n    >>> double(2)\n'
                   '    4\n    """\n    text = """two\nlines"""\n    return 2 * x\n```')
    done = codeteam_run(scripted, str(path), "--function", "double", "--pipeline", "direct",
                        "--write")
    assert done.returncode == 0, done.stderr
    written = path.read_bytes().decode()
    assert written.replace(ending, "").count("\n") == 0 and "\r" in written
    assert written.startswith(before + "def double(x):" + ending)
    assert written.endswith("    return 2 * x" + ending + after)
    assert f'text = """two{ending}lines"""' in written
