"""What every pipeline run gets: the conversation (model, prompts, transcript, usage), the
sandbox policy and the knobs from the settings. No LSP types here."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from codeteam.execution.outcomes import SandboxUnavailable, TestCase
from codeteam.execution.sandbox import SandboxPolicy
from codeteam.execution.suite import Offload, run_suite
from codeteam.llm.client import LLMClient
from codeteam.llm.usage import Prices
from codeteam.pipelines.result import CandidateRecord, Result, Status
from codeteam.roles.conversation import Conversation, ProgressCallback
from codeteam.roles.prompts import PromptLibrary
from codeteam.roles.tester import TesterReport, build_report
from codeteam.settings import Settings
from codeteam.task import Task


@dataclass
class PipelineContext:
    """One run's shared state.

    ``max_rounds`` bounds the coder/tester rounds (team), ``ai_tests`` is how many AI tests the
    tester writes, ``max_calls`` the flow pipeline's LLM call budget; ``candidates`` how many
    alternatives team and flow sample when the first answer fails (seeds ``seed + 1``, ...);
    ``plan_candidate`` whether one of team's candidates follows the analyst's plan;
    ``prices`` the USD per million prompt and completion tokens by model, for the result's
    :class:`~codeteam.llm.usage.Cost` (the token budget is the conversation's);
    ``notes`` collects what the user should know about the run (degraded stages, reverts).
    """

    conversation: Conversation
    policy: SandboxPolicy
    max_rounds: int = 3
    ai_tests: int = 5
    max_calls: int = 15
    candidates: int = 3
    plan_candidate: bool = False
    seed: int = 1234
    notes: list[str] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)
    sandbox_problem: str | None = None
    candidate_records: list[CandidateRecord] = field(default_factory=list)
    prices: Prices = field(default_factory=dict)
    offload: Offload | None = None
    """Where the test runs' parsing happens (:data:`codeteam.execution.suite.Offload`; None:
    on the event loop)."""

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        client: LLMClient,
        *,
        progress: ProgressCallback | None = None,
        prompts: PromptLibrary | None = None,
        max_calls: int | None = None,
        offload: Offload | None = None,
    ) -> PipelineContext:
        conversation = Conversation(
            client,
            prompts or PromptLibrary(settings.prompts_dir),
            models={role: settings.model_for(role) for role in settings.models},
            progress=progress,
            max_calls=max_calls,
            token_budget=settings.token_budget or None,
            # As the endpoint is given it (llm.provider): the embedded model is one name.
            default_model=("embedded" if settings.uses_embedded_model
                           else settings.model or "default"),
            temperature=settings.temperature,
            max_tokens=settings.max_tokens,
            offload=offload,
        )
        policy = settings.sandbox_policy()
        return cls(
            conversation=conversation,
            policy=policy,
            max_rounds=settings.max_rounds,
            ai_tests=settings.ai_tests,
            max_calls=settings.max_calls,
            candidates=settings.candidates,
            plan_candidate=settings.plan_candidate,
            offload=offload,
            seed=settings.seed,
            prices=dict(settings.prices),
        )

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    async def run_tests(
        self, task: Task, code: str, tests: list[TestCase], round_number: int
    ) -> TesterReport | None:
        """The tester's executed report, or None (with a note) when there is nothing to run,
        the sandbox refuses to run generated code, or no test could run in it. Each test the
        sandbox could not run (a module it imports is not there) gets a note saying why; the
        report's verdict is that of the tests that ran."""
        if not tests:
            return None
        if self.sandbox_problem:
            return None
        conversation = self.conversation
        conversation.report(f"tester: running {len(tests)} test{'s' if len(tests) != 1 else ''}")
        try:
            run = await run_suite(task.program_with(code), tests, self.policy,
                                  offload=self.offload)
        except SandboxUnavailable as error:
            self.sandbox_problem = str(error)
            self.note(f"tests were not run: {error}")
            return None
        report = build_report(tests, run, round_number=round_number)
        conversation.event("tester", f"round {round_number}: ran {len(tests)} tests",
                           report.summary)
        for text in report.skipped_notes():
            self.note(text)
        if report.run is not None and report.run.outcomes and not report.run.ran:
            self.note("no test could run in the sandbox: the code is untested")
            return None
        return report

    def result(
        self,
        pipeline: str,
        status: Status,
        code: str | None,
        *,
        plan: list[str] | None = None,
        reports: list[TesterReport] | None = None,
        rounds: int = 0,
    ) -> Result:
        seconds = time.monotonic() - self.started
        ledger = self.conversation.ledger.model_copy(deep=True)
        return Result(
            pipeline=pipeline,
            status=status,
            code=code,
            plan=plan,
            reports=list(reports or []),
            transcript=list(self.conversation.transcript),
            usage=ledger,
            cost=ledger.cost(seconds, self.prices),
            notes=list(self.notes),
            rounds=rounds,
            seconds=seconds,
            candidates=list(self.candidate_records),
        )


def score(report: TesterReport | None) -> tuple[int, int]:
    """Ranking key of a candidate: public (and hidden) tests passed first, then AI tests.
    AI tests may be wrong, so they only break ties between candidates equal on public tests
    (AlphaCodium, arXiv 2401.08500, section 3: public tests are trusted more than AI tests)."""
    if report is None:
        return (0, 0)
    public, _ = report.counts("public")
    hidden, _ = report.counts("hidden")
    ai, _ = report.counts("ai")
    return (public + hidden, ai)


def status_of(report: TesterReport | None) -> Status:
    """passed / failed / not judged from the report's verdict (the tests that ran: a test
    "not judged" is not a pass); untested when nothing that decides the verdict ran (advisory
    docstring examples alone do not)."""
    if report is None or (report.run is not None and report.run.outcomes
                          and not report.run.deciding):
        return "untested"
    if report.verdict == "not judged":
        return "not judged"
    return "passed" if report.passed else "failed"
