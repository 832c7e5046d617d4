"""brk14: wrong code turning its own failures into "not judged" (a forged escape): a "not
judged" hides a failure from "Review with tester" and from the team's revisions. The rules
that make a failure "not judged" must hold only where the failure may come from what they are
about. Real sandbox, a small project each."""

from __future__ import annotations

import pytest
from test_one_judge import by_name, make, review

pytestmark = pytest.mark.sandbox

TIMED = {
    "pyproject.toml": "[project]\nname = 'sums'\nversion = '0'\n",
    "sums/__init__.py": "",
    "sums/core.py": '''\
        def total(items):
            """The sum of ``items``."""
            return sum(items)
        ''',
    "tests/test_core.py": '''\
        import time

        import pytest

        from sums.core import total


        def below(value, bound):
            assert value < bound


        def test_value_after_the_timing():
            start = time.perf_counter()
            result = total([1, 2])
            elapsed = time.perf_counter() - start
            assert result == 3
            assert elapsed < 60


        def test_timing_in_a_helper():
            start = time.perf_counter()
            total([1, 2])
            elapsed = (time.perf_counter() - start) * 1000
            below(elapsed, 0)


        def test_timing_in_an_if():
            start = time.monotonic()
            total([1, 2])
            if time.monotonic() - start > 0:
                pytest.fail("slower than nothing")
        ''',
}


async def test_a_wrong_value_checked_after_the_test_timed_itself_fails(tmp_path):
    """The clock rule (a failed assertion of a test that read a clock around calls of the code
    is "not judged") holds for checks a clock read reaches, here or in a helper the test
    hands it to; a wrong value checked after the second read fails as under plain pytest
    (before: "not judged", the test measures its own run time)."""
    root = make(tmp_path / "sums", TIMED)
    _, run = await review(root, "sums/core.py", "total", "def total(items):\n    return 7\n")
    outcomes = by_name(run)
    assert outcomes["test_value_after_the_timing"].status == "failed", run.outcomes
    for name in ("test_timing_in_a_helper", "test_timing_in_an_if"):
        assert outcomes[name].status == "not judged", run.outcomes
        assert "measures its own run time" in outcomes[name].message
