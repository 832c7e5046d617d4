"""A docstring example that disagrees with the code, in a project that does not run its
doctests: its diagnostic says the project's tests decide, and never that they pass when they
failed (newcomer8: a stub with a failing tests/test_x.py showed three Errors for the failing
tests and, on each example, "the project's own tests pass")."""

from __future__ import annotations

from codeteam.editor.diagnostics import review_problems, shown_sentence
from codeteam.execution.outcomes import RunReport, TestCase, TestOutcome
from codeteam.pipelines.context import status_of
from codeteam.pipelines.result import Result
from codeteam.roles.tester import build_report

TEST_A = TestCase(id="pytest:tests/test_x.py::test_a", kind="pytest", origin="public",
                  source="def test_a():\n    assert f(1) == 2\n", name="test_a")
EXAMPLE = TestCase(id="doctest:1", kind="doctest", origin="public", source="f(1)",
                   expected="2", advisory=True, line=13)


def _disagreement(project_test: str):
    run = RunReport(outcomes=[
        TestOutcome(test_id=TEST_A.id, status=project_test, expected="2", actual="None"),
        TestOutcome(test_id="doctest:1", status="failed", expected="2", actual="None",
                    advisory=True)])
    report = build_report([TEST_A, EXAMPLE], run, round_number=1)
    result = Result(pipeline="review", status=status_of(report), reports=[report])
    problems = {p.code: p for p in review_problems(result, stub_start_line=10, def_offset=0,
                                                   function_lines=8)}
    return result, problems


def test_a_disagreement_beside_failing_project_tests_does_not_say_they_pass():
    result, problems = _disagreement("failed")
    assert result.status == "failed"
    assert problems[TEST_A.id].severity == "error"
    message = problems["doctest:1"].message
    assert problems["doctest:1"].severity == "warning" and problems["doctest:1"].line == 3
    assert "tests pass" not in message, message
    assert message.startswith("docstring example disagrees with the code (the project's own "
                              "tests decide the verdict; its configuration does not run "
                              "doctests): "), message


def test_a_disagreement_beside_passing_project_tests_reads_the_same():
    result, problems = _disagreement("passed")
    assert result.status == "passed" and TEST_A.id not in problems
    assert "the project's own tests decide the verdict" in problems["doctest:1"].message


def _three_failing_three_disagreeing():
    """ux9's stub: three project tests fail, its three docstring examples are advisory."""
    project = [TestCase(id=f"pytest:tests/test_x.py::test_{n}", kind="pytest", origin="public",
                        source=f"def test_{n}():\n    assert f(1) == 2\n", name=f"test_{n}")
               for n in "abc"]
    examples = [TestCase(id=f"doctest:{i}", kind="doctest", origin="public", source="f(1)",
                         expected="2", advisory=True, line=12 + i) for i in range(3)]
    run = RunReport(outcomes=[
        *(TestOutcome(test_id=t.id, status="failed", expected="2", actual="None")
          for t in project),
        *(TestOutcome(test_id=t.id, status="failed", expected="2", actual="None", advisory=True)
          for t in examples)])
    report = build_report([*project, *examples], run, round_number=1)
    return Result(pipeline="review", status=status_of(report), reports=[report])


def test_the_summary_lines_count_the_same_tests_and_say_what_they_count():
    # ux9: "review: failed; 0/6 tests passed" and "6 failing test(s) shown as diagnostics"
    # beside "(ran 6: 0 passed, 3 failed)" for 3 failing tests and 3 disagreeing examples.
    result = _three_failing_three_disagreeing()
    assert result.verdict_line() == ("review: failed; 0/3 tests passed; 0/3 docstring examples "
                                     "agree with the code (advisory: the project does not run "
                                     "doctests)")
    head = result.last_report.summary.split("\n", 1)[0]
    assert head.startswith("0/3 public tests passed; 0/3 docstring examples agree with the "
                           "code (ran 6: 0 passed, 3 failed, 3 docstring example(s) disagree)")
    problems = review_problems(result, stub_start_line=10, def_offset=0, function_lines=8)
    assert shown_sentence(problems, result, "f") == (
        "3 failing test(s) and 3 docstring example(s) that disagree with the code shown as "
        "diagnostics on f.")
