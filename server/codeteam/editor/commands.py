"""workspace/executeCommand: ``codeteam.plan``, ``codeteam.generate``, ``codeteam.review``,
``codeteam.fix`` (one argument object, see :mod:`codeteam.editor.targets`) and
``codeteam.transcript`` (no arguments), ``codeteam.cancel`` (optional ``{"uri": str}``: cancel
the runs on that document, or every run; for clients with no cancel button, e.g. Helix's
``:lsp-workspace-command codeteam.cancel``).

pygls 2.x passes the command's arguments unpacked; ``*arguments`` keeps them as sent.
"""

from __future__ import annotations

from typing import Any

from codeteam.editor.actions import ALL_ACTIONS, CANCEL_COMMAND, TRANSCRIPT_COMMAND, Action
from codeteam.editor.server import CodeteamServer
from codeteam.editor.transcript import render_markdown
from codeteam.editor.workflow import run_action


def transcript(ls: CodeteamServer) -> dict[str, str] | None:
    """The last run's transcript: ``{"markdown": ...}``, or None before any run finished."""
    if ls.last_run is None:
        return None
    return {"markdown": render_markdown(ls.last_run)}


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

    @server.command(TRANSCRIPT_COMMAND)
    def show_transcript(ls: CodeteamServer, *arguments: Any) -> dict[str, str] | None:
        return transcript(ls)
