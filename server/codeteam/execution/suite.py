"""One run of a candidate's tests: the project's pytest tests by pytest itself
(:func:`~codeteam.execution.pytest_run.run_pytest_tests`: pytest imports the judge view of the
user's text and the candidate runs in a process of its own), the others (docstring examples, AI tests, hidden benchmark tests) by the stdlib
harness (:func:`~codeteam.execution.runner.run_tests`), both at once; one report."""

from __future__ import annotations

import asyncio

from codeteam.execution.describe import NO_VIEW
from codeteam.execution.judge_view import judge_view
from codeteam.execution.models import RunReport, TestCase, TestOutcome
from codeteam.execution.pytest_run import run_pytest_tests
from codeteam.execution.runner import run_tests
from codeteam.execution.sandbox import SandboxPolicy
from codeteam.task import Program, Task


async def run_suite(task: Task, program: Program, tests: list[TestCase],
                    policy: SandboxPolicy) -> RunReport:
    """Run ``tests`` on ``program`` (``task``'s module with the candidate in place): one
    :class:`RunReport`, outcomes in the order of ``tests``; a test with no outcome is an
    "error". Raises :class:`~codeteam.execution.models.SandboxUnavailable` when the sandbox
    cannot run; cancellation kills the test processes."""
    pytest_tests = [t for t in tests if t.kind == "pytest"]
    others = [t for t in tests if t.kind != "pytest"]
    if not pytest_tests:
        return await run_tests(program, tests, module_name=task.module_name, policy=policy,
                               project=task.project)
    if task.pytest_target is None:
        runs = [RunReport(sandbox=policy.mode, outcomes=[
            TestOutcome(test_id=t.id, status="skipped",
                        message="no project to run pytest in (the file is not saved)")
            for t in pytest_tests])]
    else:
        runs = []
    jobs = []
    if others:
        jobs.append(run_tests(program, others, module_name=task.module_name, policy=policy,
                              project=task.project))
    view = None
    if task.pytest_target is not None:
        view = judge_view(task.module_source, task.qualname, task.start_line)
        jobs.append(run_pytest_tests(
            task.pytest_target, program.text, pytest_tests, policy,
            function_start=program.function_start, function_lines=program.function_lines,
            rootdir=task.pytest_target.rootdir, judge=view,
        ))
    runs += await asyncio.gather(*jobs)
    if task.pytest_target is not None and view is None:
        for outcome in runs[-1].outcomes:  # the pytest run: the last job
            if not outcome.trusted and outcome.untrusted_reason is None:
                outcome.untrusted_reason = NO_VIEW
    found = {o.test_id: o for run in runs for o in run.outcomes}
    return RunReport(
        outcomes=[found.get(t.id) or TestOutcome(test_id=t.id, status="error",
                                                 message="no outcome reported")
                  for t in tests],
        sandbox=policy.mode,
        exit_code=next((r.exit_code for r in runs if r.exit_code), runs[0].exit_code),
        killed=any(r.killed for r in runs),
        output="\n".join(r.output for r in runs if r.output),
        seconds=max(r.seconds for r in runs),
    )
