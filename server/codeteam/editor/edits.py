"""Replacing one function in the document's current text, exactly.

The new function replaces the lines of the old one (first decorator to last body line) and
nothing else: every byte outside the span is kept, CRLF files stay CRLF, and a file without a
final newline keeps that. The edit is a single TextEdit over whole lines, so its range is
exact in any position encoding (a line's end is converted when the span ends the file).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from lsprotocol import types

from codeteam.editor.positions import line_end_units, split_lines
from codeteam.pysource.functions import (
    FunctionInfo,
    SourceError,
    function_text,
    indent_function,
    line_ending,
    locate,
    replace_span,
)


@dataclass(frozen=True)
class Replacement:
    """The function ``start_line..end_line`` (0-based, inclusive) of ``old_text`` replaced by
    ``new_function`` (as inserted: the document's line endings, the old indentation);
    ``new_text`` is the whole document afterwards."""

    start_line: int
    end_line: int
    old_function: str
    new_function: str
    new_text: str
    to_line_start: bool
    """True: the range ends at the start of the line after the span; False: the span is the
    last line of a file without a final newline and the range ends at that line's end."""


def plan_replacement(text: str, info: FunctionInfo, code: str) -> Replacement | None:
    """The replacement of function ``info`` of ``text`` by ``code`` (a function at column 0),
    or None when the result would be the same text."""
    lines = split_lines(text)
    new_function = indent_function(code, info.indent, line_ending(text))
    new_text = replace_span(text, info.start_line, info.end_line, new_function)
    if new_text == text:
        return None
    last = lines[info.end_line] if info.end_line < len(lines) else ""
    to_line_start = last.endswith(("\n", "\r"))
    if not to_line_start:
        new_function = new_function.rstrip("\r\n")
    return Replacement(
        start_line=info.start_line,
        end_line=info.end_line,
        old_function=function_text(text, info),
        new_function=new_function,
        new_text=new_text,
        to_line_start=to_line_start,
    )


def text_edit(replacement: Replacement, lines: list[str], encoding: str) -> types.TextEdit:
    """The TextEdit for ``replacement`` on a document whose lines are ``lines``."""
    start = types.Position(line=replacement.start_line, character=0)
    if replacement.to_line_start:
        end = types.Position(line=replacement.end_line + 1, character=0)
    else:
        end = types.Position(
            line=replacement.end_line,
            character=line_end_units(lines, replacement.end_line, encoding),
        )
    return types.TextEdit(range=types.Range(start=start, end=end), new_text=replacement.new_function)


def workspace_edit(
    uri: str, version: int | None, edit: types.TextEdit, *, document_changes: bool
) -> types.WorkspaceEdit:
    """A WorkspaceEdit with ``edit``: versioned ``documentChanges`` when the client supports
    them, else ``changes``."""
    if document_changes:
        return types.WorkspaceEdit(
            document_changes=[
                types.TextDocumentEdit(
                    text_document=types.OptionalVersionedTextDocumentIdentifier(
                        uri=uri, version=version
                    ),
                    edits=[edit],
                )
            ]
        )
    return types.WorkspaceEdit(changes={uri: [edit]})


def check_replacement(
    text: str, replacement: Replacement, qualname: str, signature: str
) -> Literal["applied", "missing", "misplaced"]:
    """How the edit shows in ``text`` (the document after the editor applied it):

    - "applied": the document parses and re-locating ``qualname`` with ``signature`` finds
      exactly one function, whose text is the new function;
    - "missing": the new function's text is not in the document (the editor skipped the
      edit, however it answered);
    - "misplaced": the text is there but not as that function (the editor applied the edit to
      out-of-date lines: Neovim 0.7.2 does so for unversioned edits and version 0).
    """
    if replacement.new_function not in text:
        return "missing"
    lf_text = text.replace("\r\n", "\n").replace("\r", "\n")
    try:
        located = locate(lf_text, qualname, signature)
    except (LookupError, SourceError):
        return "misplaced"
    expected = replacement.new_function.replace("\r\n", "\n").replace("\r", "\n")
    if function_text(lf_text, located).rstrip("\n") != expected.rstrip("\n"):
        return "misplaced"
    return "applied"
