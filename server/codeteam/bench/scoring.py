"""Scoring generated code on a task's hidden tests, in the sandbox, and finding defective
hidden tests by running each task's reference solution through them once.

Nothing here executes code in this process: every run goes through the one judge,
:func:`codeteam.execution.suite.run_suite` (pytest in the sandbox, the code in a process of its
own); which outcome counts how is :mod:`codeteam.execution.trust`'s.
"""

from __future__ import annotations

import asyncio
import json
import math
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from codeteam.atomic_write import write_atomic
from codeteam.bench.datasets import BenchTask
from codeteam.bench.results import FailureKind
from codeteam.execution.outcomes import Program, RunReport, TestCase, TestOutcome

if TYPE_CHECKING:
    from codeteam.execution.sandbox import SandboxPolicy

DETAIL_LIMIT = 400
"""Characters of a failure description kept in a record."""


@dataclass
class Score:
    """The hidden tests' verdict on one program: ``passed`` when every hidden test passed,
    judged (a test "not judged" is no pass: kind "not_judged");
    ``kind`` (None when passed), ``error_type`` (for kind "error"), the hidden tests
    ``tests_passed`` of ``tests_total``, the scoring run's wall-clock ``seconds``, a short
    ``detail`` of the first failure, and ``tests_untrusted``: how many of the hidden tests are
    "not judged" (the judge could not tell: a value that could not cross, a busy machine)."""

    passed: bool
    kind: FailureKind | None = None
    error_type: str | None = None
    tests_passed: int = 0
    tests_total: int = 0
    seconds: float = 0.0
    detail: str = ""
    tests_untrusted: int = 0


def _short(text: str, limit: int = DETAIL_LIMIT) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _describe(test: TestCase | None, outcome: TestOutcome | None) -> str:
    name = test.id if test is not None else "?"
    if outcome is None:
        return f"{name}: did not report"
    parts = [f"{name}: {outcome.verdict}"]
    if outcome.exception_type:
        parts.append(f"{outcome.exception_type}: {outcome.message}".rstrip(": "))
    elif outcome.message:
        parts.append(outcome.message)
    if outcome.expected is not None or outcome.actual is not None:
        parts.append(f"expected {outcome.expected}, actual {outcome.actual}")
    return _short("; ".join(parts))


def classify(tests: list[TestCase], run: RunReport) -> Score:
    """The :class:`Score` of ``run`` (an executed :class:`RunReport` of ``tests``).
    ``passed`` needs every hidden test passed; a run whose only shortfall is tests "not
    judged" is "not_judged".

    Precedence: a run the wall-clock limit killed, a test that timed out, or a process
    stopped by the CPU limit (SIGXCPU) is "timeout"; a process that ended abnormally (a
    signal, ``os._exit``) leaving tests without a reported result is "crash"; otherwise the
    first failing test decides: an exception other than ``AssertionError`` is "error" (with
    its type; the program failing to import counts), a failed assertion or doctest output is
    "wrong_answer".
    """
    by_id = {o.test_id: o for o in run.outcomes}
    total = len(tests)
    passed = sum(1 for t in tests if (o := by_id.get(t.id)) is not None and o.passed)
    score = Score(passed=False, tests_passed=passed, tests_total=total, seconds=run.seconds)
    if total and passed == total:
        score.passed = True
        return score
    failing = [(t, by_id.get(t.id)) for t in tests
               if (o := by_id.get(t.id)) is None or not o.passed]
    real = [(t, o) for t, o in failing if o is None or not o.not_judged]  # not just unjudged
    first_test, first_outcome = (real or failing)[0] if failing else (None, None)
    timed_out = [(t, o) for t, o in failing if o is not None and o.status == "timeout"]
    cpu_limit = run.exit_code == -signal.SIGXCPU
    if run.killed or timed_out or cpu_limit:
        score.kind = "timeout"
        test, outcome = timed_out[0] if timed_out else (first_test, first_outcome)
        why = "the CPU time limit" if cpu_limit and not run.killed else "its time limit"
        score.detail = _short(f"the run hit {why} ({run.seconds:.1f} s); "
                              + _describe(test, outcome))
        return score
    # A process death (the harness's subject, or the whole run) gives the test it left
    # unreported an "error" without exception ("the process died during this test: ...").
    unreported = [(t, o) for t, o in failing
                  if o is None or (o.status == "error" and not o.exception_type)]
    if not tests or unreported or (run.exit_code != 0 and not run.outcomes):
        score.kind = "crash"
        test, outcome = unreported[0] if unreported else (first_test, first_outcome)
        score.detail = _short(f"the test process ended abnormally (run exit status "
                              f"{run.exit_code}); " + _describe(test, outcome))
        return score
    assert first_outcome is not None
    if not real:
        # nothing failed, but some tests could not be judged: not a pass either
        score.kind = "not_judged"
        score.detail = _short(f"{len(failing)} of {total} hidden tests not judged: "
                              + "; ".join(f"{t.id}: {o.message}" for t, o in failing[:3]
                                          if o is not None)
                              + (" ..." if len(failing) > 3 else ""))
        return score
    exception = first_outcome.exception_type
    # A "skipped" hidden test could not run (the module imports something the sandbox lacks):
    # no answer was checked, so it is that error rather than a wrong answer.
    if exception and exception != "AssertionError":  # pytest: an exception fails its test
        score.kind = "error"
        score.error_type = exception
    else:
        score.kind = "wrong_answer"
    score.detail = _describe(first_test, first_outcome)
    return score


def scoring_policy(mode: str, timeout_s: float) -> SandboxPolicy:
    """The sandbox policy of a scoring run: ``timeout_s`` wall-clock seconds for the whole
    run; one test may use 90% of it (a hidden test may be one big ``check``, and the test
    harness's own timer then reports the hang before the run is killed); the CPU limit is
    a few seconds above, so a busy loop is reported as a timeout rather than a kill. Other
    limits are :class:`~codeteam.execution.sandbox.SandboxPolicy`'s defaults."""
    from codeteam.execution.sandbox import SandboxPolicy

    return SandboxPolicy(
        mode=mode, timeout_s=timeout_s, per_test_timeout_s=0.9 * timeout_s,
        cpu_s=math.ceil(timeout_s) + 5,
    )


async def score_code(bench_task: BenchTask, code: str | None, *, policy: SandboxPolicy) -> Score:
    """Score a pipeline's ``code`` (the function at column 0, or None) on the hidden tests of
    ``bench_task``: the program is the task's module with the function replaced by ``code``.
    ``None`` scores as "no_code" without running anything."""
    total = len(bench_task.hidden_tests)
    if code is None:
        return Score(passed=False, kind="no_code", tests_total=total,
                     detail="the pipeline produced no code")
    try:
        program = bench_task.task.program_with(code)
    except Exception as error:  # noqa: BLE001 - any code the module splice cannot take
        return Score(passed=False, kind="error", error_type=type(error).__name__,
                     tests_total=total, detail=_short(f"cannot place the code: {error}"))
    return await score_hidden(bench_task, program, policy=policy)


async def score_hidden(bench_task: BenchTask, program: Program, *, policy: SandboxPolicy) -> Score:
    """Run ``bench_task``'s hidden tests on ``program`` (the whole module text): for a
    ``--repo`` task pytest runs the project's tests in the project (its ``pytest_target``),
    else the hidden asserts run as generated test modules beside the module."""
    if bench_task.pytest_target is not None:
        program = program.model_copy(update={"pytest_target": bench_task.pytest_target})
    return await score_program(program, bench_task.hidden_tests, policy=policy)


async def score_program(program: Program, tests: list[TestCase], *,
                        policy: SandboxPolicy) -> Score:
    """Run ``tests`` on ``program`` with the one judge
    (:func:`~codeteam.execution.suite.run_suite`) and classify the run. Raises
    :class:`~codeteam.execution.outcomes.SandboxUnavailable` when the sandbox cannot run."""
    from codeteam.execution.suite import run_suite

    started = time.monotonic()
    run = await run_suite(program, tests, policy)
    score = classify(tests, run)
    score.tests_untrusted = len(run.not_judged)
    score.seconds = time.monotonic() - started
    return score


# --- defective hidden tests ----------------------------------------------------------------


class ReferenceCache:
    """``canonical.json`` in the output folder: the reference solution's verdict per task,
    keyed by dataset and task id, valid while the task's fingerprint (hidden tests and
    reference text) is unchanged and, for a reference that timed out, while the time limit
    is not larger than the one it had."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.entries: dict[str, dict] = {}
        if path.is_file():
            try:
                self.entries = json.loads(path.read_text(encoding="utf-8")).get("entries", {})
            except (json.JSONDecodeError, AttributeError):
                self.entries = {}

    @staticmethod
    def key(dataset: str, task_id: str) -> str:
        return f"{dataset}|{task_id}"

    def get(self, dataset: str, item: BenchTask, timeout_s: float | None = None) -> dict | None:
        entry = self.entries.get(self.key(dataset, item.task_id))
        if not entry or entry.get("fingerprint") != item.fingerprint():
            return None
        if (timeout_s is not None and entry.get("kind") == "timeout"
                and timeout_s > entry.get("timeout_s", 0)):
            return None  # it may pass with more time
        return entry

    def put(self, dataset: str, item: BenchTask, score: Score, timeout_s: float) -> dict:
        entry = {
            "fingerprint": item.fingerprint(),
            "passed": score.passed,
            "kind": score.kind,
            "tests_passed": score.tests_passed,
            "tests_total": score.tests_total,
            "detail": score.detail,
            "seconds": round(score.seconds, 3),
            "timeout_s": timeout_s,
        }
        self.entries[self.key(dataset, item.task_id)] = entry
        return entry

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(self.path, json.dumps({"version": 1, "entries": self.entries}, indent=1)
                     + "\n")


def reference_timeout(score_timeout_s: float) -> float:
    """Seconds the reference solution gets: generous (at least 60, twice the scoring limit),
    so that a slow reference is not mistaken for defective tests."""
    return max(60.0, 2 * score_timeout_s)


def reference_passed(entry: dict) -> bool:
    """Whether a reference (or, :func:`codeteam.bench.repo.check_empty_bodies`, a stub) run's
    cache entry passed its hidden tests. Its tests "not judged" count here
    (kind "not_judged"): it is the dataset's or the project's own code, not generated, so
    the question is whether the tests are sound, not whether the code could forge them. A
    generated answer gets no such credit (:func:`classify`)."""
    return bool(entry["passed"]) or entry.get("kind") == "not_judged"


def defect_reason(entry: dict) -> str:
    """The text shown for a defective task, from its cache entry."""
    failed = entry["tests_total"] - entry["tests_passed"]
    return (f"{failed} of {entry['tests_total']} hidden tests fail on the reference solution "
            f"({entry['kind']}): {entry['detail']}")


def unjudgeable_reason(entry: dict) -> str:
    """The text shown for a task whose reference leaves hidden tests "not judged" (kind
    "not_judged"): the tests could not be confirmed sound in the judged mode,
    and when their cause is the test itself (a value it passes cannot cross) no generated
    code can pass them either, so the task is left out of pass@1 like a defective one."""
    return ("its hidden tests could not be judged on the reference (\"not judged\" is no "
            f"pass): {entry['detail']}")


@dataclass
class ReferenceCheck:
    """The reference solutions' verdicts on the selected tasks: ``defective`` maps task ids
    whose hidden tests fail on the reference, or that it leaves "not judged"
    (:func:`unjudgeable_reason`), to the reason; ``slow`` maps task ids whose
    reference passed but needed more than the scoring time limit to the seconds it took
    (only a faster solution can pass those); ``unchecked`` lists tasks without a reference."""

    defective: dict[str, str]
    slow: dict[str, float]
    unchecked: list[str]


async def check_references(
    dataset: str,
    tasks: list[BenchTask],
    *,
    mode: str,
    score_timeout_s: float,
    cache: ReferenceCache,
    concurrency: int = 1,
    on_done: Callable[[], None] | None = None,
) -> ReferenceCheck:
    """Run each task's reference solution through its hidden tests in the sandbox (once;
    verdicts are cached in ``cache``) with :func:`reference_timeout` seconds. Raises
    :class:`~codeteam.execution.outcomes.SandboxUnavailable`."""
    timeout = reference_timeout(score_timeout_s)
    policy = scoring_policy(mode, timeout)
    semaphore = asyncio.Semaphore(max(concurrency, 1))

    async def check(item: BenchTask) -> None:
        if item.reference is None or cache.get(dataset, item, timeout) is not None:
            return
        async with semaphore:
            score = await score_hidden(item, item.reference, policy=policy)
        cache.put(dataset, item, score, timeout)
        if on_done:
            on_done()

    try:
        await asyncio.gather(*(check(item) for item in tasks))
    finally:
        cache.save()
    result = ReferenceCheck(defective={}, slow={}, unchecked=[])
    for item in tasks:
        entry = cache.get(dataset, item)
        if entry is None:
            result.unchecked.append(item.task_id)
        elif not reference_passed(entry):
            result.defective[item.task_id] = defect_reason(entry)
        elif not entry["passed"]:  # kind "not_judged": its tests are unconfirmed
            result.defective[item.task_id] = unjudgeable_reason(entry)
        elif entry.get("seconds", 0) > score_timeout_s:
            result.slow[item.task_id] = entry["seconds"]
    return result
