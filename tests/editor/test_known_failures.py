"""Failures known before the first model call, and secrets (issue 13, items 3 and 7): no
model call without a sandbox that can test, one message naming an unreachable endpoint (its
userinfo masked), and a key pasted into the wrong setting shown nowhere."""

from __future__ import annotations

import socket

import pytest
from editor_harness import server_env
from lsprotocol import types
from test_generate import MODULE, position_argument

pytestmark = pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")

KEY = "sk-proj-Zx81kQmW0pAsecretKEY4711"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def everything_shown(client) -> str:
    """Every message, log message and progress text the client received."""
    texts = [m.message for m in client.messages] + [m.message for m in client.log_messages]
    for reports in client.progress_reports.values():
        texts += [str(getattr(r, "message", "") or "") for r in reports]
        texts += [str(getattr(r, "title", "") or "") for r in reports]
    return "\n".join(texts)


async def test_without_bwrap_no_model_call_is_made(start, scripted, tmp_path):
    empty = tmp_path / "bin"
    empty.mkdir()
    env = server_env(base_url=scripted.base_url, max_retries=0, timeout_s=60, ai_tests=0,
                     max_rounds=1, sandbox="bwrap")
    env["PATH"] = str(empty)  # no bwrap
    started = await start("vscode", env=env)
    client = started.client
    document = client.open(started.root / "helpers.py", MODULE)

    answer = await client.run_command(
        "codeteam.generate", position_argument(document, "def running_max")
    )

    assert answer["status"] == "error" and answer["applied"] is False
    assert "cannot be tested here, so no model call was made" in answer["message"]
    assert "bubblewrap (bwrap) is not installed" in answer["message"]
    assert scripted.requests == [] and document.text == MODULE


async def test_an_unreachable_endpoint_is_one_message_with_userinfo_masked(start):
    port = free_port()
    started = await start(
        "vscode", base_url=f"http://alice:pa55-hunter2@127.0.0.1:{port}/v1", sandbox="none",
        max_retries=1,
    )
    client = started.client
    document = client.open(started.root / "helpers.py", MODULE)

    answer = await client.run_command(
        "codeteam.generate", position_argument(document, "def running_max")
    )

    assert answer["status"] == "error"
    assert answer["message"] == (
        f"Generate with team on running_max: cannot reach http://***@127.0.0.1:{port}/v1: "
        "All connection attempts failed; nothing was produced"
    )
    errors = [m for m in client.messages if m.type == types.MessageType.Error]
    assert [m.message for m in errors] == [answer["message"]]
    shown = everything_shown(client)
    assert "pa55-hunter2" not in shown and "alice" not in shown


async def test_a_key_in_the_wrong_settings_is_shown_nowhere(start, scripted, tmp_path):
    log_file = tmp_path / "server.log"
    from editor_harness import SERVER_COMMAND

    command = [*SERVER_COMMAND[:-1], "-v", "serve", "--log-file", str(log_file)]
    started = await start(
        "vscode", command=command,
        init_options={"codeteam": {"timeout_s": KEY, "max_retries": KEY, "models": KEY,
                                   "base_url": KEY}},
    )
    client = started.client
    await client.wait_until(
        lambda: sum("codeteam settings:" in m.message for m in client.messages) >= 4,
        what="the four warnings",
    )
    warnings = [m.message for m in client.messages if "codeteam settings:" in m.message]
    for setting in ("timeout_s", "max_retries", "models", "base_url"):
        assert any(m.startswith(f"codeteam settings: {setting}: a text of {len(KEY)} characters")
                   for m in warnings), warnings
    await client.shutdown_session()
    assert KEY not in everything_shown(client)
    assert "Zx81" not in log_file.read_text()
