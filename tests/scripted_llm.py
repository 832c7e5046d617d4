"""A scripted OpenAI-compatible chat server on 127.0.0.1 for deterministic tests.

Real HTTP, real ``openai`` client on the other side. A test adds rules; each request to
``/v1/chat/completions`` takes the first unused rule whose ``match`` accepts it. A rule
answers with a completion text, an HTTP error status, or a delay (to force timeouts).
Every request body is recorded in :attr:`ScriptedLLM.requests`. A request no rule accepts is
answered 500 ``no scripted reply`` and recorded in :attr:`ScriptedLLM.unmatched`, so a test
sees it.

Typical use::

    llm.reply("You are the coder", "```python\\ndef f(x):\\n    return x\\n```")
    llm.error("You are the tester", status=429, times=1)
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

Matcher = Callable[[dict[str, Any]], bool]


@dataclass
class Rule:
    match: Matcher
    text: str | None = None
    status: int = 200
    delay_s: float = 0.0
    times: int | None = 1  # None: forever
    used: int = 0
    headers: dict[str, str] = field(default_factory=dict)
    label: str = ""

    def available(self) -> bool:
        return self.times is None or self.used < self.times


def _as_matcher(match: str | Matcher | None) -> Matcher:
    if match is None:
        return lambda body: True
    if callable(match):
        return match
    pattern = re.compile(match, re.DOTALL)

    def by_text(body: dict[str, Any]) -> bool:
        text = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
        return bool(pattern.search(text))

    return by_text


class ScriptedLLM:
    """The server. Use as a context manager, or call :meth:`start` and :meth:`stop`."""

    def __init__(self) -> None:
        self.rules: list[Rule] = []
        self.requests: list[dict[str, Any]] = []
        self.unmatched: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- scripting -------------------------------------------------------------------------
    def reply(
        self,
        match: str | Matcher | None,
        text: str,
        *,
        times: int | None = 1,
        delay_s: float = 0.0,
    ) -> ScriptedLLM:
        """Answer requests whose messages match ``match`` (a regex, or a predicate on the
        request body) with a completion holding ``text``."""
        with self._lock:
            self.rules.append(
                Rule(_as_matcher(match), text=text, times=times, delay_s=delay_s, label=str(match))
            )
        return self

    def error(
        self,
        match: str | Matcher | None,
        *,
        status: int,
        times: int | None = 1,
        retry_after_s: float | None = 0.01,
    ) -> ScriptedLLM:
        """Answer with HTTP ``status`` (429, 500, ...). A short ``Retry-After`` keeps the SDK's
        backoff fast in tests."""
        headers = {}
        if retry_after_s is not None:
            headers["retry-after-ms"] = str(int(retry_after_s * 1000))
        with self._lock:
            self.rules.append(
                Rule(_as_matcher(match), status=status, times=times, headers=headers,
                     label=f"{match} -> {status}")
            )
        return self

    def hang(self, match: str | Matcher | None, *, seconds: float, times: int | None = 1,
             text: str = "late") -> ScriptedLLM:
        """Answer only after ``seconds`` (to provoke the client's timeout)."""
        return self.reply(match, text, times=times, delay_s=seconds)

    # --- inspection ------------------------------------------------------------------------
    def texts(self) -> list[str]:
        """Each recorded request's messages joined into one string."""
        return [
            "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
            for body in self.requests
        ]

    def wait_for_requests(self, count: int = 1, timeout_s: float = 60.0) -> bool:
        """Block until at least ``count`` requests arrived (an event, not a sleep); False
        when ``timeout_s`` passed first."""
        with self._arrived:
            return self._arrived.wait_for(lambda: len(self.requests) >= count, timeout_s)

    def count(self, pattern: str) -> int:
        """How many recorded requests contain ``pattern`` (a regex)."""
        return sum(1 for text in self.texts() if re.search(pattern, text, re.DOTALL))

    @property
    def base_url(self) -> str:
        assert self._server is not None, "not started"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    # --- serving ---------------------------------------------------------------------------
    def _take(self, body: dict[str, Any]) -> Rule | None:
        with self._lock:
            self.requests.append(body)
            self._arrived.notify_all()
            for rule in self.rules:
                if rule.available() and rule.match(body):
                    rule.used += 1
                    return rule
            self.unmatched.append(body)
            return None

    def start(self) -> ScriptedLLM:
        scripted = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def _send(self, status: int, payload: dict[str, Any],
                      headers: dict[str, str] | None = None) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def do_GET(self) -> None:  # /v1/models
                self._send(200, {"object": "list", "data": [{"id": "scripted", "object": "model"}]})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                if not self.path.endswith("/chat/completions"):
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                rule = scripted._take(body)
                if rule is None:
                    self._send(500, {"error": {"message": "no scripted reply",
                                               "type": "server_error"}})
                    return
                if rule.delay_s:
                    time.sleep(rule.delay_s)
                if rule.status != 200:
                    self._send(rule.status, {"error": {"message": f"scripted {rule.status}",
                                                       "type": "scripted"}}, rule.headers)
                    return
                prompt_tokens = sum(len(str(m.get("content", "")).split())
                                    for m in body.get("messages", []))
                completion_tokens = len((rule.text or "").split())
                self._send(200, {
                    "id": f"chatcmpl-{len(scripted.requests)}",
                    "object": "chat.completion",
                    "created": 0,
                    "model": body.get("model", "scripted"),
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": rule.text}}],
                    "usage": {"prompt_tokens": prompt_tokens,
                              "completion_tokens": completion_tokens,
                              "total_tokens": prompt_tokens + completion_tokens},
                })

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
