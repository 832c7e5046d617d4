"""The LSP edit of a planned :class:`~codeteam.editor.replacement.Replacement`: a single
TextEdit over whole lines, so its range is exact in any position encoding (a line's end is
converted when the span ends the file), in a WorkspaceEdit.
"""

from __future__ import annotations

from lsprotocol import types
from pygls.workspace import PositionCodec

from codeteam.editor.positions import strip_ending
from codeteam.editor.replacement import Replacement


def text_edit(replacement: Replacement, lines: list[str], encoding: str) -> types.TextEdit:
    """The TextEdit for ``replacement`` on a document whose lines are ``lines``."""
    start = types.Position(line=replacement.start_line, character=0)
    if replacement.to_line_start:
        end = types.Position(line=replacement.end_line + 1, character=0)
    else:
        end = types.Position(
            line=replacement.end_line,
            character=_line_end(lines, replacement.end_line, encoding),
        )
    return types.TextEdit(range=types.Range(start=start, end=end), new_text=replacement.new_function)


def _line_end(lines: list[str], line: int, encoding: str) -> int:
    """The length of 0-based ``line`` (without its ending) in code units of ``encoding``, by
    pygls's position codec; 0 past the end."""
    if 0 <= line < len(lines):
        return PositionCodec(encoding).client_num_units(strip_ending(lines[line]))
    return 0


def workspace_edit(
    uri: str,
    version: int | None,
    edit: types.TextEdit,
    *,
    document_changes: bool,
    annotation: tuple[str, types.ChangeAnnotation] | None = None,
) -> types.WorkspaceEdit:
    """A WorkspaceEdit with ``edit``: versioned ``documentChanges`` when the client supports
    them, else ``changes``. With ``annotation`` (its id and the change annotation; only with
    ``documentChanges``, where an edit can carry one) the edit is an AnnotatedTextEdit and the
    annotation is in ``changeAnnotations``: a preview the user confirms
    (:mod:`codeteam.editor.preview`)."""
    if document_changes:
        edits: list[types.TextEdit | types.AnnotatedTextEdit] = [edit]
        annotations = None
        if annotation is not None:
            annotation_id, change = annotation
            edits = [types.AnnotatedTextEdit(
                range=edit.range, new_text=edit.new_text, annotation_id=annotation_id
            )]
            annotations = {annotation_id: change}
        return types.WorkspaceEdit(
            document_changes=[
                types.TextDocumentEdit(
                    text_document=types.OptionalVersionedTextDocumentIdentifier(
                        uri=uri, version=version
                    ),
                    edits=edits,
                )
            ],
            change_annotations=annotations,
        )
    return types.WorkspaceEdit(changes={uri: [edit]})
