"""A test whose values come from a call of the function while pytest collects it (a module-level
``NINE = square(3)``, a ``parametrize`` argument) reaches the function: it is selected and
judged (break24: before, such tests were dropped from the selection without a word and wrong
code passed the one test left)."""

from __future__ import annotations

import pytest
from test_one_judge import by_name, make, review

pytestmark = pytest.mark.sandbox

PROJECT = {
    "pyproject.toml": """\
        [project]
        name = "lab"
        version = "0"

        [tool.pytest.ini_options]
        testpaths = ["tests"]
        """,
    "lab/__init__.py": "",
    "lab/core.py": '''\
        def square(x):
            """x squared."""
            return x * x
        ''',
    "tests/test_core.py": '''\
        import pytest

        from lab.core import square

        NINE = square(3)


        def test_module_level():
            assert NINE == 9


        @pytest.mark.parametrize("x, want", [(2, square(2)), (3, 9)])
        def test_param(x, want):
            assert want == x * x


        def test_plain():
            assert square(4) == 16
        ''',
    "tests/test_unrelated.py": '''\
        def test_other():
            assert 1 + 1 == 2
        ''',
}


async def test_calls_made_while_collecting_select_the_module_s_tests(tmp_path):
    root = make(tmp_path / "lab", PROJECT)
    _, right = await review(root, "lab/core.py", "square")
    assert {name: o.status for name, o in by_name(right).items()} == {
        "test_module_level": "passed", "test_param[2-4]": "passed", "test_param[3-9]": "passed",
        "test_plain": "passed"}, right.outcomes
    _, wrong = await review(root, "lab/core.py", "square",
                            "def square(x):\n    return 16 if x == 4 else x + 1\n")
    outcomes = by_name(wrong)
    assert outcomes["test_module_level"].status == "failed", wrong.outcomes
    assert outcomes["test_plain"].status == "passed"
    assert wrong.failures and not wrong.all_passed
