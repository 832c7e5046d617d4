"""Generate with team: the edit lands exactly on the function, whatever happens around it."""

from __future__ import annotations

import ast
import copy

import pytest
from editor_harness import ANALYST, CLIENTS, CODER
from lsprotocol import types
from pytest_lsp import client_capabilities

from scripted_replies import GOOD
from waiting import until

pytestmark = pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")

PLAN = "1. Keep the maximum so far.\n2. Append it for each element.\n3. Return the list."
BODY = "out.append(x if not out else max(out[-1], x))"

MODULE = '''"""Helpers."""

import math


def before():
    return math.pi


def running_max(xs):
    """Return the running maximum of xs."""


def after():
    return 2
'''


def split_around(text: str, start_marker: str, end_marker: str) -> tuple[str, str]:
    """The text before ``start_marker``'s line and from ``end_marker``'s line on."""
    start = text.index(start_marker)
    start = text.rfind("\n", 0, start) + 1
    end = text.index(end_marker)
    end = text.rfind("\n", 0, end) + 1
    return text[:start], text[end:]


def position_argument(document, needle: str, column: int = 4) -> dict:
    """The argument the VS Code client sends: uri and position only."""
    return {"uri": document.uri, "position": {"line": document.line_of(needle), "character": column}}


async def test_generate_replaces_exactly_the_function(editor, scripted):
    scripted.reply(ANALYST, PLAN).reply(CODER, GOOD)
    client = editor.client
    document = client.open(editor.root / "helpers.py", MODULE)
    line = document.line_of('"""Return the running maximum')
    actions = await client.code_actions(document, (line, 4))
    argument = actions[1]["command"]["arguments"][0]
    assert actions[1]["command"]["command"] == "codeteam.generate"

    answer = await client.run_command("codeteam.generate", argument)

    assert answer["status"] == "untested" and answer["applied"] is True, answer
    text = document.text
    ast.parse(text)
    before, after = split_around(MODULE, "def running_max", "def after")
    assert text.startswith(before) and text.endswith("\n\n\ndef after():\n    return 2\n")
    function = text[len(before) : len(text) - len("\n\ndef after():\n    return 2\n")]
    assert function.startswith('def running_max(xs):\n    """Return the running maximum of xs."""\n')
    assert BODY in function
    assert MODULE.endswith(after) and text.endswith(after)
    # One edit, versioned where the client supports it.
    assert len(client.edits) == 1 and client.edits[0].applied
    edit = client.edits[0].params.edit
    if editor.kind == "vscode":
        assert edit.changes is None and len(edit.document_changes) == 1
        assert edit.document_changes[0].text_document.version == 1
    else:
        assert edit.document_changes is None and list(edit.changes) == [document.uri]
    # The first draft is the direct answer (no analyst); the user was told.
    assert scripted.count(ANALYST) == 0 and "Complete this function" in scripted.texts()[-1]
    assert any("Generate with team · running_max" in m for m in client.message_texts())
    assert not scripted.unmatched


async def test_generate_in_a_crlf_file_keeps_crlf(editor, scripted):
    scripted.reply(ANALYST, PLAN).reply(CODER, GOOD)
    client = editor.client
    source = MODULE.replace("\n", "\r\n")
    document = client.open(editor.root / "helpers.py", source)

    answer = await client.run_command(
        "codeteam.generate", position_argument(document, "def running_max", 0)
    )

    assert answer["applied"] is True, answer
    text = document.text
    assert BODY in text
    assert "\n" not in text.replace("\r\n", "")  # every line still ends with CRLF
    before, after = split_around(source, "def running_max", "def after")
    assert text.startswith(before) and text.endswith(after)
    ast.parse(text)


EMOJI_MODULE = (
    '"""Emoji 🎉 everywhere."""\n'
    "\n"
    'BANNER = "🎉🎊 party 🥳"  # three astral characters, 2 UTF-16 units each\n'
    "\n"
    "\n"
    "def running_max(xs):  # 📈 up only\n"
    '    """Return the running maximum of xs 📈."""'  # the file ends here, no final newline
)


@pytest.mark.parametrize("encodings", [None, ["utf-8"], ["utf-32"], ["utf-32", "utf-16"]])
async def test_emoji_above_and_in_the_function(start, scripted, client_kind, encodings):
    """The function is the last thing in a file without a final newline, its lines hold
    astral characters, and so does a line above it: the edit's end position must be exact
    in the negotiated encoding."""
    capabilities = client_capabilities(CLIENTS[client_kind])
    if encodings is not None:
        capabilities = copy.deepcopy(capabilities)
        capabilities.general = types.GeneralClientCapabilities(position_encodings=encodings)
    started = await start(client_kind, capabilities=capabilities)
    expected = "utf-16" if encodings in (None, ["utf-32", "utf-16"]) else encodings[0]
    assert started.client.encoding == expected
    scripted.reply(ANALYST, PLAN).reply(CODER, GOOD)
    client = started.client
    client.strict_positions = True
    document = client.open(started.root / "emoji.py", EMOJI_MODULE)
    line = document.line_of("Return the running maximum")
    # The client's column for the character after the emoji on that line.
    column = sum(2 if ord(c) > 0xFFFF else 1 for c in '    """Return the running maximum of xs 📈')
    if expected == "utf-8":
        column = len('    """Return the running maximum of xs 📈'.encode())
    elif expected == "utf-32":
        column = len('    """Return the running maximum of xs 📈')
    actions = await client.code_actions(document, (line, column), (line, column + 1))
    assert [a["command"]["arguments"][0]["qualname"] for a in actions] == ["running_max"] * 3

    answer = await client.run_command("codeteam.generate", actions[1]["command"]["arguments"][0])

    assert answer["applied"] is True, answer
    text = document.text
    head = EMOJI_MODULE[: EMOJI_MODULE.index("def running_max")]
    assert text.startswith(head)
    assert text[len(head):] == (
        "def running_max(xs):  # 📈 up only\n"
        '    """Return the running maximum of xs 📈."""\n'
        "    out = []\n"
        "    for x in xs:\n"
        f"        {BODY}\n"
        "    return out"  # still no final newline
    )


async def test_lines_typed_above_while_the_team_works(editor, scripted):
    scripted.reply(ANALYST, PLAN)
    coder = scripted.hold(CODER, GOOD)
    client = editor.client
    document = client.open(editor.root / "helpers.py", MODULE)
    _, future = client.execute("codeteam.generate", position_argument(document, "def running_max"))
    await client.wait_until(coder.arrived.is_set, what="the coder's request", unless=future)
    client.insert_lines(document, document.line_of("def before"), "TYPED = 1\n\n\n")
    client.insert_lines(document, 0, "# a new first line 🎉\n")
    coder.release()

    answer = await future

    assert answer["applied"] is True, answer
    text = document.text
    assert text.startswith('# a new first line 🎉\n"""Helpers."""\n\nimport math\n\n\nTYPED = 1\n')
    assert BODY in text and text.endswith("\n\n\ndef after():\n    return 2\n")
    assert text.count("def running_max") == 1
    ast.parse(text)


@pytest.mark.parametrize("change", ["deleted", "renamed", "signature"])
async def test_function_gone_meanwhile_no_edit_and_a_message(start, scripted, client_kind, change):
    started = await start(client_kind)
    scripted.reply(ANALYST, PLAN)
    coder = scripted.hold(CODER, GOOD)
    client = started.client
    document = client.open(started.root / "helpers.py", MODULE)
    _, future = client.execute("codeteam.generate", position_argument(document, "def running_max"))
    await client.wait_until(coder.arrived.is_set, what="the coder's request", unless=future)
    start_index = document.text.index("def running_max")
    if change == "deleted":
        end_index = document.text.index("def after")
        client.replace(document, start_index, end_index, "")
    elif change == "renamed":
        client.replace(document, start_index, start_index + len("def running_max"), "def run_max")
    else:
        client.replace(document, start_index, start_index + len("def running_max(xs)"),
                       "def running_max(xs, key=None)")
    edited = document.text
    coder.release()

    answer = await future

    assert answer["applied"] is False and "Not applied" in answer["message"], answer
    assert client.edits == [] and document.text == edited
    assert any("Not applied" in m for m in client.message_texts())
    # The result is kept.
    transcript = await client.run_command("codeteam.transcript", {"uri": document.uri})
    assert BODY in transcript["markdown"]
    assert "applied: no" in transcript["markdown"]


async def test_typing_sent_with_the_edit_in_one_did_change(editor, scripted):
    """A client that batches changes (Neovim's debounce) sends the edit and the user's next
    keystrokes in one didChange: the edit is still seen to have landed."""
    scripted.reply(ANALYST, PLAN).reply(CODER, GOOD)
    client = editor.client
    document = client.open(editor.root / "helpers.py", MODULE)
    send = client.text_document_did_change
    held: list[types.DidChangeTextDocumentParams] = []
    client.text_document_did_change = held.append
    apply = client.apply_text_edits

    def apply_type_and_send(doc, edits):
        apply(doc, edits)
        index = doc.text.index("    return out") + len("    return out")
        client.replace(doc, index, index, "  # typed")
        client.text_document_did_change = send
        send(types.DidChangeTextDocumentParams(
            text_document=held[-1].text_document,
            content_changes=[change for params in held for change in params.content_changes],
        ))

    client.apply_text_edits = apply_type_and_send
    answer = await client.run_command(
        "codeteam.generate", position_argument(document, "def running_max")
    )
    assert len(held) == 2 and "return out  # typed" in document.text
    assert answer["applied"] is True, answer


async def test_stale_edit_reported_applied_is_not_trusted(editor, scripted):
    """Neovim 0.7.2 answers applied=true for a versioned edit it skipped."""
    scripted.reply(ANALYST, PLAN).reply(CODER, GOOD)
    client = editor.client
    client.apply_mode = "ignore"
    document = client.open(editor.root / "helpers.py", MODULE)

    answer = await client.run_command(
        "codeteam.generate", position_argument(document, "def running_max")
    )

    assert answer["applied"] is False, answer
    assert "does not contain the new function" in answer["message"]
    assert len(client.edits) == 1 and document.text == MODULE


async def test_refused_edit_is_reported(start, scripted):
    started = await start("vscode")
    scripted.reply(ANALYST, PLAN).reply(CODER, GOOD)
    client = started.client
    client.apply_mode = "refuse"
    document = client.open(started.root / "helpers.py", MODULE)
    answer = await client.run_command(
        "codeteam.generate", position_argument(document, "def running_max")
    )
    assert answer["applied"] is False and "refused by the test" in answer["message"]


async def test_unchanged_code_sends_no_edit(start, scripted, client_kind):
    started = await start(client_kind)
    source = MODULE.replace(
        '    """Return the running maximum of xs."""\n',
        '    """Return the running maximum of xs."""\n    return xs\n',
    )
    scripted.reply(ANALYST, PLAN).reply(CODER, "```python\ndef running_max(xs):\n    return xs\n```")
    client = started.client
    document = client.open(started.root / "helpers.py", source)
    answer = await client.run_command(
        "codeteam.generate", position_argument(document, "return xs")
    )
    assert answer["applied"] is False and "unchanged" in answer["message"]
    assert client.edits == [] and document.text == source


async def test_a_second_run_on_the_same_function_is_refused(start, scripted, client_kind):
    started = await start(client_kind)
    scripted.reply(ANALYST, PLAN)
    coder = scripted.hang(CODER)
    client = started.client
    document = client.open(started.root / "helpers.py", MODULE)
    argument = position_argument(document, "def running_max")
    first_id, first = client.execute("codeteam.generate", argument)
    await client.wait_until(coder.arrived.is_set, what="the coder's request", unless=first)

    second = await client.run_command("codeteam.review", argument)

    assert second["status"] == "busy" and "already working on running_max" in second["message"]
    client.cancel_request(first_id)
    with pytest.raises(Exception, match="cancel"):
        await first
    await client.wait_until(coder.abandoned.is_set, what="the model call to be closed")


async def test_model_unreachable_is_a_clear_error(start, client_kind, unused_tcp_port):
    started = await start(client_kind, base_url=f"http://127.0.0.1:{unused_tcp_port}/v1")
    client = started.client
    document = client.open(started.root / "helpers.py", MODULE)
    answer = await client.run_command(
        "codeteam.generate", position_argument(document, "def running_max")
    )
    assert answer["status"] == "error" and answer["applied"] is False
    assert "cannot reach" in answer["message"]
    assert client.edits == []
    assert any(m.type == types.MessageType.Error and "cannot reach" in m.message
               for m in client.messages)


async def test_embedded_model_missing_is_a_clear_error(start, tmp_path):
    from editor_harness import server_env

    env = server_env(embedded_gguf=tmp_path / "missing.gguf", max_retries=0)
    started = await start("neovim", env=env)
    client = started.client
    document = client.open(started.root / "helpers.py", MODULE)
    answer = await client.run_command(
        "codeteam.plan", position_argument(document, "def running_max")
    )
    assert answer["status"] == "error"
    assert "missing.gguf is not a file" in answer["message"]
    # The server keeps serving.
    line = document.line_of("def running_max")
    assert len(await client.code_actions(document, (line, 0))) == 3


async def test_bad_arguments_are_a_clear_error(editor):
    for argument in (
        None,
        "file:///x.py",
        {"uri": 3},
        {"uri": "file:///x.py"},
        {"uri": "file:///x.py", "position": {"line": -1, "character": 0}},
        {"uri": "file:///x.py", "qualname": ""},
    ):
        arguments = [] if argument is None else [argument]
        answer = await editor.client.run_command("codeteam.generate", *arguments)
        assert answer["status"] == "error" and answer["applied"] is False, argument
        assert "uri" in answer["message"] or "position" in answer["message"] or (
            "qualname" in answer["message"]
        ), answer
    answer = await editor.client.run_command(
        "codeteam.review", {"uri": (editor.root / "closed.py").as_uri(), "qualname": "f"}
    )
    assert answer["status"] == "error" and "is not open in the editor" in answer["message"]


async def test_no_function_at_the_position(start, client_kind):
    started = await start(client_kind)
    client = started.client
    document = client.open(started.root / "helpers.py", MODULE)
    answer = await client.run_command(
        "codeteam.generate", position_argument(document, "import math", 0)
    )
    assert answer["status"] == "error" and "no function at line 3" in answer["message"]


async def test_shutdown_while_a_run_is_in_progress(start, scripted, client_kind):
    started = await start(client_kind)
    scripted.reply(ANALYST, PLAN)
    coder = scripted.hang(CODER)
    client = started.client
    document = client.open(started.root / "helpers.py", MODULE)
    _, future = client.execute("codeteam.generate", position_argument(document, "def running_max"))
    await client.wait_until(coder.arrived.is_set, what="the coder's request", unless=future)
    await client.shutdown_session()
    assert client._server.returncode == 0
    await until(coder.abandoned.is_set, "the model call to be closed")
    assert client.edits == []


async def test_edit_refused_for_a_stale_version_is_made_again(start, scripted):
    """VS Code refuses a versioned edit when the user typed just before it arrived: the
    server re-locates the function in the new text and sends the edit again."""
    started = await start("vscode")
    scripted.reply(ANALYST, PLAN).reply(CODER, GOOD)
    client = started.client
    document = client.open(started.root / "helpers.py", MODULE)
    client.before_apply.append(lambda: client.insert_lines(document, 0, "# typed just now\n"))

    answer = await client.run_command(
        "codeteam.generate", position_argument(document, "def running_max")
    )

    assert answer["applied"] is True, answer
    assert [(e.applied, e.reason) for e in client.edits] == [(False, "version 1 != 2"), (True, None)]
    assert document.text.startswith("# typed just now\n" + MODULE[: MODULE.index("def running_max")])
    assert BODY in document.text and document.text.endswith("\n\n\ndef after():\n    return 2\n")
    ast.parse(document.text)


async def test_form_feed_and_line_separator_do_not_shift_lines(editor, scripted):
    """A form feed and U+2028 are not line breaks (for LSP and for Python): lines typed
    below them and the edit still land on the right lines."""
    scripted.reply(ANALYST, PLAN).reply(CODER, GOOD)
    client = editor.client
    source = MODULE.replace(
        "import math\n", 'import math\n\x0c\nSEPARATOR = "a\u2028b"  # U+2028 inside a string\n'
    )
    document = client.open(editor.root / "helpers.py", source)
    # Two lines below the separator (splitting at \x0c and U+2028 would put this inside the
    # string).
    client.insert_lines(document, document.line_of("SEPARATOR") + 2, "TYPED = 1\n")

    answer = await client.run_command(
        "codeteam.generate", position_argument(document, '"""Return the running maximum')
    )

    assert answer["applied"] is True, answer
    head = source[: source.index("def before")]
    assert document.text.startswith(head[:-1] + "TYPED = 1\n\n")
    assert BODY in document.text and document.text.endswith("\n\n\ndef after():\n    return 2\n")
    assert document.text.count("def running_max") == 1
    ast.parse(document.text)


async def test_generate_while_another_function_is_half_typed(editor, scripted):
    scripted.reply(ANALYST, PLAN).reply(CODER, GOOD)
    client = editor.client
    typing = "def after():\n    return max(\n"
    source = MODULE.replace("def after():\n    return 2\n", typing)
    document = client.open(editor.root / "helpers.py", source)
    first = document.line_of("def after") + 1  # 1-based, before the edit

    answer = await client.run_command(
        "codeteam.generate", position_argument(document, "def running_max"))

    assert answer["applied"] is True, answer
    assert f"note: code that does not parse (lines {first}-{first + 1}) was left out" \
        in answer["message"]
    text = document.text
    assert BODY in text and text.endswith("\n\n\n" + typing)  # the half-typed code is kept
    assert all("return max(" not in request for request in scripted.texts())

    answer = await client.run_command(
        "codeteam.generate", position_argument(document, "return max(", 8))
    assert answer["status"] == "error" and answer["applied"] is False
    first = document.line_of("def after") + 1
    assert f"line {first + 1} is in code that does not parse" in answer["message"]
