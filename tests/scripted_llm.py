"""A scripted OpenAI-compatible chat server on 127.0.0.1 for deterministic tests.

Real HTTP, real ``openai`` client on the other side. A test adds rules; each request to
``/v1/chat/completions`` takes the first unused rule whose ``match`` accepts it. A rule
answers with a completion text or an HTTP error status, at once or when the test releases it
(:meth:`ScriptedLLM.hold`). Every request body is recorded in :attr:`ScriptedLLM.requests`. A
request no rule accepts is answered 500 ``no scripted reply`` and recorded in
:attr:`ScriptedLLM.unmatched`, so a test sees it.

Nothing here waits on the clock: a held reply goes out when the test calls
:meth:`Hold.release`, and a request the model never answers (:meth:`ScriptedLLM.hang`) stays
open until the client gives up (its own timeout, a cancel) or the test ends. Each
:class:`Hold` is what a test waits for: ``arrived`` (the request reached the model) and
``abandoned`` (the client closed the connection while it waited: a cancel or a timeout reached
the model call).

Typical use::

    llm.reply("You are the coder", "```python\\ndef f(x):\\n    return x\\n```")
    llm.error("You are the tester", status=429, times=1)
    held = llm.hold("You are the coder", GOOD)   # ... wait for held.arrived, type ...
    held.release()
"""

from __future__ import annotations

import json
import re
import select
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

Matcher = Callable[[dict[str, Any]], bool]


POLL_S = 0.02
"""How often a held reply looks at its events and its connection (seconds)."""


@dataclass(eq=False)
class Hold:
    """Replies of one rule kept back until :meth:`release`. ``arrived`` is set when the first
    request the rule took came in (``arrivals`` counts them), ``abandoned`` when a client
    closed its connection while its reply was held (the call was cancelled or timed out: no
    reply is sent then). Events are :class:`threading.Event` (the server runs in threads)."""

    arrived: threading.Event = field(default_factory=threading.Event)
    released: threading.Event = field(default_factory=threading.Event)
    abandoned: threading.Event = field(default_factory=threading.Event)
    arrivals: int = 0

    def release(self) -> None:
        """Send the held replies now, and answer later requests of the rule at once."""
        self.released.set()

    def wait(self, connection: socket.socket, stopping: threading.Event) -> bool:
        """In the request's thread: True once released (or the server stops), False when the
        client closed ``connection`` first."""
        while not (self.released.is_set() or stopping.is_set()):
            readable, _, _ = select.select([connection], [], [], POLL_S)
            if readable:
                if _closed(connection):
                    self.abandoned.set()
                    return False
                self.released.wait(POLL_S)  # bytes of a next request: not a close
        return True


def _closed(connection: socket.socket) -> bool:
    try:
        return connection.recv(1, socket.MSG_PEEK) == b""
    except OSError:
        return True


@dataclass
class Rule:
    match: Matcher
    text: str | None = None
    status: int = 200
    hold: Hold | None = None
    latency_s: float = 0.0
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
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- scripting -------------------------------------------------------------------------
    def reply(self, match: str | Matcher | None, text: str, *,
              times: int | None = 1, latency_s: float = 0.0) -> ScriptedLLM:
        """Answer requests whose messages match ``match`` (a regex, or a predicate on the
        request body) with a completion holding ``text``. ``latency_s`` (seconds) is a model's
        time to answer, for the benchmarks (scripts/bench_code_action.py); tests that need a
        reply to wait use :meth:`hold`."""
        self._add(Rule(_as_matcher(match), text=text, times=times, label=str(match),
                       latency_s=latency_s))
        return self

    def hold(self, match: str | Matcher | None, text: str, *, times: int | None = 1) -> Hold:
        """Like :meth:`reply`, but each reply waits until the test calls ``release()`` on the
        returned :class:`Hold` (or the client gives up, or the server stops)."""
        held = Hold()
        self._add(Rule(_as_matcher(match), text=text, times=times, hold=held, label=str(match)))
        return held

    def hang(self, match: str | Matcher | None, *, times: int | None = 1) -> Hold:
        """Never answer: the request stays open until the client gives up (its timeout, a
        cancel: ``abandoned`` is set) or the test ends. Returns the :class:`Hold` to wait on."""
        return self.hold(match, "late", times=times)

    def _add(self, rule: Rule) -> None:
        with self._lock:
            self.rules.append(rule)

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
        self._add(Rule(_as_matcher(match), status=status, times=times, headers=headers,
                       label=f"{match} -> {status}"))
        return self

    def reset(self) -> None:
        """Forget every rule and recorded request (a server shared by several tests): held
        replies still waiting are released first."""
        with self._lock:
            for rule in self.rules:
                if rule.hold is not None:
                    rule.hold.release()
            self.rules, self.requests, self.unmatched = [], [], []

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
                    if rule.hold is not None:
                        rule.hold.arrivals += 1
                        rule.hold.arrived.set()
                    return rule
            self.unmatched.append(body)
            return None

    def start(self) -> ScriptedLLM:
        scripted = self
        self._stopping.clear()

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
                if rule.hold is not None and not rule.hold.wait(self.connection,
                                                               scripted._stopping):
                    self.close_connection = True  # the client went away: nothing to answer
                    return
                if rule.latency_s:
                    scripted._stopping.wait(rule.latency_s)  # a benchmark's model latency
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
        """Release every held reply and stop serving (waits for the request threads)."""
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
