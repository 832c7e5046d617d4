#!/usr/bin/env python
"""Benchmark: what the sandboxes' niceness (``sandbox_niceness``) costs the runs on a machine
busy with other work (issue 26, item 5).

Starts ``--hogs`` CPU hogs, each in a session of its own (``setsid``: a scheduling group of
its own where the kernel groups tasks by session, as a user's other programs are), then, for
each niceness of ``--niceness`` in turn, ``--rounds`` times:

- ``runs``: ``--runs`` runs at once of correct code (tests/execution/test_busy_machine.py's
  project: 12 parametrized pytest tests and 2 docstring examples, ``run_suite`` with that
  test's policy; ``--spin S`` adds a test that uses S CPU seconds and runs with the editor's
  policy), and counts the verdicts (passed / not judged / failed or other); prints the wall
  time of the whole batch, each run's ``seconds`` (median, max) and the CPU the hogs got
  meanwhile (CPU seconds per second: 2.0 is two whole cores);
- ``starts``: ``--runs`` sandboxes started at once whose command prints the wall clock
  (``date +%s.%N``): the start latency of each (from the ``run_sandboxed`` call to the
  command's first instruction), median and max, in ms. Each niced sandbox first writes its
  group's niceness, which the kernel takes once per 100 ms machine-wide from an unprivileged
  process (``sandbox_command._niced`` tries again every 0.1 s).

The hogs are ended by their pids. A benchmark, not a test: it prints numbers and never fails
on them; the load average at each start is printed.

Usage::

    .venv/bin/python scripts/bench_busy_runs.py [--niceness 0 10] [--rounds 2] [--hogs 2] \
        [--runs 8] [--spin S] [--shared]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

from codeteam.execution.sandbox import SandboxPolicy, run_sandboxed
from codeteam.execution.suite import run_suite

MODULE = '''\
def running_max(xs):
    """Running maximum.

    >>> running_max([1, 3, 2])
    [1, 3, 3]
    >>> running_max([])
    []
    """
    out = []
    for x in xs:
        out.append(x if not out else max(out[-1], x))
    return out
'''

PROJECT_TESTS = """\
import pytest

from maxes import running_max


@pytest.mark.parametrize("n", range(12))
def test_range(n):
    assert running_max(list(range(n))) == list(range(n))
"""

SPIN = """

def test_heavy():
    import time
    started = time.process_time()
    while time.process_time() - started < %r:
        running_max([1, 2])
"""


def load() -> str:
    return os.getloadavg()[0].__format__(".1f")


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds the processes ``pids`` used so far."""
    total = 0
    for pid in pids:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


async def runs(task, count: int, niceness: int, hogs: list[int], policy: SandboxPolicy,
               shared: bool = False) -> str:
    policy = policy.model_copy(update={"niceness": niceness, "niceness_shared": shared})
    started, hogs_before = time.monotonic(), cpu_seconds(hogs)
    done = await asyncio.gather(*(run_suite(task.program_with(task.stub), task.public_tests,
                                            policy) for _ in range(count)))
    wall = time.monotonic() - started
    hogs_rate = (cpu_seconds(hogs) - hogs_before) / wall
    verdicts = collections.Counter(o.status for run in done for o in run.outcomes)
    seconds = [run.seconds for run in done]
    busy = collections.Counter(o.message[:60] for run in done for o in run.outcomes
                               if o.status != "passed")
    for message in {o.message for run in done for o in run.outcomes
                    if o.status not in ("passed", "not judged")}:
        print("    not passed:", message[:1500])
    for run in done:
        if any(o.status not in ("passed", "not judged") for o in run.outcomes) and run.output:
            print("    output:", run.output[:3000])
    return (f"verdicts {dict(verdicts)}; batch {wall:.1f} s, a run's seconds median "
            f"{statistics.median(seconds):.1f} max {max(seconds):.1f}; the hogs got "
            f"{hogs_rate:.2f} CPU-s per s"
            + (f"; reasons {dict(busy)}" if busy else ""))


async def starts(count: int, niceness: int) -> str:
    policy = SandboxPolicy(mode="bwrap", timeout_s=60, niceness=niceness)

    async def one() -> float:
        called = time.time()
        result = await run_sandboxed({}, ["date", "+%s.%N"], policy)
        return (float(result.stdout.strip()) - called) * 1000

    latencies = sorted(await asyncio.gather(*(one() for _ in range(count))))
    return (f"start latency median {statistics.median(latencies):.0f} ms, max "
            f"{latencies[-1]:.0f} ms ({', '.join(f'{x:.0f}' for x in latencies)})")


async def measure(args: argparse.Namespace, hogs: list[int]) -> None:
    from codeteam.project import project_for
    from codeteam.service.documents import task_for, with_project_tests

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "proj"
        root.mkdir()
        for path in (Path(folder), root):
            path.chmod(0o755)
        (root / "pyproject.toml").write_text("[project]\nname = 'maxes'\n")
        (root / "maxes.py").write_text(MODULE)
        (root / "test_maxes.py").write_text(PROJECT_TESTS + (SPIN % args.spin if args.spin
                                                             else ""))
        policy = (SandboxPolicy(mode="bwrap", timeout_s=10) if args.spin else
                  SandboxPolicy(mode="bwrap", timeout_s=3, per_test_timeout_s=1.0))
        path = root / "maxes.py"
        task = task_for(MODULE, "running_max", path=path, project=project_for(path))
        task = await with_project_tests(task, path=path, root=root,
                                        policy=SandboxPolicy(mode="bwrap"))
        print(f"{len(hogs)} hogs (pids {hogs}), {args.runs} runs of "
              f"{len(task.public_tests)} tests each", flush=True)
        for round_ in range(args.rounds):
            for niceness in args.niceness:
                if args.only != "starts":
                    at = load()
                    line = await runs(task, args.runs, niceness, hogs, policy, args.shared)
                    print(f"[{round_}] niceness {niceness:2d} load {at} runs: {line}", flush=True)
                if args.only != "runs":
                    at = load()
                    line = await starts(args.runs, niceness)
                    print(f"[{round_}] niceness {niceness:2d} load {at} starts: {line}",
                          flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--niceness", type=int, nargs="+", default=[0, 10])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--hogs", type=int, default=2)
    parser.add_argument("--only", choices=["runs", "starts"], default=None)
    parser.add_argument("--shared", action="store_true",
                        help="each niceness as the settings give it: a ceiling shared by load "
                        "(SandboxPolicy.niceness_shared; one run's sandboxes at 0)")
    parser.add_argument("--spin", type=float, default=0.0,
                        help="add a project test that uses this many CPU seconds, and run "
                        "with the editor's policy (the settings' test_timeout_s 10, a test's "
                        "CPU limit 5 s) instead of test_busy_machine.py's")
    args = parser.parse_args()
    hogs = [subprocess.Popen([sys.executable, "-c", "while 1: pass"], start_new_session=True)
            for _ in range(args.hogs)]
    try:
        asyncio.run(measure(args, [hog.pid for hog in hogs]))
    finally:
        for hog in hogs:  # by pid: nothing else of the machine's
            hog.kill()
            hog.wait()


if __name__ == "__main__":
    main()
