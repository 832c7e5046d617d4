"""Showing an edit before it lands: when an edit is offered as a preview, and its change
annotation.

A client that announces ``workspace.workspaceEdit.changeAnnotationSupport`` (with versioned
``documentChanges`` and ``applyEdit``) gets the edit with one change annotation whose
``needsConfirmation`` is true (LSP 3.16): VS Code then opens its refactor preview, where the
user applies or discards it; codeteam's Neovim module shows the diff in a scratch window with
accept and discard keys. The annotation's label names the action and the function, its
description the verdict and the tests (the failing ones by name). Which edits are previews is
:func:`edit_mode`: the ``preview`` setting, the client, and the service's decision
(:func:`codeteam.service.write_policy.write_decision`: code that did not pass needs consent,
so it is never applied without a preview).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from lsprotocol import types

if TYPE_CHECKING:
    from codeteam.pipelines.result import Result
    from codeteam.service.write_policy import WriteDecision

PREVIEW_WAIT_S = 600.0
"""Seconds codeteam waits for the user's decision on a preview (``apply_timeout_s`` bounds
the wait for an edit applied without one); a cancel ends the wait sooner. After it the result
is kept, as after a discard."""

ANNOTATION_PREFIX = "codeteam:"
"""A preview's change annotation id is this prefix and the kept result's id: the argument
``{"result": id}`` of ``codeteam.apply`` names that result (Neovim's accept key sends it)."""

FAILURES_SHOWN = 3
"""Failing tests named in a preview's description (the rest are counted)."""

EditMode = Literal["apply", "preview", "keep"]


@dataclass(frozen=True)
class Preview:
    """One preview: the annotation ``id`` (:data:`ANNOTATION_PREFIX` + the result's id), the
    ``label`` (the action and the function) and the ``description`` (the verdict and the
    tests)."""

    id: str
    label: str
    description: str

    def annotation(self) -> types.ChangeAnnotation:
        return types.ChangeAnnotation(
            label=self.label, needs_confirmation=True, description=self.description
        )


def edit_mode(
    decision: WriteDecision, *, preview: str, client_previews: bool
) -> tuple[EditMode, str]:
    """How the edit of a run is offered, and why when it is kept: "preview" (the user accepts
    or discards it in the editor), "apply" (applied at once), or "keep" (not applied; the
    result stays available, ``codeteam.apply`` applies it).

    ``preview`` is the setting ("auto", "always", "never"); ``client_previews`` whether the
    client can show a preview (:meth:`CodeteamServer.shows_previews`). Code the service
    refuses is kept; code that needs consent (it did not pass) is a preview where the client
    can show one and preview is not "never", else kept; other code is a preview with "always"
    or with "auto" on a client that can show one (kept with "always" elsewhere), else applied.
    """
    if decision.action == "refuse":
        return "keep", decision.reason
    if decision.action == "confirm":
        if client_previews and preview != "never":
            return "preview", ""
        why = ('preview is "never"' if preview == "never"
               else "this editor cannot show an edit as a preview first")
        return "keep", (f"{decision.reason}, and {why}: code that fails its tests is not "
                        "applied without your consent")
    if preview == "never":
        return "apply", ""
    if client_previews:
        return "preview", ""
    if preview == "always":
        return "keep", ('preview is "always" and this editor cannot show an edit as a preview '
                        "(no workspace.workspaceEdit.changeAnnotationSupport)")
    return "apply", ""


def preview_for(result_id: str, title: str, qualname: str, result: Result) -> Preview:
    """The preview of ``result`` (the run ``title`` on ``qualname``)."""
    return Preview(
        id=ANNOTATION_PREFIX + result_id,
        label=f"codeteam: {title} · {qualname}",
        description=describe(result),
    )


def describe(result: Result) -> str:
    """The verdict and the tests in one paragraph: ``team: failed; 3/5 tests passed; 2
    rounds. Failing: FAILED public test >>> f(2)  # expected 4 (expected: 4; actual: 5);
    ...``; for code nothing ran against, that no test ran."""
    from codeteam.execution.describe import failure_details

    text = result.verdict_line() + "."
    report = result.last_report
    if report is None or report.run is None or not report.run.ran:
        return text + " No test ran."
    tests = {test.id: test for test in report.tests}
    failures = report.run.failures
    if not failures:
        return text
    named = []
    for outcome in failures[:FAILURES_SHOWN]:
        test = tests.get(outcome.test_id)
        what = test.describe() if test is not None else outcome.test_id
        details = "; ".join(failure_details(outcome))
        named.append(f"{what} ({details})" if details else what)
    more = len(failures) - len(named)
    return (text + f" Failing: {' | '.join(named)}"
            + (f" | and {more} more" if more else "") + ".")
