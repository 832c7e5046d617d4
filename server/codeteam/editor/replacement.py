"""Replacing one function in the document's current text, exactly.

The new function replaces the lines of the old one (first decorator to last body line) and
nothing else: every byte outside the span is kept, CRLF files stay CRLF and CR files CR, and a file without a
final newline keeps that. The edit that carries it is :mod:`codeteam.editor.edits`'s; this module
holds the text work alone (no LSP types), so that the parse worker
(:mod:`codeteam.editor.parsing`), which runs it, does not import lsprotocol.

A replacement that does not parse is never planned: the new code must parse, and the text
afterwards must hold it as one function at the old one's place, parsing as a whole when the
text did before (when another function is half-typed, the new function's own part of the
module must parse; see :func:`codeteam.pysource.tolerant.locate_tolerant`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from codeteam.editor.positions import split_lines
from codeteam.pysource.functions import (
    FunctionInfo,
    SourceError,
    find_functions,
    function_text,
    indent_function,
    line_ending,
    locate,
    parse,
    replace_span,
)
from codeteam.pysource.tolerant import locate_tolerant


class ReplacementError(ValueError):
    """The new code cannot replace the function (it does not parse, or the file would not);
    the message says why, for the user."""


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
    qualname: str
    """The new function's qualified name (the old one's, unless the code renamed it)."""
    signature: str
    """The new function's signature, as :func:`codeteam.pysource.functions.locate` takes it."""


def plan_replacement(text: str, info: FunctionInfo, code: str) -> Replacement | None:
    """The replacement of function ``info`` of ``text`` by ``code`` (a function at column 0),
    or None when the result would be the same text.

    Raises :class:`ReplacementError` when ``code`` does not parse or holds no single function,
    when the new text would not parse although ``text`` does, or when the new function's part
    of the new text does not parse or does not hold it at ``info``'s place.
    """
    name, signature = _new_function(code, info)
    parent = info.qualname.rpartition(".")[0]
    qualname = f"{parent}.{name}" if parent else name
    lines = split_lines(text)
    new_function = indent_function(code, info.indent, line_ending(text))
    new_text = replace_span(text, info.start_line, info.end_line, new_function)
    if new_text == text:
        return None
    _check_new_text(text, new_text, info.start_line, new_function, qualname, signature)
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
        qualname=qualname,
        signature=signature,
    )


def _new_function(code: str, info: FunctionInfo) -> tuple[str, str]:
    """The name and signature of the function ``code`` defines (the only top-level one, or the
    one named like ``info``)."""
    try:
        functions = find_functions(code.replace("\r\n", "\n").replace("\r", "\n"))
    except SourceError as error:
        raise ReplacementError(f"the new code does not parse ({_reason(error)})") from error
    top = [f for f in functions if "." not in f.qualname]
    if len(top) != 1:
        top = [f for f in top if f.name == info.name]
    if len(top) != 1:
        raise ReplacementError("the new code does not hold one function to put in its place")
    return top[0].name, top[0].signature


def _check_new_text(
    text: str, new_text: str, start_line: int, new_function: str, qualname: str, signature: str
) -> None:
    try:
        found = locate(new_text, qualname, signature)
    except SourceError as error:
        try:
            parse(text)
        except SourceError:
            pass  # the text did not parse before either (another function is half-typed)
        else:
            raise ReplacementError(
                f"the file would not parse with the new code ({_reason(error)})"
            ) from error
        try:
            found = locate_tolerant(new_text, qualname, signature)
        except (LookupError, SourceError) as error:
            raise ReplacementError(
                f"the new code does not parse in its place ({error})"
            ) from error
    except LookupError as error:
        raise ReplacementError(f"the new function is not found in its place ({error})") from error
    inside = start_line <= found.start_line < start_line + len(split_lines(new_function))
    if not inside or not same_function(function_text(new_text, found), new_function):
        raise ReplacementError(
            f"the new code does not make one function at line {start_line + 1} "
            f"(it would read as lines {found.start_line + 1}-{found.end_line + 1})"
        )


def _reason(error: SourceError) -> str:
    cause = error.__cause__
    if isinstance(cause, SyntaxError) and cause.lineno:
        return f"line {cause.lineno}: {cause.msg}"
    return str(error)


def _code_lines(text: str) -> list[str]:
    """The lines of ``text`` (LF endings, no final newline) without leading and trailing
    blank or comment-only lines (they lie outside a function's span as :mod:`ast` reads it)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")

    def code(line: str) -> bool:
        stripped = line.strip()
        return bool(stripped) and not stripped.startswith("#")

    first = next((i for i, line in enumerate(lines) if code(line)), len(lines))
    last = next((i for i in range(len(lines) - 1, -1, -1) if code(lines[i])), -1)
    return lines[first : last + 1]


def same_function(found: str, expected: str) -> bool:
    """True when ``found`` (a function's span in a document) is the function text
    ``expected``, line endings and surrounding blank or comment-only lines aside."""
    return _code_lines(found) == _code_lines(expected)


def check_replacement(text: str, replacement: Replacement) -> Literal[
    "applied", "missing", "misplaced"
]:
    """How the edit shows in ``text`` (the document after the editor applied it):

    - "applied": re-locating the new function (``replacement.qualname`` with its signature;
      in its own part of the module when another part does not parse) finds exactly one
      function, whose text is the new function;
    - "missing": the new function's text is not in the document (the editor skipped the
      edit, however it answered);
    - "misplaced": the text is there but not as that function (the editor applied the edit to
      out-of-date lines: Neovim 0.7.2 does so for unversioned edits and version 0).

    Text typed into the new function after the edit landed makes it "missing" here: the
    caller also watches the texts the document passes through (see
    :meth:`codeteam.editor.document_watch.DocumentWatch.expect`).
    """
    if replacement.new_function not in text:
        return "missing"
    lf_text = text.replace("\r\n", "\n").replace("\r", "\n")
    try:
        located = locate_tolerant(lf_text, replacement.qualname, replacement.signature)
    except (LookupError, SourceError):
        return "misplaced"
    if not same_function(function_text(lf_text, located), replacement.new_function):
        return "misplaced"
    return "applied"


def locate_and_plan(
    text: str, qualname: str, signature: str, code: str | None
) -> tuple[FunctionInfo, Replacement | None]:
    """The function in ``text`` and, with ``code``, its replacement (in the parse worker)."""
    located = locate_tolerant(text, qualname, signature)
    if code is None:
        return located, None
    return located, plan_replacement(text, located, code)
