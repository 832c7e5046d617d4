"""Waiting for a document to change: after ``workspace/applyEdit`` the server checks that the
text it holds (updated by the client's ``didChange``) really contains the edit.

Two signals: :meth:`DocumentWatch.changed` after each ``didChange`` (wakes waiters), and
:meth:`DocumentWatch.text_changed` after each *content change* inside one (so that a text the
document passed through is seen even when the user's next keystrokes arrive in the same
notification, or before a waiter wakes up). URIs are compared unquoted, as pygls stores them.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from urllib.parse import unquote


@dataclass(eq=False)
class Expectation:
    """A whole document text awaited: ``reached`` turns True once the document held exactly
    ``text`` (later changes do not undo it)."""

    text: str
    reached: bool = False


class DocumentWatch:
    """Wakes waiters when a document changes and records expected texts being reached."""

    def __init__(self) -> None:
        self._events: dict[str, asyncio.Event] = {}
        self._expected: dict[str, list[Expectation]] = {}

    def changed(self, uri: str) -> None:
        """Call after every change of ``uri`` (didChange, didOpen, didClose)."""
        event = self._events.pop(unquote(uri), None)
        if event is not None:
            event.set()

    def text_changed(self, uri: str, text: str) -> None:
        """Call after each content change of ``uri`` with the document's whole text then."""
        for expectation in self._expected.get(unquote(uri), ()):
            if not expectation.reached and len(expectation.text) == len(text):
                expectation.reached = expectation.text == text

    @contextlib.contextmanager
    def expect(self, uri: str, text: str) -> Iterator[Expectation]:
        """Within the ``with`` block, note whether ``uri`` passes through exactly ``text``.
        Enter it before sending an edit: the client's didChange comes before its answer."""
        key = unquote(uri)
        expectation = Expectation(text)
        self._expected.setdefault(key, []).append(expectation)
        try:
            yield expectation
        finally:
            waiting = self._expected.get(key, [])
            if expectation in waiting:
                waiting.remove(expectation)
            if not waiting:
                self._expected.pop(key, None)

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
            event = self._events.setdefault(unquote(uri), asyncio.Event())
            try:
                await asyncio.wait_for(event.wait(), left)
            except TimeoutError:
                return predicate()


class DocumentLocks:
    """One lock per document: applying a result (locate, edit, wait for the client's
    didChange) holds it, so that no edit is computed on text another edit is about to change.
    A lock exists only while someone holds or awaits it."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}

    def busy(self, uri: str) -> bool:
        """True while a run holds or awaits the lock of ``uri``."""
        return unquote(uri) in self._locks

    @contextlib.asynccontextmanager
    async def hold(self, uri: str):
        """``async with locks.hold(uri):`` (first come, first served)."""
        key = unquote(uri)
        lock, users = self._locks.get(key, (None, 0))
        lock = lock or asyncio.Lock()
        self._locks[key] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[key]
            if users <= 1:
                del self._locks[key]
            else:
                self._locks[key] = (lock, users - 1)
