"""pytest's expected failures keep pytest's word in the verdict (codeteam.execution.trust): a
test marked ``xfail`` that fails is "skipped" with its reason after ``xfail:``, one that passes
(not strict) is "passed" with ``XPASS`` and its reason, as pytest's summary says them."""

from __future__ import annotations

import pytest
from test_one_judge import by_name, make, review

pytestmark = pytest.mark.sandbox

MARKED = {
    "pyproject.toml": "[project]\nname = 'geo'\nversion = '0'\n",
    "geo/__init__.py": "",
    "geo/core.py": '''\
        def area(w, h):
            """The area of a ``w`` by ``h`` rectangle."""
            return w * h
        ''',
    "tests/test_core.py": '''\
        import pytest

        from geo.core import area


        @pytest.mark.xfail(reason="areas are not rounded yet")
        def test_rounded():
            assert area(1.5, 1) == 2


        @pytest.mark.xfail(reason="thought to fail")
        def test_whole():
            assert area(2, 3) == 6
        ''',
}


async def test_an_expected_failure_is_skipped_and_an_unexpected_pass_passes(tmp_path):
    root = make(tmp_path / "geo", MARKED)
    _, run = await review(root, "geo/core.py", "area")
    found = by_name(run)
    assert {name: o.status for name, o in found.items()} == {
        "test_rounded": "skipped", "test_whole": "passed"}, run.outcomes
    assert found["test_rounded"].message.startswith("xfail: areas are not rounded yet: assert")
    assert found["test_whole"].message == "XPASS thought to fail"
