"""pygls protocol adjustments codeteam needs (pygls 2.1).

- Position encoding: pygls takes the client's *first* offered encoding; codeteam prefers UTF-16
  whenever the client offers it and takes UTF-8 or UTF-32 only when the client offers just
  those (:func:`codeteam.editor.positions.choose_encoding`).
- Lines: pygls's ``TextDocument.lines`` uses ``str.splitlines``, which also splits at form
  feeds and U+2028 and so applies incremental changes to the wrong lines in such files.
  :class:`LspTextDocument` splits only at ``\\n``, ``\\r\\n`` and ``\\r``.
- Content changes: a ``didChange`` may carry several changes (an applied edit and the user's
  next keystrokes); :attr:`CodeteamProtocol.on_text_change` hears the document's text after
  each of them, so the server can tell its edit landed even when more typing follows at once.
- ``$/cancelRequest``: pygls runs ``workspace/executeCommand`` through a generator, so a cancel
  only cancels the outer request future, not the command's coroutine. The protocol reports
  every cancelled request id to the server (:meth:`CodeteamProtocol.cancelled_request_ids`)
  so that the run behind the command is cancelled too.

This module is the one place that touches pygls's private members; each has a test in
tests/editor/test_pygls_adapter.py: ``Workspace._text_documents`` and ``._sync_kind``,
``LanguageServerProtocol._workspace`` and ``._server``, ``LanguageServer._text_document_sync_kind``,
``JsonRPCProtocol._handle_cancel_notification(msg_id)``.
"""

from __future__ import annotations

import collections
import logging
from collections.abc import Callable, Sequence
from urllib.parse import unquote

from lsprotocol import types
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method
from pygls.workspace import TextDocument, Workspace

from codeteam.editor.positions import choose_encoding, split_lines

MsgId = str | int

log = logging.getLogger(__name__)


class LspTextDocument(TextDocument):
    """A pygls document whose lines end only at ``\\n``, ``\\r\\n`` or ``\\r`` (as in LSP)."""

    @property
    def lines(self) -> Sequence[str]:  # type: ignore[override]
        return tuple(split_lines(self.source))


class LspWorkspace(Workspace):
    """A pygls workspace that holds :class:`LspTextDocument` documents and reports each
    content change to ``on_text_change(uri, whole text)``."""

    on_text_change: Callable[[str, str], None] | None = None

    def update_text_document(
        self,
        text_doc: types.VersionedTextDocumentIdentifier,
        change: types.TextDocumentContentChangeEvent,
    ):
        super().update_text_document(text_doc, change)
        if self.on_text_change is None:
            return
        document = self._text_documents.get(unquote(text_doc.uri))
        if document is None:
            return
        try:
            self.on_text_change(text_doc.uri, document.source)
        except Exception:  # a listener's failure must not lose the change
            log.exception("on_text_change failed")

    def _create_text_document(
        self,
        doc_uri: str,
        source: str | None = None,
        version: int | None = None,
        language_id: str | None = None,
    ) -> TextDocument:
        return LspTextDocument(
            doc_uri,
            source=source,
            version=version,
            language_id=language_id,
            sync_kind=self._sync_kind,
            position_codec=self.position_codec,
        )

    @classmethod
    def like(cls, workspace: Workspace, sync_kind: types.TextDocumentSyncKind) -> LspWorkspace:
        """A new, empty workspace with ``workspace``'s root, folders and position encoding."""
        return cls(
            workspace.root_uri,
            sync_kind,
            list(workspace.folders.values()),
            workspace.position_encoding,
        )


class CodeteamProtocol(LanguageServerProtocol):
    """The language server protocol with codeteam's encoding choice, line splitting and
    cancel reporting (see the module docstring)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.cancelled_request_ids: collections.deque[MsgId] = collections.deque(maxlen=256)
        self.on_cancel_request: Callable[[MsgId], None] | None = None
        self.on_text_change: Callable[[str, str], None] | None = None
        """Called with (uri, the document's whole text) after each content change."""

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams):
        general = params.capabilities.general
        if general is not None and general.position_encodings:
            chosen = choose_encoding(general.position_encodings)
            # pygls picks the first supported entry: put ours first.
            general.position_encodings = [chosen] + [
                e for e in general.position_encodings if str(getattr(e, "value", e)) != chosen
            ]
        result = yield from super().lsp_initialize(params)
        return result

    def use_lsp_lines(self) -> None:
        """Replace pygls's workspace (made during ``initialize``, before any document is
        open) with an :class:`LspWorkspace` with the same root, folders and encoding."""
        if not isinstance(self._workspace, LspWorkspace) and self._workspace is not None:
            self._workspace = LspWorkspace.like(
                self._workspace, self._server._text_document_sync_kind
            )
        if isinstance(self._workspace, LspWorkspace):
            self._workspace.on_text_change = self._text_changed

    def _text_changed(self, uri: str, text: str) -> None:
        if self.on_text_change is not None:
            self.on_text_change(uri, text)

    def _handle_cancel_notification(self, msg_id: MsgId):
        super()._handle_cancel_notification(msg_id)
        self.cancelled_request_ids.append(msg_id)
        if self.on_cancel_request is not None:
            self.on_cancel_request(msg_id)
