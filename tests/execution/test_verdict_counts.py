"""brk10: how the outcomes of a judged run add up to its verdict. A run whose project tests
the code made skip (a test that skips on ``NotImplementedError``, as under plain pytest)
and whose docstring examples, advisory beside those tests, disagree with the code counted
as "some test ran and every test that ran passed": the stub itself was "passed", with 0
tests passed. Only the tests that decide the verdict (not the advisory examples) make it a
pass."""

from __future__ import annotations

import pytest
from test_one_judge import by_name, make, review

from codeteam.pipelines.context import status_of
from codeteam.roles.tester import build_report

pytestmark = pytest.mark.sandbox

SKIPPING = {
    "pyproject.toml": "[project]\nname = 'geo'\nversion = '0'\n",
    "geo/__init__.py": "",
    "geo/core.py": '''\
        def area(w, h):
            """The area of a ``w`` by ``h`` rectangle.

            >>> area(2, 3)
            6
            """
            raise NotImplementedError
        ''',
    "tests/test_core.py": '''\
        import pytest

        from geo.core import area


        def test_area():
            try:
                result = area(2, 3)
            except NotImplementedError:
                pytest.skip("area is not implemented yet")
            assert result == 6
        ''',
}


async def test_skipped_project_tests_and_disagreeing_examples_are_no_pass(tmp_path):
    root = make(tmp_path / "geo", SKIPPING)
    task, run = await review(root, "geo/core.py", "area")  # the stub, as it is
    assert {n: o.status for n, o in by_name(run).items()} == {
        "test_area": "skipped", "doctest:1": "failed"}, run.outcomes
    assert [o.test_id for o in run.disagreements] == ["doctest:1"]
    assert not run.all_passed
    report = build_report(task.public_tests, run, round_number=1)
    assert report.verdict != "pass" and status_of(report) == "untested", report.summary
    _, run = await review(root, "geo/core.py", "area", "def area(w, h):\n    return w * h\n")
    assert run.all_passed, run.outcomes
    assert build_report(task.public_tests, run, round_number=1).verdict == "pass"
