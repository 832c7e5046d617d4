"""The shared message pool of one pipeline run (self-collaboration, Dong et al., arXiv
2304.07590, section 3.1: roles communicate through a shared pool of messages).

A :class:`Conversation` renders a role's prompt, calls the model, and records the exchange in
the transcript and the usage ledger. Roles read earlier messages from :attr:`transcript`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import BaseModel, Field

from codeteam.llm.client import ChatMessage, LLMClient, LLMError
from codeteam.llm.usage import Usage, UsageLedger
from codeteam.roles.prompts import PromptLibrary

ProgressCallback = Callable[[str], None]
"""Receives a stage label such as ``"analyst: planning"`` or ``"tester: running 12 tests"``."""


class Sampling(BaseModel):
    """A call's own sampling: ``temperature`` and ``seed`` instead of the prompt's or the
    settings' (a sampled candidate, CodeT arXiv 2207.10397 section 3)."""

    temperature: float
    seed: int


class TranscriptEntry(BaseModel):
    """One exchange: which ``role`` at which ``stage`` sent which ``messages``, the ``reply``
    (empty on error), the ``error`` if the call failed, and its ``usage``. Entries with
    ``kind="event"`` record non-LLM steps (test runs, reverts) with a text in ``reply``.
    ``sampling`` is set for a call sent with its own temperature and seed."""

    role: str
    stage: str
    kind: str = "llm"
    prompt: str = ""
    messages: list[ChatMessage] = Field(default_factory=list)
    reply: str = ""
    error: str | None = None
    usage: Usage = Field(default_factory=Usage)
    sampling: Sampling | None = None


class CallBudgetExceeded(LLMError):
    """A pipeline reached its LLM call budget (``max_calls``), or its token budget
    (:class:`TokenBudgetExceeded`)."""


class TokenBudgetExceeded(CallBudgetExceeded):
    """The run's calls used its token budget (``token_budget``, prompt + completion tokens):
    no further call is made; the pipelines stop as at the call budget, with the best code so
    far."""


class Conversation:
    """The state shared by the roles of one run.

    ``models`` maps role names to model names (missing: the client's default model, whose
    name is ``default_model``: what the usage per model is recorded under);
    ``max_calls`` bounds the number of LLM calls (None: unbounded); ``token_budget`` the
    prompt + completion tokens of the run (None: unbounded; checked before each call, so the
    call that crosses it completes and the next is refused); ``progress`` receives stage
    labels; ``temperature`` and ``max_tokens`` apply to prompts that do not set their own;
    ``offload`` runs the roles' parsing of replies off the event loop (``await
    offload(function, *args)``, as the test runs' parsing: the editor's parse worker
    process; None: in a thread).
    """

    def __init__(
        self,
        client: LLMClient,
        prompts: PromptLibrary,
        *,
        models: dict[str, str] | None = None,
        progress: ProgressCallback | None = None,
        max_calls: int | None = None,
        token_budget: int | None = None,
        default_model: str | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        offload: Callable[..., Awaitable[Any]] | None = None,
    ) -> None:
        self.client = client
        self.offload: Callable[..., Awaitable[Any]] = offload or asyncio.to_thread
        self.prompts = prompts
        self.models = dict(models or {})
        self.progress = progress or (lambda stage: None)
        self.max_calls = max_calls
        self.default_model = default_model
        self.token_budget = token_budget
        self.token_budget_spent = False
        """Set when a call was refused because :attr:`token_budget` was used up."""
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.transcript: list[TranscriptEntry] = []
        self.ledger = UsageLedger()

    @property
    def calls(self) -> int:
        return self.ledger.total.calls

    def report(self, stage: str) -> None:
        """Tell the editor (or CLI) which stage is running."""
        self.progress(stage)

    def event(self, role: str, stage: str, text: str) -> None:
        """Record a non-LLM step (a test run, a revert) in the transcript."""
        self.transcript.append(TranscriptEntry(role=role, stage=stage, kind="event", reply=text))

    async def ask(
        self,
        role: str,
        stage: str,
        prompt: str,
        *,
        history: list[ChatMessage] | None = None,
        sampling: Sampling | None = None,
        **variables: Any,
    ) -> str:
        """Render prompt file ``prompt`` with ``variables``, send it as ``role``, record the
        exchange, and return the reply text. ``history`` messages are appended after the
        rendered ones (for repair turns). Raises :class:`~codeteam.llm.client.LLMError`
        (including :class:`CallBudgetExceeded`) and
        :class:`~codeteam.roles.prompts.PromptError`."""
        if self.max_calls is not None and self.calls >= self.max_calls:
            raise CallBudgetExceeded(f"the LLM call budget ({self.max_calls}) is spent")
        used = self.ledger.total.total_tokens
        if self.token_budget is not None and used >= self.token_budget:
            self.token_budget_spent = True
            raise TokenBudgetExceeded(
                f"the token budget ({self.token_budget:,} tokens) is spent ({used:,} used)"
            )
        rendered = self.prompts.render(prompt, **variables)
        messages = rendered.messages + list(history or [])
        temperature = rendered.temperature if rendered.temperature is not None else self.temperature
        max_tokens = rendered.max_tokens or self.max_tokens
        if sampling is not None:
            temperature = sampling.temperature
        model = self.models.get(role)
        entry = TranscriptEntry(
            role=role, stage=stage, prompt=prompt, messages=messages, sampling=sampling
        )
        sent_to = model or self.default_model  # the name the request carries
        self.transcript.append(entry)
        started = time.monotonic()
        try:
            reply = await self.client.chat(
                messages,
                model=model,
                temperature=temperature,
                max_tokens=max_tokens,
                seed=sampling.seed if sampling is not None else None,
            )
        except LLMError as error:
            entry.error = str(error)
            # Every HTTP request the endpoint received (0 when none was made).
            entry.usage = Usage(calls=error.requests, seconds=time.monotonic() - started)
            self.ledger.record(role, entry.usage, sent_to)
            raise
        entry.reply = reply.text
        entry.usage = reply.usage
        self.ledger.record(role, reply.usage, sent_to)
        return reply.text
