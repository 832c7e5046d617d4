"""Token, time and money accounting per role and per model."""

from __future__ import annotations

from pydantic import BaseModel, Field

Prices = dict[str, tuple[float, float]]
"""USD per million tokens by model name: ``{"gpt-4o": (2.5, 10.0)}`` is $2.50 per million
prompt tokens and $10 per million completion tokens (setting ``prices``)."""


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


class Cost(BaseModel):
    """What one action cost: its LLM ``calls``, prompt and completion tokens, its wall-clock
    ``seconds`` (the whole action, tests included), and ``usd``, the money at the user's
    ``prices`` (USD per million tokens by model; None when no model used has a price);
    ``unpriced`` names the models used that have no price (then ``usd`` counts only the
    others)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    usd: float | None = None
    unpriced: list[str] = Field(default_factory=list)

    def line(self) -> str:
        """One line: ``5 LLM calls, 1,234 prompt + 567 completion tokens, 12.3 s, $0.0087``
        (the money only with prices; ``(no price for m)`` for a model without one)."""
        text = (f"{self.calls} LLM call{'s' if self.calls != 1 else ''}, "
                f"{self.prompt_tokens:,} prompt + {self.completion_tokens:,} completion tokens, "
                f"{self.seconds:.1f} s")
        if self.usd is not None:
            text += f", ${self.usd:.4f}" if self.usd < 1 else f", ${self.usd:.2f}"
        if self.unpriced:
            text += f" (no price for {', '.join(self.unpriced)})"
        return text


class UsageLedger(BaseModel):
    """Usage of one pipeline run, in total, per role (``analyst``, ``coder``, ...) and per
    model name (the one sent to the endpoint)."""

    total: Usage = Field(default_factory=Usage)
    by_role: dict[str, Usage] = Field(default_factory=dict)
    by_model: dict[str, Usage] = Field(default_factory=dict)

    def record(self, role: str, usage: Usage, model: str | None = None) -> None:
        self.total.add(usage)
        self.by_role.setdefault(role, Usage()).add(usage)
        if model is not None:
            self.by_model.setdefault(model, Usage()).add(usage)

    def summary(self) -> str:
        """One line: ``5 calls, 1234+567 tokens, 12.3 s``."""
        t = self.total
        return (
            f"{t.calls} LLM calls, {t.prompt_tokens} prompt + {t.completion_tokens} completion "
            f"tokens, {t.seconds:.1f} s"
        )

    def cost(self, seconds: float, prices: Prices | None = None) -> Cost:
        """The :class:`Cost` of these calls for an action of ``seconds`` (wall-clock), priced
        per model with ``prices`` (USD per million prompt and completion tokens). A model
        that made no request (every call failed before one) needs no price."""
        t = self.total
        cost = Cost(calls=t.calls, prompt_tokens=t.prompt_tokens,
                    completion_tokens=t.completion_tokens, seconds=seconds)
        if not prices:
            return cost
        usd = 0.0
        priced = False
        for model, usage in self.by_model.items():
            price = prices.get(model)
            if price is None:
                if usage.total_tokens:
                    cost.unpriced.append(model)
                continue
            priced = True
            usd += (usage.prompt_tokens * price[0] + usage.completion_tokens * price[1]) / 1e6
        cost.usd = usd if priced else None
        return cost
