"""Review with tester: diagnostics on the right lines, following the function, cleared when
it changes; "Fix with team" on them."""

from __future__ import annotations

import pytest
from editor_harness import CODER, REVISE, TESTER
from lsprotocol import types
from test_generate import GOOD, position_argument

pytestmark = [
    pytest.mark.sandbox,
    pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning"),
]

BUGGY = '''import math


def running_max(xs):  # 🎉
    """Return the running maximum of xs.

    >>> running_max([1, 3, 2])
    [1, 3, 3]
    >>> running_max([])
    []
    """
    if not xs:
        raise ValueError("empty 📈")
    return sorted(xs)


def after():
    return math.pi
'''
AI_TEST = "```python\nassert running_max([2, 1]) == [2, 2]\n```"


def by_code(diagnostics):
    return {d.code: d for d in diagnostics}


async def review(started, scripted):
    scripted.reply(TESTER, AI_TEST)
    client = started.client
    document = client.open(started.root / "ranges.py", BUGGY)
    answer = await client.run_command(
        "codeteam.review", position_argument(document, "return sorted(xs)")
    )
    await client.wait_until(lambda: document.uri in client.diagnostics, what="diagnostics")
    return client, document, answer


async def test_review_publishes_failures_on_their_lines(start, scripted, client_kind):
    started = await start(client_kind, ai_tests=1)
    client, document, answer = await review(started, scripted)

    assert answer["status"] == "failed" and answer["applied"] is False, answer
    assert document.text == BUGGY  # a review changes nothing
    diagnostics = by_code(client.diagnostics[document.uri])
    assert set(diagnostics) == {"doctest:1", "doctest:2", "ai:1", "summary"}
    assert all(d.source == "codeteam" for d in diagnostics.values())

    wrong = diagnostics["doctest:1"]  # a wrong value: on the example's own line
    assert wrong.range.start.line == document.line_of(">>> running_max([1, 3, 2])")
    assert wrong.severity == types.DiagnosticSeverity.Error
    assert "expected: [1, 3, 3]" in wrong.message and "actual:   [1, 2, 3]" in wrong.message

    raised = diagnostics["doctest:2"]  # an exception: on the line that raised
    line = document.line_of('raise ValueError("empty 📈")')
    assert raised.range.start.line == line
    assert "ValueError" in raised.message and "expected: []" in raised.message
    # The range covers the line's code, in the client's units (the emoji is 2 UTF-16 units).
    assert raised.range.start.character == 8
    assert raised.range.end.character == len('        raise ValueError("empty 📈")') + 1

    ai = diagnostics["ai:1"]  # an AI test may be wrong: a warning, on the def line
    assert ai.severity == types.DiagnosticSeverity.Warning
    assert ai.range.start.line == document.line_of("def running_max")
    assert "running_max([2, 1]) == [2, 2]" in ai.message and "[1, 2]" in ai.message

    summary = diagnostics["summary"]
    assert summary.severity == types.DiagnosticSeverity.Information
    assert summary.range.start.line == document.line_of("def running_max")
    assert "0/2 public tests passed" in summary.message and "0/1 AI tests passed" in summary.message


PROSE = '''def will_it_fly(q, w):
    """True if q is a palindrome whose sum is at most w.

    Examples:
    will_it_fly([1, 2], 5) \u279e False
    will_it_fly([3, 2, 3], 9) \u279e True
    """
    return sum(q) <= w
'''


async def test_prose_docstring_examples_fail_on_their_lines(start, scripted, client_kind):
    started = await start(client_kind, ai_tests=0)
    client = started.client
    document = client.open(started.root / "fly.py", PROSE)
    answer = await client.run_command(
        "codeteam.review", position_argument(document, "return sum(q) <= w"))
    await client.wait_until(lambda: document.uri in client.diagnostics, what="diagnostics")
    assert answer["status"] == "failed", answer
    diagnostics = by_code(client.diagnostics[document.uri])
    assert set(diagnostics) == {"example:1", "summary"}  # example:2 passes
    wrong = diagnostics["example:1"]
    assert wrong.range.start.line == document.line_of("will_it_fly([1, 2], 5)")
    assert wrong.severity == types.DiagnosticSeverity.Error
    assert "will_it_fly([1, 2], 5) == False" in wrong.message
    assert "1/2 public tests passed" in diagnostics["summary"].message


async def test_fix_with_team_is_offered_on_the_diagnostics(start, scripted, client_kind):
    started = await start(client_kind, ai_tests=1, max_rounds=2)
    client, document, _ = await review(started, scripted)
    diagnostics = list(client.diagnostics[document.uri])
    failing = [d for d in diagnostics if d.code == "doctest:1"]
    line = failing[0].range.start.line

    actions = await client.code_actions(document, (line, 4), diagnostics=failing)

    fixes = [a for a in actions if a["kind"] == "quickfix"]
    assert [a["title"] for a in fixes] == ["Fix with team"]
    assert fixes[0]["command"]["command"] == "codeteam.fix"
    argument = fixes[0]["command"]["arguments"][0]
    assert argument["qualname"] == "running_max" and argument["uri"] == document.uri
    assert [d["code"] for d in fixes[0]["diagnostics"]] == ["doctest:1"]
    only = await client.code_actions(document, (line, 4), diagnostics=failing, only=["quickfix"])
    assert [a["title"] for a in only] == ["Fix with team"]

    # Running it: the tester's tests fail on the code as written, the coder revises.
    scripted.reply(TESTER, AI_TEST).reply(REVISE, GOOD)
    answer = await client.run_command("codeteam.fix", argument)
    assert answer["status"] == "passed" and answer["applied"] is True, answer
    assert "out.append(x if not out else max(out[-1], x))" in document.text
    # The function changed: its diagnostics are gone.
    await client.wait_until(lambda: len(client.diagnostics[document.uri]) == 0,
                            what="cleared diagnostics")
    assert not scripted.count(CODER)


async def test_diagnostics_follow_lines_typed_above_and_clear_on_edit(start, scripted, client_kind):
    started = await start(client_kind, ai_tests=1)
    client, document, _ = await review(started, scripted)
    before = by_code(client.diagnostics[document.uri])

    client.insert_lines(document, 1, "import os\nimport sys\n")
    await client.wait_until(
        lambda: by_code(client.diagnostics[document.uri]).get("doctest:1") is not None
        and by_code(client.diagnostics[document.uri])["doctest:1"].range.start.line
        == before["doctest:1"].range.start.line + 2,
        what="diagnostics moved down two lines",
    )
    moved = by_code(client.diagnostics[document.uri])
    assert {code: d.range.start.line for code, d in moved.items()} == {
        code: d.range.start.line + 2 for code, d in before.items()
    }
    # Editing another function leaves them alone.
    index = document.text.index("return math.pi")
    client.replace(document, index, index + len("return math.pi"), "return math.e")
    await client.code_actions(document, (0, 0))  # answered after the didChange was handled
    assert by_code(client.diagnostics[document.uri]) == moved
    # Typing inside the reviewed function clears them.
    index = document.text.index("return sorted(xs)")
    client.replace(document, index, index, "# changed\n    ")
    await client.wait_until(lambda: len(client.diagnostics[document.uri]) == 0,
                            what="cleared diagnostics")


async def test_diagnostics_clear_on_close(start, scripted, client_kind):
    started = await start(client_kind, ai_tests=1)
    client, document, _ = await review(started, scripted)
    assert client.diagnostics[document.uri]
    client.close(document)
    await client.wait_until(lambda: len(client.diagnostics[document.uri]) == 0,
                            what="cleared diagnostics")


async def test_workspace_pytest_tests_are_run(start, scripted, client_kind):
    """The project's pytest tests that call the function are public tests, run by pytest: a
    failure sits at the function's failing line when the traceback passes through it (else on
    the ``def`` line), with relatedInformation at the test file's failing line."""
    started = await start(client_kind, ai_tests=0)
    started.root.chmod(0o755)  # the sandbox's uid reads the project
    tests_dir = started.root / "tests"
    tests_dir.mkdir()
    test_file = tests_dir / "test_ranges.py"
    test_file.write_text(
        "from ranges import running_max\n\n\n"
        "def test_keeps_the_maximum():\n"
        "    assert running_max([3, 1]) == [3, 3]\n\n\n"
        "def test_empty():\n"
        "    assert running_max([]) == []\n\n\n"
        "def test_unrelated():\n"
        "    assert 1 + 1 == 2\n"
    )
    client = started.client
    document = client.open(started.root / "ranges.py", BUGGY)
    answer = await client.run_command(
        "codeteam.review", position_argument(document, "def running_max")
    )
    assert answer["status"] == "failed", answer
    await client.wait_until(lambda: document.uri in client.diagnostics, what="diagnostics")
    diagnostics = by_code(client.diagnostics[document.uri])
    maximum = "tests/test_ranges.py::test_keeps_the_maximum"
    empty = "tests/test_ranges.py::test_empty"
    assert set(diagnostics) == {"doctest:1", "doctest:2", maximum, empty, "summary"}
    pytest_failure = diagnostics[maximum]
    assert pytest_failure.severity == types.DiagnosticSeverity.Error
    assert pytest_failure.range.start.line == document.line_of("def running_max")
    assert "test_keeps_the_maximum" in pytest_failure.message
    assert "expected: [3, 3]" in pytest_failure.message
    assert "actual:   [1, 3]" in pytest_failure.message
    (related,) = pytest_failure.related_information
    assert related.location.uri == test_file.as_uri()
    assert related.location.range.start.line == 4  # the assert in the test file
    raised = diagnostics[empty]
    assert raised.range.start.line == document.line_of('raise ValueError("empty')
    (related,) = raised.related_information
    assert related.location.uri == test_file.as_uri()
    assert related.location.range.start.line == 8
    assert "ValueError" in raised.message
    # The project's configuration does not run its doctests: the docstring's examples are
    # counted apart from the public tests (issue 24, 4b), shown, and no failure of their own.
    assert ("0/2 public tests passed; 0/2 docstring examples agree with the code"
            in diagnostics["summary"].message)
