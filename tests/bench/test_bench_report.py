"""Records, the results log (resume), failure classification and the summary files.
No execution here: run reports are built by hand."""

from __future__ import annotations

import errno
import json
import os

import pytest

from codeteam.bench.results import BenchRecord, ResultsLog
from codeteam.bench.scoring import classify
from codeteam.bench.summary import markdown, summarize, write_summary
from codeteam.execution.outcomes import RunReport, TestCase, TestOutcome


def record(task_id, pipeline, passed, *, calls=1, prompt=100, completion=20, kind=None,
           seconds=2.0, **extra):
    return BenchRecord(
        dataset="humaneval", task_id=task_id, pipeline=pipeline, passed=passed,
        kind=None if passed else (kind or "wrong_answer"), status="passed" if passed else "failed",
        calls=calls, prompt_tokens=prompt, completion_tokens=completion, seconds=seconds, **extra,
    )


def test_results_log_appends_lines_and_keeps_the_last_record_per_pair(tmp_path):
    log = ResultsLog(tmp_path / "results.jsonl")
    assert log.load() == {}
    log.append(record("T/0", "direct", False))
    log.append(record("T/0", "direct", True))
    log.append(record("T/1", "direct", False))
    lines = log.path.read_text().splitlines()
    assert len(lines) == 3 and all(json.loads(line)["dataset"] == "humaneval" for line in lines)
    loaded = log.load()
    assert set(loaded) == {("T/0", "direct"), ("T/1", "direct")}
    assert loaded[("T/0", "direct")].passed is True


def test_results_log_survives_a_line_cut_by_a_kill(tmp_path):
    path = tmp_path / "results.jsonl"
    good = json.dumps(record("T/0", "direct", True).model_dump(mode="json"))
    path.write_text(good + "\n" + good[: len(good) // 2])  # the second write was cut
    log = ResultsLog(path)
    assert list(log.load()) == [("T/0", "direct")] and log.skipped_lines == 1
    log.append(record("T/1", "plan", True))
    assert set(log.load()) == {("T/0", "direct"), ("T/1", "plan")}


def _disk_full_after(monkeypatch, allowed: int) -> None:
    """Make the atomic writer's os.write fail with ENOSPC after ``allowed`` calls."""
    from codeteam import atomic_write

    real_write, calls = atomic_write.os.write, []

    def write(fd, data):
        calls.append(1)
        if len(calls) > allowed:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)

    monkeypatch.setattr(atomic_write.os, "write", write)


def test_results_log_keeps_every_earlier_record_when_the_disk_fills(tmp_path, monkeypatch):
    from codeteam.atomic_write import AtomicWriteError

    log = ResultsLog(tmp_path / "results.jsonl")
    log.append(record("T/0", "direct", True))
    before = log.path.read_bytes()
    _disk_full_after(monkeypatch, 0)
    with pytest.raises(AtomicWriteError, match="No space left on device; the file is unchanged"):
        log.append(record("T/1", "direct", True))
    assert log.path.read_bytes() == before and list(log.load()) == [("T/0", "direct")]


def test_the_summary_files_are_whole_when_the_disk_fills(tmp_path, monkeypatch):
    from codeteam.atomic_write import AtomicWriteError

    summary = summarize([record("T/0", "direct", True)], pipelines=["direct"], task_ids=["T/0"], defective={})
    paths = write_summary(summary, tmp_path)
    before = {kind: path.read_bytes() for kind, path in paths.items()}
    changed = summarize([record("T/0", "direct", False)], pipelines=["direct"], task_ids=["T/0"], defective={})
    _disk_full_after(monkeypatch, 1)  # summary.json is written, summary.md is not
    with pytest.raises(AtomicWriteError):
        write_summary(changed, tmp_path)
    assert json.loads(paths["json"].read_text())["pipelines"]["direct"]["passed"] == 0
    assert paths["md"].read_bytes() == before["md"]
    assert paths["chart"].read_bytes() == before["chart"]


TESTS = [TestCase(id=f"hidden:{i}", kind="assert", origin="hidden", source=f"assert f({i})")
         for i in (1, 2)]


def outcome(test_id, status="passed", **extra):
    return TestOutcome(test_id=test_id, status=status, **extra)


@pytest.mark.parametrize(
    ("run", "kind", "error_type"),
    [
        (RunReport(outcomes=[outcome("hidden:1"), outcome("hidden:2")], exit_code=0), None, None),
        (RunReport(outcomes=[outcome("hidden:1"),
                             outcome("hidden:2", "failed", exception_type="AssertionError")],
                   exit_code=1), "wrong_answer", None),
        (RunReport(outcomes=[outcome("hidden:1", "error", exception_type="ZeroDivisionError"),
                             outcome("hidden:2", "failed", exception_type="AssertionError")],
                   exit_code=1), "error", "ZeroDivisionError"),
        (RunReport(outcomes=[outcome("hidden:1"), outcome("hidden:2", "timeout")], killed=True),
         "timeout", None),
        (RunReport(outcomes=[], killed=True), "timeout", None),
        (RunReport(outcomes=[outcome("hidden:1")], exit_code=-11), "crash", None),
        (RunReport(outcomes=[outcome("hidden:1"),
                             outcome("hidden:2", "error", message="the process died")],
                   exit_code=-11), "crash", None),
        (RunReport(outcomes=[], exit_code=3), "crash", None),
        (RunReport(outcomes=[outcome("hidden:1", "error", message="the process died"),
                             outcome("hidden:2", "error", message="not run")], exit_code=-24),
         "timeout", None),
        (RunReport(outcomes=[outcome("hidden:1", "error", exception_type="SyntaxError"),
                             outcome("hidden:2", "error", exception_type="SyntaxError")],
                   exit_code=0), "error", "SyntaxError"),
    ],
    ids=["passed", "wrong_answer", "error", "timeout", "killed", "segfault-missing",
         "segfault", "exit", "cpu-limit", "import-error"],
)
def test_classify(run, kind, error_type):
    score = classify(TESTS, run)
    assert score.passed is (kind is None)
    assert score.kind == kind and score.error_type == error_type
    assert score.tests_total == 2


def test_summary_numbers_gain_and_defective_exclusion(tmp_path):
    records = [
        record("T/0", "direct", True, calls=1, prompt=100, completion=50),
        record("T/1", "direct", False, calls=1, prompt=100, completion=50),
        record("T/2", "direct", False, calls=1, prompt=100, completion=50, kind="timeout"),
        record("T/3", "direct", True),  # defective task: not counted
        record("T/0", "team", True, calls=4, prompt=400, completion=200),
        record("T/1", "team", True, calls=4, prompt=400, completion=200),
        record("T/2", "team", False, calls=6, prompt=600, completion=300, kind="error",
               error_type="IndexError"),
        record("T/3", "team", False),
        record("T/9", "team", True),  # not selected: ignored
    ]
    summary = summarize(records, pipelines=["direct", "team"],
                        task_ids=["T/0", "T/1", "T/2", "T/3"],
                        defective={"T/3": "1 of 1 hidden tests fail on the reference solution"},
                        meta={"dataset": "tiny", "model": "scripted"})
    direct, team = summary["pipelines"]["direct"], summary["pipelines"]["team"]
    assert direct["tasks"] == 3 and direct["passed"] == 1
    assert direct["pass@1"] == pytest.approx(1 / 3)
    assert team["pass@1"] == pytest.approx(2 / 3)
    assert team["gain_vs_direct"] == pytest.approx(1.0)  # (2/3 - 1/3) / (1/3)
    assert team["delta_vs_direct"] == pytest.approx(1 / 3)
    assert direct["gain_vs_direct"] is None
    assert team["mean_calls"] == pytest.approx(14 / 3)
    assert team["mean_tokens"] == pytest.approx((600 + 600 + 900) / 3)
    assert team["tokens_per_solved"] == pytest.approx(2100 / 2)
    assert direct["tokens_per_solved"] == pytest.approx(450)
    assert team["failures"] == {"error": 1} and team["error_types"] == {"IndexError": 1}
    assert direct["failures"] == {"timeout": 1, "wrong_answer": 1}
    assert summary["defective"]["count"] == 1 and "T/3" in summary["defective"]["tasks"]
    assert direct["defective_passed"] == 1

    paths = write_summary(summary, tmp_path)
    assert json.loads(paths["json"].read_text())["pipelines"]["team"]["passed"] == 2
    text = paths["md"].read_text()
    # No candidates compared: the oracle pass@N is pass@1 (N 1).
    assert team["oracle"] == {"passed": 2, "tasks": 3, "pass": pytest.approx(2 / 3),
                              "mean_n": 1.0, "gain": 0.0, "unknown": 0}
    assert ("| team | 66.7% | 2/3 | 66.7% (N 1.0) | +100.0% (+33.3 pts) | 4.7 | 700 | 1,050 |"
            in text)
    assert "| direct | 33.3% | 1/3 | 33.3% (N 1.0) | – |" in text
    assert "T/3: 1 of 1 hidden tests fail" in text
    assert paths["chart"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert markdown(summary) == text


def test_summary_counts_missing_pairs_of_an_interrupted_run(tmp_path):
    summary = summarize([record("T/0", "direct", True)], pipelines=["direct", "plan"],
                        task_ids=["T/0", "T/1", "T/2", "T/3", "T/4"], defective={})
    assert summary["pipelines"]["direct"]["missing"] == 4
    assert summary["pipelines"]["plan"] == summary["pipelines"]["plan"] | {
        "tasks": 0, "pass@1": None, "missing": 5}
    # Only the task with a result is scored (issue 27: "Tasks: 5 scored of 5" after Ctrl-C).
    assert (summary["tasks_scored"], summary["tasks_missing"]) == (1, 4)
    text = markdown(summary)
    assert "Tasks: 1 scored of 5 selected (4 not run yet)." in text
    assert "| direct | 100.0% | 1/1 (4 missing) | 100.0% (N 1.0) |" in text
    assert "| plan | – | 0/0 (5 missing) | – |" in text
    paths = write_summary(summary, tmp_path)  # a pipeline without any result: still a chart
    assert paths["chart"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("tasks", [1, 6, 11, 21, 44])
def test_every_score_is_reported_0_and_100_included(tmp_path, tasks):
    """A pipeline that solved every task and one that solved none: the intervals end exactly
    at 100% and 0% (6 and 11 tasks made matplotlib refuse a negative error bar) and the
    chart is written."""
    records = [record(f"T/{i}", "direct", False) for i in range(tasks)]
    records += [record(f"T/{i}", "team", True) for i in range(tasks)]
    summary = summarize(records, pipelines=["direct", "team"],
                        task_ids=[f"T/{i}" for i in range(tasks)], defective={})
    direct, team = summary["pipelines"]["direct"], summary["pipelines"]["team"]
    assert direct["ci95"][0] == 0.0 and 0 < direct["ci95"][1] < 1
    assert team["ci95"][1] == 1.0 and 0 < team["ci95"][0] < 1
    paths = write_summary(summary, tmp_path)
    assert paths["chart"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    text = paths["md"].read_text()
    assert f"| team | 100.0% | {tasks}/{tasks} |" in text and "–100.0% |" in text
    assert f"| direct | 0.0% | 0/{tasks} |" in text and "| 0.0–" in text


def test_oracle_pass_at_n_counts_a_task_when_any_candidate_passed():
    def candidates(*verdicts):
        return [{"index": i, "origin": "direct" if i == 0 else "sample", "chosen": i == 1,
                 "passed": verdict} for i, verdict in enumerate(verdicts)]

    records = [
        record("T/0", "team", True, candidates=candidates(False, True, False)),
        record("T/1", "team", False, candidates=candidates(False, False, True)),  # wrong choice
        record("T/2", "team", False, candidates=candidates(False, False, False)),
        record("T/3", "team", False),  # the first answer was taken: no candidates compared
        record("T/4", "team", False, candidates=candidates(None, None)),  # reused: unknown
        record("T/0", "direct", True), record("T/1", "direct", False),
    ]
    summary = summarize(records, pipelines=["direct", "team"],
                        task_ids=[f"T/{i}" for i in range(5)], defective={})
    team = summary["pipelines"]["team"]
    assert team["oracle"] == {"passed": 2, "tasks": 4, "pass": 0.5, "mean_n": 2.5,
                              "gain": 0.25, "unknown": 1}
    assert team["pass@1"] == pytest.approx(1 / 5)  # the unknown row still counts for pass@1
    assert summary["pipelines"]["direct"]["oracle"]["pass"] == 0.5
    text = markdown(summary)
    assert "| team | 20.0% | 1/5 | 50.0% (N 2.5, 1 unknown) |" in text
    assert "Here: team +25.0 pts." in text


def test_paired_comparison_with_direct_and_the_exact_mcnemar_p(tmp_path):
    # team solves T/0..T/5 and T/7, direct solves T/6 and T/7: 6 only team, 1 only direct.
    records = [record(f"T/{i}", "team", i != 6) for i in range(8)]
    records += [record(f"T/{i}", "direct", i in (6, 7)) for i in range(8)]
    records += [record(f"T/{i}", "flow", i == 7) for i in range(4)]  # flow: half run
    summary = summarize(records, pipelines=["direct", "team", "flow"],
                        task_ids=[f"T/{i}" for i in range(8)], defective={})
    team = summary["pipelines"]["team"]["paired_vs_direct"]
    assert team == {"tasks": 8, "only_this": 6, "only_baseline": 1, "both": 1, "neither": 0,
                    "mcnemar_p": pytest.approx(2 * (1 + 7) / 2 ** 7)}  # 0.125
    flow = summary["pipelines"]["flow"]["paired_vs_direct"]
    assert flow["tasks"] == 4 and flow["only_this"] == 0 and flow["only_baseline"] == 0
    assert flow["mcnemar_p"] == 1.0  # no task solved by only one of them
    assert summary["pipelines"]["direct"]["paired_vs_direct"] is None
    # Wilson 95% intervals: 7/8 and 2/8.
    low, high = summary["pipelines"]["team"]["ci95"]
    assert low == pytest.approx(0.529, abs=1e-3) and high == pytest.approx(0.978, abs=1e-3)
    low, high = summary["pipelines"]["direct"]["ci95"]
    assert low == pytest.approx(0.0715, abs=1e-3) and high == pytest.approx(0.591, abs=1e-3)
    text = markdown(summary)
    assert "| team | 8 | 6 | 1 | 1 | 0 | 0.125 |" in text
    assert "| flow | 4 | 0 | 0 | 0 | 4 | 1 |" in text
    assert "| 52.9–97.8% |" in text
    paths = write_summary(summary, tmp_path)
    assert paths["chart"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_mcnemar_exact_matches_the_binomial_tails():
    from codeteam.bench.summary import mcnemar_exact, wilson_interval

    assert mcnemar_exact(6, 0) == pytest.approx(1 / 32)  # 2 x 0.5^6: p < 0.05
    assert mcnemar_exact(4, 0) == pytest.approx(1 / 8)
    assert mcnemar_exact(3, 3) == 1.0 and mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(1, 9) == mcnemar_exact(9, 1) == pytest.approx(2 * 11 / 1024)
    assert wilson_interval(0, 0) is None
    low, high = wilson_interval(0, 10)
    assert low == 0.0 and high == pytest.approx(0.2775, abs=1e-4)
    for tasks in range(1, 200):  # the bounds hold the score, exactly at 0 and at all solved
        for passed in range(tasks + 1):
            low, high = wilson_interval(passed, tasks)
            assert 0.0 <= low <= passed / tasks <= high <= 1.0
        assert wilson_interval(0, tasks)[0] == 0.0 and wilson_interval(tasks, tasks)[1] == 1.0
