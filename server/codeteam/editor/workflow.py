"""What a command does: find the function, run the pipeline as a cancellable task with
progress, then apply the code (plan, generate, fix) or publish the review's diagnostics.

Applying re-locates the function in the document's *current* text by qualified name and
signature (the user may have typed while the team worked), in its own part of the module when
another function is half-typed; a function that is gone, renamed or ambiguous, or code that
does not parse, is not applied and the result stays available (``codeteam.transcript``, kept
per function). Applies to one document take turns. After ``workspace/applyEdit`` the server
checks that its own copy of the document passed through the planned text or holds the new
function: some clients (Neovim 0.7.2) answer applied=true for edits they skipped.

How the edit is offered is :func:`codeteam.editor.preview.edit_mode`'s (setting ``preview``):
as a preview the user accepts or discards (a change annotation that needs confirmation, where
the client supports them), applied at once, or kept (code that did not pass, where no preview
can be shown: never applied without the user's consent). A discarded preview is kept;
``codeteam.apply`` (:func:`apply_kept`) applies a kept result later.

The wait for the editor's answer to ``workspace/applyEdit`` is bounded (setting
``apply_timeout_s``, 30 s by default; a preview: the user's decision, up to
:data:`~codeteam.editor.preview.PREVIEW_WAIT_S`) and cancellable like the rest of the run (the apply runs
as the run's task): either way the document's apply lock is released and the result kept. A
client whose capabilities do not include ``workspace.applyEdit`` gets no edit: the message
carries the new code instead (and the transcript keeps it).

The run itself is the service's (:func:`codeteam.service.runs.run`): before the first model
call, a run whose result depends on tests checks that the sandbox can run them; when it cannot,
no call is made. A run whose first model call could not connect stops there with one message
naming the endpoint (the LLM client makes no further request).

Every outcome returns ``{"status", "message", "applied"}`` (a finished run also ``"cost"``:
calls, tokens, seconds, money, see :func:`cost_answer`) and is shown with window/showMessage;
no exception escapes to pygls.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.uris import to_fs_path

from codeteam.editor.actions import Action
from codeteam.editor.active_runs import Run
from codeteam.editor.diagnostics import (
    FunctionDiagnostics,
    review_problems,
    shown_sentence,
    unapplied_problems,
)
from codeteam.editor.document_watch import Expectation
from codeteam.editor.edits import text_edit, workspace_edit
from codeteam.editor.positions import split_lines
from codeteam.editor.preview import PREVIEW_WAIT_S, Preview, edit_mode, preview_for
from codeteam.editor.progress import RunProgress
from codeteam.editor.replacement import (
    Replacement,
    ReplacementError,
    check_replacement,
    locate_and_plan,
)
from codeteam.editor.targets import CommandArgumentError, parse_target
from codeteam.editor.transcript import RunRecord
from codeteam.pysource.functions import (
    AmbiguousFunction,
    FunctionInfo,
    FunctionNotFound,
    SourceError,
    function_text,
)
from codeteam.pysource.tolerant import ParseableModule
from codeteam.service.locate import TargetError, locate_target

if TYPE_CHECKING:
    from codeteam.editor.server import CodeteamServer
    from codeteam.pipelines.result import Result
    from codeteam.service.write_policy import WriteDecision

log = logging.getLogger(__name__)

APPLY_CHECK_S = 2.0
"""Seconds to wait for the client's didChange after it answered workspace/applyEdit."""

APPLY_ATTEMPTS = 3
"""How many times an edit refused for a stale version is made again on the current text."""

KEPT = 'The result is kept: run "codeteam: Show transcript" (codeteam.transcript).'
APPLY_KEPT = (
    "The result is kept: codeteam.apply applies it (VS Code: \"codeteam: Apply the kept "
    "result\"; Neovim: :CodeteamAccept; Helix: :lsp-workspace-command codeteam.apply), "
    "codeteam.transcript shows it."
)

_SHOWN_NOTES: set[str] = set()
"""Project notes (the python setting unusable, no pytest in the interpreter) already shown:
each is shown once per server."""


class RunFailed(Exception):
    """The run could not start (model missing, endpoint refused); the message is for the user."""


async def run_action(ls: CodeteamServer, action: Action, arguments: Sequence[Any]) -> dict:
    """Execute ``action`` for the command ``arguments``. Returns the command's answer."""
    request_id = ls.protocol.msg_id
    try:
        target = parse_target(arguments)
    except CommandArgumentError as error:
        return _failed(ls, f"{action.title}: {error}")
    document = ls.open_document(target.uri)
    if document is None:
        return _failed(ls, f"{action.title}: {target.uri} is not open in the editor")
    text = document.source
    try:
        # Code elsewhere in the module that does not parse (being typed) is left out of the
        # run: the target is found, and the task built, in the rest (same line numbers).
        # In the parse worker: a whole-module ast.parse holds the GIL (editor/parsing.py).
        readable, info = await ls.parser.run(
            locate_target, text, target.qualname, signature=target.signature, line=target.line)
    except TargetError as error:
        return _failed(ls, f"{action.title}: {error}")

    run = ls.runs.start(target.uri, info.qualname, action, request_id)
    if run is None:
        busy = ls.runs.get(target.uri, info.qualname)
        doing = f"{busy.action.title}: {busy.stage}" if busy else "another run"
        message = (
            f"codeteam is already working on {info.qualname} ({doing}); wait for it or "
            "cancel it before starting another run on this function."
        )
        ls.show_run_message(message, types.MessageType.Warning)
        return {"status": "busy", "message": message, "applied": False}
    try:
        return await _execute(ls, run, text, readable, info)
    finally:
        ls.runs.finish(run)


async def _execute(
    ls: CodeteamServer, run: Run, text: str, readable: ParseableModule, info: FunctionInfo
) -> dict:
    action = run.action
    if run.request_id is not None and run.request_id in ls.protocol.cancelled_request_ids:
        run.cancel("the request was cancelled")
    progress = RunProgress(ls, action.progress_title, lambda: run.cancel("cancelled in the editor"))
    await progress.begin(f"{info.qualname}: starting")

    def on_stage(stage: str) -> None:
        run.stage = stage
        progress.report(stage)

    ls.log_info(f"{action.title} on {info.qualname} ({run.uri}) started")
    run.task = asyncio.create_task(_produce(ls, run, readable, info, on_stage))
    if run.cancelled:
        run.task.cancel()
    try:
        result, decision = await run.task
    except asyncio.CancelledError:
        if not run.cancelled:  # this handler itself is being cancelled
            run.cancel("the command was cancelled")
            progress.end("cancelled")
            raise
        progress.end("cancelled")
        return _cancelled(ls, run)
    except RunFailed as error:
        progress.end("failed")
        return _failed(ls, f"{action.title} on {info.qualname}: {error}")
    except Exception as error:  # a failure in a lower layer: tell the user, keep serving
        log.exception("%s on %s failed", action.title, info.qualname)
        progress.end("failed")
        return _failed(
            ls, f"{action.title} on {info.qualname} failed: {type(error).__name__}: {error}"
        )
    if run.cancelled:
        progress.end("cancelled")
        return _cancelled(ls, run)

    record = RunRecord(
        title=action.title, uri=run.uri, qualname=info.qualname, result=result,
        applied=False if action.applies_code else None, outcome="", command=action.command,
        info=info, old_function=function_text(text, info),
    )
    ls.records.put(record)  # the result stays available whatever happens next
    run.record_id = record.id
    mode, why = ("apply", "") if decision is None else edit_mode(
        decision, preview=ls.settings.preview, client_previews=ls.shows_previews
    )
    preview = (preview_for(record.id, action.title, info.qualname, result)
               if mode == "preview" else None)
    try:
        if action.applies_code and mode == "keep":
            if decision is not None and decision.action == "confirm":
                # Code that did not pass and is not applied: its failures are still shown.
                progress.report("publishing diagnostics")
                shown = await publish_review(ls, run, text, info, result, unapplied=True)
                why = f"{why}. {shown.rstrip('.')}" if shown else why
            if decision is not None and decision.action == "refuse":
                # Never applied, codeteam.apply included, and the code is not echoed.
                record.refused = decision.reason
                applied, outcome = False, f"Not applied: {why}."
            else:
                applied, outcome = False, _kept_outcome(why, result.code)
        elif action.applies_code:
            progress.report("waiting for you to accept or discard the preview" if preview
                            else "applying the result")
            # The run's task again, so that every cancel reaches the wait for the editor.
            run.task = asyncio.create_task(
                apply_result(ls, run, record.old_function, info, result, preview=preview)
            )
            if run.cancelled:
                run.task.cancel()
            try:
                applied, outcome = await run.task
            except asyncio.CancelledError:
                if not run.cancelled:  # this handler itself is being cancelled
                    run.cancel("the command was cancelled")
                    progress.end("cancelled")
                    raise
                record.outcome = f"Cancelled while the edit was being applied. {KEPT}"
                progress.end("cancelled")
                return _cancelled(ls, run, while_applying=True)
        else:
            progress.report("publishing diagnostics")
            applied, outcome = None, await publish_review(ls, run, text, info, result)
    except Exception as error:
        log.exception("%s on %s: applying the result failed", action.title, info.qualname)
        applied = False if action.applies_code else None
        outcome = f"The result could not be used ({type(error).__name__}: {error}). {KEPT}"
    record.applied, record.outcome = applied, outcome
    message = "\n".join(
        [f"{action.title} · {info.qualname}: {result.verdict_line()}", outcome,
         f"cost: {result.cost_line()}"]
        + [f"note: {note}" for note in result.notes]
    )
    progress.end(result.summary())
    ls.log_info(f"{action.title} on {info.qualname} finished: {result.summary()}; {outcome}")
    if result.status == "error":
        kind = types.MessageType.Error
    elif result.status in ("failed", "not judged") or (applied is False and preview is None):
        kind = types.MessageType.Warning
    else:  # applied, reported, or a preview the user discarded (or has yet to decide on)
        kind = types.MessageType.Info
    ls.show_run_message(message, kind)
    return {"status": result.status, "message": message, "applied": bool(applied),
            "cost": cost_answer(result)}


def cost_answer(result: Result) -> dict[str, Any]:
    """The ``cost`` of a command's answer: calls, prompt and completion tokens, seconds, USD
    (None without prices), the models without a price, and ``text``, the one line shown."""
    cost = result.cost or result.usage.cost(result.seconds)
    return {**cost.model_dump(mode="json"), "text": cost.line()}


def _kept_outcome(why: str, code: str | None) -> str:
    """The outcome of code that is kept, not applied, for ``why``: the code itself (to read
    or paste) and how to apply it."""
    if code is None:
        return f"Not applied: {why}. {KEPT}"
    return f"Not applied: {why}. The new code:\n{_fenced(code)}\n{APPLY_KEPT}"


async def _produce(
    ls: CodeteamServer,
    run: Run,
    readable: ParseableModule,
    info: FunctionInfo,
    on_stage: Callable[[str], None],
) -> tuple[Result, WriteDecision | None]:
    """Run the action through the service on ``readable`` (the module as the run saw it,
    without the code that does not parse): the cancellable part of a run. Returns the result
    and, for an action that applies code, whether it may be applied
    (:func:`codeteam.service.write_policy.write_decision`: never code holding the API key;
    code that did not pass only with the user's consent)."""
    from codeteam.service import runs as service
    from codeteam.service.write_policy import write_decision

    path = to_fs_path(run.uri) if run.uri.startswith("file:") else None
    request = service.RunRequest(
        text=readable.text,
        settings=ls.settings,
        pipeline=run.action.pipeline,
        info=info,
        readable=readable,
        path=Path(path) if path else None,
        workspace_root=ls.workspace_root_for(run.uri) if path else None,
        # The workspace folder holding the file is its project root; else it is found.
        project_root=ls.workspace_root_for(run.uri, fallback=False) if path else None,
        # In the parse worker: a whole-module ast.parse holds the GIL (editor/parsing.py).
        offload=ls.parser.run,
    )

    def on_note(note: str) -> None:
        if note not in _SHOWN_NOTES:  # an unusable python setting, no pytest: said once
            _SHOWN_NOTES.add(note)
            ls.show(f"codeteam: {note}", types.MessageType.Warning)

    try:
        outcome = await service.run(request, ls.llm, progress=on_stage, on_note=on_note)
    except service.ServiceError as error:  # Untestable, ModelUnavailable, ModelFailed, ...
        raise RunFailed(str(error)) from error
    if not run.action.applies_code or outcome.result.code is None:
        return outcome.result, None
    return outcome.result, await write_decision(outcome, ls.settings)


async def _current_location(
    ls: CodeteamServer, uri: str, info: FunctionInfo, code: str | None = None
) -> tuple[Any, str, int, FunctionInfo, Replacement | None]:
    """The open document, its text and version, the function re-located in that text by
    qualified name and signature (in its own part of the module when another part does not
    parse), and with ``code`` its :class:`Replacement` (None when the code is unchanged).

    The work is done in the parse worker (off the event loop and its GIL) on one version of
    the text, and done again when the document changed meanwhile. Raises LookupError (gone, renamed, ambiguous, closed, or the
    document kept changing), SourceError, or ReplacementError (the new code does not parse).
    """

    for _ in range(5):
        document = ls.open_document(uri)
        if document is None:
            raise LookupError(f"{uri} was closed")
        current, version = document.source, document.version
        try:
            located, replacement = await ls.parser.run(
                locate_and_plan, current, info.qualname, info.signature, code
            )
        except Exception:
            if _unchanged(ls, uri, document, version, current):
                raise
            continue  # computed on a text that is gone: again, on the new one
        if _unchanged(ls, uri, document, version, current):
            return document, current, version, located, replacement
    raise LookupError("the document kept changing")


def _unchanged(ls: CodeteamServer, uri: str, document: Any, version: int, text: str) -> bool:
    latest = ls.open_document(uri)
    return latest is document and latest.version == version and latest.source == text


async def apply_result(
    ls: CodeteamServer,
    run: Run,
    old_function: str,
    info: FunctionInfo,
    result: Result,
    *,
    preview: Preview | None = None,
) -> tuple[bool, str]:
    """Replace the function with ``result.code`` in the current document. Returns (applied,
    a sentence for the user). ``old_function`` is the function's text when the run started
    (to say that it was edited since). With ``preview`` the edit carries its change
    annotation (:mod:`codeteam.editor.preview`): the user accepts or discards it, for up to
    :data:`~codeteam.editor.preview.PREVIEW_WAIT_S` seconds; a discarded one is kept, not
    made again.

    Applies are serialised per document (:attr:`CodeteamServer.apply_locks`): from locating
    the function to seeing the client's didChange with the edit, no other run edits the
    document, so no edit is computed on text another edit is about to change. Code that does
    not parse, or would not parse in its place, is not applied. An edit the editor refuses
    because the user typed meanwhile (its version is stale) is made again on the new text, up
    to :data:`APPLY_ATTEMPTS` times."""
    if result.code is None:
        return False, run.action.nothing_produced
    if not ls.capability("workspace.apply_edit", False):
        return False, _code_instead_of_edit(result.code)
    async with ls.apply_locks.hold(run.uri):
        return await _apply_locked(ls, run, old_function, info, result.code, preview)


async def _apply_locked(
    ls: CodeteamServer, run: Run, old_function: str, info: FunctionInfo, code: str,
    preview: Preview | None,
) -> tuple[bool, str]:
    document_changes = bool(ls.capability("workspace.workspace_edit.document_changes", False))
    attempt = 0
    while True:
        attempt += 1
        if run.cancelled:
            return False, "Cancelled; nothing was changed."
        try:
            document, current, version, located, replacement = await _current_location(
                ls, run.uri, info, code
            )
        except (
            FunctionNotFound, AmbiguousFunction, SourceError, LookupError, ReplacementError
        ) as error:
            return False, f"Not applied: {error}. {KEPT}"
        if replacement is None:
            return False, "The code is unchanged; nothing to apply."
        if run.cancelled:
            return False, "Cancelled; nothing was changed."
        edited_meanwhile = function_text(current, located) != old_function
        edit = text_edit(replacement, ls.document_lines(document), ls.position_encoding)
        annotation = (preview.id, preview.annotation()) if preview is not None else None
        with ls.watch.expect(run.uri, replacement.new_text) as landed:
            timeout_s = PREVIEW_WAIT_S if preview is not None else ls.settings.apply_timeout_s
            try:
                # Shielded: a timeout or cancel stops only our wait, so that a late answer
                # still finds its request (pygls fails on an answer to a cancelled one).
                answer = await asyncio.wait_for(
                    asyncio.shield(ls.workspace_apply_edit_async(
                        types.ApplyWorkspaceEditParams(
                            edit=workspace_edit(
                                run.uri, version, edit, document_changes=document_changes,
                                annotation=annotation,
                            ),
                            label=preview.label if preview else f"codeteam: {run.action.title}",
                        )
                    )),
                    timeout_s,
                )
            except TimeoutError:
                log.warning("no answer to workspace/applyEdit within %s s", timeout_s)
                return False, (
                    f"The editor did not answer the edit (workspace/applyEdit) within "
                    f"{timeout_s:g} s; codeteam stopped waiting (the editor may still apply "
                    f"it). {KEPT}"
                )
            except Exception as error:  # noqa: BLE001 - an error answer from the client
                return False, f"The editor could not apply the edit ({error}). {KEPT}"
            if answer.applied:
                state = await _settled(ls, run.uri, replacement, landed)
                return _applied_outcome(state, edited_meanwhile)
        if preview is not None and not (attempt < APPLY_ATTEMPTS and document_changes
                                        and await _newer_version(ls, run.uri, version)):
            # The user saw it and discarded it (or decides later): kept, not made again. (A
            # preview refused for a version the server has yet to hear of -- the editor's
            # didChange of an earlier edit on its way -- is made again on the new text.)
            reason = answer.failure_reason or "the preview was discarded"
            return False, f"Not applied: {reason}. {APPLY_KEPT}"
        if attempt < APPLY_ATTEMPTS and document_changes and await _newer_version(
            ls, run.uri, version
        ):
            log.info("the edit was refused for a stale version %s; trying again", version)
            continue
        reason = answer.failure_reason or "no reason given"
        return False, f"The editor did not apply the edit ({reason}). {KEPT}"


def _code_instead_of_edit(code: str) -> str:
    """The outcome for a client that cannot apply edits: the new code, to paste."""
    return (
        "Not applied: this editor does not support edits from the server "
        "(workspace/applyEdit). The new code, to paste in place of the function:\n"
        f"{_fenced(code)}\n{KEPT}"
    )


def _fenced(code: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", code)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}python\n{code.rstrip()}\n{fence}"


def _applied_outcome(state: str, edited_meanwhile: bool) -> tuple[bool, str]:
    """(applied, a sentence for the user) for an edit the editor said it applied, by what the
    document shows (``state``, see :func:`_settled`)."""
    if state == "misplaced":
        return False, (
            "The editor applied the edit to out-of-date lines (you typed while it "
            "arrived): the file is now wrong there. Undo once to restore it, then run the "
            f"action again. {KEPT}"
        )
    if state != "applied":
        return False, (
            "The editor answered that it applied the edit, but the document does not contain "
            f"the new function (a stale edit?). {KEPT}"
        )
    if edited_meanwhile:
        return True, (
            "Applied. The function had been edited while the team worked: those edits were "
            "replaced (undo restores them)."
        )
    return True, "Applied."


async def _settled(
    ls: CodeteamServer, uri: str, replacement: Replacement, landed: Expectation
) -> str:
    """After the client answered applied=true: "applied" once the server's copy of the
    document passed through exactly the planned text (later typing does not matter), else,
    when it did not within :data:`APPLY_CHECK_S` seconds, what the document holds now:
    "applied" (the new function where it belongs), "missing" or "misplaced" (see
    :func:`check_replacement`; in the parse worker: it parses the module)."""
    if await ls.watch.wait_for(uri, lambda: landed.reached, APPLY_CHECK_S):
        return "applied"
    now = ls.open_document(uri)
    if now is None:
        return "missing"
    return await ls.parser.run(check_replacement, now.source, replacement)


async def _newer_version(ls: CodeteamServer, uri: str, version: int) -> bool:
    """Whether the server sees (or, within :data:`APPLY_CHECK_S` seconds, receives) a version
    of ``uri`` newer than ``version``: a refused versioned edit is worth making again then."""

    def newer() -> bool:
        latest = ls.open_document(uri)
        return latest is not None and latest.version != version

    return await ls.watch.wait_for(uri, newer, APPLY_CHECK_S)


async def publish_review(
    ls: CodeteamServer, run: Run, original: str, info: FunctionInfo, result: Result,
    *, unapplied: bool = False,
) -> str:
    """Publish the review's diagnostics on the function as it is now (``unapplied``: the
    failures of new code that was not applied, :func:`unapplied_problems`). Returns a
    sentence for the user."""
    try:
        async with ls.apply_locks.hold(run.uri):  # not while an edit is landing
            _, current, _, located, _ = await _current_location(ls, run.uri, info)
    except (LookupError, SourceError) as error:  # gone, renamed, ambiguous, closed
        return f"No diagnostics: {error}."
    now = function_text(current, located)
    if now != function_text(original, info):
        return "The function changed during the review; no diagnostics (review it again)."
    lines = split_lines(now)
    problems = (unapplied_problems if unapplied else review_problems)(
        result,
        stub_start_line=info.start_line,
        def_offset=located.def_line - located.start_line,
        function_lines=len(lines),
    )
    ls.diagnostics.put(
        run.uri,
        FunctionDiagnostics(
            qualname=located.qualname,
            signature=located.signature,
            start_line=located.start_line,
            lines=lines,
            problems=problems,
        ),
    )
    ls.publish_diagnostics(run.uri)
    return shown_sentence(problems, result, located.qualname, unapplied=unapplied)


APPLY_CONTRACT = 'no argument, {"result": id}, or {"uri": str, "qualname": str?}'


def kept_record(ls: CodeteamServer, arguments: Sequence[Any]) -> RunRecord | None:
    """The record ``codeteam.apply`` names: with no argument the latest result kept (not
    applied), with ``{"result": id}`` that result (the id of a preview's change annotation
    after :data:`~codeteam.editor.preview.ANNOTATION_PREFIX`), with ``{"uri", "qualname"?}``
    the latest run on that function (or document). None when there is none. Raises
    ValueError for any other argument."""
    raw = arguments[0] if len(arguments) == 1 else None
    if len(arguments) > 1 or (raw is not None and not isinstance(raw, dict)):
        raise ValueError(f"codeteam.apply takes {APPLY_CONTRACT}")
    if not raw:
        kept = ls.records.kept()
        return kept[0] if kept else None
    result_id, uri, qualname = raw.get("result"), raw.get("uri"), raw.get("qualname")
    if isinstance(result_id, str) and result_id:
        return ls.records.by_id(result_id.removeprefix("codeteam:"))
    if isinstance(uri, str) and uri and (qualname is None or isinstance(qualname, str)):
        return ls.records.latest(uri, qualname or None)
    raise ValueError(f"codeteam.apply takes {APPLY_CONTRACT}")


async def apply_kept(ls: CodeteamServer, record: RunRecord | None, request_id: Any) -> dict:
    """Apply a kept result (``codeteam.apply``: the user's accept after a preview in Neovim,
    or the consent to code that was kept): re-located in the current text like any edit,
    without a preview (the user asked for it). Returns ``{"status", "message", "applied"}``."""
    from codeteam.editor.actions import BY_COMMAND

    if record is None or record.result.code is None or record.info is None:
        return _failed(ls, "codeteam.apply: no kept result to apply (it may have been replaced "
                       "by a later run on the same function)")
    busy = ls.runs.get(record.uri, record.qualname)
    if busy is not None and busy.record_id == record.id:
        # The run that made this result is ending (Neovim's preview answered at once; the
        # run then waits up to APPLY_CHECK_S s for the editor's didChange): the user's accept
        # waits for that end rather than being refused; what that run decided (applied,
        # refused) is read below.
        try:
            await asyncio.wait_for(busy.done.wait(), ls.settings.apply_timeout_s)
        except TimeoutError:
            pass
    if record.refused:
        return _failed(ls, f"codeteam.apply: {record.title} · {record.qualname} is never "
                       f"applied: {record.refused}")
    if record.applied:
        message = f"{record.title} · {record.qualname}: already applied."
        ls.show_run_message(message, types.MessageType.Info)
        return {"status": record.result.status, "message": message, "applied": False}
    action = BY_COMMAND.get(record.command)
    if action is None or not action.applies_code:
        return _failed(ls, f"codeteam.apply: {record.title} results cannot be applied")
    run = ls.runs.start(record.uri, record.qualname, action, request_id)
    if run is None:
        message = (f"codeteam is working on {record.qualname}; wait for it or cancel it "
                   "before applying a kept result.")
        ls.show_run_message(message, types.MessageType.Warning)
        return {"status": "busy", "message": message, "applied": False}
    try:
        run.task = asyncio.create_task(
            apply_result(ls, run, record.old_function, record.info, record.result)
        )
        try:
            applied, outcome = await run.task
        except asyncio.CancelledError:
            if not run.cancelled:
                raise
            return _cancelled(ls, run, while_applying=True)
    finally:
        ls.runs.finish(run)
    record.applied, record.outcome = applied, outcome
    message = f"{record.title} · {record.qualname}: {outcome}"
    ls.show_run_message(message, types.MessageType.Info if applied else types.MessageType.Warning)
    return {"status": record.result.status, "message": message, "applied": applied}


def _failed(ls: CodeteamServer, message: str) -> dict:
    ls.show_run_message(message, types.MessageType.Error)
    return {"status": "error", "message": message, "applied": False}


def _cancelled(ls: CodeteamServer, run: Run, *, while_applying: bool = False) -> dict:
    if while_applying:
        message = (
            f"{run.action.title} on {run.qualname} was cancelled while waiting for the editor "
            f"to apply the edit; codeteam stopped waiting (the editor may still apply it). "
            f"{KEPT}"
        )
    else:
        message = f"{run.action.title} on {run.qualname} was cancelled; nothing was changed."
    ls.show_run_message(message, types.MessageType.Info)
    return {"status": "cancelled", "message": message, "applied": False}
