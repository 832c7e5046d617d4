"""The benchmark's scoring under the policy on verdicts decided in the code's own process: a
hidden test passed only there does not make a task pass ("not_judged"), an untrusted failure
still fails, and the humaneval-plus hidden tests are ones the sandbox's judge decides itself."""

from __future__ import annotations

import pytest

from codeteam.bench.datasets import load_dataset
from codeteam.bench.scoring import classify, reference_passed, score_program, scoring_policy
from codeteam.execution.models import RunReport, TestCase, TestOutcome
from codeteam.execution.runner import run_tests

TESTS = [TestCase(id=f"hidden:{n}", kind="assert", origin="hidden", source="assert True")
         for n in (1, 2)]


def test_a_hidden_test_passed_only_in_the_codes_own_process_does_not_pass_the_task():
    run = RunReport(outcomes=[TestOutcome(test_id="hidden:1", status="passed"),
                              TestOutcome(test_id="hidden:2", status="passed", trusted=False)])
    score = classify(TESTS, run)
    assert (score.passed, score.kind, score.tests_passed) == (False, "not_judged", 1)
    assert "hidden:2" in score.detail and "passed only in the code's own process" in score.detail
    # the same run, judged: a pass
    judged = RunReport(outcomes=[TestOutcome(test_id=t.id, status="passed") for t in TESTS])
    assert classify(TESTS, judged).passed


def test_an_untrusted_failure_decides_the_kind_before_a_not_judged_pass():
    run = RunReport(outcomes=[
        TestOutcome(test_id="hidden:1", status="passed", trusted=False),
        TestOutcome(test_id="hidden:2", status="failed", exception_type="AssertionError",
                    expected="1", actual="2", trusted=False),
    ])
    score = classify(TESTS, run)
    assert (score.passed, score.kind) == (False, "wrong_answer")
    assert score.detail.startswith("hidden:2: failed")


def test_a_reference_is_credited_for_passes_in_its_own_process():
    """The reference check asks whether the tests are sound, not whether the code forged
    them: a reference whose passes are untrusted is not a defective task."""
    assert reference_passed({"passed": False, "kind": "not_judged"})
    assert not reference_passed({"passed": False, "kind": "wrong_answer"})
    assert reference_passed({"passed": True, "kind": None})


@pytest.mark.sandbox
async def test_humaneval_plus_hidden_tests_are_judged_on_the_reference():
    plus = load_dataset("humaneval-plus").select(ids=["HumanEval/0", "HumanEval/2",
                                                      "HumanEval/32"])
    for item in plus:
        run = await run_tests(
            item.reference, item.hidden_tests, module_name=item.task.module_name,
            policy=scoring_policy("bwrap", 30))
        assert [(o.status, o.trusted) for o in run.outcomes] == [("passed", True)] * len(
            item.hidden_tests), (item.task_id, run.outcomes)
        score = await score_program(item.reference, item.hidden_tests,
                                    module_name=item.task.module_name,
                                    policy=scoring_policy("bwrap", 30))
        assert score.passed, (item.task_id, score)
