"""Token and time accounting per role."""

from __future__ import annotations

from pydantic import BaseModel, Field


class Usage(BaseModel):
    """Totals for a set of LLM calls: ``calls`` is every HTTP request the endpoint received
    (the SDK's retries included),
    prompt and completion tokens as the endpoint reported them, and wall-clock ``seconds``
    spent waiting for replies (retries included)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def add(self, other: Usage) -> None:
        self.calls += other.calls
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.seconds += other.seconds


class UsageLedger(BaseModel):
    """Usage of one pipeline run, in total and per role (``analyst``, ``coder``, ...)."""

    total: Usage = Field(default_factory=Usage)
    by_role: dict[str, Usage] = Field(default_factory=dict)

    def record(self, role: str, usage: Usage) -> None:
        self.total.add(usage)
        self.by_role.setdefault(role, Usage()).add(usage)

    def summary(self) -> str:
        """One line: ``5 calls, 1234+567 tokens, 12.3 s``."""
        t = self.total
        return (
            f"{t.calls} LLM calls, {t.prompt_tokens} prompt + {t.completion_tokens} completion "
            f"tokens, {t.seconds:.1f} s"
        )
