"""From a document on disk or in the editor to a :class:`~codeteam.task.Task` with its public
tests: the docstring's examples (stdlib doctest, read here without running anything) and the
project's pytest tests that call the function (:func:`with_project_tests`: chosen by running
them in the sandbox, see :mod:`codeteam.execution.pytest_run`)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from codeteam.execution.discovery import doctest_cases
from codeteam.execution.models import TestCase
from codeteam.execution.pytest_run import (
    candidate_files,
    select_tests,
    selection_cases,
    target_for,
)
from codeteam.execution.sandbox import SandboxPolicy
from codeteam.project import Project, lone_module_name
from codeteam.pysource.functions import FunctionInfo, locate
from codeteam.task import Task


def module_name_for(path: Path | None, project: Project | None = None) -> str:
    """The importable name the module gets in the sandbox: the dotted name within its
    ``project`` (``pkg.sub.mod``); for a lone module its file stem when that is an identifier
    and not a keyword (so tests' ``from stem import f`` work), else ``solution``."""
    if project is not None and not project.lone:
        return project.module
    return lone_module_name(path)


def public_tests(
    source: str,
    info: FunctionInfo,
    *,
    path: Path | None = None,
    workspace_root: Path | None = None,
) -> list[TestCase]:
    """The function's docstring examples (``path`` and ``workspace_root`` are accepted for
    callers of old; the project's pytest tests are added by :func:`with_project_tests`)."""
    tests: list[TestCase] = []
    if info.docstring:
        first = info.docstring_lines[0] if info.docstring_lines else None
        tests.extend(doctest_cases(info.docstring, info.name, docstring_first_line=first,
                                   source=source))
    return tests


def task_for(
    source: str,
    qualname: str | None = None,
    *,
    info: FunctionInfo | None = None,
    path: Path | None = None,
    workspace_root: Path | None = None,
    project: Project | None = None,
) -> Task:
    """The task for function ``qualname`` (or the already located ``info``) in ``source``.

    ``project`` (:func:`~codeteam.project.project_for` of ``path``) is where the module lives:
    the task is tested there and pytest tests are searched under its root (else under
    ``workspace_root``). ``source`` may have CRLF line endings; the task's text is LF. Raises
    :class:`~codeteam.pysource.functions.FunctionNotFound`,
    :class:`~codeteam.pysource.functions.AmbiguousFunction` or
    :class:`~codeteam.pysource.functions.SourceError`.
    """
    text = source.replace("\r\n", "\n").replace("\r", "\n")
    if info is None:
        if qualname is None:
            raise ValueError("give qualname or info")
        info = locate(text, qualname)
    if project is not None and not project.lone:
        workspace_root = Path(project.root)
    return Task.from_info(
        text,
        info,
        module_name=module_name_for(path, project),
        public_tests=public_tests(text, info, path=path, workspace_root=workspace_root),
        project=project,
    )


PROJECT_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", "pytest.ini", "tox.ini", ".git")
_INI_FILES = ("pytest.ini", ".pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini")


def project_root(path: Path) -> Path:
    """The nearest folder at or above ``path``'s folder holding one of
    :data:`PROJECT_MARKERS`; else ``path``'s folder."""
    folder = path.resolve().parent
    for candidate in (folder, *folder.parents):
        if any((candidate / marker).exists() for marker in PROJECT_MARKERS):
            return candidate
    return folder


def dotted_module(path: Path, root: Path) -> str:
    """``path``'s module name as imported from its package (``pkg.sub.mod`` for
    ``src/pkg/sub/mod.py`` when ``pkg`` and ``sub`` hold ``__init__.py``), not above
    ``root``."""
    path = path.resolve()
    parts = [] if path.stem == "__init__" else [path.stem]
    folder = path.parent
    while (folder / "__init__.py").exists() and folder != root.parent:
        parts.insert(0, folder.name)
        if folder == root:
            break
        folder = folder.parent
    return ".".join(parts) or path.stem


def project_python(root: Path, configured: str | None = None) -> str:
    """The interpreter that runs the project's tests: ``configured`` (the ``python``
    setting), else the project's ``.venv``/``venv`` interpreter, else the one running
    codeteam."""
    if configured:
        return configured
    for name in (".venv", "venv"):
        candidate = root / name / "bin" / "python"
        if candidate.exists():
            return str(candidate)
    return sys.executable


def _runs_doctests(root: Path) -> bool:
    """Whether an ini file of the project names ``--doctest-modules`` (pytest itself decides
    what it collects; this only says whether the function's file is worth a pytest run when no
    test file names the function)."""
    for name in _INI_FILES:
        try:
            if "doctest-modules" in (root / name).read_text(encoding="utf-8", errors="replace"):
                return True
        except OSError:
            continue
    return False


async def with_project_tests(
    task: Task,
    *,
    path: Path | None,
    root: Path | None,
    policy: SandboxPolicy,
    python: str | None = None,
    progress: Callable[[str], None] | None = None,
) -> Task:
    """``task`` with the project's pytest tests that call the function added to its public
    tests (chosen by running them: :func:`~codeteam.execution.pytest_run.select_tests`, on the
    task's module text) and ``pytest_target`` set; tests that could not run are added with the
    reason (reported as not run). When pytest runs the function's doctest itself (the project
    uses ``--doctest-modules``), that pytest test replaces the stdlib docstring examples, so
    the verdict is the project's own. Unchanged when ``path`` is None (an unsaved document),
    or when no test file names the function and the project does not run doctests (no
    process started). ``root``: the project root (default :func:`project_root`). Raises
    :class:`~codeteam.execution.models.SandboxUnavailable` when the sandbox cannot run."""
    if path is None:
        return task
    path = path.resolve()
    root = (root or project_root(path)).resolve()
    if not path.is_relative_to(root):
        root = project_root(path)
    files, _ = candidate_files(root, task.name)
    if not files and not _runs_doctests(root):
        return task
    if progress is not None:
        progress("tester: selecting the project's tests")
    interpreter = project_python(root, python)
    target = target_for(root, path, dotted_module(path, root), task.qualname,
                        task.start_line, interpreter)
    selection_policy = policy.model_copy(update={
        "timeout_s": max(policy.timeout_s, SELECTION_TIMEOUT_S),
        "cpu_s": max(policy.cpu_s, int(SELECTION_TIMEOUT_S)),
    })
    selection = await select_tests(target, task.module_source, selection_policy)
    target = target.model_copy(update={"rootdir": selection.rootdir})
    public = list(task.public_tests)
    if selection.doctests:
        public = [t for t in public if not (t.kind == "doctest" and t.origin == "public")]
    public += selection_cases(selection)
    return task.model_copy(update={"public_tests": public, "pytest_target": target})


SELECTION_TIMEOUT_S = 60.0
"""Wall-clock (and CPU) seconds for the selection run: every test in the files that name the
function runs once (the candidate runs use the ``test_timeout_s`` setting)."""
