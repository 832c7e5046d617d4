"""Hostile code from the model, through the team pipeline: contained by the sandbox, reported
as failed tests, nothing outside the sandbox changes, and the pipeline returns."""

import os
import socket
import time
import uuid
from pathlib import Path

import pytest
from pipeline_support import DIRECT, REVISE, TESTER

# One worker runs them in order (pytest-xdist's loadgroup): the last test checks what the
# others left running.
pytestmark = [pytest.mark.sandbox, pytest.mark.xdist_group("hostile_code")]

NO_AI = "no tests from me"


def _code(body: str) -> str:
    lines = "\n".join("    " + line for line in body.strip().splitlines())
    return f"```python\ndef running_max(xs):\n{lines}\n```"


def _script(scripted, body):
    scripted.reply(TESTER, NO_AI)
    scripted.reply(DIRECT, _code(body), times=None).reply(REVISE, _code(body), times=None)


async def _team(run, test_timeout_s=5, **overrides):
    from codeteam.execution.sandbox import SandboxPolicy
    from codeteam.execution.suite import session_policy

    started = time.monotonic()
    result, _ = await run("team", ai_tests=1, max_rounds=1, test_timeout_s=test_timeout_s,
                          **overrides)
    # Bounded by the sandbox's own limits, whatever the code did: the team's few test runs
    # (the candidate's, a revision's) each end by their wall-clock backstop at the latest. Not
    # a speed limit: a busy machine takes longer, never that long.
    backstop = session_policy(SandboxPolicy(timeout_s=5), 2).timeout_s
    assert time.monotonic() - started < 3 * backstop
    assert result.status == "failed"
    outcomes = result.reports[-1].run.outcomes
    assert outcomes and not any(o.passed for o in outcomes)
    return result


async def test_deleting_a_file_outside(scripted, run, tmp_path):
    sentinel = tmp_path / "keep.txt"
    sentinel.write_text("precious")
    _script(scripted, f"import os\nos.remove({str(sentinel)!r})\nreturn xs")
    result = await _team(run)
    assert sentinel.read_text() == "precious"
    assert result.reports[-1].run.outcomes[0].exception_type == "FileNotFoundError"


async def test_writing_to_home(scripted, run):
    name = f"codeteam-hostile-{uuid.uuid4().hex}"
    _script(scripted, f"import pathlib\npathlib.Path({str(Path.home())!r}, {name!r})"
                      ".write_text('x')\nreturn xs")
    await _team(run)
    assert not (Path.home() / name).exists()


async def test_socket_to_the_host(scripted, run):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(5)
    listener.settimeout(0.2)
    port = listener.getsockname()[1]
    _script(scripted, f"import socket\nsocket.create_connection(('127.0.0.1', {port}), 2)\n"
                      "return xs")
    await _team(run)
    with pytest.raises(socket.timeout):
        listener.accept()  # nothing ever connected
    listener.close()


async def test_fork_bomb(scripted, run):
    _script(scripted, "import os\nwhile True:\n    os.fork()")
    result = await _team(run)
    assert {o.status for o in result.reports[-1].run.outcomes} <= {"timeout", "error", "failed"}


async def test_allocating_8_gib(scripted, run):
    _script(scripted, "block = bytearray(8 * 1024 ** 3)\nreturn xs")
    result = await _team(run)
    assert result.reports[-1].run.outcomes[0].exception_type == "MemoryError"


async def test_endless_loop(scripted, run):
    _script(scripted, "while True:\n    pass")
    result = await _team(run, test_timeout_s=1)  # the spin is cut at 1 CPU second, not 5
    assert result.reports[-1].run.outcomes[0].status == "timeout"


async def test_printing_100_mb(scripted, run):
    _script(scripted, "print('x' * (100 * 1024 * 1024))\nreturn []")
    result = await _team(run)
    run_report = result.reports[-1].run
    assert len(run_report.output) < 2_000_000
    assert all(len(o.stdout) < 2_000_000 for o in run_report.outcomes)


def _sandbox_uid(status: str) -> bool:
    """A sandboxed run's real uid: one of this server's run uids (server is root: other
    servers' runs on the machine have other uids), else 65534."""
    from codeteam.execution.sandbox import RUN_UID_BASE, RUN_UID_SLOTS

    uid = int(status.split("\nUid:\t", 1)[1].split("\t", 1)[0])
    if os.geteuid() != 0:
        return uid == 65534
    base = RUN_UID_BASE + os.getpid() * RUN_UID_SLOTS
    return base <= uid < base + RUN_UID_SLOTS


def test_nothing_left_running():
    """After the hostile runs above, no sandboxed process survives (only they have those
    uids)."""
    leftovers = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                status = Path(f"/proc/{pid}/status").read_text()
            except OSError:
                continue
            if _sandbox_uid(status) and "_codeteam_harness" in Path(
                f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace"):
                leftovers.append(pid)
    assert leftovers == []
