"""Whether a run's new code may replace the function in the user's file: the one decision
``codeteam run --write`` and the editor's edit both take (:func:`write_decision`).

The rules, in order:

1. Code that holds the configured API key (from any settings layer, or another registered
   secret such as a URL's password: :func:`codeteam.redaction.holds_secret`; of 8 characters
   or more, shorter ones being placeholders such as ``ollama``), however it spells it (split
   over literals, escaped, reversed, base64, base32, hex: :func:`holds_key`), is never
   written or applied, whatever the user asks: the model echoed the key into the code, and a
   source file reaches version control. The message says why, never the key.
2. Code the sandbox could not test here (the run was allowed to go on untested:
   ``outcome.untested``), or code whose tests all could not run, needs the user's consent
   ("confirm"; the CLI's ``--write-untested``).
3. Code that passed is written. So is code with nothing to test it against (no docstring
   examples, no project tests, no AI tests), and the plan written into a docstring.
4. Code that did not pass (failed, not judged, or an error with code) needs the user's
   consent: "confirm" (the editor's preview, the CLI's ``--write-failing``). With consent it
   is still refused when the function as it is now passes more of the public tests than the
   new code does (the tester's run of the same public tests on the current body).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from codeteam.pysource.literals import spellings
from codeteam.redaction import holds_secret

if TYPE_CHECKING:
    from codeteam.roles.tester import TesterReport
    from codeteam.service.runs import RunOutcome
    from codeteam.settings import Settings

Action = Literal["write", "confirm", "refuse"]
Kind = Literal["passed", "untested", "failing", "secret", "worse", "no code"]


@dataclass(frozen=True)
class WriteDecision:
    """``action``: "write" (write or apply it), "confirm" (only with the user's consent: the
    code did not pass), "refuse" (never; ``reason`` says why). ``kind`` names the rule that
    decided; ``reason`` is one sentence for the user (empty for code that passed);
    ``current`` the tester's report on the function as it is, when it was run (rule 4)."""

    action: Action
    kind: Kind
    reason: str = ""
    current: TesterReport | None = None


KEY_MIN_CHARS = 8
"""A configured key shorter than this is a placeholder (``ollama``, ``none``): code holding
that word is not refused."""


def holds_key(code: str, settings: Settings) -> bool:
    """True when ``code`` holds the configured API key or another registered secret (of at
    least :data:`KEY_MIN_CHARS` characters), however the code spells it: in its text (a
    comment too), split over string literals, lines or variables, escaped, reversed, or
    encoded in base64, base32 or hex (:func:`codeteam.pysource.literals.spellings`)."""
    key = settings.api_key.get_secret_value() if settings.api_key else ""
    for text in spellings(code):
        if (len(key) >= KEY_MIN_CHARS and key in text) or holds_secret(text, KEY_MIN_CHARS):
            return True
    return False


def _public_passes(report: TesterReport | None) -> tuple[int, int]:
    if report is None:
        return 0, 0
    public, public_total = report.counts("public")
    hidden, hidden_total = report.counts("hidden")
    return public + hidden, public_total + hidden_total


def _failing_reason(outcome: RunOutcome) -> str:
    result = outcome.result
    report = result.last_report
    if result.status == "not judged":
        return "the new code did not pass its tests: the judge could not decide some (not judged)"
    if report is not None and report.run is not None:
        passed, total = report.counts()
        return f"the new code fails {total - passed} of its {total} tests"
    return f"the run ended with status {result.status}"


def decide(
    outcome: RunOutcome,
    settings: Settings,
    *,
    allow_untested: bool = False,
    allow_failing: bool = False,
    current: TesterReport | None = None,
) -> WriteDecision:
    """The decision for ``outcome`` by the module's rules; ``current`` is the tester's report
    on the function as it is now (rule 4; None: not known, not compared)."""
    result = outcome.result
    if outcome.new_text is None or result.code is None:
        return WriteDecision("refuse", "no code", "there is no new code to write")
    if holds_key(result.code, settings):
        return WriteDecision(
            "refuse", "secret",
            "the new code holds the configured API key (the model wrote it into the code); "
            "code holding the key is never written to a file",
        )
    if outcome.untested:
        if allow_untested:
            return WriteDecision("write", "untested", f"untested: {outcome.untested}")
        return WriteDecision("confirm", "untested", f"no test could run ({outcome.untested})")
    if result.status == "passed":
        return WriteDecision("write", "passed")
    if result.status == "untested":
        if not outcome.task.public_tests or outcome.pipeline == "plan_docstring":
            return WriteDecision("write", "untested", "there was nothing to test it against")
        if allow_untested:
            return WriteDecision("write", "untested", "none of its tests could run")
        return WriteDecision("confirm", "untested", "none of its tests could run")
    reason = _failing_reason(outcome)
    if not allow_failing:
        return WriteDecision("confirm", "failing", reason)
    new_passed, total = _public_passes(result.last_report)
    old_passed, _ = _public_passes(current)
    if current is not None and old_passed > new_passed:
        return WriteDecision(
            "refuse", "worse",
            f"the function as it is passes {old_passed} of the {total} public tests and the "
            f"new code {new_passed}: it is not written over code that passes more",
            current,
        )
    return WriteDecision("write", "failing", reason, current)


async def write_decision(
    outcome: RunOutcome,
    settings: Settings,
    *,
    allow_untested: bool = False,
    allow_failing: bool = False,
) -> WriteDecision:
    """:func:`decide`, running the public tests on the function as it is now first when the
    new code did not pass and the caller allows failing code (rule 4; a sandbox that cannot
    run them leaves the bodies uncompared). The CLI calls it with its flags; the editor with
    none (code that did not pass then needs the user's consent: "confirm")."""
    decision = decide(outcome, settings, allow_untested=allow_untested,
                      allow_failing=allow_failing)
    if decision.action != "write" or decision.kind != "failing":
        return decision
    current = await current_report(outcome, settings)
    return decide(outcome, settings, allow_untested=allow_untested,
                  allow_failing=allow_failing, current=current)


async def current_report(outcome: RunOutcome, settings: Settings) -> TesterReport | None:
    """The tester's report on the function as it is (``outcome.task.stub``) against the
    public tests, or None when there are none or the sandbox cannot run them."""
    from codeteam.execution.outcomes import SandboxUnavailable
    from codeteam.execution.suite import run_suite
    from codeteam.roles.tester import build_report

    task = outcome.task
    tests = list(task.public_tests)
    if not tests:
        return None
    policy = settings.sandbox_policy()
    try:
        run = await run_suite(task.program_with(task.stub), tests, policy)
    except SandboxUnavailable:
        return None
    return build_report(tests, run, round_number=0)
