"""``codeteam bench --generations-from DIR``: score another run's answers on this dataset.

HumanEval+ and HumanEval-ET give a pipeline the same public part as HumanEval (prompt and
docstring examples; HumanEval+ differs only on HumanEval/115) and add hidden tests. As
EvalPlus does (Liu et al., arXiv 2305.01210, section 3: the same samples are scored on the
base and the plus tests), the answers of an earlier run are scored again instead of being
generated again. A row of ``DIR/results.jsonl`` is reused for a (task, pipeline) pair when:

- the pair is in DIR, finished, without an infrastructure error (those are generated anew);
- its task had the identical public part: the row's ``public_digest``
  (:func:`public_digest`), or for rows written before digests existed, the digest recomputed
  from DIR's dataset (``run.json``'s ``source`` file, or the named dataset's default file when
  that moved, checked against the reference fingerprints in DIR's ``canonical.json``) — only
  when DIR's ``run.json`` names this checkout's commit: the recomputed digest comes from this
  codeteam's reading of the prompts (which docstring lines are public tests), and another
  commit may have read them otherwise (a row without a digest from another or an unknown
  commit is generated anew);
- DIR was run with the same model and settings (``run.json``; older folders: the settings in
  ``summary.json``): otherwise the whole run is refused (:class:`ReuseError`).

A reused row keeps the original generation's code, status, notes, calls, tokens and seconds,
and says where it was generated (``generated_in``, ``generated_commit``).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codeteam.bench.datasets import DATASETS, BenchTask, Dataset, DatasetError, load_dataset
from codeteam.bench.results import BenchRecord, ResultsLog

EDITOR_ONLY_SETTINGS = frozenset({"api_key", "generate_pipeline", "apply_timeout_s"})
"""Settings that cannot change what a bench run generates (the editor's own); every other
setting must be equal in DIR and in this run."""


class ReuseError(ValueError):
    """DIR cannot lend its generations to this run; the message (one line) says why."""


def public_digest(item: BenchTask) -> str:
    """A hex SHA-256 (16 characters) of the public part a pipeline sees: the prompt module,
    the target's qualname and module name, a plan if any, and the public tests (kind, source,
    expected output, setup, call). Equal digests: the pipeline was asked the same thing."""
    task = item.task
    public = {
        "module_source": task.module_source,
        "qualname": task.qualname,
        "module_name": task.module_name,
        "plan": task.plan,
        "public_tests": [t.model_dump(include={"id", "kind", "source", "expected", "setup",
                                               "call"}) for t in task.public_tests],
    }
    return hashlib.sha256(json.dumps(public, sort_keys=True).encode()).hexdigest()[:16]


def codeteam_commit() -> str | None:
    """``git rev-parse HEAD`` of the checkout this codeteam runs from (None when it is not a
    git checkout, e.g. a wheel install)."""
    here = Path(__file__).resolve().parent
    try:
        done = subprocess.run(["git", "-C", str(here), "rev-parse", "HEAD"], capture_output=True,
                              text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return (done.stdout.strip() or None) if done.returncode == 0 else None


def _differences(theirs: dict[str, Any], mine: dict[str, Any], defaults: dict[str, Any]) -> list[str]:
    """``key: X there, Y here`` for each generation setting that differs (a key DIR's
    settings lack counts as its default: it did not exist when DIR was written)."""
    differ = []
    for key in sorted(set(theirs) | set(mine)):
        if key in EDITOR_ONLY_SETTINGS:
            continue
        there = theirs.get(key, defaults.get(key))
        here = mine.get(key, defaults.get(key))
        if there != here:
            differ.append(f"{key} {there!r} there, {here!r} here")
    return differ


@dataclass
class GenerationSource:
    """DIR, read: its ``run.json`` (``info``), the settings its generations were made with,
    and its finished rows by (task id, pipeline)."""

    folder: Path
    info: dict[str, Any]
    settings: dict[str, Any]
    rows: dict[tuple[str, str], BenchRecord]
    _dataset: Dataset | None = None
    _digests: dict[str, str | None] = field(default_factory=dict)

    @classmethod
    def open(cls, folder: Path) -> GenerationSource:
        """Read DIR. Raises :class:`ReuseError` when it holds no bench run."""
        folder = Path(folder).resolve()
        run = folder / "run.json"
        results = folder / "results.jsonl"
        if not run.is_file() or not results.is_file():
            raise ReuseError(f"--generations-from {folder}: not the --out folder of a bench run "
                             "(no run.json and results.jsonl)")
        try:
            info = json.loads(run.read_text(encoding="utf-8"))
        except json.JSONDecodeError as error:
            raise ReuseError(f"--generations-from {folder}: run.json does not parse: {error}") from None
        settings = info.get("settings")
        if settings is None:  # folders written before run.json held the settings
            try:
                settings = json.loads((folder / "summary.json").read_text(encoding="utf-8"))["settings"]
            except (OSError, json.JSONDecodeError, KeyError, TypeError):
                raise ReuseError(f"--generations-from {folder}: records no settings (neither "
                                 "run.json nor summary.json has them), so they cannot be "
                                 "compared with this run's") from None
        rows = {key: r for key, r in ResultsLog(results).load().items()
                if r.dataset == info.get("dataset")}
        return cls(folder=folder, info=info, settings=settings, rows=rows)

    def check_compatible(self, *, model: str, settings: dict[str, Any], out: Path,
                         defaults: dict[str, Any]) -> None:
        """Raise :class:`ReuseError` unless DIR's generations were made by ``model`` with the
        same ``settings`` (redacted dicts), and DIR is not ``out`` itself."""
        if Path(out).resolve() == self.folder:
            raise ReuseError(f"--generations-from {self.folder} is the --out folder itself "
                             "(rerunning with the same --out already resumes)")
        if self.info.get("repo"):
            raise ReuseError(f"--generations-from {self.folder}: a --repo run; its tasks exist "
                             "only in that repository")
        if self.info.get("model") != model:
            raise ReuseError(f"--generations-from {self.folder}: generated by model "
                             f"{self.info.get('model')!r}, this run uses {model!r}")
        differ = _differences(self.settings, settings, defaults)
        if differ:
            raise ReuseError(f"--generations-from {self.folder}: generated with other settings "
                             f"({'; '.join(differ)}): use the same --set values")

    def row_for(self, item: BenchTask, pipeline: str, digest: str) -> BenchRecord | None:
        """DIR's finished row for ``item`` and ``pipeline`` when its public part was
        ``digest`` (None: not there, an infrastructure error, or another public part).
        Raises :class:`ReuseError` when an old row (no digest) cannot be checked."""
        row = self.rows.get((item.task_id, pipeline))
        if row is None or row.infra_error:
            return None
        if row.public_digest is None and not self._same_code():
            return None
        theirs = row.public_digest or self._recomputed_digest(item.task_id)
        return row if theirs == digest else None

    def _same_code(self) -> bool:
        """Whether DIR was written by this checkout's commit (unknown counts as not)."""
        theirs = self.info.get("commit")
        return theirs is not None and theirs == codeteam_commit()

    def _recomputed_digest(self, task_id: str) -> str | None:
        if task_id not in self._digests:
            dataset = self._load_dataset()
            found = [t for t in dataset.tasks if t.task_id == task_id]
            self._digests[task_id] = public_digest(found[0]) if found else None
        return self._digests[task_id]

    def _load_dataset(self) -> Dataset:
        """DIR's dataset, for rows without a digest: the file run.json names, else (it moved)
        the named dataset's default file, trusted only where DIR's canonical.json holds the
        same reference fingerprint (hidden tests and prompt + reference solution)."""
        if self._dataset is not None:
            return self._dataset
        name, source = self.info.get("dataset"), self.info.get("source")
        known = name if name in DATASETS else None
        why = f"its rows carry no public digest (written before {BenchRecord.__name__}.public_digest)"
        try:
            if source and Path(source).is_file():
                self._dataset = load_dataset(known, Path(source))
                return self._dataset
            if known is None:
                raise DatasetError(f"its data file {source} is gone")
            dataset = load_dataset(known)
        except DatasetError as error:
            raise ReuseError(f"--generations-from {self.folder}: {why} and its prompts cannot "
                             f"be recomputed: {error}") from None
        try:
            entries = json.loads((self.folder / "canonical.json").read_text(encoding="utf-8"))["entries"]
        except (OSError, json.JSONDecodeError, KeyError, TypeError):
            entries = {}
        checked = []
        for item in dataset.tasks:
            entry = entries.get(f"{name}|{item.task_id}")
            if entry and entry.get("fingerprint") == item.fingerprint():
                checked.append(item)
        if not checked:
            raise ReuseError(f"--generations-from {self.folder}: {why}, its data file {source} "
                             f"is gone, and {dataset.source} cannot be shown to be the same "
                             "(no matching fingerprint in its canonical.json)")
        self._dataset = Dataset(name=dataset.name, tasks=checked, source=dataset.source,
                                score_timeout_s=dataset.score_timeout_s)
        return self._dataset

    def origin(self, row: BenchRecord) -> tuple[str, str | None]:
        """(folder, commit) where ``row``'s answer was generated: DIR and its run.json's
        commit, or for a row DIR itself reused, the folder it came from."""
        if row.generated_in:
            return row.generated_in, row.generated_commit
        return str(self.folder), self.info.get("commit")


def reused_record(row: BenchRecord, *, dataset: str, score: Any, digest: str,
                  origin: tuple[str, str | None]) -> BenchRecord:
    """This dataset's record of DIR's ``row``: its code scored here (``score``, a
    :class:`~codeteam.bench.scoring.Score`), with the generation's status, notes, calls,
    tokens and seconds. Candidates keep their entries; their ``passed`` (a verdict on DIR's
    hidden tests) moves to ``passed_in_source`` (a row DIR itself reused keeps the verdict of
    the run that generated it), and the rest of that verdict (``kind``, ``hidden_passed``,
    ``hidden_total``) is unknown here (None): their code is not kept, so the summary's
    oracle counts such rows as unknown."""
    candidates = [{**c, "passed": None, "kind": None, "hidden_passed": None,
                   "hidden_total": None,
                   "passed_in_source": c.get("passed") if c.get("passed") is not None
                   else c.get("passed_in_source")}
                  for c in row.candidates]
    return BenchRecord(
        dataset=dataset, task_id=row.task_id, pipeline=row.pipeline, passed=score.passed,
        kind=score.kind, error_type=score.error_type, status=row.status, calls=row.calls,
        prompt_tokens=row.prompt_tokens, completion_tokens=row.completion_tokens,
        seconds=row.seconds, score_seconds=round(score.seconds, 3),
        tests_passed=score.tests_passed, tests_total=score.tests_total,
        tests_untrusted=score.tests_untrusted, code=row.code,
        notes=list(row.notes), detail=score.detail, candidates=candidates,
        public_digest=digest, generated_in=origin[0], generated_commit=origin[1],
    )
