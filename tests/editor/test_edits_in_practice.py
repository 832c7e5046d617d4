"""Edits in practice against the real server (pytest-lsp, scripted model): two runs on one file,
debounced clients, tab indentation, typing right after the edit, half-typed code elsewhere, a
kept result; each reproduces a defect a review found."""

from __future__ import annotations

import ast
import asyncio

import pytest
from editor_harness import ANALYST, CODER, PLANNER

pytestmark = pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")

TWO = '''def alpha(xs):
    """Return the sum of xs."""


def beta(xs):
    """Return the product of xs."""
'''
ALPHA = """```python
def alpha(xs):
    total = 0
    for x in xs:
        total += x
    return total
```"""
BETA = """```python
def beta(xs):
    product = 1
    for x in xs:
        product *= x
    return product
```"""


WRITE = CODER + r".*(?:Write the body of this function|Complete this function):\n```python\ndef "


def argument(document, needle: str) -> dict:
    return {"uri": document.uri, "position": {"line": document.line_of(needle), "character": 4}}


def delay_did_change(client, seconds: float) -> None:
    """The client sends didChange ``seconds`` late (a debounce, like Neovim's default 150 ms
    without codeteam's module), in order."""
    send = client.text_document_did_change

    def later(params):
        asyncio.get_running_loop().call_later(seconds, send, params)

    client.text_document_did_change = later


async def _two_runs(started, scripted, alpha_delay=1.0, beta_delay=1.0):
    scripted.reply(ANALYST + r".*alpha", "1. Add them up.")
    scripted.reply(ANALYST + r".*beta", "1. Multiply them.")
    scripted.reply(WRITE + "alpha", ALPHA, delay_s=alpha_delay)
    scripted.reply(WRITE + "beta", BETA, delay_s=beta_delay)
    client = started.client
    document = client.open(started.root / "two.py", TWO)
    return client, document


async def test_two_runs_on_two_functions_of_one_file_vscode(start, scripted):
    """Holds with versioned edits and an immediate didChange (a regression test)."""
    client, document = await _two_runs(await start("vscode"), scripted)
    _, first = client.execute("codeteam.generate", argument(document, "def alpha"))
    _, second = client.execute("codeteam.generate", argument(document, "def beta"))
    answers = await asyncio.gather(first, second)
    assert all(a["applied"] for a in answers), answers
    ast.parse(document.text)
    assert "total += x" in document.text and "product *= x" in document.text


async def test_two_runs_with_a_debounced_client(start, scripted, client_kind):
    client, document = await _two_runs(await start(client_kind), scripted, 1.0, 1.3)
    delay_did_change(client, 1.0)
    _, first = client.execute("codeteam.generate", argument(document, "def alpha"))
    _, second = client.execute("codeteam.generate", argument(document, "def beta"))
    answers = await asyncio.gather(first, second)
    await asyncio.sleep(1.5)
    ast.parse(document.text)
    assert "total += x" in document.text and "product *= x" in document.text
    assert all(a["applied"] for a in answers), answers


async def test_plan_on_a_tab_indented_function_keeps_the_file_valid(start, scripted):
    started = await start("vscode")
    scripted.reply(PLANNER, "1. Multiply x by two.\n2. Return it.")
    client = started.client
    source = "import math\n\n\ndef double(x):\n\treturn 2 * x\n"
    document = client.open(started.root / "tabs.py", source)
    answer = await client.run_command("codeteam.plan", argument(document, "return 2 * x"))
    assert "typed" not in answer["message"], answer
    ast.parse(document.text)


async def test_typing_in_the_new_function_right_after_the_edit(start, scripted):
    started = await start("vscode")
    scripted.reply(ANALYST + r".*alpha", "1. Add them up.")
    scripted.reply(WRITE + "alpha", ALPHA)
    client = started.client
    document = client.open(started.root / "two.py", TWO)
    apply = client.apply_text_edits

    def apply_then_type(doc, edits):
        apply(doc, edits)
        index = doc.text.index("    return total") + len("    return total")
        client.replace(doc, index, index, "  # ok")  # the user's next keystrokes

    client.apply_text_edits = apply_then_type
    answer = await client.run_command("codeteam.generate", argument(document, "def alpha"))
    assert "return total  # ok" in document.text
    assert answer["applied"] is True, answer


async def test_result_applies_while_another_function_is_half_typed(start, scripted):
    started = await start("vscode")
    scripted.reply(ANALYST + r".*alpha", "1. Add them up.")
    scripted.reply(WRITE + "alpha", ALPHA, delay_s=1.5)
    client = started.client
    document = client.open(started.root / "two.py", TWO)
    _, future = client.execute("codeteam.generate", argument(document, "def alpha"))
    await client.wait_until(lambda: scripted.count(WRITE + "alpha") == 1, what="the coder")
    index = len(document.text)
    client.replace(document, index, index, "    result = max(")  # typing in beta, mid-line
    answer = await future
    assert answer["applied"] is True, answer
    assert "total += x" in document.text


async def test_a_kept_result_survives_a_later_run(start, scripted):
    client, document = await _two_runs(await start("vscode"), scripted, 2.0, 0.5)
    _, first = client.execute("codeteam.generate", argument(document, "def alpha"))
    _, second = client.execute("codeteam.generate", argument(document, "def beta"))
    await client.wait_until(lambda: scripted.count(WRITE + "beta") == 1, what="beta's coder")
    index = document.text.index("def beta")
    client.replace(document, index, index + len("def beta"), "def beta_renamed")
    beta_answer = await second
    assert beta_answer["applied"] is False and "kept" in beta_answer["message"]
    await first
    transcript = await client.run_command("codeteam.transcript")
    assert "product *= x" in transcript["markdown"]
