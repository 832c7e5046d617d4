"""Server-initiated, cancellable work-done progress for one run.

``window/workDoneProgress/create`` (only when the client advertises
``window.workDoneProgress``), then ``$/progress`` begin / report (the stage label from the
pipeline, e.g. "analyst: planning", "tester: running 12 tests") / end. The client's
``window/workDoneProgress/cancel`` for the token calls ``on_cancel``.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.capabilities import get_capability

if TYPE_CHECKING:
    from pygls.lsp.server import LanguageServer

log = logging.getLogger(__name__)

CREATE_TIMEOUT_S = 5.0


class RunProgress:
    """The progress of one run (a no-op when the client has no work-done progress)."""

    def __init__(
        self,
        server: LanguageServer,
        title: str,
        on_cancel: Callable[[], None],
    ) -> None:
        self._server = server
        self._title = title
        self._on_cancel = on_cancel
        self._token: str | None = None
        self._last: str | None = None
        self._ended = False

    @property
    def token(self) -> str | None:
        """The progress token, once :meth:`begin` created one."""
        return self._token

    async def begin(self, message: str) -> bool:
        """Create the progress in the client and show ``message``. Returns False (and does
        nothing) when the client does not support it or refuses."""
        capabilities = self._server.client_capabilities
        if not get_capability(capabilities, "window.work_done_progress", False):
            return False
        token = f"codeteam-{uuid.uuid4().hex}"
        progress = self._server.work_done_progress
        try:
            await asyncio.wait_for(progress.create_async(token), CREATE_TIMEOUT_S)
        except Exception as error:  # noqa: BLE001 - the client refused or did not answer
            log.info("work-done progress not created: %s", error)
            return False
        self._token = token
        future = progress.tokens.get(token)
        if future is not None:
            future.add_done_callback(self._cancelled_by_client)
        progress.begin(
            token,
            types.WorkDoneProgressBegin(title=self._title, cancellable=True, message=message),
        )
        self._last = message
        return True

    def report(self, stage: str) -> None:
        """Show ``stage`` (the pipeline's progress callback)."""
        if self._token is None or self._ended or stage == self._last:
            return
        self._last = stage
        self._server.work_done_progress.report(
            self._token, types.WorkDoneProgressReport(message=stage, cancellable=True)
        )

    def end(self, message: str) -> None:
        """End the progress with ``message`` (idempotent)."""
        if self._token is None or self._ended:
            return
        self._ended = True
        progress = self._server.work_done_progress
        progress.end(self._token, types.WorkDoneProgressEnd(message=message))
        progress.tokens.pop(self._token, None)

    def _cancelled_by_client(self, future) -> None:
        if future.cancelled() and not self._ended:
            self._on_cancel()
