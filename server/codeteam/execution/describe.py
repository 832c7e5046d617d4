"""Test outcomes in words, for the coder's report and the editor's diagnostics alike: what a
failed test expected and got, why a test did not run. Plain text; no model, no LSP."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the editor imports this at start-up: no pydantic models until needed
    from codeteam.execution.models import TestCase, TestOutcome

NOT_JUDGED = "passed only in the code's own process, so not counted"
"""Why a "not judged" outcome (:attr:`codeteam.execution.models.TestOutcome.verdict`: a pass
decided in the process that ran the code under test) counts neither way: reports,
diagnostics, the CLI and the benchmark all say it in these words."""

NO_VIEW = ("the function cannot be judged in a process of its own (async def, nested in "
           "another function, or its body on the def line), so its tests run in one process")
"""Why the tests of a function that has no judge view (:func:`codeteam.execution.judge_view.judge_view`
gives None) are decided in the code's own process: a property of the user's code, the same
for every candidate."""


def failure_details(outcome: TestOutcome) -> list[str]:
    """The facts of a failed test, one per line: expected, actual, and the error (or the
    message); a timeout says so. Shared by the coder's report and the editor's diagnostics."""
    lines: list[str] = []
    if outcome.status == "timeout":
        lines.append("timed out (an endless loop, or far too slow)")
    if outcome.expected is not None:
        lines.append(f"expected: {outcome.expected}")
    if outcome.actual is not None:
        lines.append(f"actual:   {outcome.actual}")
    if outcome.exception_type and outcome.status != "timeout":
        lines.append(f"error: {outcome.exception_type}: {outcome.message}".rstrip(": "))
    elif outcome.message and outcome.expected is None and outcome.status != "timeout":
        lines.append(outcome.message.strip())
    return lines


def skipped_label(test: TestCase) -> str:
    """How a skipped test is named in notes: ``tests/test_x.py::test_y`` for a pytest test."""
    if test.kind == "pytest":
        return test.id.removeprefix("pytest:")
    return test.describe()


def describe_skipped(test: TestCase, outcome: TestOutcome) -> str:
    """A test the sandbox could not run (not the code's fault), and why."""
    origin = {"public": "public test", "ai": "AI test", "hidden": "test"}[test.origin]
    reason = outcome.message or "not runnable in the sandbox"
    return f"NOT RUN {origin} {skipped_label(test)}: {reason}"


UNJUDGED = "the judge could not rebuild a value it exchanged with the code, so not counted"
"""Why an ``unjudged`` outcome (:attr:`codeteam.execution.models.TestOutcome.verdict`) counts
neither way."""


def not_judged_why(outcome: TestOutcome) -> str:
    """Why ``outcome`` is "not judged", in one line: :data:`UNJUDGED` with the judge's message
    for an ``unjudged`` error, else :data:`NOT_JUDGED` with ``untrusted_reason``."""
    if outcome.unjudged:
        return f"{UNJUDGED} ({outcome.message})" if outcome.message else UNJUDGED
    return f"{NOT_JUDGED} ({outcome.untrusted_reason})" if outcome.untrusted_reason else NOT_JUDGED


def describe_not_judged(test: TestCase, outcome: TestOutcome) -> str:
    """A test that is "not judged" (``outcome.not_judged``: it passed only in the code's own
    process, or the judge could not rebuild a value): not a pass and not a failure, and why."""
    origin = {"public": "public test", "ai": "AI test", "hidden": "test"}[test.origin]
    return f"NOT JUDGED {origin} {test.describe()}: {not_judged_why(outcome)}"


def describe_failure(test: TestCase, outcome: TestOutcome) -> str:
    """A failing test for the coder and the user: what ran, expected, actual, error, and the
    traceback's last lines."""
    origin = {"public": "public test", "ai": "AI test", "hidden": "test"}[test.origin]
    parts = [f"FAILED {origin} {test.describe()}"]
    parts.extend(f"  {line}" for line in failure_details(outcome))
    if outcome.traceback:
        tail = outcome.traceback.strip().splitlines()[-6:]
        parts.append("  traceback (last lines):\n" + "\n".join("    " + line for line in tail))
    return "\n".join(parts)


def not_judged_reason(outcomes: list[TestOutcome]) -> str:
    """Why the "not judged" ``outcomes`` of one run count neither way, in one phrase:
    :data:`NOT_JUDGED`, :data:`UNJUDGED`, or both counted apart when the run has some of
    each. Used by the tester's report and the result's summary line."""
    rebuilt = sum(1 for o in outcomes if o.unjudged)
    own = len(outcomes) - rebuilt
    if not rebuilt:
        return NOT_JUDGED
    if not own:
        return UNJUDGED
    return (f"{own} passed only in the code's own process, {rebuilt} with a value the judge "
            "could not rebuild; neither counted")
