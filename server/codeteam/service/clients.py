"""Where runs get their model client: :class:`LLMSession`, the client the editor's runs
share, rebuilt when the settings change; :class:`OneClient`, one process's run (the CLI).

A client in use by a running pipeline is not closed under it: a replaced client is closed when
its last run releases it. The embedded model (no ``base_url``) is started on first use and
stopped on shutdown.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from codeteam.llm.client import LLMClient
    from codeteam.settings import Settings

log = logging.getLogger(__name__)


def _client_key(settings: Settings) -> tuple[Any, ...]:
    """What the client depends on (the key stays in memory; it is never logged)."""
    key = settings.api_key.get_secret_value() if settings.api_key else None
    return (
        settings.base_url, settings.model, key, settings.timeout_s,
        "timeout_s" in settings.model_fields_set, settings.max_retries,
        settings.seed, settings.temperature, settings.max_tokens,
    )


class LLMSession:
    """Hands out the current :class:`~codeteam.llm.client.LLMClient` to runs.

    ``notify`` receives user-facing log lines (e.g. "embedded model ready in 0.8 s").
    """

    def __init__(self, notify: Callable[[str], None] | None = None) -> None:
        self._notify = notify or (lambda text: None)
        self._client: LLMClient | None = None
        self._key: tuple[Any, ...] | None = None
        self._users: dict[int, int] = {}
        self._retired: dict[int, LLMClient] = {}
        self._lock = asyncio.Lock()
        self.embedded_ready_s: float | None = None

    async def acquire(self, settings: Settings) -> LLMClient:
        """The client for ``settings`` (built, and the embedded model started, if needed).

        Raises :class:`~codeteam.llm.embedded.EmbeddedModelError` when the embedded model is
        needed and cannot start, and :class:`~codeteam.llm.client.LLMError`. Pair with
        :meth:`release`.
        """
        async with self._lock:
            key = _client_key(settings)
            if self._client is None or key != self._key:
                self._retire_current()
                from codeteam.llm.provider import client_for

                started = time.monotonic()
                client = await client_for(settings)
                if settings.uses_embedded_model and self.embedded_ready_s is None:
                    self.embedded_ready_s = time.monotonic() - started
                    self._notify(
                        f"embedded model ready in {self.embedded_ready_s:.2f} s "
                        "(SmolLM2-135M-Instruct)"
                    )
                self._client, self._key = client, key
            client = self._client
            self._users[id(client)] = self._users.get(id(client), 0) + 1
            return client

    async def release(self, client: LLMClient) -> None:
        """Give back a client from :meth:`acquire`; a replaced client closes when unused."""
        count = self._users.get(id(client), 1) - 1
        self._users[id(client)] = count
        if count <= 0:
            self._users.pop(id(client), None)
            retired = self._retired.pop(id(client), None)
            if retired is not None:
                await _close(retired)

    def settings_changed(self, settings: Settings) -> bool:
        """Forget the client if ``settings`` need another one (it is rebuilt on the next
        :meth:`acquire`). Returns True when the client will be rebuilt."""
        if self._client is not None and _client_key(settings) != self._key:
            self._retire_current()
            return True
        return False

    def _retire_current(self) -> None:
        client, self._client, self._key = self._client, None, None
        if client is None:
            return
        if self._users.get(id(client)):
            self._retired[id(client)] = client
        else:
            asyncio.ensure_future(_close(client))

    async def close(self) -> None:
        """Close every client and stop the embedded model (shutdown)."""
        clients = list(self._retired.values())
        if self._client is not None:
            clients.append(self._client)
        self._client, self._key = None, None
        self._retired.clear()
        self._users.clear()
        for client in clients:
            await _close(client)
        stop_embedded_model()


async def _close(client: LLMClient) -> None:
    try:
        await client.close()
    except Exception:  # closing must never fail a shutdown
        log.debug("closing an LLM client failed", exc_info=True)


def stop_embedded_model(timeout_s: float = 5.0) -> bool:
    """Stop the process-wide embedded model if it was ever started (see
    :meth:`EmbeddedModel.stop`: at most ``timeout_s`` seconds). Returns False when it did not
    stop in time (the process exit ends it)."""
    embedded = sys.modules.get("codeteam.llm.embedded")
    if embedded is None:
        return True
    model = embedded.shared_embedded_model()
    return not model.stop_stuck and model.stop(timeout_s)


def embedded_stop_stuck() -> bool:
    """True when stopping the embedded model hung (the exit must skip finalization)."""
    embedded = sys.modules.get("codeteam.llm.embedded")
    return bool(embedded and embedded.shared_embedded_model().stop_stuck)


def exit_now_if_stop_stuck(code: int) -> None:
    """End the process with exit status ``code`` at once when stopping the embedded model hung
    (:func:`codeteam.llm.embedded.exit_now_if_stop_stuck`: finalization could hang the exit);
    nothing when it was never started or stopped cleanly."""
    embedded = sys.modules.get("codeteam.llm.embedded")
    if embedded is not None:
        embedded.exit_now_if_stop_stuck(code)


def model_label(settings: Settings) -> str:
    """How messages, transcripts and benchmark records name the model ``settings`` call:
    ``embedded SmolLM2-135M-Instruct``, or ``MODEL @ BASE_URL`` (``default`` when no model
    is set: the endpoint's own) with the URL's userinfo masked
    (:func:`codeteam.redaction.mask_url`; never the embedded model's internal port)."""
    if settings.uses_embedded_model:
        return f"embedded {embedded_model_name()}"
    from codeteam.redaction import mask_url

    return f"{settings.model or 'default'} @ {mask_url(settings.base_url or '')}"


def embedded_model_name() -> str:
    """The embedded model's name (``SmolLM2-135M-Instruct``)."""
    from codeteam.llm.embedded import MODEL_NAME

    return MODEL_NAME


class OneClient:
    """A :class:`ClientSource` for one process and one run: builds the client on acquire;
    :meth:`close` closes it and stops the embedded model if it was started."""

    def __init__(self) -> None:
        self._clients: list[LLMClient] = []

    async def acquire(self, settings: Settings) -> LLMClient:
        from codeteam.llm.provider import client_for

        client = await client_for(settings)
        self._clients.append(client)
        return client

    async def release(self, client: LLMClient) -> None:
        """Nothing: the client lives until :meth:`close`."""

    async def close(self) -> None:
        for client in self._clients:
            await client.close()
        self._clients.clear()
        stop_embedded_model()


def warm_imports() -> None:
    """Import what a run needs (the service, the pipelines, the model provider, the openai
    SDK), for a caller that does it in the background before the first run."""
    import openai  # noqa: F401 - codeteam.llm.client imports it at the first client only

    import codeteam.llm.provider
    import codeteam.service.documents
    import codeteam.service.runs  # noqa: F401
