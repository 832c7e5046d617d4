"""The tester's report as diagnostics on the function's lines, and keeping them honest.

One diagnostic per failing test (source "codeteam", code = the test id): at the line that
failed inside the function when the run knows it (``outcome.function_line``), else at the
doctest example's own line, else on the ``def`` line; Error for the user's tests, Warning for
AI tests (they may be wrong). A failing pytest test points at the line of its own file where
it failed (relatedInformation, a Location in the test file). A test the judge could not
decide (not judged: not a pass, not a failure) gets an Information diagnostic
saying so, at its doctest line or on the ``def`` line, so it is never dropped silently; a
docstring example that only disagrees with the code (the project's own tests, which reach the
function, decide the verdict) gets a Warning on its line. Plus one Information summary on the ``def`` line.

Diagnostics are stored relative to the function's first line together with the function's
text: when a change leaves the function's text as it was they follow it (lines typed above
move them), when the function's text changes they are cleared.
"""

from __future__ import annotations

import bisect
import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from lsprotocol import types
from pygls.workspace import PositionCodec

from codeteam.editor.actions import DIAGNOSTIC_SOURCE, SUMMARY_CODE
from codeteam.editor.positions import first_code_column, strip_ending
from codeteam.execution.describe import NOT_JUDGED, failure_details

if TYPE_CHECKING:
    from codeteam.execution.outcomes import TestCase, TestOutcome
    from codeteam.pipelines.result import Result

Severity = Literal["error", "warning", "information"]

_SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "information": types.DiagnosticSeverity.Information,
}
MESSAGE_LIMIT = 1500


@dataclass(frozen=True)
class Problem:
    """One diagnostic before it becomes an LSP one: ``line`` is relative to the function's
    first line (0 = the first decorator or ``def``)."""

    line: int
    message: str
    severity: Severity
    code: str
    related: tuple[str, int, str] | None = None
    """(absolute file path, 0-based line, message): where a pytest test failed in its own
    file (the ``assert``), shown as the diagnostic's relatedInformation."""


@dataclass
class FunctionDiagnostics:
    """A function's diagnostics and the text they were made for.

    ``start_line`` is the function's current 0-based first line in the document; ``lines``
    its lines (endings kept) when the diagnostics were made.
    """

    qualname: str
    signature: str
    start_line: int
    lines: list[str]
    problems: list[Problem] = field(default_factory=list)

    @property
    def end_line(self) -> int:
        return self.start_line + len(self.lines) - 1

    @property
    def text(self) -> str:
        return "".join(self.lines)


def review_problems(result: Result, *, stub_start_line: int, def_offset: int,
                    function_lines: int, heading: str = "codeteam review") -> list[Problem]:
    """The problems of a review ``result``. ``stub_start_line`` is the document line where the
    reviewed function started when the tests were collected (doctest lines are absolute in
    that text), ``def_offset`` the ``def`` line relative to the function's first line and
    ``function_lines`` how many lines the function has. With ``heading`` other than the
    review's, the report is of new code that was not applied (:func:`unapplied_problems`):
    no failure is placed at a line of that code."""
    problems: list[Problem] = []
    report = result.last_report
    if report is None or report.run is None:
        reason = "; ".join(result.notes) or "no tests ran"
        problems.append(Problem(def_offset, f"{heading}: {reason}", "information",
                                SUMMARY_CODE))
        return problems
    tests = {test.id: test for test in report.tests}
    ran_here = heading == "codeteam review"  # the report is of the function in the document

    def within(line: int | None) -> int | None:
        return line if line is not None and 0 <= line < function_lines else None

    def place(test: TestCase | None, outcome: TestOutcome) -> int:
        # a line inside the function only for the function that ran (not unapplied code)
        line = within(outcome.function_line) if ran_here else None
        # a docstring example (a doctest or a prose line): on its own line
        if line is None and test is not None and test.kind != "pytest" and test.file is None:
            line = within(None if test.line is None else test.line - stub_start_line)
        return def_offset if line is None else line

    for outcome in report.run.failures:
        test = tests.get(outcome.test_id)
        line = place(test, outcome)
        severity: Severity = "warning" if test is not None and test.origin == "ai" else "error"
        related = None
        if outcome.test_file is not None and outcome.test_line is not None:
            label = outcome.test_id if test is None else test.id
            related = (outcome.test_file, outcome.test_line, f"{label} failed here")
        problems.append(Problem(line, failure_message(test, outcome), severity, outcome.test_id,
                                related))
    for outcome in report.run.disagreements:
        test = tests.get(outcome.test_id)
        problems.append(Problem(place(test, outcome), "docstring example disagrees with the "
                                "code (the project's own tests decide the verdict; its "
                                "configuration does not run doctests): " + failure_message(test, outcome),
                                "warning", outcome.test_id))
    for outcome in report.run.not_judged:
        test = tests.get(outcome.test_id)
        problems.append(Problem(place(test, outcome), not_judged_message(test, outcome),
                                "information", outcome.test_id))
    head = report.summary.split("\n", 1)[0]
    problems.append(Problem(def_offset, f"{heading}: {head}", "information", SUMMARY_CODE))
    return problems


def shown_sentence(problems: list[Problem], result: Result, qualname: str, *,
                   unapplied: bool = False) -> str:
    """The sentence that tells the user what ``problems`` (of :func:`review_problems` or
    :func:`unapplied_problems`) show: the failing tests apart from the docstring examples that
    only disagree with the code (Warnings too, but no failure: they do not decide the
    verdict)."""
    report = result.last_report
    advisory = ({o.test_id for o in report.run.disagreements}
                if report is not None and report.run is not None else set())
    shown = [p for p in problems if p.severity != "information"]
    disagreeing = sum(1 for p in shown if p.code in advisory)
    failing = len(shown) - disagreeing
    parts = []
    if failing:
        parts.append(f"{failing} failing test(s)")
    if disagreeing:
        parts.append(f"{disagreeing} docstring example(s) that disagree with the code")
    if not parts:
        return "No failing tests."
    what = " and ".join(parts)
    if unapplied:
        return f"Its {what} are shown as diagnostics on {qualname}."
    return f"{what[0].upper()}{what[1:]} shown as diagnostics on {qualname}."


def unapplied_problems(result: Result, *, stub_start_line: int, def_offset: int,
                       function_lines: int) -> list[Problem]:
    """The failures of new code that was *not* applied, shown on the function as it is: each
    at its docstring example's line or on the ``def`` line (the new code's own lines are not
    in the document), the summary saying the code was not applied."""
    problems = review_problems(result, stub_start_line=stub_start_line, def_offset=def_offset,
                               function_lines=function_lines,
                               heading="codeteam: new code not applied")
    return [problem if problem.code == SUMMARY_CODE else Problem(
        problem.line, f"new code (not applied): {problem.message}", problem.severity,
        problem.code, problem.related) for problem in problems]


def failure_message(test: TestCase | None, outcome: TestOutcome) -> str:
    """What failed, expected and actual, and the exception, for one failing test."""
    if test is None:
        label, what = "test", outcome.test_id
    else:
        label = {"public": "test", "ai": "AI test (may be wrong)", "hidden": "test"}[test.origin]
        what = test.describe()
    verb = "timed out" if outcome.status == "timeout" else "failed"
    lines = [f"{label} {verb}: {what}"]
    lines.extend(line for line in failure_details(outcome) if not line.startswith("timed out"))
    message = "\n".join(lines)
    return message if len(message) <= MESSAGE_LIMIT else message[: MESSAGE_LIMIT - 1] + "…"


def not_judged_message(test: TestCase | None, outcome: TestOutcome) -> str:
    """A test the judge could not decide: neither a pass nor a failure, and why."""
    if test is None:
        label, what = "test", outcome.test_id
    else:
        label = {"public": "test", "ai": "AI test", "hidden": "test"}[test.origin]
        what = test.describe()
    why = f"\nwhy: {outcome.message}" if outcome.message else ""
    return f"{label} not judged: {what}\n{NOT_JUDGED}{why}"


class DiagnosticsStore:
    """codeteam's diagnostics per document and function."""

    def __init__(self) -> None:
        self._by_uri: dict[str, dict[str, FunctionDiagnostics]] = {}

    def functions(self, uri: str) -> list[FunctionDiagnostics]:
        return list(self._by_uri.get(uri, {}).values())

    def put(self, uri: str, entry: FunctionDiagnostics) -> None:
        self._by_uri.setdefault(uri, {})[entry.qualname] = entry

    def drop_document(self, uri: str) -> bool:
        return bool(self._by_uri.pop(uri, None))

    def at_line(self, uri: str, line: int) -> FunctionDiagnostics | None:
        """The innermost function with diagnostics whose span holds 0-based ``line``."""
        best = None
        for entry in self.functions(uri):
            if entry.start_line <= line <= entry.end_line and (
                best is None or entry.start_line >= best.start_line
            ):
                best = entry
        return best

    def follow_changes(self, uri: str, text: str, lines: list[str],
                       line_shifts: list[tuple[int, int]] | None) -> bool:
        """Update ``uri``'s diagnostics after a change; returns True when something moved or
        was cleared (publish again).

        ``lines`` are the document's new lines; ``line_shifts`` the changes in order as
        (last line the change touched in the text before it, lines added minus lines
        removed), None for a whole-text change. A function keeps its diagnostics when its
        text is still there (at its shifted place, or found once elsewhere), else loses them.
        """
        functions = self._by_uri.get(uri)
        if not functions:
            return False
        changed = False
        offsets: list[int] | None = None
        for qualname, entry in list(functions.items()):
            start = entry.start_line
            if line_shifts is not None:
                for last_touched, delta in line_shifts:
                    if last_touched < start:
                        start += delta
            if lines[start : start + len(entry.lines)] != entry.lines:
                if offsets is None:
                    offsets = [0, *itertools.accumulate(len(line) for line in lines)]
                start = _find_once(text, entry.text, offsets)
            if start is None:
                del functions[qualname]
                changed = True
            elif start != entry.start_line:
                entry.start_line = start
                changed = True
        if not functions:
            self._by_uri.pop(uri, None)
        return changed

    def lsp_diagnostics(self, uri: str, lines: list[str], encoding: str) -> list[types.Diagnostic]:
        """The LSP diagnostics of ``uri`` on a document whose lines are ``lines``."""
        out: list[types.Diagnostic] = []
        codec = PositionCodec(encoding)
        for entry in self.functions(uri):
            for problem in entry.problems:
                line = entry.start_line + problem.line
                text = strip_ending(lines[line]) if 0 <= line < len(lines) else ""
                start = codec.client_num_units(text[: first_code_column(text)])
                end = codec.client_num_units(text)
                out.append(
                    types.Diagnostic(
                        range=types.Range(
                            start=types.Position(line=line, character=start),
                            end=types.Position(line=line, character=max(end, start)),
                        ),
                        message=problem.message,
                        severity=_SEVERITY[problem.severity],
                        code=problem.code,
                        source=DIAGNOSTIC_SOURCE,
                        related_information=_related(problem),
                    )
                )
        return out


def _related(problem: Problem) -> list[types.DiagnosticRelatedInformation] | None:
    """The test file's failing line as relatedInformation (the whole line: start of that line
    to the start of the next), or None."""
    if problem.related is None:
        return None
    path, line, message = problem.related
    uri = Path(path).as_uri()
    where = types.Range(start=types.Position(line=line, character=0),
                        end=types.Position(line=line + 1, character=0))
    return [types.DiagnosticRelatedInformation(
        location=types.Location(uri=uri, range=where), message=message)]


def _find_once(text: str, needle: str, offsets: list[int]) -> int | None:
    """The 0-based line where ``needle`` (whole lines) starts, if it occurs exactly once at a
    line start in ``text``."""
    if not needle:
        return None
    found = None
    position = text.find(needle)
    while position != -1:
        line = bisect.bisect_left(offsets, position)
        if line < len(offsets) and offsets[line] == position:
            if found is not None:
                return None
            found = line
        position = text.find(needle, position + 1)
    return found
