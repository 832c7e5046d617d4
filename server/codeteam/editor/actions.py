"""The editor actions: command ids, titles, code action kinds and the pipeline behind each."""

from __future__ import annotations

from dataclasses import dataclass

REWRITE_KIND = "refactor.rewrite.codeteam"
"""Kind of the three function actions: a sub-kind of ``refactor.rewrite``, so that
``context.only`` filters ``refactor`` and ``refactor.rewrite`` keep them."""

QUICKFIX_KIND = "quickfix"

DIAGNOSTIC_SOURCE = "codeteam"
"""``source`` of every diagnostic codeteam publishes (the quick fix looks for it)."""

SUMMARY_CODE = "summary"
"""``code`` of the review's summary diagnostic (failing tests carry their test id)."""

TRANSCRIPT_COMMAND = "codeteam.transcript"
CANCEL_COMMAND = "codeteam.cancel"
APPLY_COMMAND = "codeteam.apply"
"""Apply a kept result (after a discarded preview, or one kept because it needs consent)."""


@dataclass(frozen=True)
class Action:
    """One command. ``pipeline`` names the pipeline run (None: the ``generate_pipeline``
    setting); ``applies_code``: the result's code replaces the function (else the result is
    published as diagnostics); ``product`` what it writes into the function, for messages
    ("No plan was produced")."""

    command: str
    title: str
    kind: str
    pipeline: str | None
    applies_code: bool
    product: str = "code"

    @property
    def nothing_produced(self) -> str:
        """The outcome of a run that gave nothing to apply."""
        return f"No {self.product} was produced; nothing was changed."

    @property
    def progress_title(self) -> str:
        return f"codeteam: {self.title}"


PLAN = Action("codeteam.plan", "Plan this docstring", REWRITE_KIND, "plan_docstring", True,
              product="plan")
GENERATE = Action("codeteam.generate", "Generate with team", REWRITE_KIND, None, True)
REVIEW = Action("codeteam.review", "Review with tester", REWRITE_KIND, "review", False)
FIX = Action("codeteam.fix", "Fix with team", QUICKFIX_KIND, "fix", True)

FUNCTION_ACTIONS = (PLAN, GENERATE, REVIEW)
"""Offered on any function, in this order."""

ALL_ACTIONS = (PLAN, GENERATE, REVIEW, FIX)
BY_COMMAND = {action.command: action for action in ALL_ACTIONS}
