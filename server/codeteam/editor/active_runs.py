"""Running pipelines: at most one per function, each an asyncio task that can be cancelled
from the editor (work-done progress cancel, ``$/cancelRequest``) or by shutdown."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from codeteam.editor.actions import Action


@dataclass(eq=False)
class Run:
    """One command's run on one function (``uri``, ``qualname``).

    ``request_id`` is the ``workspace/executeCommand`` request behind it; ``task`` the asyncio
    task doing the work; ``cancel_reason`` is set once it is cancelled, and from then on
    nothing may be applied.
    """

    uri: str
    qualname: str
    action: Action
    request_id: Any = None
    task: asyncio.Task[Any] | None = None
    cancel_reason: str | None = None
    stage: str = "starting"
    done: asyncio.Event = field(default_factory=asyncio.Event)
    record_id: str | None = None
    """The id of the result this run produced and kept, once it has one (it may still be
    showing it: a preview the editor answered, the run's last steps)."""

    @property
    def cancelled(self) -> bool:
        return self.cancel_reason is not None

    def cancel(self, reason: str) -> None:
        """Cancel the run (idempotent): the task is cancelled at its next await, which stops
        LLM calls and kills test processes."""
        if self.cancel_reason is None:
            self.cancel_reason = reason
        if self.task is not None and not self.task.done():
            self.task.cancel(reason)


class Runs:
    """The runs in progress, by (uri, qualname)."""

    def __init__(self) -> None:
        self._runs: dict[tuple[str, str], Run] = {}

    def __len__(self) -> int:
        return len(self._runs)

    def __iter__(self):
        return iter(list(self._runs.values()))

    def get(self, uri: str, qualname: str) -> Run | None:
        return self._runs.get((uri, qualname))

    def start(self, uri: str, qualname: str, action: Action, request_id: Any = None) -> Run | None:
        """Register a new run, or return None when one is already running on that function."""
        key = (uri, qualname)
        if key in self._runs:
            return None
        run = Run(uri=uri, qualname=qualname, action=action, request_id=request_id)
        self._runs[key] = run
        return run

    def finish(self, run: Run) -> None:
        if self._runs.get((run.uri, run.qualname)) is run:
            del self._runs[(run.uri, run.qualname)]
        run.done.set()

    def cancel_request(self, request_id: Any) -> bool:
        """Cancel the run started by request ``request_id`` (``$/cancelRequest``)."""
        found = False
        for run in self:
            if run.request_id is not None and run.request_id == request_id:
                run.cancel("the request was cancelled")
                found = True
        return found

    def cancel_all(self, reason: str) -> None:
        for run in self:
            run.cancel(reason)

    async def wait_all(self, timeout: float) -> None:
        """Wait until every run has finished (at most ``timeout`` seconds)."""
        waiting = [run.done.wait() for run in self]
        if waiting:
            await asyncio.wait(
                [asyncio.ensure_future(w) for w in waiting], timeout=timeout
            )
