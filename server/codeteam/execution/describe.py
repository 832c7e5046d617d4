"""Test outcomes in words, for the coder's report and the editor's diagnostics alike: what a
failed test expected and got, why a test did not run or was not judged. Plain text; no model,
no LSP."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the editor imports this at start-up: no pydantic models until needed
    from codeteam.execution.outcomes import TestCase, TestOutcome

NOT_JUDGED = "not judged: neither a pass nor a failure"
"""How reports, diagnostics, the CLI and the benchmark name a "not judged" outcome (the judge
could not tell whether the code passed; its ``message`` says why)."""

ARGUMENTS = "the test's arguments could not cross to the code under test"
"""The start of the "not judged" reason for a test whose own arguments cannot be sent to the
code (an object of a class the test builds at run time): no candidate can change it."""

CODE_CAUSED = (
    "the test used an object the code under test returned or gave that cannot cross",
    "the code under test sent what the judge does not rebuild",
)
"""The starts of the "not judged" reasons that are the code's doing (it returned or gave an
object of a library's class the judge does not rebuild, :data:`pytest_codec.CODE_OBJECT`):
another body may give a value that crosses, so the team revises such code as it revises a
failure (the judge's modules run in the sandbox and spell them out themselves)."""

NOTHING = "nothing (the example printed nothing and gave None)"
"""What a docstring example that shows no output (doctest's "Got nothing") is said to give."""

_ORIGIN = {"public": "public test", "ai": "AI test", "hidden": "test"}


def code_caused(outcome: TestOutcome) -> bool:
    """Whether ``outcome`` is "not judged" for a reason of :data:`CODE_CAUSED`."""
    return outcome.not_judged and (outcome.message or "").startswith(CODE_CAUSED)


def failure_details(outcome: TestOutcome) -> list[str]:
    """The facts of a failed test, one per line: expected (the test's side), actual (what the
    function gave), and the error (or the message); a timeout says so."""
    lines: list[str] = []
    if outcome.status == "timeout":
        lines.append(f"timed out: {outcome.message}" if outcome.message
                     else "timed out (an endless loop, or far too slow)")
    if outcome.expected is not None:
        lines.append(f"expected: {outcome.expected}")
    if outcome.actual == "":  # doctest's "Got nothing": no output, the value None
        lines.append(f"actual:   {NOTHING}")
    elif outcome.actual is not None:
        lines.append(f"actual:   {outcome.actual}")
    if outcome.status == "timeout":
        return lines
    if outcome.exception_type:
        lines.append(f"error: {outcome.exception_type}: {outcome.message}".rstrip(": "))
    elif outcome.message and outcome.expected is None:
        lines.append(outcome.message.strip())
    return lines


def skipped_label(test: TestCase) -> str:
    """How a skipped test is named in notes: ``tests/test_x.py::test_y`` for a pytest test."""
    if test.kind == "pytest":
        return test.id.removeprefix("pytest:")
    return test.describe()


def describe_skipped(test: TestCase, outcome: TestOutcome) -> str:
    """A test that could not run (not the code's fault), and why."""
    reason = outcome.message or "not runnable in the sandbox"
    return f"NOT RUN {_ORIGIN[test.origin]} {skipped_label(test)}: {reason}"


def describe_not_judged(test: TestCase, outcome: TestOutcome) -> str:
    """A test that is "not judged": not a pass and not a failure, and why."""
    why = outcome.message or "the judge could not tell"
    return f"NOT JUDGED {_ORIGIN[test.origin]} {test.describe()}: {why}"


def describe_failure(test: TestCase, outcome: TestOutcome) -> str:
    """A failing test for the coder and the user: what ran, expected, actual, error, and the
    traceback's last lines."""
    head = "DISAGREES" if outcome.advisory else "FAILED"
    origin = "docstring example" if outcome.advisory else _ORIGIN[test.origin]
    parts = [f"{head} {origin} {test.describe()}"]
    parts.extend(f"  {line}" for line in failure_details(outcome))
    if outcome.traceback:
        tail = outcome.traceback.strip().splitlines()[-6:]
        parts.append("  traceback (last lines):\n" + "\n".join("    " + line for line in tail))
    return "\n".join(parts)


def not_judged_reason(outcomes: list[TestOutcome]) -> str:
    """Why the "not judged" ``outcomes`` (one or more) of one run count neither way, in one
    phrase: the commonest reason, and how many share others."""
    reasons = Counter(" ".join((o.message or "the judge could not tell").split())[:160]
                      for o in outcomes)
    (first, count), *rest = reasons.most_common()
    if not rest:
        return first
    return f"{count} {first}; {sum(n for _, n in rest)} for other reasons"
