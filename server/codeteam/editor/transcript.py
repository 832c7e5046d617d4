"""Finished runs and their transcripts as Markdown (the ``codeteam.transcript`` command).

The server keeps the latest record per function (:class:`RunRecords`), so a result that could
not be applied ("kept") is not lost when another function's run finishes later.

Only formats what the pipeline recorded in its :class:`~codeteam.pipelines.result.Result`:
pipeline, status, plan, every role's messages (prompts and replies) in order, the test
results, notes, usage and the produced code (also when it could not be applied). No prompt
text is made here.
"""

from __future__ import annotations

import json
import re
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import unquote

from codeteam.redaction import redact

if TYPE_CHECKING:
    from codeteam.pipelines.result import Result
    from codeteam.pysource.functions import FunctionInfo


@dataclass
class RunRecord:
    """A finished run: which action on which function, its result, and what happened to it
    in the editor (``applied``: True/False for actions that edit, None for review;
    ``outcome``: the sentence shown to the user about applying or publishing)."""

    title: str
    uri: str
    qualname: str
    result: Result
    applied: bool | None
    outcome: str
    command: str = ""
    """The action's command (``codeteam.generate``, ...)."""
    info: FunctionInfo | None = None
    """The function as the run found it (its name and signature re-locate it)."""
    old_function: str = ""
    """The function's text when the run started (to tell the user it was edited since)."""
    id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    """This result's id: ``codeteam.apply`` takes ``{"result": id}``."""
    refused: str = ""
    """Why the service refused to write this code at all (it holds the API key, ...): such a
    result is never applied, ``codeteam.apply`` included, nor its code shown."""

    @property
    def kept(self) -> bool:
        """True when the run produced code that was not applied (it lives only here)."""
        return self.applied is False and self.result.code is not None and not self.refused


class RunRecords:
    """The latest :class:`RunRecord` per function (``uri``, ``qualname``), oldest first; at
    most ``limit`` functions are remembered (the least recently finished are dropped)."""

    def __init__(self, limit: int = 100) -> None:
        self._records: OrderedDict[tuple[str, str], RunRecord] = OrderedDict()
        self._limit = limit

    def __len__(self) -> int:
        return len(self._records)

    def put(self, record: RunRecord) -> None:
        """Remember ``record`` as its function's latest (replacing an earlier one)."""
        key = (record.uri, record.qualname)
        self._records.pop(key, None)
        self._records[key] = record
        while len(self._records) > self._limit:
            self._records.popitem(last=False)

    def latest(self, uri: str | None = None, qualname: str | None = None) -> RunRecord | None:
        """The most recent record (on ``uri`` and for ``qualname`` when given), or None."""
        for record in reversed(self._records.values()):
            if (uri is None or unquote(record.uri) == unquote(uri)) and (
                qualname is None or record.qualname == qualname
            ):
                return record
        return None

    def by_id(self, result_id: str) -> RunRecord | None:
        """The record whose result has ``result_id`` (None: unknown, or replaced by a later
        run on the same function)."""
        return next((r for r in self._records.values() if r.id == result_id), None)

    def kept(self) -> list[RunRecord]:
        """The records whose code was not applied, most recent first."""
        return [record for record in reversed(self._records.values()) if record.kept]


def _fence(text: str, language: str = "") -> str:
    """``text`` in a code fence longer than any backtick run inside it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    body = text if text.endswith("\n") else text + "\n"
    return f"{fence}{language}\n{body}{fence}"


def render_markdown(record: RunRecord) -> str:
    """The Markdown transcript of ``record`` (secrets and URL userinfo masked)."""
    return redact(_render_markdown(record))


def _render_markdown(record: RunRecord) -> str:
    result = record.result
    out: list[str] = [f"# codeteam: {record.title} — `{record.qualname}`", ""]
    out.append(f"- document: {record.uri}")
    out.append(f"- pipeline: {result.pipeline}")
    out.append(f"- status: **{result.status}**")
    if record.applied is not None:
        out.append(f"- applied: {'yes' if record.applied else 'no'}")
    if record.outcome:
        out.append(f"- outcome: {record.outcome}")
    out.append(f"- rounds: {result.rounds}; time: {result.seconds:.1f} s")
    out.append(f"- cost: {result.cost_line()}")
    out.append("")

    if result.plan:
        out += ["## Plan", ""]
        out += [f"{i}. {step}" for i, step in enumerate(result.plan, 1)]
        out.append("")

    out += ["## Messages", ""]
    if not result.transcript:
        out += ["(no messages)", ""]
    for number, entry in enumerate(result.transcript, 1):
        out.append(f"### {number}. {entry.role}: {entry.stage}")
        out.append("")
        if entry.kind == "event":
            out += [_fence(entry.reply or "(empty)"), ""]
            continue
        if entry.prompt:
            out += [f"prompt file: `{entry.prompt}`", ""]
        for message in entry.messages:
            out += [f"**{message.role}**", "", _fence(message.content), ""]
        if entry.error:
            out += [f"**error**: {entry.error}", ""]
        else:
            out += ["**reply**", "", _fence(entry.reply), ""]
        usage = entry.usage
        out.append(
            f"_{usage.calls} call(s), {usage.prompt_tokens} prompt + "
            f"{usage.completion_tokens} completion tokens, {usage.seconds:.2f} s_"
        )
        out.append("")

    out += ["## Tests", ""]
    if not result.reports:
        out += ["No tests were run.", ""]
    for report in result.reports:
        out += [f"### Round {report.round}: {report.verdict}", ""]
        tests = {test.id: test for test in report.tests}
        if report.run is not None and report.run.outcomes:
            out += ["| test | origin | status | expected | actual |", "|---|---|---|---|---|"]
            for outcome in report.run.outcomes:
                test = tests.get(outcome.test_id)
                described = test.describe() if test else outcome.test_id
                origin = test.origin if test else ""
                out.append(
                    f"| {_cell(described)} | {origin} | {outcome.verdict} | "
                    f"{_cell(outcome.expected)} | {_cell(outcome.actual)} |"
                )
            out.append("")
        out += [_fence(report.summary), ""]

    out += ["## Notes", ""]
    out += [f"- {note}" for note in result.notes] or ["(none)"]
    out.append("")

    out += ["## Usage", "", f"- total: {result.cost_line()}"]
    for role, usage in result.usage.by_role.items():
        out.append(
            f"- {role}: {usage.calls} call(s), {usage.prompt_tokens} + "
            f"{usage.completion_tokens} tokens, {usage.seconds:.1f} s"
        )
    for model, usage in result.usage.by_model.items():
        out.append(f"- model {model}: {usage.calls} call(s), {usage.prompt_tokens} + "
                   f"{usage.completion_tokens} tokens")
    out.append("")

    out += ["## Code", ""]
    if result.code is None:
        out += ["(no code was produced)", ""]
    else:
        out += [_fence(result.code, "python"), ""]
    return "\n".join(out)


def render_with_kept(record: RunRecord, others: list[RunRecord]) -> str:
    """The Markdown transcript of ``record``, followed by the code of ``others`` (results kept
    because they could not be applied) and the argument that shows each one's transcript."""
    text = render_markdown(record)
    others = [other for other in others if other is not record and other.result.code]
    if not others:
        return text
    out = [text.rstrip("\n"), "", "# Other results kept (not applied)", ""]
    for other in others:
        argument = json.dumps({"uri": other.uri, "qualname": other.qualname})
        out += [f"## {other.title} — `{other.qualname}`", ""]
        out.append(f"- document: {other.uri}")
        out.append(f"- status: **{other.result.status}**")
        if other.outcome:
            out.append(f"- outcome: {other.outcome}")
        out.append(f"- whole transcript: `codeteam.transcript` with `{argument}`")
        out += ["", _fence(other.result.code or "", "python"), ""]
    return redact("\n".join(out))


def _cell(value: str | None) -> str:
    if value is None:
        return ""
    text = " ".join(str(value).split())
    if len(text) > 80:
        text = text[:79] + "…"
    return text.replace("|", "\\|")
