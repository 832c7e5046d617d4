"""A test editor around pytest-lsp's client: it holds its own copy of each open document,
answers ``workspace/applyEdit`` like a real client (applies the edit to its copy, sends
didChange, answers applied) and records the server's raw JSON replies.

Position conversion here is written independently of the server's, so that the tests check
the server's encoding arithmetic instead of repeating it.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import LanguageClient, LanguageClientProtocol, client_capabilities
from pytest_lsp.client import register_lsp_features

from waiting import until

CLIENTS = {
    "vscode": "visual-studio-code@v1.65.2",
    "neovim": "neovim@v0.7.0",
}
"""pytest-lsp's capability files: VS Code advertises workspace.configuration and versioned
documentChanges; Neovim 0.7 advertises neither, nor any position encoding."""

SERVER_COMMAND = [sys.executable, "-m", "codeteam", "serve"]
CANCEL = "codeteam.cancel"

# Prompt routing: each role's prompt file has a distinctive sentence.
ANALYST = r"You are the analyst"
PLANNER = r"You write short plans"
CODER = r"(?:You write correct, simple Python|You complete Python functions)"
"""The coder's first draft: the plan pipeline's prompt, or the direct prompt (team's and
flow's first answer is the one direct gives)."""
WRITE = CODER + r".*(?:Write the body of this function|Complete this function):\n```python\ndef "
"""The coder's first draft of one function: ``WRITE + "name"``."""
REVISE = r"The tester ran your code"
TESTER = r"You are the tester"

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")
_ids = itertools.count(1)


def server_env(**settings: Any) -> dict[str, str]:
    """The server's environment: ours without any CODETEAM_* or OPENAI_API_KEY, plus
    ``CODETEAM_<KEY>`` for each of ``settings``."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("CODETEAM_") and key != "OPENAI_API_KEY"
    }
    for key, value in settings.items():
        env[f"CODETEAM_{key.upper()}"] = str(value)
    return env


def units_of(char: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(char.encode("utf-8"))
    if encoding == "utf-32":
        return 1
    return 2 if ord(char) > 0xFFFF else 1


@dataclass
class Document:
    """The editor's copy of a document."""

    uri: str
    text: str
    version: int = 1
    language_id: str = "python"

    def lines(self) -> list[str]:
        return _LINE.findall(self.text)

    def offset(self, line: int, character: int, encoding: str) -> int:
        """The string index of an LSP position (clamped like editors do)."""
        lines = self.lines()
        if line >= len(lines):
            return len(self.text)
        offset = sum(len(text) for text in lines[:line])
        content = lines[line].rstrip("\r\n")
        used = 0
        for index, char in enumerate(content):
            if used >= character:
                return offset + index
            used += units_of(char, encoding)
        return offset + len(content)

    def position(self, index: int, encoding: str) -> types.Position:
        """The LSP position of string index ``index``."""
        offset = 0
        lines = self.lines()
        for number, line in enumerate(lines):
            content = line.rstrip("\r\n")
            if index <= offset + len(content):
                character = sum(units_of(c, encoding) for c in self.text[offset:index])
                return types.Position(line=number, character=character)
            offset += len(line)
        return types.Position(line=len(lines), character=0)

    def line_of(self, needle: str) -> int:
        """0-based line of the first line containing ``needle``."""
        for number, line in enumerate(self.lines()):
            if needle in line:
                return number
        raise AssertionError(f"{needle!r} not in the document")


class RecordingProtocol(LanguageClientProtocol):
    """Keeps the raw JSON of every response the server sends (pytest-lsp's converter turns a
    CodeAction that carries a command into a bare Command)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.raw_responses: dict[Any, dict[str, Any]] = {}

    def structure_message(self, data: dict[str, Any]):
        if isinstance(data, dict) and "id" in data and "method" not in data:
            self.raw_responses[data["id"]] = data
        return super().structure_message(data)


@dataclass
class EditLog:
    params: types.ApplyWorkspaceEditParams
    applied: bool
    reason: str | None = None


class EditorClient(LanguageClient):
    """pytest-lsp's client plus documents, applyEdit handling and raw replies.

    ``apply_mode``: "apply" (like VS Code: a versioned edit for another version is refused),
    "discard" (an edit that needs confirmation is discarded, as in VS Code's refactor preview;
    others are applied), "ignore" (answer applied=true but change nothing, like Neovim 0.7.2 with a stale edit),
    "refuse" (answer applied=false), "never" (never answer: only with
    :func:`make_silent_client`).
    """

    protocol: RecordingProtocol

    def __init__(self, *args, **kwargs):
        super().__init__(*args, protocol_cls=RecordingProtocol, **kwargs)
        self.documents: dict[str, Document] = {}
        self.encoding = "utf-16"
        self.apply_mode = "apply"
        self.strict_positions = False
        self.before_apply: list = []
        """Callables run (once each) when an applyEdit arrives, before it is applied: the user
        typing at that very moment."""
        self.edits: list[EditLog] = []
        self.stop_waiting = asyncio.Event()
        """Ends the wait of applyEdit requests left unanswered (``apply_mode = "never"``)."""
        self.registrations: list[types.RegistrationParams] = []

    # --- a server shared by several tests -----------------------------------------------------
    async def enter_folder(self, root: Path, previous: Path | None) -> None:
        """Make ``root`` the workspace folder (workspace/didChangeWorkspaceFolders), in place
        of ``previous``: a test's files then belong to its own folder, as after initialize."""
        removed = [types.WorkspaceFolder(uri=previous.as_uri(), name=previous.name)] \
            if previous is not None else []
        self.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(
                added=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
                removed=removed,
            )
        ))

    async def settle(self) -> None:
        """End what a test left behind: cancel every run (``codeteam.cancel``), wait until
        each progress that began has ended, close the open documents, then forget what was
        recorded and undo the test's changes to this client (documents, apply mode, methods
        replaced on the instance). Raises when the server cannot answer any more."""
        self.stop_waiting.set()
        gone = self.server_gone()
        if gone or self.error is not None:
            raise RuntimeError(gone or f"the client saw an error: {self.error}")
        await self.run_command(CANCEL)
        await until(self._runs_over, "the runs to end", gone=self.server_gone)
        for document in list(self.documents.values()):
            self.close(document)
        await self.run_command(CANCEL)  # answered after the closes were handled
        for name in [n for n in vars(self) if callable(getattr(type(self), n, None))]:
            delattr(self, name)  # e.g. a test's text_document_did_change or apply_text_edits
        self.documents.clear()
        self.messages.clear()
        self.log_messages.clear()
        self.shown_documents.clear()
        self.diagnostics.clear()
        self.progress_reports.clear()
        self.edits.clear()
        self.before_apply.clear()
        self.apply_mode = "apply"
        self.strict_positions = False
        self.stop_waiting = asyncio.Event()

    def _runs_over(self) -> bool:
        return all(not reports or isinstance(reports[-1], types.WorkDoneProgressEnd)
                   for reports in self.progress_reports.values())

    # --- session ---------------------------------------------------------------------------
    async def start_session(
        self,
        client: str,
        *,
        root: Path,
        init_options: Any = None,
        capabilities: types.ClientCapabilities | None = None,
    ) -> types.InitializeResult:
        caps = capabilities or client_capabilities(CLIENTS[client])
        result = await self.initialize_session(
            types.InitializeParams(
                capabilities=caps,
                root_uri=root.as_uri(),
                workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
                initialization_options=init_options,
            )
        )
        encoding = result.capabilities.position_encoding
        self.encoding = str(getattr(encoding, "value", encoding) or "utf-16")
        return result

    # --- documents -------------------------------------------------------------------------
    def open(self, path: Path, text: str, *, write: bool = True,
             language_id: str = "python") -> Document:
        """Write ``text`` to ``path`` (the workspace on disk) and open it in the editor."""
        if write:
            path.write_bytes(text.encode("utf-8"))
        document = Document(uri=path.as_uri(), text=text, language_id=language_id)
        self.documents[document.uri] = document
        self.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=document.uri, language_id=language_id, version=1, text=text
                )
            )
        )
        return document

    def close(self, document: Document) -> None:
        self.documents.pop(document.uri, None)
        self.text_document_did_close(
            types.DidCloseTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=document.uri)
            )
        )

    def replace(self, document: Document, start: int, end: int, new_text: str) -> None:
        """Replace string indices ``start..end`` of the document and send the incremental
        didChange (positions in the negotiated encoding)."""
        change = types.TextDocumentContentChangePartial(
            range=types.Range(
                start=document.position(start, self.encoding),
                end=document.position(end, self.encoding),
            ),
            text=new_text,
        )
        document.text = document.text[:start] + new_text + document.text[end:]
        document.version += 1
        self.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=document.uri, version=document.version
                ),
                content_changes=[change],
            )
        )

    def insert_lines(self, document: Document, line: int, text: str) -> None:
        """Type ``text`` (whole lines, ending with a line break) before 0-based ``line``."""
        index = document.offset(line, 0, self.encoding)
        self.replace(document, index, index, text)

    def apply_text_edits(self, document: Document, edits: list[types.TextEdit]) -> None:
        """Apply ``edits`` (non-overlapping, positions in the original text) like an editor:
        last first, each sent as its own incremental change."""
        spans = sorted(
            (
                (
                    document.offset(e.range.start.line, e.range.start.character, self.encoding),
                    document.offset(e.range.end.line, e.range.end.character, self.encoding),
                    e.new_text,
                )
                for e in edits
            ),
            reverse=True,
        )
        for start, end, new_text in spans:
            self.replace(document, start, end, new_text)

    # --- requests --------------------------------------------------------------------------
    async def request_raw(self, method: str, params: Any) -> dict[str, Any]:
        """Send a request and return the server's raw JSON response (result or error)."""
        msg_id = f"test-{next(_ids)}"
        with contextlib.suppress(Exception):  # the raw response says what happened
            await self.protocol.send_request_async(method, params, msg_id=msg_id)
        return self.protocol.raw_responses[msg_id]

    async def code_actions(
        self,
        document: Document,
        start: tuple[int, int],
        end: tuple[int, int] | None = None,
        *,
        only: list[str] | None = None,
        diagnostics: list[types.Diagnostic] | None = None,
    ) -> list[dict[str, Any]]:
        """The code actions exactly as the server sent them ([] for null)."""
        end = end or start
        raw = await self.request_raw(
            types.TEXT_DOCUMENT_CODE_ACTION,
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=document.uri),
                range=types.Range(
                    start=types.Position(line=start[0], character=start[1]),
                    end=types.Position(line=end[0], character=end[1]),
                ),
                context=types.CodeActionContext(diagnostics=diagnostics or [], only=only),
            ),
        )
        assert "error" not in raw, raw
        return raw["result"] or []

    def execute(self, command: str, *arguments: Any, msg_id: str | None = None):
        """Start ``workspace/executeCommand``; returns (msg_id, future of the raw response)."""
        msg_id = msg_id or f"cmd-{next(_ids)}"
        future = self.protocol.send_request(
            types.WORKSPACE_EXECUTE_COMMAND,
            types.ExecuteCommandParams(command=command, arguments=list(arguments)),
            msg_id=msg_id,
        )
        return msg_id, asyncio.wrap_future(future)

    async def run_command(self, command: str, *arguments: Any) -> Any:
        """Execute a command and return its result (raises on an error response)."""
        _, future = self.execute(command, *arguments)
        return await future

    def cancel_request(self, msg_id: str) -> None:
        self.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))

    def cancel_progress(self, token: Any) -> None:
        self.protocol.notify(
            types.WINDOW_WORK_DONE_PROGRESS_CANCEL, types.WorkDoneProgressCancelParams(token=token)
        )

    # --- waiting ---------------------------------------------------------------------------
    async def wait_until(self, predicate, what: str, *, unless=None) -> None:
        """Wait until ``predicate()`` holds; fail at once when it no longer can: the server
        exited, or ``unless`` (the command's future) finished first (:func:`waiting.until`;
        no time limit of its own)."""
        await until(predicate, what, unless=unless, gone=self.server_gone)

    def server_gone(self) -> str | None:
        """Why the server cannot answer any more (it exited), or None."""
        server = self._server
        if server is not None and server.returncode is not None:
            return f"the server exited with {server.returncode}"
        return None

    def progress_token(self, stage: str) -> Any:
        """The token of the work-done progress that reported ``stage`` (None while none has)."""
        for token, reports in self.progress_reports.items():
            if any(getattr(report, "message", None) == stage for report in reports):
                return token
        return None

    def progress_ended(self, token: Any) -> bool:
        """Whether the progress ``token`` has ended (its run is over: nothing more comes)."""
        reports = self.progress_reports.get(token) or [None]
        return isinstance(reports[-1], types.WorkDoneProgressEnd)

    def sandboxes(self) -> list[int]:
        """Process ids of the bubblewrap sandboxes the server started and that still run (its
        descendants whose program is ``bwrap``), read from /proc."""
        server = self._server
        if server is None or server.returncode is not None:
            return []
        children: dict[int, list[int]] = {}
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    stat = (entry / "stat").read_text()
                except OSError:
                    continue
                parent = int(stat.rsplit(")", 1)[1].split()[1])
                children.setdefault(parent, []).append(int(entry.name))
        found, todo = [], list(children.get(server.pid, []))
        while todo:
            pid = todo.pop()
            todo.extend(children.get(pid, []))
            try:
                program = (Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0])
            except OSError:
                continue
            if os.path.basename(program) == b"bwrap":
                found.append(pid)
        return found

    def message_texts(self) -> list[str]:
        return [m.message for m in self.messages]


def needs_confirmation(edit: types.WorkspaceEdit) -> bool:
    """Whether ``edit`` carries a change annotation that needs the user's confirmation."""
    return any(a.needs_confirmation for a in (edit.change_annotations or {}).values())


def apply_edit(ls: EditorClient, params: types.ApplyWorkspaceEditParams):
    """workspace/applyEdit, answered like an editor (see :class:`EditorClient`)."""
    if ls.apply_mode == "discard" and needs_confirmation(params.edit):
        # VS Code's refactor preview, discarded: applied=false, no reason.
        ls.edits.append(EditLog(params, False, "discarded"))
        return types.ApplyWorkspaceEditResult(applied=False)
    if ls.apply_mode == "refuse":
        ls.edits.append(EditLog(params, False, "refused by the test"))
        return types.ApplyWorkspaceEditResult(applied=False, failure_reason="refused by the test")
    if ls.apply_mode == "ignore":
        ls.edits.append(EditLog(params, True, "ignored"))
        return types.ApplyWorkspaceEditResult(applied=True)
    while ls.before_apply:
        ls.before_apply.pop(0)()
    edit = params.edit
    plan: list[tuple[Document, list[types.TextEdit]]] = []
    for change in edit.document_changes or []:
        assert isinstance(change, types.TextDocumentEdit), change
        document = ls.documents[change.text_document.uri]
        if change.text_document.version is not None and (
            change.text_document.version != document.version
        ):
            reason = f"version {change.text_document.version} != {document.version}"
            ls.edits.append(EditLog(params, False, reason))
            return types.ApplyWorkspaceEditResult(applied=False, failure_reason=reason)
        plan.append((document, list(change.edits)))
    for uri, edits in (edit.changes or {}).items():
        plan.append((ls.documents[uri], list(edits)))
    if ls.strict_positions:
        for document, edits in plan:
            for text_edit in edits:
                problem = out_of_range(document, text_edit.range, ls.encoding)
                if problem:
                    ls.edits.append(EditLog(params, False, problem))
                    return types.ApplyWorkspaceEditResult(applied=False, failure_reason=problem)
    for document, edits in plan:
        ls.apply_text_edits(document, edits)
    ls.edits.append(EditLog(params, True))
    return types.ApplyWorkspaceEditResult(applied=True)


def out_of_range(document: Document, span: types.Range, encoding: str) -> str | None:
    """Why ``span`` is not a position range of ``document`` (None when it is)."""
    lines = document.lines()
    for position in (span.start, span.end):
        if position.line > len(lines) or (
            position.line == len(lines) and position.character != 0
        ):
            return f"{position} is past the end of the document"
        if position.line < len(lines):
            content = lines[position.line].rstrip("\r\n")
            if position.character > sum(units_of(c, encoding) for c in content):
                return f"{position} is past the end of its line"
    return None


def register_capability(ls: EditorClient, params: types.RegistrationParams):
    ls.registrations.append(params)


def make_editor_client() -> EditorClient:
    client = EditorClient(converter_factory=default_converter)
    register_lsp_features(client)
    client.feature(types.WORKSPACE_APPLY_EDIT)(apply_edit)
    client.feature(types.CLIENT_REGISTER_CAPABILITY)(register_capability)
    return client


async def apply_edit_or_never(ls: EditorClient, params: types.ApplyWorkspaceEditParams):
    """workspace/applyEdit that is never answered while ``apply_mode`` is "never" (each such
    request is recorded with applied=False), else answered like :func:`apply_edit`."""
    if ls.apply_mode == "never":
        ls.edits.append(EditLog(params, False, "never answered"))
        await ls.stop_waiting.wait()  # set when the test ends (pytest-lsp wants no handler left)
        return types.ApplyWorkspaceEditResult(applied=False, failure_reason="the test ended")
    return apply_edit(ls, params)


def make_silent_client() -> EditorClient:
    """A client that starts in ``apply_mode = "never"``: an editor that never answers
    ``workspace/applyEdit``."""
    client = EditorClient(converter_factory=default_converter)
    register_lsp_features(client)
    client.apply_mode = "never"
    client.feature(types.WORKSPACE_APPLY_EDIT)(apply_edit_or_never)
    client.feature(types.CLIENT_REGISTER_CAPABILITY)(register_capability)
    return client


@dataclass
class Started:
    client: EditorClient
    kind: str
    root: Path
    result: types.InitializeResult
    extra: dict[str, Any] = field(default_factory=dict)
