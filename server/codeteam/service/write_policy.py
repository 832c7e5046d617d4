"""Whether a run's new code may replace the function: the one decision the editor's edit
takes (:func:`write_decision`), before :mod:`codeteam.editor.preview` decides how the edit is
offered (a preview the user accepts, or applied).

The rules, in order: no code, nothing to write ("refuse"); code that passed, or that had
nothing to run against (no docstring examples, no project tests, no AI tests; the plan
written into a docstring), is written ("write"); code that did not pass (failed, not judged,
or an error with code) needs the user's consent ("confirm"): the editor shows it as a
preview with its failures, and never applies it silently.

(The helper "safety" writes the full version of this module at the same time, issue 25:
the same names, with the API key and "never over a body that passes more tests" rules; keep
that one when the branches meet.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from codeteam.service.runs import RunOutcome
    from codeteam.settings import Settings

Action = Literal["write", "confirm", "refuse"]
Kind = Literal["passed", "untested", "failing", "no code"]


@dataclass(frozen=True)
class WriteDecision:
    """``action``: "write" (write or apply it), "confirm" (only with the user's consent: the
    code did not pass), "refuse" (never; ``reason`` says why). ``kind`` names the rule that
    decided; ``reason`` is one sentence for the user (empty for code that passed)."""

    action: Action
    kind: Kind
    reason: str = ""


def decide(outcome: RunOutcome, settings: Settings) -> WriteDecision:
    """The decision for ``outcome`` by the module's rules."""
    result = outcome.result
    if result.code is None:
        return WriteDecision("refuse", "no code", "there is no new code to write")
    if result.status == "passed":
        return WriteDecision("write", "passed")
    if result.status == "untested":
        return WriteDecision("write", "untested", "there was nothing to test it against")
    report = result.last_report
    if result.status == "not judged":
        reason = "the new code did not pass its tests: some passed only in the code's own process"
    elif report is not None and report.run is not None and report.run.ran:
        passed, total = report.counts()
        reason = f"the new code fails {total - passed} of its {total} tests"
    else:
        reason = f"the run ended with status {result.status}"
    return WriteDecision("confirm", "failing", reason)


async def write_decision(outcome: RunOutcome, settings: Settings) -> WriteDecision:
    """:func:`decide` (async, as the full version runs the public tests on the current body
    first)."""
    return decide(outcome, settings)
