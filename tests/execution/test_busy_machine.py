"""Time limits that do not punish a busy machine (issue 24, item 5): the code is limited by the
CPU time it uses; a test the wall-clock backstop cuts while under its CPU limit is "not
judged", never "failed". Eight runs in flight on a machine kept busy by two CPU hogs (started
here, ended by their pids): correct code passes or is not judged, never fails."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest

from codeteam.execution.outcomes import TestCase
from codeteam.execution.sandbox import SandboxPolicy
from codeteam.execution.suite import run_suite
from codeteam.task import Task

pytestmark = pytest.mark.sandbox

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

TESTS = [TestCase(id="ai:1", kind="assert", origin="ai",
                  source="assert running_max([2, 1]) == [2, 2]")]


@pytest.fixture
def hogs():
    started = [subprocess.Popen([sys.executable, "-c", "while 1: pass"]) for _ in range(2)]
    try:
        yield started
    finally:
        for process in started:  # by pid: nothing else of the machine's
            process.kill()
            process.wait()


PROJECT_TESTS = """\
import pytest

from maxes import running_max


@pytest.mark.parametrize("n", range(12))
def test_range(n):
    assert running_max(list(range(n))) == list(range(n))
"""


async def test_eight_runs_beside_two_cpu_hogs_never_fail_correct_code(hogs, tmp_path):
    """Before (a run's wall clock was ``timeout_s``): 96 of 104 verdicts were errors here."""
    from codeteam.project import project_for
    from codeteam.service.documents import task_for, with_project_tests

    root = tmp_path / "proj"
    root.mkdir()
    for folder in (tmp_path, root):
        folder.chmod(0o755)
    (root / "pyproject.toml").write_text("[project]\nname = 'maxes'\n")
    (root / "maxes.py").write_text(MODULE)
    (root / "test_maxes.py").write_text(PROJECT_TESTS)
    path = root / "maxes.py"
    policy = SandboxPolicy(mode="bwrap", timeout_s=3, per_test_timeout_s=1.0)
    task = task_for(MODULE, "running_max", path=path, project=project_for(path))
    task = await with_project_tests(task, path=path, root=root, policy=policy)
    assert len(task.public_tests) == 14  # 12 project tests, the docstring's 2 examples
    assert all(process.poll() is None for process in hogs)  # the machine is busy
    runs = await asyncio.gather(*(run_suite(task.program_with(task.stub), task.public_tests,
                                            policy) for _ in range(8)))
    statuses = [o.status for run in runs for o in run.outcomes]
    assert len(statuses) == 8 * 14
    assert set(statuses) <= {"passed", "not judged"}, [
        (o.test_id, o.status, o.message) for run in runs for o in run.outcomes
        if o.status not in ("passed", "not judged")]
    assert all(process.poll() is None for process in hogs)  # busy the whole time


async def test_code_that_spins_still_times_out_on_a_busy_machine(hogs):
    task = Task.from_source(MODULE, "running_max")
    spin = "def running_max(xs):\n    while True:\n        pass\n"
    policy = SandboxPolicy(mode="bwrap", timeout_s=10, per_test_timeout_s=1.0)
    run = await run_suite(task.program_with(spin), TESTS[:1], policy)
    (outcome,) = run.outcomes
    assert outcome.status == "timeout" and "CPU seconds" in outcome.message, outcome
