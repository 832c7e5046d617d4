"""The editor tests a function where it lives: the workspace folder holding the file is its
project, the module is imported inside its package, an unusable python setting is said once."""

from __future__ import annotations

import pytest
from test_generate import position_argument

pytestmark = [
    pytest.mark.sandbox,
    pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning"),
]

GREET = '''\
from .i18n import _


def greet(name):
    """Greet.

    >>> greet("bob")
    'HELLO BOB'
    """
    return _("hello " + name)
'''


async def test_review_in_a_package_with_a_bad_python_setting(start):
    started = await start("vscode", python="/no/such/python")
    client = started.client
    package = started.root / "greeting"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "i18n.py").write_text("def _(text):\n    return text.upper()\n")
    document = client.open(package / "greet.py", GREET)
    for _ in range(2):
        answer = await client.run_command(
            "codeteam.review", position_argument(document, 'return _("hello')
        )
        assert answer["status"] == "passed", answer
        assert "1/1 tests passed" in answer["message"], answer
    said = [text for text in client.message_texts() if "/no/such/python does not exist" in text]
    assert len(said) == 1, client.message_texts()
