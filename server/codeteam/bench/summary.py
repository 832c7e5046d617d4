"""The benchmark summary: pass@1 per pipeline with its cost, as JSON, markdown and a chart.

pass@1 here is the fraction of tasks whose single generated solution (temperature 0 by
default) passes every hidden test. Beside it, the *oracle pass@N*: the fraction of tasks
where the final code or any of the N candidates the pipeline drew passes every hidden test,
as if the choice among them were perfect (pass@k in Chen et al., arXiv 2107.03374, counts a
task the same way); N varies by task, its mean is shown. Oracle minus pass@1 is what a
better choice could still gain. Tasks with *defective* hidden tests (the dataset's own
reference solution fails them, or leaves them "not judged", where no generated
code gets credit) are excluded from pass@1 and from the per-pipeline means, and
listed with the reason. Only tasks with results count: after an interrupted run the tasks not
run yet are "missing", never scored. Tokens are prompt + completion tokens as the endpoint
reported them.
"""

from __future__ import annotations

import io
import json
import math
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from codeteam.atomic_write import write_atomic
from codeteam.bench.results import BenchRecord


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def wilson_interval(passed: int, tasks: int, z: float = 1.96) -> tuple[float, float] | None:
    """The Wilson score interval for ``passed`` successes in ``tasks`` (95% for z = 1.96), as
    fractions; None for no tasks. Unlike the normal approximation it stays inside [0, 1] and
    is not empty at 0 or ``tasks`` solved (Wilson 1927; Brown, Cai and DasGupta 2001)."""
    if tasks <= 0:
        return None
    p = passed / tasks
    denominator = 1 + z * z / tasks
    centre = (p + z * z / (2 * tasks)) / denominator
    half = z * math.sqrt(p * (1 - p) / tasks + z * z / (4 * tasks * tasks)) / denominator
    # At 0 and ``tasks`` solved the bound is exactly 0 (or 1); rounding must not move it
    # past the observed score.
    low = 0.0 if passed <= 0 else max(0.0, min(p, centre - half))
    high = 1.0 if passed >= tasks else min(1.0, max(p, centre + half))
    return low, high


def oracle_stats(records: list[BenchRecord]) -> dict[str, Any]:
    """The oracle pass@N of ``records`` (one pipeline's scored rows): ``passed`` counts the
    tasks where the final code or any candidate passed the hidden tests, of ``tasks`` rows
    whose every candidate has a hidden verdict (rows reused from another dataset's run do
    not: ``unknown`` counts them); ``pass`` the fraction (None for no tasks), ``mean_n`` the
    mean number of candidates per task (1 when the pipeline compared none: its one answer),
    ``gain`` oracle minus pass@1 on those tasks (a fraction, never negative)."""
    known = [r for r in records if all(c.get("passed") is not None for c in r.candidates)]
    passed = sum(1 for r in known if r.passed or any(c["passed"] for c in r.candidates))
    drawn = [max(len(r.candidates), 1) for r in known]
    tasks = len(known)
    return {
        "passed": passed,
        "tasks": tasks,
        "pass": passed / tasks if tasks else None,
        "mean_n": _mean([float(n) for n in drawn]),
        "gain": (passed - sum(r.passed for r in known)) / tasks if tasks else None,
        "unknown": len(records) - tasks,
    }


def mcnemar_exact(only_this: int, only_other: int) -> float:
    """The exact (binomial) two-sided McNemar p-value for paired pass/fail outcomes: under the
    null hypothesis the discordant tasks split evenly, so the smaller count is Binomial(n,
    1/2) with n = ``only_this + only_other``. 1.0 when there are no discordant tasks."""
    n = only_this + only_other
    if n == 0:
        return 1.0
    k = min(only_this, only_other)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def paired_with(records: list[BenchRecord], baseline: list[BenchRecord]) -> dict[str, Any]:
    """The paired comparison of one pipeline's ``records`` with the ``baseline``'s (direct) on
    the tasks both have: ``tasks``, ``only_this`` (solved here, not by the baseline),
    ``only_baseline``, ``both``, ``neither`` and the exact McNemar ``p``."""
    mine = {r.task_id: r.passed for r in records}
    theirs = {r.task_id: r.passed for r in baseline}
    common = [t for t in mine if t in theirs]
    only_this = sum(1 for t in common if mine[t] and not theirs[t])
    only_baseline = sum(1 for t in common if theirs[t] and not mine[t])
    both = sum(1 for t in common if mine[t] and theirs[t])
    return {
        "tasks": len(common),
        "only_this": only_this,
        "only_baseline": only_baseline,
        "both": both,
        "neither": len(common) - only_this - only_baseline - both,
        "mcnemar_p": mcnemar_exact(only_this, only_baseline),
    }


def pipeline_stats(records: list[BenchRecord], selected: int) -> dict[str, Any]:
    """Statistics of one pipeline over its scored (non-defective) ``records``.

    ``selected`` is how many non-defective tasks the run asked for; the difference with the
    records is ``missing`` (an interrupted run). Units: ``mean_seconds`` in seconds per task,
    ``mean_tokens``/``tokens_per_solved`` in tokens, ``pass@1`` a fraction in [0, 1].
    """
    tasks = len(records)
    passed = sum(r.passed for r in records)
    tokens = sum(r.tokens for r in records)
    failures = Counter(r.kind for r in records if not r.passed and r.kind)
    errors = Counter(r.error_type for r in records if r.kind == "error" and r.error_type)
    interval = wilson_interval(passed, tasks)
    return {
        "pass@1": passed / tasks if tasks else None,
        "ci95": list(interval) if interval else None,
        "passed": passed,
        "tasks": tasks,
        "missing": max(selected - tasks, 0),
        "mean_calls": _mean([r.calls for r in records]),
        "mean_tokens": _mean([r.tokens for r in records]),
        "mean_prompt_tokens": _mean([r.prompt_tokens for r in records]),
        "mean_completion_tokens": _mean([r.completion_tokens for r in records]),
        "tokens_per_solved": tokens / passed if passed else None,
        "mean_seconds": _mean([r.seconds for r in records]),
        "mean_score_seconds": _mean([r.score_seconds for r in records]),
        "failures": dict(sorted(failures.items())),
        "error_types": dict(errors.most_common()),
        "statuses": dict(sorted(Counter(r.status for r in records).items())),
        "infra_errors": sum(1 for r in records if r.infra_error),
        "reused": sum(1 for r in records if r.generated_in),
        "oracle": oracle_stats(records),
    }


def summarize(
    records: list[BenchRecord],
    *,
    pipelines: list[str],
    task_ids: list[str],
    defective: dict[str, str],
    meta: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The summary of ``records`` restricted to ``task_ids`` x ``pipelines``.

    ``defective`` maps task ids to the reason their hidden tests are defective. Per pipeline:
    see :func:`pipeline_stats` (``ci95``: the Wilson 95% interval of pass@1), plus
    ``paired_vs_direct`` (see :func:`paired_with`; None for direct itself), ``gain_vs_direct`` (relative: ``(p - d) / d`` where d is
    direct's pass@1; None when direct is not run or scored 0) and ``delta_vs_direct``
    (absolute difference of pass@1). ``meta`` (dataset, model, settings) is copied in.
    ``reused``: how many of the rows were not generated in this run but scored from another
    run's answers (``--generations-from``): ``rows`` of ``of``, and ``from`` per folder (each
    pipeline's ``reused`` counts its scored rows). ``tasks_scored`` counts the selected,
    non-defective tasks that have a result for at least one pipeline (an interrupted run's
    other tasks are ``tasks_missing``); each pipeline's ``oracle`` is :func:`oracle_stats`.
    """
    wanted = set(task_ids)
    scored_ids = [t for t in task_ids if t not in defective]
    summary: dict[str, Any] = dict(meta or {})
    per: dict[str, dict[str, Any]] = {}
    scored_by: dict[str, list[BenchRecord]] = {}
    reused: Counter[str] = Counter()
    rows = 0
    for name in pipelines:
        mine = [r for r in records if r.pipeline == name and r.task_id in wanted]
        rows += len(mine)
        reused.update(r.generated_in for r in mine if r.generated_in)
        scored = [r for r in mine if r.task_id not in defective]
        scored_by[name] = scored
        stats = pipeline_stats(scored, len(scored_ids))
        stats["defective_passed"] = sum(r.passed for r in mine if r.task_id in defective)
        per[name] = stats
    for name, stats in per.items():
        stats["paired_vs_direct"] = (
            paired_with(scored_by[name], scored_by["direct"])
            if "direct" in scored_by and name != "direct" else None
        )
    direct = per.get("direct", {}).get("pass@1")
    for name, stats in per.items():
        score = stats["pass@1"]
        stats["gain_vs_direct"] = (
            (score - direct) / direct if direct and score is not None and name != "direct"
            else None
        )
        stats["delta_vs_direct"] = (
            score - direct if direct is not None and score is not None and name != "direct"
            else None
        )
    with_results = {r.task_id for rows in scored_by.values() for r in rows}
    scored = sum(1 for t in scored_ids if t in with_results)
    summary.update({
        "tasks_selected": len(task_ids),
        "tasks_scored": scored,
        "tasks_missing": len(scored_ids) - scored,
        "pipelines": per,
        "defective": {
            "count": sum(1 for t in task_ids if t in defective),
            "tasks": {t: defective[t] for t in task_ids if t in defective},
        },
        "generated_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "reused": {"rows": sum(reused.values()), "of": rows, "from": dict(reused)},
    })
    return summary


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _num(value: float | None, digits: int = 1) -> str:
    return "–" if value is None else f"{value:,.{digits}f}"


def _signed_pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:+.1f}%"


def _interval(value: list[float] | None) -> str:
    return "–" if not value else f"{100 * value[0]:.1f}–{100 * value[1]:.1f}%"


def _gain(stats: dict[str, Any]) -> str:
    """``+25.0% (+5.0 pts)``: relative gain over direct, and the difference in points."""
    if stats["delta_vs_direct"] is None:
        return "–"
    points = f"{100 * stats['delta_vs_direct']:+.1f} pts"
    if stats["gain_vs_direct"] is None:
        return points
    return f"{_signed_pct(stats['gain_vs_direct'])} ({points})"


def _reused_lines(summary: dict[str, Any]) -> list[str]:
    """The paragraph saying which rows were scored from another run's answers (none when
    every answer was generated in this run)."""
    reused = summary.get("reused") or {}
    if not reused.get("rows"):
        return []
    folders = ", ".join(f"{n} from {folder}" for folder, n in reused["from"].items())
    line = (f"**Not an independent run:** {reused['rows']} of {reused['of']} rows reuse the "
            f"answers generated in another run ({folders}), scored here on this dataset's "
            "hidden tests; their calls, tokens and seconds are those of the original generation.")
    return ["", line]


def _oracle(stats: dict[str, Any]) -> str:
    """``75.0% (N 2.3)``: the oracle pass@N and the mean number of answers drawn."""
    oracle = stats.get("oracle") or {}
    if oracle.get("pass") is None:
        return "–"
    unknown = f", {oracle['unknown']} unknown" if oracle.get("unknown") else ""
    return f"{_pct(oracle['pass'])} (N {_num(oracle['mean_n'])}{unknown})"


def _tasks_line(summary: dict[str, Any]) -> str:
    """``Tasks: 1 scored of 5 selected (4 not run yet).``"""
    notes = []
    if summary.get("tasks_missing"):
        notes.append(f"{summary['tasks_missing']} not run yet")
    if summary["defective"]["count"]:
        notes.append(f"{summary['defective']['count']} with defective tests excluded")
    return (f"Tasks: {summary['tasks_scored']} scored of {summary['tasks_selected']} selected"
            + (f" ({'; '.join(notes)})" if notes else "") + ".")


def markdown(summary: dict[str, Any]) -> str:
    """The summary as markdown: a header, one table row per pipeline, the defective tasks."""
    lines = [
        f"# codeteam bench: {summary.get('dataset', '?')}",
        "",
        f"Model: {summary.get('model', '?')}. " + _tasks_line(summary),
        *_reused_lines(summary),
        "",
        ("| pipeline | pass@1 | passed | oracle pass@N | vs direct | mean calls | mean tokens "
         "| tokens per solved | mean s/task | failures | 95% interval |"),
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|",
    ]
    for name, s in summary["pipelines"].items():
        failures = ", ".join(f"{k} {v}" for k, v in s["failures"].items()) or "–"
        missing = f" ({s['missing']} missing)" if s["missing"] else ""
        lines.append(
            f"| {name} | {_pct(s['pass@1'])} | {s['passed']}/{s['tasks']}{missing} "
            f"| {_oracle(s)} | {_gain(s)} | {_num(s['mean_calls'])} "
            f"| {_num(s['mean_tokens'], 0)} | {_num(s['tokens_per_solved'], 0)} "
            f"| {_num(s['mean_seconds'])} | {failures} | {_interval(s.get('ci95'))} |"
        )
    lines += [
        "",
        ("Oracle pass@N: a task counts when the final code or any of the N candidates the "
         "pipeline drew (N: the mean per task) passes the hidden tests; minus pass@1, what a "
         "better choice among them could still gain."),
    ]
    gains = [f"{name} {100 * s['oracle']['gain']:+.1f} pts"
             for name, s in summary["pipelines"].items()
             if (s.get("oracle") or {}).get("gain")]
    if gains:
        lines[-1] += " Here: " + ", ".join(gains) + "."
    paired = {name: s["paired_vs_direct"] for name, s in summary["pipelines"].items()
              if s.get("paired_vs_direct")}
    if paired:
        lines += [
            "",
            ("Paired with direct (the same tasks; exact McNemar test on the tasks only one of "
             "the two solved):"),
            "",
            "| pipeline | tasks | only this | only direct | both | neither | McNemar p |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        for name, c in paired.items():
            lines.append(f"| {name} | {c['tasks']} | {c['only_this']} | {c['only_baseline']} "
                         f"| {c['both']} | {c['neither']} | {c['mcnemar_p']:.3g} |")
    defective = summary["defective"]
    lines.append("")
    if defective["count"]:
        lines.append(f"Defective tasks (the reference solution fails their hidden tests, or "
                     f"leaves them not judged; excluded from pass@1): "
                     f"{defective['count']}")
        lines.append("")
        for task_id, reason in defective["tasks"].items():
            lines.append(f"- {task_id}: {reason}")
    else:
        lines.append("Defective tasks: none found.")
    reference = summary.get("reference") or {}
    if reference.get("slow"):
        lines.append("")
        lines.append(f"Tasks whose reference solution needs more than the scoring limit of "
                     f"{summary.get('score_timeout_s', '?')} s (only a faster solution passes): "
                     + ", ".join(f"{t} ({s:.0f} s)" for t, s in reference["slow"].items()))
    if reference.get("unchecked"):
        lines.append("")
        lines.append(f"Tasks without a reference solution (not checked for defective tests): "
                     f"{reference['unchecked']}")
    if summary.get("infra_errors"):
        lines.append("")
        lines.append(f"Runs with infrastructure errors (every LLM call failed, or the pipeline "
                     f"raised; counted as failures, rerun to retry them): "
                     f"{summary['infra_errors']}")
    if summary.get("aborted"):
        lines.append("")
        lines.append(f"**The run stopped early:** {summary['aborted']}")
    elif summary.get("no_result"):
        lines.append("")
        lines.append(f"**No run produced a result:** {summary['no_result']} (no score above "
                     "says anything about the pipelines)")
    errors = {name: s["error_types"] for name, s in summary["pipelines"].items() if s["error_types"]}
    if errors:
        lines.append("")
        lines.append("Exceptions raised by generated code (kind `error`):")
        lines.append("")
        for name, counts in errors.items():
            lines.append(f"- {name}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    return "\n".join(lines) + "\n"


def chart(summary: dict[str, Any], path: Path) -> None:
    """A PNG (matplotlib, Agg backend) with pass@1 per pipeline and its Wilson 95% interval
    (left) and the mean tokens per task, annotated with mean calls (right), written
    atomically to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(summary["pipelines"])
    stats = [summary["pipelines"][n] for n in names]
    scores = [100 * (s["pass@1"] or 0) for s in stats]
    tokens = [s["mean_tokens"] or 0 for s in stats]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    # Error bars from the score to the interval's ends (never negative: a score of 0% or
    # 100% sits on its bound).
    low = [max(score - 100 * s["ci95"][0], 0.0) if s.get("ci95") else 0.0
           for score, s in zip(scores, stats)]
    high = [max(100 * s["ci95"][1] - score, 0.0) if s.get("ci95") else 0.0
            for score, s in zip(scores, stats)]
    bars = left.bar(names, scores, color="#4C72B0", yerr=[low, high], capsize=4,
                    error_kw={"elinewidth": 1, "ecolor": "#333333"})
    oracle = [(i, 100 * s["oracle"]["pass"]) for i, s in enumerate(stats)
              if (s.get("oracle") or {}).get("pass") is not None]
    if oracle:
        left.scatter([i for i, _ in oracle], [v for _, v in oracle], marker="_", s=400,
                     color="#C44E52", zorder=3, label="oracle pass@N")
        left.legend(loc="upper right", fontsize=8)
    left.set_ylabel("pass@1 (%), 95% interval")
    left.set_ylim(0, 110)
    left.set_title(f"pass@1 on {summary['tasks_scored']} tasks with results")
    for bar, s in zip(bars, stats):
        left.annotate(f"{_pct(s['pass@1'])}\n{s['passed']}/{s['tasks']}",
                      (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                      ha="center", va="bottom", fontsize=8)
    bars = right.bar(names, tokens, color="#DD8452")
    right.set_ylabel("mean tokens per task (prompt + completion)")
    right.set_title("cost")
    for bar, s in zip(bars, stats):
        right.annotate(f"{_num(s['mean_calls'])} calls",
                       (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                       ha="center", va="bottom", fontsize=8)
    fig.suptitle(f"codeteam bench: {summary.get('dataset', '?')} ({summary.get('model', '?')})",
                 fontsize=10)
    fig.tight_layout()
    png = io.BytesIO()
    fig.savefig(png, format="png", dpi=120)
    plt.close(fig)
    write_atomic(path, png.getvalue())


def write_summary(summary: dict[str, Any], out: Path, extra: str = "") -> dict[str, Path]:
    """Write ``summary.json``, ``summary.md`` (with ``extra`` Markdown after the summary) and
    ``chart.png`` into ``out``, each atomically (:func:`codeteam.atomic_write.write_atomic`);
    returns their paths by kind. Raises :class:`~codeteam.atomic_write.AtomicWriteError`."""
    out.mkdir(parents=True, exist_ok=True)
    paths = {"json": out / "summary.json", "md": out / "summary.md", "chart": out / "chart.png"}
    write_atomic(paths["json"], json.dumps(summary, indent=2) + "\n")
    write_atomic(paths["md"], markdown(summary) + extra)
    chart(summary, paths["chart"])
    return paths
