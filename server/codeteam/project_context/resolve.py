"""Names to definitions across the project, with jedi (built on parso), never by importing
the user's code: ``jedi.Project`` + ``jedi.Script(code, path=...).goto(line, column,
follow_imports=True)`` (https://jedi.readthedocs.io/en/latest/docs/api.html).

Lines are 0-based here (jedi's are 1-based); columns are code points, as in jedi.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from dataclasses import dataclass
from pathlib import Path

from codeteam.project_context.sources import Member, ModuleCache, ModuleFile, in_project

log = logging.getLogger(__name__)


@dataclass
class Found:
    """Where a name leads: a definition (``member`` of ``module``) or a whole ``module``."""

    module: ModuleFile
    member: Member | None = None


class ProjectResolver:
    """Resolves names in the project at ``root`` (``import_root``: the folder the target's
    package imports from, added to jedi's search path). ``own`` is the target's module as the
    editor holds it: a definition in its file is looked up in that text, not on disk."""

    def __init__(self, root: Path, import_root: Path, own: ModuleFile, files: ModuleCache):
        import jedi  # a few hundred ms to import: only when a project is there

        self.root = root
        self.own = own
        self.files = files
        self.read: dict[Path, tuple[int, int] | None] = {}
        self.project = _project(root, import_root)
        self._scripts: dict[str, object] = {}
        self._jedi = jedi
        self.tops = _top_level_names(root) | _top_level_names(import_root)

    def _script(self, module: ModuleFile):  # -> jedi.Script
        key = f"{module.path}:{hashlib.sha1(module.text.encode()).hexdigest()}"
        script = self._scripts.get(key)
        if script is None:
            script = self._jedi.Script(module.text, path=module.path, project=self.project)
            self._scripts[key] = script
        return script

    def module_for(self, path: Path) -> ModuleFile | None:
        if self.own.path is not None and path.resolve() == self.own.path.resolve():
            return self.own
        module = self.files.load(path, self.root)
        if module is not None:
            self.read[path.resolve()] = self.files.stamp(path.resolve())
        return module

    def goto(self, module: ModuleFile, line: int, column: int) -> list[Found]:
        """The project definitions the name at 0-based ``line``, ``column`` of ``module``
        leads to (through imports); definitions outside the project are dropped."""
        try:
            names = self._script(module).goto(line + 1, column, follow_imports=True)
        except Exception as error:  # noqa: BLE001 - jedi's own failures must not stop a run
            log.debug("jedi failed at %s:%s:%s: %s", module.rel, line + 1, column, error)
            return []
        found = []
        for name in names:
            path = name.module_path
            if path is None or not in_project(Path(path), self.root):
                continue
            target = self.module_for(Path(path))
            if target is None:
                continue
            if name.type == "module":
                found.append(Found(target))
                continue
            if name.line is None:
                continue
            member = target.member_at(name.line - 1)
            if member is None or member_name(member) != name.name:
                # jedi may have read another version of that file (an editor's unsaved text
                # is cached by path): find the definition by its qualified name instead.
                member = target.find(_qualname(name)) if _qualname(name) else None
            if member is not None:
                found.append(Found(target, member))
        return found

    def worth_asking(self, module: ModuleFile, binding_name: str) -> bool:
        """True when the import binding ``binding_name`` of ``module`` may lead into the
        project: a relative import, or one of the project's top-level packages or modules."""
        binding = module.binding(binding_name)
        if binding is None:
            return False
        if binding.relative:
            return True
        statement = binding.statement.split()
        first = statement[1] if len(statement) > 1 else ""
        return first.split(".")[0] in self.tops


def _qualname(name) -> str | None:  # name: jedi.api.classes.Name
    """``Class.method`` of a jedi name, from its parents; None inside a function."""
    parts = [name.name]
    try:
        parent = name.parent()
        while parent is not None and parent.type != "module":
            if parent.type != "class":
                return None
            parts.insert(0, parent.name)
            parent = parent.parent()
    except Exception:  # noqa: BLE001 - jedi's own failures: no name
        return None
    return ".".join(parts)


def member_name(member: Member) -> str:
    return member.qualname.rsplit(".", 1)[-1]


def _top_level_names(folder: Path) -> set[str]:
    try:
        entries = list(folder.iterdir())
    except OSError:
        return set()
    names = set()
    for entry in entries:
        if entry.suffix == ".py":
            names.add(entry.stem)
        elif entry.is_dir() and (entry / "__init__.py").exists():
            names.add(entry.name)
    return names


_PROJECTS: dict[tuple[str, str], object] = {}
_PROJECTS_LOCK = threading.Lock()


def _project(root: Path, import_root: Path):  # -> jedi.Project
    import jedi

    key = (str(root), str(import_root))
    with _PROJECTS_LOCK:
        project = _PROJECTS.get(key)
        if project is None:
            # Only the project's own folders: a copy of the project (or of a package of the
            # same name) installed next to the server must not stand in for it, and what is
            # outside the project is never sent anyway.
            paths = list(dict.fromkeys([str(import_root), str(root)]))
            project = jedi.Project(root, sys_path=paths, smart_sys_path=False,
                                   load_unsafe_extensions=False)
            _PROJECTS[key] = project
        return project
