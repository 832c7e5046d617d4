"""From a document on disk or in the editor to a :class:`~codeteam.task.Task` with its public
tests: the docstring's examples (read here without running anything) and the project's pytest
tests that reach the function (:func:`with_project_tests`: chosen by a judged pytest session in
the sandbox, see :mod:`codeteam.execution.pytest_run`)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from codeteam.execution.outcomes import TestCase, TestOrigin
from codeteam.execution.pytest_run import (
    has_tests,
    select_tests,
    selection_cases,
    target_for,
)
from codeteam.execution.sandbox import SandboxPolicy
from codeteam.project import Project, lone_module_name, nested_projects, project_for
from codeteam.project_context import DEFAULT_BUDGET, project_context_for
from codeteam.pysource import examples
from codeteam.pysource.functions import FunctionInfo, locate
from codeteam.task import Task


def module_name_for(path: Path | None, project: Project | None = None) -> str:
    """The importable name the module gets in the sandbox: the dotted name within its
    ``project`` (``pkg.sub.mod``); for a lone module its file stem when that is an identifier
    and not a keyword (so tests' ``from stem import f`` work), else ``solution``."""
    if project is not None and not project.lone:
        return project.module
    return lone_module_name(path)


def doctest_cases(docstring: str, function_name: str, *, origin: TestOrigin = "public",
                  **where) -> list[TestCase]:
    """The docstring's doctest examples as tests (see
    :func:`codeteam.pysource.examples.doctest_cases`; ``where``: ``docstring_first_line``,
    ``source``)."""
    return [TestCase(origin=origin, **vars(e))
            for e in examples.doctest_cases(docstring, function_name, **where)]


def example_cases(docstring: str, function_name: str, *, origin: TestOrigin = "public",
                  **where) -> list[TestCase]:
    """The docstring's prose examples as ``assert`` tests (see
    :func:`codeteam.pysource.examples.example_cases`)."""
    return [TestCase(origin=origin, **vars(e))
            for e in examples.example_cases(docstring, function_name, **where)]


def public_tests(
    source: str,
    info: FunctionInfo,
    *,
    path: Path | None = None,
    workspace_root: Path | None = None,
) -> list[TestCase]:
    """The function's docstring examples: its doctest examples or, when it has none, its prose
    examples (``f(1) == 2``, ``f(1) ➞ 2``; see
    :func:`~codeteam.pysource.examples.example_cases`). ``path`` and ``workspace_root`` are
    accepted for callers of old; the project's pytest tests are added by
    :func:`with_project_tests`."""
    tests: list[TestCase] = []
    if info.docstring:
        first = info.docstring_lines[0] if info.docstring_lines else None
        tests.extend(doctest_cases(info.docstring, info.name, docstring_first_line=first,
                                   source=source)
                     or example_cases(info.docstring, info.name, docstring_first_line=first,
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
    context_tokens: int = DEFAULT_BUDGET,
) -> Task:
    """The task for function ``qualname`` (or the already located ``info``) in ``source``.

    ``project`` (:func:`~codeteam.project.project_for` of ``path``) is where the module lives:
    the task is tested there and pytest tests are searched under its root (else under
    ``workspace_root``). ``source`` may have CRLF line endings; the task's text is LF. The
    task's project context (``context_tokens`` tokens;
    :func:`~codeteam.project_context.project_context_for`) is found in that project (for a
    lone module, the nearest folder with a ``pyproject.toml``, ``setup.py``, ``setup.cfg`` or
    ``.git``). Blocking: jedi reads the modules the function uses (call it off the event
    loop). Raises
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
    context = project_context_for(text, info, path=path, project=project, budget=context_tokens)
    return Task.from_info(
        text,
        info,
        module_name=module_name_for(path, project),
        public_tests=public_tests(text, info, path=path, workspace_root=workspace_root),
        project=project,
        project_context=context,
    )


async def with_project_tests(
    task: Task,
    *,
    path: Path | None,
    root: Path | None,
    policy: SandboxPolicy,
    python: str | None = None,
    progress: Callable[[str], None] | None = None,
) -> Task:
    """``task`` with the project's pytest tests that reach the function added to its public
    tests (chosen by a judged pytest session of everything plain pytest collects:
    :func:`~codeteam.execution.pytest_run.select_tests`, on the task's module text) and
    ``pytest_target`` set; tests that could not run are added with the reason (reported as not
    run). When pytest runs the function's doctest itself (the project's
    ``--doctest-modules``), that pytest test replaces the docstring examples, so the verdict
    is the project's own; when the project's tests reach the function but its configuration
    does not run its doctests, the docstring examples are ``advisory`` (a failing one is a
    disagreement between docstring and code, not a failure). Unchanged when ``path`` is None
    (an unsaved document) or the project has nothing pytest would collect (no process
    started). The project is ``task.project`` (else :func:`~codeteam.project.project_for` of
    ``path``, ``root`` and ``python``); a lone module's folder (or ``root``) is searched as its
    project, without its subfolders that are projects of their own (:func:`~codeteam.project.nested_projects`). Raises :class:`~codeteam.execution.outcomes.SandboxUnavailable` when the sandbox
    cannot run."""
    if path is None or not path.is_file():  # unsaved: nothing on disk to lay the text over
        return task
    path = path.resolve()
    project = task.project
    if project is None or (root is not None and Path(project.root) != Path(root).resolve()):
        project = await asyncio.to_thread(project_for, path, root, python)
    ignore: list[str] = []
    if project.lone:  # no project around the file: its folder, as a workspace of old, without
        project = project.model_copy(update={"root": str(Path(root or path.parent).resolve())})
        ignore = await asyncio.to_thread(nested_projects, project.root)  # others' projects
    root = Path(project.root)
    if not await asyncio.to_thread(has_tests, root, ignore):
        return task
    if progress is not None:
        progress("tester: selecting the project's tests")
    target = await asyncio.to_thread(
        target_for, root, path, project.module, task.qualname, task.start_line, project.python,
        extra_ro=project.read_only_paths() or None, hidden=project.hidden if not project.lone
        else None, import_root=project.import_root, ignore=ignore,
    )
    selection_policy = policy.model_copy(update={
        "timeout_s": max(policy.timeout_s, SELECTION_TIMEOUT_S),
        "cpu_s": max(policy.cpu_s, int(SELECTION_TIMEOUT_S)),
    })
    selection = await select_tests(target, task.module_source, selection_policy)
    target = target.model_copy(update={"rootdir": selection.rootdir})
    public = list(task.public_tests)
    if selection.doctests:
        public = [t for t in public if not (t.kind != "pytest" and t.origin == "public")]
    elif selection.selected:
        public = [t.model_copy(update={"advisory": True}) if t.kind != "pytest" else t
                  for t in public]
    public += selection_cases(selection)
    update: dict = {"public_tests": public, "pytest_target": target}
    if task.project is None and not project.lone:  # the other tests import it there too
        update.update(project=project, module_name=project.module)
    return task.model_copy(update=update)


SELECTION_TIMEOUT_S = 120.0
"""Wall-clock (and CPU) seconds for the selection session: every test plain pytest collects
runs once, each ending at its first call of the function (the tests never reached in time
are named, "not looked at")."""


def task_for_args(text, info, path, workspace_root, project, context_tokens) -> Task:
    """:func:`task_for` with positional arguments, for an offload to a worker process (which
    takes a picklable function and arguments); here, not in :mod:`codeteam.service.runs`, so
    that the editor's parse worker does not import the pipelines and the openai SDK to run it.
    It builds the project context too (jedi), so that work stays off the event loop and its
    GIL."""
    return task_for(text, info=info, path=path, workspace_root=workspace_root, project=project,
                    context_tokens=context_tokens)
