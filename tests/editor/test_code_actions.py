"""Which code actions the server offers, and what they carry (as sent, raw JSON)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")

SOURCE = '''import functools


def plain(x):
    """Return x doubled."""


class Shape:
    """A shape."""

    def area(self, scale: float = 1.0) -> float:
        """The area times scale."""

    @functools.lru_cache(maxsize=None)
    async def fetch(self, key):
        """Fetch key."""


@functools.wraps(plain)
async def decorated(a, b):
    """Add a and b."""


def outer(xs):
    """Sum of squares."""

    def inner(x):
        """Square x."""
        return x * x

    return sum(inner(x) for x in xs)


VALUE = 1
'''

TITLES = ["Plan this docstring", "Generate with team", "Review with tester"]
COMMANDS = ["codeteam.plan", "codeteam.generate", "codeteam.review"]


def targets(actions):
    """(qualname, signature) of each action's single argument."""
    return [(a["command"]["arguments"][0]["qualname"], a["command"]["arguments"][0]["signature"])
            for a in actions]


async def test_three_actions_on_a_stub_with_a_one_character_range(editor):
    client = editor.client
    document = client.open(editor.root / "shapes.py", SOURCE)
    line = document.line_of('"""Return x doubled."""')

    actions = await client.code_actions(document, (line, 6), (line, 7))

    assert [a["title"] for a in actions] == TITLES
    assert [a["kind"] for a in actions] == ["refactor.rewrite.codeteam"] * 3
    assert [a["command"]["command"] for a in actions] == COMMANDS
    for action in actions:
        assert action["command"]["title"] == action["title"]
        assert action["command"]["arguments"] == [{
            "uri": document.uri,
            "qualname": "plain",
            "signature": "def plain(x)",
            "position": {"line": line, "character": 6},
        }]


INNERMOST = [
    ('"""The area times scale."""', 8, ("Shape.area", "def area(self, scale: float=1.0) -> float")),
    ("def area(", 4, ("Shape.area", "def area(self, scale: float=1.0) -> float")),
    ("@functools.lru_cache", 5, ("Shape.fetch", "async def fetch(self, key)")),
    ('"""Fetch key."""', 8, ("Shape.fetch", "async def fetch(self, key)")),
    ("@functools.wraps(plain)", 0, ("decorated", "async def decorated(a, b)")),
    ('"""Add a and b."""', 4, ("decorated", "async def decorated(a, b)")),
    ("return x * x", 8, ("outer.inner", "def inner(x)")),
    ('"""Square x."""', 8, ("outer.inner", "def inner(x)")),
    ("return sum(inner(x)", 4, ("outer", "def outer(xs)")),
    ('"""Sum of squares."""', 4, ("outer", "def outer(xs)")),
]


async def test_the_innermost_function_is_the_target(editor):
    """Methods, a decorated async method, a decorated async function, a nested function."""
    client = editor.client
    document = client.open(editor.root / "shapes.py", SOURCE)
    for needle, column, expected in INNERMOST:
        line = document.line_of(needle)
        actions = await client.code_actions(document, (line, column), (line, column + 1))
        assert targets(actions) == [expected] * 3, needle


async def test_a_range_over_a_whole_function_means_that_function(editor):
    client = editor.client
    document = client.open(editor.root / "shapes.py", SOURCE)
    first = document.line_of("def outer(xs):")
    last = document.line_of("return sum(inner(x)")
    # A line-wise selection ends at character 0 of the next line.
    actions = await client.code_actions(document, (first, 0), (last + 1, 0))
    assert targets(actions) == [("outer", "def outer(xs)")] * 3
    # A range from one function into another: the innermost function holding both ends.
    inner = document.line_of("return x * x")
    actions = await client.code_actions(document, (inner, 0), (last, 4))
    assert targets(actions) == [("outer", "def outer(xs)")] * 3


async def test_no_action_outside_a_function(editor):
    client = editor.client
    document = client.open(editor.root / "shapes.py", SOURCE)
    for needle in ("import functools", "VALUE = 1", '"""A shape."""', "class Shape:"):
        line = document.line_of(needle)
        assert await client.code_actions(document, (line, 0), (line, 1)) == [], needle
    # and on the blank lines between two functions
    blank = document.line_of("class Shape:") - 1
    assert await client.code_actions(document, (blank, 0)) == []


async def test_context_only_is_respected(editor):
    client = editor.client
    document = client.open(editor.root / "shapes.py", SOURCE)
    line = document.line_of('"""Return x doubled."""')
    for only in (["refactor"], ["refactor.rewrite"], ["refactor.rewrite.codeteam"]):
        actions = await client.code_actions(document, (line, 4), only=only)
        assert [a["title"] for a in actions] == TITLES, only
    for only in (["quickfix"], ["source"], ["refactor.extract"]):
        assert await client.code_actions(document, (line, 4), only=only) == [], only


async def test_a_file_that_does_not_parse(editor):
    client = editor.client
    broken = SOURCE.replace('        """Square x."""\n', '        """Square x."""\n        return (\n')
    document = client.open(editor.root / "shapes.py", broken)
    inner = document.line_of("return x * x")
    # The broken function: nothing offered, and the server keeps answering.
    assert await client.code_actions(document, (inner, 8)) == []
    # Another function of the same file still gets its actions ...
    plain = document.line_of('"""Return x doubled."""')
    actions = await client.code_actions(document, (plain, 4))
    assert targets(actions) == [("plain", "def plain(x)")] * 3
    # ... and the command says why it cannot run.
    answer = await client.run_command("codeteam.generate", actions[1]["command"]["arguments"][0])
    assert answer["status"] == "error"
    assert "does not parse" in answer["message"]
    assert any("does not parse" in m for m in client.message_texts())
    # Fixing the file brings the actions back.
    start = broken.index("        return (\n")
    client.replace(document, start, start + len("        return (\n"), "")
    actions = await client.code_actions(document, (inner - 1, 8))
    assert targets(actions) == [("outer.inner", "def inner(x)")] * 3


async def test_a_non_python_document_gets_nothing(editor):
    client = editor.client
    document = client.open(editor.root / "notes.txt", "def f():\n    pass\n",
                           language_id="plaintext")
    assert await client.code_actions(document, (1, 4)) == []


async def test_commands_for_a_client_without_code_action_literals(start):
    """A client that does not support CodeAction literals gets bare Commands."""
    from editor_harness import CLIENTS
    from pytest_lsp import client_capabilities

    capabilities = client_capabilities(CLIENTS["neovim"])
    capabilities.text_document.code_action.code_action_literal_support = None
    started = await start("neovim", capabilities=capabilities)
    client = started.client
    document = client.open(started.root / "shapes.py", SOURCE)
    line = document.line_of('"""Return x doubled."""')
    commands = await client.code_actions(document, (line, 4))
    assert [c["command"] for c in commands] == COMMANDS
    assert all("kind" not in c and c["title"] in TITLES for c in commands)
    assert commands[0]["arguments"][0]["qualname"] == "plain"
