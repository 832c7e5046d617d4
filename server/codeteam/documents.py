"""From a document on disk or in the editor to a :class:`~codeteam.task.Task` with its public
tests: the docstring's examples (stdlib doctest) and the workspace's pytest tests that call the
function (found with ast; nothing of the user's is imported here)."""

from __future__ import annotations

from pathlib import Path

from codeteam.execution.discovery import doctest_cases, pytest_cases
from codeteam.execution.models import TestCase
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
    """The function's public tests: its docstring examples, then pytest tests under
    ``workspace_root`` that import and call it (only when ``path`` is given), those that
    import other workspace modules included with a ``skip_reason`` (reported as not run)."""
    tests: list[TestCase] = []
    if info.docstring:
        first = info.docstring_lines[0] if info.docstring_lines else None
        tests.extend(doctest_cases(info.docstring, info.name, docstring_first_line=first,
                                   source=source))
    if path is not None and workspace_root is not None and "." not in info.qualname:
        tests.extend(pytest_cases(info.name, path, workspace_root, with_skipped=True))
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
