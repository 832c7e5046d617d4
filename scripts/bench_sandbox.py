"""Sandbox overhead per test run: N runs of one trivial passing test, median and p95 in ms.

    .venv/bin/python scripts/bench_sandbox.py [--runs 50] [--modes bwrap,none] [--kind assert]

``--kind`` is any of assert (an AI test: a generated test module), doctest (the function's
docstring example, pytest's doctest runner), constant (an assert using a module constant);
default assert,doctest.

Each run is a full :func:`codeteam.execution.suite.run_suite` call (the module as a project of
one file, bwrap, pytest's start with the judge plugin, the subject's start, one test, results
parsed), measured from the caller's side. A benchmark, not a test: nothing here asserts on
time.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

from codeteam.execution.outcomes import TestCase
from codeteam.execution.sandbox import SandboxPolicy, sandbox_problem
from codeteam.execution.suite import run_suite
from codeteam.task import Task

PROGRAM = 'ONE = 1\n\n\ndef add(a, b):\n    """Add.\n\n    >>> add(1, 2)\n    3\n    """\n' \
    "    return a + b\n"
TESTS = {
    "assert": TestCase(id="a", kind="assert", origin="ai", source="assert add(1, 2) == 3"),
    "doctest": TestCase(id="doctest:1", kind="doctest", origin="public", source="add(1, 2)",
                        expected="3"),
    "constant": TestCase(id="c", kind="assert", origin="ai", source="assert add(1, ONE) == 2"),
}


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


async def bench(mode: str, kind: str, runs: int) -> list[float]:
    policy = SandboxPolicy(mode=mode)
    test = TESTS[kind]
    task = Task.from_source(PROGRAM, "add")
    program = task.program_with(task.stub)
    await run_suite(program, [test], policy)  # warm-up (and the one-time bwrap check)
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        report = await run_suite(program, [test], policy)
        times.append((time.perf_counter() - started) * 1000)
        if not report.all_passed:
            raise SystemExit(f"the trivial test did not pass: {report.outcomes}")
    return times


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--modes", default="bwrap,none")
    parser.add_argument("--kind", default="assert,doctest")
    args = parser.parse_args()
    print(f"{'mode':6} {'test':8} {'runs':>4} {'median ms':>10} {'p95 ms':>8} {'min ms':>8}")
    for mode in args.modes.split(","):
        problem = sandbox_problem(mode)
        if problem:
            print(f"{mode:6} skipped: {problem}")
            continue
        for kind in args.kind.split(","):
            times = await bench(mode, kind, args.runs)
            print(
                f"{mode:6} {kind:8} {len(times):4d} {statistics.median(times):10.1f} "
                f"{percentile(times, 0.95):8.1f} {min(times):8.1f}"
            )


if __name__ == "__main__":
    import logging

    logging.basicConfig(level=logging.ERROR)
    asyncio.run(main())
