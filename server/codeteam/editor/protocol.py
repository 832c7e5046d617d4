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
  header, dropping the bytes before it, so the next message is read again. A Content-Length
  larger than the body is found the same way: the body is read as it arrives (never
  allocated at its announced size, which raised MemoryError for 10^14 and ended the server)
  and ends where the next header starts (a JSON body never holds the raw bytes
  ``Content-Length: N\r\n``).
- Messages that are not JSON-RPC 2.0 requests but carry an id (no ``"jsonrpc": "2.0"``, an
  id that is an object or a list, a method that is not a string, a batch, which LSP does not
  have), a request after ``shutdown`` (LSP: "should error with InvalidRequest") and a body
  nested too deeply for the JSON decoder (RecursionError) are answered too: InvalidRequest
  (-32600), or ParseError for the last; pygls dropped each of them.

This module is the one place that touches pygls's private members; each has a test in
tests/editor/test_pygls_adapter.py: ``Workspace._text_documents`` and ``._sync_kind``,
``LanguageServerProtocol._workspace`` and ``._server``, ``LanguageServer._text_document_sync_kind``,
``JsonRPCProtocol._handle_cancel_notification(msg_id)``, ``._converter``, ``._send_response``,
the reader loop's use of ``readline``/``read`` (pygls.io_.run_async), and
``JsonRPCServer._start_io_async`` (its ``_stop_event``, ``thread_pool``), which
:func:`serve_stdio` replaces to read a stdin pipe on the event loop (:class:`PipeReader`).
"""

from __future__ import annotations

import asyncio
import collections
import json
import logging
import os
import re
import stat
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any, BinaryIO
from urllib.parse import unquote

import cattrs
from cattrs.v import format_exception
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams, JsonRpcInvalidRequest, JsonRpcParseError
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
_HEADER_LINE = re.compile(rb"Content-Length: \d+\r\n")
_HEADER_LINE_MAX = 40
"""At most the bytes of a header line (``Content-Length: `` and 20 digits and CRLF)."""
READ_CHUNK = 1 << 20
"""Bytes asked of the stream at a time while a body is read (1 MiB)."""


_HEADER_PART = re.compile(rb"Content-Length: \d*\r?")


def _starts_a_header(rest: bytes) -> bool:
    """Whether ``rest`` is the start of a header line, without its end."""
    if len(rest) <= len(b"Content-Length: "):
        return b"Content-Length: ".startswith(rest)
    return _HEADER_PART.fullmatch(rest) is not None


def _ends_in_a_header(body: bytearray, size: int) -> bool:
    """Whether the bytes from some place before ``size`` to the end of ``body`` are the start
    of a header line (more bytes are needed to tell). Never so for a body of exactly
    ``size`` bytes that is JSON: JSON text ends in ``}``, ``]``, a quote, a digit, a letter
    of ``true``/``false``/``null`` or white space, never inside such a start."""
    low = max(0, size - _HEADER_LINE_MAX)
    at = body.rfind(b"C", low, size)
    while at >= 0:
        if _starts_a_header(bytes(body[at:at + _HEADER_LINE_MAX + 1])):
            return True
        at = body.rfind(b"C", low, at)
    return False


_LINE = -1
"""What a :class:`ResyncingStream` step asks for: a line (any other number: up to that many
bytes as they arrive)."""

Steps = Generator[int, bytes, bytes]
"""A read of :class:`ResyncingStream` as steps: each yields what it needs from the stream
(:data:`_LINE` or a byte count), is sent those bytes, and returns what the read gives."""


class ResyncingStream:
    """A binary stream (``readline``, ``read``) over ``stream`` that finds the framing again
    after a message whose Content-Length did not match its body:

    - a line starts at a ``Content-Length:`` header when one appears inside it (the bytes
      before it, the rest of a body whose Content-Length was too small, are dropped and
      logged: a JSON body holds no raw line break inside a string, so a header can only be
      inside a line when the framing was lost);
    - ``read(n)`` returns the body as it arrives, at most ``n`` bytes, and stops before a
      header line it holds (``Content-Length: N\r\n``, which no JSON text contains: the
      Content-Length was too large), leaving that header to the next ``readline``. Memory
      grows with the bytes that arrived, not with ``n``.

    ``on_body`` (optional) hears each body read, for the protocol to answer one the JSON
    decoder cannot read.

    The reads are written as steps (:data:`Steps`) that do no I/O: :meth:`readline` and
    :meth:`read` run them on the blocking ``stream``; :class:`PipeReader` runs the same
    steps on the event loop's own reading of a pipe."""

    def __init__(self, stream: BinaryIO | None,
                 on_body: Callable[[bytes], None] | None = None) -> None:
        self._stream = stream
        self._pending = b""
        """Bytes read from the stream that belong to what comes next."""
        self.on_body = on_body
        self.dropped_bytes = 0
        """Bytes dropped so far to find a header."""

    # The blocking stream (pygls reads it through its executor).

    def readline(self) -> bytes:
        return self._blocking(self.readline_steps())

    def read(self, size: int = -1) -> bytes:
        if size < 0:
            assert self._stream is not None
            body = self._pending + self._stream.read()
            self._pending = b""
            return self.heard(body)
        return self.heard(self._blocking(self.read_steps(size)))

    def _blocking(self, steps: Steps) -> bytes:
        assert self._stream is not None
        try:
            wanted = next(steps)
            while True:
                if wanted == _LINE:
                    wanted = steps.send(self._stream.readline())
                else:
                    read1 = getattr(self._stream, "read1", None)
                    wanted = steps.send(read1(wanted) if read1 is not None
                                        else self._stream.read(wanted))
        except StopIteration as done:
            return done.value

    # The steps.

    def heard(self, body: bytes) -> bytes:
        """``body`` after ``on_body`` heard it."""
        if self.on_body is not None:
            self.on_body(body)
        return body

    def _next_line(self) -> Steps:
        if not self._pending:
            return (yield _LINE)
        end = self._pending.find(b"\n") + 1
        if end:
            line, self._pending = self._pending[:end], self._pending[end:]
            return line
        line, self._pending = self._pending, b""
        return line + (yield _LINE)

    def readline_steps(self) -> Steps:
        """A line (see the class), as steps."""
        line = yield from self._next_line()
        at = line.find(HEADER)
        if at > 0:
            self.dropped_bytes += at
            log.warning("dropped %d bytes before a Content-Length header (a message's "
                        "Content-Length did not match its body)", at)
            return line[at:]
        return line

    def read_steps(self, size: int) -> Steps:
        """A body of at most ``size`` bytes (see the class), as steps; ``on_body`` is not
        called (:meth:`heard`)."""
        body = bytearray(self._pending)
        self._pending = b""
        searched = 0
        while True:
            header = _HEADER_LINE.search(body, searched, size + _HEADER_LINE_MAX)
            if header is not None and header.start() < size:
                log.warning("a message body ended %d bytes before its Content-Length (%d): "
                            "the next message's header came first", size - header.start(),
                            size)
                # Never empty: pygls's reader ends the server on an empty body.
                return self._keep_after(body, header.start()) or b" "
            if len(body) >= size and not _ends_in_a_header(body, size):
                return self._keep_after(body, size)
            chunk = yield min(READ_CHUNK, max(size - len(body), _HEADER_LINE_MAX))
            if not chunk:  # the end of the input
                return self._keep_after(body, size)
            searched = max(0, len(body) - _HEADER_LINE_MAX)
            body += chunk

    def _keep_after(self, body: bytearray, end: int) -> bytes:
        """``body[:end]``; what follows is kept for the next read."""
        self._pending = bytes(body[end:])
        return bytes(body[:end])

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class PipeReader:
    """pygls's reader interface (``readline()`` and ``readexactly(n)``, awaited by
    ``pygls.io_.run_async``) over a pipe the event loop reads itself, with the framing of a
    :class:`ResyncingStream` (``stream``, whose own blocking stream is not used).

    pygls's own reader runs each ``readline`` and ``read`` of the blocking stream in a thread
    of its executor: three thread hand-offs per message (header, blank line, body), each a
    wake-up of a thread and a GIL hand-over, while the runs' threads want the GIL too. Here a
    message costs the loop one wake-up. See :func:`open_pipe_reader`."""

    def __init__(self, stream: ResyncingStream, reader: asyncio.StreamReader,
                 transport: asyncio.BaseTransport | None = None) -> None:
        self.stream = stream
        self.reader = reader
        self.transport = transport

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()

    async def _run(self, steps: Steps) -> bytes:
        try:
            wanted = next(steps)
            while True:
                wanted = steps.send(await (self._line() if wanted == _LINE
                                           else self.reader.read(wanted)))
        except StopIteration as done:
            return done.value

    async def _line(self) -> bytes:
        """A line however long (up to and with ``\n``; at the end, what is left)."""
        parts = []
        while True:
            try:
                return b"".join(parts) + await self.reader.readuntil(b"\n")
            except asyncio.LimitOverrunError as error:
                parts.append(await self.reader.readexactly(error.consumed))
            except asyncio.IncompleteReadError as error:
                return b"".join(parts) + error.partial

    async def readline(self) -> bytes:
        return await self._run(self.stream.readline_steps())

    async def readexactly(self, n: int) -> bytes:
        return self.stream.heard(await self._run(self.stream.read_steps(n)))


def serve_stdio(server: Any, stdin: ResyncingStream, stdout: BinaryIO) -> None:
    """pygls's ``JsonRPCServer.start_io`` (its ``_start_io_async``), reading ``stdin`` with a
    :class:`PipeReader` where :func:`open_pipe_reader` can, else with pygls's reader (a
    thread per read); the messages go through pygls's own reader loop either way."""
    from threading import Event

    from pygls.io_ import StdinAsyncReader, StdoutWriter, run_async

    server._stop_event = Event()
    server.protocol.set_writer(StdoutWriter(stdout))

    async def serve() -> None:
        reader = await open_pipe_reader(stdin, stdin._stream)
        try:
            await run_async(stop_event=server._stop_event,
                            reader=reader or StdinAsyncReader(stdin, server.thread_pool),
                            protocol=server.protocol, logger=log,
                            error_handler=server.report_server_error)  # fmt: skip
        finally:
            if reader is not None:
                reader.close()

    try:
        asyncio.run(serve())
    except BrokenPipeError:
        log.error("Connection to the client is lost! Shutting down the server.")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()


async def open_pipe_reader(stream: ResyncingStream, pipe: BinaryIO) -> PipeReader | None:
    """A :class:`PipeReader` on ``pipe`` (the server's stdin) read by the running loop, or
    None where the loop cannot watch it: a regular file, a terminal (the loop would leave
    it non-blocking for the shell after the server), or :data:`THREAD_READER_ENV` set."""
    if os.environ.get(THREAD_READER_ENV) == "1":
        return None
    try:
        mode = os.fstat(pipe.fileno()).st_mode
    except (OSError, ValueError, AttributeError):
        return None
    if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
        return None
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=READ_CHUNK, loop=loop)
    try:
        transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), pipe)
    except (OSError, ValueError) as error:
        log.warning("stdin is read in a thread (%s)", error)
        return None
    return PipeReader(stream, reader, transport)


THREAD_READER_ENV = "CODETEAM_STDIN_THREAD"
"""Set to 1 to read stdin in threads as pygls does (:class:`PipeReader` is not used)."""


@dataclass(frozen=True)
class UnreadableRequest:
    """A request whose params do not structure into the method's type (or that is not a
    JSON-RPC 2.0 request); it is answered with ``error`` instead of running a handler."""

    id: MsgId | None
    method: str
    error: types.ResponseError
    jsonrpc: str = "2.0"


def _invalid_request(msg_id: Any, message: str) -> UnreadableRequest:
    if not isinstance(msg_id, int | float | str):
        msg_id = None
    log.warning("request %r: %s", msg_id, message)
    return UnreadableRequest(id=msg_id, method="", error=types.ResponseError(
        code=JsonRpcInvalidRequest.CODE, message=message))


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
        except (ValueError, RecursionError):  # the text breaks off (or nests too deep) here
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
        self.last_body: bytes = b""
        """The last message body read (:meth:`body_read`), for a body the decoder cannot
        read without saying what it was (RecursionError)."""

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
    def body_read(self, body: bytes) -> None:
        """Hear a message body before it is decoded (:class:`ResyncingStream`'s ``on_body``)."""
        self.last_body = body

    def structure_message(self, data: dict[str, Any]):
        """pygls's, except that a request whose params do not structure, whose id is not a
        string or a number or whose method is not a string becomes an
        :class:`UnreadableRequest` (answered by :meth:`handle_message`) instead of an
        exception (or a handler whose answer cannot be sent) that drops it."""
        if "jsonrpc" in data and "method" in data and "id" in data and "error" not in data:
            msg_id = data["id"]
            if not isinstance(msg_id, int | float | str | None):
                return _invalid_request(None, "the id of a request must be a string or a "
                                        f"number, got {type(msg_id).__name__}")
            if not isinstance(data["method"], str):
                return _invalid_request(msg_id, "the method of a request must be a string, "
                                        f"got {type(data['method']).__name__}")
            method = data["method"]
            request_type = self.get_message_type(method) or JsonRPCRequestMessage
            try:
                return self._converter.structure(data, request_type)
            except Exception as error:  # noqa: BLE001 - answered below, never dropped
                message = invalid_params_message(method or "the request", error)
                log.warning("request %r: %s", msg_id, message)
                return UnreadableRequest(
                    id=msg_id, method=method,
                    error=types.ResponseError(code=JsonRpcInvalidParams.CODE, message=message),
                )
        return super().structure_message(data)

    def handle_message(self, message):
        if isinstance(message, UnreadableRequest):
            if message.id is None:  # JSON-RPC: "id": null, which pygls would leave out
                self._send_data({"jsonrpc": self.VERSION, "id": None, "error": {
                    "code": message.error.code, "message": message.error.message}})
            else:
                self._send_response(message.id, None, message.error)
            return
        if isinstance(message, list):
            self._answer_batch(message)
            return
        if isinstance(message, dict):  # no "jsonrpc" member: pygls kept the plain object
            if "method" in message and "id" in message:
                self._answer_invalid(message["id"], 'not a JSON-RPC 2.0 request (it needs '
                                     '"jsonrpc": "2.0")')
            else:
                log.warning("dropped a message that is not JSON-RPC 2.0")
            return
        if not hasattr(message, "jsonrpc"):  # null, a number, a string
            log.warning("dropped a message that is not a JSON object")
            return
        is_request = hasattr(message, "method") and hasattr(message, "id")
        if is_request and message.jsonrpc != self.VERSION:
            self._answer_invalid(message.id, f"not a JSON-RPC 2.0 request (jsonrpc is "
                                 f"{str(message.jsonrpc)[:10]!r})")
            return
        if is_request and self._shutdown and message.method != types.EXIT:
            self._answer_invalid(message.id, f"{message.method}: the server is shutting down "
                                 "(shutdown was requested)")
            return
        super().handle_message(message)

    def _answer_batch(self, messages: list) -> None:
        """LSP has no batches: each request in one (at any depth) is answered with
        InvalidRequest; nothing in it runs."""
        for message in messages:
            if isinstance(message, list):
                self._answer_batch(message)
                continue
            msg_id = (message.get("id") if isinstance(message, dict)
                      else getattr(message, "id", None))
            method = (message.get("method") if isinstance(message, dict)
                      else getattr(message, "method", None))
            if method is not None and isinstance(msg_id, int | float | str):
                self._answer_invalid(msg_id, "LSP has no batches: send each request in a "
                                     "message of its own")
        log.warning("dropped a batch of %d messages (LSP has none)", len(messages))

    def _answer_invalid(self, msg_id: Any, message: str) -> None:
        self.handle_message(_invalid_request(msg_id, message))

    def answer_unreadable_body(self, error: Exception) -> bool:
        """Answer the request of a message body that is not JSON (``error`` is what
        ``json.loads`` raised on it: a JSONDecodeError, a UnicodeDecodeError or a RecursionError
        for :attr:`last_body`) with ParseError,
        when the body's complete part names a request (an ``id`` and a ``method``). Returns
        True when it answered."""
        if isinstance(error, json.JSONDecodeError):
            text = error.doc
        elif isinstance(error, UnicodeDecodeError) and isinstance(error.object, bytes):
            text = error.object.decode("utf-8", errors="replace")
        elif isinstance(error, RecursionError):  # nested too deeply: the body as it was read
            text = self.last_body.decode("utf-8", errors="replace")
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
