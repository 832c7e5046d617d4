"""The policy on verdicts decided in the code's own process (``TestOutcome.verdict``): they
count against the code but never for it. A pytest test whose argument is an object of a class
defined in the test file cannot cross to the subject, so it runs the old way (one process):
there a body that patches pytest's reports makes its wrong answer "pass" — and that pass is
"not judged", not a pass. A wrong body without the patch still fails there."""

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


async def test_a_forged_pass_through_the_fallback_path_is_not_a_pass(shop):  # noqa: F811
    report = await judged(shop, "apply_all", FORGING_APPLY_ALL)
    (outcome,) = report.outcomes
    # the forgery worked in the code's own process ...
    assert (outcome.status, outcome.trusted) == ("passed", False), outcome
    assert "an argument cannot be sent to the code under test" in outcome.untrusted_reason
    # ... and counts for nothing
    assert outcome.verdict == "not judged" and not outcome.passed and outcome.not_judged
    assert report.passed == [] and report.not_judged == [outcome] and report.failures == []
    assert not report.all_passed


async def test_the_right_body_on_the_fallback_path_is_not_judged_either(shop):  # noqa: F811
    report = await judged(shop, "apply_all")
    (outcome,) = report.outcomes
    assert (outcome.status, outcome.verdict) == ("passed", "not judged"), outcome
    assert not report.all_passed and report.failures == []


async def test_an_untrusted_failure_is_still_a_failure(shop):  # noqa: F811
    wrong = "def apply_all(items, transform):\n    return [transform.apply(i) + 1 for i in items]\n"
    report = await judged(shop, "apply_all", wrong)
    (outcome,) = report.outcomes
    assert (outcome.status, outcome.trusted, outcome.verdict) == ("failed", False, "failed")
    assert report.failures == [outcome] and report.not_judged == []
