"""Cancelling a run from the editor: the model call is closed, test processes are killed,
nothing is applied, and the server keeps working. Every step waits on an event (the request
reached the model, the progress ended, a sandbox started), never on the clock."""

from __future__ import annotations

import pytest
from editor_harness import ANALYST, CODER
from lsprotocol import types
from test_generate import BODY, GOOD, MODULE, PLAN, position_argument

pytestmark = pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")


async def _start_a_run_the_model_never_answers(editor, scripted):
    """A generate whose coder call hangs: (document, msg_id, future, hold, token), returned
    once the coder's request reached the model."""
    scripted.reply(ANALYST, PLAN)
    hold = scripted.hang(CODER)
    client = editor.client
    document = client.open(editor.root / "helpers.py", MODULE)
    msg_id, future = client.execute(
        "codeteam.generate", position_argument(document, "def running_max")
    )
    await client.wait_until(hold.arrived.is_set, what="the coder's request", unless=future)
    # Reported before the call was made, but on another channel (stdio, not HTTP): it may
    # still be on its way to the client when the request reaches the model.
    await client.wait_until(lambda: client.progress_token("coder: writing code") is not None,
                            what="the coder's progress report", unless=future)
    token = client.progress_token("coder: writing code")
    return document, msg_id, future, hold, token


async def _after_cancel_the_server_still_works(client, scripted, document, hold, token):
    # The cancel closed the model call, and the run is over (its progress ended): nothing
    # can come late. A code action round trip comes after anything it sent.
    await client.wait_until(hold.abandoned.is_set, what="the model call to be closed")
    await client.wait_until(lambda: client.progress_ended(token), what="the progress to end")
    line = document.line_of("def running_max")
    assert len(await client.code_actions(document, (line, 0))) == 3
    assert client.edits == []
    assert document.text == MODULE
    # The run is over (not "busy"): the same function runs again, to the end.
    scripted.reply(ANALYST, PLAN).reply(CODER, GOOD)
    answer = await client.run_command("codeteam.generate", position_argument(document, "def running_max"))
    assert answer["applied"] is True, answer
    assert BODY in document.text


async def test_cancel_from_the_progress(editor, scripted):
    client = editor.client
    document, _, future, hold, token = await _start_a_run_the_model_never_answers(editor, scripted)
    begin = client.progress_reports[token][0]
    assert isinstance(begin, types.WorkDoneProgressBegin)
    assert begin.title == "codeteam: Generate with team" and begin.cancellable is True
    stages = [r.message for r in client.progress_reports[token][1:]]
    assert "collecting the public tests" in stages

    client.cancel_progress(token)
    answer = await future

    assert answer["status"] == "cancelled" and answer["applied"] is False
    assert isinstance(client.progress_reports[token][-1], types.WorkDoneProgressEnd)
    assert any("was cancelled; nothing was changed" in m for m in client.message_texts())
    await _after_cancel_the_server_still_works(client, scripted, document, hold, token)


async def test_cancel_request(editor, scripted):
    client = editor.client
    document, msg_id, future, hold, token = await _start_a_run_the_model_never_answers(
        editor, scripted)

    client.cancel_request(msg_id)

    with pytest.raises(Exception, match="cancel"):
        await future
    assert client.protocol.raw_responses[msg_id]["error"]["code"] == -32800
    await client.wait_until(
        lambda: any("was cancelled" in m for m in client.message_texts()),
        what="the cancel message",
    )
    await _after_cancel_the_server_still_works(client, scripted, document, hold, token)


async def test_cancel_during_the_tests_kills_them(start, scripted):
    """A cancel while the tester's tests run (an endless loop here) ends the run at once and
    kills the sandbox it started."""
    started = await start("vscode", test_timeout_s=600)
    source = MODULE.replace(
        '    """Return the running maximum of xs."""\n',
        '    """Return the running maximum of xs.\n\n    >>> running_max([1])\n    [1]\n'
        '    """\n    while True:\n        pass\n',
    )
    scripted.reply(ANALYST, PLAN)
    client = started.client
    document = client.open(started.root / "helpers.py", source)
    _, future = client.execute("codeteam.review", position_argument(document, "while True"))
    await client.wait_until(lambda: client.progress_token("tester: running 1 test") is not None,
                            what="the test run", unless=future)
    await client.wait_until(client.sandboxes, what="a sandbox to start", unless=future)

    client.cancel_progress(client.progress_token("tester: running 1 test"))
    answer = await future

    assert answer["status"] == "cancelled"
    assert client.sandboxes() == []  # killed before the answer, 600 s before their limit
    assert len(client.diagnostics.get(document.uri, ())) == 0


async def test_cancel_command_for_clients_without_a_cancel_button(editor, scripted):
    """Helix has no cancel UI: ``:lsp-workspace-command codeteam.cancel`` does it."""
    client = editor.client
    document, _, future, hold, token = await _start_a_run_the_model_never_answers(editor, scripted)

    cancelled = await client.run_command("codeteam.cancel")
    answer = await future

    assert cancelled["cancelled"] == ["running_max"]
    assert answer["status"] == "cancelled" and answer["applied"] is False
    assert (await client.run_command("codeteam.cancel"))["cancelled"] == []
    await _after_cancel_the_server_still_works(client, scripted, document, hold, token)
