"""The one way to run tests on a candidate: :func:`run_suite`. Every kind of test -- the
project's own pytest tests, the docstring's examples, AI tests, a benchmark's hidden asserts --
runs in one judged pytest session (:func:`~codeteam.execution.pytest_run.judged_session`):
pytest imports the judge view of the user's text, the candidate runs in a subject process of
its own. AI tests (model-written test code, run in the judge) have a session of their own, so
they cannot touch how the others are judged. A module with no project around it (a benchmark
task, an unsaved document) is a project of one file in a temporary folder: the same path."""

from __future__ import annotations

import asyncio
import math
import shutil
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from codeteam.execution import trust
from codeteam.execution.judge_view import JudgeView, judge_view, placement
from codeteam.execution.outcomes import Program, PytestTarget, RunReport, TestCase, TestOutcome
from codeteam.execution.pytest_run import (
    bytecode_by,
    judged_session,
    node_args,
    session_spec,
    target_for,
)
from codeteam.execution.sandbox import SandboxPolicy

NESTED = ("a nested function's docstring examples are not collected by doctest (it has no "
          "object outside its enclosing function's call)")
"""Why a nested function's docstring examples are not run (never a failure)."""

Offload = Callable[..., Awaitable[Any]]
"""``await offload(function, *args)``: ``function(*args)`` elsewhere than on the event loop
(the editor's parse worker process: a parse of a large module holds the GIL, so a thread
would stall the loop as much)."""


def views(original: str, qualname: str, start: int | None,
          text: str) -> tuple[JudgeView | None, tuple[list[int], int] | None]:
    """The judge view of ``original`` for ``qualname`` and the candidate ``text``'s placement
    in it (:func:`~codeteam.execution.judge_view.placement`): the parsing of a run, in one
    call that an :data:`Offload` can run elsewhere."""
    view = judge_view(original, qualname, start)
    return view, (None if view is None else placement(view, text))


async def run_suite(program: Program, tests: list[TestCase], policy: SandboxPolicy, *,
                    offload: Offload | None = None) -> RunReport:
    """Run ``tests`` on ``program`` (the module with the candidate in place, and where it is
    judged): one :class:`RunReport`, outcomes in the order of ``tests``. The module's parsing
    runs through ``offload`` when given (:data:`Offload`), else here, and so does the
    compiling of the judge's own modules, once per process (:func:`bytecode_by`). Raises
    :class:`~codeteam.execution.outcomes.SandboxUnavailable` when the sandbox cannot run;
    cancellation kills the test processes."""
    if not tests:
        return RunReport(sandbox=policy.mode)
    arguments = (program.original, program.qualname, program.original_start, program.text)
    if offload is not None:
        await bytecode_by(offload)
    view, place = (views(*arguments) if offload is None
                   else await offload(views, *arguments))
    if view is None:
        return RunReport(sandbox=policy.mode, outcomes=[TestOutcome(
            test_id=t.id, status="error", message=f"{program.qualname} is not a function of "
            "its module's text") for t in tests])
    if view.nested:
        tests = [t.model_copy(update={"skip_reason": NESTED}) if _docstring_example(t) else t
                 for t in tests]
    runnable = [t for t in tests if t.skip_reason is None]
    parts = [part for part in ([t for t in runnable if t.origin != "ai"],
                               [t for t in runnable if t.origin == "ai"]) if part]
    skipped = RunReport(sandbox=policy.mode, outcomes=[
        TestOutcome(test_id=t.id, status="skipped", message=t.skip_reason)
        for t in tests if t.skip_reason is not None])
    if not parts:
        return trust.merge(tests, [skipped], policy.mode)
    folder = None
    target = program.pytest_target
    try:
        if target is None:
            target, folder = await asyncio.to_thread(_target, program)
        reports = await asyncio.gather(*(_session(target, view, place, program, part, policy)
                                         for part in parts))
    finally:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
    return trust.merge(tests, [*reports, skipped], policy.mode)


def _docstring_example(test: TestCase) -> bool:
    return test.kind == "doctest" and test.origin != "ai" or (
        test.kind == "assert" and test.origin == "public" and test.line is not None)


def _target(program: Program) -> tuple[PytestTarget, str | None]:
    """Where ``program`` is judged: its project, or (a module alone) a temporary folder holding
    it as its only file, which the caller deletes."""
    project = program.project
    if project is not None and not project.lone:
        return target_for(Path(project.root), Path(project.file), project.module,
                          program.qualname, program.original_start or 0, project.python,
                          extra_ro=project.read_only_paths() or None, hidden=project.hidden,
                          import_root=project.import_root), None
    name = program.module_name
    if not name.isidentifier() or name in sys.stdlib_module_names or name in sys.modules:
        name = "solution"  # the judge's own imports would find another module
    folder = tempfile.mkdtemp(prefix="codeteam-module-")
    Path(folder).chmod(0o755)
    path = Path(folder, f"{name}.py")
    path.write_text(program.original, encoding="utf-8")
    Path(folder, "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    for made in (path, Path(folder, "pytest.ini")):
        made.chmod(0o644)
    return target_for(Path(folder), path, name, program.qualname, program.original_start or 0,
                      sys.executable, hidden=[], import_root=folder, lone=True), folder


def session_policy(policy: SandboxPolicy, count: int) -> SandboxPolicy:
    """The policy of a session of ``count`` tests: each test is limited by its CPU time (the
    judge's and the subject's, ``per_test_timeout_s`` each); the session's wall clock and
    per-process CPU rlimit are backstops that grow with the tests (a machine busy with other
    work must not cut a session whose tests are within their limits)."""
    limit = min(policy.per_test_timeout_s, policy.timeout_s)
    backstop = max(policy.timeout_s, 60.0 + 2 * limit * count)
    return policy.model_copy(update={"timeout_s": backstop,
                                     "cpu_s": max(policy.cpu_s, math.ceil(backstop))})


async def _session(target: PytestTarget, view: JudgeView, place: tuple[list[int], int] | None,
                   program: Program, tests: list[TestCase], policy: SandboxPolicy) -> RunReport:
    pytest_ids = [t.id for t in tests if t.kind == "pytest"]
    docstring = [t.id for t in tests if _in_docstring(t)]
    examples = [{"id": t.id, "source": t.source, "want": t.expected or "", "setup": t.setup}
                for t in tests if t.kind == "doctest" and not _in_docstring(t)]
    asserts = [{"id": t.id, "setup": t.setup, "source": t.source, "filename": _filename(t)}
               for t in tests if t.kind == "assert"]
    spec = session_spec(target, view, program.text, "run", policy, place=place, keep=pytest_ids,
                        docstring=docstring, examples=examples, asserts=asserts)
    run_policy = session_policy(policy, len(tests))
    heard, result = await judged_session(target, view, program.text,
                                         node_args(target, pytest_ids), spec, run_policy)
    found = trust.outcomes(tests, heard, result, run_policy, program, target)
    return trust.report(found, result, run_policy)


def _in_docstring(test: TestCase) -> bool:
    """An example of the function's own docstring (``doctest:<n>``: run as that docstring, one
    ``DocTest``); other doctest examples (AI tests, a benchmark's) each run as their own."""
    return (test.kind == "doctest" and test.origin != "ai" and test.id.startswith("doctest:")
            and test.id[8:].isdigit())


def _filename(test: TestCase) -> str:
    """How a generated test's frames are named in tracebacks."""
    origin = {"public": "docstring example", "ai": "AI test", "hidden": "hidden test"}[test.origin]
    return f"<{origin} {test.id}>"
