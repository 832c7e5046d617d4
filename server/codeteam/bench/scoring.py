"""Scoring generated code on a task's hidden tests, in the sandbox, and finding defective
hidden tests by running each task's reference solution through them once.

Nothing here executes code in this process: every run goes through
:func:`codeteam.execution.runner.run_tests` (bubblewrap, rlimits, a wall-clock timeout).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from codeteam.bench.datasets import BenchTask
from codeteam.bench.results import FailureKind
from codeteam.execution.models import RunReport, TestCase, TestOutcome
from codeteam.task import Program

if TYPE_CHECKING:
    from codeteam.execution.sandbox import SandboxPolicy

DETAIL_LIMIT = 400
"""Characters of a failure description kept in a record."""


@dataclass
class Score:
    """The hidden tests' verdict on one program: ``passed`` when every hidden test passed;
    ``kind`` (None when passed), ``error_type`` (for kind "error"), the hidden tests
    ``tests_passed`` of ``tests_total``, the scoring run's wall-clock ``seconds`` and a short
    ``detail`` of the first failure."""

    passed: bool
    kind: FailureKind | None = None
    error_type: str | None = None
    tests_passed: int = 0
    tests_total: int = 0
    seconds: float = 0.0
    detail: str = ""


def _short(text: str, limit: int = DETAIL_LIMIT) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _describe(test: TestCase | None, outcome: TestOutcome | None) -> str:
    name = test.id if test is not None else "?"
    if outcome is None:
        return f"{name}: did not report"
    parts = [f"{name}: {outcome.status}"]
    if outcome.exception_type:
        parts.append(f"{outcome.exception_type}: {outcome.message}".rstrip(": "))
    elif outcome.message:
        parts.append(outcome.message)
    if outcome.expected is not None or outcome.actual is not None:
        parts.append(f"expected {outcome.expected}, actual {outcome.actual}")
    return _short("; ".join(parts))


def classify(tests: list[TestCase], run: RunReport) -> Score:
    """The :class:`Score` of ``run`` (an executed :class:`RunReport` of ``tests``).

    Precedence: a run the wall-clock limit killed (or a test that timed out) is "timeout";
    a process that died by a signal, or tests that never reported, "crash"; otherwise the
    first failing test decides: an exception other than ``AssertionError`` is "error" (with
    its type), a failed assertion or doctest output is "wrong_answer".
    """
    by_id = {o.test_id: o for o in run.outcomes}
    total = len(tests)
    passed = sum(1 for t in tests if (o := by_id.get(t.id)) is not None and o.passed)
    score = Score(passed=False, tests_passed=passed, tests_total=total, seconds=run.seconds)
    if total and passed == total:
        score.passed = True
        return score
    failing = [(t, by_id.get(t.id)) for t in tests if (o := by_id.get(t.id)) is None or not o.passed]
    first_test, first_outcome = failing[0] if failing else (None, None)
    timed_out = [(t, o) for t, o in failing if o is not None and o.status == "timeout"]
    if run.killed or timed_out:
        score.kind = "timeout"
        test, outcome = timed_out[0] if timed_out else (first_test, first_outcome)
        score.detail = _short(f"the run hit its time limit ({run.seconds:.1f} s); "
                              + _describe(test, outcome))
        return score
    silent = [t for t, o in failing if o is None]
    died = run.exit_code is not None and run.exit_code < 0
    if died or silent or not tests:
        score.kind = "crash"
        how = (f"the test process died (signal {-run.exit_code})" if died
               else f"the test process exited ({run.exit_code}) before reporting")
        tail = _short(run.output, 200)
        score.detail = _short(f"{how}; {len(silent)} of {total} tests did not report"
                              + (f"; output: {tail}" if tail else ""))
        return score
    assert first_outcome is not None
    exception = first_outcome.exception_type
    if first_outcome.status == "error" and exception and exception != "AssertionError":
        score.kind = "error"
        score.error_type = exception
    else:
        score.kind = "wrong_answer"
    score.detail = _describe(first_test, first_outcome)
    return score


async def score_program(
    program: Program, tests: list[TestCase], *, module_name: str, policy: SandboxPolicy
) -> Score:
    """Run ``tests`` on ``program`` in the sandbox and classify the outcome. Raises
    :class:`~codeteam.execution.models.SandboxUnavailable` when the sandbox cannot run."""
    from codeteam.execution.runner import run_tests

    started = time.monotonic()
    run = await run_tests(program, tests, module_name=module_name, policy=policy)
    score = classify(tests, run)
    score.seconds = time.monotonic() - started
    return score


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
    return await score_program(
        program, bench_task.hidden_tests, module_name=bench_task.task.module_name, policy=policy
    )


# --- defective hidden tests ----------------------------------------------------------------


class ReferenceCache:
    """``canonical.json`` in the output folder: the reference solution's verdict per task,
    keyed by dataset and task id, valid while the task's fingerprint (hidden tests and
    reference text) is unchanged."""

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

    def get(self, dataset: str, item: BenchTask) -> dict | None:
        entry = self.entries.get(self.key(dataset, item.task_id))
        if entry and entry.get("fingerprint") == item.fingerprint():
            return entry
        return None

    def put(self, dataset: str, item: BenchTask, score: Score) -> dict:
        entry = {
            "fingerprint": item.fingerprint(),
            "passed": score.passed,
            "kind": score.kind,
            "tests_passed": score.tests_passed,
            "tests_total": score.tests_total,
            "detail": score.detail,
        }
        self.entries[self.key(dataset, item.task_id)] = entry
        return entry

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"version": 1, "entries": self.entries}, indent=1) + "\n",
                       encoding="utf-8")
        tmp.replace(self.path)


def defect_reason(entry: dict) -> str:
    """The text shown for a defective task, from its cache entry."""
    failed = entry["tests_total"] - entry["tests_passed"]
    return (f"{failed} of {entry['tests_total']} hidden tests fail on the reference solution "
            f"({entry['kind']}): {entry['detail']}")


async def find_defective(
    dataset: str,
    tasks: list[BenchTask],
    *,
    policy: SandboxPolicy,
    cache: ReferenceCache,
    concurrency: int = 1,
    on_done: Callable[[], None] | None = None,
) -> dict[str, str]:
    """Run each task's reference solution through its hidden tests (once; the verdicts are
    cached in ``cache``) and return the tasks whose tests fail on it, with the reason.
    Tasks without a reference are not checked. Raises
    :class:`~codeteam.execution.models.SandboxUnavailable`."""
    semaphore = asyncio.Semaphore(max(concurrency, 1))

    async def check(item: BenchTask) -> None:
        if item.reference is None or cache.get(dataset, item) is not None:
            return
        async with semaphore:
            score = await score_program(
                item.reference, item.hidden_tests, module_name=item.task.module_name,
                policy=policy,
            )
        cache.put(dataset, item, score)
        if on_done:
            on_done()

    try:
        await asyncio.gather(*(check(item) for item in tasks))
    finally:
        cache.save()
    defective = {}
    for item in tasks:
        entry = cache.get(dataset, item)
        if entry is not None and not entry["passed"]:
            defective[item.task_id] = defect_reason(entry)
    return defective
