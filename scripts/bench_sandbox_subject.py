"""Start-up cost of a trivial judged run: a judge and one subject exchanging one message.

    .venv/bin/python scripts/bench_sandbox_subject.py [--runs 30] [--mode bwrap]
        [--kinds inside,protocol] [--server PATH]

Two kinds of run, interleaved so that both see the same machine load:

- ``inside``: the judge starts the subject as its own child process, in the judge's sandbox
  (how the judge and the code under test shared one sandbox before subjects had their own);
- ``protocol``: the judge asks the server for a subject over ``$CODETEAM_SUBJECT_FD``
  (:class:`~codeteam.execution.sandbox.SubjectLaunch`), a sandbox of its own.

Each run is one :func:`~codeteam.execution.sandbox.run_sandboxed` call measured from the
caller's side (median and 90th percentile in ms). ``--server`` imports codeteam from another
checkout's ``server/`` folder (e.g. main before subjects, from ``git archive``: only
``inside`` exists there). A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path


def _server() -> str:
    if "--server" in sys.argv:
        return sys.argv[sys.argv.index("--server") + 1]
    return str(Path(__file__).resolve().parents[1] / "server")


sys.path.insert(0, _server())

from codeteam.execution import sandbox
from codeteam.execution.sandbox import SandboxPolicy, python_argv, run_sandboxed

SUBJECT = """\
import socket, sys
channel = socket.socket(fileno=int(sys.argv[1]))
channel.recv(5)
channel.sendall(b"pong\\n")
"""

INSIDE = """\
import socket, subprocess, sys
judge, subject = socket.socketpair()
child = subprocess.Popen([sys.executable, "-S", "-s", "-B", "subject.py", str(subject.fileno())],
                         pass_fds=[subject.fileno()])
subject.close()
judge.sendall(b"ping\\n")
assert judge.recv(5) == b"pong\\n"
child.wait()
"""

PROTOCOL = """\
import os, socket
server = socket.socket(fileno=int(os.environ["CODETEAM_SUBJECT_FD"]))
server.sendall(b"S")
answer, fds, _, _ = socket.recv_fds(server, 1, 1)
assert answer == b"S", answer
judge = socket.socket(fileno=fds[0])
judge.sendall(b"ping\\n")
assert judge.recv(5) == b"pong\\n"
"""


async def once(kind: str, policy: SandboxPolicy) -> float:
    started = time.perf_counter()
    if kind == "inside":
        result = await run_sandboxed({"judge.py": INSIDE, "subject.py": SUBJECT},
                                     python_argv("judge.py"), policy)  # fmt: skip
    else:
        launch = sandbox.SubjectLaunch(argv=python_argv("subject.py", "{channel}"),
                                       files={"subject.py": SUBJECT})  # fmt: skip
        result = await run_sandboxed({"judge.py": PROTOCOL}, python_argv("judge.py"), policy,
                                     subject=launch)  # fmt: skip
    elapsed = (time.perf_counter() - started) * 1000
    if result.exit_code != 0:
        raise SystemExit(f"{kind}: exit {result.exit_code}: {result.stderr}{result.subject_output}")
    return elapsed


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--mode", default="bwrap", choices=["bwrap", "none"])
    parser.add_argument("--kinds", default="inside,protocol")
    parser.add_argument("--server", default=_server())
    args = parser.parse_args()
    policy = SandboxPolicy(mode=args.mode, timeout_s=30)
    kinds = tuple(args.kinds.split(","))
    for kind in kinds:
        await once(kind, policy)  # warm-up (and the one-time bwrap check)
    times: dict[str, list[float]] = {kind: [] for kind in kinds}
    for _ in range(args.runs):
        for kind in kinds:
            times[kind].append(await once(kind, policy))
    load = os.getloadavg()[0]
    print(f"server {args.server}, mode {args.mode}, {args.runs} runs each, load average "
          f"{load:.2f}, {os.cpu_count()} cores")  # fmt: skip
    for kind in kinds:
        ordered = sorted(times[kind])
        p90 = ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]
        print(f"  {kind:9} median {statistics.median(ordered):6.1f} ms   p90 {p90:6.1f} ms")


if __name__ == "__main__":
    asyncio.run(main())
