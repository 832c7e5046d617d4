"""The *judge view* of a module: what the judge (pytest with codeteam's plugin) imports for the
module under test, while the code under test runs in a process of its own
(:mod:`codeteam.execution.pytest_subject`).

The view is the user's own text of the module (before generation) with the judged function's
body -- everything after its docstring -- replaced by one statement that forwards the call to
the subject process::

    return __codeteam_forward__((a, b, *args), {"k": k, **kwargs})

(looked up in ``builtins``, where the judge put it; a process of the test's own that imports
the view, ``python -m pkg.mod``, finds none there and calls one that leaves a mark the judge
sees, :data:`ELSEWHERE`: the test is "not judged"). Decorators, signature (defaults
included) and docstring stay the user's, so ``@curry``, ``inspect.signature``, doctests of
the docstring and the module's other functions calling it behave as before, and nothing of the generated text runs in the judge. Line numbers are kept
(the replaced lines are left empty). The judged function is the target itself, or, for a
function nested in another, the outermost function around it (its candidate version holds the
new nested function). An ``async def`` forwards the same way (the subject runs the coroutine
to completion); a body on the ``def`` line is replaced on that line. A last line
``__codeteam_imported__(globals())`` (none in such a process) lets the judge see later
changes of the module's globals (``monkeypatch.setattr``). Built with :mod:`ast` from node positions.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import lru_cache

from codeteam.pysource.functions import split_lines
from codeteam.pysource.syntax import parse_tree

FORWARD = "__codeteam_forward__"
IMPORTED = "__codeteam_imported__"
ELSEWHERE = ".codeteam-called-elsewhere"
"""The file a process of the test's that imported the view (``python -m pkg.mod``) makes in
``$CODETEAM_FILES_DIR`` (the judge's own folder, ``/sandbox`` in bwrap, which the code cannot
write) when it calls the function: it has no judge to forward to (:data:`FORWARDER`)."""
FORWARDER = (
    f"__import__('builtins').__dict__.get({FORWARD!r}, lambda a, k, os=__import__('os'): "
    "os.close(os.open(os.path.join(os.environ.get('CODETEAM_FILES_DIR', '/sandbox'), "
    f"{ELSEWHERE!r}), os.O_CREAT | os.O_WRONLY, 0o600)) or __import__('sys').exit("
    "'codeteam: the function under test cannot be called in a process the test starts "
    "(it is judged in a process of its own)'))")
"""What the view's body calls: the judge's forwarding call, in pytest's process; in a process
the test started that imported the view, a function that says so (:data:`ELSEWHERE`) and
exits. Only ``__import__`` is looked up by name (a module may have a ``getattr`` or ``id`` of
its own)."""
_DEF = ast.FunctionDef | ast.AsyncFunctionDef
_BLOCKS = (ast.If, ast.Try, getattr(ast, "TryStar", ast.Try), ast.With, ast.AsyncWith, ast.For,
           ast.AsyncFor, ast.While)


def _in_scope(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements of a scope in source order, those of its ``if``, ``try``, ``with`` and
    loop blocks included: a ``def`` there binds a name of the scope (munch's ``toYAML``
    under ``try: import yaml``)."""
    found: list[ast.stmt] = []
    for node in body:
        found.append(node)
        if isinstance(node, _BLOCKS):
            found += _in_scope(node.body)
            for handler in getattr(node, "handlers", ()):
                found += _in_scope(handler.body)
            found += _in_scope(node.orelse) + _in_scope(getattr(node, "finalbody", []))
    return found


@dataclass(frozen=True)
class JudgeView:
    """``text`` the view; ``qualname`` the function it forwards (the target, or the outermost
    function around a nested target); ``start_line``/``end_line`` that function's span
    (0-based, first decorator to last line) in the user's text ``original``, which the view
    keeps line for line; ``nested`` whether the target is nested in ``qualname``."""

    text: str
    qualname: str
    start_line: int
    end_line: int
    original: str
    nested: bool = False


def find_function(tree: ast.Module, qualname: str, start_line: int | None = None):
    """The ``def`` of ``qualname`` (classes, then functions; ``outer.inner`` for a nested
    one), or None. With several, the one whose first line (first decorator or ``def``,
    0-based) is ``start_line``, else the last."""
    parts = qualname.split(".")
    scopes: list[list[ast.stmt]] = [tree.body]
    for part in parts[:-1]:
        scopes = [n.body for scope in scopes for n in _in_scope(scope)
                  if isinstance(n, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
                  and n.name == part]
    found = [n for scope in scopes for n in _in_scope(scope)
             if isinstance(n, _DEF) and n.name == parts[-1]]
    if start_line is not None:
        exact = [n for n in found if first_line(n) - 1 == start_line]
        if exact:
            return exact[-1]
    return found[-1] if found else None


def judged_qualname(tree: ast.Module, qualname: str) -> str | None:
    """The qualname of the function a view forwards for target ``qualname``: the outermost
    function on the path (classes before it kept), or None when the path names no function."""
    parts = qualname.split(".")
    scope: list[ast.stmt] = tree.body
    for index, part in enumerate(parts):
        nodes = [n for n in _in_scope(scope) if getattr(n, "name", None) == part
                 and isinstance(n, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)]
        if not nodes:
            return None
        if isinstance(nodes[-1], _DEF):
            return ".".join(parts[: index + 1])
        scope = nodes[-1].body
    return None


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
    return f"{FORWARDER}(({items}), {{{', '.join(keywords)}}})"


@lru_cache(maxsize=32)
def judge_view(source: str, qualname: str, start_line: int | None = None) -> JudgeView | None:
    """The judge view of ``source`` for function ``qualname`` (see the module docstring), or
    None when it cannot be built (no such function, a module that does not parse).

    Remembered for the 32 latest arguments: every candidate of a run is judged through the
    view of the same text, and each parse of a large module holds the event loop (a
    2,000-line module: tens of milliseconds on a busy machine)."""
    try:
        tree = parse_tree(source)
    except (SyntaxError, ValueError):
        return None
    target = find_function(tree, qualname, start_line)
    judged = judged_qualname(tree, qualname)
    if target is None or judged is None:
        return None
    nested = judged != qualname
    node = find_function(tree, judged, None if nested else start_line)  # (found: judged is
    # the last function of that name on target's path, which find_function also sees)
    lines = split_lines(source)
    body = node.body
    has_doc = (isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
               and isinstance(body[0].value.value, str))
    rest = body[1:] if has_doc else body
    statement = "__tracebackhide__ = True; return " + forward_call(node.args)
    ending = "\n" if lines[node.end_lineno - 1].endswith(("\n", "\r")) else ""
    if rest:  # (from its first decorator: a nested function or class the body begins with)
        row = min([rest[0].lineno, *(d.lineno for d in getattr(rest[0], "decorator_list", ()))]) - 1
        head = lines[row][: _char_col(lines[row], rest[0].col_offset)]
    else:  # only a docstring: the statement after it, on its last line
        row = (body[0].end_lineno or body[0].lineno) - 1
        head = lines[row][: _char_col(lines[row], body[0].end_col_offset or 0)] + "; "
    new = [head + statement + "\n"] + ["\n"] * (node.end_lineno - 1 - row)
    new[-1] = new[-1].rstrip("\n") + ending
    lines[row : node.end_lineno] = new
    text = "".join(lines)
    if text and not text.endswith("\n"):
        text += "\n"
    text += f"__import__('builtins').__dict__.get({IMPORTED!r}, lambda space: None)(globals())\n"
    try:
        parse_tree(text)
    except (SyntaxError, ValueError):
        return None
    return JudgeView(text=text, qualname=judged, start_line=first_line(node) - 1,
                     end_line=node.end_lineno - 1, original=source, nested=nested)


def _char_col(line: str, byte_col: int) -> int:
    """The character index of UTF-8 byte offset ``byte_col`` in ``line`` (ast's columns)."""
    return len(line.encode("utf-8")[:byte_col].decode("utf-8", "replace"))


def placement(view: JudgeView, text: str) -> tuple[list[int], int]:
    """Where the judged function is in ``text`` (the candidate module) relative to ``view``:
    the 1-based lines its code object may start at (its first decorator and its ``def``; []
    when ``text`` does not parse or has no such function) and how many lines longer it is
    than the view's (the view's later lines are the candidate's minus that)."""
    lines, shift = _placement(view, text)
    return list(lines), shift


@lru_cache(maxsize=32)
def _placement(view: JudgeView, text: str) -> tuple[tuple[int, ...], int]:
    """:func:`placement`, remembered (a candidate is judged in one session per kind of test,
    each parse of a large module holds the event loop); one parse of ``text``."""
    try:
        tree = parse_tree(text)
    except (SyntaxError, ValueError):
        return (), 0
    node = find_function(tree, view.qualname, None if view.nested else view.start_line)
    if node is None:
        return (), 0
    lines = tuple(sorted({first_line(node), node.lineno}))
    return lines, (node.end_lineno - lines[0]) - (view.end_line - view.start_line)
