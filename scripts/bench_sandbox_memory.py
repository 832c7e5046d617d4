"""The largest total memory one sandboxed run reaches when it forks children that each
allocate a large share of ``memory_mb`` (issue 25 item 2).

    sudo .venv/bin/python scripts/bench_sandbox_memory.py [--children 6] [--mib 500]
        [--memory-mb 1024] [--server PATH] [--budget cgroup|watcher]

This process moves itself into a cgroup v1 ``memory`` cgroup of its own, without a limit,
and reads its peak (``memory.max_usage_in_bytes``, reset before each run): everything the run
starts is in it (bwrap, the judge, the children; with this branch also the run's own cgroup,
nested). ``--server`` imports codeteam from another checkout's ``server/`` folder (e.g. main,
from ``git archive``) to measure it before the change; ``--budget watcher`` forces the
fallback (no cgroup for the run). Needs root and a writable cgroup v1 memory hierarchy.
A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path

CHILDREN = """\
import os, sys, time
count, mib, hold = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
for _ in range(count):
    if os.fork() == 0:
        block = b"\\1" * (mib * 1024 * 1024)
        time.sleep(hold)
        os._exit(0)
for _ in range(count):
    os.wait()
"""


def own_memory_cgroup() -> str:
    with open("/proc/self/cgroup") as handle:
        for line in handle:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            if "memory" in controllers.split(","):
                return os.path.join("/sys/fs/cgroup/memory", path.lstrip("/"))
    raise SystemExit("no cgroup v1 memory hierarchy here")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--children", type=int, default=6)
    parser.add_argument("--mib", type=int, default=500)
    parser.add_argument("--memory-mb", type=int, default=1024)
    parser.add_argument("--hold", type=float, default=3.0, help="seconds each child holds")
    parser.add_argument("--server", type=Path, default=Path(__file__).resolve().parents[1] / "server")
    parser.add_argument("--budget", choices=["cgroup", "watcher"], default="cgroup")
    args = parser.parse_args()
    measure = os.path.join(own_memory_cgroup(), f"codeteam-bench-{os.getpid()}")
    os.mkdir(measure)
    try:
        with open(os.path.join(measure, "cgroup.procs"), "w") as handle:
            handle.write(str(os.getpid()))
        sys.path.insert(0, str(args.server))
        from codeteam.execution.sandbox import SandboxPolicy, python_argv, run_sandboxed

        if args.budget == "watcher":
            from codeteam.execution import run_budget

            run_budget._hierarchies = dict
        policy = SandboxPolicy(memory_mb=args.memory_mb, timeout_s=args.hold + 30,
                               max_processes=args.children + 8)  # fmt: skip
        argv = python_argv("children.py", str(args.children), str(args.mib), str(args.hold))
        with open(os.path.join(measure, "memory.max_usage_in_bytes"), "w") as handle:
            handle.write("0")
        started = time.monotonic()
        result = asyncio.run(run_sandboxed({"children.py": CHILDREN}, argv, policy))
        seconds = time.monotonic() - started
        with open(os.path.join(measure, "memory.max_usage_in_bytes")) as handle:
            peak = int(handle.read())
        ended = ("ended for memory: " + str(result.memory_note)
                 if getattr(result, "memory_exceeded", False)
                 else f"exit {result.exit_code}, killed by the wall clock: {result.killed}")
        print(f"server {args.server}, budget {args.budget}: {args.children} children x "
              f"{args.mib} MiB, memory_mb {args.memory_mb}: peak {peak / 2**20:.0f} MiB "
              f"({seconds:.1f} s; {ended})")  # fmt: skip
    finally:
        mounts = sys.modules.get("codeteam.execution.sandbox_mounts")
        if mounts is not None and mounts._holder is not None:  # a process of this one
            mounts._holder.close()
        with open(os.path.join(os.path.dirname(measure), "cgroup.procs"), "w") as handle:
            handle.write(str(os.getpid()))
        os.rmdir(measure)


if __name__ == "__main__":
    main()
