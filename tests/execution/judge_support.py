"""Helpers for the execution tests: a module's text as a :class:`Program` and a run of tests on it
through the one judge (:func:`codeteam.execution.suite.run_suite`)."""

from __future__ import annotations

import ast

from codeteam.execution.outcomes import Program, RunReport, TestCase
from codeteam.execution.sandbox import SandboxPolicy
from codeteam.execution.suite import run_suite
from codeteam.project import Project
from codeteam.task import Task

PROBE = "\n\ndef codeteam_probe():\n    return None\n"
"""Appended to a module with no function: the judged function of a run that only tests the
module's other code (its import, what the tests do)."""


def program_of(text: str, qualname: str | None = None, *, module_name: str = "solution",
               project: Project | None = None) -> Program:
    """``text`` (a whole module) judged with ``qualname`` as the function under test (default:
    its last top-level function; a module without one gets :data:`PROBE`), as it is."""
    if qualname is None:
        try:
            names = [n.name for n in ast.parse(text).body
                     if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
        except SyntaxError:
            names = []
        if not names:
            text = text + PROBE
            names = ["codeteam_probe"]
        qualname = names[-1]
    task = Task.from_source(text, qualname, module_name=module_name, project=project)
    return task.program_of(text, task.start_line, task.end_line - task.start_line + 1)


async def run_tests(program: Program | str, tests: list[TestCase], *, policy: SandboxPolicy,
                    module_name: str | None = None, project: Project | None = None) -> RunReport:
    """``tests`` on ``program`` (a :class:`Program`, or a module's text: :func:`program_of`),
    as the module ``module_name`` (default: the program's, "solution" for a text)."""
    if isinstance(program, str):
        program = program_of(program, module_name=module_name or "solution", project=project)
    if project is not None:
        program = program.model_copy(update={"project": project})
    if module_name is not None:
        program = program.model_copy(update={"module_name": module_name})
    return await run_suite(program, tests, policy)


async def run_candidate(target, original: str, candidate: str, tests: list[TestCase],
                        policy: SandboxPolicy) -> RunReport:
    """``tests`` (pytest node ids of the project at ``target``) on the module text
    ``candidate``, judged through the view of ``original`` (the user's text of the file)."""
    task = Task.from_source(original, target.qualname)
    found = Task.from_source(candidate, target.qualname)
    program = task.program_of(candidate, found.start_line, found.end_line - found.start_line + 1)
    return await run_suite(program.model_copy(update={"pytest_target": target}), tests, policy)
