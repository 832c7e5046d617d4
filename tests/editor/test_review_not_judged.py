"""Review with tester when a test cannot be judged: it counts neither way, and the editor says so
(a diagnostic on the test's line with the reason, "not judged" in the summary and the answer),
rather than dropping it or calling the code "failed"."""

from __future__ import annotations

import pytest
from editor_harness import TESTER
from lsprotocol import types
from test_generate import position_argument

from codeteam.editor.diagnostics import review_problems
from codeteam.execution.outcomes import RunReport, TestCase, TestOutcome
from codeteam.pipelines.context import status_of
from codeteam.pipelines.result import Result
from codeteam.roles.tester import build_report

pytestmark = [
    pytest.mark.sandbox,
    pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning"),
]

# Right code. The first example passes an object of a class it makes at run time: it cannot
# cross to the code's process, and comparing it is what the judge cannot follow (its
# container hooks it could), so it is not judged; the second is judged (and passes).
RIGHT = '''def running_max(xs):
    """Return the running maximum of xs.

    >>> running_max([type("N", (int,), {})(2), 1])
    [2, 2]
    >>> running_max([1, 3, 2])
    [1, 3, 3]
    """
    out = []
    for x in xs:
        out.append(x if not out else max(out[-1], x))
    return out
'''


def by_code(diagnostics):
    return {d.code: d for d in diagnostics}


async def test_a_test_that_cannot_be_judged_is_shown_not_judged(
        start, scripted, client_kind):
    started = await start(client_kind, ai_tests=0)
    scripted.reply(TESTER, "no tests")
    client = started.client
    document = client.open(started.root / "maxes.py", RIGHT)
    answer = await client.run_command(
        "codeteam.review", position_argument(document, "return out"))
    await client.wait_until(lambda: document.uri in client.diagnostics, what="diagnostics")

    assert answer["status"] == "not judged", answer  # neither "passed" nor "failed"
    assert "not judged" in answer["message"]
    diagnostics = by_code(client.diagnostics[document.uri])
    assert set(diagnostics) == {"doctest:1", "summary"}
    shown = diagnostics["doctest:1"]
    assert shown.range.start.line == document.line_of('>>> running_max([type("N", (int,), {})(2), 1])')
    assert shown.severity == types.DiagnosticSeverity.Information
    assert shown.message.startswith('test not judged: >>> running_max([type("N"')
    assert "not judged: neither a pass nor a failure" in shown.message
    assert ("why: the test's arguments could not cross to the code under test: the code used "
            "an object of the test's that cannot cross (maxes.N: __lt__)") in shown.message
    summary = diagnostics["summary"].message
    assert summary.startswith("codeteam review: not judged: 1/2 public tests passed")
    assert "1 not judged" in summary


def test_review_problems_show_each_not_judged_test_and_keep_failures():
    tests = [TestCase(id="doctest:1", kind="doctest", origin="public", source="f(1)",
                      expected="2", line=13),
             TestCase(id="ai:1", kind="assert", origin="ai", source="assert f(2) == 3"),
             TestCase(id="ai:2", kind="assert", origin="ai", source="assert f(3) == 4")]
    run = RunReport(outcomes=[
        TestOutcome(test_id="doctest:1", status="not judged", message="a value could not cross"),
        TestOutcome(test_id="ai:1", status="failed", expected="3", actual="5"),
        TestOutcome(test_id="ai:2", status="passed"),
    ])
    report = build_report(tests, run, round_number=1)
    result = Result(pipeline="review", status=status_of(report), reports=[report])
    assert result.status == "failed"  # a failure beside a test not judged still fails
    problems = {p.code: p for p in review_problems(result, stub_start_line=10, def_offset=0,
                                                   function_lines=8)}
    assert set(problems) == {"doctest:1", "ai:1", "summary"}
    assert problems["doctest:1"].line == 3 and problems["doctest:1"].severity == "information"
    assert "not judged" in problems["doctest:1"].message
    assert problems["ai:1"].severity == "warning" and "failed" in problems["ai:1"].message
