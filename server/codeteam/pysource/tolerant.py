"""Finding one function in a module that does not parse as a whole.

While a team works (seconds to minutes) the user keeps typing: when the result arrives, some
other function may hold a half-typed line (``result = max(``) and the module does not parse.
:func:`locate_tolerant` still finds the target, within the part of the module that holds it:

1. the whole module, when it parses (exactly :func:`~codeteam.pysource.functions.locate`);
2. else, for each ``def NAME`` line outside string literals (found with :mod:`tokenize`, which
   keeps going past most errors), the *top-level block* holding it: from the nearest statement
   at column 0 at or above it (its decorators kept with it) to the line before the next one;
3. when that block does not parse, the window from the block's first line to the function's
   last line (by indentation), with broken sibling statements before the function (another
   method of the same class, half-typed) replaced by ``pass`` line for line, a few times.

:func:`parseable_module` gives a run the same tolerance: the module with every top-level block
that does not parse blanked out, line for line, so that a function can be planned, generated
and tested while another one is half-typed.

Every candidate is checked by :mod:`ast`: a block or window that does not parse is never
guessed at. A ``def NAME`` line whose surroundings do not parse counts as a possible second
definition, so the lookup refuses (:class:`SourceError`) rather than risk editing the wrong
function. Lines are 0-based; the returned :class:`FunctionInfo` is in the whole text's lines.
"""

from __future__ import annotations

import dataclasses
import io
import re
import tokenize

from codeteam.pysource.functions import (
    AmbiguousFunction,
    FunctionInfo,
    FunctionNotFound,
    SourceError,
    find_functions,
    leading_whitespace,
    locate,
    split_lines,
)
from codeteam.pysource.syntax import parse_tree

_CONTINUATION = re.compile(r"(?:else|elif|except|finally)\b")
_CLOSING = ")]}"
_SIBLING_REPAIRS = 8
"""How many broken statements before the function a window may have replaced by ``pass``."""


def locate_tolerant(source: str, qualname: str, signature: str | None = None) -> FunctionInfo:
    """Find the function ``qualname`` (with ``signature``, if given) in ``source``, also when
    the module does not parse because of code elsewhere (see the module docstring).

    Raises :class:`FunctionNotFound`, :class:`AmbiguousFunction`, or :class:`SourceError` when
    the function's own part of the module does not parse, or a ``def`` of the same name sits
    in a part that does not parse (it might be a second definition).
    """
    try:
        return locate(source, qualname, signature)
    except SourceError as error:
        module_error = error
    return _locate_in_parts(source, qualname, signature, module_error)


@dataclasses.dataclass
class _Lines:
    """The text's lines (LF endings) and which of them start inside a string literal."""

    lines: list[str]
    in_string: list[bool]

    def is_code(self, index: int) -> bool:
        """Line ``index`` holds code: not blank, not only a comment, not inside a string."""
        text = self.lines[index].strip()
        return bool(text) and not text.startswith("#") and not self.in_string[index]

    def previous_code(self, index: int) -> int | None:
        for row in range(index - 1, -1, -1):
            if self.is_code(row):
                return row
        return None

    def continues(self, index: int) -> bool:
        """Line ``index`` continues the previous code line: a closing bracket first, a
        backslash at the previous line's end, or a ``def``/``class`` under a decorator."""
        text = self.lines[index].lstrip(" \t\f")
        if text[:1] in _CLOSING:
            return True
        previous = self.previous_code(index)
        if previous is None:
            return False
        before = self.lines[previous].rstrip("\n")
        if before.endswith("\\") or before.lstrip(" \t\f").startswith("@"):
            return True
        # A def/class under a decorator that spans lines (``@retry(\n    times=3)``, or
        # black's ``@retry(\n    times=3,\n)`` with the bracket closed at column 0).
        if re.match(r"(?:async[ \t]+)?def\b|class\b|@", text):
            margin = self.indent(index)
            for row in range(previous, -1, -1):
                if not self.is_code(row) or self.indent(row) > margin:
                    continue
                if self.lines[row].lstrip(" \t\f")[:1] in _CLOSING:
                    continue  # a closing bracket: the statement it closes began above
                return self.lines[row].lstrip(" \t\f").startswith("@")
        return False

    def indent(self, index: int) -> int:
        return len(leading_whitespace(self.lines[index]))

    def is_head(self, index: int) -> bool:
        """Line ``index`` starts a top-level statement (column 0, not a continuation)."""
        line = self.lines[index]
        if not self.is_code(index) or line[:1] in " \t\f" or _CONTINUATION.match(line):
            return False
        return not self.continues(index)


@dataclasses.dataclass(frozen=True)
class ParseableModule:
    """``text``: the module (LF line endings) with the top-level blocks that do not parse
    replaced by empty lines (same line count); ``left_out``: those blocks as 0-based inclusive
    ``(first, last)`` line ranges, empty when the module parsed as is."""

    text: str
    left_out: list[tuple[int, int]]

    def describe(self) -> str:
        """``lines 4-9 and 20`` (1-based), for messages."""
        parts = [f"{a + 1}" if a == b else f"{a + 1}-{b + 1}" for a, b in self.left_out]
        joined = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
        return ("lines " if len(parts) > 1 or "-" in parts[0] else "line ") + joined

    def run_note(self) -> str | None:
        """The note a run made on this module carries, None when nothing was left out."""
        if not self.left_out:
            return None
        return (f"code that does not parse ({self.describe()}) was left out of the prompt and "
                "the tests")

    def block_holding(
        self, source: str, qualname: str, signature: str | None = None
    ) -> tuple[int, int] | None:
        """The left-out block (0-based inclusive lines) in which ``source`` (the module this
        was made from) defines ``qualname``, found by :func:`locate_tolerant` (or a ``def`` of
        its name there that does not parse itself); None when it is not defined in one."""
        if not self.left_out:
            return None
        try:
            line = locate_tolerant(source, qualname, signature).def_line
        except SourceError as error:
            line = error.line
        except LookupError:
            return None
        for first, last in self.left_out:
            if line is not None and first <= line <= last:
                return first, last
        return None


def parseable_module(source: str) -> ParseableModule:
    """``source`` when it parses, else ``source`` with each top-level block (a statement at
    column 0 with its decorators and everything indented under it) that does not parse on its
    own blanked out. Raises :class:`SourceError` (the module's own error) when the rest still
    does not parse, e.g. an unterminated triple-quoted string runs to the end of the file."""
    text = source.replace("\r\n", "\n").replace("\r", "\n")
    try:
        parse_tree(text)
        return ParseableModule(text, [])
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        module_error = error
    lines = _Lines(split_lines(text), _string_lines(text))
    heads = [row for row in range(len(lines.lines)) if lines.is_head(row)]
    out = list(lines.lines)
    left_out = []
    for index, head in enumerate(heads):
        start = 0 if index == 0 else head
        end = heads[index + 1] - 1 if index + 1 < len(heads) else len(lines.lines) - 1
        try:
            parse_tree("".join(lines.lines[start : end + 1]))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            for row in range(start, end + 1):
                out[row] = "\n" if lines.lines[row].endswith("\n") else ""
            left_out.append((start, end))
    text = "".join(out)
    try:
        parse_tree(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        line = getattr(module_error, "lineno", None)
        reason = getattr(module_error, "msg", None) or str(module_error)
        raise SourceError(
            f"line {line}: {reason}" if line else reason, line - 1 if line else None
        ) from module_error
    return ParseableModule(text, left_out)


def _locate_in_parts(
    source: str, qualname: str, signature: str | None, module_error: SourceError
) -> FunctionInfo:
    text = source.replace("\r\n", "\n").replace("\r", "\n")  # same lines, one ending
    lines = _Lines(split_lines(text), _string_lines(text))
    name = qualname.rsplit(".", 1)[-1]
    header = re.compile(rf"[ \t\f]*(?:async[ \t]+)?def[ \t]+{re.escape(name)}\b")
    found: list[FunctionInfo] = []
    unreadable: list[tuple[int, SourceError]] = []
    for row, line in enumerate(lines.lines):
        if lines.in_string[row] or not header.match(line):
            continue
        try:
            function = _function_at(lines, row)
        except SourceError as error:
            unreadable.append((row, error))
            continue
        if function.qualname == qualname:
            found.append(function)
    same = [f for f in found if signature is None or f.signature == signature]
    if unreadable:
        row, error = unreadable[0]
        raise SourceError(
            f"the code around line {row + 1} (`def {name}`) does not parse ({error})", row
        )
    if len(same) > 1:
        rows = ", ".join(str(f.def_line + 1) for f in same)
        raise AmbiguousFunction(f"{qualname} is defined more than once (lines {rows})")
    if same:
        return same[0]
    if found:
        raise FunctionNotFound(
            f"{qualname} is there but its signature changed "
            f"(now `{found[0].signature}`, was `{signature}`)"
        )
    raise FunctionNotFound(f"no function named {qualname} in the document ({module_error})")


def _function_at(lines: _Lines, def_row: int) -> FunctionInfo:
    """The function whose ``def`` is on line ``def_row``, from the smallest part of the module
    around it that parses. Raises :class:`SourceError` when none does."""
    start = next((row for row in range(def_row, -1, -1) if lines.is_head(row)), 0)
    end = next(
        (row - 1 for row in range(def_row + 1, len(lines.lines)) if lines.is_head(row)),
        len(lines.lines) - 1,
    )
    block = lines.lines[start : end + 1]
    try:
        return _defined_at(block, start, def_row)
    except SourceError as error:
        block_error = error
    last = _function_end(lines, def_row)
    window = lines.lines[start : last + 1]
    for _ in range(_SIBLING_REPAIRS):
        try:
            return _defined_at(window, start, def_row)
        except SourceError as error:
            if error.line is None or not _blank_sibling(lines, window, start, def_row, error.line):
                break
    raise block_error


def _defined_at(part: list[str], offset: int, def_row: int) -> FunctionInfo:
    """The function of ``part`` (lines ``offset``... of the text) defined on ``def_row``."""
    try:
        functions = find_functions("".join(part))
    except (ValueError, RecursionError, MemoryError) as error:
        raise SourceError(str(error)) from error
    except SourceError as error:
        if error.line is None:
            raise
        line = error.line + offset
        reason = getattr(error.__cause__, "msg", None) or str(error)
        raise SourceError(f"line {line + 1}: {reason}", line) from error
    for function in functions:
        if function.def_line + offset == def_row:
            return _shifted(function, offset)
    raise SourceError(f"no function defined at line {def_row + 1}", def_row)


def _shifted(info: FunctionInfo, offset: int) -> FunctionInfo:
    span = info.docstring_lines
    return dataclasses.replace(
        info,
        start_line=info.start_line + offset,
        def_line=info.def_line + offset,
        end_line=info.end_line + offset,
        body_start_line=info.body_start_line + offset,
        docstring_lines=None if span is None else (span[0] + offset, span[1] + offset),
    )


def _function_end(lines: _Lines, def_row: int) -> int:
    """The last line of the function defined on ``def_row``, by indentation: the line before
    the next code line indented no deeper than the ``def`` (continuations excepted)."""
    indent = lines.indent(def_row)
    last = def_row
    for row in range(def_row + 1, len(lines.lines)):
        if not lines.is_code(row):
            continue
        if lines.indent(row) <= indent and not lines.continues(row):
            break
        last = row
    return last


def _blank_sibling(
    lines: _Lines, window: list[str], offset: int, def_row: int, error_row: int
) -> bool:
    """Replace, in ``window`` (lines ``offset``... of the text), the statement holding line
    ``error_row`` by ``pass`` and blank lines, when it is a sibling before the function on
    ``def_row`` (a statement indented like the ``def``). Returns False when it is not."""
    indent = lines.indent(def_row)
    first = error_row
    while first > offset and (
        not lines.is_code(first) or lines.indent(first) > indent or lines.continues(first)
    ):
        first -= 1
    if first <= offset or not lines.is_code(first) or lines.indent(first) != indent:
        return False
    while first - 1 > offset and lines.is_code(first - 1) and lines.lines[first - 1].lstrip(
        " \t\f"
    ).startswith("@") and lines.indent(first - 1) == indent:
        first -= 1
    after = first + 1
    while after < def_row and not (
        lines.is_code(after) and lines.indent(after) <= indent and not lines.continues(after)
    ):
        after += 1
    target_start = def_row  # the function's first decorator
    while (previous := lines.previous_code(target_start)) is not None and previous > first and (
        lines.lines[previous].lstrip(" \t\f").startswith("@")
    ):
        target_start = previous
    if error_row >= target_start or after > target_start:
        return False
    margin = leading_whitespace(lines.lines[first])
    window[first - offset] = f"{margin}pass\n"
    for row in range(first + 1, after):
        window[row - offset] = "\n"
    return True


def _string_lines(text: str) -> list[bool]:
    """For each line of ``text`` (LF endings): True when it starts inside a string literal,
    as :mod:`tokenize` reads it. Tokenizing restarts after a line it cannot read; after an
    unterminated triple-quoted string every line counts as inside it."""
    lines = split_lines(text)
    inside = [False] * len(lines)
    fstring_start = getattr(tokenize, "FSTRING_START", None)
    fstring_end = getattr(tokenize, "FSTRING_END", None)
    start = 0
    while start < len(lines):
        readline = io.StringIO("".join(lines[start:])).readline
        last_row = 1
        open_fstrings: list[int] = []
        try:
            for token in tokenize.generate_tokens(readline):
                if token.type == tokenize.STRING:
                    first_row = token.start[0]
                elif fstring_start is not None and token.type == fstring_start:
                    open_fstrings.append(token.start[0])
                    last_row = token.end[0]
                    continue
                elif fstring_end is not None and token.type == fstring_end and open_fstrings:
                    first_row = open_fstrings.pop()
                else:
                    if not open_fstrings:
                        last_row = token.end[0]
                    continue
                for row in range(first_row, token.end[0]):  # 1-based rows after the first
                    inside[start + row] = True
                if not open_fstrings:
                    last_row = token.end[0]
            return inside
        except (tokenize.TokenError, SyntaxError) as error:
            message = str(error.args[0]) if error.args else ""
            if "string" in message and ("multi-line" in message or "triple" in message
                                        or "EOF" in message):
                # An unterminated long string: everything after the last token read is in it.
                for row in range(start + last_row, len(lines)):
                    inside[row] = True
                return inside
            if isinstance(error, tokenize.TokenError):
                return inside  # EOF inside brackets: every token was read
            row = getattr(error, "lineno", None) or last_row
            start += max(row - 1, 1)  # go on from the line that could not be read
    return inside
