"""Benchmark: how long "Review with tester" takes when pytest runs the project's tests.

Builds two projects in a temporary folder: ``params/`` (a function with 200 parametrized pytest
tests) and ``lone/`` (a function with docstring examples and no tests around it), and times

- in-process (what the editor's server does per review): building the task, selecting the
  project's tests (one sandboxed pytest run) and running them (``run_suite``), first and second
  time (the second review of unchanged code hits the selection cache);
- end to end: ``codeteam run FILE --function NAME --pipeline review --set ai_tests=0`` with
  this checkout's ``codeteam`` and, with ``--compare PYTHON``, another checkout's interpreter
  (e.g. main's ``/work/main/.venv/bin/python``), each ``--repeat`` times (median).

Usage: ``.venv/bin/python scripts/bench_review_time.py [--compare /work/main/.venv/bin/python]``
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from codeteam.execution.sandbox import SandboxPolicy
from codeteam.execution.suite import run_suite
from codeteam.service.documents import task_for, with_project_tests

CLAMP = '''def clamp(x, lo, hi):
    """Clamp x into [lo, hi].

    >>> clamp(5, 0, 3)
    3
    """
    return max(lo, min(x, hi))
'''

TESTS = '''import pytest
from mod import clamp

CASES = [(x, 0, 100, max(0, min(x, 100))) for x in range(-50, 150)]


@pytest.mark.parametrize("x,lo,hi,want", CASES)
def test_clamp(x, lo, hi, want):
    assert clamp(x, lo, hi) == want
'''


def make(base: Path) -> tuple[Path, Path]:
    params = base / "params"
    (params / "tests").mkdir(parents=True)
    (params / "pyproject.toml").write_text("[project]\nname = 'mod'\n")
    (params / "mod.py").write_text(CLAMP)
    (params / "tests" / "test_mod.py").write_text(TESTS)
    lone = base / "lone"
    lone.mkdir()
    (lone / "mod.py").write_text(CLAMP)
    for path in (base, params, params / "tests", lone):
        path.chmod(0o755)
    return params / "mod.py", lone / "mod.py"


async def in_process(path: Path, policy: SandboxPolicy) -> list[tuple[float, int, int]]:
    times = []
    for _ in range(2):
        started = time.monotonic()
        task = task_for(path.read_text(), "clamp", path=path)
        task = await with_project_tests(task, path=path, root=None, policy=policy)
        run = await run_suite(task.program_with(task.stub), task.public_tests, policy)
        times.append((time.monotonic() - started, len(run.ran), len(run.passed)))
    return times


def cli(python: str, path: Path, repeat: int) -> tuple[float, str]:
    seconds = []
    summary = ""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CODETEAM_")}
    for _ in range(repeat):
        started = time.monotonic()
        done = subprocess.run(
            [python, "-m", "codeteam", "run", str(path), "--function", "clamp", "--pipeline",
             "review", "--set", "ai_tests=0"],
            capture_output=True, text=True, env=env, check=False, cwd="/",
        )
        seconds.append(time.monotonic() - started)
        summary = next((line for line in done.stderr.splitlines()
                        if line.startswith("# review")), done.stderr[-300:])
    return statistics.median(seconds), summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--compare", help="another checkout's interpreter (e.g. main's)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    policy = SandboxPolicy(mode="bwrap", timeout_s=10)
    with tempfile.TemporaryDirectory(prefix="bench-review-") as folder:
        params, lone = make(Path(folder))
        for label, path in (("200 parametrized tests", params), ("no workspace tests", lone)):
            first, second = asyncio.run(in_process(path, policy))
            print(f"{label}: in-process review {first[0]:.2f} s (ran {first[1]}, passed "
                  f"{first[2]}); again, unchanged: {second[0]:.2f} s")
            for name, python in (("this checkout", sys.executable), ("compare", args.compare)):
                if python:
                    seconds, summary = cli(python, path, args.repeat)
                    print(f"  codeteam run ({name}, median of {args.repeat}): {seconds:.2f} s"
                          f"  {summary}")


if __name__ == "__main__":
    main()
