"""Per-task benchmark records and the ``results.jsonl`` file they are appended to.

One JSON object per line, written as each (task, pipeline) pair finishes, so an interrupted run
loses at most the pairs that were running; a rerun with the same ``--out`` skips the pairs
already recorded (resume). Each append rewrites the file atomically
(:func:`codeteam.atomic_write.write_atomic`): a kill or a full disk leaves the records before
it intact.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from codeteam.atomic_write import write_atomic
from codeteam.redaction import redact

FailureKind = Literal["no_code", "wrong_answer", "error", "timeout", "crash", "not_judged"]
"""Why a pair failed:

- ``no_code``: the pipeline gave no code (``Result.code`` is None);
- ``wrong_answer``: a hidden test's assertion or expected output failed;
- ``error``: the code raised (``error_type`` names the exception; a syntax or import error
  of the candidate counts here too);
- ``timeout``: the scoring run hit its wall-clock limit (an endless loop, or far too slow);
- ``crash``: the test process died without reporting (``os._exit``, a segfault, killed by a
  resource limit);
- ``not_judged``: no hidden test failed, but the judge could not decide some (a value that
  could not cross to the code, a machine too busy): not a pass, so the pair did not pass."""


class BenchRecord(BaseModel):
    """One pipeline run on one task, scored on the hidden tests.

    ``passed`` is True when every hidden test passed; ``kind`` (None when passed) and
    ``error_type`` say why not. ``status`` is the pipeline's own verdict (on public and AI
    tests), ``calls``/``prompt_tokens``/``completion_tokens`` its LLM usage, ``seconds`` its
    wall-clock time and ``score_seconds`` the scoring run's. ``tests_passed``/``tests_total``
    count hidden tests, ``tests_untrusted`` how many of them are "not judged" (the judge could
    not tell); ``detail`` describes the first failure. ``infra_error`` says why the run had no fair
    chance (every LLM call failed, or the pipeline raised): such pairs are run again on resume.
    ``candidates``: one entry per candidate the pipeline compared by execution (origin, seed,
    its public and AI tests, chosen or not) with its own verdict on the hidden tests (to
    measure the choice; the pipeline never sees it): ``passed``, ``kind`` (as above, None
    when passed) and ``hidden_passed`` of ``hidden_total`` tests; the summary's oracle
    pass@N counts a task when any of them (or the final code) passed.
    ``public_digest`` is :func:`codeteam.bench.reuse.public_digest` of the task's public part
    (None in rows written before it existed). ``generated_in`` is set when the code was not
    generated in this run but taken from another run's ``--out`` folder
    (``--generations-from``; ``generated_commit``: that run's codeteam commit, if recorded):
    then ``calls``, tokens and ``seconds`` are that generation's.
    """

    dataset: str
    task_id: str
    pipeline: str
    passed: bool
    kind: FailureKind | None = None
    error_type: str | None = None
    status: str
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    score_seconds: float = 0.0
    tests_passed: int = 0
    tests_total: int = 0
    tests_untrusted: int = 0
    code: str | None = None
    notes: list[str] = Field(default_factory=list)
    detail: str = ""
    infra_error: str | None = None
    candidates: list[dict] = Field(default_factory=list)
    public_digest: str | None = None
    generated_in: str | None = None
    generated_commit: str | None = None
    finished_at: str = Field(
        default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds")
    )

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def key(self) -> tuple[str, str]:
        return (self.task_id, self.pipeline)


class ResultsLog:
    """``results.jsonl`` in the output folder: :meth:`load` what is there, :meth:`append`
    new records. A line that does not parse (a write cut by a kill) is skipped."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.skipped_lines = 0

    def load(self) -> dict[tuple[str, str], BenchRecord]:
        """The last record of each (task_id, pipeline) pair in the file (empty if none)."""
        records: dict[tuple[str, str], BenchRecord] = {}
        self.skipped_lines = 0
        if not self.path.is_file():
            return records
        with self.path.open(encoding="utf-8") as handle:
            for line in handle:
                if not line.strip():
                    continue
                try:
                    record = BenchRecord.model_validate(json.loads(line))
                except (json.JSONDecodeError, ValidationError):
                    self.skipped_lines += 1
                    continue
                records[record.key] = record
        return records

    def append(self, record: BenchRecord) -> None:
        """Add ``record`` as one line, its texts redacted (:func:`codeteam.redaction.redact`:
        code the model wrote with the API key in it keeps ``**********`` there instead): the
        file is rewritten atomically with it (a file of a
        few MB at most: a record is a few kB), so it holds either every earlier record or
        every earlier record and this one. Raises
        :class:`~codeteam.atomic_write.AtomicWriteError` (the file unchanged)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            old = self.path.read_bytes()
        except FileNotFoundError:
            old = b""
        if old and not old.endswith(b"\n"):
            old += b"\n"  # a line cut by an older version's kill stays a line of its own
        line = json.dumps(_redacted(record.model_dump(mode="json")), ensure_ascii=False) + "\n"
        write_atomic(self.path, old + line.encode("utf-8"))


def _redacted(value):
    """``value`` (JSON data) with every text in it redacted."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {key: _redacted(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_redacted(item) for item in value]
    return value
