"""Finding, reading and replacing Python functions in source text with stdlib :mod:`ast`.

Lines here are 0-based and columns are code points of the line (Python ``str`` indices);
the editor layer converts to the client's position encoding. A function's span starts at its
first decorator (or ``def``/``async def``) and ends after the last line of its body, so that
replacing the span replaces the whole function and nothing else.
"""

from __future__ import annotations

import ast
import copy
import re
import textwrap
from dataclasses import dataclass, field


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
    """The text's dominant line ending: ``"\\r\\n"`` if any line ends so, else ``"\\n"``."""
    crlf = text.count("\r\n")
    return "\r\n" if crlf and crlf >= text.count("\n") - crlf else "\n"


def parse(source: str) -> ast.Module:
    """Parse ``source``; raise :class:`SourceError` with a 0-based line on a syntax error."""
    try:
        return ast.parse(source)
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


def enclosing_function(source: str, line: int, end_line: int | None = None) -> FunctionInfo | None:
    """The innermost function whose span holds 0-based ``line`` (and ``end_line`` if given).

    A selection that spans several functions yields the innermost function holding all of it,
    or None. Raises :class:`SourceError` when the source does not parse.
    """
    last = line if end_line is None else end_line
    best: FunctionInfo | None = None
    for info in find_functions(source):
        inside = info.contains_line(line) and info.contains_line(last)
        if inside and (best is None or info.start_line >= best.start_line):
            best = info
    return best


def locate(source: str, qualname: str, signature: str | None = None) -> FunctionInfo:
    """Find the function ``qualname`` (with ``signature``, if given) in ``source``.

    Used to re-locate a function in the document's *current* text before an edit.
    Raises :class:`FunctionNotFound`, :class:`AmbiguousFunction`, or :class:`SourceError`.
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
        lines = ", ".join(str(f.def_line + 1) for f in candidates)
        raise AmbiguousFunction(f"{qualname} is defined more than once (lines {lines})")
    return candidates[0]


def function_text(source: str, info: FunctionInfo) -> str:
    """The exact text of the function's span, line endings included."""
    lines = split_lines(source)
    return "".join(lines[info.start_line : info.end_line + 1])


def dedent_function(text: str) -> str:
    """The function text moved to column 0 (for prompts and the sandbox)."""
    return textwrap.dedent(text.replace("\r\n", "\n").replace("\r", "\n"))


def indent_function(text: str, indent: str, newline: str = "\n") -> str:
    """Re-indent a column-0 function ``text`` to ``indent`` with ``newline`` line endings.

    Lines inside multi-line string literals are indented too, like every other line; empty
    lines stay empty. The result ends with exactly one ``newline``.
    """
    body = text.replace("\r\n", "\n").replace("\r", "\n").rstrip("\n")
    out = [(indent + line) if line.strip() else "" for line in body.split("\n")]
    return newline.join(out) + newline


def replace_span(source: str, start_line: int, end_line: int, new_text: str) -> str:
    """``source`` with 0-based lines ``start_line..end_line`` (inclusive) replaced by
    ``new_text``. Bytes outside those lines are kept exactly, line endings included."""
    lines = split_lines(source)
    last = lines[end_line] if end_line < len(lines) else ""
    if last and not last.endswith(("\n", "\r")) and new_text.endswith(("\n", "\r")):
        # The function was the last line without a trailing newline: keep it that way.
        new_text = new_text.rstrip("\r\n")
    return "".join(lines[:start_line]) + new_text + "".join(lines[end_line + 1 :])


def module_imports(source: str) -> list[str]:
    """The module-level import statements of ``source`` as source text, in order."""
    tree = parse(source)
    return [
        ast.get_source_segment(source, node) or ast.unparse(node)
        for node in tree.body
        if isinstance(node, (ast.Import, ast.ImportFrom))
    ]
