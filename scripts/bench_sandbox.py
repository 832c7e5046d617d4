"""Sandbox overhead per test run: N runs of one trivial passing test, median and p95 in ms.

    .venv/bin/python scripts/bench_sandbox.py [--runs 50] [--modes bwrap,none] [--kind assert]

``--kind`` is any of assert, doctest (both decided by the harness's judge), subject (an assert
using a module constant, so run in the code's own process), pytest (a workspace test function), fixture (one that
takes ``tmp_path``, run under pytest itself); default assert,doctest.

Each run is a full :func:`codeteam.execution.runner.run_tests` call (files copied in, bwrap,
interpreter start, harness, one test, results parsed), measured from the caller's side. A
benchmark, not a test: nothing here asserts on time.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

from codeteam.execution.models import TestCase
from codeteam.execution.runner import run_tests
from codeteam.execution.sandbox import SandboxPolicy, sandbox_problem

PROGRAM = "ONE = 1\n\n\ndef add(a, b):\n    return a + b\n"
TESTS = {
    "assert": TestCase(id="a", kind="assert", origin="ai", source="assert add(1, 2) == 3"),
    "doctest": TestCase(id="d", kind="doctest", origin="public", source="add(1, 2)", expected="3"),
    # a test using more of the module than its functions: run in the code's own process
    "subject": TestCase(id="s", kind="assert", origin="ai", source="assert add(1, ONE) == 2"),
    "pytest": TestCase(id="p", kind="pytest", origin="public", name="test_add",
                       setup="from solution import add\n", line=2,
                       source="def test_add():\n    assert add(1, 2) == 3\n"),
    # a workspace test taking a fixture runs under pytest itself (loaded once per run)
    # (its setup is the whole module it runs in, the test included)
    "fixture": TestCase(id="f", kind="pytest", origin="public", name="test_add", line=2,
                        source="def test_add(tmp_path):\n    assert add(1, 2) == 3\n",
                        setup="from solution import add\n\ndef test_add(tmp_path):\n"
                              "    assert add(1, 2) == 3\n", fixtures=["tmp_path"]),
}


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


async def bench(mode: str, kind: str, runs: int) -> list[float]:
    policy = SandboxPolicy(mode=mode)
    test = TESTS[kind]
    await run_tests(PROGRAM, [test], policy=policy)  # warm-up (and the one-time bwrap check)
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        report = await run_tests(PROGRAM, [test], policy=policy)
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
