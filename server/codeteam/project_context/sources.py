"""The project's modules as :mod:`ast` sees them: read from disk (or the editor's text),
parsed once per file version, with an index of what each defines and imports.

Nothing here imports the user's code. A module that does not parse is read with its broken
top-level blocks left out (:func:`~codeteam.pysource.tolerant.parseable_module`), or not at
all. Lines are 0-based; columns are ``str`` indices (code points), as jedi counts them.
"""

from __future__ import annotations

import ast
import textwrap
import threading
from dataclasses import dataclass, field
from pathlib import Path

from codeteam.pysource.functions import SourceError, char_column
from codeteam.pysource.syntax import parse_tree
from codeteam.pysource.tolerant import parseable_module

ROOT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")
"""Files or folders that mark a project root (as editors' root_markers do)."""

NOT_PROJECT = {"site-packages", "dist-packages", ".venv", "venv", ".tox", ".nox",
               "node_modules", ".git", "__pycache__", "build"}
"""Folder names under the root that hold no project code (installed packages, caches)."""

Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Assign | ast.AnnAssign


def find_project_root(path: Path) -> Path:
    """The nearest folder at or above ``path``'s folder holding a :data:`ROOT_MARKERS` entry;
    else the folder above the outermost package (``__init__.py`` folders) holding ``path``."""
    folder = path.resolve().parent
    for candidate in [folder, *folder.parents][:25]:
        if any((candidate / marker).exists() for marker in ROOT_MARKERS):
            return candidate
    return import_root(path)


def import_root(path: Path) -> Path:
    """The folder from which ``path`` imports by its dotted name: the first folder above it
    without an ``__init__.py`` (``src/pkg/mod.py`` -> ``src``)."""
    folder = path.resolve().parent
    while (folder / "__init__.py").exists() and folder.parent != folder:
        folder = folder.parent
    return folder


def in_project(path: Path | None, root: Path | None) -> bool:
    """True for a Python file under ``root`` that is not in an installed-packages folder."""
    if path is None or root is None or path.suffix not in (".py", ".pyi"):
        return False
    try:
        parts = path.resolve().relative_to(root.resolve()).parts
    except ValueError:
        return False
    return not any(part in NOT_PROJECT for part in parts[:-1])


@dataclass
class ImportBinding:
    """A name a module-level import binds: ``name`` as the module sees it, ``imported`` the
    name imported (``from x import imported as name``; for ``import a.b`` the module ``a.b``),
    the 0-based ``line`` and ``column`` of the imported name (where jedi is asked), and
    ``statement`` the import's text."""

    name: str
    imported: str
    line: int
    column: int
    statement: str
    relative: bool


@dataclass
class Member:
    """A definition in a module: ``qualname`` (``Class.method``), its node and the class it
    belongs to (None at module level)."""

    qualname: str
    node: Definition
    container: str | None = None


@dataclass
class ModuleFile:
    """One module: ``rel`` is its path relative to the root (``/`` separators), ``text`` its
    text as parsed (LF; broken top-level blocks blanked), ``problem`` why part of it or all of
    it could not be read."""

    path: Path | None
    rel: str
    text: str
    tree: ast.Module
    problem: str | None = None
    lines: list[str] = field(default_factory=list)
    top_level: dict[str, Member] = field(default_factory=dict)
    imports: list[ImportBinding] = field(default_factory=list)
    by_line: dict[int, Member] = field(default_factory=dict)

    @classmethod
    def from_text(cls, text: str, path: Path | None, rel: str) -> ModuleFile:
        problem = None
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        try:
            tree = parse_tree(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            try:
                readable = parseable_module(text)
                tree = parse_tree(readable.text)
                problem = f"{rel}: {readable.describe()} do not parse and were skipped"
                text = readable.text
            except (SourceError, SyntaxError, ValueError, RecursionError, MemoryError) as error:
                tree = ast.Module(body=[], type_ignores=[])
                problem = f"{rel}: does not parse ({error})"
        module = cls(path=path, rel=rel, text=text, tree=tree, problem=problem,
                     lines=text.split("\n"))
        module._index()
        return module

    def _index(self) -> None:
        def visit_class(node: ast.ClassDef, prefix: str) -> None:
            for child in node.body:
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    member = Member(f"{prefix}.{child.name}", child, prefix)
                    self.by_line.setdefault(child.lineno - 1, member)
                    if isinstance(child, ast.ClassDef):
                        visit_class(child, member.qualname)

        for node in _module_statements(self.tree.body):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                member = Member(node.name, node)
                if not _is_overload(node):
                    self.top_level[node.name] = member
                else:
                    self.top_level.setdefault(node.name, member)
                self.by_line.setdefault(node.lineno - 1, member)
                if isinstance(node, ast.ClassDef):
                    visit_class(node, node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name):
                        member = Member(target.id, node)
                        self.top_level[target.id] = member
                        self.by_line.setdefault(node.lineno - 1, member)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                self.imports.extend(self._bindings(node))

    def _bindings(self, node: ast.Import | ast.ImportFrom) -> list[ImportBinding]:
        end = node.end_lineno or node.lineno
        statement = textwrap.dedent("\n".join(self.lines[node.lineno - 1 : end])).strip()
        found = []
        for alias in node.names:
            if alias.name == "*":
                continue
            line = alias.lineno - 1
            column = char_column(self.lines[line], alias.col_offset)
            if isinstance(node, ast.Import):
                # ``import a.b.c as m``: ask about ``c``; ``import a.b`` binds ``a``.
                bound = alias.asname or alias.name.split(".")[0]
                last = alias.name.rsplit(".", 1)[-1] if alias.asname else alias.name.split(".")[0]
                column += alias.name.rfind(last) if alias.asname else 0
                found.append(ImportBinding(bound, alias.name, line, column, statement, False))
            else:
                found.append(ImportBinding(alias.asname or alias.name, alias.name, line, column,
                                           statement, node.level > 0))
        return found

    def binding(self, name: str) -> ImportBinding | None:
        """The module-level import that binds ``name`` (the last one), or None."""
        for item in reversed(self.imports):
            if item.name == name:
                return item
        return None

    def member_at(self, line: int) -> Member | None:
        """The definition whose ``def``/``class``/assignment is on 0-based ``line``."""
        return self.by_line.get(line)

    def members_of(self, qualname: str) -> list[Member]:
        """The direct members of class ``qualname`` (methods and nested classes)."""
        return [m for m in self.by_line.values() if m.container == qualname]

    def find(self, qualname: str) -> Member | None:
        """The definition ``qualname`` (``name`` or ``Class.method``) in this module."""
        if "." not in qualname:
            return self.top_level.get(qualname)
        for member in self.by_line.values():
            if member.qualname == qualname:
                return member
        return None

    def segment(self, first: int, last: int) -> str:
        """0-based lines ``first..last`` (inclusive)."""
        return "\n".join(self.lines[first : last + 1])


def _module_statements(body: list[ast.stmt]) -> list[ast.stmt]:
    """Module-level statements, those inside module-level ``if``/``try`` blocks included
    (``if TYPE_CHECKING:``, ``try: import x except ImportError: ...``)."""
    out: list[ast.stmt] = []
    for node in body:
        if isinstance(node, ast.If):
            out += _module_statements(node.body) + _module_statements(node.orelse)
        elif isinstance(node, ast.Try):
            out += _module_statements(node.body)
            for handler in node.handlers:
                out += _module_statements(handler.body)
            out += _module_statements(node.orelse) + _module_statements(node.finalbody)
        else:
            out.append(node)
    return out


def _is_overload(node: ast.AST) -> bool:
    decorators = getattr(node, "decorator_list", [])
    return any(ast.unparse(d).rsplit(".", 1)[-1] == "overload" for d in decorators)


class ModuleCache:
    """Parsed modules by path, kept while the file's size and modification time stay the
    same. Thread-safe (builds run off the event loop)."""

    def __init__(self, limit: int = 512) -> None:
        self._files: dict[Path, tuple[tuple[int, int], ModuleFile]] = {}
        self._lock = threading.Lock()
        self.limit = limit

    def load(self, path: Path, root: Path) -> ModuleFile | None:
        """The module at ``path`` (None when it cannot be read as UTF-8 text)."""
        path = path.resolve()
        try:
            stat = path.stat()
        except OSError:
            return None
        stamp = (stat.st_mtime_ns, stat.st_size)
        with self._lock:
            cached = self._files.get(path)
            if cached and cached[0] == stamp:
                return cached[1]
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        module = ModuleFile.from_text(text, path, relative(path, root))
        with self._lock:
            if len(self._files) >= self.limit:
                self._files.pop(next(iter(self._files)))
            self._files[path] = (stamp, module)
        return module

    def stamp(self, path: Path) -> tuple[int, int] | None:
        try:
            stat = path.stat()
        except OSError:
            return None
        return stat.st_mtime_ns, stat.st_size


def relative(path: Path, root: Path | None) -> str:
    """``path`` relative to ``root`` with ``/`` separators (its name when outside)."""
    if root is None:
        return path.name
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.name
