"""Helpers of the benchmark tests: tiny data files, settings for the scripted model, and a
benchmark run in-process."""

from __future__ import annotations

import json
from pathlib import Path

from codeteam.bench.bench_run import BenchConfig, run_bench
from codeteam.settings import load_settings

# Prompt routing: each role's prompt file has a distinctive sentence.
DIRECT = r"You complete Python functions"
PLANNER = r"You write short plans"
CODER = r"You write correct, simple Python"

CATCH_ALL = """1. Read the input.
2. Return the result.

```python
return None
```"""
"""A reply every role can take something from: a plan, a bare body; no tests."""


def code(body: str) -> str:
    return f"```python\n{body}\n```"


def inc_record(task_id: str, name: str, *, et: list[str] | None = None,
               canonical: str = "    return x + 1\n") -> dict:
    """A HumanEval-format record for ``name(x) == x + 1`` (one doctest example)."""
    record = {
        "task_id": task_id,
        "prompt": f'def {name}(x):\n    """Return x plus one.\n    >>> {name}(1)\n    2\n    """\n',
        "entry_point": name,
        "canonical_solution": canonical,
        "test": "def check(candidate):\n    assert candidate(2) == 3\n    assert candidate(-1) == 0\n",
    }
    if et is not None:
        record["test_case_list"] = et
    return record


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def scripted_settings(scripted, **overrides):
    """Settings for the scripted model; ``plan_candidate`` (on with an endpoint) off unless
    given, so that the candidates the tests script are the samples (the analyst's call is
    tested in tests/pipelines/test_team_plan.py)."""
    settings, problems = load_settings(
        {"base_url": scripted.base_url, "model": "scripted", "max_retries": 0, "timeout_s": 10,
         "plan_candidate": False, **overrides},
        env=False,
    )
    assert problems == []
    return settings


SHIPPED = ("humaneval", "humaneval-et", "humaneval-plus", "mbpp")
"""The datasets whose files ship with codeteam: their tasks (and so the reference check's
fingerprints) are the same in every test."""

_references: dict[str, dict] = {}
"""The reference check's verdicts (``canonical.json`` entries, by ``dataset|task id``) of the
shipped datasets' tasks, from this worker's earlier :func:`bench` runs."""


def _seed_references(out: Path, config: dict) -> None:
    """Write the verdicts of earlier runs for this run's tasks into a new ``out`` folder's
    ``canonical.json``, so that the reference check does not run the same references again
    (~0.6-1.8 CPU-s a task). The same entries a run of its own would write: the check runs
    (and is tested) in the first run that needs each one, with the same fingerprint and time
    limit; an entry that does not match (another data file, a longer limit) is run again."""
    dataset, ids = config.get("dataset"), config.get("task_ids")
    if (dataset not in SHIPPED or config.get("data") is not None or not ids
            or (out / "canonical.json").exists()):
        return
    entries = {key: _references[key] for key in (f"{dataset}|{i}" for i in ids)
               if key in _references}
    if entries:
        out.mkdir(parents=True, exist_ok=True)
        (out / "canonical.json").write_text(json.dumps({"version": 1, "entries": entries}))


def _keep_references(out: Path) -> None:
    try:
        entries = json.loads((out / "canonical.json").read_text())["entries"]
    except (OSError, ValueError, KeyError):
        return
    _references.update({k: v for k, v in entries.items() if k.split("|")[0] in SHIPPED})


async def bench(scripted, out: Path, *, settings=None, **config) -> dict:
    """Run ``codeteam bench`` in-process against the scripted model; returns the summary.
    For the shipped datasets' tasks the reference check's verdicts of earlier runs in this
    worker are reused (:func:`_seed_references`)."""
    config.setdefault("progress", False)
    _seed_references(out, config)
    try:
        return await run_bench(
            BenchConfig(out=out, **config),
            settings=settings or scripted_settings(scripted),
            echo=False,
        )
    finally:
        _keep_references(out)
