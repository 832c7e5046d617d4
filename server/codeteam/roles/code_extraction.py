"""Turning a model's reply into the user's function, with the user's header and docstring.

Models answer with fenced blocks, bare code, prose around code, several blocks, a whole
module or class, or only a function body. :func:`extract_function` copes with each and returns
one function at column 0 that keeps the user's decorators, signature and docstring exactly as
written (from :attr:`Task.stub`) and takes its *body* from the reply. Imports and helper
definitions the reply puts at module level are moved inside the function, so that an edit
never touches text outside the function; a ``from __future__`` import is dropped (it is only
valid at the top of a module). When the reply renamed the parameters, its body is rewritten to
use the user's names. Re-indenting never changes a string literal's value.
"""

from __future__ import annotations

import ast
import copy
import functools
import re
from dataclasses import dataclass

from codeteam.pysource.docstrings import docstring_node
from codeteam.pysource.functions import (
    SourceError,
    char_column,
    dedent_code,
    find_functions,
    header_colon,
    indent_code,
    indent_unit,
    is_placeholder_body,
    leading_whitespace,
)
from codeteam.pysource.syntax import parse_tree
from codeteam.task import Task

FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)


class CodeExtractionError(ValueError):
    """No usable code for the function was found in the reply."""


def code_blocks(reply: str) -> list[str]:
    """The code candidates in ``reply``: fenced blocks (python-tagged or untagged) in order;
    when there is no fence, the reply itself and the longest parseable run of lines in it."""
    blocks = [
        body
        for lang, body in FENCE.findall(reply)
        if lang.lower() in ("", "python", "py", "python3")
    ]
    if blocks:
        return blocks
    candidates = [reply]
    window = _parseable_window(reply)
    if window and window != reply:
        candidates.append(window)
    return candidates


def _parses(text: str) -> ast.Module | SyntaxError:
    """``text`` parsed (dedented first when its first line is indented), or the
    :class:`SyntaxError` (``lineno`` 1-based in ``text``, or None)."""
    first = next((line for line in text.split("\n") if line.strip()), "")
    if first[:1].isspace():
        text = dedent_code(text)
    if "\0" in text:
        error = SyntaxError("source code cannot contain null bytes")
        error.lineno = text[: text.index("\0")].count("\n") + 1
        return error
    try:
        return parse_tree(text)
    except SyntaxError as error:
        return error
    except ValueError as error:  # other source the parser refuses
        return SyntaxError(str(error))


def _parseable_window(reply: str) -> str | None:
    """The longest run of lines that parses, starting at a ``def``, ``import``, ``from`` or
    decorator line: strips prose before and after unfenced code.

    From each start (the first 20, skipping those inside a window already found) the window
    runs to the end of the reply and shrinks to just before the line the parser reports, until
    it parses. The parser is called at most ``2 * lines + 20`` times in all and reads at most
    about 40 times the reply, so a degenerate reply costs linear work (this runs on the
    server's event loop)."""
    lines = reply.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    starts = [i for i, line in enumerate(lines)
              if re.match(r"\s*(def |async def |import |from |@)", line)][:20]
    calls_left = 2 * len(lines) + 20
    chars_left = 40 * len(reply) + 4096
    best: str | None = None
    best_end = 0
    for start in starts:
        if best is not None and start < best_end:
            continue
        end = len(lines)
        while end > start and calls_left > 0 and chars_left > 0:
            chunk = "\n".join(lines[start:end])
            calls_left -= 1
            chars_left -= len(chunk)
            result = _parses(chunk)
            if isinstance(result, ast.Module):
                if best is None or len(chunk) > len(best):
                    best, best_end = chunk, end
                break
            bad = result.lineno  # 1-based in chunk: keep the lines before it
            end = start + bad - 1 if bad and 1 <= bad <= end - start else end - 1
    return best


# --- the user's stub ---------------------------------------------------------------------


@dataclass(frozen=True)
class _Stub:
    """The user's function as written: ``header`` (decorators, signature, up to the body),
    ``docstring`` (its lines, or ""), the body's ``indent``, and the parsed ``function``."""

    header: str
    docstring: str
    indent: str
    function: ast.FunctionDef | ast.AsyncFunctionDef


def _stub_parts(task: Task) -> _Stub:
    """The user's stub cut into header, docstring and body indentation, from AST positions:
    the header ends at the colon before the body, which may share the colon's line (``def
    f(x): ...``, black's ``) -> float: ...``). There the body indentation is one level of the
    module's own indentation (a tab in a tab-indented module)."""
    try:
        tree = parse_tree(task.stub)
        function = next(n for n in tree.body
                        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                        and n.name == task.name)
        colon_line, colon_col = header_colon(task.stub, function)
    except (SyntaxError, StopIteration, SourceError) as error:
        raise CodeExtractionError(f"the stub of {task.name} cannot be read: {error}") from None
    lines = task.stub.split("\n")
    first = function.body[0]
    doc = docstring_node(function)
    if first.lineno - 1 == colon_line:
        # The body starts on the header's last line: cut the header after its colon.
        header = "\n".join(lines[:colon_line] + [lines[colon_line][: colon_col + 1]])
        indent = leading_whitespace(lines[function.lineno - 1]) + indent_unit(task.module_source)
        docstring = ""
        if doc is not None:
            docstring = indent + _node_text(lines, doc)
        return _Stub(header, docstring, indent, function)
    header = "\n".join(lines[: first.lineno - 1])
    indent = leading_whitespace(lines[first.lineno - 1])
    docstring = ""
    if doc is not None:
        last = (doc.end_lineno or doc.lineno) - 1
        end = char_column(lines[last], doc.end_col_offset or 0)
        after = lines[last][end:].strip()
        if not after or after.startswith("#"):  # keep a trailing comment
            end = len(lines[last])
        docstring = "\n".join(lines[doc.lineno - 1 : last] + [lines[last][:end]])
    return _Stub(header, docstring, indent, function)


def _node_text(lines: list[str], node: ast.stmt) -> str:
    """The exact text of ``node`` (from its first to its last character)."""
    first, last = node.lineno - 1, (node.end_lineno or node.lineno) - 1
    start = char_column(lines[first], node.col_offset)
    end = char_column(lines[last], node.end_col_offset or 0)
    if first == last:
        return lines[first][start:end]
    return "\n".join([lines[first][start:], *lines[first + 1 : last], lines[last][:end]])


# --- the reply's function ------------------------------------------------------------------


def _choose_def(
    tree: ast.Module, task: Task, stub: _Stub
) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The reply's definition of ``task.name``: among the outermost definitions of that name,
    the only one, else the only one with the stub's decorators (a property's getter, setter
    and deleter share a name), else the one at the stub's position among the module's
    definitions of that qualified name, else the first."""
    found: list[tuple[int, int, ast.FunctionDef | ast.AsyncFunctionDef]] = []

    def visit(node: ast.AST, depth: int) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) and child.name == task.name:
                found.append((depth, child.lineno, child))
            visit(child, depth + 1)

    visit(tree, 0)
    if not found:
        return None
    found.sort(key=lambda item: (item[0], item[1]))
    candidates = [node for depth, _, node in found if depth == found[0][0]]
    if len(candidates) == 1:
        return candidates[0]
    wanted = [ast.unparse(d) for d in stub.function.decorator_list]
    same = [c for c in candidates if [ast.unparse(d) for d in c.decorator_list] == wanted]
    if len(same) == 1:
        return same[0]
    try:
        siblings = sorted(
            (f for f in find_functions(task.module_source) if f.qualname == task.qualname),
            key=lambda f: f.start_line,
        )
    except SourceError:
        siblings = []
    index = next((i for i, f in enumerate(siblings) if f.start_line == task.start_line), None)
    if index is not None and len(siblings) == len(candidates):
        return candidates[index]
    return (same or candidates)[0]


def _renamed_target(
    tree: ast.Module, task: Task, stub: _Stub
) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """A reply that defines a single function under another name (``def add(x, y)`` for the
    stub ``def add_numbers(a, b)``): that function, when it takes as many positional
    parameters as the stub and the module does not already define its name. Small models
    often rename the function; anything less clear-cut (two functions, a class) is not
    guessed at. A ``main`` or ``test_*`` function beside it (a usage demo) does not count."""
    if any(isinstance(n, ast.Return) for n in tree.body):
        return None  # a bare body beside a helper: the helper is not the answer
    defs = [n for n in tree.body
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and not _is_demo(n)]
    if len(defs) != 1 or isinstance(defs[0], ast.ClassDef):
        return None
    function = defs[0]
    wanted, given = stub.function.args, function.args
    if len(wanted.posonlyargs) + len(wanted.args) != len(given.posonlyargs) + len(given.args):
        return None
    if _defined_in_module(function.name, task):
        return None
    return function


def _is_demo(node: ast.stmt) -> bool:
    """A reply's ``main()`` or ``test_*()`` function: a usage demo, never part of the answer."""
    return isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
        node.name in ("main", "test") or node.name.startswith("test_"))


def _body_statements(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
) -> list[ast.stmt]:
    body = list(function.body)
    if docstring_node(function) is not None:
        body = body[1:]
    return body


def _body_text(
    lines: list[str], function: ast.FunctionDef | ast.AsyncFunctionDef, body: list[ast.stmt]
) -> str:
    """The reply's body at column 0 as written (comments and formatting kept), with the comment
    lines just above its first statement. A body on the header's line (``def f(x): return
    x``) or after the docstring on its line starts there."""
    first = body[0]
    decorators = getattr(first, "decorator_list", None) or []
    row = min([d.lineno for d in decorators] + [first.lineno]) - 1
    line = lines[row]
    col = len(leading_whitespace(line)) if decorators else char_column(line, first.col_offset)
    if line[:col].strip():
        head = [leading_whitespace(line) + line[col:]]
    else:
        docstring = docstring_node(function)
        if docstring is not None:
            floor = docstring.end_lineno or docstring.lineno
        else:
            floor = header_colon("\n".join(lines), function)[0] + 1
        start = row
        while start - 1 >= floor and lines[start - 1].strip().startswith("#"):
            start -= 1
        head = lines[start : row + 1]
    rest = lines[row + 1 : function.end_lineno]
    return dedent_code("\n".join(head + rest))


def _parameter_groups(args: ast.arguments) -> list[list[str]]:
    return [
        [a.arg for a in args.posonlyargs + args.args],
        [args.vararg.arg] if args.vararg else [],
        [a.arg for a in args.kwonlyargs],
        [args.kwarg.arg] if args.kwarg else [],
    ]


def _names_in(body: list[ast.stmt]) -> tuple[set[str], set[str]]:
    """(every name the body uses or binds, the names it binds in ways a rename by position
    cannot follow: ``global``, ``nonlocal``, ``except ... as``, imports, nested ``def`` and
    ``class`` names, match captures, parameters of nested functions and lambdas, names bound
    in a nested class body (attributes, not variables))."""
    used: set[str] = set()
    fixed: set[str] = set()
    for node in (n for statement in body for n in ast.walk(statement)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            fixed.update(a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg))
        elif isinstance(node, ast.ClassDef):
            fixed.update(n.id for n in ast.walk(node) if isinstance(n, ast.Name)
                         and isinstance(n.ctx, ast.Store))
        if isinstance(node, ast.Name):
            used.add(node.id)
        elif isinstance(node, ast.arg):
            used.add(node.arg)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            fixed.update(node.names)
        elif isinstance(node, ast.alias):
            fixed.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                               ast.ExceptHandler, ast.MatchAs, ast.MatchStar)):
            if node.name:
                fixed.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            fixed.add(node.rest)
    return used | fixed, fixed


def _parameter_renames(
    user: ast.arguments, reply: ast.arguments, body: list[ast.stmt]
) -> tuple[dict[str, str], dict[str, str]]:
    """({reply's name: user's name} for the parameters the reply renamed that can be renamed
    in place, the same for the pairs that cannot and get an alias assignment instead).

    Parameters are paired by position within their kind (positional, ``*args``, keyword-only,
    ``**kwargs``) among the names the two signatures do not share; a reply that only reordered
    the user's names keeps them. A pair is left out when the user's name already means
    something else in the body, or the reply's name is bound there in a way the rename cannot
    follow (see :func:`_names_in`)."""
    user_groups, reply_groups = _parameter_groups(user), _parameter_groups(reply)
    if [len(g) for g in user_groups] != [len(g) for g in reply_groups]:
        return {}, {}
    user_names = {n for g in user_groups for n in g}
    reply_names = {n for g in reply_groups for n in g}
    renames: dict[str, str] = {}
    for user_group, reply_group in zip(user_groups, reply_groups):
        user_left = [n for n in user_group if n not in reply_names]
        reply_left = [n for n in reply_group if n not in user_names]
        if len(user_left) == len(reply_left):
            renames.update(zip(reply_left, user_left))
    pairs = dict(renames)
    used, fixed = _names_in(body)
    renames = {old: new for old, new in renames.items() if old not in fixed}
    changed = True
    while changed:
        changed = False
        for old, new in list(renames.items()):
            if new in used and new not in renames:
                del renames[old]
                changed = True
    declared = {n for node in (m for st in body for m in ast.walk(st))
                if isinstance(node, (ast.Global, ast.Nonlocal)) for n in node.names}
    aliases = {old: new for old, new in pairs.items()
               if old not in renames and old in used and old not in declared}
    return renames, aliases


def _rename(
    lines: list[str], body: list[ast.stmt], renames: dict[str, str],
    calls: set[str] | None = None, keywords: dict[str, str] | None = None,
) -> list[str]:
    """``lines`` with the body's uses of each name in ``renames`` replaced where they stand:
    variables (:class:`ast.Name`) and nested parameters (:class:`ast.arg`), inside f-strings
    too; attributes (``obj.name``) and keyword arguments (``f(name=...)``) are not names and
    stay, except the keyword arguments of calls to a name in ``calls`` (the function itself,
    recursively), which follow ``keywords``. Comments and formatting stay. Returns ``lines``
    unchanged if a position does not hold the name (it never should)."""
    edits: dict[int, list[tuple[int, bytes, bytes]]] = {}
    for node in (n for statement in body for n in ast.walk(statement)):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in (calls or ())):
            for keyword in node.keywords:
                if keyword.arg in (keywords or {}):
                    edits.setdefault(keyword.lineno - 1, []).append(
                        (keyword.col_offset, keyword.arg.encode(),
                         keywords[keyword.arg].encode()))
            continue
        name = node.id if isinstance(node, ast.Name) else (
            node.arg if isinstance(node, ast.arg) else None)
        if name in renames:
            edits.setdefault(node.lineno - 1, []).append(
                (node.col_offset, name.encode(), renames[name].encode()))
    out = list(lines)
    for row, changes in edits.items():
        data = out[row].encode()
        for col, old, new in sorted(set(changes), reverse=True):
            if data[col : col + len(old)] != old:
                return lines
            data = data[:col] + new + data[col + len(old):]
        out[row] = data.decode()
    return out


def extract_function(reply: str, task: Task) -> str:
    """The function ``task.name`` built from ``reply``: the stub's header and docstring, the
    reply's body (its parameters renamed to the user's where the reply renamed them). Raises
    :class:`CodeExtractionError` when no block holds a usable body."""
    stub = _stub_parts(task)
    problems: list[str] = []
    blocks = code_blocks(reply)
    # A block that defines the function by its name wins over one that renamed it.
    for allow_renamed in (False, True):
        for block in blocks:
            code = _from_block(block, task, stub, problems, allow_renamed)
            if code is not None:
                return code
    detail = "; ".join(dict.fromkeys(problems)) or "the reply holds no code"
    raise CodeExtractionError(f"no usable code for {task.name}: {detail}")


def _from_block(
    block: str, task: Task, stub: _Stub, problems: list[str], allow_renamed: bool
) -> str | None:
    """The function built from one code block, or None (with the reason added to
    ``problems``)."""
    block = dedent_code(block.replace("\r\n", "\n")).strip("\n")
    tree = _parses(block)
    if not isinstance(tree, ast.Module):
        problems.append("a code block does not parse")
        return None
    lines = block.split("\n")
    function = _choose_def(tree, task, stub)
    if function is None and allow_renamed:
        function = _renamed_target(tree, task, stub)
    extras: list[str] = []
    if function is not None:
        body = _body_statements(function)
        if is_placeholder_body(body):
            problems.append(f"the reply's {task.name} has no body")
            return None
        renames, aliases = _parameter_renames(stub.function.args, function.args, body)
        keywords = {**renames, **aliases}
        if function.name != task.name and task.name not in _names_in(body)[0]:
            renames[function.name] = task.name  # its recursive calls follow the rename
        calls = {function.name, task.name}
        renamed = _rename(lines, body, renames, calls, keywords) if renames or keywords \
            else lines
        body_text = _body_text(renamed, function, body)
        if aliases:
            body_text = "".join(f"{old} = {new}\n" for old, new in aliases.items()) + body_text
        decorators = _kept_decorators(function, tree, task, stub)
        if decorators:
            body_text = _decorated_inner(stub, function, decorators, body_text,
                                         indent_unit(task.module_source), task.qualname)
        called = {n.id for n in ast.walk(function) if isinstance(n, ast.Name)}
        # Module-level imports and helpers around the function travel inside it.
        for node in tree.body:
            if node is function or _contains(node, function):
                continue
            if isinstance(node, ast.ImportFrom) and node.module == "__future__":
                continue  # only valid at the top of a module; the module has its own
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                if not _already_imported(node, task):
                    extras.append(_segment(lines, node))
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if not _defined_in_module(node.name, task) and (
                        not _is_demo(node) or node.name in called):
                    extras.append(_segment(lines, node))
            elif isinstance(node, ast.Assign) and all(
                isinstance(t, ast.Name) and t.id.isupper() for t in node.targets
            ):
                extras.append(_segment(lines, node))
    else:
        if any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) for n in tree.body):
            problems.append(f"a code block defines other functions but not {task.name}")
            return None
        if not any(isinstance(n, ast.Return) for n in ast.walk(tree)):
            problems.append(f"a code block has neither {task.name} nor a return")
            return None
        # A bare body ("return sorted(xs)").
        body_text = block
    code = _assemble(stub, extras, body_text)
    if code is None:
        problems.append(f"the code for {task.name} does not compile once assembled")
        return None
    return code


_DESCRIPTOR_DECORATORS = frozenset({
    "property", "classmethod", "staticmethod", "setter", "getter", "deleter", "abstractmethod",
    "overload", "override", "cached_property",
})
"""Decorators that only make sense on a class attribute or for a type checker: a reply's
extra ones are dropped with its header, never kept in an inner function."""


def _decorator_names(decorator: ast.expr) -> tuple[str, str]:
    """(the root name, the last name) of ``@a.b.c(...)``: ("a", "c")."""
    node = decorator.func if isinstance(decorator, ast.Call) else decorator
    last = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
    while isinstance(node, ast.Attribute):
        node = node.value
    return getattr(node, "id", ""), last


def _kept_decorators(
    function: ast.FunctionDef | ast.AsyncFunctionDef, tree: ast.Module, task: Task, stub: _Stub
) -> list[str]:
    """The reply's decorators of the answer that the user's header lacks and that must not be
    lost with the reply's header (``@lru_cache`` on a recursive answer: without it the answer
    can turn exponential), as source text. Kept only when their name resolves: imported or
    defined by the reply or the module. Class-only decorators (``@staticmethod``, ...) are
    never kept; nor are any when the reply's ``async`` differs from the stub's."""
    if isinstance(function, ast.AsyncFunctionDef) != isinstance(stub.function,
                                                                ast.AsyncFunctionDef):
        return []
    # The user's own decorators, by their last name: @contextmanager is
    # @contextlib.contextmanager, and must not be applied twice.
    have = {_decorator_names(d)[1] for d in stub.function.decorator_list}
    bound = set(_module_top_level(task.module_source)[2])
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
    kept = []
    for decorator in function.decorator_list:
        root, last = _decorator_names(decorator)
        text = ast.unparse(decorator)
        if last not in have and root in bound and last not in _DESCRIPTOR_DECORATORS:
            kept.append(text)
    return kept


def _decorated_inner(
    stub: _Stub, function: ast.FunctionDef | ast.AsyncFunctionDef, decorators: list[str],
    body_text: str, unit: str, qualname: str,
) -> str:
    """A body (column 0) that defines the answer as an inner function under the user's name,
    with the reply's ``decorators`` and the user's parameters and defaults (no annotations),
    and returns its result, every argument passed on. Recursive calls in the body find the
    decorated inner function, so ``@lru_cache`` still memoises; in a method, the body's
    ``self.name(...)`` calls become ``name(self, ...)`` for the same reason."""
    args = copy.deepcopy(stub.function.args)
    for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
        if arg is not None:
            arg.annotation = None
    groups = _parameter_groups(stub.function.args)
    passed = groups[0] + [f"*{n}" for n in groups[1]] + [f"{n}={n}" for n in groups[2]] + [
        f"**{n}" for n in groups[3]]
    is_async = isinstance(function, ast.AsyncFunctionDef)
    name = stub.function.name
    if "." in qualname and groups[0] and not any(
            _decorator_names(d)[1] == "staticmethod" for d in stub.function.decorator_list):
        body_text = _self_calls_as_calls(body_text, groups[0][0], name)
    head = "".join(f"@{d}\n" for d in decorators)
    head += f"{'async def' if is_async else 'def'} {name}({ast.unparse(args)}):\n"
    call = f"{'await ' if is_async else ''}{name}({', '.join(passed)})"
    return head + indent_code(body_text.rstrip(), unit) + f"\n\nreturn {call}\n"


def _self_calls_as_calls(body_text: str, first: str, name: str) -> str:
    """``body_text`` (statements at column 0) with each ``first.name(args)`` call (``self.fib(n
    - 1)``) written ``name(first, args)``; unchanged if it does not parse."""
    try:
        tree = parse_tree(body_text)
    except (SyntaxError, ValueError):
        return body_text
    lines = body_text.split("\n")
    edits: dict[int, list[tuple[int, int, bytes]]] = {}  # row: (start, end, new), bytes
    for node in ast.walk(tree):
        func = getattr(node, "func", None)
        if not (isinstance(node, ast.Call) and isinstance(func, ast.Attribute)
                and isinstance(func.value, ast.Name) and func.value.id == first
                and func.attr == name and func.end_lineno == func.lineno):
            continue
        row = func.lineno - 1
        data = lines[row].encode()
        paren = data.find(b"(", func.end_col_offset or 0)
        if paren < 0:
            continue  # the call's bracket is on another line: left as it is
        rest = data[paren + 1:].lstrip()
        extra = first if rest.startswith(b")") and not node.args and not node.keywords \
            else f"{first}, "
        edits.setdefault(row, []).append(
            (func.col_offset, paren + 1, f"{name}(".encode() + extra.encode()))
    for row, changes in edits.items():
        data = lines[row].encode()
        for start, end, new in sorted(changes, reverse=True):
            data = data[:start] + new + data[end:]
        lines[row] = data.decode()
    return "\n".join(lines)


def _segment(lines: list[str], node: ast.stmt) -> str:
    start = min([d.lineno for d in getattr(node, "decorator_list", [])] + [node.lineno]) - 1
    end = node.end_lineno or node.lineno
    return dedent_code("\n".join(lines[start:end]))


def _contains(outer: ast.AST, inner: ast.AST) -> bool:
    return any(node is inner for node in ast.walk(outer))


@functools.lru_cache(maxsize=16)
def _module_top_level(source: str) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """(the module's top-level imports as ``ast.unparse`` text, the names of its top-level
    functions and classes, every name its top-level imports and definitions bind). Cached: one
    reply asks for each of its imports and helpers, and the coder's retries ask again, about
    the same module text."""
    tree = parse_tree(source)
    import_nodes = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    imports = frozenset(ast.unparse(n) for n in import_nodes)
    names = frozenset(n.name for n in tree.body
                      if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)))
    bound = names | {(a.asname or a.name).split(".")[0] for n in import_nodes for a in n.names}
    return imports, names, frozenset(bound)


def _already_imported(node: ast.Import | ast.ImportFrom, task: Task) -> bool:
    return ast.unparse(node) in _module_top_level(task.module_source)[0]


def _defined_in_module(name: str, task: Task) -> bool:
    return name in _module_top_level(task.module_source)[1]


def _assemble(stub: _Stub, extras: list[str], body_text: str) -> str | None:
    """The stub's header and docstring over ``extras`` and ``body_text`` (column 0), indented
    like the stub's body without touching string literals; None if that does not parse."""
    parts = [stub.header]
    if stub.docstring:
        parts.append(stub.docstring)
    for extra in extras:
        parts.append(indent_code(extra.rstrip("\n"), stub.indent))
    parts.append(indent_code(body_text.rstrip(), stub.indent))
    text = "\n".join(parts)
    if not isinstance(_parses(text), ast.Module):
        return None
    try:  # compiling runs nothing; it catches what parsing lets through ('await' outside async)
        compile(text, "<generated>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return None
    return text + "\n"
