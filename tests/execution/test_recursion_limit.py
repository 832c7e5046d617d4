"""The code under test and the tests run with the interpreter's own recursion limit, as under
plain pytest (break24: the codec raised it to 8000 for the whole judge and subject, so a
recursive body 3000 calls deep passed where plain pytest reports a RecursionError)."""

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
        def depth(n):
            """n, counted one by one."""
            count = 0
            while n:
                n -= 1
                count += 1
            return count
        ''',
    "tests/test_core.py": '''\
        import sys

        from lab.core import depth


        def test_deep():
            assert depth(3000) == 3000


        def test_the_interpreters_limit():
            assert depth(1) == 1
            assert sys.getrecursionlimit() == 1000
        ''',
}


async def test_a_body_too_deep_for_plain_pytest_fails_here_too(tmp_path):
    root = make(tmp_path / "lab", PROJECT)
    _, right = await review(root, "lab/core.py", "depth")
    assert {name: o.status for name, o in by_name(right).items()} == {
        "test_deep": "passed", "test_the_interpreters_limit": "passed"}, right.outcomes
    recursive = "def depth(n):\n    return 0 if n == 0 else 1 + depth(n - 1)\n"
    _, wrong = await review(root, "lab/core.py", "depth", recursive)
    deep = by_name(wrong)["test_deep"]
    assert deep.status == "failed" and deep.exception_type == "RecursionError", deep
