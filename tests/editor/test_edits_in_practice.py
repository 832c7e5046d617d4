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


def hold_did_change(client):
    """The client's didChange notifications are held back (a debounce, like Neovim's default
    150 ms without codeteam's module) until the returned ``flush()`` sends them, in order;
    later ones go at once. ``flush.held`` is the list still held."""
    send = client.text_document_did_change
    held: list = []

    def flush():
        client.text_document_did_change = send
        while held:
            send(held.pop(0))

    client.text_document_did_change = held.append
    flush.held = held
    return flush


def stage_of(client, qualname: str, stage: str) -> bool:
    """Whether the run on ``qualname`` (its progress began with "qualname: starting") has
    reported ``stage``."""
    for reports in client.progress_reports.values():
        messages = [getattr(report, "message", None) for report in reports]
        if f"{qualname}: starting" in messages and stage in messages:
            return True
    return False


async def _two_runs(started, scripted):
    """Two generates on one file, each coder reply held: (client, document, futures, holds)
    once both coders' requests reached the model."""
    scripted.reply(ANALYST + r".*alpha", "1. Add them up.")
    scripted.reply(ANALYST + r".*beta", "1. Multiply them.")
    holds = scripted.hold(WRITE + "alpha", ALPHA), scripted.hold(WRITE + "beta", BETA)
    client = started.client
    document = client.open(started.root / "two.py", TWO)
    futures = [client.execute("codeteam.generate", argument(document, f"def {name}"))[1]
               for name in ("alpha", "beta")]
    for hold, name in zip(holds, ("alpha", "beta")):
        await client.wait_until(hold.arrived.is_set, what=f"{name}'s coder", unless=futures)
    return client, document, futures, holds


async def test_two_runs_on_two_functions_of_one_file_vscode(start, scripted):
    """Holds with versioned edits and an immediate didChange (a regression test)."""
    _, document, futures, holds = await _two_runs(await start("vscode"), scripted)
    for hold in holds:
        hold.release()
    answers = await asyncio.gather(*futures)
    assert all(a["applied"] for a in answers), answers
    ast.parse(document.text)
    assert "total += x" in document.text and "product *= x" in document.text


async def test_two_runs_with_a_debounced_client(start, scripted, client_kind):
    """beta's result comes while alpha's edit is applied in the editor but its didChange has
    not reached the server yet: beta's edit must still land on the text with alpha's."""
    client, document, futures, (alpha, beta) = await _two_runs(await start(client_kind),
                                                               scripted)
    flush = hold_did_change(client)
    alpha.release()
    await client.wait_until(lambda: len(client.edits) == 1 and flush.held,
                            what="alpha's edit", unless=futures)
    beta.release()
    # "applying the result", or where the client shows previews (VS Code), the preview's
    await client.wait_until(lambda: stage_of(client, "beta", "applying the result") or stage_of(
        client, "beta", "waiting for you to accept or discard the preview"),
        what="beta's result", unless=futures[1])
    flush()  # alpha's didChange arrives late
    answers = await asyncio.gather(*futures)
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
    coder = scripted.hold(WRITE + "alpha", ALPHA)
    client = started.client
    document = client.open(started.root / "two.py", TWO)
    _, future = client.execute("codeteam.generate", argument(document, "def alpha"))
    await client.wait_until(coder.arrived.is_set, what="the coder", unless=future)
    index = len(document.text)
    client.replace(document, index, index, "    result = max(")  # typing in beta, mid-line
    coder.release()
    answer = await future
    assert answer["applied"] is True, answer
    assert "total += x" in document.text


@pytest.mark.own_server  # the transcript of the server's last run and what it kept
async def test_a_kept_result_survives_a_later_run(start, scripted):
    client, document, (first, second), (alpha, beta) = await _two_runs(
        await start("vscode"), scripted)
    index = document.text.index("def beta")
    client.replace(document, index, index + len("def beta"), "def beta_renamed")
    beta.release()
    beta_answer = await second
    assert beta_answer["applied"] is False and "kept" in beta_answer["message"]
    alpha.release()
    await first
    transcript = await client.run_command("codeteam.transcript")
    assert "product *= x" in transcript["markdown"]
