"""The codeteam language server's state: :class:`CodeteamServer`.

The handlers live one concern per module (:mod:`~codeteam.editor.lifecycle`,
:mod:`~codeteam.editor.text_sync`, :mod:`~codeteam.editor.code_actions`,
:mod:`~codeteam.editor.commands`), which import this class; :mod:`codeteam.editor.app`
creates the server, registers them on it and runs it (``codeteam serve``). Nothing is ever printed to stdout (it carries the protocol on stdio):
logs go to stderr and the log file, important events also to the client's
``window/logMessage``.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path
from pygls.workspace import TextDocument

from codeteam.editor.active_runs import Runs
from codeteam.editor.configuration import SettingsState
from codeteam.editor.diagnostics import DiagnosticsStore
from codeteam.editor.document_watch import DocumentLocks, DocumentWatch
from codeteam.editor.enclosing import Outline
from codeteam.editor.parsing import ParsePool
from codeteam.editor.positions import UTF16
from codeteam.editor.protocol import CodeteamProtocol
from codeteam.editor.transcript import RunRecords
from codeteam.redaction import redact
from codeteam.service.clients import LLMSession, stop_embedded_model

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
        self.parser = ParsePool()
        """Parsing off the server's process (:mod:`codeteam.editor.parsing`)."""
        self.client_shows_run_messages = False
        self.protocol.on_cancel_request = self.runs.cancel_request
        self.protocol.on_text_change = self.watch.text_changed

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

    @property
    def shows_previews(self) -> bool:
        """Whether the client can show an edit as a preview the user confirms: it applies
        edits, takes versioned ``documentChanges`` (where an edit can carry a change
        annotation) and announces ``workspace.workspaceEdit.changeAnnotationSupport``."""
        return (bool(self.capability("workspace.apply_edit", False))
                and bool(self.capability("workspace.workspace_edit.document_changes", False))
                and self.capability("workspace.workspace_edit.change_annotation_support")
                is not None)

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
        """window/showMessage (and the log); secrets and URL userinfo masked."""
        message = redact(message)
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
        message = redact(message)
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

    # --- errors ----------------------------------------------------------------------------
    def report_server_error(self, error: Exception, source):
        """pygls's (an out-of-band error shown to the user), except for a message body that
        is not JSON: its request, when it names one, is answered with ParseError instead
        (:meth:`CodeteamProtocol.answer_unreadable_body`)."""
        if self.protocol.answer_unreadable_body(error):
            return
        super().report_server_error(error, source)

    # --- shutdown --------------------------------------------------------------------------
    def shutdown(self):
        """Stop the transport (pygls), running pipelines and the embedded model."""
        self.runs.cancel_all("the server is shutting down")
        stop_embedded_model()
        self.parser.shutdown()
        super().shutdown()
