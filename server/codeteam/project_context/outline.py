"""Definitions as the prompt shows them: signatures and docstring summaries, a class as its
header, fields and method signatures; the body only of a short function the target names.

Each renderer returns its *levels*, smallest first, so that the budget can send every
definition small and then grow the nearest ones. The texts are Python (a function with only
a docstring is valid), at column 0 unless ``indent`` is given.
"""

from __future__ import annotations

import ast
import copy
import textwrap

from codeteam.project_context.sources import ModuleFile
from codeteam.pysource.functions import is_placeholder_body

SUMMARY_LINES = 6
"""Lines of a docstring's first paragraph shown for a definition the target names."""

SHORT_BODY_LINES = 4
"""A function the target names whose body has at most this many lines is shown whole."""

MAX_METHODS = 30
"""Method signatures shown for a class; the rest are counted in a comment."""

MAX_FIELDS = 12
"""Class fields and instance attributes shown for a class."""

VALUE_CHARS = 70
"""A constant's or field's value longer than this is shown as ``...``."""

Function = ast.FunctionDef | ast.AsyncFunctionDef


def signature(node: Function) -> str:
    """``def name(args) -> ret`` (or ``async def``), as :func:`ast.unparse` writes it."""
    clone = copy.copy(node)
    clone.decorator_list = []
    clone.body = [ast.Expr(ast.Constant(Ellipsis))]
    return ast.unparse(clone).split("\n", 1)[0].removesuffix(":")


def compact_signature(node: Function) -> str:
    """:func:`signature` without annotations, long defaults as ``...``: the smallest form,
    for definitions the target does not name when the budget is tight."""
    clone = copy.copy(node)
    clone.decorator_list = []
    clone.body = [ast.Expr(ast.Constant(Ellipsis))]
    clone.returns = None
    args = copy.copy(node.args)  # shallow copies: the module's tree is shared

    def bare(arg: ast.arg | None) -> ast.arg | None:
        if arg is None:
            return None
        arg = copy.copy(arg)
        arg.annotation = None
        return arg

    args.posonlyargs = [bare(a) for a in args.posonlyargs]
    args.args = [bare(a) for a in args.args]
    args.kwonlyargs = [bare(a) for a in args.kwonlyargs]
    args.vararg, args.kwarg = bare(args.vararg), bare(args.kwarg)
    args.defaults = [_short(d) for d in args.defaults]
    args.kw_defaults = [_short(d) if d is not None else None for d in args.kw_defaults]
    clone.args = args
    return ast.unparse(clone).split("\n", 1)[0].removesuffix(":")


def _short(node: ast.expr) -> ast.expr:
    return node if len(ast.unparse(node)) <= 20 else ast.Constant(Ellipsis)


def _decorators(node: Function | ast.ClassDef, indent: str) -> list[str]:
    out = []
    for decorator in node.decorator_list:
        text = ast.unparse(decorator)
        out.append(f"{indent}@{text if len(text) <= VALUE_CHARS else text[:VALUE_CHARS] + '...'}")
    return out


def _quoted(text: str, indent: str) -> list[str]:
    text = text.replace('"""', '\\"\\"\\"').rstrip("\\")
    lines = text.split("\n")
    if len(lines) == 1:
        return [f'{indent}"""{lines[0]}"""']
    return [f'{indent}"""{lines[0]}'] + [f"{indent}{line}" if line else "" for line in lines[1:]] + [
        f'{indent}"""'
    ]


def docstring_summary(node: ast.AST, lines: int = SUMMARY_LINES) -> str | None:
    """The first paragraph of the docstring of ``node``, at most ``lines`` lines."""
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return None
    doc = ast.get_docstring(node, clean=True)
    if not doc:
        return None
    paragraph = doc.strip().split("\n\n", 1)[0].split("\n")
    kept = paragraph[:lines]
    if len(paragraph) > lines:
        kept[-1] += " ..."
    return "\n".join(line.rstrip() for line in kept)


def body_without_docstring(node: Function) -> list[ast.stmt]:
    body = list(node.body)
    if (body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)):
        body = body[1:]
    return body


def is_stub(node: ast.AST) -> bool:
    """A function whose body is a placeholder (still to be written, or abstract)."""
    return isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and is_placeholder_body(
        body_without_docstring(node)
    )


def short_body(module: ModuleFile, node: Function) -> str | None:
    """The body's source (dedented) when it has at most :data:`SHORT_BODY_LINES` lines."""
    body = body_without_docstring(node)
    if not body or is_placeholder_body(body):
        return None
    first, last = body[0].lineno - 1, (body[-1].end_lineno or body[-1].lineno) - 1
    if last - first + 1 > SHORT_BODY_LINES or first <= node.lineno - 1:
        return None
    return textwrap.dedent(module.segment(first, last))


def function_levels(
    module: ModuleFile, node: Function, *, indent: str = "", with_body: bool = False
) -> list[str]:
    """Levels of a function: its compact signature (:func:`compact_signature`), when that
    is shorter; its signature; with the docstring's first line; with its summary (and,
    ``with_body``, a short body)."""
    head = _decorators(node, indent) + [f"{indent}{signature(node)}:"]
    bare = "\n".join(head[:-1] + [head[-1] + " ..."])
    compact = "\n".join(head[:-1] + [f"{indent}{compact_signature(node)}: ..."])
    levels = [compact] if len(compact) < len(bare) else []
    summary = docstring_summary(node)
    if not summary:
        levels.append(bare)
    else:
        first = summary.split("\n", 1)[0]
        levels += [bare, "\n".join(head + _quoted(first, indent + "    "))]
        if summary != first:
            levels.append("\n".join(head + _quoted(summary, indent + "    ")))
    body = short_body(module, node) if with_body else None
    if body is not None:
        inner = textwrap.indent(body, indent + "    ")
        doc = _quoted(summary, indent + "    ") if summary else []
        levels.append("\n".join(head + doc + [inner]))
    return levels


def constant_text(node: ast.Assign | ast.AnnAssign, indent: str = "") -> str:
    """``NAME = value`` or ``NAME: type = value``; a long value is shown as ``...``."""
    if isinstance(node, ast.AnnAssign):
        target = f"{ast.unparse(node.target)}: {ast.unparse(node.annotation)}"
    else:
        target = " = ".join(ast.unparse(t) for t in node.targets)
    if node.value is None:
        return indent + target
    value = ast.unparse(node.value)
    if len(value) > VALUE_CHARS or "\n" in value:
        value = "..."
    return f"{indent}{target} = {value}"


def class_header(node: ast.ClassDef, indent: str = "") -> str:
    bases = [ast.unparse(b) for b in node.bases] + [ast.unparse(k) for k in node.keywords]
    return "\n".join(_decorators(node, indent) + [
        f"{indent}class {node.name}" + (f"({', '.join(bases)})" if bases else "") + ":"
    ])


ATTRIBUTE_CHARS = 40
"""An instance attribute's value (or annotation) longer than this is cut with ``...``."""


def instance_attributes(node: ast.ClassDef) -> list[tuple[str, str, str]]:
    """The instance attributes the class's own methods assign (``self.x = ...``,
    ``self.x: T = ...``, ``self.x, self.y = ...``, ``with ... as self.x``, ``for self.x in``),
    as (name, what it is set to, the method), first assignment first, ``__init__`` and
    ``__post_init__`` before the other methods. What it is set to is the annotation when
    there is one, else the assigned value (``...`` when it is one of several unpacked),
    shortened to :data:`ATTRIBUTE_CHARS`."""
    methods = [c for c in node.body if isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef))]
    methods.sort(key=lambda m: m.name not in ("__init__", "__post_init__"))
    found: dict[str, tuple[str, str, str]] = {}

    def note(target: ast.expr, value: ast.expr | None, annotation: ast.expr | None,
             method: str) -> None:
        if isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                note(element, None, None, method)
            return
        if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                and target.value.id == "self") or target.attr in found:
            return
        shown = ast.unparse(annotation) if annotation is not None else (
            ast.unparse(value) if value is not None else "...")
        if len(shown) > ATTRIBUTE_CHARS or "\n" in shown:
            shown = shown.split("\n", 1)[0][: ATTRIBUTE_CHARS - 3] + "..."
        found[target.attr] = (target.attr, f": {shown}" if annotation is not None
                              else f" = {shown}", method)

    for method in methods:
        for sub in ast.walk(method):
            if isinstance(sub, ast.Assign):
                for target in sub.targets:
                    note(target, sub.value, None, method.name)
            elif isinstance(sub, ast.AnnAssign):
                note(sub.target, sub.value, sub.annotation, method.name)
            elif isinstance(sub, (ast.For, ast.AsyncFor)):
                note(sub.target, None, None, method.name)
            elif isinstance(sub, (ast.With, ast.AsyncWith)):
                for item in sub.items:
                    if item.optional_vars is not None:
                        note(item.optional_vars, None, None, method.name)
    return list(found.values())


def class_fields(node: ast.ClassDef, indent: str, *, detail: bool = True,
                 limit: int | None = MAX_FIELDS) -> list[str]:
    """Class-level fields (constants included) and the instance attributes its methods
    assign (:func:`instance_attributes`), at most ``limit`` of each (None: all; the
    target's own class): with ``detail`` each attribute on its own comment line with what it
    is set to and where (``#   self._path = Path(path)  (__init__)``), else their names on
    one line."""
    out: list[str] = []
    fields: set[str] = set()
    for child in node.body:
        if isinstance(child, (ast.Assign, ast.AnnAssign)):
            targets = child.targets if isinstance(child, ast.Assign) else [child.target]
            if all(isinstance(t, ast.Name) and not t.id.startswith("__") for t in targets):
                out.append(constant_text(child, indent))
                fields |= {t.id for t in targets if isinstance(t, ast.Name)}
    out = out[:limit]
    attributes = [a for a in instance_attributes(node) if a[0] not in fields]
    if not attributes:
        return out
    shown = attributes[:limit]
    more = len(attributes) - len(shown)
    if not detail:
        names = ", ".join(name for name, _, _ in shown) + (f" and {more} more" if more > 0 else "")
        return out + [f"{indent}# instance attributes: {names}"]
    out.append(f"{indent}# instance attributes:")
    out += [f"{indent}#   self.{name}{value}  ({method})" for name, value, method in shown]
    if more > 0:
        out.append(f"{indent}#   ... and {more} more")
    return out


def class_levels(
    module: ModuleFile,
    node: ast.ClassDef,
    *,
    wanted: frozenset[str] | set[str] = frozenset(),
    vocabulary: frozenset[str] | set[str] = frozenset(),
    skip: frozenset[str] | set[str] = frozenset(),
    private: bool = False,
    methods: bool = True,
    indent: str = "",
) -> list[str]:
    """Levels of a class, smallest first: header, fields, ``__init__`` and the signatures of
    the ``wanted`` members and of those the target's module uses (``vocabulary``: attribute
    names seen in it); then every public method's signature (every method's with
    ``private``); then the class docstring's summary and the ``wanted`` members' summaries.
    ``skip`` names members never shown (the target itself); ``methods=False`` shows no
    methods (they are separate definitions: the target's own class) and every field and
    instance attribute (no :data:`MAX_FIELDS` cut: it is the class the target works on)."""
    inner = indent + "    "
    functions = [c for c in node.body if isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef))
                 and c.name not in skip] if methods else []
    nested = [c for c in node.body if isinstance(c, ast.ClassDef) and c.name not in skip]

    def shown(child: Function, everything: bool) -> bool:
        if child.name in wanted or child.name in ("__init__", "__post_init__", "__call__"):
            return True
        if child.name in vocabulary and (private or not child.name.startswith("__")):
            return True
        if not everything:
            return False
        return private or not child.name.startswith("_")

    compact: dict[int, str] = {}
    full: dict[int, list[str]] = {}

    def compact_line(child: Function) -> str:
        if id(child) not in compact:
            compact[id(child)] = "\n".join(_decorators(child, inner)
                                           + [f"{inner}{compact_signature(child)}: ..."])
        return compact[id(child)]

    def full_levels(child: Function) -> list[str]:
        if id(child) not in full:
            levels = function_levels(module, child, indent=inner)
            head = signature(child)
            full[id(child)] = [level for level in levels if head in level]
        return full[id(child)]

    def render(everything: bool, docs: bool, capped: bool = False) -> str:
        out = [class_header(node, indent)]
        summary = docstring_summary(node) if docs else None
        if summary:
            out += _quoted(summary, inner)
        out += class_fields(node, inner, detail=everything,
                            limit=MAX_FIELDS if methods or capped else None)
        picked = [m for m in functions if shown(m, everything)]
        seen: set[str] = set()
        unique = []
        for child in picked:  # a property's getter and setter: once
            if child.name not in seen:
                seen.add(child.name)
                unique.append(child)
        dropped = len(unique) - MAX_METHODS
        for child in unique[:MAX_METHODS]:
            if not everything:
                out.append(compact_line(child))
                continue
            levels = full_levels(child)
            out.append(levels[min(1, len(levels) - 1)] if docs and child.name in wanted
                       else levels[0])
        for child in nested:
            if everything or child.name in wanted:
                out.append(class_header(child, inner) + " ...")
        if dropped > 0:
            out.append(f"{inner}# ... and {dropped} more methods")
        if len(out) == 1 and methods:
            out.append(f"{inner}...")
        return "\n".join(out)

    levels = [render(False, False), render(True, False), render(True, True)]
    if not methods:  # its own class: first with at most MAX_FIELDS fields, so it always fits
        levels.insert(0, render(False, False, capped=True))
    unique_levels: list[str] = []
    for level in levels:
        if not unique_levels or level != unique_levels[-1]:
            unique_levels.append(level)
    return unique_levels
