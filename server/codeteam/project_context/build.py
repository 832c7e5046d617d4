"""Build the project context of one target function: find the definitions it is likely to
need, rank them nearest first, and fit them into a token budget.

What the target likely needs (issue 16): the names used in its signature, annotations and
decorators, and for a revision in its current body (resolved by jedi, so a local name
shadowing a module one is not pulled in); the names its docstring (plan included) mentions;
its own class (fields, other methods) and base classes; the types in the signatures of what
it names; the module's top-level functions, classes and constants; what the module imports
from the project, followed into those modules. Stubs still to be written are left out, and
the target's own text is never repeated.

The budget (``context_tokens``, tokens estimated as characters / 4) is spent in two passes:
first every candidate in rank order at its smallest (a signature), then the nearest grow to
their docstring summaries (a short body for a short function the target names). What does
not fit is named in :attr:`ProjectContext.left_out`.

Cost: see ``scripts/bench_context.py`` (milliseconds per function on real projects).
Results are cached per module text, target and budget while the files read stay unchanged.
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import re
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from codeteam.project_context.context_models import (
    CHARS_PER_TOKEN,
    ContextDefinition,
    ContextFile,
    Kind,
    LeftOut,
    ProjectContext,
    estimate_tokens,
)
from codeteam.project_context.outline import (
    class_header,
    class_levels,
    constant_text,
    function_levels,
    is_stub,
    signature,
)
from codeteam.project_context.resolve import Found, ProjectResolver
from codeteam.project_context.sources import (
    Member,
    ModuleCache,
    ModuleFile,
    find_project_root,
    import_root,
    relative,
)
from codeteam.pysource.functions import FunctionInfo, is_placeholder_body

if TYPE_CHECKING:
    from codeteam.project import Project

DEFAULT_BUDGET = 1500
"""Tokens of project context per prompt (the ``context_tokens`` setting's default)."""

FILE_OVERHEAD = len("```python\n# \n```\n\n")
"""Characters the prompt adds around each file's definitions (fence and path)."""

LEFT_OUT_RESERVE = 60 * CHARS_PER_TOKEN
"""Characters kept for the line naming what was left out."""

OWN_CLASS_SHARE = 0.3
"""The share of the budget the members of the target's own class that it does not name take
in the first pass (at their smallest): a class of a hundred methods still leaves room for
what the module imports; what is left after everything else goes to the rest of them."""

MAX_IMPORT_LINES = 12
"""Import statements of the target's module shown."""

UNUSED_MODULE_MEMBERS = 12
"""Public definitions shown of a project module the target's module imports whole but uses
nowhere outside the target (the body that is being written must be what uses it)."""

_WORD = re.compile(r"(?<![\w.])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_BUILTINS = set(dir(builtins))


@dataclass
class _Candidate:
    module: ModuleFile
    qualname: str
    kind: Kind
    line: int
    node: ast.AST | None
    referenced: bool
    distance: int
    order: int
    reason: str
    pulled_by: str | None = None
    container: str | None = None
    wanted: set[str] = field(default_factory=set)
    called: bool = False
    levels: list[str] = field(default_factory=list)
    chosen: int = -1
    weight: int = 0
    """How often the rest of the target's module uses the name: the module's vocabulary."""
    compact: bool = False
    """``levels[0]`` is the compact signature (a function: see ``function_levels``)."""

    @property
    def rank(self) -> tuple[int, ...]:
        """Named by the target first, nearest first; then its own class's members that the
        module calls; then the rest (its class's other members, the module's definitions,
        what it imports) the most used by the module first, nearest first among equals."""
        if self.kind == "imports":
            return (0, 9, 0, 0)  # after what the target names, before the rest
        if self.referenced:
            return (0, self.distance, 0, -self.weight, self.order)
        if self.container:
            # A member of the target's own class, whatever the class's size: right after
            # what the target names (here and in other modules), the most used first.
            return (0, 3, 1, -self.weight, self.order)
        return (1, -self.weight, self.distance, self.order)

    def first(self) -> int:
        """The level sent in the first pass: the full signature for what the target names,
        the smallest form for the rest."""
        return min(1, len(self.levels) - 1) if self.referenced and self.compact else 0

    def preferred(self) -> int:
        if self.referenced:
            return len(self.levels) - 1
        return min(2 if self.compact else 1, len(self.levels) - 1)


class _Builder:
    def __init__(self, own: ModuleFile, info: FunctionInfo, resolver: ProjectResolver | None):
        self.own = own
        self.info = info
        self.resolver = resolver
        self.candidates: dict[tuple[str, str], _Candidate] = {}
        self.order = 0
        self.target = self._target_node()
        self.own_class = self._own_class()
        self.shadowed = _local_names(self.target) if self.target else set()
        # How the rest of the module uses names: ``name``, ``x.attr``, ``module.attr``.
        self.name_uses: Counter[str] = Counter()
        self.attribute_uses: Counter[str] = Counter()
        self.dotted_uses: Counter[tuple[str, str]] = Counter()
        for node in ast.walk(own.tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                if not self._inside_target(own, node.lineno - 1):
                    self.name_uses[node.id] += 1
            elif isinstance(node, ast.Attribute) and not self._inside_target(
                    own, node.lineno - 1):
                self.attribute_uses[node.attr] += 1
                if isinstance(node.value, ast.Name):
                    self.dotted_uses[(node.value.id, node.attr)] += 1

    # --- the target ------------------------------------------------------------------------
    def _target_node(self) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        for node in ast.walk(self.own.tree):
            if (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                    and node.lineno - 1 == self.info.def_line):
                return node
        return None

    def _own_class(self) -> Member | None:
        """The nearest class around the target (a method's, or a nested function's)."""
        parts = self.info.qualname.split(".")[:-1]
        while parts:
            member = self.own.find(".".join(parts))
            if member is not None and isinstance(member.node, ast.ClassDef):
                return member
            parts.pop()
        return None

    def _inside_target(self, module: ModuleFile, line: int) -> bool:
        return module is self.own and self.info.start_line <= line <= self.info.end_line

    # --- adding candidates -----------------------------------------------------------------
    def add(self, module: ModuleFile, member: Member, *, referenced: bool, distance: int,
            reason: str, pulled_by: str | None = None, wanted: str | None = None,
            called: bool = False, weight: int = 0) -> None:
        if self._inside_target(module, member.node.lineno - 1):
            return
        own_class = module is self.own and self.own_class is not None and (
            member.qualname == self.own_class.qualname)
        own_member = module is self.own and self.own_class is not None and (
            member.container == self.own_class.qualname)
        if member.container is not None and not own_class and not own_member:
            # A method (or nested class): shown inside its class.
            owner = module.find(member.container)
            if owner is None:
                return
            name = member.qualname.rsplit(".", 1)[-1]
            self.add(module, owner, referenced=referenced, distance=distance, reason=reason,
                     pulled_by=pulled_by, wanted=name, weight=weight)
            return
        node = member.node
        if module is self.own and is_stub(node) and not own_member:
            return  # a function still to be written: calling it cannot help
        kind: Kind = ("class" if isinstance(node, ast.ClassDef) else
                      "method" if own_member else
                      "function" if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                      else "constant")
        key = (module.rel, member.qualname)
        found = self.candidates.get(key)
        if found is None:
            self.order += 1
            found = _Candidate(module, member.qualname, kind, node.lineno - 1, node, referenced,
                               distance, self.order, reason, pulled_by,
                               container=member.container if own_member else None)
            name = member.qualname.rsplit(".", 1)[-1]
            # Imported names count by the name the module gives them (``weight``); a class
            # reached another way by how often the module says its name, e.g. in annotations.
            found.weight = (self.attribute_uses[name] if own_member else
                            self.name_uses[name] if module is self.own or kind == "class"
                            else 0)
            self.candidates[key] = found
        elif (referenced, -distance) > (found.referenced, -found.distance):
            # A stronger reason: named by the target beats merely nearby; then nearer.
            found.referenced, found.distance = referenced, distance
            found.reason, found.pulled_by = reason, pulled_by
        if wanted:
            found.wanted.add(wanted)
        found.called = found.called or called
        found.weight = max(found.weight, weight)

    # --- resolving names -------------------------------------------------------------------
    def resolve_in(self, module: ModuleFile, name: str, depth: int = 0) -> list[Found]:
        """``name`` as module ``module`` binds it at its top level."""
        member = module.top_level.get(name)
        if member is not None:
            return [Found(module, member)]
        binding = module.binding(name)
        if binding is None or self.resolver is None or depth > 2:
            return []
        if not self.resolver.worth_asking(module, name):
            return []
        return self.resolver.goto(module, binding.line, binding.column)

    def resolve_word(self, word: str) -> None:
        """A dotted name the docstring mentions (``helper``, ``self.flush``, ``i18n.gettext``)."""
        parts = word.split(".")
        head = parts[0]
        how = {"referenced": True, "reason": "named in the docstring", "pulled_by": word}
        if head in self.shadowed or head in ("self", "cls") and len(parts) == 1:
            return
        if self.own_class is not None:
            own_members = {m.qualname.rsplit(".", 1)[-1]: m
                           for m in self.own.members_of(self.own_class.qualname)}
            name = parts[1] if head in ("self", "cls") and len(parts) > 1 else head
            if name in own_members and name != self.info.name:
                self.add(self.own, own_members[name], distance=0, **how)
                return
            if head in ("self", "cls"):
                return
        for found in self.resolve_in(self.own, head):
            if found.member is not None:
                wanted = parts[1] if len(parts) > 1 and isinstance(
                    found.member.node, ast.ClassDef) else None
                self.add(found.module, found.member, distance=self._distance(found.module),
                         wanted=wanted, **how)
            elif len(parts) > 1:  # a module: its member
                for inner in self.resolve_in(found.module, parts[1], 1):
                    if inner.member is not None:
                        self.add(inner.module, inner.member, distance=2, **how)

    def _distance(self, module: ModuleFile) -> int:
        return 1 if module is self.own else 2

    def code_names(self) -> None:
        """Names used in the signature (annotations, defaults, decorators) and, for a
        revision, the body, resolved where they are used."""
        node = self.target
        if node is None:
            return
        signature_parts: list[ast.AST] = list(node.decorator_list)
        arguments = node.args
        for arg in arguments.posonlyargs + arguments.args + arguments.kwonlyargs + [
                arguments.vararg, arguments.kwarg]:
            if arg is not None and arg.annotation is not None:
                signature_parts.append(arg.annotation)
        signature_parts += [d for d in arguments.defaults + arguments.kw_defaults if d]
        if node.returns is not None:
            signature_parts.append(node.returns)
        body = _body(node)
        parts = [(p, "used in the signature") for p in signature_parts]
        if not is_placeholder_body(body):
            parts += [(p, "used in the body") for p in body]
        calls = {id(n.func) for part, _ in parts for n in ast.walk(part) if isinstance(n, ast.Call)}
        seen: set[tuple[int, int]] = set()
        for part, reason in parts:
            for name_node, text, line, column in _occurrences(self.own, part):
                if (line, column) in seen:
                    continue
                seen.add((line, column))
                how = {"referenced": True, "reason": reason, "pulled_by": text,
                       "called": id(name_node) in calls}
                self._resolve_occurrence(name_node, text, line, column, how)

    def _resolve_occurrence(self, node: ast.AST, text: str, line: int, column: int,
                            how: dict) -> None:
        if self.resolver is not None:
            for found in self.resolver.goto(self.own, line, column):
                if found.member is None:
                    continue
                member = found.member
                if found.module is self.own and self.own_class is not None and (
                        member.container == self.own_class.qualname):
                    self.add(self.own, member, distance=0, **how)
                else:
                    self.add(found.module, member, distance=self._distance(found.module), **how)
            return
        # No project (a lone text): the module's own names, by ast.
        if isinstance(node, ast.Name) and node.id not in self.shadowed:
            self.resolve_word(node.id)
        elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
              and (node.value.id in ("self", "cls") or node.value.id not in self.shadowed)):
            self.resolve_word(f"{node.value.id}.{node.attr}")

    def docstring_names(self) -> None:
        doc = self.info.docstring or ""
        for word in dict.fromkeys(_WORD.findall(doc)):
            if word.split(".")[0] in _BUILTINS:
                continue
            self.resolve_word(word)

    def own_class_and_bases(self) -> None:
        if self.own_class is None:
            return
        self.add(self.own, self.own_class, referenced=True, distance=0, reason="its own class")
        for member in self.own.members_of(self.own_class.qualname):
            if member.node.lineno - 1 != self.info.def_line and (
                    member.qualname.rsplit(".", 1)[-1] != self.info.name):
                self.add(self.own, member, referenced=False, distance=0,
                         reason="a member of its class")
        node = self.own_class.node
        assert isinstance(node, ast.ClassDef)
        # Its base classes, and theirs (what ``self.`` reaches), three levels up.
        queue: list[tuple[ModuleFile, ast.ClassDef, int]] = [(self.own, node, 0)]
        seen = {id(node)}
        while queue:
            module, cls, depth = queue.pop(0)
            for base in cls.bases:
                head = _head(base)
                for found in self.resolve_in(module, head) if head else []:
                    base_node = found.member.node if found.member is not None else None
                    if not isinstance(base_node, ast.ClassDef) or id(base_node) in seen:
                        continue
                    seen.add(id(base_node))
                    self.add(found.module, found.member, referenced=True,
                             distance=max(self._distance(found.module), depth + 1),
                             reason=f"a base class of {cls.name}", pulled_by=head)
                    if depth < 2:
                        queue.append((found.module, base_node, depth + 1))
        # The module's constants its methods read (``self._path = DEFAULT_PATH``, ``if n >
        # LIMIT``): the target, a method too, likely reads them as well.
        for name in _names_read(node, skip_line=self.info.def_line):
            member = self.own.top_level.get(name)
            if member is not None and isinstance(member.node, (ast.Assign, ast.AnnAssign)) \
                    and name not in self.shadowed:
                self.add(self.own, member, referenced=True, distance=1,
                         reason=f"read by the methods of {node.name}", pulled_by=name)
        # The types of its attributes (``self.loader.load()`` needs the loader's class).
        for name in _attribute_type_names(node):
            for found in self.resolve_in(self.own, name):
                if found.member is not None and isinstance(found.member.node, ast.ClassDef):
                    self.add(found.module, found.member, referenced=False, distance=2,
                             reason=f"the type of an attribute of {node.name}", pulled_by=name)

    def module_definitions(self) -> None:
        """The rest of the module's top level and what it imports from the project."""
        for name, member in self.own.top_level.items():
            if (name.startswith("__") and name.endswith("__")) or name in self.shadowed:
                continue
            if member.node.lineno - 1 == self.info.def_line:
                continue
            if self.own_class is not None and member.qualname == self.own_class.qualname.split(
                    ".")[0]:
                continue
            self.add(self.own, member, referenced=False, distance=1,
                     reason="defined in the module")
        if self.resolver is None:
            return
        aliases: dict[str, ModuleFile] = {}
        for binding in self.own.imports:
            if binding.name in self.shadowed or not self.resolver.worth_asking(
                    self.own, binding.name):
                continue
            for found in self.resolver.goto(self.own, binding.line, binding.column):
                if found.member is not None:
                    self.add(found.module, found.member, referenced=False, distance=2,
                             reason="imported by the module", pulled_by=binding.name,
                             weight=self.name_uses[binding.name])
                else:
                    aliases.setdefault(binding.name, found.module)
        # A project module imported whole (``from . import nodes``): the members the rest of
        # the module uses through it (``nodes.Const``), the most used first.
        uses = Counter({key: n for key, n in self.dotted_uses.items() if key[0] in aliases})
        for (alias, attr), count in uses.most_common():
            for found in self.resolve_in(aliases[alias], attr, 1):
                if found.member is not None:
                    self.add(found.module, found.member, referenced=False, distance=2,
                             reason="used by the module", pulled_by=f"{alias}.{attr}",
                             weight=count)
        # One the rest of the module never uses: the import is there for the function
        # itself, so its public definitions are what the body would call.
        for alias, module in aliases.items():
            if self.name_uses[alias] or any(key[0] == alias for key in uses):
                continue
            public = [m for name, m in module.top_level.items() if not name.startswith("_")]
            for member in public[:UNUSED_MODULE_MEMBERS]:
                self.add(module, member, referenced=False, distance=2,
                         reason="in a module the module imports and uses nowhere else",
                         pulled_by=alias)

    def signature_types(self) -> None:
        """One level further: the project types in the signatures (and a class's bases) of
        the definitions the target names."""
        for candidate in list(self.candidates.values()):
            if not candidate.referenced or candidate.node is None:
                continue
            for name in _signature_names(candidate.node):
                for found in self.resolve_in(candidate.module, name):
                    if found.member is not None:
                        distance = max(candidate.distance, self._distance(found.module))
                        self.add(found.module, found.member, referenced=False,
                                 distance=distance + 1,
                                 reason=f"in the signature of {candidate.qualname}",
                                 pulled_by=name)

    # --- rendering -------------------------------------------------------------------------
    def levels(self, candidate: _Candidate) -> list[str]:
        node = candidate.node
        indent = "    " if candidate.container else ""
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            levels = function_levels(candidate.module, node, indent=indent,
                                     with_body=candidate.called or candidate.referenced)
            candidate.compact = len(levels) > 1 and signature(node) not in levels[0]
            if is_stub(node):  # a stub: its signature only
                return levels[: 2 if candidate.compact else 1]
            return levels
        if isinstance(node, ast.ClassDef):
            own = self.own_class is not None and candidate.module is self.own and (
                candidate.qualname == self.own_class.qualname)
            levels = class_levels(candidate.module, node, wanted=candidate.wanted,
                                  vocabulary=set(self.attribute_uses), indent=indent,
                                  private=candidate.module is self.own, methods=not own)
            if own or candidate.container:
                return levels
            # Its header alone first (``class Const(Literal): ...``), when the budget is tight.
            candidate.compact = True
            return [class_header(node, indent) + " ...", *levels]
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            return [constant_text(node)]
        return [candidate.reason]

    def imports_candidate(self) -> _Candidate | None:
        statements = list(dict.fromkeys(b.statement for b in self.own.imports))
        if not statements:
            return None
        lines = statements[:MAX_IMPORT_LINES]
        if len(statements) > MAX_IMPORT_LINES:
            lines.append(f"# ... and {len(statements) - MAX_IMPORT_LINES} more imports")
        candidate = _Candidate(self.own, "imports", "imports", self.own.imports[0].line, None,
                               False, 1, -1, "the module's imports")
        candidate.levels = ["\n".join(lines)]
        return candidate


def _body(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.stmt]:
    body = list(node.body)
    if (body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)):
        body = body[1:]
    return body


def _head(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.value if not isinstance(node, ast.Call) else node.func
    return node.id if isinstance(node, ast.Name) else None


def _signature_names(node: ast.AST) -> list[str]:
    parts: list[ast.AST] = []
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        a = node.args
        parts = [x.annotation for x in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]
                 if x is not None and x.annotation is not None]
        if node.returns is not None:
            parts.append(node.returns)
    elif isinstance(node, ast.ClassDef):
        parts = list(node.bases) + [c.annotation for c in node.body if isinstance(c, ast.AnnAssign)]
    names: list[str] = []
    for part in parts:
        for sub in ast.walk(part):
            if isinstance(sub, ast.Name):
                names.append(sub.id)
            elif isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                names += [w.split(".")[0] for w in _WORD.findall(sub.value)]
    return [n for n in dict.fromkeys(names) if n not in _BUILTINS]


def _names_read(node: ast.ClassDef, *, skip_line: int) -> list[str]:
    """The names the methods of class ``node`` read (``ast.Name`` loads), in order of first
    use, without the method whose ``def`` is on 0-based line ``skip_line`` (the target)."""
    names: list[str] = []
    for child in node.body:
        if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if child.lineno - 1 == skip_line:
            continue
        for sub in ast.walk(child):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
                names.append(sub.id)
    return [n for n in dict.fromkeys(names) if n not in _BUILTINS]


def _attribute_type_names(node: ast.ClassDef) -> list[str]:
    """Names in the annotations of a class's fields, of its ``__init__`` parameters and of
    the ``self.x: T`` assignments there."""
    parts: list[ast.AST] = [c.annotation for c in node.body if isinstance(c, ast.AnnAssign)]
    for child in node.body:
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) and child.name == "__init__":
            a = child.args
            parts += [x.annotation for x in a.posonlyargs + a.args + a.kwonlyargs
                      if x.annotation is not None]
            parts += [sub.annotation for sub in ast.walk(child) if isinstance(sub, ast.AnnAssign)]
    names: list[str] = []
    for part in parts:
        for sub in ast.walk(part):
            if isinstance(sub, ast.Name):
                names.append(sub.id)
            elif isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                names += [w.split(".")[-1] for w in _WORD.findall(sub.value)]
            elif isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name):
                names.append(sub.value.id)
    return [n for n in dict.fromkeys(names) if n not in _BUILTINS]


def _local_names(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The names the function binds locally (parameters, assignments, loops, imports, inner
    definitions): in its body they shadow the module's."""
    a = node.args
    names = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg] if x}
    declared_global: set[str] = set()
    for sub in ast.walk(ast.Module(body=_body(node), type_ignores=[])):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, (ast.Store, ast.Del)):
            names.add(sub.id)
        elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(sub.name)
        elif isinstance(sub, (ast.Import, ast.ImportFrom)):
            names |= {(x.asname or x.name).split(".")[0] for x in sub.names}
        elif isinstance(sub, (ast.Global, ast.Nonlocal)):
            declared_global |= set(sub.names)
    return (names - declared_global) - {"self", "cls"}


def _occurrences(module: ModuleFile, part: ast.AST):
    """(node, dotted text, 0-based line, column) of each name and attribute in ``part``,
    the column of the name itself (an attribute's after its dot), outer first."""
    from codeteam.pysource.functions import char_column

    for node in ast.walk(part):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            if node.id in _BUILTINS:
                continue
            line = node.lineno - 1
            yield node, node.id, line, char_column(module.lines[line], node.col_offset)
        elif isinstance(node, ast.Attribute) and node.end_lineno is not None:
            line = node.end_lineno - 1
            end = char_column(module.lines[line], node.end_col_offset or 0)
            text = ast.unparse(node)
            yield node, text if len(text) < 60 else node.attr, line, end - len(node.attr)


def _pack(candidates: list[_Candidate], budget_chars: int, own_rel: str) -> None:
    """Choose each candidate's level: all at their smallest in rank order while they fit,
    then grown one level at a time, nearest first, toward their preferred level while the
    budget lasts."""
    used = 0
    files: set[str] = set()
    limit = budget_chars - LEFT_OUT_RESERVE
    own_members = 0
    deferred: list[_Candidate] = []
    for candidate in candidates:
        first = candidate.first()
        cost = len(candidate.levels[first]) + 2
        if candidate.module.rel not in files:
            cost += FILE_OVERHEAD + len(candidate.module.rel)
        if used + cost > limit and first > 0:
            first, cost = 0, cost - len(candidate.levels[first]) + len(candidate.levels[0])
        member = candidate.container is not None and not candidate.referenced
        if member and own_members + cost > OWN_CLASS_SHARE * limit:
            deferred.append(candidate)  # a big class: the rest first, then what still fits
            continue
        if used + cost <= limit:
            candidate.chosen = first
            used += cost
            files.add(candidate.module.rel)
            own_members += cost if member else 0
    for candidate in deferred:
        cost = len(candidate.levels[0]) + 2
        if used + cost <= limit:
            candidate.chosen = 0
            used += cost
    if all(c.chosen >= 0 for c in candidates):
        limit = budget_chars
    # Grow one level at a time, in rank order, round after round: a big class near the top
    # does not take all that is left before the next definition has its docstring.
    growing = True
    while growing:
        growing = False
        for candidate in candidates:
            if candidate.chosen < 0 or candidate.chosen >= candidate.preferred():
                continue
            delta = (len(candidate.levels[candidate.chosen + 1])
                     - len(candidate.levels[candidate.chosen]))
            if used + delta <= limit:
                candidate.chosen += 1
                used += delta
                growing = True


def _layout(candidates: list[_Candidate], own: ModuleFile,
            own_class: str | None) -> list[tuple[ModuleFile, list[_Candidate]]]:
    kept = [c for c in candidates if c.chosen >= 0]
    groups: dict[str, list[_Candidate]] = {}
    for candidate in kept:
        groups.setdefault(candidate.module.rel, []).append(candidate)
    order = sorted(groups, key=lambda rel: (rel != own.rel, min(c.rank for c in groups[rel])))
    out = []
    for rel in order:
        items = groups[rel]
        if rel == own.rel:
            # The imports, its own class with its members in source order, then the rest.
            items.sort(key=lambda c: (
                c.kind != "imports", 0 if c.qualname == own_class else 1 if c.container else 2,
                c.line if c.container else 0, c.rank))
        out.append((items[0].module, items))
    return out


def _build(source: str, info: FunctionInfo, path: Path | None, root: Path | None,
           budget: int, files: ModuleCache) -> tuple[ProjectContext, dict]:
    started = time.monotonic()
    own_rel = relative(path, root) if path is not None else ""
    own = ModuleFile.from_text(source, path, own_rel)
    resolver = None
    if path is not None and root is not None:
        resolver = ProjectResolver(root, import_root(path), own, files)
    builder = _Builder(own, info, resolver)
    builder.own_class_and_bases()
    builder.code_names()
    builder.docstring_names()
    builder.signature_types()
    builder.module_definitions()

    candidates = list(builder.candidates.values())
    for candidate in candidates:
        candidate.levels = builder.levels(candidate)
    imports = builder.imports_candidate()
    if imports is not None:
        candidates.append(imports)
    candidates.sort(key=lambda c: c.rank)
    _pack(candidates, budget * CHARS_PER_TOKEN, own.rel)

    own_class = builder.own_class.qualname if builder.own_class else None
    context = ProjectContext(root=str(root) if root else None,
                             path=own.rel if path is not None else None, budget=budget)
    for module, items in _layout(candidates, own, own_class):
        pieces: list[list[str]] = []
        members: list[str] | None = None
        for c in items:
            shown = c.levels[c.chosen]
            if c.container and members is not None:
                members.append(shown)  # a member of its own class, inside it
                continue
            pieces.append([shown])
            if module is own and c.qualname == own_class:
                members = pieces[-1]
        if members is not None and len(members) == 1 and members[0].endswith(":"):
            members.append("    ...")
        text = "\n\n".join("\n".join(piece) for piece in pieces)
        context.files.append(ContextFile(path=module.rel, own=module is own, text=text))
        for c in items:
            if c.kind == "imports":
                continue
            shown = c.levels[c.chosen]
            context.definitions.append(ContextDefinition(
                qualname=c.qualname, kind=c.kind, path=module.rel, line=c.line,
                container=c.container,
                reason=c.reason, pulled_by=c.pulled_by, text=shown,
                tokens=estimate_tokens(shown)))
    context.left_out = [LeftOut(qualname=c.qualname, path=c.module.rel, reason=c.reason,
                                pulled_by=c.pulled_by)
                        for c in candidates if c.chosen < 0 and c.kind != "imports"]
    problems = [own.problem] if own.problem and path is not None else []
    if resolver is not None:
        for module_path in resolver.read:
            module = files.load(module_path, root) if root else None
            if module is not None and module.problem:
                problems.append(module.problem)
    context.problems = problems
    block = sum(len(f.text) + FILE_OVERHEAD + len(f.path) for f in context.files)
    if context.left_out:
        block += len(context.left_out_names) + 60
    context.tokens = -(-block // CHARS_PER_TOKEN)
    context.seconds = time.monotonic() - started
    return context, dict(resolver.read) if resolver else {}


_FILES = ModuleCache()
_RESULTS: dict[tuple, tuple[dict, ProjectContext]] = {}
_LOCK = threading.Lock()
RESULTS_LIMIT = 64
"""Contexts kept (per module text, target and budget)."""


def build_project_context(
    source: str,
    info: FunctionInfo,
    *,
    path: Path | None = None,
    project_root: Path | None = None,
    budget: int = DEFAULT_BUDGET,
) -> ProjectContext:
    """The project context of function ``info`` in module text ``source`` (LF line
    endings; the editor's text, which may differ from the file on disk).

    ``path`` is the module's file (None: a text with no project, e.g. a benchmark prompt:
    only its own definitions are used); ``project_root`` the project's root (None: the
    nearest folder with ``pyproject.toml``, ``setup.py``, ``setup.cfg`` or ``.git``, else
    the folder above the outermost package). ``budget`` is in tokens (characters / 4).
    Blocking (jedi parses the modules it follows: run it off the event loop). Never raises
    for the user's code: modules that do not parse are skipped (named in ``problems``).
    """
    if budget <= 0:
        return ProjectContext(budget=0)
    root = None
    if path is not None:
        path = path.resolve()
        root = (project_root or find_project_root(path)).resolve()
    key = (str(root), str(path), hashlib.sha1(source.encode()).hexdigest(), info.qualname,
           info.def_line, budget)
    with _LOCK:
        cached = _RESULTS.get(key)
        if cached is not None and all(_FILES.stamp(p) == s for p, s in cached[0].items()):
            return cached[1].model_copy(deep=True)
        context, read = _build(source, info, path, root, budget, _FILES)
        if len(_RESULTS) >= RESULTS_LIMIT:
            _RESULTS.pop(next(iter(_RESULTS)))
        _RESULTS[key] = (read, context)
        return context.model_copy(deep=True)


def project_context_for(
    source: str,
    info: FunctionInfo,
    *,
    path: Path | None = None,
    project: Project | None = None,
    budget: int = DEFAULT_BUDGET,
) -> ProjectContext:
    """The project context of a task's function: :func:`build_project_context` of ``info`` in
    ``source`` (LF line endings) read from ``path`` in ``project``
    (:func:`~codeteam.project.project_for`), whose root is the context's root; for a lone
    module (or no ``project``), the nearest folder with a ``pyproject.toml``, ``setup.py``,
    ``setup.cfg`` or ``.git``. Without ``path`` (a benchmark stub, an unsaved document) only
    the module's own definitions are used (no file is read). ``budget`` is in tokens.
    Blocking when ``path`` is given (jedi reads the modules the function uses)."""
    root = Path(project.root) if project is not None and not project.lone else None
    return build_project_context(source, info, path=path, project_root=root, budget=budget)

