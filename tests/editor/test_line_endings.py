"""The editor's edit keeps the document's own line ending (issue 25, item 9): CR-only (old
Mac) files stay CR everywhere in the new function, as CRLF files stay CRLF
(test_generate.py)."""

from __future__ import annotations

import ast

import pytest
from editor_harness import ANALYST, CODER
from test_generate import GOOD, MODULE, PLAN, position_argument, split_around

pytestmark = pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")


async def test_generate_in_a_cr_only_file_keeps_cr(editor, scripted):
    scripted.reply(ANALYST, PLAN).reply(CODER, GOOD)
    client = editor.client
    source = MODULE.replace("\n", "\r")
    document = client.open(editor.root / "helpers.py", source)

    answer = await client.run_command(
        "codeteam.generate", position_argument(document, "def running_max", 0)
    )

    assert answer["applied"] is True, answer
    text = document.text
    assert "out.append(x if not out else max(out[-1], x))\r" in text
    assert "\n" not in text  # every line still ends with CR, the new ones too
    before, after = split_around(MODULE, "def running_max", "def after")
    assert text.startswith(before.replace("\n", "\r"))
    assert text.endswith(after.replace("\n", "\r"))
    ast.parse(text)
