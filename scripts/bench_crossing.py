"""Benchmark: what crossing between the judge and the code under test costs (issue 24), in CPU
seconds, and the verdicts of tests that cross a lot.

Each scenario is a small project whose one test calls the code ``N`` times (``--scale``
multiplies N) in a judged run (:func:`~codeteam.execution.suite.run_suite`, a bwrap sandbox):

- ``calls``: ``add(i, 1)``, small arguments;
- ``list_arg``: ``total(xs)`` of the test's list of 10,000 ints (decoded, tracked, compared);
- ``closure``: a closure the code returned appending to the test's list (the list crosses
  back each time it changed);
- ``generator``: ``next()`` of a generator over the test's list of 3,000 ints;
- ``nested``: a list nested 300 deep;
- ``endless``: a test calling the function until it returns a truthy value, on a body that
  never does (a mutant's ``return None``): the CPU and wall time to its verdict.

For each it runs the project twice, the test calling the code once and ``N`` times, and
reports the run's CPU seconds (judge and subjects, from the run's cgroup, else sampled:
``ProcessResult.cpu_seconds``), the judge's CPU in the test (its outcome's ``cpu``), the cost
per call (the difference of the two runs over ``N - 1``, in ms of CPU), the wall time and the
verdict. CPU seconds tell runs on a busy machine apart better than wall time; say the load
(printed). A benchmark, not a test::

    .venv/bin/python scripts/bench_crossing.py [--only calls,closure] [--scale 0.5] [--json F]
        [--server PATH]   # codeteam of another checkout (git archive main | tar -x -C PATH)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path


def _server() -> str:
    if "--server" in sys.argv:
        return sys.argv[sys.argv.index("--server") + 1]
    return str(Path(__file__).resolve().parents[1] / "server")


sys.path.insert(0, _server())

from codeteam.execution import suite, trust
from codeteam.execution.sandbox import SandboxPolicy
from codeteam.project import project_for
from codeteam.service.documents import task_for, with_project_tests

SCENARIOS = {  # name: (N, module, test body with {n})
    "calls": (10_000, "def add(a, b):\n    return a + b\n",
              "    total = 0\n    for i in range({n}):\n        total += add(i, 1)\n"),
    "list_arg": (500, "def add(xs, b):\n    return len(xs) + b\n",
                 "    xs = list(range(10_000))\n    for i in range({n}):\n        add(xs, i)\n"),
    "closure": (2_000, ("def add(xs, b):\n    def push(v):\n        xs.append(v + b)\n"
                        "    return push\n"),
                ("    xs = []\n    push = add(xs, 1)\n    for i in range({n}):\n        push(i)\n"
                 "    assert len(xs) == {n}\n")),
    "generator": (3_000, "def add(xs, b):\n    for x in xs:\n        yield x + b\n",
                  ("    xs = list(range(3_000))\n    walk = add(xs, 0)\n"
                   "    for _ in range({n}):\n        next(walk)\n")),
    "nested": (200, ("def add(xs, b):\n    depth = 0\n    while xs:\n        xs, depth = xs[0], "
                    "depth + 1\n    return depth + b\n"),
               ("    xs = []\n    for _ in range(300):\n        xs = [xs]\n"
                "    for _ in range({n}):\n        assert add(xs, 0) == 300\n")),
    "endless": (0, "def add(a, b):\n    return None\n",
                "    while not add(1, 2):\n        pass\n"),
}

EVENTS: list[dict] = []
RESULTS: list = []


def _spy() -> None:
    """Keep each test's outcome event and each session's ProcessResult as trust reads them."""
    from_event, outcomes = trust._from_event, trust.outcomes

    def keep_event(test, event, program, target):
        EVENTS.append(event)
        return from_event(test, event, program, target)

    def keep_result(tests, heard, result, *rest):
        RESULTS.append(result)
        return outcomes(tests, heard, result, *rest)

    trust._from_event, trust.outcomes = keep_event, keep_result
    suite.trust = trust


async def one_run(folder: Path, module: str, body: str, n: int) -> dict:
    root = folder / f"proj{n}"
    (root / "tests").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'calc'\nversion = '0'\n")
    (root / "calc.py").write_text(module)
    (root / "tests" / "test_calc.py").write_text(
        "from calc import add\n\n\ndef test_it():\n" + body.format(n=n))
    for path in [folder, *folder.rglob("*")]:
        if path.is_dir():
            path.chmod(0o755)
    path = root / "calc.py"
    policy = SandboxPolicy(mode="bwrap", timeout_s=600)
    task = task_for(module, "add", path=path, project=project_for(path))
    task = await with_project_tests(task, path=path, root=root, policy=policy)
    EVENTS.clear()
    RESULTS.clear()
    started = time.monotonic()
    run = await suite.run_suite(task.program_with(module), task.public_tests, policy)
    wall = time.monotonic() - started
    event = next((e for e in EVENTS if str(e.get("nodeid", "")).endswith("test_it")), {})
    outcome = run.outcomes[0] if run.outcomes else None
    return {"n": n, "wall_s": round(wall, 2),
            "run_cpu_s": round(sum(r.cpu_seconds or 0.0 for r in RESULTS), 3),
            "judge_cpu_s": event.get("cpu"), "code_cpu_s": event.get("code_cpu"),
            "status": outcome.status if outcome else None,
            "message": (outcome.message or "")[:160] if outcome else None}


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=",".join(SCENARIOS))
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies each N")
    parser.add_argument("--json", type=Path, help="write the rows there too")
    parser.add_argument("--server", default=_server(),
                        help="import codeteam from another checkout's server/ folder")
    args = parser.parse_args()
    _spy()
    rows = []
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory(prefix="bench-crossing-") as folder:
        for name in args.only.split(","):
            n, module, body = SCENARIOS[name]
            n = max(int(n * args.scale), 2) if n else 0
            once = await one_run(Path(folder) / name, module, body, 1) if n else None
            many = await one_run(Path(folder) / name, module, body, n)
            row = {"scenario": name, "runs": [r for r in (once, many) if r]}
            if once is not None:
                row["ms_cpu_per_call"] = round(
                    1000 * (many["run_cpu_s"] - once["run_cpu_s"]) / (n - 1), 3)
                row["judge_ms_per_call"] = round(
                    1000 * ((many["judge_cpu_s"] or 0) - (once["judge_cpu_s"] or 0)) / (n - 1), 3)
            rows.append(row)
            print(json.dumps(row), flush=True)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
