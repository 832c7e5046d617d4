"""Settings from initializationOptions and workspace/configuration: problems are shown, the
defaults kept, the API key never shown, and the LLM client follows changes."""

from __future__ import annotations

import sys

import pytest
from editor_harness import ANALYST, CODER, SERVER_COMMAND
from lsprotocol import types
from test_generate import BODY, GOOD, MODULE, PLAN, position_argument

from scripted_llm import ScriptedLLM

pytestmark = pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")

SECRET = "sk-test-secret-4711"


def warnings_of(client) -> list[str]:
    return [m.message for m in client.messages if m.type == types.MessageType.Warning]


async def test_invalid_initialization_options(start, scripted, client_kind, tmp_path):
    log_file = tmp_path / "server.log"
    command = [*SERVER_COMMAND[:-1], "-v", "serve", "--log-file", str(log_file)]
    started = await start(
        client_kind,
        command=command,
        init_options={"codeteam": {"timeout_s": -1, "max_rounds": "many", "api_key": SECRET,
                                   "colour": "blue"}},
    )
    client = started.client
    await client.wait_until(lambda: len(warnings_of(client)) >= 3, what="the warnings")
    shown = warnings_of(client)
    assert any(m.startswith("codeteam settings: timeout_s: -1 is not valid") and
               "kept 60.0" in m for m in shown), shown  # the env value
    assert any("max_rounds: a text of 4 characters is not valid" in m for m in shown), shown
    assert any("colour: not a codeteam setting" in m for m in shown), shown

    # The server still works, with the defaults in place of the bad values.
    scripted.reply(ANALYST, PLAN).reply(CODER, GOOD)
    document = client.open(started.root / "helpers.py", MODULE)
    line = document.line_of("def running_max")
    assert len(await client.code_actions(document, (line, 0))) == 3
    answer = await client.run_command(
        "codeteam.generate", position_argument(document, "def running_max")
    )
    assert answer["applied"] is True, answer
    # The key is in no message and not in the log.
    assert scripted.requests
    everything = "\n".join(
        [m.message for m in client.messages] + [m.message for m in client.log_messages]
    )
    assert SECRET not in everything
    await client.shutdown_session()
    assert log_file.read_text() and SECRET not in log_file.read_text()


async def test_workspace_configuration_is_pulled_and_followed(start, scripted):
    """VS Code: the section "codeteam" is pulled after initialized and on every
    didChangeConfiguration; the LLM client is rebuilt for a new base_url."""
    started = await start("vscode", configuration={"codeteam": {"max_rounds": 0}})
    client = started.client
    await client.wait_until(lambda: warnings_of(client), what="the max_rounds warning")
    assert "max_rounds: 0 is not valid" in warnings_of(client)[0]

    scripted.reply(ANALYST, PLAN).reply(CODER, GOOD)
    document = client.open(started.root / "helpers.py", MODULE)
    argument = position_argument(document, "def running_max")
    assert (await client.run_command("codeteam.generate", argument))["applied"] is True

    with ScriptedLLM() as second:
        second.reply(ANALYST, PLAN).reply(
            CODER, GOOD.replace("return out", "return list(out)")
        )
        client.set_configuration({"codeteam": {"base_url": second.base_url}})
        client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings=None)
        )
        await client.wait_until(
            lambda: any("LLM client is rebuilt" in m.message for m in client.log_messages),
            what="the rebuild",
        )
        answer = await client.run_command("codeteam.generate", argument)
        assert answer["applied"] is True, answer
        assert "return list(out)" in document.text
        assert second.count(CODER) == 1 and scripted.count(CODER) == 1
    assert BODY in document.text


async def test_pushed_configuration_without_workspace_configuration(start, scripted):
    """Neovim 0.7 has no workspace/configuration: settings pushed with
    didChangeConfiguration are used."""
    started = await start("neovim")
    client = started.client
    document = client.open(started.root / "helpers.py", MODULE)
    with ScriptedLLM() as second:
        second.reply(ANALYST, PLAN).reply(CODER, GOOD)
        client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(
                settings={"codeteam": {"base_url": second.base_url, "timeout_s": "soon"}}
            )
        )
        await client.wait_until(lambda: warnings_of(client), what="the timeout_s warning")
        assert "timeout_s: a text of 4 characters is not valid" in warnings_of(client)[0]
        answer = await client.run_command(
            "codeteam.generate", position_argument(document, "def running_max")
        )
        assert answer["applied"] is True, answer
        assert second.count(CODER) == 1 and scripted.count(CODER) == 0


def test_server_module_runs_as_codeteam_serve():
    assert SERVER_COMMAND == [sys.executable, "-m", "codeteam", "serve"]


async def test_generate_pipeline_setting_selects_the_flow(start, scripted, client_kind):
    started = await start(client_kind, generate_pipeline="flow", ai_tests=2)
    client = started.client
    document = client.open(started.root / "helpers.py", MODULE)
    answer = await client.run_command(
        "codeteam.generate", position_argument(document, "def running_max")
    )
    # No flow replies are scripted: the flow degrades (notes), but it is the flow that ran.
    assert answer["status"] in ("error", "untested", "failed"), answer
    assert scripted.requests and scripted.count(r"You write test cases\. Reply in YAML") >= 1  # flow_tests
    assert scripted.count(ANALYST) == 0
    transcript = await client.run_command("codeteam.transcript", {"uri": document.uri})
    assert "- pipeline: flow" in transcript["markdown"]
