"""From a document on disk or in the editor to a :class:`~codeteam.task.Task` with its public
tests: the docstring's examples (stdlib doctest) and the workspace's pytest tests that call the
function (found with ast; nothing of the user's is imported here)."""

from __future__ import annotations

import keyword
from pathlib import Path

from codeteam.execution.discovery import doctest_cases, pytest_cases
from codeteam.execution.models import TestCase
from codeteam.project_context import DEFAULT_BUDGET, build_project_context
from codeteam.pysource.functions import FunctionInfo, locate
from codeteam.task import Task


def module_name_for(path: Path | None) -> str:
    """The importable name the module gets in the sandbox: its file stem when that is an
    identifier and not a keyword (so tests' ``from stem import f`` work), else ``solution``."""
    if path is not None and path.stem.isidentifier() and not keyword.iskeyword(path.stem):
        return path.stem
    return "solution"


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
    project_root: Path | None = None,
    context_tokens: int = DEFAULT_BUDGET,
) -> Task:
    """The task for function ``qualname`` (or the already located ``info``) in ``source``.

    ``source`` may have CRLF line endings; the task's text is LF. The task's project context
    (``context_tokens`` tokens; :func:`~codeteam.project_context.build_project_context`) is
    found from ``path`` in the project at ``project_root`` (None: the nearest folder with a
    ``pyproject.toml``, ``setup.py``, ``setup.cfg`` or ``.git``). Blocking: jedi reads the
    modules the function uses (the editor calls this off the event loop). Raises
    :class:`~codeteam.pysource.functions.FunctionNotFound`,
    :class:`~codeteam.pysource.functions.AmbiguousFunction` or
    :class:`~codeteam.pysource.functions.SourceError`.
    """
    text = source.replace("\r\n", "\n").replace("\r", "\n")
    if info is None:
        if qualname is None:
            raise ValueError("give qualname or info")
        info = locate(text, qualname)
    context = build_project_context(
        text, info, path=path, project_root=project_root, budget=context_tokens
    )
    return Task.from_info(
        text,
        info,
        module_name=module_name_for(path),
        public_tests=public_tests(text, info, path=path, workspace_root=workspace_root),
        project_context=context,
    )
