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
