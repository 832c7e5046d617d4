"""The processes a project's tests start themselves (a helper server in a session fixture, a
``subprocess.run`` of the interpreter): the judge counts their CPU against the test that
started them and ends them when that test is cut; a test's limit must never end what
another test (or the session) goes on using, and a test that forks legitimately passes as
under plain pytest."""

from __future__ import annotations

import pytest
import test_one_judge
from test_one_judge import SPIN_POLICY, by_name, make, review

from codeteam.execution.sandbox import SandboxPolicy

pytestmark = pytest.mark.sandbox

SERVED = {
    "pyproject.toml": "[project]\nname = 'calc'\nversion = '0'\n",
    "calc/__init__.py": "",
    "calc/core.py": '''\
        def double(x):
            """Twice ``x``."""
            return 2 * x
        ''',
    "tests/conftest.py": '''\
        import subprocess
        import sys

        import pytest


        @pytest.fixture(scope="session")
        def server():
            proc = subprocess.Popen([sys.executable, "-c", "import time\\ntime.sleep(120)"])
            yield proc
            proc.kill()
            proc.wait()
        ''',
    "tests/test_core.py": '''\
        import subprocess
        import sys

        from calc.core import double


        def test_first(server):
            assert double(2) == 4


        def test_second(server):
            assert server.poll() is None, "the session's server is gone"
            assert double(3) == 6


        def test_forks():
            done = subprocess.run([sys.executable, "-c", "print(1)"], capture_output=True)
            assert done.stdout == b"1\\n"
            assert double(1) == 2
        ''',
}

SLOW_ON_TWO = "def double(x):\n    while x == 2:\n        pass\n    return 2 * x\n"


async def test_a_test_cut_for_its_code_leaves_the_sessions_processes_alone(tmp_path):
    """The code loops on the first test's input (a timeout there); the session's server,
    started in that test's setup, serves the next test as under plain pytest."""
    root = make(tmp_path / "calc", SERVED)
    _, run = await review(root, "calc/core.py", "double")
    assert [o.status for o in run.outcomes] == ["passed"] * 3, run.outcomes
    _, run = await review(root, "calc/core.py", "double", SLOW_ON_TWO, policy=SPIN_POLICY)
    found = by_name(run)
    assert found["test_first"].status == "timeout", run.outcomes
    assert found["test_second"].status == "passed", run.outcomes
    assert found["test_forks"].status == "passed", run.outcomes


HEAVY = {
    "pyproject.toml": "[project]\nname = 'calc'\nversion = '0'\n",
    "calc/__init__.py": "",
    "calc/core.py": '''\
        def double(x):
            """Twice ``x``."""
            return 2 * x
        ''',
    "tests/test_core.py": '''\
        import subprocess
        import sys

        from calc.core import double

        WORK = "import time\\nend = time.process_time() + 6\\nwhile time.process_time() < end: pass"


        def test_with_a_busy_helper():
            assert double(2) == 4
            assert subprocess.run([sys.executable, "-c", WORK]).returncode == 0
        ''',
}


@pytest.mark.xfail(strict=True, reason=(
    "the processes a test starts itself may use ceil(cpu_limit) + 3 CPU seconds, its code in "
    "the judge's process max(4 * cpu_limit, 20): the same work in a subprocess is a timeout "
    "of right code (plain pytest passes); giving them the judge's budget makes a fork bomb "
    "outlast a short run's wall clock (test_a_fork_bomb_does_not_fail_a_concurrent_run)"))
async def test_a_test_whose_own_subprocess_works_a_while_passes(tmp_path, monkeypatch):
    """The test's own subprocess uses 6 CPU seconds (not the code under test's: a limit of
    1 s); the same loop in the test's own body is under the judge's 20 s and passes."""
    monkeypatch.setattr(test_one_judge, "POLICY",
                        SandboxPolicy(mode="bwrap", timeout_s=60, per_test_timeout_s=1))
    root = make(tmp_path / "calc", HEAVY)
    _, run = await review(root, "calc/core.py", "double")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes


CLEANED = {
    "pyproject.toml": "[project]\nname = 'calc'\nversion = '0'\n",
    "calc/__init__.py": "",
    "calc/core.py": SERVED["calc/core.py"],
    "tests/test_core.py": '''\
        import time

        from calc.core import double

        STATE = {"open": False}


        def test_first():
            STATE["open"] = True
            try:
                assert double(2) == 4
            finally:
                time.sleep(0.3)  # a cleanup that takes a while (a server thread joined)
                STATE["open"] = False


        def test_second():
            assert not STATE["open"], "the first test's cleanup was cut short"
            assert double(3) == 6
        ''',
}


async def test_a_cut_test_finishes_its_cleanup(tmp_path):
    """The code loops on the first test's input: that test is a timeout, its ``finally``
    still runs to its end (a limit raised once, as pytest-timeout would) and the next
    test, right code, passes."""
    root = make(tmp_path / "calc", CLEANED)
    _, run = await review(root, "calc/core.py", "double", SLOW_ON_TWO, policy=SPIN_POLICY)
    found = by_name(run)
    assert found["test_first"].status == "timeout", run.outcomes
    assert found["test_second"].status == "passed", run.outcomes
