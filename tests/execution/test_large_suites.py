"""A large suite's selection (issue 24: packaging 26.4, 64,207 tests): it ends within its
time, and every test it did not reach is named with why."""

from __future__ import annotations

import pytest
from test_one_judge import make
from test_survey_shapes import SLOW_SUITE

from codeteam.execution.pytest_run import select_tests, target_for
from codeteam.execution.sandbox import BACKSTOP_STRETCH, SandboxPolicy

pytestmark = pytest.mark.sandbox

SLEEPERS = {**SLOW_SUITE, "tests/test_core.py": SLOW_SUITE["tests/test_core.py"].replace(
    "range(2)", "range(40)").replace("time.sleep(3)", "time.sleep(0.3)")}
"""test_survey_shapes's slow suite with 40 tests of 0.3 s off the CPU."""
assert "range(40)" in SLEEPERS["tests/test_core.py"] and "sleep(0.3)" in SLEEPERS[
    "tests/test_core.py"]  # (the slow suite as this test expects it)


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


MANY = {
    "pyproject.toml": "[project]\nname = 'many'\nversion = '0'\n",
    "many/__init__.py": "",
    "many/core.py": '''\
        def canon(name):
            return name.lower()


        def parse(text):
            return tuple(int(part) for part in text.split("."))
        ''',
    "tests/test_parse.py": '''\
        import pytest

        from many.core import parse


        @pytest.mark.parametrize("minor", range(300))
        def test_parse(minor):
            assert parse(f"1.{minor}") == (1, minor)
        ''',
    "tests/test_canon.py": '''\
        from many.core import canon


        def test_canon():
            assert canon("A") == "a"
        ''',
}


async def test_a_selection_asks_the_server_nothing_per_test_while_the_code_is_idle(
        tmp_path, monkeypatch):
    """The selection asked the server for the code's CPU time at each test's start (a round
    trip to the server's process, which looked through /proc each time): on a busy machine
    milliseconds a test, packaging's 64,207 tests. No code under test runs in a selection's
    test (a call of the function ends it), so nothing of it is measured then, and the tests
    that reach the function are still found."""
    from codeteam.execution.sandbox_subjects import SubjectServer

    looks = []  # the judge's requests (their answer alone asks whether the code is off CPU)
    measure = SubjectServer.subjects_off_cpu

    def counted(self):
        looks.append(1)
        return measure(self)

    monkeypatch.setattr(SubjectServer, "subjects_off_cpu", counted)
    root = make(tmp_path / "many", MANY)
    target = target_for(root, root / "many/core.py", "many.core", "canon", 0, None)
    policy = SandboxPolicy(mode="bwrap", timeout_s=120, per_test_timeout_s=5.0)
    selection = await select_tests(target, (root / "many/core.py").read_text(), policy)
    assert selection.selected == ["tests/test_canon.py::test_canon"], selection
    assert selection.collected == 301 and selection.not_run == [], selection
    assert len(looks) < 10, len(looks)
