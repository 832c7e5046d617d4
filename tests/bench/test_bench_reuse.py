"""``codeteam bench --generations-from DIR``: HumanEval's answers scored on HumanEval+ without
asking the model again (scripted model over real HTTP, real sandbox)."""

from __future__ import annotations

import asyncio
import gzip
import json
import re
import shutil
import threading
from pathlib import Path

import pytest
from benchkit import bench, code, scripted_settings, write_jsonl

from codeteam.bench.bench_run import BenchError
from codeteam.bench.datasets import SHARED_DATA
from codeteam.bench.results import ResultsLog
from scripted_llm import ScriptedLLM

# One worker runs the module: the source run below is made once for the four tests that
# reuse it.
pytestmark = [pytest.mark.sandbox, pytest.mark.xdist_group("bench_reuse")]

ANSWERS = {
    "truncate_number": "def truncate_number(number: float) -> float:\n    return number % 1.0",
    "below_zero": "def below_zero(operations):\n    return False",  # wrong
    "has_close_elements": (
        "def has_close_elements(numbers, threshold):\n"
        "    return any(abs(a - b) < threshold for i, a in enumerate(numbers)\n"
        "               for b in numbers[i + 1:])"),
}


def text_of(body: dict) -> str:
    return "\n".join(str(m.get("content", "")) for m in body.get("messages", []))


def answer_everything(scripted, names=tuple(ANSWERS)) -> None:
    """Every role, for each function: a one-line plan and the function (planner, coder and
    direct all take what they need from it)."""
    for name in names:
        scripted.reply(lambda body, name=name: f"def {name}(" in text_of(body),
                       f"1. Compute the result.\n\n{code(ANSWERS[name])}", times=None)


def requests_about(scripted, start: int, name: str) -> int:
    return sum(f"def {name}(" in t for t in scripted.texts()[start:])


IDS = ["HumanEval/0", "HumanEval/2", "HumanEval/3"]


@pytest.fixture(scope="module")
def scripted_model():
    """The module's scripted model: a run that reuses rows checks that the model that wrote
    them (its address) is its own, so the source run below and the tests ask the same one."""
    with ScriptedLLM() as llm:
        yield llm


@pytest.fixture
def scripted(scripted_model):
    """The module's :class:`ScriptedLLM`, with no rules and no recorded requests."""
    scripted_model.reset()
    return scripted_model


@pytest.fixture(scope="module")
def source_run(scripted_model, tmp_path_factory) -> Path:
    """HumanEval/2 and /3 through ``direct``, every function answered
    (:func:`answer_everything`): the run whose rows four tests reuse, made once (in a loop of
    its own) and copied into each test's folder (:func:`he`)."""
    out = tmp_path_factory.mktemp("source") / "he"
    scripted_model.reset()
    answer_everything(scripted_model)
    failed: list[BaseException] = []

    def make() -> None:
        try:
            asyncio.run(bench(scripted_model, out, dataset="humaneval", task_ids=IDS[1:],
                              pipelines=["direct"]))
        except BaseException as error:  # noqa: BLE001 - raised in the test's thread below
            failed.append(error)

    thread = threading.Thread(target=make)
    thread.start()
    thread.join()
    if failed:
        raise failed[0]
    assert len(scripted_model.requests) == 2 and scripted_model.unmatched == []
    scripted_model.reset()
    return out


@pytest.fixture
def he(source_run, tmp_path) -> Path:
    """A copy of :func:`source_run`'s folder, the test's to change."""
    return Path(shutil.copytree(source_run, tmp_path / "he"))


async def test_plus_scores_humanevals_answers_without_asking_the_model(scripted, tmp_path):
    answer_everything(scripted)
    he, plus = tmp_path / "he", tmp_path / "plus"
    source_summary = await bench(scripted, he, dataset="humaneval", task_ids=IDS,
                                 pipelines=["direct", "plan"])
    assert len(scripted.requests) == 3 * 1 + 3 * 2 and scripted.unmatched == []
    before = len(scripted.requests)

    summary = await bench(scripted, plus, dataset="humaneval-plus", task_ids=IDS,
                          pipelines=["direct", "plan"], generations_from=he)

    assert len(scripted.requests) == before  # not one model request
    source = ResultsLog(he / "results.jsonl").load()
    reused = ResultsLog(plus / "results.jsonl").load()
    commit = json.loads((he / "run.json").read_text())["commit"]
    assert set(reused) == set(source) and len(reused) == 6
    for key, row in reused.items():
        original = source[key]
        assert row.dataset == "humaneval-plus" and original.dataset == "humaneval"
        assert row.generated_in == str(he.resolve()) and row.generated_commit == commit
        assert (row.code, row.status, row.calls, row.prompt_tokens, row.completion_tokens,
                row.seconds) == (original.code, original.status, original.calls,
                                 original.prompt_tokens, original.completion_tokens,
                                 original.seconds)
        assert row.public_digest == original.public_digest is not None
        # Scored on HumanEval+'s hidden tests (base and plus inputs), not HumanEval's check.
        assert (original.tests_total, row.tests_total) == (1, 2)
        assert row.passed is (key[0] != "HumanEval/3")
    assert "input #" in reused[("HumanEval/3", "direct")].detail  # a plus-style failure

    for name in ("direct", "plan"):
        mine, theirs = summary["pipelines"][name], source_summary["pipelines"][name]
        for stat in ("mean_calls", "mean_tokens", "mean_seconds"):
            assert mine[stat] == pytest.approx(theirs[stat])
        assert mine["reused"] == 3 and theirs["reused"] == 0
    assert summary["reused"] == {"rows": 6, "of": 6, "from": {str(he.resolve()): 6}}
    assert source_summary["reused"]["rows"] == 0
    text = (plus / "summary.md").read_text()
    assert (f"**Not an independent run:** 6 of 6 rows reuse the answers generated in another "
            f"run (6 from {he.resolve()})") in text
    assert "Not an independent run" not in (he / "summary.md").read_text()
    assert json.loads((plus / "summary.json").read_text())["reused"]["rows"] == 6
    assert json.loads((plus / "run.json").read_text())["generations_from"] == str(he.resolve())


def plus_file_with(tmp_path: Path, task_id: str, edit) -> Path:
    with gzip.open(SHARED_DATA / "HumanEvalPlus.jsonl.gz", "rt", encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle if line.strip()]
    for record in records:
        if record["task_id"] == task_id:
            record["prompt"] = edit(record["prompt"])
    return write_jsonl(tmp_path / "plus-edited.jsonl", records)


async def test_a_task_whose_public_part_differs_is_generated(scripted, tmp_path, he):
    answer_everything(scripted)
    # As HumanEval/115 in HumanEval+: the same task with another prompt.
    data = plus_file_with(tmp_path, "HumanEval/3", lambda p: p.replace(
        "detect if at any point", "detect whether at any point"))
    before = len(scripted.requests)

    summary = await bench(scripted, tmp_path / "plus", dataset="humaneval-plus", data=data,
                          task_ids=IDS[1:], pipelines=["direct"], generations_from=he)

    new = scripted.texts()[before:]
    assert len(new) == 1 and "detect whether at any point" in new[0]
    rows = ResultsLog(tmp_path / "plus" / "results.jsonl").load()
    source = ResultsLog(he / "results.jsonl").load()
    generated, reused = rows[("HumanEval/3", "direct")], rows[("HumanEval/2", "direct")]
    assert generated.generated_in is None and reused.generated_in == str(he.resolve())
    assert generated.public_digest != source[("HumanEval/3", "direct")].public_digest
    assert summary["reused"] == {"rows": 1, "of": 2, "from": {str(he.resolve()): 1}}


def test_another_model_or_other_settings_are_refused(scripted, tmp_path, capsys):
    from codeteam.cli import main

    answer_everything(scripted)
    he = tmp_path / "he"
    args = ["--tasks", "2", "--pipelines", "direct", "--no-progress",
            "--set", f"base_url={scripted.base_url}", "--set", "max_retries=0"]
    assert main(["bench", "--dataset", "humaneval", "--out", str(he), *args,
                 "--set", "max_tokens=100"]) == 0
    capsys.readouterr()
    before = len(scripted.requests)
    plus = tmp_path / "plus"
    reuse = ["bench", "--dataset", "humaneval-plus", "--generations-from", str(he), *args]

    assert main([*reuse, "--out", str(plus), "--set", "max_tokens=200"]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line == (f"codeteam bench: --generations-from {he.resolve()}: generated with other "
                    "settings (max_tokens 100 there, 200 here): use the same --set values")

    assert main([*reuse, "--out", str(plus), "--set", "max_tokens=100",
                 "--set", "model=another"]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "generated by model 'default @ http://127.0.0.1" in line
    assert "this run uses 'another @ http://127.0.0.1" in line

    assert main([*reuse, "--out", str(he), "--set", "max_tokens=100"]) == 2
    assert "is the --out folder itself" in capsys.readouterr().err
    assert len(scripted.requests) == before and not plus.exists()  # refused before anything

    assert main([*reuse, "--out", str(plus), "--set", "max_tokens=100"]) == 0
    assert len(scripted.requests) == before
    assert "1 to run; 1 of them reused from" in capsys.readouterr().err


async def test_rows_with_infrastructure_errors_are_generated_again(scripted, tmp_path):
    scripted.error(lambda body: "def below_zero(" in text_of(body), status=500, times=None)
    answer_everything(scripted, ["truncate_number"])
    he = tmp_path / "he"
    await bench(scripted, he, dataset="humaneval", task_ids=IDS[1:], pipelines=["direct"])
    assert ResultsLog(he / "results.jsonl").load()[("HumanEval/3", "direct")].infra_error
    scripted.rules.clear()
    scripted.reply(lambda body: "def below_zero(" in text_of(body), code(
        "def below_zero(operations):\n    total = 0\n    for op in operations:\n"
        "        total += op\n        if total < 0:\n            return True\n    return False"))
    before = len(scripted.requests)

    summary = await bench(scripted, tmp_path / "plus", dataset="humaneval-plus",
                          task_ids=IDS[1:], pipelines=["direct"], generations_from=he)

    assert len(scripted.requests) == before + 1 and requests_about(scripted, before, "below_zero") == 1
    rows = ResultsLog(tmp_path / "plus" / "results.jsonl").load()
    again = rows[("HumanEval/3", "direct")]
    assert again.generated_in is None and again.infra_error is None and again.passed
    assert rows[("HumanEval/2", "direct")].generated_in == str(he.resolve())
    assert summary["reused"]["rows"] == 1


def without_digests(folder):
    """Rewrite ``folder``'s rows as a version before public digests wrote them."""
    results = folder / "results.jsonl"
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    results.write_text("".join(json.dumps({k: v for k, v in r.items() if k != "public_digest"})
                               + "\n" for r in rows))


async def test_old_folders_without_digests_are_checked_against_their_dataset(
        scripted, tmp_path, he):
    answer_everything(scripted)
    # What an earlier version wrote: no digests in the rows, no settings in run.json (they are
    # in summary.json); run.json names the commit (this one: the same reading of the prompts).
    without_digests(he)
    run = json.loads((he / "run.json").read_text())
    kept = ("dataset", "source", "model", "commit")
    (he / "run.json").write_text(json.dumps({k: run[k] for k in kept}))
    before = len(scripted.requests)

    first = await bench(scripted, tmp_path / "plus1", dataset="humaneval-plus",
                        task_ids=IDS[1:], pipelines=["direct"], generations_from=he)
    assert first["reused"]["rows"] == 2 and len(scripted.requests) == before

    # The data file it names is gone (another checkout): the default humaneval file is used,
    # as its reference fingerprints in canonical.json show it is the same.
    run["source"] = str(tmp_path / "gone" / "HumanEval.jsonl.gz")
    (he / "run.json").write_text(json.dumps({k: run[k] for k in kept}))
    moved = await bench(scripted, tmp_path / "plus2", dataset="humaneval-plus",
                        task_ids=IDS[1:], pipelines=["direct"], generations_from=he)
    assert moved["reused"]["rows"] == 2 and len(scripted.requests) == before

    (he / "canonical.json").unlink()
    with pytest.raises(BenchError, match=re.escape(
            "its rows carry no public digest (written before BenchRecord.public_digest), "
            f"its data file {run['source']} is gone")):
        await bench(scripted, tmp_path / "plus3", dataset="humaneval-plus",
                    task_ids=IDS[1:], pipelines=["direct"], generations_from=he)
    assert len(scripted.requests) == before


@pytest.mark.parametrize("commit", [None, "0" * 40])
async def test_rows_without_digests_from_other_code_are_generated_again(
        scripted, tmp_path, he, commit):
    # Another (or an unknown) commit may have read other docstring lines as public tests: the
    # digest recomputed here would not be the one that run saw.
    answer_everything(scripted)
    without_digests(he)
    run = json.loads((he / "run.json").read_text())
    run["commit"] = commit
    (he / "run.json").write_text(json.dumps(run))
    before = len(scripted.requests)
    summary = await bench(scripted, tmp_path / "plus", dataset="humaneval-plus",
                          task_ids=IDS[1:], pipelines=["direct"], generations_from=he)
    assert summary["reused"]["rows"] == 0 and len(scripted.requests) > before


async def test_resume_keeps_working_with_reused_rows(scripted, tmp_path):
    answer_everything(scripted)
    he, plus = tmp_path / "he", tmp_path / "plus"
    await bench(scripted, he, dataset="humaneval", task_ids=IDS, pipelines=["direct"])
    await bench(scripted, plus, dataset="humaneval-plus", task_ids=IDS[:2],
                pipelines=["direct"], generations_from=he)
    # An interrupted run: the second row's write was cut short.
    log = ResultsLog(plus / "results.jsonl")
    lines = log.path.read_text().splitlines()
    log.path.write_text(lines[0] + "\n" + lines[1][:30])
    kept = log.load()
    before = len(scripted.requests)

    summary = await bench(scripted, plus, dataset="humaneval-plus", task_ids=IDS,
                          pipelines=["direct"], generations_from=he)

    assert len(scripted.requests) == before
    rows = log.load()
    assert len(rows) == 3 and all(r.generated_in == str(he.resolve()) for r in rows.values())
    [(key, first)] = kept.items()
    assert rows[key].finished_at == first.finished_at  # kept, not scored again
    assert summary["reused"] == {"rows": 3, "of": 3, "from": {str(he.resolve()): 3}}

    # Without the option: nothing to run, and the summary still says where the answers are from.
    again = await bench(scripted, plus, dataset="humaneval-plus", task_ids=IDS,
                        pipelines=["direct"])
    assert len(scripted.requests) == before and again["reused"]["rows"] == 3


async def test_generations_from_a_folder_that_is_no_bench_run_is_refused(scripted, tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(BenchError, match="not the --out folder of a bench run"):
        await bench(scripted, tmp_path / "plus", dataset="humaneval-plus", task_ids=IDS[1:],
                    pipelines=["direct"], generations_from=tmp_path / "empty",
                    settings=scripted_settings(scripted))


def test_bench_help_documents_the_option(capsys):
    from codeteam.cli import main

    with pytest.raises(SystemExit):
        main(["bench", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--generations-from DIR" in text and "same model and settings required" in text


def test_a_candidates_verdict_survives_a_second_reuse():
    """A candidate's hidden verdict moves to ``passed_in_source`` on reuse; a row reused
    twice (humaneval -> a filtered copy -> humaneval-plus) keeps the generating run's."""
    from codeteam.bench.results import BenchRecord
    from codeteam.bench.reuse import reused_record
    from codeteam.bench.scoring import Score

    row = BenchRecord(dataset="humaneval", task_id="HumanEval/7", pipeline="team", passed=True,
                      status="passed", code="def f():\n    return 1\n",
                      candidates=[{"index": 0, "passed": True}, {"index": 1, "passed": False}])
    once = reused_record(row, dataset="humaneval", score=Score(passed=True), digest="d",
                         origin=("first", None))
    assert [(c["passed"], c["passed_in_source"]) for c in once.candidates] == [
        (None, True), (None, False)]
    twice = reused_record(once, dataset="humaneval-plus", score=Score(passed=False),
                          digest="d", origin=("first", None))
    assert [(c["passed"], c["passed_in_source"]) for c in twice.candidates] == [
        (None, True), (None, False)]
