"""The tester's report with tests the sandbox could not run: neither passes nor failures."""

from __future__ import annotations

from codeteam.execution.outcomes import RunReport, TestCase, TestOutcome
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


def test_a_test_not_judged_is_neither_a_pass_nor_a_failure():
    """A test the judge could not decide (a value that could not cross, a busy machine)
    counts neither way; the report says why."""
    tests = [AI, TestCase(id="ai:2", kind="assert", origin="ai", source="assert K == 2")]
    why = "the machine was too busy: the test did not end within its wall-clock backstop"
    run = RunReport(outcomes=[
        TestOutcome(test_id="ai:1", status="passed"),
        TestOutcome(test_id="ai:2", status="not judged", message=why),
    ])
    assert [o.test_id for o in run.passed] == ["ai:1"]
    assert [o.test_id for o in run.not_judged] == ["ai:2"] and run.failures == []
    assert run.outcomes[1].verdict == "not judged" and not run.outcomes[1].passed
    assert not run.all_passed
    report = build_report(tests, run, round_number=1)
    assert report.verdict == "not judged" and not report.passed
    assert status_of(report) == "not judged"
    assert report.counts("ai") == (1, 2)
    head, _, details = report.summary.partition("\n\n")
    assert head == (f"not judged: 1/2 AI tests passed (ran 2: 1 passed, 0 failed, 1 not "
                    f"judged: {why})")
    assert details == f"NOT JUDGED AI test assert K == 2: {why}"
    result = Result(pipeline="review", status=status_of(report), reports=[report])
    assert result.summary().startswith(
        f"review: not judged; 1/2 tests passed; 1 not judged ({why})")


def test_every_test_not_judged_is_never_passed_nor_failed():
    tests = [_pytest("test_a"), _pytest("test_b")]
    run = RunReport(outcomes=[TestOutcome(test_id=t.id, status="not judged", message="x")
                              for t in tests])
    report = build_report(tests, run, round_number=1)
    assert (report.verdict, status_of(report)) == ("not judged", "not judged")
    assert report.counts() == (0, 2) and run.passed == [] and run.failures == []
    assert "passed" not in Result(pipeline="review", status=status_of(report),
                                  reports=[report]).summary().split(";")[0]


def test_a_failure_beside_a_test_not_judged_still_fails():
    tests = [AI, TestCase(id="ai:2", kind="assert", origin="ai", source="assert K == 2")]
    run = RunReport(outcomes=[
        TestOutcome(test_id="ai:1", status="not judged", message="a value could not cross"),
        TestOutcome(test_id="ai:2", status="failed", expected="2", actual="3"),
    ])
    assert [o.test_id for o in run.failures] == ["ai:2"]
    report = build_report(tests, run, round_number=1)
    assert (report.verdict, status_of(report)) == ("fail", "failed")
    assert "FAILED AI test assert K == 2" in report.summary
    assert "NOT JUDGED AI test assert f(1) == 2: a value could not cross" in report.summary


def test_the_summary_counts_the_reasons_of_tests_not_judged():
    tests = [AI, TestCase(id="ai:2", kind="assert", origin="ai", source="assert K == 2"),
             TestCase(id="ai:3", kind="assert", origin="ai", source="assert K == 3")]
    both = build_report(tests, RunReport(outcomes=[
        TestOutcome(test_id="ai:1", status="not judged", message="a value could not cross"),
        TestOutcome(test_id="ai:2", status="not judged", message="a value could not cross"),
        TestOutcome(test_id="ai:3", status="not judged", message="the machine was too busy"),
    ]), round_number=1)
    result = Result(pipeline="review", status=status_of(both), reports=[both])
    assert ("3 not judged (2 a value could not cross; 1 for other reasons)"
            in result.summary()), result.summary()


def test_a_docstring_example_that_disagrees_beside_passing_project_tests_is_no_failure():
    """Issue 24, 4b: the project does not run its doctests and its tests pass: a failing
    docstring example is reported as a disagreement, and the verdict passes."""
    example = TestCase(id="doctest:1", kind="doctest", origin="public", source="f(1)",
                       expected="2", advisory=True)
    tests = [_pytest("test_a"), example]
    run = RunReport(outcomes=[
        TestOutcome(test_id=tests[0].id, status="passed"),
        TestOutcome(test_id="doctest:1", status="failed", expected="2", actual="3",
                    advisory=True)])
    report = build_report(tests, run, round_number=1)
    assert (report.verdict, status_of(report)) == ("pass", "passed")
    assert run.failures == [] and [o.test_id for o in run.disagreements] == ["doctest:1"]
    assert "0/1 docstring examples agree with the code" in report.summary
    assert "DISAGREES docstring example >>> f(1)" in report.summary
    broken = RunReport(outcomes=[TestOutcome(test_id=tests[0].id, status="failed"),
                                 run.outcomes[1]])
    assert build_report(tests, broken, round_number=1).verdict == "fail"
