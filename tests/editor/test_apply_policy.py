"""What "Generate with team" may apply (issue 25, items 4 and 7), decided by the service
(codeteam.service.write_policy.write_decision): code holding the API key is never applied,
and code that did not pass is not applied without the user's consent: the user is told, the
result is kept, and its failures are shown as diagnostics."""

from __future__ import annotations

import pytest
from editor_harness import CODER
from test_generate import position_argument

pytestmark = [
    pytest.mark.sandbox,
    pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning"),
]

KEY = "sk-proj-EditorEcho0pAsecretKEY4711"
STUB = '''def double(x):
    """Double x.

    >>> double(2)
    4
    """
    return x * 2
'''


async def test_code_holding_the_api_key_is_not_applied(start, scripted, client_kind):
    editor = await start(client_kind, api_key=KEY)
    scripted.reply(CODER, f'```python\ndef double(x):\n    key = "{KEY}"\n    return 2 * x\n```')
    client = editor.client
    document = client.open(editor.root / "m.py", STUB)

    answer = await client.run_command("codeteam.generate",
                                      position_argument(document, "def double", 0))

    assert answer["applied"] is False and answer["status"] == "passed", answer
    assert ("Not applied: the new code holds the configured API key (the model wrote it into "
            "the code); code holding the key is never written to a file.") in answer["message"]
    assert client.edits == [] and document.text == STUB
    shown = "\n".join(client.message_texts()) + answer["message"]
    assert KEY not in shown
    transcript = await client.run_command("codeteam.transcript")
    assert KEY not in str(transcript)


async def test_failing_code_is_not_applied_and_its_failures_are_shown(start, scripted,
                                                                       client_kind):
    editor = await start(client_kind)
    scripted.reply(CODER, "```python\ndef double(x):\n    return x + 1\n```")
    client = editor.client
    document = client.open(editor.root / "m.py", STUB)

    answer = await client.run_command("codeteam.generate",
                                      position_argument(document, "def double", 0))

    assert answer["applied"] is False and answer["status"] == "failed", answer
    assert "Not applied: the new code fails 1 of its 1 tests; it needs your consent" in \
        answer["message"]
    assert "Its 1 failing test(s) are shown as diagnostics on double." in answer["message"]
    assert client.edits == [] and document.text == STUB
    await client.wait_until(lambda: document.uri in client.diagnostics, what="diagnostics")
    diagnostics = {d.code: d for d in client.diagnostics[document.uri]}
    failing = diagnostics["doctest:1"]
    assert failing.message.startswith("new code (not applied): test failed: >>> double(2)")
    assert failing.range.start.line == document.line_of(">>> double(2)")
    assert diagnostics["summary"].message.startswith("codeteam: new code not applied:")
    transcript = await client.run_command("codeteam.transcript")
    assert "return x + 1" in str(transcript)  # the result is kept
