"""textDocument/codeAction: the three function actions, and "Fix with team" on codeteam's
diagnostics.

Any range inside a function means "this function" (Helix sends a one-character range): the
innermost function holding the range's first and last line. The answer needs no LLM, no
subprocess and, usually, no full parse (:mod:`codeteam.editor.enclosing`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lsprotocol import types

from codeteam.editor.actions import (
    DIAGNOSTIC_SOURCE,
    FIX,
    FUNCTION_ACTIONS,
    QUICKFIX_KIND,
    REWRITE_KIND,
    SUMMARY_CODE,
    Action,
)
from codeteam.editor.enclosing import FunctionRef
from codeteam.editor.server import CodeteamServer
from codeteam.editor.targets import CommandTarget

PYTHON_SUFFIXES = (".py", ".pyi", ".pyw")


def kind_allowed(kind: str, only: Sequence[Any] | None) -> bool:
    """Whether ``kind`` passes the client's ``context.only`` filter (a kind matches itself
    and its parents: ``refactor`` admits ``refactor.rewrite.codeteam``)."""
    if not only:
        return True
    for entry in only:
        wanted = str(getattr(entry, "value", entry))
        if wanted and (kind == wanted or kind.startswith(wanted + ".")):
            return True
    return False


def is_python(uri: str, language_id: str | None) -> bool:
    if language_id:
        return language_id.lower() == "python"
    return uri.lower().endswith(PYTHON_SUFFIXES)


def selected_lines(selection: types.Range) -> tuple[int, int]:
    """The first and last 0-based line a range covers (a range that ends at character 0 of a
    later line does not cover that line)."""
    first, last = selection.start.line, selection.end.line
    if last > first and selection.end.character == 0:
        last -= 1
    return min(first, last), max(first, last)


def target_for(uri: str, function: FunctionRef, position: types.Position) -> CommandTarget:
    return CommandTarget(
        uri=uri,
        line=position.line,
        character=position.character,
        qualname=function.qualname,
        signature=function.signature,
    )


def action_for(
    action: Action, target: CommandTarget, diagnostics: list[types.Diagnostic] | None = None
) -> types.CodeAction:
    return types.CodeAction(
        title=action.title,
        kind=action.kind,
        diagnostics=diagnostics,
        is_preferred=True if diagnostics else None,
        command=types.Command(
            title=action.title, command=action.command, arguments=[target.as_argument()]
        ),
    )


def code_actions(ls: CodeteamServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    """The code actions for ``params`` (see the module docstring)."""
    uri = params.text_document.uri
    document = ls.open_document(uri)
    if document is None or not is_python(uri, document.language_id):
        return []
    only = params.context.only
    actions: list[types.CodeAction] = []
    text, version = document.source, document.version

    if kind_allowed(REWRITE_KIND, only):
        first, last = selected_lines(params.range)
        function = ls.outline.function_at(uri, version, text, first, last)
        if function is not None:
            target = target_for(uri, function, params.range.start)
            actions += [action_for(action, target) for action in FUNCTION_ACTIONS]

    if kind_allowed(QUICKFIX_KIND, only):
        actions += _fix_actions(ls, uri, version, text, params.context.diagnostics)
    return actions


def _fix_actions(
    ls: CodeteamServer, uri: str, version: int | None, text: str,
    diagnostics: Sequence[types.Diagnostic],
) -> list[types.CodeAction]:
    """One "Fix with team" per function among codeteam's failing-test diagnostics."""
    by_function: dict[str, tuple[CommandTarget, list[types.Diagnostic]]] = {}
    for diagnostic in diagnostics:
        if diagnostic.source != DIAGNOSTIC_SOURCE or diagnostic.code == SUMMARY_CODE:
            continue
        line = diagnostic.range.start.line
        tracked = ls.diagnostics.at_line(uri, line)
        if tracked is not None:
            qualname, signature = tracked.qualname, tracked.signature
        else:
            function = ls.outline.function_at(uri, version, text, line)
            if function is None:
                continue
            qualname, signature = function.qualname, function.signature
        if qualname not in by_function:
            target = CommandTarget(
                uri=uri,
                line=line,
                character=diagnostic.range.start.character,
                qualname=qualname,
                signature=signature,
            )
            by_function[qualname] = (target, [])
        by_function[qualname][1].append(diagnostic)
    return [action_for(FIX, target, found) for target, found in by_function.values()]


def register(server: CodeteamServer) -> None:
    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[REWRITE_KIND, QUICKFIX_KIND]),
    )
    def on_code_action(
        ls: CodeteamServer, params: types.CodeActionParams
    ) -> list[types.CodeAction | types.Command] | None:
        actions = code_actions(ls, params)
        if not actions:
            return None
        if ls.capability("text_document.code_action.code_action_literal_support") is None:
            return [action.command for action in actions if action.command is not None]
        return list(actions)
