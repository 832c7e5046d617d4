"""didOpen, didChange, didClose: wake waiters, keep diagnostics on their functions (or clear
them when a function's text changes), forget closed documents."""

from __future__ import annotations

import re

from lsprotocol import types

from codeteam.editor.server import CodeteamServer

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def line_shifts(
    changes: list[types.TextDocumentContentChangeEvent],
) -> list[tuple[int, int]] | None:
    """For each change in order: (the last line it touched, lines added minus lines removed);
    None when a change replaces the whole text."""
    shifts: list[tuple[int, int]] = []
    for change in changes:
        if not isinstance(change, types.TextDocumentContentChangePartial):
            return None
        start, end = change.range.start.line, change.range.end.line
        shifts.append((end, len(_LINE_BREAK.findall(change.text)) - (end - start)))
    return shifts


def register(server: CodeteamServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: CodeteamServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.watch.changed(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: CodeteamServer, params: types.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.watch.changed(uri)
        if not ls.diagnostics.functions(uri):
            return
        document = ls.open_document(uri)
        if document is None:
            return
        shifts = line_shifts(list(params.content_changes))
        if ls.diagnostics.follow_changes(
            uri, document.source, ls.document_lines(document), shifts
        ):
            ls.publish_diagnostics(uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: CodeteamServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.outline.forget(uri)
        ls.watch.changed(uri)
        if ls.diagnostics.drop_document(uri):
            ls.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
            )
