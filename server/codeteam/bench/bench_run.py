"""``codeteam bench``: run pipelines on a benchmark, score them on hidden tests, summarize.

For each selected task and pipeline: run the pipeline on the task's public part
(:func:`codeteam.service.runs.run_task`), score ``result.code`` on the hidden tests in
the sandbox, and append a :class:`~codeteam.bench.results.BenchRecord` to
``OUT/results.jsonl``. Before that, each task's reference solution is run through its hidden
tests once (cached in ``OUT/canonical.json``); tasks whose tests fail on it are *defective*
and excluded from pass@1 (shown in the summary, never silently). At the end ``OUT/summary.json``,
``OUT/summary.md`` and ``OUT/chart.png`` are written and the markdown is printed.

A rerun with the same ``--out`` skips pairs already recorded (resume), except those whose
run had an infrastructure error (every LLM call failed, or the pipeline raised), which are
run again.

With ``--generations-from DIR`` a pair whose task had the same public part in DIR's run
(another dataset with the same prompts, e.g. HumanEval for HumanEval+) is not generated: DIR's
answer is scored on this dataset's hidden tests (:mod:`codeteam.bench.reuse`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codeteam.atomic_write import AtomicWriteError, write_atomic
from codeteam.bench.datasets import BenchTask, Dataset, DatasetError, load_dataset
from codeteam.bench.results import BenchRecord, ResultsLog
from codeteam.bench.reuse import (
    GenerationSource,
    ReuseError,
    codeteam_commit,
    public_digest,
    reused_record,
)
from codeteam.bench.scoring import (
    ReferenceCache,
    check_references,
    reference_timeout,
    score_code,
    scoring_policy,
)
from codeteam.bench.summary import markdown, summarize, write_summary
from codeteam.pipelines import GENERATION_PIPELINES
from codeteam.service.clients import model_label
from codeteam.settings import Settings, load_settings

log = logging.getLogger(__name__)

INFRA_ABORT = 5
"""Consecutive runs with infrastructure errors after which the benchmark stops."""


class BenchError(Exception):
    """A usage or setup problem (bad dataset or pipeline, an ``--out`` folder holding another
    run, no sandbox); the message is for the user."""


@dataclass
class BenchConfig:
    """What to run. ``dataset`` (a name) or ``data`` (a HumanEval-format JSONL) selects the
    tasks, ``limit`` / ``task_ids`` narrow them; ``pipelines`` are names of
    :data:`codeteam.service.runs.PIPELINES`; ``concurrency`` is how many (task, pipeline)
    runs go at once; ``out`` the output folder; ``overrides`` settings keys (``--set``);
    ``score_timeout_s`` the wall-clock seconds of one scoring run (None: the dataset's
    default); ``progress`` shows a tqdm bar on stderr; ``report_only`` runs no task and
    writes the summary of the results ``out`` already holds (a run in progress or
    interrupted: the tasks not run yet count as missing). ``repo`` makes the tasks from a
    project's own functions and tests instead (:mod:`codeteam.bench.repo`; ``functions``:
    shell patterns of ``--functions``, ``min_tests``: ``--min-tests``). ``generations_from``
    is the ``--out`` folder of an earlier run whose answers are scored here instead of
    generating them again where the public part is the same (``--generations-from``)."""

    dataset: str | None = None
    data: Path | None = None
    pipelines: list[str] = field(default_factory=lambda: list(GENERATION_PIPELINES))
    limit: int | None = None
    task_ids: list[str] | None = None
    concurrency: int = 1
    out: Path = Path("bench-out")
    overrides: dict[str, Any] = field(default_factory=dict)
    score_timeout_s: float | None = None
    progress: bool = True
    report_only: bool = False
    repo: Path | None = None
    functions: list[str] | None = None
    min_tests: int = 1
    generations_from: Path | None = None


def _infra_error(result: Any) -> str | None:
    """The reason a run had no fair chance: every LLM call it made failed."""
    calls = [e for e in result.transcript if e.kind == "llm"]
    if calls and all(e.error for e in calls):
        return f"every LLM call failed: {calls[-1].error}"
    return None


def _check_out_folder(out: Path, run_info: dict[str, Any]) -> None:
    """Refuse an ``--out`` folder that holds results of another dataset or model (task ids
    overlap between HumanEval variants); record this run's identity otherwise."""
    path = out / "run.json"
    if path.is_file():
        try:
            previous = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError:
            previous = {}
        for key in ("dataset", "model", "repo"):
            if previous.get(key) not in (None, run_info.get(key)):
                what = ("code" if key == "repo" else key)
                raise BenchError(
                    f"{out} holds results for {what} {previous[key]!r}, not "
                    f"{run_info.get(key)!r}: use another --out folder"
                    + (" (the repository changed since those results)" if key == "repo" else "")
                )
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps(run_info, indent=2) + "\n")


class _Progress:
    """A tqdm bar on stderr (or nothing), with pass counts per pipeline as its postfix."""

    def __init__(self, total: int, desc: str, enabled: bool) -> None:
        self.bar = None
        self.passed: dict[str, list[int]] = {}
        if enabled and total:
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc=desc, unit="run", file=sys.stderr,
                            dynamic_ncols=True)

    def tick(self) -> None:
        if self.bar is not None:
            self.bar.update(1)

    def done(self, record: BenchRecord) -> None:
        counts = self.passed.setdefault(record.pipeline, [0, 0])
        counts[0] += record.passed
        counts[1] += 1
        if self.bar is not None:
            self.bar.set_postfix_str(
                " ".join(f"{p} {ok}/{n}" for p, (ok, n) in self.passed.items()), refresh=False
            )
            self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


async def run_one(
    item: BenchTask,
    pipeline: str,
    *,
    dataset: str,
    settings: Settings,
    client: Any,
    policy: Any,
) -> BenchRecord:
    """Run ``pipeline`` on ``item``'s public task, score its code on the hidden tests and
    return the record. ``client`` is this run's own view of the model client
    (``LLMClient.session()``: one run's timeout or connection failure stops only it; the
    caller reads its ``unreachable`` afterwards). A pipeline that raises is recorded as an
    infrastructure error (no code); :class:`~codeteam.execution.outcomes.SandboxUnavailable`
    from scoring propagates."""
    from codeteam.service.runs import run_task

    started = time.monotonic()
    try:
        result = await run_task(item.task, pipeline, settings=settings, client=client)
    except asyncio.CancelledError:
        raise
    except Exception as error:  # a pipeline bug or an unexpected failure: keep going
        log.exception("%s on %s raised", pipeline, item.task_id)
        return BenchRecord(
            dataset=dataset, task_id=item.task_id, pipeline=pipeline, passed=False,
            kind="no_code", status="error", seconds=round(time.monotonic() - started, 3),
            tests_total=len(item.hidden_tests),
            notes=[f"the pipeline raised {type(error).__name__}: {error}"],
            detail="the pipeline raised", infra_error=f"{type(error).__name__}: {error}",
            public_digest=public_digest(item),
        )
    seconds = time.monotonic() - started
    infra = _infra_error(result)
    score = await score_code(item, result.code, policy=policy)
    usage = result.usage.total
    candidates = []
    for candidate in result.candidates:  # each one's hidden verdict: was the choice right?
        entry = candidate.model_dump(exclude={"code"})
        verdict = await score_code(item, candidate.code, policy=policy)
        entry.update(passed=verdict.passed, kind=verdict.kind,
                     hidden_passed=verdict.tests_passed, hidden_total=verdict.tests_total)
        candidates.append(entry)
    return BenchRecord(
        dataset=dataset,
        task_id=item.task_id,
        pipeline=pipeline,
        passed=score.passed,
        kind=score.kind,
        error_type=score.error_type,
        status=result.status,
        calls=usage.calls,
        prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens,
        seconds=round(seconds, 3),
        score_seconds=round(score.seconds, 3),
        tests_passed=score.tests_passed,
        tests_total=score.tests_total,
        tests_untrusted=score.tests_untrusted,
        code=result.code,
        notes=list(result.notes),
        detail=score.detail,
        infra_error=infra,
        candidates=candidates,
        public_digest=public_digest(item),
    )


async def run_bench(
    config: BenchConfig,
    *,
    settings: Settings | None = None,
    client: Any = None,
    echo: bool = True,
) -> dict[str, Any]:
    """Run the benchmark described by ``config`` and return the summary (also written to
    ``config.out``). ``settings`` default to the environment plus ``config.overrides``;
    ``client`` (an :class:`~codeteam.llm.client.LLMClient`) defaults to one from the
    service (:class:`~codeteam.service.clients.OneClient`), closed at the end (the embedded
    model is stopped). Raises :class:`BenchError` for usage and setup problems."""
    from codeteam.execution.outcomes import SandboxUnavailable
    from codeteam.service.runs import PIPELINES, connection_failure

    if settings is None:
        settings, problems = load_settings(config.overrides)
        for problem in problems:
            print(f"codeteam: setting {problem}", file=sys.stderr)
    unknown = [p for p in config.pipelines if p not in PIPELINES]
    if unknown or not config.pipelines:
        raise BenchError(f"unknown pipeline(s) {', '.join(unknown) or '(none given)'}; "
                         f"choose from {', '.join(PIPELINES)}")
    if config.generations_from is not None and config.repo is not None:
        raise BenchError("--generations-from cannot be combined with --repo (its tasks exist "
                         "only in that repository)")
    repo = None  # (identity, selection report) of a --repo run
    try:
        if config.repo is not None:
            repo = await _load_repo(config, settings, echo)
            dataset: Dataset = repo[2]
        else:
            dataset = load_dataset(config.dataset, config.data)
        selected = dataset.select(limit=config.limit, ids=config.task_ids)
    except DatasetError as error:
        raise BenchError(str(error)) from error
    if not selected:
        raise BenchError(f"no tasks selected from {dataset.name}")

    out = config.out
    model = model_label(settings)
    settings_shown = {k: v for k, v in settings.redacted().items() if k != "api_key"}
    run_info = {"dataset": dataset.name, "source": dataset.source, "model": model}
    if repo is not None:
        run_info["repo"] = repo[0].identity
        run_info["repo_commit"] = repo[0].commit
    source = _generation_source(config, model, settings_shown)
    if source is not None:
        run_info["generations_from"] = str(source.folder)
    run_info.update({"settings": settings_shown, "commit": codeteam_commit()})
    _check_out_folder(out, run_info)
    meta = {"dataset": dataset.name, "source": dataset.source, "model": model,
            "settings": settings_shown}
    timeout = config.score_timeout_s or dataset.score_timeout_s
    policy = scoring_policy(settings.sandbox, timeout)

    # Defective hidden tests: the reference solution must pass them (cached).
    cache = ReferenceCache(out / "canonical.json")
    unchecked = [t for t in selected if t.reference is not None
                 and cache.get(dataset.name, t, reference_timeout(timeout)) is None]
    bar = _Progress(len(unchecked), "reference check", config.progress)
    try:
        reference = await check_references(
            dataset.name, selected, mode=settings.sandbox, score_timeout_s=timeout,
            cache=cache, concurrency=config.concurrency, on_done=bar.tick,
        )
    except SandboxUnavailable as error:
        raise BenchError(f"cannot score: {error}") from error
    finally:
        bar.close()
    defective = reference.defective
    if repo is not None:  # tests that pass with the body removed measure nothing
        from codeteam.bench.repo import check_empty_bodies

        try:
            defective.update(await check_empty_bodies(
                dataset.name, selected, mode=settings.sandbox, score_timeout_s=timeout,
                cache=cache, skip=set(defective)))
        except SandboxUnavailable as error:
            raise BenchError(f"cannot score: {error}") from error
    if defective and echo:
        print(f"codeteam bench: {len(defective)} task(s) with defective hidden tests are "
              f"excluded from pass@1: {', '.join(defective)}", file=sys.stderr)

    results = ResultsLog(out / "results.jsonl")
    existing = results.load()
    done = {key for key, r in existing.items() if r.dataset == dataset.name and not r.infra_error}
    todo = [(item, p) for item in selected for p in config.pipelines
            if (item.task_id, p) not in done]
    reuse: dict[tuple[str, str], BenchRecord] = {}  # (task, pipeline) -> DIR's row
    if source is not None and not config.report_only:
        try:
            for item, p in todo:
                row = source.row_for(item, p, public_digest(item))
                if row is not None:
                    reuse[(item.task_id, p)] = row
        except ReuseError as error:
            raise BenchError(str(error)) from error
    if echo:
        skipped = len(selected) * len(config.pipelines) - len(todo)
        verb = "not run (--report-only)" if config.report_only else "to run"
        print(f"codeteam bench: {dataset.name}, {len(selected)} task(s) x "
              f"{len(config.pipelines)} pipeline(s), model {model}; {len(todo)} {verb}"
              + (f", {skipped} already in {results.path}" if skipped else "")
              + (f"; {len(reuse)} of them reused from {source.folder} (scored here, not "
                 "generated again)" if source is not None and todo else ""), file=sys.stderr)
    if config.report_only:
        todo = []

    own_clients = None  # the service's OneClient when the caller gave no client
    aborted: str | None = None
    if todo:
        if client is None and len(reuse) < len(todo):  # no model for reused answers only
            from codeteam.service.clients import OneClient
            from codeteam.service.runs import ModelUnavailable, start_model

            own_clients = OneClient()
            try:
                client = await start_model(own_clients, settings)
            except ModelUnavailable as error:
                raise BenchError(str(error)) from error
        progress = _Progress(len(todo), dataset.name, config.progress)
        semaphore = asyncio.Semaphore(max(config.concurrency, 1))
        stop = asyncio.Event()
        infra_streak = 0
        attempts: list[BenchRecord] = []  # the runs that asked the model, in this invocation

        async def work(item: BenchTask, pipeline: str) -> None:
            nonlocal infra_streak, aborted
            async with semaphore:
                if stop.is_set():
                    return
                row = reuse.get((item.task_id, pipeline))
                if row is not None:
                    score = await score_code(item, row.code, policy=policy)
                    record = reused_record(row, dataset=dataset.name, score=score,
                                           digest=public_digest(item), origin=source.origin(row))
                else:
                    view = client.session()
                    record = await run_one(item, pipeline, dataset=dataset.name,
                                           settings=settings, client=view, policy=policy)
                    attempts.append(record)
                    cause = connection_failure(view)
                    if cause is not None and not stop.is_set():
                        # Every later call would fail the same way at once: stop, as `run` does.
                        first = ("refused key" if "refused the API key" in str(cause)
                                 else "connection failure")
                        aborted = (f"{cause}; stopped at the first {first} "
                                   "(the remaining runs were not started)")
                        stop.set()
                results.append(record)
                progress.done(record)
                if record.infra_error:
                    infra_streak += 1
                    if infra_streak >= INFRA_ABORT and not stop.is_set():
                        aborted = (f"{infra_streak} runs in a row had infrastructure errors "
                                   f"(last: {record.infra_error}); stopped")
                        stop.set()
                else:
                    infra_streak = 0

        workers = [asyncio.ensure_future(work(item, p)) for item, p in todo]
        try:
            await asyncio.gather(*workers)
        except SandboxUnavailable as error:
            raise BenchError(f"cannot score: {error}") from error
        finally:
            for worker in workers:  # on an error or a cancel: stop the other runs too
                worker.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
            progress.close()
            if own_clients is not None:  # closes the client, stops the embedded model
                await own_clients.close()

    records = [r for r in results.load().values() if r.dataset == dataset.name]
    summary = summarize(
        records,
        pipelines=list(config.pipelines),
        task_ids=[t.task_id for t in selected],
        defective=defective,
        meta=meta,
    )
    summary["reference"] = {
        "timeout_s": reference_timeout(timeout),
        "slow": reference.slow,
        "unchecked": len(reference.unchecked),
    }
    summary["score_timeout_s"] = timeout
    summary["infra_errors"] = sum(
        1 for r in records if r.infra_error and r.pipeline in config.pipelines
        and r.task_id in {t.task_id for t in selected}
    )
    if aborted:
        summary["aborted"] = aborted
    if todo and attempts and all(r.infra_error for r in attempts):
        # No run produced a result: the model could not be reached (or failed every call).
        summary["no_result"] = attempts[-1].infra_error
    if repo is not None:
        summary["repo"] = {k: v for k, v in repo[1].as_dict().items() if k != "skipped"}
        scored = [r for r in records if r.pipeline in config.pipelines and r.code is not None
                  and r.task_id in {t.task_id for t in selected} and r.task_id not in defective]
        unjudged = sum(r.tests_untrusted for r in scored)
        summary["repo"]["hidden_verdicts"] = {
            "judged": sum(r.tests_total for r in scored) - unjudged, "not_judged": unjudged}
    extra = ""
    if repo is not None:
        from codeteam.bench.repo import selection_text

        write_atomic(out / "selection.json", json.dumps(repo[1].as_dict(), indent=1) + "\n")
        extra = selection_text(repo[1], defective)
        verdicts = summary["repo"]["hidden_verdicts"]
        extra += (f"- hidden-test verdicts: {verdicts['judged']} judged (the generated code in "
                  f"a process of its own), {verdicts['not_judged']} not judged (the judge "
                  "could not tell; `tests_untrusted` per row in results.jsonl)\n")
    write_summary(summary, out, extra)
    if echo:
        print(markdown(summary) + extra)
        if aborted:  # names the cause (secret-free: the endpoint as Endpoint.shown)
            print(f"codeteam bench: {aborted}", file=sys.stderr)
        elif summary.get("no_result"):
            print(f"codeteam bench: no run produced a result ({summary['no_result']})",
                  file=sys.stderr)
        print(f"codeteam bench: wrote {out / 'results.jsonl'}, {out / 'summary.json'}, "
              f"{out / 'summary.md'}, {out / 'chart.png'}", file=sys.stderr)
    return summary


def _generation_source(config: BenchConfig, model: str,
                       settings_shown: dict[str, Any]) -> GenerationSource | None:
    """The ``--generations-from`` folder, read and checked against this run's model and
    settings (None without the option). Raises :class:`BenchError` when it cannot be used."""
    if config.generations_from is None:
        return None
    defaults = {name: info.get_default(call_default_factory=True)
                for name, info in Settings.model_fields.items()}
    try:
        source = GenerationSource.open(config.generations_from)
        source.check_compatible(model=model, settings=settings_shown, out=config.out,
                                defaults=defaults)
    except ReuseError as error:
        raise BenchError(str(error)) from error
    return source


async def _load_repo(config: BenchConfig, settings: Settings, echo: bool) -> tuple[Any, Any, Dataset]:
    """(identity, selection report, dataset) of ``--repo``: the ``--out`` folder is checked
    against the repository's identity before its tests are run."""
    from codeteam.bench.repo import RepoError, load_repo, repo_identity
    from codeteam.execution.outcomes import SandboxUnavailable

    def say(text: str) -> None:
        if echo:
            print(f"codeteam bench: {text}", file=sys.stderr)

    try:
        identity = repo_identity(config.repo)
        _check_out_folder(config.out, {"dataset": identity.dataset, "model": model_label(settings),
                                       "repo": identity.identity})
        dataset, selection = await load_repo(
            identity.root, mode=settings.sandbox, python=settings.python,
            patterns=config.functions, min_tests=config.min_tests,
            cache_path=config.out / "survey.json", identity=identity, progress=say,
        )
    except RepoError as error:
        raise BenchError(str(error)) from error
    except SandboxUnavailable as error:
        raise BenchError(f"cannot run the project's tests: {error}") from error
    say(f"{identity.root}: {len(dataset.tasks)} task(s), {len(selection.skipped)} function(s) "
        f"skipped (reasons in {config.out / 'selection.json'})")
    return identity, selection, dataset


def config_from_args(args: argparse.Namespace) -> BenchConfig:
    """The :class:`BenchConfig` for parsed ``codeteam bench`` arguments."""
    from codeteam.settings import parse_overrides

    try:
        overrides = parse_overrides(args.set)
    except ValueError as error:
        raise BenchError(str(error)) from None
    pipelines = [p.strip() for p in (args.pipelines or "").split(",") if p.strip()]
    task_ids = [t.strip() for t in args.tasks.split(",")] if args.tasks else None
    return BenchConfig(
        dataset=args.dataset,
        data=args.data,
        pipelines=pipelines,
        limit=args.limit,
        task_ids=task_ids,
        concurrency=max(args.concurrency, 1),
        out=args.out,
        overrides=overrides,
        score_timeout_s=getattr(args, "score_timeout", None),
        progress=not getattr(args, "no_progress", False),
        report_only=getattr(args, "report_only", False),
        repo=getattr(args, "repo", None),
        functions=([p.strip() for p in args.functions.split(",") if p.strip()]
                   if getattr(args, "functions", None) else None),
        min_tests=max(getattr(args, "min_tests", 1) or 1, 1),
        generations_from=getattr(args, "generations_from", None),
    )


def main_from_args(args: argparse.Namespace) -> int:
    """``codeteam bench``: 0 when the run completed (whatever the scores), 1 when it stopped
    on repeated infrastructure errors or at the first connection failure, or when no run it
    made produced a result (every run's LLM calls failed), 2 on usage or setup errors, 130
    when interrupted
    (the results so far are kept; rerun the same command to resume); 1 too when an output
    file cannot be written (a full disk: one line, every file as it was before that write)."""
    try:
        config = config_from_args(args)
        summary = asyncio.run(run_bench(config))
    except BenchError as error:
        print(f"codeteam bench: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("codeteam bench: interrupted; rerun the same command to resume", file=sys.stderr)
        return 130
    except AtomicWriteError as error:  # a full disk: the files written so far are whole
        print(f"codeteam bench: {error}; the results so far are kept, rerun the same command "
              "to resume", file=sys.stderr)
        return 1
    return 1 if summary.get("aborted") or summary.get("no_result") else 0
