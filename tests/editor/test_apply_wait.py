"""An editor that never answers ``workspace/applyEdit``, and one that cannot apply edits at all
(issue 13, item 2): the wait is bounded and cancellable, the document is free again for later
edits, the user is told, and the result is kept."""

from __future__ import annotations

import copy

import pytest
from editor_harness import ANALYST, CLIENTS, CODER, make_silent_client
from lsprotocol import types
from pytest_lsp import client_capabilities
from test_generate import BODY, GOOD, MODULE, PLAN, position_argument

pytestmark = pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")


async def _generate_again_lands(client, scripted, document):
    """The document is not locked any more: the next run's edit is applied."""
    client.apply_mode = "apply"
    scripted.reply(ANALYST, PLAN).reply(CODER, GOOD)
    answer = await client.run_command(
        "codeteam.generate", position_argument(document, "def running_max"))
    assert answer["applied"] is True, answer
    assert BODY in document.text


async def test_an_unanswered_apply_times_out_and_keeps_the_result(start, scripted):
    # An edit applied without a preview (apply_timeout_s bounds it; a preview waits for the
    # user: tests/editor/test_preview.py).
    started = await start("vscode", client_factory=make_silent_client, apply_timeout_s=1,
                          preview="never")
    client = started.client
    scripted.reply(ANALYST, PLAN).reply(CODER, GOOD)
    document = client.open(started.root / "helpers.py", MODULE)

    answer = await client.run_command(
        "codeteam.generate", position_argument(document, "def running_max"))

    assert answer["applied"] is False, answer
    assert "did not answer the edit (workspace/applyEdit) within 1 s" in answer["message"]
    assert "codeteam.transcript" in answer["message"]
    assert len(client.edits) == 1 and document.text == MODULE
    assert any("did not answer the edit" in m for m in client.message_texts())
    kept = await client.run_command("codeteam.transcript")
    assert BODY in kept["markdown"] and "- applied: no" in kept["markdown"]
    await _generate_again_lands(client, scripted, document)


@pytest.mark.parametrize("how", ["progress", "request", "command"])
async def test_a_cancel_reaches_the_wait_for_the_editor(start, scripted, how):
    # The wait for the editor can only end by the cancel (not by its time limit).
    started = await start("vscode", client_factory=make_silent_client, preview="never",
                          apply_timeout_s=600)
    client = started.client
    scripted.reply(ANALYST, PLAN).reply(CODER, GOOD)
    document = client.open(started.root / "helpers.py", MODULE)
    msg_id, future = client.execute(
        "codeteam.generate", position_argument(document, "def running_max")
    )
    await client.wait_until(lambda: len(client.edits) == 1, what="the applyEdit request",
                            unless=future)

    if how == "progress":
        client.cancel_progress(client.progress_token("applying the result"))
    elif how == "request":
        client.cancel_request(msg_id)
    else:
        await client.run_command("codeteam.cancel", {"uri": document.uri})

    if how == "request":
        with pytest.raises(Exception, match="cancel"):
            await future
    else:
        answer = await future
        assert answer["status"] == "cancelled" and answer["applied"] is False, answer
    await client.wait_until(
        lambda: any("cancelled while waiting for the editor" in m
                    for m in client.message_texts()),
        what="the cancel message",
    )
    kept = await client.run_command("codeteam.transcript")
    assert BODY in kept["markdown"]
    await _generate_again_lands(client, scripted, document)


async def test_a_client_without_apply_edit_gets_the_code_in_a_message(start, scripted):
    capabilities = copy.deepcopy(client_capabilities(CLIENTS["vscode"]))
    capabilities.workspace.apply_edit = False
    started = await start("vscode", capabilities=capabilities)
    client = started.client
    scripted.reply(ANALYST, PLAN).reply(CODER, GOOD)
    document = client.open(started.root / "helpers.py", MODULE)

    answer = await client.run_command(
        "codeteam.generate", position_argument(document, "def running_max")
    )

    assert answer["applied"] is False and client.edits == [], answer
    shown = [m for m in client.messages if "does not support edits" in m.message]
    assert len(shown) == 1 and shown[0].type == types.MessageType.Warning
    assert "```python\ndef running_max(xs):" in shown[0].message and BODY in shown[0].message
    assert "codeteam.transcript" in shown[0].message
    kept = await client.run_command("codeteam.transcript")
    assert BODY in kept["markdown"]
