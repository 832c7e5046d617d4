"""The *judge view* of a module: what pytest imports for the module under test when the code
under test runs in a process of its own (:mod:`codeteam.execution.pytest_subject`).

The view is the user's own text of the module (before generation) with the target
function's body -- everything after its docstring -- replaced by one statement that forwards
the call to the subject process::

    return __codeteam_forward__((a, b, *args), {"k": k, **kwargs})

Decorators, signature (defaults included) and docstring stay the user's, so decorators such
as ``@curry``, ``inspect.signature``, ``--doctest-modules`` doctests of the docstring and the
module's other functions calling the target by name behave as before, and nothing of the
generated text runs in pytest's process. Line numbers are kept (the replaced lines are left
empty; a body that is only a docstring gets the statement after it on the same line). A last
line ``__codeteam_imported__(globals())`` lets the judge see later changes of the module's
globals (``monkeypatch.setattr``). Built with :mod:`ast` from node positions.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from codeteam.pysource.functions import split_lines

FORWARD = "__codeteam_forward__"
IMPORTED = "__codeteam_imported__"


@dataclass(frozen=True)
class JudgeView:
    """``text`` the view; ``start_line``/``end_line`` the function's span (0-based, first
    decorator to last line) in the user's text ``original``, which the view keeps line for
    line."""

    text: str
    start_line: int
    end_line: int
    original: str | None = None


def _lines(source: str) -> list[str]:
    """Lines with their endings, broken where ast counts lines (``\\n``, ``\\r\\n``, ``\\r``
    only: a form feed, ``\\x1c``-``\\x1e``, ``\\x85``, U+2028/2029 are not line breaks there)."""
    return split_lines(source)


def find_function(tree: ast.Module, qualname: str, start_line: int | None = None):
    """The ``def`` of ``qualname`` (classes and a function at the end; no function in between:
    a nested function has no object outside its call), or None. With several, the one whose
    first line (first decorator or ``def``, 0-based) is ``start_line``, else the last."""
    parts = qualname.split(".")
    scope: list[ast.stmt] = tree.body
    for part in parts[:-1]:
        classes = [n for n in scope if isinstance(n, ast.ClassDef) and n.name == part]
        if not classes:
            return None
        scope = classes[-1].body
    found = [n for n in scope
             if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == parts[-1]]
    if start_line is not None:
        exact = [n for n in found if first_line(n) - 1 == start_line]
        if exact:
            return exact[-1]
    return found[-1] if found else None


def first_line(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """1-based line of the first decorator, or of ``def`` (a code object's
    ``co_firstlineno``)."""
    return node.decorator_list[0].lineno if node.decorator_list else node.lineno


def forward_call(args: ast.arguments) -> str:
    """The forwarding call for a signature: positional parameters by position, ``*args``
    spread, keyword-only ones and ``**kwargs`` by name."""
    positional = [a.arg for a in [*args.posonlyargs, *args.args]]
    if args.vararg is not None:
        positional.append("*" + args.vararg.arg)
    keywords = [f"{a.arg!r}: {a.arg}" for a in args.kwonlyargs]
    if args.kwarg is not None:
        keywords.append("**" + args.kwarg.arg)
    items = "".join(f"{p}, " for p in positional)
    return f"{FORWARD}(({items}), {{{', '.join(keywords)}}})"


def judge_view(source: str, qualname: str, start_line: int | None = None) -> JudgeView | None:
    """The judge view of ``source`` for function ``qualname`` (see the module docstring), or
    None when it cannot be built (no such function, a nested function, ``async def``, a body
    sharing a line with the code before it, a module that does not parse): then the tests
    run in the code's own process."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    node = find_function(tree, qualname, start_line)
    if node is None or isinstance(node, ast.AsyncFunctionDef) or node.end_lineno is None:
        return None
    lines = _lines(source)
    body = node.body
    has_doc = (isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
               and isinstance(body[0].value.value, str))
    rest = body[1:] if has_doc else body
    statement = "return " + forward_call(node.args)
    if rest:
        first = rest[0]
        row = first.lineno - 1
        head = lines[row][: _char_col(lines[row], first.col_offset)]
        if head.strip():  # `def f(x): return x`, `"""doc"""; return x`
            return None
        ending = "\n" if lines[node.end_lineno - 1].endswith(("\n", "\r")) else ""
        new = [head + statement + "\n"] + ["\n"] * (node.end_lineno - first.lineno)
        new[-1] = new[-1].rstrip("\n") + ending
        lines[row : node.end_lineno] = new
    else:
        doc = body[0]
        row = (doc.end_lineno or doc.lineno) - 1
        col = _char_col(lines[row], doc.end_col_offset or 0)
        tail = lines[row][col:]
        if tail.strip() and not tail.strip().startswith("#"):
            return None
        if doc.lineno == node.lineno:  # `def f(x): """doc"""`: the body shares the def's line
            return None
        newline = "\n" if lines[row].endswith(("\n", "\r")) else ""
        lines[row] = lines[row][:col] + "; " + statement + newline
    text = "".join(lines)
    if text and not text.endswith("\n"):
        text += "\n"
    text += f"{IMPORTED}(globals())\n"
    try:
        ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    return JudgeView(text=text, start_line=first_line(node) - 1, end_line=node.end_lineno - 1,
                     original=source)


def _char_col(line: str, byte_col: int) -> int:
    """The character index of UTF-8 byte offset ``byte_col`` in ``line`` (ast's columns)."""
    return len(line.encode("utf-8")[:byte_col].decode("utf-8", "replace"))


def def_lines(text: str, qualname: str, start_line: int | None = None) -> list[int]:
    """1-based lines a code object of ``qualname`` in ``text`` may start at (its first
    decorator and its ``def``), or [] when ``text`` does not parse or has no such function."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    node = find_function(tree, qualname, start_line)
    if node is None:
        return []
    return sorted({first_line(node), node.lineno})


def placement(view: JudgeView, text: str, qualname: str) -> tuple[list[int], int]:
    """Where the candidate's function is in ``text`` (the candidate module) relative to
    ``view``: the 1-based lines its code object may start at (:func:`def_lines`, [] when
    ``text`` has no such function) and how many lines longer it is than the view's function
    (the view's later lines are the candidate's minus that)."""
    lines = def_lines(text, qualname, view.start_line)
    shift = 0
    if lines:
        node = find_function(ast.parse(text), qualname, view.start_line)
        if node is not None and node.end_lineno is not None:
            shift = (node.end_lineno - lines[0]) - (view.end_line - view.start_line)
    return lines, shift
