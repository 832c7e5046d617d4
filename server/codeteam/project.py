"""Where a function lives: its project root, the package its module is in, the interpreter
whose packages the project's tests need (the "project" layer: it imports nothing of codeteam
but settings).

:func:`find_project` answers for a file: the root (the nearest folder up with a project
marker, or the workspace folder given), the ``sys.path`` entry the module is importable from
(``<root>/src`` in a src/ layout), its dotted name, the interpreter (setting ``python``, else the
project's ``.venv``/``venv``, else the one running codeteam) with a probe of what that
interpreter has (:class:`Interpreter`), and the paths a sandboxed run must not see (``.git``,
top-level dotfiles, and secret files at any depth: :func:`project_tree`). A file with no project around it (a benchmark
stub, a lone file in /tmp) is a *lone module* (:attr:`Project.lone`): tested as a file copied
into the sandbox, as before projects were known.
"""

from __future__ import annotations

import fnmatch
import json
import keyword
import os
import stat
import subprocess
import sys
import threading
from collections import deque
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, Field

PROJECT_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", "pytest.ini", "tox.ini", ".git")
"""A folder holding one of these is a project root (the nearest one up from the file)."""

VENV_DIRS = (".venv", "venv")
"""Folders of the project root searched for the default interpreter (``<dir>/bin/python``)."""

VISIBLE_DOTFILES = frozenset({".pytest.ini", ".coveragerc"})
"""Top-level dotfiles that test tools read (pytest's ini file, coverage's configuration):
not hidden from sandboxed runs."""

SECRET_FILES = (".env*", "*.env", "*.pem", "id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*",
                ".netrc", ".pypirc", ".npmrc")
"""Names (``fnmatch`` patterns) of files hidden from every sandbox wherever they are in the
project (:func:`project_tree`): dotenv files (``.env.local``, compose's ``app.env``), private
keys, credential files. A folder whose name matches (``.envs/``, as cookiecutter-django lays
out its secrets) is hidden whole, unless it is a virtualenv (``python -m venv .env``)."""

SECRET_FOLDERS = frozenset({".git"})
"""Folders hidden from every sandbox wherever they are in the project (not walked)."""

NOT_WALKED = frozenset({"node_modules", "__pycache__", ".tox", ".nox", ".mypy_cache",
                        ".pytest_cache", ".ruff_cache", ".hg", ".svn"})  # fmt: skip
"""Folders :func:`project_tree` does not enter (nor virtualenvs: a folder with ``pyvenv.cfg``)."""

MAX_WALKED = 200_000
"""Entries :func:`project_tree` looks at, at most; beyond, the tree is incomplete (said in
:attr:`ProjectTree.complete`)."""

PROBE_TIMEOUT_S = 30.0
"""Seconds the interpreter probe may take (it imports pytest once)."""

_PROBE = """\
import json, site, sys, sysconfig
try:
    import pytest
    pytest_version = getattr(pytest, "__version__", "")
except Exception as error:
    pytest_version = None
    pytest_error = f"{type(error).__name__}: {error}"
else:
    pytest_error = None
paths = sysconfig.get_paths()
print(json.dumps({
    "prefix": sys.prefix,
    "base_prefix": sys.base_prefix,
    "exec_prefix": sys.exec_prefix,
    "base_exec_prefix": sys.base_exec_prefix,
    "site_packages": [*site.getsitepackages(), paths["purelib"], paths["platlib"]],
    "sys_path": sys.path,
    "version": ".".join(map(str, sys.version_info[:3])),
    "pytest_version": pytest_version,
    "pytest_error": pytest_error,
}))
"""


class InterpreterError(Exception):
    """The interpreter named by setting ``python`` does not exist or does not run; the
    message names it and says what was tried (never a secret: it is a path)."""


class Interpreter(BaseModel):
    """What one Python interpreter has, probed by running it once (:func:`probe_interpreter`).

    ``executable`` is the path as given (a venv's ``bin/python``, not resolved); ``prefix`` and
    ``base_prefix`` its ``sys.prefix``/``sys.base_prefix`` (equal outside a virtualenv);
    ``site_packages`` its site-packages folders that exist; ``paths`` every folder on its
    ``sys.path`` after site processing (``.pth`` files and editable installs included);
    ``version`` e.g. ``"3.11.7"``; ``pytest_version`` None when ``import pytest`` fails there,
    with ``pytest_error`` saying why.
    """

    executable: str
    prefix: str
    base_prefix: str
    exec_prefixes: list[str] = Field(default_factory=list)
    site_packages: list[str] = Field(default_factory=list)
    paths: list[str] = Field(default_factory=list)
    version: str
    pytest_version: str | None = None
    pytest_error: str | None = None

    @property
    def has_pytest(self) -> bool:
        """True when ``import pytest`` works in this interpreter."""
        return self.pytest_version is not None

    def read_only_paths(self) -> list[str]:
        """Folders a sandboxed run of this interpreter needs mounted read-only: its prefixes,
        site-packages and the rest of its ``sys.path`` (resolved, existing, no duplicates)."""
        found: list[str] = []
        for path in (self.prefix, self.base_prefix, *self.exec_prefixes, *self.site_packages,
                     *self.paths):  # fmt: skip
            real = os.path.realpath(path)
            if os.path.isdir(real) and real not in found:
                found.append(real)
        return found


_probes: dict[str, Interpreter] = {}
_probes_lock = threading.Lock()


def probe_interpreter(python: str) -> Interpreter:
    """Run ``python`` once (``-I -c``, on the host: it is the user's own interpreter, not
    generated code) and return what it has; cached per path for the life of the process
    (a failure is not cached). Blocks for the interpreter's start-up and ``import pytest``
    (about 0.1-0.5 s the first time): call it off an event loop.

    Raises :class:`InterpreterError` when ``python`` is missing, not executable, or does not
    answer within :data:`PROBE_TIMEOUT_S` seconds with its description.
    """
    with _probes_lock:
        if python in _probes:
            return _probes[python]
    if not os.path.isfile(python):
        raise InterpreterError(f"the interpreter {python} does not exist")
    if not os.access(python, os.X_OK):
        raise InterpreterError(f"the interpreter {python} is not executable")
    try:
        done = subprocess.run(
            [python, "-I", "-c", _PROBE],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=PROBE_TIMEOUT_S,
            check=False,
            cwd="/",
        )
    except (OSError, subprocess.SubprocessError) as error:
        raise InterpreterError(f"the interpreter {python} does not run: {error}") from error
    try:
        data = json.loads(done.stdout.decode("utf-8", "replace").strip().splitlines()[-1])
        interpreter = Interpreter(
            executable=python,
            prefix=data["prefix"],
            base_prefix=data["base_prefix"],
            exec_prefixes=[data["exec_prefix"], data["base_exec_prefix"]],
            site_packages=[p for p in data["site_packages"] if os.path.isdir(p)],
            paths=[p for p in data["sys_path"] if p and os.path.isdir(p)],
            version=data["version"],
            pytest_version=data["pytest_version"],
            pytest_error=data["pytest_error"],
        )
    except (ValueError, IndexError, KeyError, TypeError) as error:
        detail = done.stderr.decode("utf-8", "replace").strip().splitlines()
        why = detail[-1][:300] if detail else f"exit status {done.returncode}"
        raise InterpreterError(
            f"the interpreter {python} does not run as a Python 3 interpreter ({why})"
        ) from error
    with _probes_lock:
        _probes[python] = interpreter
    return interpreter


class Project(BaseModel):
    """Where a function's module lives. Paths are absolute and resolved.

    - ``root``: the project's folder (mounted read-only in sandboxed runs; pytest's rootdir
      search starts there). For a lone module, the file's folder.
    - ``import_root``: the ``sys.path`` entry the module is importable from (the first folder
      up from the file without ``__init__.py``; ``<root>/src`` in a src/ layout).
    - ``module``: the module's dotted name from ``import_root`` (``pkg.sub.mod``); for a lone
      module its file stem, or ``solution`` when the stem is not an identifier.
    - ``file``: the module's file.
    - ``python``: the interpreter that runs the tests (setting ``python``, else
      ``<root>/.venv/bin/python`` or ``<root>/venv/bin/python``, else the one running
      codeteam); ``interpreter`` its probe (None for a lone module, which runs with the
      server's interpreter as before).
    - ``hidden``: paths under ``root`` that sandboxed runs must not see: the other top-level
      dotfiles and dot-folders (but :data:`VISIBLE_DOTFILES` and the interpreter's own
      virtualenv), and at any depth ``.git`` folders and the files named in
      :data:`SECRET_FILES` (``.env*``, ``*.env``, ``*.pem``, ssh keys, ``.netrc``,
      ``.pypirc``, ``.npmrc``; folders so named too; a hard link to such a file, the file a
      symbolic link so named points to).
    - ``lone``: no project around the file: tested as a copied file, as before.
    - ``notes``: sentences for the user (the ``python`` setting could not be used, the
      interpreter has no pytest), to show once.
    """

    root: str
    import_root: str
    module: str
    file: str
    python: str
    interpreter: Interpreter | None = None
    hidden: list[str] = Field(default_factory=list)
    lone: bool = False
    notes: list[str] = Field(default_factory=list)

    def read_only_paths(self) -> list[str]:
        """The interpreter's folders a sandboxed run mounts read-only (see
        :meth:`Interpreter.read_only_paths`); empty for a lone module."""
        return self.interpreter.read_only_paths() if self.interpreter else []

    def sys_path(self) -> list[str]:
        """The folders a test process puts first on ``sys.path``: ``import_root``, then the
        interpreter's site-packages (for an interpreter started without site processing)."""
        paths = [self.import_root]
        if self.interpreter is not None:
            for path in (*self.interpreter.site_packages, *self.interpreter.paths):
                real = os.path.realpath(path)
                if real not in paths and not _is_stdlib(real, self.interpreter):
                    paths.append(real)
        return paths


def _is_stdlib(path: str, interpreter: Interpreter) -> bool:
    """True for a folder of the interpreter's standard library (``lib/python3.X``, its
    ``lib-dynload``, the zip), which an interpreter started with ``-S`` has already."""
    if "site-packages" in path or "dist-packages" in path:
        return False
    bases = {os.path.realpath(interpreter.base_prefix), *map(os.path.realpath,
                                                             interpreter.exec_prefixes)}  # fmt: skip
    return any(path == base or path.startswith(base.rstrip("/") + "/") for base in bases)


@dataclass(frozen=True)
class ProjectTree:
    """One walk of a project (:func:`project_tree`).

    ``folders``: the real folders under ``root`` (relative, parents first; no symlinks, none of
    :data:`NOT_WALKED`, virtualenvs or secret folders); ``secrets``: absolute paths of the
    files matching :data:`SECRET_FILES` and folders in :data:`SECRET_FOLDERS`, at any depth;
    ``closed``: absolute paths (at most 20) of folders others cannot list and enter and of
    files others cannot read (what a sandbox running as another uid cannot use);
    ``complete``: False when :data:`MAX_WALKED` entries were reached before the end.
    """

    root: str
    folders: tuple[str, ...]
    secrets: tuple[str, ...]
    closed: tuple[str, ...]
    complete: bool
    mtimes: tuple[tuple[str, int], ...] = ()


_trees: dict[str, ProjectTree] = {}
_trees_lock = threading.Lock()
_CLOSED_SHOWN = 20


def project_tree(root: str) -> ProjectTree:
    """The :class:`ProjectTree` of the project folder ``root`` (absolute, resolved): an
    ``os.scandir`` walk that does not follow symlinks, skips virtualenvs and
    :data:`NOT_WALKED` folders, and stops after :data:`MAX_WALKED` entries. Cached per root
    while no walked folder's mtime changed (a file added, removed or renamed anywhere changes
    one: checked with one ``stat`` per folder); a tree with ``closed`` paths is walked again
    each time (a ``chmod`` changes no folder's mtime). Blocking: call it off an event loop."""
    with _trees_lock:
        cached = _trees.get(root)
    if cached is not None and not cached.closed and _unchanged(cached):
        return cached
    tree = _walk(root)
    with _trees_lock:
        _trees[root] = tree
    return tree


def _unchanged(tree: ProjectTree) -> bool:
    for path, mtime in tree.mtimes:
        try:
            if os.stat(path).st_mtime_ns != mtime:
                return False
        except OSError:
            return False
    return True


def _secret_name(name: str) -> bool:
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in SECRET_FILES)


def _link_target(path: str, root: str) -> str | None:
    """The file or folder inside ``root`` that the symbolic link ``path`` leads to."""
    target = os.path.realpath(path)
    return target if target.startswith(root.rstrip("/") + "/") and os.path.exists(target) \
        else None


def _walk(root: str) -> ProjectTree:
    folders: list[str] = []
    secrets: list[str] = []
    linked: dict[tuple[int, int], list[str]] = {}
    """Files with more than one hard link, by (device, inode)."""
    secret_inodes: set[tuple[int, int]] = set()
    closed: list[str] = []
    mtimes: list[tuple[str, int]] = []
    seen = 0
    complete = True
    pending = deque([root])
    while pending:
        folder = pending.popleft()
        try:
            mtimes.append((folder, os.stat(folder).st_mtime_ns))
            with os.scandir(folder) as scan:
                entries = sorted(scan, key=lambda entry: entry.name)
        except OSError:
            continue
        for entry in entries:
            seen += 1
            if seen > MAX_WALKED:
                complete = False
                pending.clear()
                break
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISDIR(info.st_mode):
                venv = os.path.isfile(os.path.join(entry.path, "pyvenv.cfg"))
                if entry.name in SECRET_FOLDERS or (_secret_name(entry.name) and not venv):
                    secrets.append(entry.path)
                    continue
                if entry.name in NOT_WALKED or venv:
                    continue
                if info.st_mode & 0o005 != 0o005 and len(closed) < _CLOSED_SHOWN:
                    closed.append(entry.path)
                folders.append(os.path.relpath(entry.path, root))
                pending.append(entry.path)
            elif _secret_name(entry.name):
                secrets.append(entry.path)
                if stat.S_ISLNK(info.st_mode):  # the file it names holds the secret
                    target = _link_target(entry.path, root)
                    if target is not None:
                        secrets.append(target)
                elif info.st_nlink > 1:
                    secret_inodes.add((info.st_dev, info.st_ino))
            elif (stat.S_ISREG(info.st_mode) and not info.st_mode & 0o004
                  and len(closed) < _CLOSED_SHOWN):  # fmt: skip
                closed.append(entry.path)
            if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
                linked.setdefault((info.st_dev, info.st_ino), []).append(entry.path)
    for inode in secret_inodes:  # another name of a secret file is the same secret
        secrets.extend(path for path in linked.get(inode, ()) if path not in secrets)
    try:
        if os.stat(root).st_mode & 0o005 != 0o005:
            closed.insert(0, root)
    except OSError:
        closed.insert(0, root)
    secrets = sorted(set(secrets))
    return ProjectTree(root, tuple(folders), tuple(secrets), tuple(closed[:_CLOSED_SHOWN]),
                       complete, tuple(mtimes))  # fmt: skip


def lone_module_name(path: Path | None) -> str:
    """The importable name a lone module gets in the sandbox: its file stem when that is an
    identifier and not a keyword (so tests' ``from stem import f`` work), else ``solution``."""
    if path is not None and _identifier(path.stem):
        return path.stem
    return "solution"


def _identifier(name: str) -> bool:
    return name.isidentifier() and not keyword.iskeyword(name) and not name.startswith("_codeteam")


def _stops(folder: Path) -> bool:
    """Folders never taken as a project root: the filesystem root, $HOME, /tmp (a marker
    there, like a dotfiles repository in $HOME, does not make everything under it one
    project)."""
    home = Path.home().resolve() if Path.home().is_dir() else None
    return folder == Path(folder.anchor) or folder == home or str(folder) in ("/tmp", "/var/tmp")


def nested_projects(folder: Path | str, limit: int = 5000) -> list[str]:
    """The subfolders of ``folder`` that are projects of their own (each holds one of
    :data:`PROJECT_MARKERS`: a clone, a package with its own ``pyproject.toml``), relative to
    ``folder`` and sorted; nothing below one of them is searched, nor dot folders and
    virtualenvs. A lone module's tests are looked for in its folder minus these: their tests
    are their own project's. At most ``limit`` folders are looked at (a lone file in a large
    tree): the ones found by then are returned."""
    root = Path(folder)
    found: list[str] = []
    seen = 0
    for here, dirs, _files in os.walk(root):
        kept = []
        for name in sorted(dirs):
            path = Path(here) / name
            if name.startswith(".") or (path / "pyvenv.cfg").is_file():
                continue
            if _has_marker(path):
                found.append(str(path.relative_to(root)))
            else:
                kept.append(name)
        dirs[:] = kept
        seen += 1
        if seen >= limit:
            break
    return sorted(found)


def _has_marker(folder: Path) -> bool:
    """Whether ``folder`` holds one of :data:`PROJECT_MARKERS` (a project root)."""
    return any((folder / marker).exists() for marker in PROJECT_MARKERS)


def _marked_root(folder: Path) -> Path | None:
    for candidate in (folder, *folder.parents):
        if _stops(candidate):
            return None
        if _has_marker(candidate):
            return candidate
    return None


def _default_python(root: Path) -> str | None:
    for name in VENV_DIRS:
        python = root / name / "bin" / "python"
        if python.is_file() and os.access(python, os.X_OK):
            return str(python)
    return None


def find_project(
    path: Path | str,
    workspace_root: Path | str | None = None,
    python: str | None = None,
) -> Project:
    """The :class:`Project` of the module file ``path``.

    ``workspace_root`` (``--workspace`` of the CLI, the editor's workspace folder holding the
    file) is the root when the file is inside it (and it is not ``/``, $HOME or /tmp); else the root is the nearest folder up with
    one of :data:`PROJECT_MARKERS` (never ``/``, $HOME or /tmp), else, for a file inside a
    package (``__init__.py`` next to it), the folder above its top package; else the file is
    a lone module. ``python`` is setting ``python`` (``~`` expanded; a relative path is
    taken from the root).

    Blocks while the interpreter is probed (:func:`probe_interpreter`, once per interpreter):
    call it off an event loop. Raises :class:`InterpreterError` when ``python`` is given and
    cannot be used (missing, not executable, does not run); :func:`project_for` falls back to
    the server's interpreter with a note instead. A default interpreter (a ``.venv``) that
    does not run falls back to the server's with a note, without raising.
    """
    file = Path(path).resolve()
    folder = file.parent
    import_root, module = _module_of(file)
    root = None
    if workspace_root is not None:
        workspace = Path(workspace_root).resolve()
        inside = workspace == folder or workspace in folder.parents
        if workspace.is_dir() and inside and not _stops(workspace):
            root = workspace
    if root is None:
        root = _marked_root(folder)
    if root is None and import_root != folder:
        root = import_root  # a package without project files around it
    if root is None or module is None:
        unused = [(f"setting python: not used: {file.name} is in no project (no "
                  f"{', '.join(PROJECT_MARKERS)} in its folder or above, nor a package around "
                  f"it); its tests run with {sys.executable}")] if python else []
        return Project(
            root=str(folder), import_root=str(folder), module=lone_module_name(file),
            file=str(file), python=sys.executable, lone=True, notes=unused,
        )  # fmt: skip
    notes: list[str] = []
    if python:
        chosen = Path(python).expanduser()
        chosen = chosen if chosen.is_absolute() else root / chosen
        interpreter = probe_interpreter(str(chosen))  # raises InterpreterError
    else:
        interpreter = None
        default = _default_python(root)
        if default is not None:
            try:
                interpreter = probe_interpreter(default)
            except InterpreterError as error:
                notes.append(f"{error}; the tests run with {sys.executable} instead")
        if interpreter is None:
            interpreter = probe_interpreter(sys.executable)
    if not interpreter.has_pytest:
        notes.append(
            f"the project's interpreter {interpreter.executable} has no pytest "
            f"({interpreter.pytest_error}): the project's pytest tests cannot run; install "
            "pytest there, or set python to an interpreter that has it"
        )
    return Project(
        root=str(root),
        import_root=str(import_root),
        module=module,
        file=str(file),
        python=interpreter.executable,
        interpreter=interpreter,
        hidden=_hidden_paths(root, folder, interpreter),
        notes=notes,
    )


def project_for(
    path: Path | str,
    workspace_root: Path | str | None = None,
    python: str | None = None,
) -> Project:
    """:func:`find_project`, falling back to the server's interpreter when ``python`` cannot
    be used; the reason is then the first of :attr:`Project.notes`. Never raises
    :class:`InterpreterError` for the ``python`` setting."""
    try:
        return find_project(path, workspace_root, python)
    except InterpreterError as error:
        project = find_project(path, workspace_root, sys.executable)
        project.notes.insert(
            0, f"setting python: {error}; the tests run with {sys.executable} instead"
        )
        return project


def _module_of(file: Path) -> tuple[Path, str | None]:
    """(import root, dotted name) of ``file``: up from its folder while ``__init__.py`` is
    there and the folder names are identifiers; the name is None when the stem is not one."""
    if not _identifier(file.stem) or file.suffix != ".py":
        return file.parent, None
    parts = [] if file.stem == "__init__" else [file.stem]
    folder = file.parent
    while (folder / "__init__.py").is_file() and _identifier(folder.name) and not _stops(folder):
        parts.insert(0, folder.name)
        folder = folder.parent
    if not parts:  # an __init__.py outside any package: not importable by a name
        return file.parent, None
    return folder, ".".join(parts)


def _hidden_paths(root: Path, folder: Path, interpreter: Interpreter) -> list[str]:
    """Top-level dotfiles and dot-folders of ``root`` (not :data:`VISIBLE_DOTFILES`, not the
    interpreter's virtualenv, not a folder holding the file) and the secrets of the project at
    any depth (:func:`project_tree`)."""
    keep = {os.path.realpath(interpreter.prefix)}
    hidden: set[str] = set()
    for entry in _entries(root):
        if entry.name.startswith(".") and entry.name not in VISIBLE_DOTFILES:
            path = os.path.join(root, entry.name)
            holds_the_file = folder == Path(path) or Path(path) in folder.parents
            if os.path.realpath(path) not in keep and not holds_the_file:
                hidden.add(path)
    hidden.update(project_tree(str(root)).secrets)
    return sorted(hidden)


def _entries(path: Path) -> list[os.DirEntry]:
    """The entries of folder ``path`` (``os.scandir``); none when it cannot be read."""
    try:
        with os.scandir(path) as entries:
            return list(entries)
    except OSError:
        return []
