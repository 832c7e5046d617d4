"""Waiting on events in async tests, without a clock of their own.

A test waits for something that will happen (a request reached the scripted model, a
progress report came, a process started): :func:`until` checks the condition, and fails at
once, naming what it waited for, when that can no longer happen (``unless``: the command or
task it depends on finished first). There is no time limit here: how long an event takes
depends on the machine's load; a wait that never ends is cut by the suite's own per-test
limit (pytest-timeout, ``timeout`` in pyproject.toml).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import Any

POLL_S = 0.02
"""How often the condition is looked at (seconds)."""


async def until(
    predicate: Callable[[], Any],
    what: str,
    *,
    unless: asyncio.Future | Iterable[asyncio.Future] | None = None,
    gone: Callable[[], str | None] | None = None,
) -> None:
    """Return once ``predicate()`` is true. Raise AssertionError ("... before {what}") when a
    future of ``unless`` is done first (its result or exception is shown), or when ``gone()``
    returns a reason (say, the server process exited)."""
    futures = [unless] if isinstance(unless, asyncio.Future) else list(unless or ())
    while not predicate():
        for future in futures:
            if future.done():
                raise AssertionError(f"{_outcome(future)} before {what}")
        reason = gone() if gone is not None else None
        if reason:
            raise AssertionError(f"{reason} before {what}")
        await asyncio.sleep(POLL_S)


def _outcome(future: asyncio.Future) -> str:
    if future.cancelled():
        return "the awaited task was cancelled"
    error = future.exception()
    if error is not None:
        return f"the awaited task raised {type(error).__name__}: {error}"
    return f"the awaited task finished with {future.result()!r:.500}"
