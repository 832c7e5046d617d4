"""``flow``: a test-driven flow after AlphaCodium (Ridnik et al., arXiv 2401.08500, section 3).

AI tests first, ordered easy to hard (YAML; section 3, "generate additional AI tests"), then
the answer ``direct`` gives (a flow is never worse than direct): when it passes every public
and AI test, the run ends there, at 2 calls. Else the pre-processing reasoning runs: a
self-reflection on the problem and on the public tests (YAML; section 3, "problem
reflection"), and the initial code written from that reflection joins the direct answer and
``candidates - 2`` sampled alternatives (at least one); the one chosen by execution
(AlphaCodium's "several candidate solutions", ranked by CodeT's dual agreement, arXiv
2207.10397, see :mod:`codeteam.pipelines.candidates`) is the starting point of the fixes: on
the public tests first and the AI tests after, one failing test at a time, with *test
anchors* (section 3, "test anchors"): a fix that breaks a test that passed before is
reverted. Rounds are counted as in ``team``: round 1 the direct answer, round 2 the
candidates, then one fix a round up to ``max_rounds``; the LLM call budget (``max_calls``)
also stops the fixes. The best code seen is returned.

Changes from the paper, to keep the cost at team's (at most 6 calls a problem with the
defaults ``candidates`` 3 and ``max_rounds`` 3: AI tests, direct, reflection, initial code,
one sample, one fix): the AI tests come before the reflection, so a first answer that passes
them ends the run before any reasoning is paid for; the reflection is asked only when that
answer fails; the "possible solutions" stage (two or three approaches, one chosen) is left
out: on the embedded model it cost a call a problem, its YAML often did not parse, and the
approach's code solved no task the samples did not (docs/benchmarks.md, issue 17). AlphaCodium
spends 15-20 calls a problem.
"""

from __future__ import annotations

from codeteam.execution.outcomes import TestCase
from codeteam.llm.client import LLMAuthError, LLMError, LLMTimeout, LLMUnavailable
from codeteam.pipelines.candidates import (
    Candidate,
    choose,
    judged_nowhere,
    passes_everything,
    run_pool,
    sample,
)
from codeteam.pipelines.context import PipelineContext, score, status_of
from codeteam.pipelines.result import Result
from codeteam.roles.code_extraction import CodeExtractionError
from codeteam.roles.coder import write_code
from codeteam.roles.conversation import CallBudgetExceeded
from codeteam.roles.flow_stages import (
    fix_code,
    initial_code,
    reflect,
    write_ai_tests,
)
from codeteam.roles.structured import StructuredReplyError
from codeteam.roles.tester import TesterReport, describe_failure
from codeteam.task import Task

FIX_ATTEMPTS_PER_TEST = 2
"""Fix attempts for one failing test before moving on (an AI test may simply be wrong)."""



def _passing(report: TesterReport) -> set[str]:
    assert report.run is not None
    return {o.test_id for o in report.run.outcomes if o.passed}


async def run_flow(task: Task, ctx: PipelineContext) -> Result:
    """The flow described in the module docstring. Degrades stage by stage (a note each);
    status "error" only when no code could be produced."""
    conversation = ctx.conversation

    # A model that could not write parseable YAML for a stage, even when shown its error, is
    # not asked for YAML again in this run: the later structured stage is skipped (weak models
    # would spend two calls on it for nothing).
    yaml_failed: str | None = None
    ai_tests: list[TestCase] = []
    if ctx.ai_tests and task.is_method:
        ctx.note("AI tests skipped: the flow writes them as calls of a plain function, and "
                 f"{task.qualname} is reached through an object")
    elif ctx.ai_tests:
        try:
            ai_tests = await write_ai_tests(conversation, task, ctx.ai_tests)
        except StructuredReplyError as error:
            yaml_failed = "AI tests"
            ctx.note(f"AI tests skipped: {error}; only the public tests are used")
        except LLMError as error:
            ctx.note(f"AI tests skipped: {error}; only the public tests are used")
    public = list(task.public_tests)
    tests = public + ai_tests

    # Candidates: the answer direct gives first (a flow is never worse than direct); when it
    # fails a test, the code written from the reflection and sampled alternatives, chosen by
    # execution (CodeT's dual agreement, see codeteam.pipelines.candidates).
    pool: list[Candidate] = []
    reports: list[TesterReport] = []
    round_number = 0
    try:
        pool.append(Candidate(code=await write_code(conversation, task, prompt="direct"),
                              origin="direct"))
    except (LLMError, CodeExtractionError) as error:
        ctx.note(f"coder: the direct answer failed: {error}")
        if isinstance(error, CallBudgetExceeded):
            return ctx.result("flow", "error", None)
    if pool:
        round_number = 1
        first = await ctx.run_tests(task, pool[0].code, tests, round_number)
        pool[0].report = first
        if first is None:
            if ctx.sandbox_problem:
                ctx.note("one answer, no sampling: candidates are chosen by running them, "
                         "and the tests could not run")
            return ctx.result("flow", status_of(first), pool[0].code, rounds=round_number)
        reports.append(first)
        if judged_nowhere(first, task):
            ctx.note("no sampling: nothing failed, and no candidate's tests can be judged "
                     "(the tests' own arguments cannot cross to the code under test)")
        if passes_everything(first) or ctx.max_rounds < 2 or judged_nowhere(first, task):
            return ctx.result("flow", status_of(first), pool[0].code, reports=reports,
                              rounds=round_number)
    elif not tests:
        return ctx.result("flow", "error", None)

    # The reflection's code takes one of the ``candidates`` slots and the reflection another
    # (its call); at least one sample is drawn. Without the reflection's code, its slot is a
    # sample.
    samples = max(1, ctx.candidates - 2) if ctx.candidates else 0
    if ctx.candidates and yaml_failed:
        ctx.note(f"reflection skipped: the {yaml_failed} stage's YAML did not parse")
    if ctx.candidates and not yaml_failed:
        reflection: list[str] = []
        try:
            reflection = (await reflect(conversation, task)).self_reflection
        except (StructuredReplyError, LLMError) as error:
            ctx.note(f"reflection skipped: {error}")
        if reflection:
            try:
                pool.append(Candidate(code=await initial_code(conversation, task, reflection),
                                      origin="approach"))
            except CallBudgetExceeded as error:
                ctx.note(f"initial code failed: {error}")
                samples = 0
            except (LLMError, CodeExtractionError) as error:
                ctx.note(f"initial code failed: {error}")
    if samples and not any(c.origin == "approach" for c in pool):
        samples += 1
    pool += await sample(task, ctx, samples)
    if not pool:
        return ctx.result("flow", "error", None, reports=reports, rounds=round_number)
    if len(pool) > 1:
        round_number = 2
        await run_pool(task, ctx, pool, tests, round_number)
        chosen = choose(ctx, pool)
    else:
        chosen = pool[0]
        if chosen.report is None:
            round_number = 1
            chosen.report = await ctx.run_tests(task, chosen.code, tests, round_number)
    best_code, best_report = chosen.code, chosen.report
    if best_report is None:
        return ctx.result("flow", status_of(None), best_code, reports=reports,
                          rounds=round_number)
    if best_report is not (reports[-1] if reports else None):
        reports.append(best_report)
    if best_report.passed:
        return ctx.result("flow", "passed", best_code, reports=reports, rounds=round_number)

    # Fix iterations: public tests first, then AI tests (easy to hard), with test anchors.
    code, current = best_code, best_report
    by_id = {t.id: t for t in tests}
    budget_spent = calls_ended = False
    for group_name, group in (("public test", public), ("AI test", ai_tests)):
        for test in group:
            if budget_spent or current.passed:
                break
            attempts = 0
            while test.id not in _passing(current) and attempts < FIX_ATTEMPTS_PER_TEST:
                if round_number >= max(ctx.max_rounds, 2):
                    budget_spent = True
                    break
                attempts += 1
                outcome = current.run.outcome(test.id) if current.run else None
                if outcome is None or outcome.skipped:  # the sandbox cannot run it: no fix
                    break
                if outcome.not_judged:  # the judge could not tell: no failure to fix
                    break
                anchors = sorted(_passing(current))
                try:
                    candidate = await fix_code(
                        conversation, task, code, describe_failure(test, outcome),
                        [by_id[a].describe() for a in anchors],
                        label=f"{group_name} {test.id}",
                    )
                except CallBudgetExceeded as error:  # max_calls, or the token budget
                    ctx.note(str(error))
                    budget_spent = True
                    break
                except (LLMUnavailable, LLMTimeout, LLMAuthError) as error:  # no more calls
                    ctx.note(f"a fix for {test.id} failed, and the model is called no more "
                             f"in this run: {error}")
                    calls_ended = budget_spent = True
                    break
                except (LLMError, CodeExtractionError) as error:
                    round_number += 1
                    ctx.note(f"a fix for {test.id} failed: {error}")
                    continue
                round_number += 1
                report = await ctx.run_tests(task, candidate, tests, round_number)
                if report is None:
                    break
                reports.append(report)
                broken = set(anchors) - _passing(report)
                if broken:
                    conversation.event(
                        "tester", f"round {round_number}: reverted",
                        f"the fix for {test.id} broke anchor(s) {sorted(broken)}; reverted",
                    )
                    ctx.note(f"reverted a fix for {test.id}: it broke {', '.join(sorted(broken))}")
                    continue
                code, current = candidate, report
                if score(report) > score(best_report):
                    best_code, best_report = code, report
            if (test.id not in _passing(current) and test.origin == "ai" and not budget_spent
                    and attempts >= FIX_ATTEMPTS_PER_TEST):
                ctx.note(f"gave up on {test.id} ({test.describe()}): it may be a wrong AI test")
    if (budget_spent and not calls_ended and not best_report.passed
            and round_number >= ctx.max_rounds):
        ctx.note(f"stopped after {round_number} rounds (max_rounds {ctx.max_rounds})")
    return ctx.result("flow", status_of(best_report), best_code, reports=reports,
                      rounds=round_number)
