"""``codeteam run --write`` never loses the user's file (issue 25): a full disk leaves it as
it was (item 1). Always with the scripted model's base_url, never the embedded model."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from scripted_replies import DIRECT

pytestmark = pytest.mark.sandbox

STUB = 'def double(x):\n    """Double x.\n\n    >>> double(2)\n    4\n    """\n'


def codeteam_run(scripted, *args: str, **settings) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("CODETEAM_") and k != "OPENAI_API_KEY"}
    values = {"base_url": scripted.base_url, "max_retries": 0, "timeout_s": 20, "ai_tests": 0,
              "max_rounds": 1, **settings}
    env.update({f"CODETEAM_{key.upper()}": str(value) for key, value in values.items()})
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
