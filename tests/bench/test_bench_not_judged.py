"""The benchmark's scoring of tests that are "not judged": such a hidden test does not make a
task pass ("not_judged"), a failure beside it still decides the kind, and the humaneval-plus
hidden tests are judged on the reference."""

from __future__ import annotations

import pytest

from codeteam.bench.datasets import load_dataset
from codeteam.bench.scoring import classify, reference_passed, score_program, scoring_policy
from codeteam.execution.outcomes import RunReport, TestCase, TestOutcome
from codeteam.execution.suite import run_suite

TESTS = [TestCase(id=f"hidden:{n}", kind="assert", origin="hidden", source="assert True")
         for n in (1, 2)]


def test_a_hidden_test_not_judged_does_not_pass_the_task():
    run = RunReport(outcomes=[TestOutcome(test_id="hidden:1", status="passed"),
                              TestOutcome(test_id="hidden:2", status="not judged",
                                          message="the machine was too busy")])
    score = classify(TESTS, run)
    assert (score.passed, score.kind, score.tests_passed) == (False, "not_judged", 1)
    assert "hidden:2" in score.detail and "the machine was too busy" in score.detail
    # the same run, judged: a pass
    judged = RunReport(outcomes=[TestOutcome(test_id=t.id, status="passed") for t in TESTS])
    assert classify(TESTS, judged).passed


def test_a_failure_decides_the_kind_before_a_test_not_judged():
    run = RunReport(outcomes=[
        TestOutcome(test_id="hidden:1", status="not judged", message="a value could not cross"),
        TestOutcome(test_id="hidden:2", status="failed", exception_type="AssertionError",
                    expected="1", actual="2"),
    ])
    score = classify(TESTS, run)
    assert (score.passed, score.kind) == (False, "wrong_answer")
    assert score.detail.startswith("hidden:2: failed")


def test_a_reference_is_credited_for_tests_not_judged():
    """The reference check asks whether the tests are sound: a reference whose tests could
    not be judged is not a defective task."""
    assert reference_passed({"passed": False, "kind": "not_judged"})
    assert not reference_passed({"passed": False, "kind": "wrong_answer"})
    assert reference_passed({"passed": True, "kind": None})


@pytest.mark.sandbox
async def test_humaneval_plus_hidden_tests_are_judged_on_the_reference():
    plus = load_dataset("humaneval-plus").select(ids=["HumanEval/0", "HumanEval/2",
                                                      "HumanEval/32"])
    for item in plus:
        run = await run_suite(item.reference, item.hidden_tests, scoring_policy("bwrap", 30))
        assert [o.status for o in run.outcomes] == ["passed"] * len(
            item.hidden_tests), (item.task_id, run.outcomes)
        score = await score_program(item.reference, item.hidden_tests,
                                    policy=scoring_policy("bwrap", 30))
        assert score.passed, (item.task_id, score)
