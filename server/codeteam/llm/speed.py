"""How long a call to the embedded model may take: it follows the model's measured speed.

The embedded model shares the machine's cores with everything else; on a busy machine it
writes several times slower than alone. One fixed limit either fails good calls there or
waits far too long for a stuck one. :class:`CallSpeed` measures the completion tokens per
second of the replies so far and gives each call ``MARGIN × tokens asked for ÷ speed``
seconds, at least :data:`FLOOR_S`, at most :data:`CEILING_S`; before the first measurement
it assumes :data:`ASSUMED_TOKENS_PER_S`.
"""

from __future__ import annotations

import threading
from collections import deque

MARGIN = 2.0
"""How many times the expected duration a call may take."""

FLOOR_S = 30.0
"""The shortest limit (seconds): prompt processing and start-up jitter."""

CEILING_S = 1800.0
"""The longest limit (seconds)."""

ASSUMED_TOKENS_PER_S = 8.0
"""The speed assumed before any reply was measured (tokens/s; SmolLM2-135M writes 20-50
tokens/s on two idle cores, several times fewer when they are shared)."""

MIN_MEASURED_TOKENS = 16
"""Replies shorter than this (tokens) are not measured: their time is mostly the prompt's."""

WINDOW = 8
"""How many recent replies the speed is measured over."""


class CallSpeed:
    """The measured speed of one model (thread-safe), and the time limit it implies."""

    def __init__(self) -> None:
        self._samples: deque[tuple[int, float]] = deque(maxlen=WINDOW)
        self._lock = threading.Lock()

    def record(self, completion_tokens: int, seconds: float) -> None:
        """Measure one reply: ``completion_tokens`` written in ``seconds`` (wall clock, the
        prompt's processing included, so the speed errs on the slow side)."""
        if completion_tokens >= MIN_MEASURED_TOKENS and seconds > 0:
            with self._lock:
                self._samples.append((completion_tokens, seconds))

    @property
    def tokens_per_s(self) -> float | None:
        """Completion tokens per second over the recent replies (None before any)."""
        with self._lock:
            if not self._samples:
                return None
            tokens = sum(t for t, _ in self._samples)
            seconds = sum(s for _, s in self._samples)
        return tokens / seconds

    def limit_s(self, max_tokens: int) -> float:
        """Seconds one call asking for up to ``max_tokens`` tokens may take."""
        speed = self.tokens_per_s or ASSUMED_TOKENS_PER_S
        return min(CEILING_S, max(FLOOR_S, MARGIN * max_tokens / speed))

    def describe(self) -> str:
        """The basis of the limit, for messages: "measured 23 tokens/s" or "assumed ..."."""
        speed = self.tokens_per_s
        if speed is None:
            return (f"no reply measured yet, {ASSUMED_TOKENS_PER_S:g} tokens/s assumed; "
                    "the machine may be busy")
        return f"its measured speed is {speed:.0f} tokens/s; the machine may be busy"
