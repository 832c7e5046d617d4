"""Every action ends with its cost: in the command's answer, the message, the progress end
and the transcript; money where prices are given."""

from __future__ import annotations

import pytest
from editor_harness import CODER
from lsprotocol import types
from test_generate import GOOD, MODULE, position_argument

pytestmark = pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")


def progress_ends(client) -> list[str]:
    return [report.message for reports in client.progress_reports.values()
            for report in reports if isinstance(report, types.WorkDoneProgressEnd)]


@pytest.mark.parametrize("prices", [None, {"scripted-gpt": [2.5, 10]}])
async def test_the_cost_of_a_generate(start, scripted, prices):
    settings = {"model": "scripted-gpt"} | ({"prices": prices} if prices else {})
    started = await start("vscode", init_options={"codeteam": settings})
    client = started.client
    scripted.reply(CODER, GOOD)
    document = client.open(started.root / "helpers.py", MODULE)

    answer = await client.run_command("codeteam.generate",
                                      position_argument(document, "def running_max"))

    cost = answer["cost"]
    request = scripted.requests[0]
    assert cost["calls"] == 1 and cost["prompt_tokens"] > 0 and cost["completion_tokens"] > 0
    assert cost["seconds"] > 0 and cost["text"].startswith("1 LLM call, ")
    if prices:
        expected = (cost["prompt_tokens"] * 2.5 + cost["completion_tokens"] * 10) / 1e6
        assert cost["usd"] == pytest.approx(expected) and f"${expected:.4f}" in cost["text"]
    else:
        assert cost["usd"] is None and "$" not in cost["text"]
    assert request["model"] == "scripted-gpt"
    lines = answer["message"].splitlines()
    assert lines[0].startswith("Generate with team · running_max: team: untested")
    assert lines[2] == f"cost: {cost['text']}"
    [end] = progress_ends(client)
    assert end.endswith(cost["text"])
    markdown = (await client.run_command("codeteam.transcript"))["markdown"]
    assert f"- cost: {cost['text']}" in markdown
    assert "- model scripted-gpt: 1 call(s)" in markdown

