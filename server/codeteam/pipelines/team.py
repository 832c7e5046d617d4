"""``team``: self-collaboration code generation (Dong et al., arXiv 2304.07590).

Roles share one message pool (section 3.1). The analyst decomposes the requirement into a plan
(or the docstring's plan is used), the coder writes code following it, and the tester reports
on it; the coder revises from the report until the tester is satisfied or ``max_rounds`` is
reached (section 3.2; the paper reports +29.9% to +47.1% relative pass@1).

Two changes from the paper, both for trust in an editor: the tester's report comes from
*executed* tests (the public tests and AI tests written from the requirement alone) instead of
the model's opinion, and the code returned is the best candidate seen (public tests first),
not merely the last, so a revision that breaks what worked is not what the user gets.
"""

from __future__ import annotations

from codeteam.execution.models import TestCase
from codeteam.llm.client import LLMError
from codeteam.pipelines.context import PipelineContext, score, status_of
from codeteam.pipelines.result import Result
from codeteam.roles.analyst import PlanError, write_plan
from codeteam.roles.code_extraction import CodeExtractionError
from codeteam.roles.coder import revise_code, write_code
from codeteam.roles.tester import TesterReport, write_tests
from codeteam.task import Task


async def run_team(task: Task, ctx: PipelineContext) -> Result:
    """Analyst -> coder -> tester, then coder/tester rounds until the tests pass or
    ``ctx.max_rounds`` rounds have run. Degrades with a note when a role fails (no plan, no AI
    tests), returns status "error" only when no code could be produced."""
    conversation = ctx.conversation
    plan = task.plan
    if plan:
        conversation.event("analyst", "plan from the docstring", "\n".join(plan))
    else:
        try:
            plan = await write_plan(conversation, task)
        except (LLMError, PlanError) as error:
            ctx.note(f"analyst: {error}; the coder worked without a plan")
            plan = None

    ai_tests: list[TestCase] = []
    try:
        ai_tests = await write_tests(conversation, task, ctx.ai_tests)
        if ctx.ai_tests and not ai_tests:
            ctx.note("tester: wrote no usable AI tests; only the public tests were run")
    except LLMError as error:
        ctx.note(f"tester: {error}; only the public tests were run")
    tests = list(task.public_tests) + ai_tests

    try:
        code = await write_code(conversation, task, plan=plan)
    except (LLMError, CodeExtractionError) as error:
        ctx.note(f"coder: {error}")
        return ctx.result("team", "error", None, plan=plan)

    return await _rounds(task, ctx, "team", code, tests, plan)


async def run_fix(task: Task, ctx: PipelineContext) -> Result:
    """"Fix with team": the tester tests the function as written; while tests fail, the coder
    revises it (the same rounds as :func:`run_team`, starting from the user's code instead of
    a first draft; the docstring's plan, if any, guides the coder)."""
    conversation = ctx.conversation
    ai_tests: list[TestCase] = []
    try:
        ai_tests = await write_tests(conversation, task, ctx.ai_tests)
    except LLMError as error:
        ctx.note(f"tester: {error}; only the public tests were run")
    tests = list(task.public_tests) + ai_tests
    return await _rounds(task, ctx, "fix", task.stub, tests, task.plan, first_is_users=True)


async def _rounds(
    task: Task,
    ctx: PipelineContext,
    pipeline: str,
    code: str,
    tests: list[TestCase],
    plan: list[str] | None,
    *,
    first_is_users: bool = False,
) -> Result:
    """Tester/coder rounds from ``code``: test, and revise while tests fail, at most
    ``ctx.max_rounds`` test runs. Returns the best candidate (see :func:`score`)."""
    conversation = ctx.conversation
    reports: list[TesterReport] = []
    best_code, best_report = code, None
    rounds = 0
    for round_number in range(1, ctx.max_rounds + 1):
        rounds = round_number
        report = await ctx.run_tests(task, code, tests, round_number)
        if report is None:  # nothing to run, or no sandbox: the first code stands
            break
        reports.append(report)
        if best_report is None or score(report) > score(best_report):
            best_code, best_report = code, report
        if report.passed or round_number == ctx.max_rounds:
            break
        try:
            code = await revise_code(
                conversation, task, code, report.summary, plan=plan,
                round_number=round_number + 1,
            )
        except (LLMError, CodeExtractionError) as error:
            ctx.note(f"coder: revision {round_number + 1} failed ({error}); kept the best code")
            break
    if best_report is not None and reports and best_report is not reports[-1]:
        ctx.note(
            f"kept the code of round {best_report.round}: later revisions passed no more tests"
        )
    if best_report is not None and not best_report.passed:
        public_ok, public_total = best_report.counts("public")
        ai_ok, ai_total = best_report.counts("ai")
        if public_total and public_ok == public_total and ai_ok < ai_total:
            ctx.note(
                f"all {public_total} public tests pass; {ai_total - ai_ok} AI test(s) fail "
                "(AI tests can be wrong: check them in the report)"
            )
    if not tests:
        ctx.note("no public tests (docstring examples or pytest tests) and no AI tests: "
                 "the code is untested")
    if first_is_users and best_code == task.stub and reports and not reports[-1].passed:
        ctx.note("no revision did better than the code as written")
    return ctx.result(
        pipeline, status_of(best_report), best_code, plan=plan, reports=reports, rounds=rounds
    )
