"""Every request with an id gets an answer (issue 25, item 3), over the real server's stdio with
raw JSON-RPC (no LSP client library in between: pytest-lsp would refuse to send such params):
params that do not structure get InvalidParams (-32602) naming the field, a body whose
Content-Length counted characters instead of bytes gets ParseError (-32700) for its id, and
the server reads the following requests again."""

from __future__ import annotations

import json
import subprocess
import threading
from typing import Any

import pytest
from editor_harness import SERVER_COMMAND, server_env

URI = "file:///tmp/codeteam-jsonrpc/m.py"
TEXT = 'def f(x):\n    """Return x, ünïcödé."""\n'


class RawClient:
    """The server over stdio, spoken to in raw JSON-RPC; responses are kept by id, requests
    from the server answered with null."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            SERVER_COMMAND, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, env=server_env(base_url="http://127.0.0.1:9/v1"),
        )
        self.responses: dict[Any, dict] = {}
        self._arrived = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self.process.stdout
        assert out is not None
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                if line.startswith(b"Content-Length:"):
                    length = int(line.split(b":")[1])
                if line == b"\r\n":
                    break
            message = json.loads(out.read(length))
            if "method" in message:
                if "id" in message:
                    self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
                continue
            with self._arrived:
                self.responses[message.get("id")] = message
                self._arrived.notify_all()

    def send(self, message: dict, *, content_length: int | None = None) -> None:
        body = json.dumps(message, ensure_ascii=False).encode()
        length = len(body) if content_length is None else content_length
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % length + body)
        self.process.stdin.flush()

    def response(self, msg_id: Any, timeout_s: float = 30.0) -> dict:
        """The response to ``msg_id`` once it arrived (bounded: a missing answer fails)."""
        with self._arrived:
            if not self._arrived.wait_for(lambda: msg_id in self.responses, timeout_s):
                raise AssertionError(f"no response to request {msg_id!r}")
            return self.responses[msg_id]

    def close(self) -> None:
        self.process.kill()
        self.process.wait()


@pytest.fixture
def raw():
    client = RawClient()
    client.send({"jsonrpc": "2.0", "id": "init", "method": "initialize",
                 "params": {"processId": None, "rootUri": None, "capabilities": {}}})
    assert client.response("init")["result"]["serverInfo"]["name"] == "codeteam"
    client.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    client.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": URI, "languageId": "python", "version": 1, "text": TEXT}}})
    yield client
    client.close()


def position(line: Any, character: Any) -> dict:
    return {"line": line, "character": character}


def code_action(msg_id: Any, range_: dict | None, **context: Any) -> dict:
    params: dict[str, Any] = {"textDocument": {"uri": URI},
                              "context": {"diagnostics": [], **context}}
    if range_ is not None:
        params["range"] = range_
    return {"jsonrpc": "2.0", "id": msg_id, "method": "textDocument/codeAction",
            "params": params}


GOOD_RANGE = {"start": position(0, 0), "end": position(0, 0)}


@pytest.mark.parametrize(("range_", "message"), [
    ({"start": position(-1, 0), "end": position(0, 0)},
     "params.range.start.line must be an integer from 0 to 2147483647, got -1"),
    ({"start": position(0, 2**32 + 5), "end": position(0, 0)},
     "params.range.start.character must be an integer from 0 to 2147483647, got 4294967301"),
    ({"start": position("one", 0), "end": position(0, 0)},
     "params.range.start.line: invalid value for type, expected int"),
    (None, "params.range: required field missing"),
])
def test_params_that_do_not_structure_get_invalid_params_naming_the_field(raw, range_, message):
    raw.send(code_action(2, range_))
    answer = raw.response(2)
    assert answer["error"]["code"] == -32602
    assert answer["error"]["message"] == f"textDocument/codeAction: invalid params: {message}"
    raw.send(code_action(3, GOOD_RANGE))  # and the server goes on answering
    titles = [action["title"] for action in raw.response(3)["result"]]
    assert "Generate with team" in titles


def test_a_body_whose_content_length_counts_characters_and_the_next_six(raw):
    cut = code_action(7, GOOD_RANGE)
    cut["params"]["context"]["diagnostics"] = [{"range": GOOD_RANGE, "message": "ünïcödé"}]
    characters = len(json.dumps(cut, ensure_ascii=False))  # 4 bytes fewer than the body
    raw.send(cut, content_length=characters)
    for msg_id in range(8, 14):
        raw.send(code_action(msg_id, GOOD_RANGE))
    answer = raw.response(7)
    assert answer["error"]["code"] == -32700
    assert "not valid JSON (does its Content-Length count the body's bytes" in \
        answer["error"]["message"]
    for msg_id in range(8, 14):
        assert "result" in raw.response(msg_id), msg_id
