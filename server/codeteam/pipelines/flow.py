"""``flow``: a test-driven flow after AlphaCodium (Ridnik et al., arXiv 2401.08500, section 3).

Pre-processing: self-reflection on the problem and reasoning about the public tests (YAML);
two or three possible approaches and a choice (YAML); AI tests ordered easy to hard (YAML).
Code iterations: initial code for the chosen approach (the next approach is tried when the
first fails the public tests); then fixes on the public tests first and the AI tests after,
one failing test at a time, with *test anchors* (section 3, "test anchors"): a fix that
breaks a test that passed before is reverted. The run stops as soon as every test passes, or
when the LLM call budget (``max_calls``) is spent; the best code so far is returned.

AlphaCodium spends 15-20 calls a problem; with the default budget of 15 and the early exit,
a problem whose first code passes costs 5 calls.
"""

from __future__ import annotations

from codeteam.execution.models import TestCase
from codeteam.llm.client import LLMError
from codeteam.pipelines.context import PipelineContext, score, status_of
from codeteam.pipelines.result import Result
from codeteam.roles.code_extraction import CodeExtractionError
from codeteam.roles.conversation import CallBudgetExceeded
from codeteam.roles.flow_stages import (
    fix_code,
    initial_code,
    propose_solutions,
    reflect,
    write_ai_tests,
)
from codeteam.roles.structured import StructuredReplyError
from codeteam.roles.tester import TesterReport, describe_failure
from codeteam.task import Task

FIX_ATTEMPTS_PER_TEST = 2
"""Fix attempts for one failing test before moving on (an AI test may simply be wrong)."""

MAX_APPROACHES = 2
"""Approaches tried for the initial code before the fix iterations."""


def _passing(report: TesterReport) -> set[str]:
    assert report.run is not None
    return {o.test_id for o in report.run.outcomes if o.passed}


async def run_flow(task: Task, ctx: PipelineContext) -> Result:
    """The flow described in the module docstring. Degrades stage by stage (a note each);
    status "error" only when no code could be produced."""
    conversation = ctx.conversation
    reflection: list[str] = []
    approaches: list[str | None] = [None]

    # A model that could not write parseable YAML for a stage, even when shown its error, is
    # not asked for YAML again in this run: the later structured stages are skipped (weak models
    # would spend two calls on each for nothing).
    yaml_failed: str | None = None
    try:
        reflection = (await reflect(conversation, task)).self_reflection
    except StructuredReplyError as error:
        yaml_failed = "reflection"
        ctx.note(f"reflection skipped: {error}")
    except LLMError as error:
        ctx.note(f"reflection skipped: {error}")
    if yaml_failed:
        ctx.note(f"approaches skipped: the {yaml_failed} stage's YAML did not parse")
    else:
        try:
            solutions = await propose_solutions(conversation, task, reflection)
            approaches = [f"{s.name}: {s.content}".strip(": ") for s in solutions.ordered()]
            conversation.event("analyst", "approaches", "\n".join(approaches))
        except StructuredReplyError as error:
            yaml_failed = "approaches"
            ctx.note(f"approaches skipped: {error}")
        except LLMError as error:
            ctx.note(f"approaches skipped: {error}")

    ai_tests: list[TestCase] = []
    if ctx.ai_tests and task.is_method:
        ctx.note("AI tests skipped: the flow writes them as calls of a plain function, and "
                 f"{task.qualname} is reached through an object")
    elif ctx.ai_tests and yaml_failed:
        ctx.note(f"AI tests skipped: the {yaml_failed} stage's YAML did not parse; only the "
                 "public tests are used")
    elif ctx.ai_tests:
        try:
            ai_tests = await write_ai_tests(conversation, task, ctx.ai_tests)
        except (StructuredReplyError, LLMError) as error:
            ctx.note(f"AI tests skipped: {error}; only the public tests are used")
    public = list(task.public_tests)
    tests = public + ai_tests

    # Initial code: the chosen approach, then the next one if the public tests fail.
    best_code: str | None = None
    best_report: TesterReport | None = None
    reports: list[TesterReport] = []
    round_number = 0
    for approach in approaches[:MAX_APPROACHES]:
        try:
            code = await initial_code(conversation, task, reflection, approach)
        except (LLMError, CodeExtractionError) as error:
            ctx.note(f"initial code failed: {error}")
            if isinstance(error, CallBudgetExceeded):
                break
            continue
        round_number += 1
        report = await ctx.run_tests(task, code, tests, round_number)
        if report is None:
            best_code = best_code or code
            break
        reports.append(report)
        if best_report is None or score(report) > score(best_report):
            best_code, best_report = code, report
        public_ok, public_total = report.counts("public")
        if public_ok == public_total:
            break
    if best_code is None:
        return ctx.result("flow", "error", None, reports=reports, rounds=round_number)
    if best_report is None or best_report.passed:
        return ctx.result("flow", status_of(best_report), best_code, reports=reports,
                          rounds=round_number)

    # Fix iterations: public tests first, then AI tests (easy to hard), with test anchors.
    code, current = best_code, best_report
    by_id = {t.id: t for t in tests}
    budget_spent = False
    for group_name, group in (("public test", public), ("AI test", ai_tests)):
        for test in group:
            if budget_spent or current.passed:
                break
            attempts = 0
            while test.id not in _passing(current) and attempts < FIX_ATTEMPTS_PER_TEST:
                attempts += 1
                outcome = current.run.outcome(test.id) if current.run else None
                if outcome is None or outcome.skipped:  # the sandbox cannot run it: no fix
                    break
                anchors = sorted(_passing(current))
                try:
                    candidate = await fix_code(
                        conversation, task, code, describe_failure(test, outcome),
                        [by_id[a].describe() for a in anchors],
                        label=f"{group_name} {test.id}",
                    )
                except CallBudgetExceeded:
                    ctx.note(f"the LLM call budget ({ctx.max_calls}) is spent")
                    budget_spent = True
                    break
                except (LLMError, CodeExtractionError) as error:
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
            if test.id not in _passing(current) and test.origin == "ai" and not budget_spent:
                ctx.note(f"gave up on {test.id} ({test.describe()}): it may be a wrong AI test")
    return ctx.result("flow", status_of(best_report), best_code, reports=reports,
                      rounds=round_number)
