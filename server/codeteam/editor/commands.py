"""workspace/executeCommand: ``codeteam.plan``, ``codeteam.generate``, ``codeteam.review``,
``codeteam.fix`` (one argument object, see :mod:`codeteam.editor.targets`),
``codeteam.transcript`` (no argument: the latest run; or ``{"uri": str, "qualname": str?,
"position": {"line": int, "character": int}?}``: that function's latest run, see
:func:`transcript`), ``codeteam.cancel`` (optional ``{"uri": str}``: cancel the runs on that
document, or every run; for clients with no cancel button, e.g. Helix's
``:lsp-workspace-command codeteam.cancel``), ``codeteam.apply`` (no argument: the latest result
kept, not applied; ``{"result": id}``: the result of a preview, its change annotation's id;
``{"uri": str, "qualname": str?}``: that function's latest: applies it, see
:func:`~codeteam.editor.workflow.apply_kept`).

pygls 2.x passes the command's arguments unpacked; ``*arguments`` keeps them as sent.
"""

from __future__ import annotations

from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from codeteam.editor.actions import (
    ALL_ACTIONS,
    APPLY_COMMAND,
    CANCEL_COMMAND,
    TRANSCRIPT_COMMAND,
    Action,
)
from codeteam.editor.server import CodeteamServer
from codeteam.editor.transcript import render_markdown, render_with_kept
from codeteam.editor.workflow import apply_kept, kept_record, run_action

TRANSCRIPT_CONTRACT = (
    'no argument, or {"uri": str, "qualname": str?, "position": {"line": int, '
    '"character": int}?}'
)


def transcript(ls: CodeteamServer, arguments: tuple[Any, ...] = ()) -> dict[str, str] | None:
    """A run's transcript: ``{"markdown": ...}``, or None when there is no such run.

    With no argument (or ``null``/``{}``): the run that finished last, followed by the code of
    every other result kept because it could not be applied (each with the argument that
    shows its whole transcript). With ``{"uri", "qualname"}``: the latest run on that function;
    ``{"uri", "position"}`` (0-based line) names the function around that line instead;
    ``{"uri"}`` alone: the latest run on that document. Raises JsonRpcInvalidParams for any
    other argument.
    """
    raw = arguments[0] if len(arguments) == 1 else None
    if len(arguments) > 1 or (raw is not None and not isinstance(raw, dict)):
        raise JsonRpcInvalidParams(f"codeteam.transcript takes {TRANSCRIPT_CONTRACT}")
    if not raw:
        latest = ls.records.latest()
        if latest is None:
            return None
        return {"markdown": render_with_kept(latest, ls.records.kept())}
    uri, qualname, position = raw.get("uri"), raw.get("qualname"), raw.get("position")
    if not isinstance(uri, str) or not uri or (
        qualname is not None and (not isinstance(qualname, str) or not qualname)
    ):
        raise JsonRpcInvalidParams(f"codeteam.transcript takes {TRANSCRIPT_CONTRACT}")
    if qualname is None and position is not None:
        line = position.get("line") if isinstance(position, dict) else None
        if not isinstance(line, int) or isinstance(line, bool) or line < 0:
            raise JsonRpcInvalidParams(f"codeteam.transcript takes {TRANSCRIPT_CONTRACT}")
        document = ls.open_document(uri)
        function = (
            ls.outline.function_at(uri, document.version, document.source, line)
            if document is not None else None
        )
        if function is None:
            return None
        qualname = function.qualname
    record = ls.records.latest(uri, qualname)
    return {"markdown": render_markdown(record)} if record is not None else None


def cancel_runs(ls: CodeteamServer, arguments: tuple[Any, ...]) -> dict[str, Any]:
    """Cancel the runs in progress (on ``arguments[0]["uri"]`` when given). Nothing is applied
    after a cancel. Returns ``{"cancelled": [qualified names], "message": str}``."""
    uri = None
    if arguments and isinstance(arguments[0], dict):
        uri = arguments[0].get("uri")
    runs = [run for run in ls.runs if uri is None or run.uri == uri]
    for run in runs:
        run.cancel("cancelled with codeteam.cancel")
    names = [run.qualname for run in runs]
    message = (f"Cancelling {', '.join(names)}." if names else "No codeteam run in progress.")
    ls.show(message)
    return {"cancelled": names, "message": message}


def _register_action(server: CodeteamServer, action: Action) -> None:
    @server.command(action.command)
    async def execute(ls: CodeteamServer, *arguments: Any) -> dict:
        return await run_action(ls, action, arguments)


def register(server: CodeteamServer) -> None:
    for action in ALL_ACTIONS:
        _register_action(server, action)

    @server.command(CANCEL_COMMAND)
    def cancel(ls: CodeteamServer, *arguments: Any) -> dict[str, Any]:
        return cancel_runs(ls, arguments)

    @server.command(APPLY_COMMAND)
    async def apply(ls: CodeteamServer, *arguments: Any) -> dict:
        try:
            record = kept_record(ls, arguments)
        except ValueError as error:
            raise JsonRpcInvalidParams(str(error)) from error
        return await apply_kept(ls, record, ls.protocol.msg_id)

    @server.command(TRANSCRIPT_COMMAND)
    def show_transcript(ls: CodeteamServer, *arguments: Any) -> dict[str, str] | None:
        return transcript(ls, arguments)
