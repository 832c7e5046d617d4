"""Candidates chosen by execution: CodeT's dual execution agreement (Chen et al., "CodeT:
Code Generation with Generated Tests", arXiv 2207.10397, section 2).

A generating pipeline (team, flow) collects several candidate functions: first the answer
``direct`` would give (the same prompt, settings and temperature, so a pipeline is never worse
than direct by construction), then, when that answer fails a test, ``candidates`` samples at
:data:`SAMPLE_TEMPERATURE` with one seed each (``seed + 1``, ``seed + 2``, ...). Every
candidate runs in the sandbox against the public tests and the AI tests, and the pool is
ranked by

1. public tests passed (the user's examples and tests are trusted: a candidate that passes
   fewer never replaces one that passes more): first the project's own pytest tests (and a
   benchmark's hidden ones), then the docstring's examples, so a candidate never trades a
   project test for a docstring example; a "not judged" test is not a pass here or below;
2. the dual execution agreement (CodeT section 2.2): candidates that behave alike on the AI
   tests' inputs (the same outputs, or the same exception) form a consensus set; a candidate's
   score is the size of its set times the number of AI tests it passes. An AI test that no
   candidate passes adds nothing to anyone (it is likely wrong);
3. the size of the consensus set alone (agreement even where no AI test passes, as AlphaCode
   clusters samples by behaviour, arXiv 2203.07814);
4. a candidate written from the prompt over a revision of one (a revision must do better to
   replace what it revised), then the shorter code, then the earlier candidate.

Revisions of a candidate (team's revision rounds) join the pool but do not vote: they are not
independent samples, so only the direct answer and the sampled ones count towards another
candidate's agreement.

CodeT samples solutions at temperature 0.8; on the embedded 135M model samples of
HumanEval/0-2 held usable code in 4 of 12 cases at 0.8 and 1 of 2 at 0.4, so samples here are
drawn at 0.5 (a compromise, not a tuned optimum). The seeds make a run repeatable and are recorded in the
transcript and in :attr:`Result.candidates`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from codeteam.execution.describe import ARGUMENTS
from codeteam.execution.outcomes import TestCase
from codeteam.llm.client import LLMError
from codeteam.pipelines.context import PipelineContext
from codeteam.pipelines.result import CandidateRecord
from codeteam.roles.code_extraction import CodeExtractionError
from codeteam.roles.coder import write_code
from codeteam.roles.conversation import CallBudgetExceeded, Sampling
from codeteam.roles.tester import TesterReport
from codeteam.task import Task

SAMPLE_TEMPERATURE = 0.5
"""Temperature of sampled candidates (CodeT, arXiv 2207.10397, samples at 0.8; lower here,
see the module docstring)."""

Origin = Literal["direct", "plan", "sample", "approach", "revision"]
"""Where a candidate came from: the direct prompt at the settings' temperature, the coder
following the analyst's plan, a sample of the direct prompt, one of flow's approaches, or the
coder's revision of another candidate."""


@dataclass
class Candidate:
    """One candidate function (column 0), how it was written (``sampling``; ``plan`` for a
    planned one), and its executed report (None until it has been run)."""

    code: str
    origin: Origin
    sampling: Sampling | None = None
    report: TesterReport | None = None
    plan: list[str] | None = None


Behaviour = tuple[tuple[str, str], ...]
"""What a candidate did on each AI test's input: ``(test id, "pass")`` or ``(test id, what it
returned or raised)``, in test order."""


def behaviour(report: TesterReport | None) -> Behaviour:
    """The candidate's behaviour on the AI tests' inputs (see :data:`Behaviour`). Two
    candidates with the same behaviour agree (CodeT's consensus set). A skipped test counts as
    "skipped" for everyone; a failing one by its actual value, else its exception type."""
    if report is None or report.run is None:
        return ()
    ai_ids = [t.id for t in report.tests if t.origin == "ai"]
    result = []
    for test_id in ai_ids:
        outcome = report.run.outcome(test_id)
        if outcome is None:
            seen = "no outcome"
        elif outcome.passed:
            seen = "pass"
        elif outcome.not_judged:  # the judge could not tell: no evidence either way
            seen = "not judged"
        elif outcome.skipped:
            seen = "skipped"
        elif outcome.actual is not None:
            seen = f"returned {outcome.actual}"
        else:
            seen = f"raised {outcome.exception_type or outcome.status}"
        result.append((test_id, seen))
    return tuple(result)


def _public(report: TesterReport | None) -> tuple[tuple[int, int], int]:
    """((project and hidden tests passed, docstring examples passed), total) of ``report``."""
    if report is None:
        return (0, 0), 0
    project, _ = report.counts("public", "pytest")
    public, public_total = report.counts("public")
    hidden, hidden_total = report.counts("hidden")
    return (project + hidden, public - project), public_total + hidden_total


def rank(pool: list[Candidate]) -> tuple[int, list[CandidateRecord]]:
    """Rank ``pool`` (every candidate run, or None reports for ones that could not run) as
    the module docstring says. Returns the index of the chosen candidate and one record per
    candidate, in pool order. Raises :class:`ValueError` for an empty pool."""
    if not pool:
        raise ValueError("no candidates to choose from")
    behaviours = [behaviour(c.report) for c in pool]
    voters = [i for i, c in enumerate(pool) if c.origin != "revision"]
    records = []
    keys = []
    for index, candidate in enumerate(pool):
        public_ok, public_total = _public(candidate.report)
        ai_ok, ai_total = candidate.report.counts("ai") if candidate.report else (0, 0)
        agreement = 1 + sum(1 for i in voters if i != index and behaviours[i] == behaviours[index])
        dual = agreement * ai_ok
        chars = len(candidate.code.strip())
        records.append(CandidateRecord(
            index=index, origin=candidate.origin,
            temperature=candidate.sampling.temperature if candidate.sampling else None,
            seed=candidate.sampling.seed if candidate.sampling else None,
            public_passed=sum(public_ok), public_total=public_total,
            ai_passed=ai_ok, ai_total=ai_total, agreement=agreement, dual_score=dual,
            chars=chars, code=candidate.code,
        ))
        independent = candidate.origin != "revision"
        keys.append((public_ok, dual, agreement, independent, -chars, -index))
    chosen = max(range(len(pool)), key=keys.__getitem__)
    records[chosen].chosen = True
    return chosen, records


def passes_everything(report: TesterReport | None) -> bool:
    """The early exit: some test ran and every test that ran passed, judged (a test "not judged"
    never ends a run early)."""
    return report is not None and report.passed


def judged_nowhere(report: TesterReport | None, task: Task) -> bool:
    """True when ``report`` failed nothing, passed nothing, and every test it ran is "not
    judged" because the test's own arguments cannot cross to the code under test
    (:data:`~codeteam.execution.describe.ARGUMENTS`: an object of a class the test makes at run
    time, which the code used): nearly a property of the tests (a candidate that ignored the
    object could be judged, but one that ignores its argument is rarely right), so sampling
    would buy nothing."""
    if report is None or report.run is None or report.verdict != "not judged":
        return False
    if report.run.passed:
        return False
    return all(o.message.startswith(ARGUMENTS) for o in report.run.not_judged)


async def sample(
    task: Task, ctx: PipelineContext, count: int, *, first_seed: int | None = None,
    first_only: bool = False,
) -> list[Candidate]:
    """``count`` samples of the direct prompt at :data:`SAMPLE_TEMPERATURE`, seeds
    ``first_seed``, ``first_seed + 1``, ... (default ``ctx.seed + 1``); with ``first_only``,
    sampling stops at the first reply that holds code (at most ``count`` calls). A reply with
    no usable code is dropped (a note counts them; it is not asked again: another sample is
    cheaper); a model error ends the sampling with a note. Never raises for the model's
    failures."""
    seed = ctx.seed + 1 if first_seed is None else first_seed
    found: list[Candidate] = []
    unusable = 0
    for i in range(count):
        sampling = Sampling(temperature=SAMPLE_TEMPERATURE, seed=seed + i)
        try:
            code = await write_code(
                ctx.conversation, task, prompt="direct", retries=0, sampling=sampling
            )
        except CodeExtractionError:
            unusable += 1
            continue
        except CallBudgetExceeded as error:
            ctx.note(f"sampling stopped: {error}")
            break
        except LLMError as error:
            ctx.note(f"sampling stopped after {i} of {count}: {error}")
            break
        found.append(Candidate(code=code, origin="sample", sampling=sampling))
        if first_only:
            break
    if unusable:
        drawn = unusable + len(found)
        ctx.note(f"{unusable} of {drawn} sampled candidates held no usable code")
    return found


async def run_pool(
    task: Task, ctx: PipelineContext, pool: list[Candidate], tests: list[TestCase],
    round_number: int,
) -> None:
    """Run ``tests`` on every candidate of ``pool`` that has no report yet (identical code is
    run once). A candidate gets no report when the sandbox cannot run (see
    :meth:`PipelineContext.run_tests`)."""
    seen: dict[str, TesterReport | None] = {
        c.code.strip(): c.report for c in pool if c.report is not None
    }
    for candidate in pool:
        if candidate.report is not None:
            continue
        key = candidate.code.strip()
        if key not in seen:
            seen[key] = await ctx.run_tests(task, candidate.code, tests, round_number)
        candidate.report = seen[key]


def choose(ctx: PipelineContext, pool: list[Candidate]) -> Candidate:
    """The chosen candidate of ``pool`` (see :func:`rank`); records the ranking in
    ``ctx.candidate_records``, the transcript, and a note when it is not the first."""
    chosen, records = rank(pool)
    ctx.candidate_records = records
    lines = [
        f"#{r.index} {r.origin}"
        + (f" (temperature {r.temperature:g}, seed {r.seed})" if r.seed is not None else "")
        + f": public {r.public_passed}/{r.public_total}, AI {r.ai_passed}/{r.ai_total}, "
        f"agreement {r.agreement}, score {r.dual_score}, {r.chars} chars"
        + ("  <- chosen" if r.chosen else "")
        for r in records
    ]
    ctx.conversation.event("tester", f"chose candidate #{chosen} of {len(pool)}",
                           "\n".join(lines))
    if chosen:
        r = records[chosen]
        ctx.note(f"chose candidate #{chosen} of {len(pool)} ({r.origin}"
                 + (f", seed {r.seed}" if r.seed is not None else "")
                 + f"): public tests {r.public_passed}/{r.public_total}"
                 + (f", AI tests {r.ai_passed}/{r.ai_total}, agreeing with "
                    f"{r.agreement - 1} other(s)" if r.ai_total else ", no AI tests ran"))
    return pool[chosen]
