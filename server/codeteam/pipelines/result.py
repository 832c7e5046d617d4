"""What a pipeline returns: typed, complete, with the reasons for anything degraded."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from codeteam.execution.describe import not_judged_reason
from codeteam.llm.usage import Cost, UsageLedger
from codeteam.roles.conversation import TranscriptEntry
from codeteam.roles.tester import TesterReport

Status = Literal["passed", "failed", "not judged", "untested", "error"]
"""- passed: every executed test passed, judged (public tests, and AI tests where the pipeline
  uses them);
- failed: code was produced but some test still fails (the best code so far is returned);
- not judged: no test failed, but the judge could not decide some (a value that could not
  cross to the code, a machine too busy): that is no pass (see
  :attr:`~codeteam.execution.outcomes.TestOutcome.verdict`), so the code is not shown to pass;
- untested: code was produced but there was nothing to run it against;
- error: no usable code (the reason is in ``notes``)."""


class CandidateRecord(BaseModel):
    """One candidate a pipeline considered (:mod:`codeteam.pipelines.candidates`): its
    ``index`` in the pool (0: the answer direct gives), ``origin`` ("direct", "plan",
    "sample", "approach"), the ``temperature`` and ``seed`` it was sampled with (None: the
    settings'), the public (and hidden) and AI tests it passed of those that ran, its
    ``agreement`` (candidates behaving like it on the AI tests' inputs, itself included), its
    ``dual_score`` (agreement x AI tests passed, CodeT arXiv 2207.10397), its size in
    characters, whether it was ``chosen``, and its ``code``."""

    index: int
    origin: str
    temperature: float | None = None
    seed: int | None = None
    public_passed: int = 0
    public_total: int = 0
    ai_passed: int = 0
    ai_total: int = 0
    agreement: int = 1
    dual_score: int = 0
    chars: int = 0
    chosen: bool = False
    code: str = ""


class Result(BaseModel):
    """The outcome of one pipeline run on one task.

    ``code`` is the new function at column 0 (the user's decorators, header and docstring
    kept; for "plan", the stub with the plan written into its docstring), or None on error;
    ``plan`` the steps the coder followed; ``reports`` the tester's reports, one per round;
    ``transcript`` every role's messages in order; ``usage`` calls, tokens and seconds in total,
    per role and per model; ``cost`` the action's calls, tokens, seconds and money (at the
    ``prices`` setting; see :class:`~codeteam.llm.usage.Cost`); ``notes`` anything the user should know (a degraded stage, a revert, a
    budget reached); ``seconds`` the run's wall-clock time; ``candidates`` the candidates
    compared by execution, when there were several (see :class:`CandidateRecord`).
    """

    pipeline: str
    status: Status
    code: str | None = None
    plan: list[str] | None = None
    reports: list[TesterReport] = Field(default_factory=list)
    transcript: list[TranscriptEntry] = Field(default_factory=list)
    usage: UsageLedger = Field(default_factory=UsageLedger)
    cost: Cost | None = None
    notes: list[str] = Field(default_factory=list)
    rounds: int = 0
    seconds: float = 0.0
    candidates: list[CandidateRecord] = Field(default_factory=list)

    @property
    def last_report(self) -> TesterReport | None:
        return self.reports[-1] if self.reports else None

    def cost_line(self) -> str:
        """The action's cost in one line (:meth:`~codeteam.llm.usage.Cost.line`): LLM calls,
        prompt and completion tokens, seconds and, with prices, money."""
        cost = self.cost or self.usage.cost(self.seconds)
        return cost.line()

    def summary(self) -> str:
        """A short text for a message or the CLI (status, tests, cost)."""
        return f"{self.verdict_line()}; {self.cost_line()}"

    def verdict_line(self) -> str:
        """Status, tests and rounds in one line (``team: passed; 5/5 tests passed; 1
        round``), without the cost. The tests counted are those that decide the verdict:
        advisory docstring examples (a project whose configuration does not run doctests)
        are not, their disagreements are named apart."""
        parts = [f"{self.pipeline}: {self.status}"]
        report = self.last_report
        if report and report.run:
            run = report.run
            judged = [o for o in run.ran if not o.advisory]
            advisory = [o for o in run.ran if o.advisory]  # the project's tests decide
            if judged or not advisory:
                parts.append(f"{sum(o.passed for o in judged)}/{len(judged)} tests passed")
            if advisory:
                parts.append(f"{sum(o.passed for o in advisory)}/{len(advisory)} docstring "
                             "examples agree with the code (advisory: the project does not "
                             "run doctests)")
            if run.skipped:
                parts.append(f"{len(run.skipped)} not run (see the notes)")
            if run.not_judged:  # tests the judge could not decide
                parts.append(f"{len(run.not_judged)} not judged ({not_judged_reason(run.not_judged)})")
        if self.rounds:
            parts.append(f"{self.rounds} round{'s' if self.rounds != 1 else ''}")
        return "; ".join(parts)
