"""Waiting for a document to change: after ``workspace/applyEdit`` the server checks that the
text it holds (updated by the client's ``didChange``) really contains the edit."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable


class DocumentWatch:
    """Wakes waiters when a document changes."""

    def __init__(self) -> None:
        self._events: dict[str, asyncio.Event] = {}

    def changed(self, uri: str) -> None:
        """Call after every change of ``uri`` (didChange, didOpen, didClose)."""
        event = self._events.pop(uri, None)
        if event is not None:
            event.set()

    async def wait_for(
        self, uri: str, predicate: Callable[[], bool], timeout: float
    ) -> bool:
        """Wait until ``predicate()`` is true, checking now and after each change of ``uri``,
        for at most ``timeout`` seconds. Returns the last value of ``predicate()``."""
        deadline = time.monotonic() + timeout
        while True:
            if predicate():
                return True
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            event = self._events.setdefault(uri, asyncio.Event())
            try:
                await asyncio.wait_for(event.wait(), left)
            except TimeoutError:
                return predicate()
