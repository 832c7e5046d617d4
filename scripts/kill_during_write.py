"""Measure: SIGKILL of ``codeteam run --write`` at random points while it writes a large file.
How many kills leave a file that is neither the old text nor the new one (target: 0)?

Builds a module of ``--size-mb`` MB (the target function ``double`` and filler: small functions
and comment lines) in a temporary folder, serves the coder's reply from the scripted model
(tests/scripted_llm.py), and runs ``PYTHON -m codeteam run m.py --function double --pipeline
direct --write-untested --write`` with a PATH without bubblewrap (so no test runs: the run
writes the untested code at once). Two runs without a kill give the new text and how long the
write takes (from its first trace on disk — codeteam's temporary file beside m.py, or m.py
itself changing — until m.py holds the new text); each of ``--kills`` runs is then killed with SIGKILL
at a uniformly random moment of that window, and the file is compared with the old and new
texts (and parsed).

Usage: ``.venv/bin/python scripts/kill_during_write.py [--python /work/main/.venv/bin/python]
[--size-mb 30] [--kills 20] [--seed 1]``; ``--python`` picks the codeteam to measure (another
checkout's interpreter, e.g. main's, for a before/after figure).
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from scripted_llm import ScriptedLLM
from scripted_replies import DIRECT

STUB = 'def double(x):\n    """Double x.\n\n    >>> double(2)\n    4\n    """\n'
REPLY = "```python\ndef double(x):\n    return 2 * x\n```"
TEMP_SUFFIX = ".codeteam-tmp"


def big_module(size_mb: float) -> bytes:
    functions = "".join(f"\n\ndef f{i}():\n    return {i}\n" for i in range(20000))
    line = "# filler text for a large module, filler text for a large module\n"
    count = max(0, int(size_mb * 1_000_000) - len(STUB) - len(functions)) // len(line)
    return (STUB + functions + "\n" + line * count).encode()


def started_writing(path: Path, before: os.stat_result) -> bool:
    """True once the run's write left a trace: a temporary file beside ``path`` or ``path``
    itself changed (another version of codeteam writes in place)."""
    if any(p.name.endswith(TEMP_SUFFIX) for p in path.parent.iterdir()):
        return True
    try:
        now = path.stat()
    except FileNotFoundError:
        return True
    return (now.st_size, now.st_mtime_ns, now.st_ino) != (
        before.st_size, before.st_mtime_ns, before.st_ino)


def finished_writing(path: Path, before: os.stat_result, size: int) -> bool:
    """True once ``path`` has the new text's size and no temporary file is left beside it."""
    if any(p.name.endswith(TEMP_SUFFIX) for p in path.parent.iterdir()):
        return False
    try:
        now = path.stat()
    except FileNotFoundError:
        return False
    return now.st_size == size and (now.st_mtime_ns, now.st_ino) != (
        before.st_mtime_ns, before.st_ino)


def start(python: str, path: Path, env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen(
        [python, "-m", "codeteam", "run", str(path), "--function", "double", "--pipeline",
         "direct", "--write-untested", "--write"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=path.parent)


def wait_for_write(process: subprocess.Popen, path: Path, before: os.stat_result) -> float | None:
    """Poll until the run's write leaves a trace on disk; the moment (monotonic), or None
    when the process ended first."""
    while process.poll() is None:
        if started_writing(path, before):
            return time.monotonic()
        time.sleep(0.0002)
    return None


def calibrate(python: str, path: Path, env: dict[str, str], size_hint: int | None
              ) -> tuple[float, bytes]:
    """One run without a kill: (seconds from the write's first trace on disk until the file
    has the new text, the new text)."""
    before = path.stat()
    process = start(python, path, env)
    began = wait_for_write(process, path, before)
    ended = None
    while began is not None and ended is None:
        if (process.poll() is not None if size_hint is None
                else finished_writing(path, before, size_hint)):
            ended = time.monotonic()
        else:
            time.sleep(0.0002)
    _, err = process.communicate()
    if process.returncode != 0 or began is None:
        sys.exit(f"the calibration run failed ({process.returncode}): {err.decode()[-800:]}")
    return ended - began, path.read_bytes()


def killed_run(python: str, path: Path, env: dict[str, str], kill_after: float
               ) -> tuple[bool, int]:
    """Run codeteam on ``path`` and SIGKILL it ``kill_after`` seconds after its write began.
    Returns (whether the write was seen, the exit status)."""
    before = path.stat()
    process = start(python, path, env)
    began = wait_for_write(process, path, before)
    if began is not None:
        time.sleep(max(0.0, kill_after - (time.monotonic() - began)))
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
    process.communicate()
    return began is not None, process.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--size-mb", type=float, default=30.0)
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    old = big_module(args.size_mb)
    with tempfile.TemporaryDirectory(prefix="kill-during-write-") as folder, \
            ScriptedLLM() as llm:
        llm.reply(DIRECT, REPLY, times=None)
        empty_bin = Path(folder) / "bin"
        empty_bin.mkdir()
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("CODETEAM_") and k != "OPENAI_API_KEY"}
        env.update(CODETEAM_BASE_URL=llm.base_url, CODETEAM_AI_TESTS="0",
                   CODETEAM_MAX_RETRIES="0", PATH=str(empty_bin))
        project = Path(folder) / "project"
        project.mkdir()
        path = project / "m.py"
        path.write_bytes(old)
        _, new = calibrate(args.python, path, env, None)  # the new text
        path.write_bytes(old)
        window, again = calibrate(args.python, path, env, len(new))
        assert new != old and again == new
        print(f"{args.python}: a {len(old) / 1e6:.1f} MB file; the write (its first trace on "
              f"disk until the file holds the new text) took {window * 1000:.0f} ms")
        counts = {"old": 0, "new": 0, "neither": 0, "missed": 0}
        for i in range(args.kills):
            path.write_bytes(old)
            for leftover in project.iterdir():
                if leftover.name.endswith(TEMP_SUFFIX):
                    leftover.unlink()
            at = rng.uniform(0, window)
            seen, status = killed_run(args.python, path, env, at)
            text = path.read_bytes() if path.exists() else b""
            if not seen:
                kind = "missed"
            elif text == old:
                kind = "old"
            elif text == new:
                kind = "new"
            else:
                kind = "neither"
            counts[kind] += 1
            parses = "parses" if kind != "neither" else _parses(text)
            print(f"kill {i + 1:2d} at {at * 1000:.1f} ms into the write: exit {status}, file {kind} "
                  f"({len(text) / 1e6:.2f} MB, {parses})")
        print(f"{args.kills} kills: {counts['old']} old, {counts['new']} new, "
              f"{counts['neither']} neither old nor new, {counts['missed']} missed the write")
    return 0 if counts["neither"] == 0 else 1


def _parses(data: bytes) -> str:
    try:
        compile(data, "m.py", "exec")
    except (SyntaxError, ValueError) as error:
        return f"does not parse: {type(error).__name__}"
    return "parses"


if __name__ == "__main__":
    raise SystemExit(main())
