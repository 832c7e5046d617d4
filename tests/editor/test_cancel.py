"""Cancelling a run from the editor: nothing is applied, and the server keeps working."""

from __future__ import annotations

import asyncio

import pytest
from editor_harness import ANALYST, CODER
from lsprotocol import types
from test_generate import BODY, GOOD, MODULE, PLAN, position_argument

pytestmark = pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")


def progress_token_at(client, stage: str):
    """The token of the progress that reported ``stage`` (None while it has not)."""
    for token, reports in client.progress_reports.items():
        for report in reports:
            if getattr(report, "message", None) == stage:
                return token
    return None


async def _after_cancel_the_server_still_works(client, scripted, document):
    # Nothing came late, the document is unchanged, and code actions still answer.
    await asyncio.sleep(0.5)
    assert client.edits == []
    assert document.text == MODULE
    line = document.line_of("def running_max")
    assert len(await client.code_actions(document, (line, 0))) == 3
    # The run is over (not "busy"): the same function runs again, to the end.
    scripted.reply(ANALYST, PLAN).reply(CODER, GOOD)
    answer = await client.run_command("codeteam.generate", position_argument(document, "def running_max"))
    assert answer["applied"] is True, answer
    assert BODY in document.text


async def test_cancel_from_the_progress(editor, scripted):
    scripted.reply(ANALYST, PLAN).hang(CODER, seconds=30)
    client = editor.client
    document = client.open(editor.root / "helpers.py", MODULE)
    _, future = client.execute("codeteam.generate", position_argument(document, "def running_max"))
    await client.wait_until(
        lambda: progress_token_at(client, "coder: writing code") is not None,
        what="the coder's progress report",
    )
    token = progress_token_at(client, "coder: writing code")
    begin = client.progress_reports[token][0]
    assert isinstance(begin, types.WorkDoneProgressBegin)
    assert begin.title == "codeteam: Generate with team" and begin.cancellable is True
    stages = [r.message for r in client.progress_reports[token][1:]]
    assert "collecting the public tests" in stages

    client.cancel_progress(token)
    answer = await asyncio.wait_for(future, 10)

    assert answer["status"] == "cancelled" and answer["applied"] is False
    assert isinstance(client.progress_reports[token][-1], types.WorkDoneProgressEnd)
    assert any("was cancelled; nothing was changed" in m for m in client.message_texts())
    await _after_cancel_the_server_still_works(client, scripted, document)


async def test_cancel_request(editor, scripted):
    scripted.reply(ANALYST, PLAN).hang(CODER, seconds=30)
    client = editor.client
    document = client.open(editor.root / "helpers.py", MODULE)
    msg_id, future = client.execute(
        "codeteam.generate", position_argument(document, "def running_max")
    )
    await client.wait_until(lambda: scripted.count(CODER) == 1, what="the coder's request")

    client.cancel_request(msg_id)

    with pytest.raises(Exception, match="cancel"):
        await asyncio.wait_for(future, 10)
    assert client.protocol.raw_responses[msg_id]["error"]["code"] == -32800
    await client.wait_until(
        lambda: any("was cancelled" in m for m in client.message_texts()),
        what="the cancel message",
    )
    await _after_cancel_the_server_still_works(client, scripted, document)


async def test_cancel_during_the_tests_kills_them(start, scripted):
    """A cancel while the tester's tests run (an endless loop here) ends the run at once."""
    started = await start("vscode", test_timeout_s=60)
    source = MODULE.replace(
        '    """Return the running maximum of xs."""\n',
        '    """Return the running maximum of xs.\n\n    >>> running_max([1])\n    [1]\n'
        '    """\n    while True:\n        pass\n',
    )
    scripted.reply(ANALYST, PLAN)
    client = started.client
    document = client.open(started.root / "helpers.py", source)
    _, future = client.execute("codeteam.review", position_argument(document, "while True"))
    await client.wait_until(
        lambda: progress_token_at(client, "tester: running 1 test") is not None,
        what="the test run", timeout=20,
    )
    await asyncio.sleep(0.5)
    client.cancel_progress(progress_token_at(client, "tester: running 1 test"))
    answer = await asyncio.wait_for(future, 10)
    assert answer["status"] == "cancelled"
    assert len(client.diagnostics.get(document.uri, ())) == 0


async def test_cancel_command_for_clients_without_a_cancel_button(editor, scripted):
    """Helix has no cancel UI: ``:lsp-workspace-command codeteam.cancel`` does it."""
    scripted.reply(ANALYST, PLAN).hang(CODER, seconds=30)
    client = editor.client
    document = client.open(editor.root / "helpers.py", MODULE)
    _, future = client.execute("codeteam.generate", position_argument(document, "def running_max"))
    await client.wait_until(
        lambda: progress_token_at(client, "coder: writing code") is not None,
        what="the coder's progress report",
    )

    cancelled = await client.run_command("codeteam.cancel")
    answer = await asyncio.wait_for(future, 10)

    assert cancelled["cancelled"] == ["running_max"]
    assert answer["status"] == "cancelled" and answer["applied"] is False
    assert (await client.run_command("codeteam.cancel"))["cancelled"] == []
    await _after_cancel_the_server_still_works(client, scripted, document)
