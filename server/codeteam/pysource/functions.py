"""Finding, reading and replacing Python functions in source text with stdlib :mod:`ast`.

Lines here are 0-based and columns are code points of the line (Python ``str`` indices);
the editor layer converts to the client's position encoding. A function's span starts at its
first decorator (or ``def``/``async def``) and ends after the last line of its body, so that
replacing the span replaces the whole function and nothing else.
"""

from __future__ import annotations

import ast
import copy
import io
import re
import textwrap
import tokenize
from dataclasses import dataclass, field

from codeteam.pysource.syntax import parse_tree


class SourceError(Exception):
    """The source text cannot be analysed (e.g. a syntax error); ``line`` is 0-based or None."""

    def __init__(self, message: str, line: int | None = None):
        super().__init__(message)
        self.line = line


class FunctionNotFound(LookupError):
    """No function with the requested name (and signature) exists in the source."""


class AmbiguousFunction(LookupError):
    """More than one function matches the requested name and signature."""


@dataclass(frozen=True)
class FunctionInfo:
    """One function definition in a source text.

    ``start_line`` is the line of the first decorator (or of ``def``); ``end_line`` is the
    last line of the body (inclusive), ``def_line`` the line of ``def``. All 0-based.
    ``qualname`` is dotted through enclosing classes and functions (``Outer.method``,
    ``outer.<locals>.inner`` is written ``outer.inner``). ``signature`` is the normalised
    header text from ``def`` to the colon (``def f(a: int) -> str``), decorators excluded.
    """

    name: str
    qualname: str
    signature: str
    start_line: int
    def_line: int
    end_line: int
    indent: str
    is_async: bool
    docstring: str | None
    docstring_lines: tuple[int, int] | None
    body_start_line: int
    decorators: tuple[str, ...] = field(default=())

    def contains_line(self, line: int) -> bool:
        """True when 0-based ``line`` lies within the decorators, header or body."""
        return self.start_line <= line <= self.end_line


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def split_lines(text: str) -> list[str]:
    """Lines with their endings kept (``\\n``, ``\\r\\n`` or ``\\r``), like the editor sees them.

    Only these three end a line, as for Python's tokenizer (ast line numbers) and LSP;
    ``str.splitlines`` would also split at form feeds, ``\\x1c``-``\\x1e``, ``\\x85``,
    ``\\u2028`` and ``\\u2029``."""
    return _LINE.findall(text)


def line_ending(text: str) -> str:
    """The text's dominant line ending: ``"\\r\\n"``, ``"\\r"`` (old Mac files) or
    ``"\\n"``, whichever ends most lines (a tie goes to CRLF, then LF); ``"\\n"`` for a text
    of one line."""
    crlf = text.count("\r\n")
    cr, lf = text.count("\r") - crlf, text.count("\n") - crlf
    if crlf and crlf >= lf and crlf >= cr:
        return "\r\n"
    return "\r" if cr > lf else "\n"


def parse(source: str) -> ast.Module:
    """Parse ``source``; raise :class:`SourceError` with a 0-based line on a syntax error."""
    try:
        return parse_tree(source)
    except SyntaxError as error:
        line = (error.lineno - 1) if error.lineno else None
        where = f" at line {error.lineno}" if error.lineno else ""
        raise SourceError(f"the file does not parse{where}: {error.msg}", line) from error


def _signature(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """``def name(args) -> ret`` normalised by :func:`ast.unparse` (formatting, comments and
    decorators do not count), so that a reformatted header still matches."""
    clone = copy.copy(node)
    clone.decorator_list = []
    clone.body = [ast.Expr(ast.Constant(Ellipsis))]
    header = ast.unparse(clone).rsplit("\n", 1)[0]
    return header.removesuffix(":")


def _docstring_span(node: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[int, int] | None:
    if not node.body:
        return None
    first = node.body[0]
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        return first.lineno - 1, (first.end_lineno or first.lineno) - 1
    return None


def find_functions(source: str) -> list[FunctionInfo]:
    """Every function and method in ``source``, outermost first, in source order.

    Raises :class:`SourceError` when the source does not parse.
    """
    tree = parse(source)
    lines = split_lines(source)
    found: list[FunctionInfo] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                qualname = f"{prefix}{child.name}"
                start = min([d.lineno for d in child.decorator_list] + [child.lineno]) - 1
                end = (child.end_lineno or child.lineno) - 1
                def_line_text = lines[child.lineno - 1]
                indent = def_line_text[: len(def_line_text) - len(def_line_text.lstrip())]
                span = _docstring_span(child)
                body_start = (span[1] + 1) if span else child.body[0].lineno - 1
                found.append(
                    FunctionInfo(
                        name=child.name,
                        qualname=qualname,
                        signature=_signature(child),
                        start_line=start,
                        def_line=child.lineno - 1,
                        end_line=end,
                        indent=indent,
                        is_async=isinstance(child, ast.AsyncFunctionDef),
                        docstring=ast.get_docstring(child, clean=True),
                        docstring_lines=span,
                        body_start_line=body_start,
                        decorators=tuple(ast.unparse(d) for d in child.decorator_list),
                    )
                )
                visit(child, f"{qualname}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return found


def is_overload(info: FunctionInfo) -> bool:
    """True for an ``@overload`` (``@typing.overload``) stub."""
    return any(d.rsplit(".", 1)[-1] == "overload" for d in info.decorators)


def is_property_accessor(info: FunctionInfo) -> bool:
    """True for a property's setter or deleter (``@name.setter``, ``@name.deleter``)."""
    return any(d.endswith((".setter", ".deleter")) for d in info.decorators)


def locate(source: str, qualname: str, signature: str | None = None) -> FunctionInfo:
    """Find the function ``qualname`` (with ``signature``, if given) in ``source``.

    Used to re-locate a function in the document's *current* text before an edit. A function
    with ``@typing.overload`` stubs before it is one function (the implementation is found);
    of a property's getter, setter and deleter, the name alone finds the getter (the
    signature tells the others apart). Raises :class:`FunctionNotFound`, :class:`AmbiguousFunction`, or :class:`SourceError`.
    """
    candidates = [f for f in find_functions(source) if f.qualname == qualname]
    if signature is not None:
        same = [f for f in candidates if f.signature == signature]
        if not same and candidates:
            raise FunctionNotFound(
                f"{qualname} is there but its signature changed "
                f"(now `{candidates[0].signature}`, was `{signature}`)"
            )
        candidates = same
    if not candidates:
        raise FunctionNotFound(f"no function named {qualname} in the document")
    if len(candidates) > 1:
        # ``@overload`` stubs before the implementation: one function, the implementation.
        implementations = [f for f in candidates if not is_overload(f)]
        candidates = implementations if len(implementations) == 1 else candidates
    if len(candidates) > 1 and signature is None:
        # A property with a setter or deleter: by name alone, the getter.
        getters = [f for f in candidates if not is_property_accessor(f)]
        candidates = getters if len(getters) == 1 else candidates
    if len(candidates) > 1:
        lines = ", ".join(str(f.def_line + 1) for f in candidates)
        raise AmbiguousFunction(f"{qualname} is defined more than once (lines {lines})")
    return candidates[0]


def function_text(source: str, info: FunctionInfo) -> str:
    """The exact text of the function's span, line endings included."""
    lines = split_lines(source)
    return "".join(lines[info.start_line : info.end_line + 1])


_INDENT_CHARS = " \t\x0c"


def leading_whitespace(line: str) -> str:
    """The indentation of ``line``: its leading spaces, tabs and form feeds."""
    return line[: len(line) - len(line.lstrip(_INDENT_CHARS))]


def char_column(line: str, byte_column: int) -> int:
    """The ``str`` index in ``line`` of :mod:`ast`'s ``col_offset`` ``byte_column`` (a UTF-8
    byte offset)."""
    return len(line.encode("utf-8")[:byte_column].decode("utf-8", errors="ignore"))


def _common_prefix(texts: list[str]) -> str:
    if not texts:
        return ""
    low, high = min(texts), max(texts)
    size = 0
    while size < len(low) and low[size] == high[size]:
        size += 1
    return low[:size]


@dataclass
class _Layout:
    """What :mod:`tokenize` says about each line of a text (0-based lines)."""

    in_string: list[bool]
    """The line starts inside a string literal: its leading whitespace is the string's value."""
    starts: set[int]
    """Lines where a statement (a logical line) begins."""
    docstrings: list[range]
    """Continuation lines of docstring-like literals: a string that is a block's first
    statement. Their indentation is not significant (``inspect.cleandoc``, doctest and
    Python 3.13's compiler strip it), so they may move with the code when all of them can."""


def _layout(text: str) -> _Layout | None:
    """The :class:`_Layout` of ``text`` (LF line endings), or None when it does not tokenize."""
    try:
        tokens = [
            t for t in tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type not in (tokenize.NL, tokenize.COMMENT)
        ]
    except (tokenize.TokenError, SyntaxError):
        return None
    count = text.count("\n") + 1
    in_string = [False] * count
    starts: set[int] = set()
    docstrings: list[range] = []
    at_start = True
    # Python 3.12+ tokenizes f-strings into parts: FSTRING_START ... FSTRING_END.
    fstring_start = getattr(tokenize, "FSTRING_START", None)
    fstring_end = getattr(tokenize, "FSTRING_END", None)
    open_fstrings: list[int] = []
    for index, token in enumerate(tokens):
        if token.type == tokenize.ERRORTOKEN and token.string.strip():
            return None
        if fstring_start is not None and token.type == fstring_start:
            open_fstrings.append(token.start[0])
        elif fstring_end is not None and token.type == fstring_end and open_fstrings:
            first = open_fstrings.pop()
            if not open_fstrings:
                for row in range(first, token.end[0]):  # 0-based lines after the first
                    in_string[row] = True
        if token.type in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
            at_start = True
            continue
        if token.type in (tokenize.ENDMARKER, tokenize.ENCODING):
            continue
        if at_start:
            starts.add(token.start[0] - 1)
            at_start = False
        if token.type == tokenize.STRING and token.end[0] > token.start[0]:
            inside = range(token.start[0], token.end[0])  # 0-based lines after the first
            for row in inside:
                in_string[row] = True
            before = tokens[index - 1].type if index else None
            after = tokens[index + 1].type if index + 1 < len(tokens) else None
            if before == tokenize.INDENT and after in (tokenize.NEWLINE, tokenize.ENDMARKER):
                docstrings.append(inside)
    return _Layout(in_string, starts, docstrings)


def dedent_code(text: str) -> str:
    """``text`` (Python statements, LF line endings) with the indentation common to its
    statements removed, like :func:`textwrap.dedent` but aware of string literals.

    Lines that start inside a multi-line string literal are kept exactly (their whitespace is
    the string's value), except the continuation lines of a docstring, which move with the
    code when every one of them has the common indentation. The common indentation is taken
    from the lines where statements begin; comment and bracket-continuation lines with less
    indentation lose what they have of it. Whitespace-only code lines become empty. Text that
    does not tokenize is dedented by :func:`textwrap.dedent`.
    """
    layout = _layout(text)
    if layout is None:
        return textwrap.dedent(text)
    lines = text.split("\n")
    starts = [lines[i] for i in sorted(layout.starts) if lines[i].strip()]
    if not starts:
        starts = [line for i, line in enumerate(lines)
                  if not layout.in_string[i] and line.strip()]
    margin = _common_prefix([leading_whitespace(line) for line in starts])
    movable = [not inside for inside in layout.in_string]
    for rows in layout.docstrings:
        if all(lines[row].startswith(margin) or not lines[row].strip() for row in rows):
            for row in rows:
                movable[row] = True
    out: list[str] = []
    for line, move in zip(lines, movable):
        if not move:
            out.append(line)
        elif not line.strip():
            out.append("")
        else:
            out.append(line[len(_common_prefix([leading_whitespace(line), margin])):])
    return "\n".join(out)


def indent_code(text: str, indent: str) -> str:
    """``text`` (Python statements at column 0, LF line endings) with ``indent`` added to each
    code line. Lines that start inside a multi-line string literal are kept exactly, except a
    docstring's continuation lines, which are indented with the code; whitespace-only code lines
    become empty. Text that does not tokenize has every non-blank line indented."""
    layout = _layout(text)
    lines = text.split("\n")
    keep = [False] * len(lines)
    if layout is not None:
        keep = list(layout.in_string)
        for rows in layout.docstrings:
            for row in rows:
                keep[row] = False
    return "\n".join(
        line if kept else (indent + line if line.strip() else "")
        for line, kept in zip(lines, keep)
    )


def dedent_function(text: str) -> str:
    """The function text moved to column 0 (for prompts and the sandbox), any line endings in,
    LF out. Lines inside multi-line string literals keep their text (see :func:`dedent_code`),
    so a method whose string has a line at column 0 still comes out at column 0."""
    return dedent_code(text.replace("\r\n", "\n").replace("\r", "\n"))


def indent_function(text: str, indent: str, newline: str = "\n") -> str:
    """Re-indent a column-0 function ``text`` to ``indent`` with ``newline`` line endings.

    Lines inside multi-line string literals are kept as they are (their whitespace is part of
    the string's value), except docstring lines, which are indented with the code (see
    :func:`indent_code`); empty lines stay empty. The result ends with exactly one ``newline``.
    """
    body = text.replace("\r\n", "\n").replace("\r", "\n").rstrip("\n")
    return newline.join(indent_code(body, indent).split("\n")) + newline


def indent_unit(source: str) -> str:
    """One level of indentation as ``source`` writes it: its first indented block's
    indentation (e.g. ``"\\t"`` or four spaces); four spaces when it has no indented block."""
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.INDENT:
                return token.string
    except (tokenize.TokenError, SyntaxError):
        pass
    if any(line.startswith("\t") for line in source.split("\n")):
        return "\t"
    return "    "


def header_colon(source: str, function: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[int, int]:
    """Where the header of ``function`` (a node of ``ast.parse(source)``) ends: the 0-based line
    and ``str`` column of the colon before its body. A header may span lines, and the body may
    start on the colon's line (``def f(x): return x``, black's ``) -> int: ...``)."""
    depth = 0
    seen_def = False
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.start[0] < function.lineno:
            continue
        if not seen_def:
            seen_def = token.type == tokenize.NAME and token.string == "def"
            continue
        if token.type != tokenize.OP:
            continue
        if token.string in "([{":
            depth += 1
        elif token.string in ")]}":
            depth -= 1
        elif token.string == ":" and depth == 0:
            return token.start[0] - 1, token.start[1]
    raise SourceError(f"no colon after the header of {function.name}", function.lineno - 1)


def replace_span(source: str, start_line: int, end_line: int, new_text: str) -> str:
    """``source`` with 0-based lines ``start_line..end_line`` (inclusive) replaced by
    ``new_text``. Bytes outside those lines are kept exactly, line endings included."""
    lines = split_lines(source)
    last = lines[end_line] if end_line < len(lines) else ""
    if last and not last.endswith(("\n", "\r")) and new_text.endswith(("\n", "\r")):
        # The function was the last line without a trailing newline: keep it that way.
        new_text = new_text.rstrip("\r\n")
    return "".join(lines[:start_line]) + new_text + "".join(lines[end_line + 1 :])


def is_placeholder_body(body: list[ast.stmt]) -> bool:
    """True for function bodies (docstring already removed) that do nothing: empty, ``pass``,
    ``...``, ``raise NotImplementedError``."""
    if not body:
        return True
    if len(body) != 1:
        return False
    node = body[0]
    if isinstance(node, ast.Pass):
        return True
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and node.value.value is Ellipsis:
        return True
    return isinstance(node, ast.Raise) and "NotImplementedError" in ast.unparse(node)


def collapse_stubs(source: str) -> str:
    """``source`` without the stubs still to be written (functions whose body is a
    placeholder: a docstring and ``pass``/``...``/nothing): a module-level stub is left out
    with its decorators, a method or nested stub is reduced to its header and ``...``. Prompts
    show the rest of a module this way: calling a stub cannot help (it returns None until it
    is written), and a stub's docstring and examples draw a small model into completing the
    wrong function. Returns ``source`` unchanged if it does not parse."""
    try:
        tree = parse_tree(source)
    except (SyntaxError, ValueError):
        return source
    lines = source.split("\n")
    top_level = set(map(id, tree.body))
    spans: list[tuple[int, int, list[str]]] = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or not node.body:
            continue
        body = list(node.body)
        if (isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            body = body[1:]
        if not is_placeholder_body(body) or node.end_lineno is None:
            continue
        if id(node) in top_level:
            start = min([d.lineno for d in node.decorator_list] + [node.lineno]) - 1
            spans.append((start, node.end_lineno - 1, []))
            continue
        first = node.body[0].lineno - 1
        if first <= node.lineno - 1:
            continue  # a body on the header's line: already short
        if lines[first][: node.body[0].col_offset].strip():
            continue  # the body starts on the last line of a multi-line header
        spans.append((first, node.end_lineno - 1, [lines[first][: node.body[0].col_offset] + "..."]))
    for first, last, replacement in sorted(spans, reverse=True):
        lines[first : last + 1] = replacement
    return re.sub(r"\n{4,}", "\n\n\n", "\n".join(lines))


def new_module_text(
    text: str, readable_text: str, start_line: int, end_line: int, indent: str, code: str,
    filename: str,
) -> tuple[str | None, str | None]:
    """``text`` with lines ``start_line..end_line`` (0-based, inclusive) replaced by the
    function ``code`` at ``indent`` (the text's line endings kept), and None; or None and why,
    when the code does not compile in its place (checked on ``readable_text``, the text
    without the blocks left out, whose lines are blank there: same line numbers). Pure and
    picklable: the editor runs it in its parse worker (this module imports little)."""
    try:
        compile(replace_span(readable_text, start_line, end_line,
                             indent_function(code, indent, "\n")),
                filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as error:
        return None, str(error)
    return replace_span(text, start_line, end_line,
                        indent_function(code, indent, line_ending(text))), None
