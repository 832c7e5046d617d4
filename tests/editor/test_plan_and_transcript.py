"""Plan this docstring, then Generate following the plan; the transcript of the last run."""

from __future__ import annotations

import ast

import pytest
from editor_harness import ANALYST, CODER, PLANNER, WRITE
from lsprotocol import types
from test_generate import BODY, GOOD, MODULE, PLAN, position_argument

pytestmark = pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")

STEPS = "1. Start with an empty list.\n2. Keep the largest value seen so far.\n3. Append it for each x.\n"


async def test_plan_then_generate_follows_the_plan(editor, scripted):
    scripted.reply(PLANNER, STEPS).reply(CODER, GOOD)
    client = editor.client
    document = client.open(editor.root / "helpers.py", MODULE)
    argument = position_argument(document, "def running_max")

    planned = await client.run_command("codeteam.plan", argument)

    assert planned["applied"] is True, planned
    assert (
        'def running_max(xs):\n'
        '    """Return the running maximum of xs.\n'
        "\n"
        "    Plan:\n"
        "    1. Start with an empty list.\n"
        "    2. Keep the largest value seen so far.\n"
        "    3. Append it for each x.\n"
        '    """\n'
        "\n\ndef after():"
    ) in document.text
    ast.parse(document.text)

    generated = await client.run_command("codeteam.generate", argument)

    assert generated["applied"] is True, generated
    assert BODY in document.text and "    Plan:\n    1. Start with an empty list.\n" in document.text
    # The analyst was not asked: the docstring's plan was given to the coder.
    assert scripted.count(ANALYST) == 0
    coder_prompt = scripted.texts()[-1]
    assert "You complete Python functions" in coder_prompt  # team's first draft: direct's
    for step in ("1. Start with an empty list.", "2. Keep the largest value seen so far.",
                 "3. Append it for each x."):
        assert step in coder_prompt


@pytest.mark.own_server  # the transcript of the server's last run
async def test_transcript_of_the_last_run(editor, scripted):
    started = editor
    client = started.client
    assert await client.run_command("codeteam.transcript") is None
    scripted.reply(ANALYST, "1. Keep the maximum.\n2. Return the list.").reply(CODER, GOOD)
    document = client.open(started.root / "helpers.py", MODULE)
    await client.run_command("codeteam.generate", position_argument(document, "def running_max"))

    transcript = await client.run_command("codeteam.transcript")

    markdown = transcript["markdown"]
    assert markdown.startswith("# codeteam: Generate with team — `running_max`")
    assert "- pipeline: team" in markdown and "- status: **untested**" in markdown
    assert "- applied: yes" in markdown
    # What project context the prompts carry, then each role's prompt and reply, in order:
    # the first draft is the direct answer.
    context = markdown.index("### 1. context: project context")
    assert "- sent before from helpers.py:6: defined in the module" in markdown[context:]
    coder = markdown.index("### 2. coder: coder: writing code")
    assert context < coder
    assert "You complete Python functions" in markdown[coder:]
    assert BODY in markdown[coder:]
    assert "## Usage" in markdown and "1 LLM call" in markdown
    assert "## Code\n\n```python\ndef running_max(xs):" in markdown


@pytest.mark.parametrize("shows_itself", [True, False])
async def test_run_message_is_shown_once(start, scripted, shows_itself):
    """A client that shows command answers itself (codeteam's VS Code extension says so in
    initializationOptions.client) gets the result only in the answer; others also get a
    window/showMessage, since Neovim and Helix ignore command answers."""
    init = {"codeteam": {}, "client": {"shows_run_messages": shows_itself}}
    started = await start("vscode", init_options=init)
    client = started.client
    scripted.reply(ANALYST, "1. Keep the maximum.").reply(CODER, GOOD)
    document = client.open(started.root / "helpers.py", MODULE)

    answer = await client.run_command("codeteam.generate", position_argument(document, "def running_max"))

    assert answer["applied"] is True and "Generate with team" in answer["message"]
    shown = [text for text in client.message_texts() if "Generate with team" in text]
    assert shown == ([] if shows_itself else [answer["message"]])
    assert not any("not a codeteam setting" in text for text in client.message_texts())


@pytest.mark.own_server  # the transcript of the server's last run
async def test_transcript_of_one_function_among_several_runs(start, scripted):
    """Each function keeps its latest run; the argument names which one (no argument: the
    latest run, then the code of results that were kept because they could not be applied)."""
    started = await start("vscode")
    after = "```python\ndef after():\n    return 3\n```"
    write = WRITE
    scripted.reply(ANALYST, PLAN).reply(write + "running_max", GOOD)
    coder = scripted.hold(write + "after", after)
    client = started.client
    document = client.open(started.root / "helpers.py", MODULE)
    _, later = client.execute("codeteam.generate", position_argument(document, "def after"))
    await client.wait_until(coder.arrived.is_set, what="the coder", unless=later)
    index = document.text.index("def after")
    client.replace(document, index, index + len("def after"), "def after_renamed")
    coder.release()
    kept = await later
    assert kept["applied"] is False, kept
    first = await client.run_command(
        "codeteam.generate", position_argument(document, "def running_max"))
    assert first["applied"] is True, first

    latest = (await client.run_command("codeteam.transcript"))["markdown"]
    assert latest.startswith("# codeteam: Generate with team — `running_max`")
    kept_part = latest[latest.index("# Other results kept (not applied)"):]
    assert "`after`" in kept_part and "return 3" in kept_part and BODY not in kept_part

    by_name = await client.run_command(
        "codeteam.transcript", {"uri": document.uri, "qualname": "after"})
    assert by_name["markdown"].startswith("# codeteam: Generate with team — `after`")
    assert "- applied: no" in by_name["markdown"] and "Other results" not in by_name["markdown"]
    by_position = await client.run_command(
        "codeteam.transcript", position_argument(document, BODY))
    assert by_position["markdown"].startswith("# codeteam: Generate with team — `running_max`")
    assert await client.run_command(
        "codeteam.transcript", {"uri": document.uri, "qualname": "before"}) is None
    raw = await client.request_raw(
        types.WORKSPACE_EXECUTE_COMMAND,
        types.ExecuteCommandParams(command="codeteam.transcript", arguments=["x"]))
    assert "error" in raw and "codeteam.transcript takes" in raw["error"]["message"]
