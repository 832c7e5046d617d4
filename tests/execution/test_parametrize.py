"""Workspace tests parametrized with literal ``@pytest.mark.parametrize`` marks: one case per
parameter set, with pytest's ids, found by discovery and run in the sandbox."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from codeteam.execution.discovery import MAX_PARAMETRIZED_CASES, pytest_cases
from codeteam.execution.runner import run_tests

MODULE = "def double(x):\n    return x * 2 if x != 3 else 7\n"

TESTS = textwrap.dedent(
    """\
    import pytest
    from calc import double

    CASES = [(1, 2), (3, 6)]
    EXTRA = 10


    @pytest.mark.parametrize("x, want", [(0, 0), (-1, -2), (3, 6), pytest.param(4, 8, id="four")])
    def test_pairs(x, want):
        assert double(x) == want


    @pytest.mark.parametrize("x", [1, EXTRA, "ab", None])
    @pytest.mark.parametrize(["y"], [[0], [1]])
    def test_stacked(x, y):
        if x is None:
            return
        assert double(x) * y == (x + x) * y


    @pytest.mark.parametrize("x,want", [(1, 2), (2, 4)], ids=["one", "two"])
    def test_named(x, want, scale=1):
        assert double(x) * scale == want


    @pytest.mark.parametrize("x,want", CASES)
    def test_not_literal(x, want):
        assert double(x) == want


    @pytest.mark.parametrize("x", [1, pytest.param(2, marks=pytest.mark.skip)])
    def test_with_marks(x):
        assert double(x)


    @pytest.mark.parametrize("x", [1], indirect=True)
    def test_indirect(x):
        assert double(x)


    @pytest.mark.parametrize("x", [1])
    def test_fixture_too(x, tmp_path):
        assert double(x)


    @pytest.mark.parametrize("x", list(range(60)))
    def test_not_a_display(x):
        assert double(x) == 2 * x


    @pytest.mark.parametrize("x", [[i] for i in range(3)])
    def test_comprehension(x):
        assert double(x)
    """
)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "calc.py").write_text(MODULE)
    (tmp_path / "test_calc.py").write_text(TESTS)
    return tmp_path


def cases_in(workspace: Path, name: str, text: str) -> list:
    """The cases discovery finds in the test file ``name`` written with ``text``."""
    (workspace / name).write_text(text)
    return [c for c in pytest_cases("double", workspace / "calc.py", workspace)
            if c.file.endswith(name)]


def test_literal_parametrize_marks_give_one_case_per_parameter_set(workspace):
    cases = pytest_cases("double", workspace / "calc.py", workspace)
    ids = [c.id.split("::")[1] for c in cases]
    assert ids == [
        "test_pairs[0-0]", "test_pairs[-1--2]", "test_pairs[3-6]", "test_pairs[four]",
        # pytest's order: the mark nearest the def varies slowest, its id comes first.
        # EXTRA is "x1" where pytest shows its value (10): ids are made without running.
        "test_stacked[0-1]", "test_stacked[0-x1]", "test_stacked[0-ab]", "test_stacked[0-None]",
        "test_stacked[1-1]", "test_stacked[1-x1]", "test_stacked[1-ab]", "test_stacked[1-None]",
        "test_named[one]", "test_named[two]",
    ]
    by_id = {c.id.split("::")[1]: c for c in cases}
    assert by_id["test_pairs[-1--2]"].arguments == "x=-1, want=-2"
    assert by_id["test_stacked[1-x1]"].arguments == "y=1, x=EXTRA"
    assert "EXTRA = 10" in by_id["test_stacked[1-x1]"].setup  # the value's name comes along
    assert by_id["test_pairs[0-0]"].source.startswith("def test_pairs(x, want):")
    lines = (workspace / "test_calc.py").read_text().splitlines()
    assert lines[by_id["test_named[two]"].line] == "def test_named(x, want, scale=1):"


def test_more_cases_than_the_cap_are_not_collected(workspace):
    values = ", ".join(str(i) for i in range(MAX_PARAMETRIZED_CASES + 1))
    (workspace / "test_big.py").write_text(
        "import pytest\nfrom calc import double\n\n"
        f"@pytest.mark.parametrize('x', [{values}])\ndef test_big(x):\n    assert double(x)\n")
    assert not [c for c in pytest_cases("double", workspace / "calc.py", workspace)
                if c.name == "test_big"]


@pytest.mark.sandbox
async def test_each_parameter_set_runs_and_reports_on_its_own(workspace, policy):
    cases = pytest_cases("double", workspace / "calc.py", workspace)
    report = await run_tests(MODULE, cases, module_name="calc", policy=policy)
    status = {o.test_id.split("::")[1]: o.status for o in report.outcomes}
    assert status.pop("test_pairs[3-6]") == "failed"  # double(3) is 7
    assert status.pop("test_stacked[0-ab]") == "passed"  # "ab" * 2 == "abab"
    assert set(status.values()) == {"passed"}, status
    failed = next(o for o in report.outcomes if o.status == "failed")
    assert failed.actual == "7" and failed.expected == "6"


CLASSES = textwrap.dedent(
    """\
    import pytest
    from calc import double

    FACTOR = 2


    class TestDouble:
        scale = FACTOR

        def expected(self, x):
            return x * self.scale

        def test_small(self):
            assert double(1) == self.expected(1)

        @pytest.mark.parametrize("x", [2, 3])
        def test_each(self, x):
            assert double(x) == self.expected(x)

        def helper_not_a_test(self):
            raise AssertionError("never called")


    class TestWithSetup:
        def setup_method(self, method):
            self.x = 1

        def test_uses_setup(self):
            assert double(self.x) == 2


    class TestFixture:
        def test_fixture(self, tmp_path):
            assert double(1)


    class TestBased(object):
        def test_based(self):
            assert double(1)
    """
)


def test_methods_of_a_plain_test_class_are_cases_with_the_class_as_source(workspace):
    cases = cases_in(workspace, "test_classes.py", CLASSES)
    assert [c.id.split("py::")[1] for c in cases] == [
        "TestDouble::test_small", "TestDouble::test_each[2]", "TestDouble::test_each[3]"]
    small = cases[0]
    assert small.name == "TestDouble.test_small"
    assert small.source.startswith("class TestDouble:\n    scale = FACTOR\n")
    assert "FACTOR = 2" in small.setup
    lines = (workspace / "test_classes.py").read_text().splitlines()
    assert lines[small.line] == "class TestDouble:"
    assert cases[1].describe() == "TestDouble.test_each[2] (pytest)"


@pytest.mark.sandbox
async def test_test_class_methods_run_on_an_instance(workspace, policy):
    cases = cases_in(workspace, "test_classes.py", CLASSES)
    report = await run_tests(MODULE, cases, module_name="calc", policy=policy)
    status = {o.test_id.split("py::")[1]: o.status for o in report.outcomes}
    assert status == {"TestDouble::test_small": "passed", "TestDouble::test_each[2]": "passed",
                      "TestDouble::test_each[3]": "failed"}  # double(3) is 7
    failed = report.outcomes[2]
    assert failed.actual == "7" and failed.expected == "6"
    assert "test_classes.py" in failed.traceback and "line 18" in failed.traceback


ASYNC_TESTS = textwrap.dedent(
    """\
    import asyncio

    import pytest
    from calc import double


    async def twice(x):
        await asyncio.sleep(0)
        return double(x)


    @pytest.mark.asyncio
    async def test_marked():
        assert await twice(2) == 4


    async def test_auto_mode():
        assert await twice(3) == 6


    @pytest.mark.parametrize("x", [1, 2])
    async def test_each(x):
        assert await twice(x) == 2 * x


    class TestAsync:
        async def test_method(self):
            assert await twice(4) == 8


    async def test_hangs():
        assert double(1) == 2
        await asyncio.sleep(100)


    @pytest.mark.anyio
    async def test_every_backend():
        assert await twice(1) == 2
    """
)


def test_async_tests_are_cases_except_those_run_per_backend(workspace):
    cases = cases_in(workspace, "test_async.py", ASYNC_TESTS)
    assert [c.id.split("py::")[1] for c in cases] == [
        "test_marked", "test_auto_mode", "test_each[1]", "test_each[2]",
        "TestAsync::test_method", "test_hangs"]


@pytest.mark.sandbox
async def test_async_tests_run_in_an_event_loop_and_report_their_asserts(workspace, policy):
    cases = cases_in(workspace, "test_async.py", ASYNC_TESTS)
    report = await run_tests(MODULE, cases, module_name="calc", policy=policy)
    status = {o.test_id.split("py::")[1]: o.status for o in report.outcomes}
    assert status == {"test_marked": "passed", "test_auto_mode": "failed",  # double(3) is 7
                      "test_each[1]": "passed", "test_each[2]": "passed",
                      "TestAsync::test_method": "passed", "test_hangs": "timeout"}
    failed = next(o for o in report.outcomes if o.status == "failed")
    assert failed.actual == "7" and failed.expected == "6"
