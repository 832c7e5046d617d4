"""Hostile generated code under bwrap: each attempt is contained, reported as an outcome, and
the run returns within a bounded time. Nothing outside the run's scratch space changes."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import time
import uuid
from pathlib import Path

import pytest
from judge_support import run_tests
from test_sandbox import _exits

from codeteam.execution.outcomes import RunReport, TestCase
from codeteam.execution.sandbox import SandboxPolicy
from codeteam.execution.suite import session_policy
from waiting import until

pytestmark = pytest.mark.sandbox

POLICY = SandboxPolicy(timeout_s=4, per_test_timeout_s=1.0)


def _assert(test_id: str, source: str) -> TestCase:
    return TestCase(id=test_id, kind="assert", origin="ai", source=source)


async def _run(program: str, *sources: str, policy: SandboxPolicy = POLICY) -> RunReport:
    tests = [_assert(f"t{i}", source) for i, source in enumerate(sources)]
    started = time.monotonic()
    report = await run_tests(program, tests, policy=policy)
    bound = session_policy(policy, len(tests)).timeout_s  # the run's wall-clock backstop
    assert time.monotonic() - started < bound + 3  # bounded, whatever the code did
    assert len(report.outcomes) == len(tests)
    return report


def _home_listing() -> set[str]:
    return set(os.listdir(Path.home()))


async def test_deleting_files_outside_fails(tmp_path):
    sentinel = tmp_path / "sentinel.txt"
    sentinel.write_text("keep me")
    program = f"import os, shutil\nTARGET = {str(sentinel)!r}\n"
    report = await _run(
        program,
        "os.remove(TARGET)",
        "shutil.rmtree(os.path.dirname(TARGET))",
        f"os.remove({str(Path.cwd() / 'pyproject.toml')!r})",
    )
    assert [o.status for o in report.outcomes] == ["failed"] * 3
    assert report.outcomes[0].exception_type == "FileNotFoundError"
    assert sentinel.read_text() == "keep me"
    assert (Path.cwd() / "pyproject.toml").exists()


async def test_writing_to_home_fails():
    name = f"codeteam-probe-{uuid.uuid4().hex}"
    before = _home_listing()
    home = str(Path.home())
    report = await _run(
        # as the program: module-level code runs at import
        f"import os, pathlib\nopen(os.path.join({home!r}, {name!r}), 'w').write('x')\n",
        "pass",
    )
    assert report.outcomes[0].status == "error"
    assert report.outcomes[0].exception_type in ("OSError", "PermissionError", "FileNotFoundError")
    report = await _run(
        "import pathlib\n",
        f"pathlib.Path.home().joinpath({name!r}).write_text('x')",  # the sandbox's own $HOME
        f"pathlib.Path({home!r}, '.bashrc').write_text('x')",
    )
    assert [o.status for o in report.outcomes] == ["passed", "failed"]
    assert not (Path.home() / name).exists()
    assert _home_listing() - before == set()


async def test_no_network_to_the_host():
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.settimeout(0.3)
    port = listener.getsockname()[1]
    try:
        report = await _run(
            "import socket\n",
            f"socket.create_connection(('127.0.0.1', {port}), timeout=1)",
            "socket.getaddrinfo('pypi.org', 443)",
        )
        with pytest.raises(TimeoutError):
            listener.accept()  # nothing ever connected
    finally:
        listener.close()
    connect, dns = report.outcomes
    assert connect.status == "failed" and connect.exception_type == "ConnectionRefusedError"
    assert dns.status == "failed"


def _processes_named(comm: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/comm") as handle:
                    if handle.read().strip() == comm:
                        found.append(int(entry))
            except OSError:
                continue
    return found


async def test_fork_bomb_is_contained():
    comm = f"bomb{uuid.uuid4().hex[:8]}"
    bomb = (  # the code under test (the judge, not dumpable, could not even name itself)
        "import os\n\n\ndef bomb():\n"
        f"    open('/proc/self/comm', 'w').write({comm!r})\n"
        "    while True:\n"
        "        try:\n"
        "            os.fork()\n"
        "        except OSError:\n"
        "            pass\n"
    )
    report = await _run(bomb, "bomb()", "assert 1 + 1 == 2")
    bomb_outcome, after = report.outcomes
    assert bomb_outcome.status == "timeout", bomb_outcome
    assert after.status == "passed"  # the harness cleared the bomb's processes
    assert _processes_named(comm) == []


async def test_huge_allocation_is_a_memory_error():
    report = await _run("", "b = bytearray(8 * 1024 ** 3)", "assert True")
    alloc, after = report.outcomes
    assert alloc.status == "failed" and alloc.exception_type == "MemoryError"
    assert after.status == "passed"


async def test_endless_loops_time_out():
    program = "def spin():\n    while True:\n        pass\n"
    report = await _run(program, "spin()", "assert True")
    spin, after = report.outcomes
    assert spin.status == "timeout" and spin.program_line in (2, 3)  # the loop
    assert after.status == "passed"


async def test_a_loop_in_c_is_ended_by_the_cpu_limit():
    # sum() over an endless iterator never returns to the interpreter loop (nor lets another
    # thread run): the subject's CPU rlimit, a second past the test's CPU time, ends it.
    policy = SandboxPolicy(timeout_s=10, per_test_timeout_s=0.5)
    program = "import itertools\n\ndef total():\n    return sum(itertools.repeat(1))\n"
    report = await _run(program, "total()", "pass", policy=policy)
    stuck, never = report.outcomes
    assert not report.killed
    assert stuck.status == "timeout" and "outside Python" in stuck.message
    assert never.status == "passed"  # the stuck subject was ended; a fresh one runs the rest


async def test_the_wall_clock_is_the_backstop():
    # the code lifts its CPU rlimit first and sleeps off the CPU: the per-test wall-clock
    # backstop ends the test, which counts neither way (never a pass)
    policy = SandboxPolicy(timeout_s=2, per_test_timeout_s=0.5)
    hostile = (
        "import resource, time\n\n\ndef stuck():\n"
        "    resource.setrlimit(resource.RLIMIT_CPU, resource.getrlimit(resource.RLIMIT_CPU))\n"
        "    while True:\n        time.sleep(0.01)\n"
    )
    report = await _run(hostile, "stuck()", "pass", policy=policy)
    stuck, never = report.outcomes
    assert stuck.status in ("timeout", "not judged"), stuck
    assert never.status == "passed"


SILENCED = """\
import gc, resource, signal


def spin():
    for found in gc.get_objects():  # the subject's own object, in the code's process
        if type(found).__name__ == "Subject":
            type(found).budget = property(lambda self: None, lambda self, value: None)
    resource.setrlimit(resource.RLIMIT_CPU, (resource.getrlimit(resource.RLIMIT_CPU)[1],) * 2)
    signal.signal(signal.SIGUSR2, signal.SIG_IGN)
    signal.signal(signal.SIGXCPU, signal.SIG_IGN)
    while True:
        pass
"""


async def test_code_that_silences_its_own_cpu_watchdog_still_times_out():
    """break24: the code blinded its process's watchdog (and lifted its CPU rlimit) and spun
    until the wall-clock backstop: "not judged, the machine was too busy", never a timeout.
    The subjects' CPU time, measured by the server, says the code used it."""
    policy = SandboxPolicy(timeout_s=4, per_test_timeout_s=0.5)
    report = await _run(SILENCED, "spin()", "pass", policy=policy)
    spun, after = report.outcomes
    assert spun.status == "timeout", spun
    assert after.status == "passed"


async def test_a_test_that_catches_everything_does_not_catch_the_time_limit():
    """break24: the CPU limit was an exception the test could catch: code spinning forever
    on the bad input passed ``pytest.raises(BaseException)`` (plain pytest never ends)."""
    program = "def parse(text):\n    while True:\n        pass\n"
    caught = ("import pytest\nwith pytest.raises(BaseException):\n    parse('x')")
    swallowed = "try:\n    parse('x')\nexcept BaseException:\n    pass"
    report = await _run(program, caught, swallowed, "assert True")
    first, second, after = report.outcomes
    assert first.status == "timeout" and second.status == "timeout", report.outcomes
    assert after.status == "passed"


async def test_printing_100_mb_is_capped():
    policy = SandboxPolicy(timeout_s=8, per_test_timeout_s=6, output_limit_bytes=100_000)
    report = await _run(  # the code under test prints (its output comes back capped)
        "import os, sys\n\n\ndef loud(write):\n    for _ in range(100):\n"
        "        os.write(1, b'y' * 1_000_000) if write else print('x' * 1_000_000)\n",
        "loud(False)", "loud(True)", policy=policy,
    )
    printed, written = report.outcomes
    assert printed.status == "passed" and written.status == "passed"
    assert len(report.output) < 10_000


def _descendants(pid: int) -> dict[int, str]:
    parents: dict[int, int] = {}
    commands: dict[int, str] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                parents[int(entry)] = int(handle.read().rsplit(b")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                commands[int(entry)] = handle.read().replace(b"\0", b" ").decode()
        except (OSError, ValueError, IndexError):
            continue
    found: dict[int, str] = {}
    frontier = [pid]
    while frontier:
        parent = frontier.pop()
        for child, its_parent in parents.items():
            if its_parent == parent and child not in found:
                found[child] = commands.get(child, "")
                frontier.append(child)
    return found


@pytest.mark.parametrize("mode", ["bwrap", "none"])
async def test_cancellation_kills_the_process_group(mode):
    policy = SandboxPolicy(mode=mode, timeout_s=60, per_test_timeout_s=60)
    # Children this process already had (a worker an earlier test left) are not the run's.
    before = set(_descendants(os.getpid()))
    marker = "sleep 59"  # a process the test starts: seen, the test is on (then it sleeps)
    task = asyncio.create_task(run_tests("import time\n", [_assert("sleep", (
        f"import subprocess\nsubprocess.Popen({marker.split()!r})\ntime.sleep(60)"))],
        policy=policy))
    started: dict[int, str] = {}

    def test_running() -> bool:  # the event: the test started its process, then sleeps
        started.update({pid: command for pid, command in _descendants(os.getpid()).items()
                        if pid not in before})
        return any(command.split() == marker.split() for command in started.values())

    await until(test_running, f"the test's '{marker}' process", unless=task)
    assert any("_codeteam_pytest" in command for command in started.values()), started
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    # Killed when the cancelled run returns: a SIGKILLed process may still need a CPU to exit
    # on a busy machine, so wait for each one's exit (its pidfd), not a fixed time.
    assert [pid for pid in started if not _exits(pid, within_s=30)] == [], started


# --------------------------------------------------------------------------------------------
# The subject (the code under test) against its judge, each in a sandbox of its own.

ATTACKER = """\
import ctypes, json, os, signal, socket, sys
channel = socket.socket(fileno=int(sys.argv[1]))
me = os.getpid()
seen = {}
for entry in os.listdir("/proc"):
    if entry.isdigit():
        try:
            seen[int(entry)] = open(f"/proc/{entry}/cmdline", "rb").read().decode(errors="replace")
        except OSError:
            pass
libc = ctypes.CDLL(None, use_errno=True)
traced = {}
for pid in range(1, 4096):
    if pid != me and libc.ptrace(16, pid, None, None) == 0:  # PTRACE_ATTACH
        traced[pid] = seen.get(pid, "?")
        libc.ptrace(17, pid, None, None)  # PTRACE_DETACH
child = os.fork()
if child == 0:
    signal.pause()
    os._exit(0)
own_child = libc.ptrace(16, child, None, None)  # even its own child: ptrace is refused
own_child_errno = ctypes.get_errno()
os.kill(child, signal.SIGKILL)
os.waitpid(child, 0)
def attempt(action):
    try:
        return action()
    except OSError as error:
        return type(error).__name__
report = {
    "ptrace_own_child": [own_child, own_child_errno],
    "uid": os.getuid(),
    "processes": seen,
    "traced": traced,
    "read_judge_file": attempt(lambda: open("/sandbox/judge_secret.txt").read()),
    "write_judge_folder": attempt(lambda: open("/sandbox/evil.py", "w").write("HACKED = 1")),
    "sandbox_listing": sorted(os.listdir("/sandbox")),
    "tmp_data": attempt(lambda: open("/tmp/answer.txt", "w").write("42")),
}
channel.sendall(json.dumps(report).encode() + b"\\n")
signal.signal(signal.SIGTERM, signal.SIG_IGN)
os.kill(-1, signal.SIGKILL)  # every process this one can signal
"""

VICTIM_JUDGE = """
import json, os
channel, _ = start()
report = json.loads(channel.makefile("rb").readline())
assert channel.recv(1) == b""  # the subject killed everything it could reach, itself included
status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines())
report["judge_alive_pid"] = os.getpid()
report["judge_uid"] = os.getuid()
report["judge_cmdline_seen"] = any("judge.py" in cmd for cmd in report["processes"].values())
report["judge_tracer"] = status["TracerPid"].strip()
report["judge_secret"] = open("/sandbox/judge_secret.txt").read()
report["judge_listing"] = sorted(os.listdir("/sandbox"))
report["tmp_read_by_judge"] = open("/tmp/answer.txt").read()
print(json.dumps(report))
"""


async def test_the_subject_cannot_reach_its_judge():
    """The code under test, in its subject sandbox, sees none of the judge's processes,
    cannot ptrace (at all: not even its own child) or kill it (``kill(-1, SIGKILL)``), cannot
    read or write the judge's /sandbox; what it writes to the shared /tmp the judge reads
    (data, like a return value)."""
    from subject_client import JUDGE_CLIENT

    from codeteam.execution.sandbox import SubjectLaunch, python_argv, run_sandboxed

    subject = SubjectLaunch(argv=python_argv("attacker.py", "{channel}"),
                            files={"attacker.py": ATTACKER})  # fmt: skip
    files = {"judge.py": JUDGE_CLIENT + VICTIM_JUDGE, "judge_secret.txt": "the judge's own"}
    result = await run_sandboxed(files, python_argv("judge.py"),
                                 SandboxPolicy(timeout_s=20), subject=subject)  # fmt: skip
    assert result.exit_code == 0 and not result.killed, (result.stderr, result.subject_output)
    report = json.loads(result.stdout)
    assert report["judge_cmdline_seen"] is False
    assert all("attacker.py" in cmd or "bwrap" in cmd or cmd == ""
               for cmd in report["processes"].values()), report["processes"]
    assert all("judge" not in cmd for cmd in report["traced"].values()), report["traced"]
    assert report["judge_tracer"] == "0"
    assert report["ptrace_own_child"] == [-1, 1]  # EPERM: the seccomp filter refuses ptrace
    assert report["read_judge_file"] == "FileNotFoundError"
    assert report["sandbox_listing"] == ["attacker.py", "evil.py"]  # its own folder
    assert report["judge_secret"] == "the judge's own"
    assert "evil.py" not in report["judge_listing"]
    assert report["tmp_data"] == 2 and report["tmp_read_by_judge"] == "42"
    if os.geteuid() == 0:  # a root server: the subject runs as a uid of its own too
        assert report["uid"] != report["judge_uid"]
