"""workspace/executeCommand: ``codeteam.plan``, ``codeteam.generate``, ``codeteam.review``,
``codeteam.fix`` (one argument object, see :mod:`codeteam.editor.targets`) and
``codeteam.transcript`` (no arguments).

pygls 2.x passes the command's arguments unpacked; ``*arguments`` keeps them as sent.
"""

from __future__ import annotations

from typing import Any

from codeteam.editor.actions import ALL_ACTIONS, TRANSCRIPT_COMMAND, Action
from codeteam.editor.server import CodeteamServer
from codeteam.editor.transcript import render_markdown
from codeteam.editor.workflow import run_action


def transcript(ls: CodeteamServer) -> dict[str, str] | None:
    """The last run's transcript: ``{"markdown": ...}``, or None before any run finished."""
    if ls.last_run is None:
        return None
    return {"markdown": render_markdown(ls.last_run)}


def _register_action(server: CodeteamServer, action: Action) -> None:
    @server.command(action.command)
    async def execute(ls: CodeteamServer, *arguments: Any) -> dict:
        return await run_action(ls, action, arguments)


def register(server: CodeteamServer) -> None:
    for action in ALL_ACTIONS:
        _register_action(server, action)

    @server.command(TRANSCRIPT_COMMAND)
    def show_transcript(ls: CodeteamServer, *arguments: Any) -> dict[str, str] | None:
        return transcript(ls)
