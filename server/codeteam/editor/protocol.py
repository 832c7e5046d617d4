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

- Every request gets an answer: pygls drops a request whose params do not structure (a
  negative line, a character above 2^31 - 1, a string for a number, no range): it raises while
  reading the message, before there is a request to answer. :meth:`CodeteamProtocol.structure_message`
  keeps such a request as an :class:`UnreadableRequest` and :meth:`~CodeteamProtocol.handle_message`
  answers it with InvalidParams (-32602) naming the field ("params.range.start.line must be an
  integer from 0 to 2147483647, got -1"). A body that is not JSON (its Content-Length too
  small: characters counted instead of bytes) is answered with ParseError (-32700) when its
  complete part names a request id (:meth:`~CodeteamProtocol.answer_unreadable_body`).
- Framing: after such a body, the rest of it and the next header arrive on one line, which
  pygls's reader does not take for a header, and every later message is lost.
  :class:`ResyncingStream` (the stdin pygls reads) starts a line at its ``Content-Length:``
  header, dropping the bytes before it, so the next message is read again.

This module is the one place that touches pygls's private members; each has a test in
tests/editor/test_pygls_adapter.py: ``Workspace._text_documents`` and ``._sync_kind``,
``LanguageServerProtocol._workspace`` and ``._server``, ``LanguageServer._text_document_sync_kind``,
``JsonRPCProtocol._handle_cancel_notification(msg_id)``, ``._converter``, ``._send_response``
and the reader loop's use of ``readline``/``read`` (pygls.io_.run_async).
"""

from __future__ import annotations

import collections
import json
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, BinaryIO
from urllib.parse import unquote

import cattrs
from cattrs.v import format_exception
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams, JsonRpcParseError
from pygls.protocol import JsonRPCRequestMessage, LanguageServerProtocol
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


HEADER = b"Content-Length:"


class ResyncingStream:
    """A binary stream (``readline``, ``read``) over ``stream`` whose lines start at a
    ``Content-Length:`` header when one appears inside a line: the bytes before it (the rest
    of a body whose Content-Length was too small) are dropped and logged. A JSON body holds
    no raw line break inside a string, so a header can only be inside a line when the framing
    was lost."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self.dropped_bytes = 0
        """Bytes dropped so far to find a header."""

    def readline(self) -> bytes:
        line = self._stream.readline()
        at = line.find(HEADER)
        if at > 0:
            self.dropped_bytes += at
            log.warning("dropped %d bytes before a Content-Length header (a message's "
                        "Content-Length did not match its body)", at)
            return line[at:]
        return line

    def read(self, size: int = -1) -> bytes:
        return self._stream.read(size)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@dataclass(frozen=True)
class UnreadableRequest:
    """A request whose params do not structure into the method's type; it is answered with
    ``error`` instead of running a handler."""

    id: MsgId | None
    method: str
    error: types.ResponseError
    jsonrpc: str = "2.0"


_RANGE_ERROR = re.compile(
    r"^\w+\.(?P<field>\w+) should be in range \[(?P<low>-?\d+):(?P<high>-?\d+)\], "
    r"but was (?P<value>.+)\.$"
)


def invalid_params_message(method: str, error: Exception) -> str:
    """What is wrong with a request's params, by field (``params.range.start.line must be an
    integer from 0 to 2147483647, got -1``; ``params.range: required field missing``). Only
    numbers from the message are shown, never a text value (it may be a key)."""
    if not isinstance(error, cattrs.BaseValidationError):
        return f"{method}: the params could not be read ({type(error).__name__})"
    fields: list[str] = []

    def describe(exc: BaseException, type_: Any) -> str:
        match = _RANGE_ERROR.match(str(exc)) if isinstance(exc, ValueError) else None
        if match:
            return (f"\0{match['field']}\0must be an integer from {match['low']} to "
                    f"{match['high']}, got {match['value']}")
        return format_exception(exc, type_)

    for line in cattrs.transform_error(error, path="$", format_exception=describe):
        text, _, path = line.rpartition(" @ ")
        path = path.removeprefix("$.").removeprefix("$")
        if text.startswith("\0"):
            _, field, text = text.split("\0", 2)
            path = f"{path}.{field}" if path else field
            fields.append(f"{path} {text}")
        else:
            fields.append(f"{path}: {text}")
    return f"{method}: invalid params: " + "; ".join(fields[:5])


def _complete_members(text: str) -> dict[str, Any]:
    """The top-level members of the JSON object ``text`` that are complete before the text
    breaks off (read with the stdlib JSON decoder)."""
    decoder = json.JSONDecoder()
    space = re.compile(r"[ \t\n\r]*")
    members: dict[str, Any] = {}
    at = space.match(text, 0).end()
    if text[at:at + 1] != "{":
        return members
    at += 1
    while True:
        at = space.match(text, at).end()
        if text[at:at + 1] != '"':
            return members
        try:
            key, at = json.decoder.scanstring(text, at + 1)
            at = space.match(text, at).end()
            if text[at:at + 1] != ":":
                return members
            value, at = decoder.raw_decode(text, space.match(text, at + 1).end())
        except ValueError:  # the text breaks off in this member
            return members
        members[key] = value
        at = space.match(text, at).end()
        if text[at:at + 1] != ",":
            return members
        at += 1


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

    # --- every request gets an answer --------------------------------------------------------
    def structure_message(self, data: dict[str, Any]):
        """pygls's, except that a request whose params do not structure becomes an
        :class:`UnreadableRequest` (answered by :meth:`handle_message`) instead of an
        exception that drops it."""
        if "jsonrpc" in data and "method" in data and "id" in data and "error" not in data:
            method = data["method"] if isinstance(data["method"], str) else ""
            request_type = self.get_message_type(method) or JsonRPCRequestMessage
            try:
                return self._converter.structure(data, request_type)
            except Exception as error:  # noqa: BLE001 - answered below, never dropped
                msg_id = data["id"] if isinstance(data["id"], int | str) else None
                message = invalid_params_message(method or "the request", error)
                log.warning("request %r: %s", msg_id, message)
                return UnreadableRequest(
                    id=msg_id, method=method,
                    error=types.ResponseError(code=JsonRpcInvalidParams.CODE, message=message),
                )
        return super().structure_message(data)

    def handle_message(self, message):
        if isinstance(message, UnreadableRequest):
            self._send_response(message.id, None, message.error)
            return
        super().handle_message(message)

    def answer_unreadable_body(self, error: Exception) -> bool:
        """Answer the request of a message body that is not JSON (``error`` is what
        ``json.loads`` raised on it: a JSONDecodeError or a UnicodeDecodeError) with ParseError,
        when the body's complete part names a request (an ``id`` and a ``method``). Returns
        True when it answered."""
        if isinstance(error, json.JSONDecodeError):
            text = error.doc
        elif isinstance(error, UnicodeDecodeError) and isinstance(error.object, bytes):
            text = error.object.decode("utf-8", errors="replace")
        else:
            return False
        members = _complete_members(text)
        msg_id, method = members.get("id"), members.get("method")
        if not isinstance(msg_id, int | str) or isinstance(msg_id, bool) \
                or not isinstance(method, str):
            return False
        log.warning("request %r (%s): its body is not valid JSON; answered with ParseError",
                    msg_id, method)
        self._send_response(msg_id, None, types.ResponseError(
            code=JsonRpcParseError.CODE,
            message=(f"{method}: the message is not valid JSON (does its Content-Length count "
                     "the body's bytes, in UTF-8?)"),
        ))
        return True
