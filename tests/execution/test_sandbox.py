"""run_sandboxed: what the sandboxed process can see, limits, output caps, kills."""

from __future__ import annotations

import json
import os
import resource
from pathlib import Path

import pytest

from codeteam.execution import sandbox as sandbox_module
from codeteam.execution.models import TestCase
from codeteam.execution.runner import run_tests
from codeteam.execution.sandbox import SandboxPolicy, _count_tasks, python_argv, run_sandboxed

pytestmark = pytest.mark.sandbox

PROBE = """\
import json, os, resource, socket
def can_write(path):
    try:
        with open(path, "w") as handle:
            handle.write("x")
        return True
    except OSError:
        return False
print(json.dumps({
    "uid": os.getuid(),
    "env": dict(os.environ),
    "cwd": os.getcwd(),
    "files": sorted(os.listdir(".")),
    "workspace_visible": os.path.exists(WORKSPACE_FILE),
    "home_entries": sorted(os.listdir(HOME)) if os.path.isdir(HOME) else None,
    "writable": {p: can_write(p) for p in ("/sandbox/w", "/tmp/w", "/dev/shm/w", "/w",
                                           "/etc/w", "/usr/w", HOME + "/w")},
    "interfaces": [name for _, name in socket.if_nameindex()],
    "limits": {name: resource.getrlimit(getattr(resource, name))
               for name in ("RLIMIT_CPU", "RLIMIT_AS", "RLIMIT_FSIZE", "RLIMIT_CORE",
                            "RLIMIT_NPROC")},
}))
os.write(int(os.environ["CODETEAM_RESULTS_FD"]), b"results channel\\n")
"""


async def test_the_sandbox_sees_no_home_no_workspace_no_secrets(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-must-not-leak")
    home = str(Path.home())
    workspace_file = str(Path.cwd() / "pyproject.toml")
    code = f"HOME = {home!r}\nWORKSPACE_FILE = {workspace_file!r}\n" + PROBE
    policy = SandboxPolicy(timeout_s=10)
    result = await run_sandboxed({"probe.py": code}, python_argv("probe.py"), policy)
    assert result.exit_code == 0, result.stderr
    seen = json.loads(result.stdout)
    assert seen["uid"] == 65534
    assert "OPENAI_API_KEY" not in seen["env"] and "HOME" not in seen["env"]
    assert "sk-must-not-leak" not in result.stdout
    assert seen["cwd"] == "/sandbox" and seen["files"] == ["probe.py"]
    assert seen["workspace_visible"] is False
    # only what the interpreter needs may show under $HOME (e.g. a pyenv prefix)
    assert seen["home_entries"] in (None, [], [".pyenv"], [".local"])
    assert seen["writable"] == {
        "/sandbox/w": True,
        "/tmp/w": True,
        "/dev/shm/w": True,
        "/w": False,
        "/etc/w": False,
        "/usr/w": False,
        home + "/w": False,
    }
    assert seen["interfaces"] == ["lo"]
    mib = 1024 * 1024
    limits = seen["limits"]
    assert limits["RLIMIT_CPU"] == [policy.cpu_s, policy.cpu_s + 1]
    assert limits["RLIMIT_AS"] == [policy.memory_mb * mib] * 2
    assert limits["RLIMIT_FSIZE"] == [policy.file_size_mb * mib] * 2
    assert limits["RLIMIT_CORE"] == [0, 0]
    assert limits["RLIMIT_NPROC"][0] <= policy.max_processes + 2 + _nobody_tasks()
    assert result.results == "results channel\n"
    assert not result.killed and result.sandbox == "bwrap"


def _nobody_tasks() -> int:
    return _count_tasks(65534) + 16  # others' sandboxes may come and go meanwhile


async def test_output_is_capped_and_drained():
    code = "import os\nfor _ in range(50):\n    os.write(1, b'x' * 100_000)\nprint('end')\n"
    policy = SandboxPolicy(output_limit_bytes=10_000)
    result = await run_sandboxed({"a.py": code}, python_argv("a.py"), policy)
    assert result.exit_code == 0
    assert result.stdout_bytes == 5_000_004
    assert result.stdout.startswith("x" * 10_000)
    assert len(result.stdout) < 10_200
    assert "truncated: 5000004 bytes written, the first 10000 kept" in result.stdout


async def test_wall_clock_timeout_kills():
    code = "import time\nprint('started', flush=True)\ntime.sleep(60)\n"
    result = await run_sandboxed({"a.py": code}, python_argv("a.py"), SandboxPolicy(timeout_s=1))
    assert result.killed and result.exit_code == -9
    assert 0.9 < result.seconds < 5
    assert result.stdout == "started\n"


async def test_file_size_and_scratch_limits():
    code = (
        "import errno\n"
        "def attempt(path, size):\n"
        "    try:\n"
        "        with open(path, 'wb') as handle:\n"
        "            handle.write(b'x' * size)\n"
        "        return 'ok'\n"
        "    except OSError as error:\n"
        "        return errno.errorcode[error.errno]\n"
        "kib = 1024\n"
        "print(attempt('big', 1500 * kib), attempt('/tmp/a', 900 * kib),"
        " attempt('/tmp/b', 900 * kib), attempt('/tmp/c', 900 * kib))\n"
    )
    policy = SandboxPolicy(file_size_mb=1, scratch_mb=2)
    result = await run_sandboxed({"a.py": code}, python_argv("a.py"), policy)
    assert result.stdout.split() == ["EFBIG", "ok", "ok", "ENOSPC"], result.stderr


async def test_none_mode_has_limits_and_cleans_up():
    code = (
        "import os, resource\n"
        "print(os.getcwd())\n"
        "print(resource.getrlimit(resource.RLIMIT_AS)[0])\n"
        "print('OPENAI_API_KEY' in os.environ)\n"
    )
    os.environ.setdefault("OPENAI_API_KEY", "sk-test")
    try:
        result = await run_sandboxed(
            {"a.py": code}, python_argv("a.py"), SandboxPolicy(mode="none", memory_mb=512)
        )
    finally:
        if os.environ.get("OPENAI_API_KEY") == "sk-test":
            del os.environ["OPENAI_API_KEY"]
    cwd, limit, leaked = result.stdout.split()
    assert not Path(cwd).exists()
    assert int(limit) == 512 * 1024 * 1024
    assert leaked == "False"
    assert result.sandbox == "none"
    assert resource.getrlimit(resource.RLIMIT_AS)[0] != 512 * 1024 * 1024  # not the server's


async def test_bad_file_names_are_refused():
    for name in ("/etc/passwd", "../x.py", ""):
        with pytest.raises(ValueError):
            await run_sandboxed({name: ""}, python_argv("-c", "pass"), SandboxPolicy())


FORKS = """\
import os, time
children = []
for _ in range(20):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(5)
        os._exit(0)
    children.append(pid)
print(len(children), os.getuid())
for pid in children:
    os.kill(pid, 9)
    os.waitpid(pid, 0)
"""


@pytest.mark.parametrize("tools", [True, False], ids=["util-linux", "python-shim"])
async def test_process_limit_is_per_run(monkeypatch, tools):
    """A bounded number of forks (20) against max_processes=5: at most 5 succeed."""
    if not tools:
        monkeypatch.setattr(sandbox_module, "_tool", lambda name: None)
    policy = SandboxPolicy(max_processes=5, timeout_s=10)
    others_before = _count_tasks(65534)
    result = await run_sandboxed({"a.py": FORKS}, python_argv("a.py"), policy)
    others_after = _count_tasks(65534)
    assert result.exit_code == 0, result.stderr
    forked, uid = (int(word) for word in result.stdout.split())
    assert uid == 65534
    if os.geteuid() == 0 and (others_before or others_after):
        # a root server's budget is per real uid 65534, shared with other sandboxes that
        # were running meanwhile: bounded, but not exactly 5
        assert forked <= 5 + others_before
    else:
        assert forked == 5


async def test_process_limit_in_none_mode():
    """ "none": the rlimit (server not root) or the harness's fork guard (root) bounds forks."""
    program = FORKS.replace("print(len(children), os.getuid())", "COUNT = len(children)")
    test = TestCase(id="n", kind="assert", origin="ai", source="assert COUNT == 0")
    report = await run_tests(program, [test], policy=SandboxPolicy(mode="none", max_processes=5))
    assert report.outcomes[0].status == "failed"
    assert 3 <= int(report.outcomes[0].actual) <= 5
