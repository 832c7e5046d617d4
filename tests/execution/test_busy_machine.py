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


SLOW_DOUBLE = '''\
def double(x):
    """Twice x, after 0.8 s of CPU time."""
    import time
    started = time.process_time()
    while time.process_time() - started < 0.8:
        pass
    return 2 * x
'''


@pytest.fixture
def one_busy_cpu():
    """A callable that puts this process's threads (and so the sandboxes they start) on one
    CPU, beside a CPU hog in a session of its own on the same CPU (``pin(hogs=2)``: two);
    undone after the test. It returns the hogs' first ``Popen``."""
    import os

    cpu = min(os.sched_getaffinity(0))
    before: dict[int, set[int]] = {}
    hog = subprocess.Popen([sys.executable, "-c", "while 1: pass"], start_new_session=True)
    more: list[subprocess.Popen] = []

    def pin(hogs=1):
        more.extend(subprocess.Popen([sys.executable, "-c", "while 1: pass"],
                                     start_new_session=True) for _ in range(hogs - 1))
        for process in (hog, *more):
            os.sched_setaffinity(process.pid, {cpu})
        for task in (int(t) for t in os.listdir("/proc/self/task")):
            before[task] = os.sched_getaffinity(task)
            os.sched_setaffinity(task, {cpu})
        return hog

    try:
        yield pin
    finally:
        for task, cpus in before.items():
            try:
                os.sched_setaffinity(task, cpus)
            except OSError:  # a thread that ended meanwhile
                pass
        for process in (hog, *more):
            process.kill()  # by pid: nothing else of the machine's
            process.wait()


async def test_the_backstop_leaves_out_the_time_a_test_waited_for_a_cpu(
        one_busy_cpu, tmp_path, monkeypatch):
    """hot6: with ``sandbox_niceness`` 10 beside two CPU hogs, 3-8 of 8 correct tests of 2 CPU
    seconds were "not judged: the machine was too busy": the sandboxes got a fraction of
    their CPU's time, and the per-test wall-clock backstop counted the time they waited for
    it. Here the backstop is 1 s and the code needs 0.8 s of CPU in a sandbox beside a hog
    on its one CPU (half of it, or less on a machine busy with more): it passes, as under
    plain pytest (it was "not judged")."""
    from codeteam.execution import pytest_run
    from codeteam.project import project_for
    from codeteam.service.documents import task_for, with_project_tests

    root = tmp_path / "proj"
    root.mkdir()
    for folder in (tmp_path, root):
        folder.chmod(0o755)
    (root / "pyproject.toml").write_text("[project]\nname = 'slow'\n")
    (root / "slow.py").write_text(SLOW_DOUBLE)
    (root / "test_slow.py").write_text(
        "from slow import double\n\n\ndef test_double():\n    assert double(2) == 4\n")
    path = root / "slow.py"
    policy = SandboxPolicy(mode="bwrap")
    task = task_for(SLOW_DOUBLE, "double", path=path, project=project_for(path))
    task = await with_project_tests(task, path=path, root=root, policy=policy)
    assert [t.id for t in task.public_tests] == ["test_slow.py::test_double"]
    monkeypatch.setattr(pytest_run, "wall_backstop", lambda cpu_limit: 1.0)
    hog = one_busy_cpu()
    run = await run_suite(task.program_with(SLOW_DOUBLE), task.public_tests, policy)
    assert [(o.test_id, o.status) for o in run.outcomes] == [
        ("test_slow.py::test_double", "passed")], run.outcomes
    assert hog.poll() is None  # busy the whole time


async def test_the_runs_backstop_leaves_out_the_time_the_run_waited_for_a_cpu(
        one_busy_cpu, tmp_path, monkeypatch):
    """The run-level wall-clock backstop (:func:`~codeteam.execution.suite.session_policy`)
    counted the time the run's processes waited for a CPU, where a test's backstop does not
    (commit 53a6d0d): on a busy machine a whole run was cut, its unfinished tests "not judged:
    the machine was too busy" (or "timeout", when the run got over half its CPU's time).
    Here the run's backstop is 8 s, its processes need about 3-4 CPU seconds (pytest, the
    code's process, three tests of 0.8 s), and they run beside two hogs on their one CPU (a
    third of it, or less on a machine busy with more): every test passes, as under plain
    pytest (the third, or more, was "not judged" at load 7: the run cut at 8 s).
    Measured at load 8, one hog: the run took 9.1 and 9.8 s, of which its processes waited
    for a CPU 6.0 and 6.9 s."""
    from codeteam.execution import suite
    from codeteam.project import project_for
    from codeteam.service.documents import task_for, with_project_tests

    root = tmp_path / "proj"
    root.mkdir()
    for folder in (tmp_path, root):
        folder.chmod(0o755)
    (root / "pyproject.toml").write_text("[project]\nname = 'slow'\n")
    (root / "slow.py").write_text(SLOW_DOUBLE)
    (root / "test_slow.py").write_text(
        "import pytest\n\nfrom slow import double\n\n\n@pytest.mark.parametrize('n', range(3))\n"
        "def test_double(n):\n    assert double(n) == 2 * n\n")
    path = root / "slow.py"
    policy = SandboxPolicy(mode="bwrap")
    task = task_for(SLOW_DOUBLE, "double", path=path, project=project_for(path))
    task = await with_project_tests(task, path=path, root=root, policy=policy)
    assert len(task.public_tests) == 3
    monkeypatch.setattr(suite, "session_policy", lambda policy, count: policy.model_copy(
        update={"timeout_s": 8.0, "cpu_s": 8}))
    hog = one_busy_cpu(hogs=2)  # the run gets a third of its CPU at most (wall clock > 9 s)
    run = await run_suite(task.program_with(SLOW_DOUBLE), task.public_tests, policy)
    assert [o.status for o in run.outcomes] == ["passed"] * 3, [
        (o.test_id, o.status, o.message) for o in run.outcomes]
    assert hog.poll() is None  # busy the whole time


CALLS = {
    "pyproject.toml": "[project]\nname = 'calc'\nversion = '0'\n",
    "calc.py": "def add(a, b):\n    return a + b\n",
    "test_calc.py": '''\
from calc import add


def test_many_calls():
    total = 0
    for i in range(10 ** 6):
        total += add(i, 1)
    assert total == 500000500000


def test_its_own_spin():
    assert add(1, 2) == 3
    while True:
        pass
''',
}


async def test_a_test_cut_by_the_crossing_of_its_calls_is_not_judged(tmp_path, monkeypatch):
    """The test's own code in pytest's process has a CPU limit (20 s); the judge's work of
    crossing its calls to the code counted in it, so right code that plain pytest runs in 2 s
    (tenacity's ``test_wait_random_exponential_statistically``: 40,000 calls) was a "timeout"
    (here: the limit 1 s, a million calls). The crossing is counted apart: cut by it, the test
    is "not judged" with that reason; a test whose own code spins is still a "timeout"."""
    from codeteam.execution import pytest_run
    from codeteam.project import project_for
    from codeteam.service.documents import task_for, with_project_tests

    root = tmp_path / "calc"
    root.mkdir()
    for folder in (tmp_path, root):
        folder.chmod(0o755)
    for name, text in CALLS.items():
        (root / name).write_text(text)
    path = root / "calc.py"
    policy = SandboxPolicy(mode="bwrap", per_test_timeout_s=1.0)
    task = task_for(CALLS["calc.py"], "add", path=path, project=project_for(path))
    task = await with_project_tests(task, path=path, root=root, policy=policy)
    monkeypatch.setattr(pytest_run, "judge_cpu_limit", lambda cpu_limit: 1.0)
    run = await run_suite(task.program_with(CALLS["calc.py"]), task.public_tests, policy)
    found = {o.test_id.split("::")[-1]: o for o in run.outcomes}
    assert found["test_many_calls"].status == "not judged", found
    assert found["test_many_calls"].message.startswith("the crossing's cost: the judge spent")
    assert found["test_its_own_spin"].status == "timeout", found
