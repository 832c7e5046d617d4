"""Benchmark: the test suite's wall time, optionally beside CPU hogs (issue 27's figures).

Runs ``python -m pytest -p no:cacheprovider --junitxml=... [PYTEST ARGS]`` from a checkout
(``--checkout``, default this one) with this interpreter, ``--hogs N`` busy-looping processes
beside it (stopped at the end), and reports: the wall time, the CPU seconds of pytest and
every process it waited for (user + sys) and, where a cgroup v1 ``cpuacct`` hierarchy is
writable, of every process it started (waited for or not), the load average before and
after, the counts (passed, failed, errors, skipped), the seconds per layer
(``tests/<layer>``: the sum of setup, call and teardown per test, from the junit file) and
the slowest tests. ``--json``
writes all of it to a file as well. The CPU seconds tell runs on a busy machine apart: the
wall time follows the machine's load, they much less.

Usage::

    .venv/bin/python scripts/bench_suite.py                        # the whole suite, quiet
    .venv/bin/python scripts/bench_suite.py --hogs 2               # beside two CPU hogs
    .venv/bin/python scripts/bench_suite.py -- tests/editor tests/nvim
    .venv/bin/python scripts/bench_suite.py --checkout /tmp/old -- tests/editor  # old tests

Exit status: pytest's.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import resource
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _hog() -> None:  # a CPU-bound process (the "two CPU hogs" of issue 27)
    while True:
        pass


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


CPUACCT = Path("/sys/fs/cgroup/cpuacct")
"""A cgroup v1 ``cpuacct`` hierarchy: where it is writable (root here), pytest runs in a cgroup
of its own and its CPU time is read from it too."""


def _own_cgroup() -> Path | None:
    """A fresh cpuacct cgroup for the run, or None where none can be made."""
    try:
        folder = CPUACCT / f"bench-suite-{os.getpid()}"
        folder.mkdir()
        return folder
    except OSError:
        return None


def _cgroup_cpu(folder: Path | None) -> float | None:
    try:
        return int((folder / "cpuacct.usage").read_text()) / 1e9 if folder else None
    except (OSError, ValueError):
        return None


def read_junit(path: Path) -> tuple[Counter, Counter, list[tuple[float, str]]]:
    """(counts by outcome, seconds by layer, [(seconds, test id)]) of a junit file."""
    counts: Counter = Counter()
    layers: Counter = Counter()
    tests: list[tuple[float, str]] = []
    for case in ET.parse(path).iter("testcase"):
        seconds = float(case.get("time") or 0)
        classname = case.get("classname") or ""
        parts = classname.split(".")
        layer = parts[1] if len(parts) > 1 and parts[0] == "tests" else classname
        layers[layer] += seconds
        tests.append((seconds, f"{classname.replace('.', '/')}.py::{case.get('name')}"))
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome = {"failure": "failed", "error": "errors"}.get(child.tag, child.tag)
        counts[outcome] += 1
    tests.sort(reverse=True)
    return counts, layers, tests


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hogs", type=int, default=0, help="CPU-bound processes beside it")
    parser.add_argument("--checkout", type=Path, default=REPO,
                        help="the folder pytest runs in (its tests/ and pyproject.toml)")
    parser.add_argument("--slowest", type=int, default=20, help="how many slowest tests shown")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("pytest_args", nargs="*", help="after --: pytest's arguments")
    args = parser.parse_args()

    hogs = [multiprocessing.Process(target=_hog, daemon=True) for _ in range(args.hogs)]
    for hog in hogs:
        hog.start()
    junit = Path(tempfile.mkdtemp(prefix="bench-suite-")) / "junit.xml"
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
               f"--junitxml={junit}", *args.pytest_args]
    load_before = os.getloadavg()
    cpu_before = _children_cpu()
    cgroup = _own_cgroup()

    def join_cgroup() -> None:  # in the child, before pytest starts
        if cgroup is not None:
            (cgroup / "cgroup.procs").write_text("0")

    started = time.monotonic()
    try:
        done = subprocess.run(command, cwd=args.checkout, check=False, preexec_fn=join_cgroup)
    finally:
        wall = time.monotonic() - started
        for hog in hogs:
            hog.kill()
    cpu = _children_cpu() - cpu_before
    # Every process the suite started, also those no process waited for (a sandbox killed
    # with its process group is reaped by init: its CPU time is in no rusage above).
    all_cpu = _cgroup_cpu(cgroup)
    if cgroup is not None:
        try:
            cgroup.rmdir()
        except OSError:
            pass  # a process of the suite still runs (its cgroup stays; harmless)
    load_after = os.getloadavg()
    counts, layers, tests = read_junit(junit) if junit.is_file() else (Counter(), Counter(), [])
    figures = {
        "command": " ".join(command), "checkout": str(args.checkout), "hogs": args.hogs,
        "wall_s": round(wall, 1), "cpu_s": round(cpu, 1),
        "cgroup_cpu_s": None if all_cpu is None else round(all_cpu, 1), "exit": done.returncode,
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in load_after],
        "counts": dict(counts), "layers_s": {k: round(v, 1) for k, v in layers.most_common()},
        "slowest": [[round(s, 2), name] for s, name in tests[: args.slowest]],
    }
    print(f"\n{' '.join(command)}  (in {args.checkout}, {args.hogs} CPU hog(s) beside it)")
    print(f"wall {wall:.1f} s, CPU {cpu:.1f} s (pytest and the processes it waited for), "
          f"load average {load_before[0]:.1f} before, {load_after[0]:.1f} after, exit "
          f"{done.returncode}")
    if all_cpu is not None:
        print(f"CPU {all_cpu:.1f} s of every process the suite started (its cpuacct cgroup)")
    print("counts: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    print("seconds per layer: " + ", ".join(f"{k} {v:.1f}" for k, v in layers.most_common()))
    print(f"slowest {args.slowest}:")
    for seconds, name in tests[: args.slowest]:
        print(f"  {seconds:7.2f} s  {name}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
