"""Preview before apply (pytest-lsp, the real server): a client that announces
workspace.workspaceEdit.changeAnnotationSupport (VS Code) gets the edit with a change
annotation that needs confirmation, naming the action, the verdict and the tests; when the
user discards it the server keeps the result, and codeteam.apply applies it later. A client
without it (Neovim 0.7's own capabilities, Helix) gets the edit as before, except code that
fails its tests, which is never applied without a preview. Setting ``preview``."""

from __future__ import annotations

import pytest
from editor_harness import CODER, PLANNER, make_silent_client
from lsprotocol import types
from test_generate import BODY, GOOD, MODULE, position_argument

pytestmark = pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")

WAITING = "waiting for you to accept or discard the preview"

DOCTESTED = MODULE.replace(
    '    """Return the running maximum of xs."""\n',
    '    """Return the running maximum of xs.\n\n    >>> running_max([1, 3, 2])\n'
    '    [1, 3, 3]\n    >>> running_max([])\n    []\n    """\n',
)
SORTED = "```python\ndef running_max(xs):\n    return sorted(xs)\n```"


def annotated(edit: types.WorkspaceEdit) -> tuple[str, types.ChangeAnnotation] | None:
    """The (id, annotation) the edit's one text edit carries, or None."""
    [change] = edit.document_changes
    [text_edit] = change.edits
    if not isinstance(text_edit, types.AnnotatedTextEdit):
        return None
    return text_edit.annotation_id, edit.change_annotations[text_edit.annotation_id]


async def generate(client, document):
    return await client.run_command("codeteam.generate",
                                    position_argument(document, "def running_max"))


async def test_a_client_with_annotation_support_gets_a_preview(start, scripted):
    started = await start("vscode")
    client = started.client
    scripted.reply(CODER, GOOD)
    document = client.open(started.root / "helpers.py", MODULE)

    answer = await generate(client, document)

    assert answer["applied"] is True and BODY in document.text, answer
    [log] = client.edits
    annotation_id, annotation = annotated(log.params.edit)
    assert annotation_id.startswith("codeteam:")
    assert annotation.needs_confirmation is True
    assert annotation.label == "codeteam: Generate with team · running_max"
    assert annotation.description.startswith("team: untested") and "No test ran." in annotation.description
    assert log.params.label == annotation.label
    assert log.params.edit.document_changes[0].text_document.version == 1
    assert client.progress_token(WAITING) is not None


@pytest.mark.own_server  # `codeteam.apply` with no argument: the server's latest kept result
async def test_a_discarded_preview_is_kept_and_applied_later(start, scripted):
    started = await start("vscode")
    client = started.client
    client.apply_mode = "discard"
    scripted.reply(CODER, GOOD)
    document = client.open(started.root / "helpers.py", MODULE)

    answer = await generate(client, document)

    assert answer["applied"] is False and document.text == MODULE, answer
    assert "Not applied: the preview was discarded." in answer["message"]
    assert "codeteam.apply applies it" in answer["message"]
    assert len(client.edits) == 1  # a discarded preview is not sent again
    kept = (await client.run_command("codeteam.transcript"))["markdown"]
    assert "- applied: no" in kept and BODY in kept
    [shown] = [m for m in client.messages if "Generate with team" in m.message]
    assert shown.type == types.MessageType.Info  # the user's own choice, not a warning

    applied = await client.run_command("codeteam.apply")

    assert applied["applied"] is True and BODY in document.text, applied
    assert len(client.edits) == 2 and annotated(client.edits[1].params.edit) is None
    assert "- applied: yes" in (await client.run_command("codeteam.transcript"))["markdown"]
    again = await client.run_command("codeteam.apply")
    assert again["status"] == "error" and "no kept result" in again["message"]


async def test_apply_names_a_result_by_its_annotation(start, scripted):
    started = await start("vscode")
    client = started.client
    client.apply_mode = "discard"
    scripted.reply(CODER, GOOD)
    document = client.open(started.root / "helpers.py", MODULE)
    await generate(client, document)
    annotation_id, _ = annotated(client.edits[0].params.edit)

    missing = await client.run_command("codeteam.apply", {"result": "codeteam:nonesuch"})
    assert missing["applied"] is False and document.text == MODULE
    raw = await client.request_raw(
        types.WORKSPACE_EXECUTE_COMMAND,
        types.ExecuteCommandParams(command="codeteam.apply", arguments=[1, 2]),
    )
    assert raw["error"]["code"] == -32602 and "codeteam.apply takes" in raw["error"]["message"]

    applied = await client.run_command("codeteam.apply", {"result": annotation_id})
    assert applied["applied"] is True and BODY in document.text, applied


async def test_a_client_without_annotation_support_gets_the_edit_as_before(start, scripted):
    started = await start("neovim")
    client = started.client
    scripted.reply(CODER, GOOD)
    document = client.open(started.root / "helpers.py", MODULE)

    answer = await generate(client, document)

    assert answer["applied"] is True and BODY in document.text, answer
    [log] = client.edits
    assert log.params.edit.change_annotations is None and log.params.edit.changes


async def test_preview_never_applies_without_one(start, scripted):
    started = await start("vscode", preview="never")
    client = started.client
    scripted.reply(CODER, GOOD)
    document = client.open(started.root / "helpers.py", MODULE)

    answer = await generate(client, document)

    assert answer["applied"] is True, answer
    assert annotated(client.edits[0].params.edit) is None
    assert client.edits[0].params.edit.change_annotations is None


async def test_preview_always_keeps_what_the_client_cannot_preview(start, scripted):
    started = await start("neovim", preview="always")
    client = started.client
    scripted.reply(CODER, GOOD)
    document = client.open(started.root / "helpers.py", MODULE)

    answer = await generate(client, document)

    assert answer["applied"] is False and client.edits == [], answer
    assert 'preview is "always" and this editor cannot show an edit as a preview' in answer["message"]
    assert BODY in answer["message"]  # the code itself, to read
    applied = await client.run_command("codeteam.apply", {"uri": document.uri,
                                                          "qualname": "running_max"})
    assert applied["applied"] is True and BODY in document.text


@pytest.mark.sandbox
async def test_failing_code_is_previewed_with_its_failures(start, scripted):
    started = await start("vscode")
    client = started.client
    client.apply_mode = "discard"
    scripted.reply(CODER, SORTED)
    document = client.open(started.root / "helpers.py", DOCTESTED)

    answer = await generate(client, document)

    assert answer["status"] == "failed" and answer["applied"] is False, answer
    _, annotation = annotated(client.edits[0].params.edit)
    assert annotation.description.startswith("team: failed; 1/2 tests passed")
    assert "Failing: >>> running_max([1, 3, 2])  # expected '[1, 3, 3]'" in annotation.description
    assert "expected: [1, 3, 3]; actual:   [1, 2, 3]" in annotation.description
    assert document.text == DOCTESTED


@pytest.mark.sandbox
async def test_failing_code_is_not_applied_where_it_cannot_be_previewed(start, scripted):
    started = await start("neovim")
    client = started.client
    scripted.reply(CODER, SORTED)
    document = client.open(started.root / "helpers.py", DOCTESTED)

    answer = await generate(client, document)

    assert answer["status"] == "failed" and answer["applied"] is False, answer
    assert client.edits == [] and document.text == DOCTESTED
    assert ("Not applied: the new code fails 1 of its 2 tests, and this editor cannot show an "
            "edit as a preview first") in answer["message"]
    assert "return sorted(xs)" in answer["message"]
    assert any("Not applied" in m.message and m.type == types.MessageType.Warning
               for m in client.messages)


async def test_a_failed_plan_says_no_plan_was_produced(start, scripted):
    started = await start("vscode")
    client = started.client
    scripted.reply(PLANNER, "I cannot help with that.", times=None)
    document = client.open(started.root / "helpers.py", MODULE)

    answer = await client.run_command("codeteam.plan", position_argument(document, "def running_max"))

    assert answer["status"] == "error" and answer["applied"] is False, answer
    assert "No plan was produced; nothing was changed." in answer["message"]
    assert "No code was produced" not in answer["message"]


async def test_a_cancel_ends_the_wait_for_the_users_decision(start, scripted):
    started = await start("vscode", client_factory=make_silent_client)
    client = started.client
    scripted.reply(CODER, GOOD)
    document = client.open(started.root / "helpers.py", MODULE)
    _, future = client.execute("codeteam.generate", position_argument(document, "def running_max"))
    await client.wait_until(lambda: len(client.edits) == 1, what="the preview")
    assert annotated(client.edits[0].params.edit) is not None

    client.cancel_progress(client.progress_token(WAITING))

    answer = await future  # no clock: the suite's time limit cuts a wait that never ends
    assert answer["status"] == "cancelled" and answer["applied"] is False, answer
    assert BODY in (await client.run_command("codeteam.transcript"))["markdown"]


async def test_accepting_a_preview_while_its_run_ends_applies_it(start, scripted):
    """Neovim answers the preview's applyEdit at once and the user may accept (codeteam.apply
    of that result) before the run has ended (it waits for the editor's didChange): the
    accept waits for the run's end and applies, never "codeteam is working on ..."."""
    import asyncio

    from waiting import until

    started = await start("vscode")
    client = started.client
    client.apply_mode = "discard"
    scripted.reply(CODER, GOOD)
    document = client.open(started.root / "helpers.py", MODULE)

    generating = asyncio.ensure_future(generate(client, document))
    await until(lambda: client.edits, "the preview", unless=generating)
    annotation_id, _ = annotated(client.edits[0].params.edit)
    accepted = await client.run_command("codeteam.apply", {"result": annotation_id})
    answer = await generating

    assert answer["applied"] is False and "the preview was discarded" in answer["message"]
    assert accepted["applied"] is True and BODY in document.text, accepted
