"""The private pygls members codeteam relies on, all in editor/protocol.py (the adapter), one
test each: a pygls upgrade that renames or reshapes one fails here, by name, instead of
somewhere in an end-to-end run."""

from __future__ import annotations

import inspect

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.protocol import JsonRPCProtocol, LanguageServerProtocol
from pygls.workspace import Workspace

from codeteam.editor.protocol import CodeteamProtocol, LspWorkspace


def _server() -> LanguageServer:
    return LanguageServer("adapter-test", "0", protocol_cls=CodeteamProtocol)


def test_workspace_keeps_documents_in__text_documents():
    workspace = Workspace(None)
    workspace.put_text_document(types.TextDocumentItem(uri="file:///a.py", language_id="python",
                                                      version=1, text="x = 1\n"))
    assert list(workspace._text_documents) == ["file:///a.py"]


def test_workspace_has__sync_kind():
    workspace = Workspace(None, sync_kind=types.TextDocumentSyncKind.Full)
    assert workspace._sync_kind == types.TextDocumentSyncKind.Full


def test_protocol_has__workspace_and__server():
    server = _server()
    protocol = server.protocol
    assert protocol._server is server
    assert hasattr(protocol, "_workspace")


def test_server_has__text_document_sync_kind():
    assert isinstance(_server()._text_document_sync_kind, types.TextDocumentSyncKind)


def test__handle_cancel_notification_takes_the_message_id():
    parameters = list(inspect.signature(JsonRPCProtocol._handle_cancel_notification).parameters)
    assert parameters == ["self", "msg_id"]
    assert CodeteamProtocol._handle_cancel_notification is not (
        LanguageServerProtocol._handle_cancel_notification
    )


def test_protocol_msg_id_is_the_request_being_handled():
    # Public, but the run's cancel bookkeeping depends on its meaning: the id of the request
    # whose handler is running (a context variable), None outside a handler.
    assert isinstance(JsonRPCProtocol.msg_id, property)
    assert _server().protocol.msg_id is None


def test_lsp_workspace_copies_a_pygls_workspace():
    plain = Workspace("file:///root", sync_kind=types.TextDocumentSyncKind.Incremental)
    copied = LspWorkspace.like(plain, types.TextDocumentSyncKind.Incremental)
    assert copied.root_uri == "file:///root"
    assert copied._sync_kind == types.TextDocumentSyncKind.Incremental


def test_protocol_has__converter_and__send_response():
    protocol = _server().protocol
    assert hasattr(protocol._converter, "structure")
    parameters = list(inspect.signature(JsonRPCProtocol._send_response).parameters)
    assert parameters == ["self", "msg_id", "result", "error"]


def test_the_reader_loop_reads_lines_and_bodies_from_the_stream_it_is_given():
    # pygls.io_.run_async: headers by readline(), bodies by readexactly(n), which pygls's
    # StdinAsyncReader maps to the stream's read(n): codeteam's ResyncingStream sits there.
    from pygls import io_

    source = inspect.getsource(io_.run_async)
    assert "reader.readline()" in source and "reader.readexactly(content_length)" in source
    reader_source = inspect.getsource(io_.StdinAsyncReader)
    assert "self.stdin.readline" in reader_source and "self.stdin.read, n" in reader_source
    assert "json.loads(body, object_hook=protocol.structure_message)" in source


def test_a_resyncing_stream_starts_a_line_at_its_header():
    import io

    from codeteam.editor.protocol import ResyncingStream

    stream = ResyncingStream(io.BytesIO(b'"}}Content-Length: 2\r\n\r\n{}'))
    assert stream.readline() == b"Content-Length: 2\r\n"
    assert stream.dropped_bytes == 3
    assert stream.readline() == b"\r\n" and stream.read(2) == b"{}"


def test_a_resyncing_stream_ends_a_body_at_the_next_header():
    import io

    from codeteam.editor.protocol import ResyncingStream

    def frames(data: bytes, size: int) -> list[bytes]:
        stream = ResyncingStream(io.BytesIO(data))
        return [stream.read(size), stream.readline(), stream.readline(), stream.read(2)]

    following = b"Content-Length: 2\r\n\r\n{}"
    for size in (2, 3, 4, 12, 10**14):  # exact, a header cut after 1, 2 bytes, 10 over, absurd
        assert frames(b"{}" + following, size) == [b"{}", b"Content-Length: 2\r\n", b"\r\n",
                                                   b"{}"], size
    # A body may hold the header's words, just not the raw header line.
    body = b'{"a": "Content-Length: 2"}'
    assert frames(body + following, len(body))[0] == body


def _pipe_reader(data: bytes):
    import asyncio

    from codeteam.editor.protocol import PipeReader, ResyncingStream

    reader = asyncio.StreamReader(limit=16)  # lines longer than the limit are read too
    reader.feed_data(data)
    reader.feed_eof()
    return PipeReader(ResyncingStream(None), reader)


async def test_the_pipe_reader_frames_like_the_resyncing_stream():
    # The loop's own reader of stdin (no thread per read) runs the same steps.
    reader = _pipe_reader(b'"}}Content-Length: 2\r\n\r\n{}')
    assert await reader.readline() == b"Content-Length: 2\r\n"
    assert reader.stream.dropped_bytes == 3
    assert await reader.readline() == b"\r\n" and await reader.readexactly(2) == b"{}"
    following = b"Content-Length: 2\r\n\r\n{}"
    body = b'{"a": "Content-Length: 2", "b": "a body longer than the limit"}'
    for size in (len(body), len(body) + 1, len(body) + 12, 10**14):
        reader = _pipe_reader(body + following)
        assert [await reader.readexactly(size), await reader.readline(),
                await reader.readline(), await reader.readexactly(2)] == [
            body, b"Content-Length: 2\r\n", b"\r\n", b"{}"], size
    reader = _pipe_reader(b"x" * 100 + b"\n" + b"tail")
    assert await reader.readline() == b"x" * 100 + b"\n"
    assert await reader.readline() == b"tail" and await reader.readline() == b""


async def test_the_pipe_reader_hears_each_body_and_is_only_used_on_a_pipe(tmp_path, monkeypatch):
    import os

    from codeteam.editor import protocol

    heard = []
    reader = _pipe_reader(b"{}")
    reader.stream.on_body = heard.append
    assert await reader.readexactly(2) == b"{}" and heard == [b"{}"]
    stream = protocol.ResyncingStream(None)
    (tmp_path / "f").write_bytes(b"")
    with (tmp_path / "f").open("rb") as regular:
        assert await protocol.open_pipe_reader(stream, regular) is None
    read_end, write_end = os.pipe()
    with os.fdopen(read_end, "rb") as pipe:
        try:
            opened = await protocol.open_pipe_reader(stream, pipe)
            assert isinstance(opened, protocol.PipeReader)
            opened.close()
            monkeypatch.setenv(protocol.THREAD_READER_ENV, "1")
            assert await protocol.open_pipe_reader(stream, pipe) is None
        finally:
            os.close(write_end)


def test_serve_stdio_follows_pygls_start_io():
    # serve_stdio replaces JsonRPCServer._start_io_async: the same writer, stop event and
    # reader loop (a pygls that changes them needs serve_stdio changed too).
    from pygls.server import JsonRPCServer

    source = inspect.getsource(JsonRPCServer._start_io_async)
    for part in ("self._stop_event = Event()",
                 "StdinAsyncReader(stdin or sys.stdin.buffer, self.thread_pool)",
                 "StdoutWriter(stdout or sys.stdout.buffer)",
                 "self.protocol.set_writer(writer)", "run_async(", "self.shutdown()"):
        assert part in source, part
