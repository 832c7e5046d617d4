"""``team``: self-collaboration code generation (Dong et al., arXiv 2304.07590).

Roles share one message pool (section 3.1). The analyst decomposes the requirement into a plan
(or the docstring's plan is used), the coder writes code following it, and the tester reports
on it; the coder revises from the report until the tester is satisfied or ``max_rounds`` is
reached (section 3.2; the paper reports +29.9% to +47.1% relative pass@1).

Changes from the paper, for trust in an editor and to earn the team's cost: the tester's
report comes from *executed* tests (the public tests and AI tests written from the requirement
alone) instead of the model's opinion; the coder's first draft is the answer ``direct`` gives
(the same call: a team is never worse than direct), and when it fails a test, sampled
alternatives are chosen by execution (CodeT's dual agreement, arXiv 2207.10397; see
:mod:`codeteam.pipelines.candidates`) before the revision rounds (when no candidate passes
any test, the first revision round draws one more sample instead); the code returned is the
best candidate seen (public tests first), not merely the last, so a revision that breaks what
worked is not what the user gets.
"""

from __future__ import annotations

from codeteam.execution.describe import code_caused
from codeteam.execution.outcomes import TestCase
from codeteam.llm.client import LLMError
from codeteam.pipelines.candidates import (
    Candidate,
    choose,
    judged_nowhere,
    passes_everything,
    rank,
    run_pool,
    sample,
)
from codeteam.pipelines.context import PipelineContext, score, status_of
from codeteam.pipelines.result import Result
from codeteam.roles.analyst import PlanError, write_plan
from codeteam.roles.code_extraction import CodeExtractionError
from codeteam.roles.coder import revise_code, write_code
from codeteam.roles.conversation import CallBudgetExceeded
from codeteam.roles.tester import TesterReport, write_tests
from codeteam.task import Task


async def run_team(task: Task, ctx: PipelineContext) -> Result:
    """Tester (AI tests from the requirement), then the answer ``direct`` gives as the first
    candidate: if it passes every test that ran, judged, the run ends there (the early exit;
    a test "not judged" is no pass, so it never ends a run). Else
    ``ctx.candidates`` more are sampled (with ``ctx.plan_candidate``, the first of them is the
    coder's answer following the analyst's plan, or the docstring's: self-collaboration's
    analyst -> coder -> tester; that plan then guides the revisions), all are run, and the
    one chosen by execution
    (:mod:`codeteam.pipelines.candidates`: public tests, then CodeT's dual agreement, then the
    shorter code) starts the coder/tester revision rounds; the sampling counts as round 2 of
    ``ctx.max_rounds``. When no candidate passes any test and some fail one, or no
    candidate holds usable code, round 3 draws one more sample instead of a revision: a
    revision of code that is wrong everywhere has no passing test to keep, and on the
    embedded model such revisions never solved a task while samples did (docs/benchmarks.md,
    issue 17); rounds after it revise. With no tests at all and no code in the direct answer,
    samples are drawn until one holds code, returned untested. The code returned is never
    one that passes fewer public tests than the direct answer. Degrades with a note when a
    role fails (no plan, no AI tests, no sandbox: one answer, no sampling); status "error"
    only when no code could be produced."""
    conversation = ctx.conversation
    plan = task.plan
    if plan:
        conversation.event("analyst", "plan from the docstring", "\n".join(plan))

    ai_tests: list[TestCase] = []
    try:
        ai_tests = await write_tests(conversation, task, ctx.ai_tests)
        if ctx.ai_tests and not ai_tests:
            ctx.note("tester: wrote no usable AI tests; only the public tests were run")
    except LLMError as error:
        ctx.note(f"tester: {error}; only the public tests were run")
    tests = list(task.public_tests) + ai_tests

    pool: list[Candidate] = []
    reports: list[TesterReport] = []
    try:
        first = await write_code(conversation, task, prompt="direct")
        pool.append(Candidate(code=first, origin="direct"))
    except CallBudgetExceeded as error:
        ctx.note(f"coder: {error}")
        return ctx.result("team", "error", None, plan=plan)
    except (LLMError, CodeExtractionError) as error:
        ctx.note(f"coder: {error}; sampling other answers")
    if pool:
        report = await ctx.run_tests(task, pool[0].code, tests, 1)
        pool[0].report = report
        if report is not None:
            reports.append(report)
        if report is None and ctx.sandbox_problem:
            ctx.note("one answer, no sampling: candidates are chosen by running them, and "
                     "the tests could not run")
        if judged_nowhere(report, task):
            ctx.note("no sampling: nothing failed, and no candidate's tests can be judged "
                     "(the tests' own arguments cannot cross to the code under test)")
        if (report is None or passes_everything(report) or not ctx.candidates
                or ctx.max_rounds < 2 or judged_nowhere(report, task)):
            return await _rounds(task, ctx, "team", pool[0].code, tests, plan,
                                 current=report, done_rounds=1, earlier=reports, pool=pool)
    if not tests:
        # The direct answer held no code: a sample that does is better than nothing. It is
        # returned untested, as the direct answer would have been.
        found = (await sample(task, ctx, ctx.candidates, first_only=True)
                 if ctx.max_rounds >= 2 else [])
        if not found:
            ctx.note("no public tests and no AI tests: nothing to choose a candidate by")
            return ctx.result("team", "error", None, plan=plan)
        ctx.note(f"the direct answer held no code: returned sample seed "
                 f"{found[0].sampling.seed if found[0].sampling else '?'}, untested")
        return await _rounds(task, ctx, "team", found[0].code, tests, plan)

    samples = ctx.candidates
    if ctx.plan_candidate:
        planned = await _planned_candidate(task, ctx, plan)
        if planned is not None:
            pool.append(planned)
            plan = planned.plan
            samples -= 1
    pool += await sample(task, ctx, samples)
    done_rounds = 2
    if pool:
        await run_pool(task, ctx, pool, tests, done_rounds)
    if ctx.candidates and ctx.max_rounds > done_rounds and _nothing_to_revise_from(pool):
        # Nothing passed a test, so a revision would start from code that is wrong
        # everywhere (or there is no code): spend the round on one more sample instead.
        ctx.note(("no candidate passed a test" if pool else "no candidate held usable code")
                 + ": the round a revision would take was spent on one more sample")
        done_rounds += 1
        extra = await sample(task, ctx, 1, first_seed=ctx.seed + 1 + samples)
        pool += extra
        await run_pool(task, ctx, pool, tests, done_rounds)
    if not pool:
        return ctx.result("team", "error", None, plan=plan, reports=reports,
                          rounds=done_rounds)
    chosen = choose(ctx, pool)
    if chosen.report is None:  # the sandbox went away between runs
        return ctx.result("team", "untested", chosen.code, plan=plan, reports=reports,
                          rounds=done_rounds)
    reports.append(chosen.report)
    return await _rounds(task, ctx, "team", chosen.code, tests, plan,
                         current=chosen.report, done_rounds=done_rounds, earlier=reports,
                         revise_retries=0, pool=pool)


def _nothing_to_revise_from(pool: list[Candidate]) -> bool:
    """True when no candidate holds code, or every candidate was run, none passed a single
    test (nor left one "not judged": either is something a revision would keep) and some
    failed one: a revision would start from code wrong on every test (see :func:`run_team`).
    False when a candidate could not run."""
    if not pool:
        return True
    reports = [c.report for c in pool]
    if any(r is None or r.run is None for r in reports):
        return False
    return (not any(o.status == "passed" for r in reports for o in r.run.outcomes)
            and any(r.verdict == "fail" for r in reports))


async def _planned_candidate(
    task: Task, ctx: PipelineContext, plan: list[str] | None
) -> Candidate | None:
    """The coder's answer following the analyst's plan (or the docstring's), or None with a
    note when there is no plan or no code."""
    if not plan:
        try:
            plan = await write_plan(ctx.conversation, task)
        except (LLMError, PlanError) as error:
            ctx.note(f"analyst: {error}; no planned candidate")
            return None
    try:
        code = await write_code(ctx.conversation, task, plan=plan, retries=0)
    except (LLMError, CodeExtractionError) as error:
        ctx.note(f"coder: the planned candidate failed ({error})")
        return None
    return Candidate(code=code, origin="plan", plan=plan)


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
    current: TesterReport | None = None,
    done_rounds: int = 0,
    earlier: list[TesterReport] | None = None,
    revise_retries: int = 1,
    pool: list[Candidate] | None = None,
) -> Result:
    """Tester/coder rounds from ``code``: test, and revise while tests fail, at most
    ``ctx.max_rounds`` rounds in all (a revision that produced no code counts as a round
    begun, so the summary's count matches the transcript's last round; a report whose only shortfall is "not judged" passes
    has no failure to revise: the rounds end, with status "not judged", unless a test is "not
    judged" for the code's own value, :func:`~codeteam.execution.describe.code_caused`). ``current`` is ``code``'s report when it has been run
    already (``done_rounds`` rounds so far, their reports ``earlier``); a revision reply with
    no code is asked again ``revise_retries`` times. With a ``pool`` (the candidates compared
    so far, ``code``'s among them), each revision joins it and the best is the pool's choice
    (:func:`~codeteam.pipelines.candidates.rank`: public tests, then dual agreement), so a
    revision that passes a wrong AI test alone does not replace answers that agree; without
    one, the best is by :func:`score`."""
    conversation = ctx.conversation
    reports: list[TesterReport] = list(earlier or [])
    best_code, best_report = code, current
    round_number = done_rounds
    report = current
    tested = current is not None or done_rounds == 0
    while tested:
        if report is None:
            round_number += 1
            report = await ctx.run_tests(task, code, tests, round_number)
            if report is None:  # nothing to run, or no sandbox: the first code stands
                break
            reports.append(report)
            if pool is not None:
                pool.append(Candidate(code=code, origin="revision", report=report))
        if pool is not None and len(pool) > 1:
            chosen, ctx.candidate_records = rank(pool)
            best_code, best_report = pool[chosen].code, pool[chosen].report
        elif best_report is None or score(report) > score(best_report):
            best_code, best_report = code, report
        if report.passed or round_number >= ctx.max_rounds:
            break
        if report.verdict == "not judged" and not any(
                map(code_caused, report.run.not_judged)):  # nothing failed: nothing to revise
            break  # (but a value of the code's the judge cannot use is the code's to change)
        try:
            code = await revise_code(
                conversation, task, code, report.summary, plan=plan,
                round_number=round_number + 1, retries=revise_retries,
            )
        except (LLMError, CodeExtractionError) as error:
            # The round began (the transcript shows its coder call): it counts, untested.
            round_number += 1
            ctx.note(f"coder: revision {round_number} failed ({error}); kept the best code")
            break
        report = None
    if best_report is not None and reports and best_report is not reports[-1]:
        ctx.note(
            f"kept the code of round {best_report.round}: later revisions passed no more tests"
        )
    if best_report is not None and not best_report.passed:
        public_ok, public_total = best_report.counts("public")
        ai_ids = {t.id for t in best_report.tests if t.origin == "ai"}
        ai_failed = sum(1 for o in best_report.run.failures
                        if o.test_id in ai_ids) if best_report.run else 0
        if public_total and public_ok == public_total and ai_failed:
            ctx.note(
                f"all {public_total} public tests pass; {ai_failed} AI test(s) fail "
                "(AI tests can be wrong: check them in the report)"
            )
    if not tests:
        ctx.note("no public tests (docstring examples or pytest tests) and no AI tests: "
                 "the code is untested")
    if first_is_users and best_code == task.stub and reports and not reports[-1].passed:
        ctx.note("no revision did better than the code as written")
    return ctx.result(
        pipeline, status_of(best_report), best_code, plan=plan, reports=reports,
        rounds=max(round_number, 1 if done_rounds else 0),
    )
