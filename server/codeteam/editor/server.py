"""The codeteam language server: its state, and ``serve`` (``codeteam serve``).

The handlers live one concern per module (:mod:`~codeteam.editor.lifecycle`,
:mod:`~codeteam.editor.text_sync`, :mod:`~codeteam.editor.code_actions`,
:mod:`~codeteam.editor.commands`); :func:`create_server` registers them on a new
:class:`CodeteamServer`. Nothing is ever printed to stdout (it carries the protocol on stdio):
logs go to stderr and the log file, important events also to the client's
``window/logMessage``.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path
from pygls.workspace import TextDocument

from codeteam.editor.configuration import SettingsState
from codeteam.editor.diagnostics import DiagnosticsStore
from codeteam.editor.document_watch import DocumentLocks, DocumentWatch
from codeteam.editor.llm_session import LLMSession, embedded_stop_stuck, stop_embedded_model
from codeteam.editor.outline import Outline
from codeteam.editor.positions import UTF16
from codeteam.editor.protocol import CodeteamProtocol
from codeteam.editor.runs import Runs
from codeteam.editor.transcript import RunRecord, RunRecords

log = logging.getLogger("codeteam.editor")

SERVER_NAME = "codeteam"


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("codeteam")
    except Exception:  # noqa: BLE001 - a version is nice to have
        return "0"


class CodeteamServer(LanguageServer):
    """pygls's LanguageServer plus codeteam's state: settings, the LLM session, runs in
    progress, the outline cache for code actions, diagnostics, one apply lock per document,
    and the finished runs' records (the latest per function)."""

    protocol: CodeteamProtocol

    def __init__(self) -> None:
        super().__init__(
            SERVER_NAME,
            _version(),
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=CodeteamProtocol,
        )
        self.config = SettingsState()
        self.llm = LLMSession(notify=self.log_info)
        self.runs = Runs()
        self.outline = Outline()
        self.diagnostics = DiagnosticsStore()
        self.watch = DocumentWatch()
        self.apply_locks = DocumentLocks()
        self.records = RunRecords()
        self.client_shows_run_messages = False
        self.protocol.on_cancel_request = self.runs.cancel_request
        self.protocol.on_text_change = self.watch.text_changed

    @property
    def last_run(self) -> RunRecord | None:
        """The record of the run that finished last (None before any)."""
        return self.records.latest()

    # --- state -----------------------------------------------------------------------------
    @property
    def settings(self):
        """The current :class:`~codeteam.settings.Settings`."""
        return self.config.settings

    @property
    def position_encoding(self) -> str:
        """The negotiated position encoding ("utf-16", "utf-8" or "utf-32")."""
        try:
            encoding = self.workspace.position_encoding
        except RuntimeError:  # before initialize
            return UTF16
        return str(getattr(encoding, "value", encoding) or UTF16)

    def capability(self, field: str, default: Any = None) -> Any:
        """A client capability by dotted snake_case path (``window.work_done_progress``)."""
        try:
            capabilities = self.client_capabilities
        except AttributeError:
            return default
        return get_capability(capabilities, field, default)

    def open_document(self, uri: str) -> TextDocument | None:
        """The document if the client has it open (didOpen), else None."""
        try:
            return self.workspace.text_documents.get(unquote(uri))
        except RuntimeError:  # before initialize
            return None

    def document_lines(self, document: TextDocument) -> list[str]:
        """The document's lines (LSP line breaks), cached per version."""
        return self.outline.lines(document.uri, document.version, document.source)

    def workspace_root_for(self, uri: str, *, fallback: bool = True) -> Path | None:
        """The workspace folder holding ``uri`` (the longest match), else the root path, else
        (``fallback``) the document's own folder, else None; pytest tests are searched under
        it, and a folder that holds the document is its project root."""
        path = to_fs_path(uri)
        if path is None:
            return None
        document = Path(path)
        candidates: list[Path] = []
        try:
            for folder in self.workspace.folders.values():
                folder_path = to_fs_path(folder.uri)
                if folder_path:
                    candidates.append(Path(folder_path))
            if self.workspace.root_path:
                candidates.append(Path(self.workspace.root_path))
        except RuntimeError:
            pass
        holding = [c for c in candidates if document == c or c in document.parents]
        if holding:
            return max(holding, key=lambda c: len(c.parts))
        return document.parent if fallback else None

    # --- telling the user ------------------------------------------------------------------
    def show(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        """window/showMessage (and the log)."""
        log.info("showMessage: %s", message)
        self.window_show_message(types.ShowMessageParams(type=kind, message=message))

    def show_run_message(
        self, message: str, kind: types.MessageType = types.MessageType.Info
    ) -> None:
        """A run's result for the user: window/showMessage, unless the client shows command
        answers itself (then only the log)."""
        if self.client_shows_run_messages:
            log.info("run message (shown by the client): %s", message)
            self._log_message(message, kind)
            return
        self.show(message, kind)

    def log_info(self, message: str) -> None:
        """window/logMessage (Info) and the log."""
        log.info("%s", message)
        self._log_message(message, types.MessageType.Info)

    def log_warning(self, message: str) -> None:
        log.warning("%s", message)
        self._log_message(message, types.MessageType.Warning)

    def _log_message(self, message: str, kind: types.MessageType) -> None:
        if self.protocol.writer is None:
            return
        try:
            self.window_log_message(types.LogMessageParams(type=kind, message=message))
        except Exception:  # a closed transport must not break the caller
            log.debug("logMessage failed", exc_info=True)

    def publish_diagnostics(self, uri: str) -> None:
        """Send codeteam's current diagnostics of ``uri`` (an empty list clears them)."""
        document = self.open_document(uri)
        lines = self.document_lines(document) if document is not None else []
        diagnostics = self.diagnostics.lsp_diagnostics(uri, lines, self.position_encoding)
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics)
        )

    # --- shutdown --------------------------------------------------------------------------
    def shutdown(self):
        """Stop the transport (pygls), running pipelines and the embedded model."""
        self.runs.cancel_all("the server is shutting down")
        stop_embedded_model()
        super().shutdown()


def create_server() -> CodeteamServer:
    """A new server with every codeteam feature registered."""
    from codeteam.editor import code_actions, commands, lifecycle, text_sync

    server = CodeteamServer()
    lifecycle.register(server)
    text_sync.register(server)
    code_actions.register(server)
    commands.register(server)
    return server


def _configure_logging(log_file: str | None) -> None:
    root = logging.getLogger()
    if not any(isinstance(h, logging.StreamHandler) for h in root.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        root.addHandler(handler)
    if log_file:
        file_handler = logging.FileHandler(log_file, encoding="utf-8")
        file_handler.setFormatter(
            logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
        )
        root.addHandler(file_handler)
        logging.getLogger("codeteam").setLevel(logging.INFO)
    # pygls logs whole messages at INFO (initializationOptions may hold the API key).
    logging.getLogger("pygls").setLevel(logging.WARNING)


def _protocol_stdout():
    """A binary stream on the real stdout for the protocol; fd 1 itself is pointed at stderr so
    that stray prints (ours, a library's, C code's) cannot corrupt the protocol stream."""
    sys.stdout.flush()
    protocol_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return os.fdopen(protocol_fd, "wb", buffering=0)


def serve(tcp: str | None = None, log_file: str | None = None) -> int:
    """Run the language server until the client exits: on stdio, or on TCP ``HOST:PORT``.
    Returns the process exit code (2 for a bad ``--tcp`` value)."""
    _configure_logging(log_file)
    if tcp:
        host, _, port = tcp.rpartition(":")
        if not port.isdigit():
            print(f"codeteam serve: --tcp takes HOST:PORT, got {tcp!r}", file=sys.stderr)
            return 2
        server = create_server()
        log.info("codeteam %s listening on %s:%s", server.version, host or "127.0.0.1", port)
        server.start_tcp(host or "127.0.0.1", int(port))
        _exit_now_if_the_model_is_stuck()
        return 0
    stdout = _protocol_stdout()
    server = create_server()
    log.info("codeteam %s on stdio", server.version)
    server.start_io(sys.stdin.buffer, stdout)
    _exit_now_if_the_model_is_stuck()
    return 0


def _exit_now_if_the_model_is_stuck() -> None:
    """If the embedded model did not stop, leave without Python's finalization (which would
    run xllamacpp's destructor again and could hang the exit)."""
    if embedded_stop_stuck() or not stop_embedded_model():
        log.warning("exiting with the embedded model still running")
        logging.shutdown()
        os._exit(0)

