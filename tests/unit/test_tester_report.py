"""The tester's report with tests the sandbox could not run: neither passes nor failures."""

from __future__ import annotations

from codeteam.execution.models import RunReport, TestCase, TestOutcome
from codeteam.pipelines.context import status_of
from codeteam.pipelines.result import Result
from codeteam.roles.tester import build_report


def _pytest(name: str) -> TestCase:
    return TestCase(id=f"pytest:tests/test_x.py::{name}", kind="pytest", origin="public",
                    source=f"def {name}():\n    pass\n", name=name)


AI = TestCase(id="ai:1", kind="assert", origin="ai", source="assert f(1) == 2")
MISSING = "No module named 'foo' (the test imports it and the sandbox does not have it)"


def test_skipped_tests_do_not_decide_the_verdict():
    tests = [_pytest("test_a"), AI]
    run = RunReport(outcomes=[
        TestOutcome(test_id=tests[0].id, status="skipped", message=MISSING),
        TestOutcome(test_id="ai:1", status="passed"),
    ])
    report = build_report(tests, run, round_number=1)
    assert report.verdict == "pass" and status_of(report) == "passed"
    assert report.counts() == (1, 1) and report.counts("public") == (0, 0)
    assert run.failures == [] and run.all_passed
    head, _, details = report.summary.partition("\n\n")
    assert head == f"1/1 AI tests passed (ran 1: 1 passed, 0 failed); 1 not run: {MISSING}"
    assert details == f"NOT RUN public test tests/test_x.py::test_a: {MISSING}"
    assert report.skipped_notes() == [f"tests/test_x.py::test_a not run: {MISSING}"]
    result = Result(pipeline="review", status="passed", reports=[report])
    assert result.summary().startswith("review: passed; 1/1 tests passed; 1 not run")


def test_a_failure_next_to_a_skipped_test_still_fails():
    tests = [_pytest("test_a"), AI]
    run = RunReport(outcomes=[
        TestOutcome(test_id=tests[0].id, status="skipped", message=MISSING),
        TestOutcome(test_id="ai:1", status="failed", expected="2", actual="3"),
    ])
    report = build_report(tests, run, round_number=1)
    assert report.verdict == "fail" and status_of(report) == "failed"
    assert [o.test_id for o in run.failures] == ["ai:1"]
    assert "FAILED AI test" in report.summary and "NOT RUN public test" in report.summary


def test_nothing_ran_is_untested_and_notes_share_a_reason():
    tests = [_pytest(f"test_{n}") for n in range(5)]
    run = RunReport(outcomes=[
        TestOutcome(test_id=t.id, status="skipped", message=MISSING) for t in tests[:4]
    ] + [TestOutcome(test_id=tests[4].id, status="skipped", message="pytest.skip: slow")])
    report = build_report(tests, run, round_number=1)
    assert report.verdict == "fail" and not run.all_passed
    assert status_of(report) == "untested"
    assert report.summary.startswith(
        f"no tests ran; 5 not run: 4 {MISSING}, 1 pytest.skip: slow")
    assert report.skipped_notes() == [
        f"tests/test_x.py::test_0 and 3 more tests not run: {MISSING}",
        "tests/test_x.py::test_4 not run: pytest.skip: slow",
    ]
    everything = build_report(tests[:4], RunReport(outcomes=run.outcomes[:4]), round_number=1)
    assert everything.skipped_notes() == [f"all 4 tests not run: {MISSING}"]


def test_a_pass_decided_in_the_codes_own_process_is_not_judged():
    """The policy: a verdict decided in the code's own process counts against the code but
    never for it. A judged pass and an untrusted one: the untrusted one is not a pass."""
    tests = [AI, TestCase(id="ai:2", kind="assert", origin="ai", source="assert K == 2")]
    run = RunReport(outcomes=[
        TestOutcome(test_id="ai:1", status="passed"),
        TestOutcome(test_id="ai:2", status="passed", trusted=False),
    ])
    assert [o.test_id for o in run.untrusted] == ["ai:2"]
    assert [o.test_id for o in run.passed] == ["ai:1"]
    assert [o.test_id for o in run.not_judged] == ["ai:2"] and run.failures == []
    assert run.outcomes[1].verdict == "not judged" and not run.outcomes[1].passed
    assert not run.all_passed
    report = build_report(tests, run, round_number=1)
    assert report.verdict == "not judged" and not report.passed
    assert status_of(report) == "not judged"
    assert report.counts("ai") == (1, 2)
    head, _, details = report.summary.partition("\n\n")
    assert head == ("not judged: 1/2 AI tests passed (ran 2: 1 passed, 0 failed, 1 not judged: "
                    "passed only in the code's own process, so not counted)")
    assert details == ("NOT JUDGED AI test assert K == 2: passed only in the code's own "
                       "process, so not counted")
    result = Result(pipeline="review", status=status_of(report), reports=[report])
    assert result.summary().startswith(
        "review: not judged; 1/2 tests passed; 1 not judged (passed only in the code's own "
        "process, so not counted)")


def test_every_pass_untrusted_is_not_judged_never_passed_nor_failed():
    tests = [_pytest("test_a"), _pytest("test_b")]
    run = RunReport(outcomes=[TestOutcome(test_id=t.id, status="passed", trusted=False)
                              for t in tests])
    report = build_report(tests, run, round_number=1)
    assert (report.verdict, status_of(report)) == ("not judged", "not judged")
    assert report.counts() == (0, 2) and run.passed == [] and run.failures == []
    assert "passed" not in Result(pipeline="review", status=status_of(report),
                                  reports=[report]).summary().split(";")[0]


def test_an_untrusted_failure_still_fails():
    tests = [AI, TestCase(id="ai:2", kind="assert", origin="ai", source="assert K == 2")]
    run = RunReport(outcomes=[
        TestOutcome(test_id="ai:1", status="passed", trusted=False),
        TestOutcome(test_id="ai:2", status="failed", expected="2", actual="3", trusted=False),
    ])
    assert [o.test_id for o in run.failures] == ["ai:2"]
    report = build_report(tests, run, round_number=1)
    assert (report.verdict, status_of(report)) == ("fail", "failed")
    assert "FAILED AI test assert K == 2" in report.summary
    assert "NOT JUDGED AI test assert f(1) == 2" in report.summary
    error = RunReport(outcomes=[TestOutcome(test_id="ai:1", status="error", trusted=False)])
    assert build_report([AI], error, round_number=1).verdict == "fail"


def test_the_summary_says_why_per_kind_of_not_judged():
    """An ``unjudged`` outcome (the judge could not rebuild a value) is not said to have
    "passed only in the code's own process"; a run with both kinds counts them apart."""
    tests = [AI, TestCase(id="ai:2", kind="assert", origin="ai", source="assert K == 2")]
    rebuilt = TestOutcome(test_id="ai:1", status="error", unjudged=True,
                          message="QueryParamDict cannot be rebuilt")
    only = build_report(tests[:1], RunReport(outcomes=[rebuilt]), round_number=1)
    assert "not judged: the judge could not rebuild a value" in only.summary
    assert "code's own process" not in only.summary.partition("\n\n")[0]
    both = build_report(tests, RunReport(outcomes=[
        rebuilt, TestOutcome(test_id="ai:2", status="passed", trusted=False)]), round_number=1)
    result = Result(pipeline="review", status=status_of(both), reports=[both])
    assert ("2 not judged (1 passed only in the code's own process, 1 with a value the judge "
            "could not rebuild; neither counted)") in result.summary()
