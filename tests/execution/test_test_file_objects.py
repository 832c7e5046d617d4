"""No verdict is decided in the code's own process any more (issue 24): a pytest test whose
argument is an object of a class defined in the test file used to run in one process, where a
body that patches pytest's reports made its wrong answer "pass" ("not judged" then). Now the
object crosses by state and the code runs apart: the patch reaches nothing of the judge."""

from __future__ import annotations

import pytest
from test_pytest_judge import judged, shop  # noqa: F401 - shop is a fixture

pytestmark = pytest.mark.sandbox

# Wrong (adds 1), and makes every report of pytest's process a pass.
FORGING_APPLY_ALL = '''\
def apply_all(items, transform):
    import _pytest.reports
    import _pytest.runner
    init = _pytest.reports.TestReport.__init__

    def __init__(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.outcome, self.longrepr = "passed", None

    _pytest.reports.TestReport.__init__ = __init__
    _pytest.runner.TestReport = _pytest.reports.TestReport
    return [transform.apply(item) + 1 for item in items]
'''


async def test_a_body_that_patches_pytests_reports_fails_judged(shop):  # noqa: F811
    report = await judged(shop, "apply_all", FORGING_APPLY_ALL)
    (outcome,) = report.outcomes
    assert outcome.status == "failed", outcome
    assert (outcome.expected, outcome.actual) == ("[2, 4]", "[3, 5]")
    assert report.passed == [] and report.failures == [outcome] and not report.all_passed


async def test_the_right_body_passes_judged(shop):  # noqa: F811
    report = await judged(shop, "apply_all")
    assert [o.status for o in report.outcomes] == ["passed"] and report.all_passed


async def test_a_wrong_body_fails_judged(shop):  # noqa: F811
    wrong = "def apply_all(items, transform):\n    return [transform.apply(i) + 1 for i in items]\n"
    report = await judged(shop, "apply_all", wrong)
    (outcome,) = report.outcomes
    assert outcome.status == "failed" and report.failures == [outcome] and not report.not_judged
