"""A large suite's selection (issue 24: packaging 26.4, 64,207 tests): it ends within its
time, and every test it did not reach is named with why."""

from __future__ import annotations

import pytest
from test_one_judge import make

from codeteam.execution.pytest_run import select_tests, target_for
from codeteam.execution.sandbox import BACKSTOP_STRETCH, SandboxPolicy

pytestmark = pytest.mark.sandbox

SLEEPERS = {
    "pyproject.toml": "[project]\nname = 'slow'\nversion = '0'\n",
    "slow/__init__.py": "",
    "slow/core.py": "def value():\n    return 1\n",
    "tests/test_core.py": '''\
        import time

        import pytest

        from slow.core import value


        @pytest.mark.parametrize("n", range(40))
        def test_waits(n):
            time.sleep(0.3)  # off the CPU, as a test does on a machine busy with other work


        def test_value():
            assert value() == 1
        ''',
}


async def test_a_selection_cut_again_and_again_ends_within_its_time(tmp_path):
    """Each session the wall clock cut while it used little CPU (a busy machine, as the
    selection sees it) was started again as long as it got further: packaging's selection
    ran sessions of 412 s one after the other for over 20 minutes. All of them now end within
    the time one session may take on a busy machine, and the tests not reached are named."""
    root = make(tmp_path / "slow", SLEEPERS)
    target = target_for(root, root / "slow/core.py", "slow.core", "value", 0, None)
    policy = SandboxPolicy(mode="bwrap", timeout_s=2, per_test_timeout_s=1.0)
    selection = await select_tests(target, (root / "slow/core.py").read_text(), policy)
    assert selection.seconds < BACKSTOP_STRETCH * policy.timeout_s + 5, selection.seconds
    named = {nodeid: group.reason for group in selection.not_run for nodeid in group.node_ids}
    assert named["tests/test_core.py::test_value"] == (
        "not looked at: the selection ran out of time"), selection.not_run
    assert selection.collected == 41 and not selection.selected, selection
