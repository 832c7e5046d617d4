"""The LLM client against the scripted server: real HTTP through the openai SDK."""

import asyncio
import socket

import pytest

from codeteam.llm.client import (
    ChatMessage,
    Endpoint,
    LLMAuthError,
    LLMClient,
    LLMRateLimited,
    LLMResponseError,
    LLMTimeout,
    LLMUnavailable,
)
from waiting import until

HELLO = [ChatMessage(role="user", content="hello")]


def _client(base_url, **kwargs):
    kwargs.setdefault("max_retries", 2)
    return LLMClient(Endpoint(base_url=base_url, api_key="sk-test-key-42", model="m"), **kwargs)


async def test_reply_usage_and_request_fields(scripted):
    scripted.reply(None, "hi there")
    client = _client(scripted.base_url, seed=7, temperature=0.3, max_tokens=99)
    reply = await client.chat(HELLO)
    assert reply.text == "hi there"
    assert reply.usage.calls == 1 and reply.usage.prompt_tokens == 1
    assert reply.usage.completion_tokens == 2 and reply.usage.seconds > 0
    body = scripted.requests[0]
    assert (body["model"], body["seed"], body["temperature"], body["max_tokens"]) == (
        "m", 7, 0.3, 99)
    assert "cache_prompt" not in body  # only the embedded endpoint sends it
    await client.close()


async def test_extra_body_is_sent(scripted):
    scripted.reply(None, "ok")
    client = LLMClient(Endpoint(base_url=scripted.base_url, extra_body={"cache_prompt": False}))
    await client.chat(HELLO)
    assert scripted.requests[0]["cache_prompt"] is False
    await client.close()


async def test_429_then_success_is_retried(scripted):
    scripted.error(None, status=429, times=1)
    scripted.reply(None, "after the 429")
    client = _client(scripted.base_url)
    reply = await client.chat(HELLO)
    assert reply.text == "after the 429"
    assert len(scripted.requests) == 2
    await client.close()


async def test_429_every_time_raises_rate_limited_after_the_retries(scripted):
    scripted.error(None, status=429, times=None)
    client = _client(scripted.base_url, max_retries=2)
    with pytest.raises(LLMRateLimited):
        await client.chat(HELLO)
    assert len(scripted.requests) == 3  # the first attempt and two retries
    await client.close()


async def test_5xx_is_retried_then_reported(scripted):
    scripted.error(None, status=503, times=None)
    client = _client(scripted.base_url, max_retries=1)
    with pytest.raises(LLMResponseError, match="503"):
        await client.chat(HELLO)
    assert len(scripted.requests) == 2
    await client.close()


async def test_timeout_is_retried_then_raises(scripted):
    hang = scripted.hang(None, times=None)
    client = _client(scripted.base_url, timeout_s=0.3, max_retries=1)
    with pytest.raises(LLMTimeout, match="did not answer"):
        await client.chat(HELLO)
    assert len(scripted.requests) == 2 and hang.arrivals == 2
    await client.close()


async def test_timeout_then_success(scripted):
    scripted.hang(None, times=1)
    scripted.reply(None, "second try")
    client = _client(scripted.base_url, timeout_s=0.3, max_retries=1)
    assert (await client.chat(HELLO)).text == "second try"
    await client.close()


async def test_auth_error_names_no_key(scripted):
    scripted.error(None, status=401, times=None)
    client = _client(scripted.base_url)
    with pytest.raises(LLMAuthError) as error:
        await client.chat(HELLO)
    assert "sk-test-key-42" not in str(error.value)
    assert len(scripted.requests) == 1  # 401 is not retried
    assert "sk-test-key-42" not in repr(client.endpoint)
    await client.close()


async def test_unreachable_endpoint():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again when the block ends: nothing listens
    client = _client(f"http://127.0.0.1:{port}/v1", max_retries=0)
    with pytest.raises(LLMUnavailable, match=str(port)):
        await client.chat(HELLO)
    await client.close()


async def test_cancel_closes_the_request(scripted):
    hang = scripted.hang(None)
    client = _client(scripted.base_url)
    task = asyncio.create_task(client.chat(HELLO))
    await until(hang.arrived.is_set, "the request", unless=task)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await until(hang.abandoned.is_set, "the connection to be closed")
    assert len(scripted.requests) == 1
    await client.close()


# --- every HTTP request is counted (issue 13, item 6) ----------------------------------------
async def test_sdk_retries_are_counted_as_calls(scripted):
    scripted.error(None, status=429, times=2)
    scripted.reply(None, "third time")
    client = _client(scripted.base_url, max_retries=2)
    reply = await client.chat(HELLO)
    assert reply.text == "third time"
    assert len(scripted.requests) == 3
    assert reply.usage.calls == 3 and client.requests_sent == 3
    await client.close()


async def test_a_failed_call_counts_its_requests(scripted):
    scripted.error(None, status=503, times=None)
    client = _client(scripted.base_url, max_retries=2)
    with pytest.raises(LLMResponseError) as error:
        await client.chat(HELLO)
    assert error.value.requests == len(scripted.requests) == 3
    await client.close()


async def test_a_run_counts_the_sdk_retries(scripted):
    from codeteam.pipelines.registry import run_pipeline
    from codeteam.settings import Settings
    from codeteam.task import Task
    from scripted_replies import DIRECT

    scripted.error(DIRECT, status=429, times=2)
    scripted.reply(DIRECT, "```python\ndef double(x):\n    return 2 * x\n```")
    task = Task.from_source('def double(x):\n    """Double x."""\n', "double")
    settings = Settings(base_url=scripted.base_url, max_retries=2, ai_tests=0, sandbox="none")
    client = _client(scripted.base_url, max_retries=2)
    result = await run_pipeline("direct", task, settings=settings, client=client)
    assert result.code is not None
    assert result.usage.total.calls == 3 == len(scripted.requests)
    assert [entry.usage.calls for entry in result.transcript if entry.kind == "llm"] == [3]
    await client.close()


# --- one clear error, not a traceback (item 4) -----------------------------------------------
def _raw_server(body: bytes, status: int = 200):
    """A server on 127.0.0.1 that answers every POST with ``body`` as it is."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


TRUNCATED = b'{"id": "x", "object": "chat.completion", "choices": [{"index": 0, "mess'


async def test_a_truncated_json_reply_is_a_response_error():
    server = _raw_server(TRUNCATED)
    try:
        client = _client(f"http://127.0.0.1:{server.server_address[1]}/v1", max_retries=0)
        with pytest.raises(LLMResponseError, match="not valid JSON"):
            await client.chat(HELLO)
        await client.close()
    finally:
        server.shutdown()


async def test_a_non_ascii_key_is_an_auth_error(scripted):
    client = LLMClient(Endpoint(base_url=scripted.base_url, api_key="sk-ключ-42"), max_retries=0)
    with pytest.raises(LLMAuthError, match="only ASCII") as error:
        await client.chat(HELLO)
    assert "ключ" not in str(error.value)
    await client.close()


# --- the endpoint is named, its userinfo masked, and tried once (item 7) ---------------------
def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def test_after_a_connection_failure_no_more_requests_are_made():
    port = _free_port()
    client = LLMClient(
        Endpoint(base_url=f"http://alice:hunter2-secret@127.0.0.1:{port}/v1"), max_retries=2
    )
    with pytest.raises(LLMUnavailable) as first:
        await client.chat(HELLO)
    assert first.value.requests == 3  # the SDK's retries, counted
    with pytest.raises(LLMUnavailable) as second:
        await client.chat(HELLO)
    assert second.value.requests == 0 and client.requests_sent == 3
    for error in (first.value, second.value):
        assert "hunter2-secret" not in str(error) and "alice" not in str(error)
        assert f"127.0.0.1:{port}" in str(error)
    # A new session (the next run) tries again.
    session = client.session()
    with pytest.raises(LLMUnavailable) as third:
        await session.chat(HELLO)
    assert third.value.requests == 3
    await session.close()
    await client.close()


# --- the embedded model's time limit follows its speed (item 8) ------------------------------
def test_call_speed_limit_follows_the_measured_speed():
    from codeteam.llm import speed as speed_module
    from codeteam.llm.speed import CallSpeed

    speed = CallSpeed()
    assumed = speed.limit_s(1024)
    assert assumed == pytest.approx(speed_module.MARGIN * 1024 / speed_module.ASSUMED_TOKENS_PER_S)
    speed.record(200, 2.0)  # 100 tokens/s: fast
    assert speed.limit_s(1024) == pytest.approx(max(speed_module.FLOOR_S, 2 * 1024 / 100))
    slow = CallSpeed()
    slow.record(100, 20.0)  # 5 tokens/s: a busy machine
    assert slow.limit_s(1024) == pytest.approx(2 * 1024 / 5)
    assert slow.limit_s(1024) > 120  # more than the old fixed limit
    slow.record(3, 10.0)  # too short to measure
    assert slow.tokens_per_s == pytest.approx(5.0)
    assert "5 tokens/s" in slow.describe()


async def test_a_call_with_a_speed_gets_its_limit_and_names_it(scripted, monkeypatch):
    from codeteam.llm import speed as speed_module
    from codeteam.llm.speed import CallSpeed

    monkeypatch.setattr(speed_module, "FLOOR_S", 0.2)
    speed = CallSpeed()
    speed.record(100, 1.0)  # 100 tokens/s: 20 tokens get 2 x 0.2 s = 0.4 s
    scripted.hang(None)
    client = LLMClient(
        Endpoint(base_url=scripted.base_url, name="the embedded model"),
        max_retries=0, timeout_s=60, speed=speed,
    )
    with pytest.raises(LLMTimeout) as error:
        await client.chat(HELLO, max_tokens=20)
    message = str(error.value)
    assert message.startswith("the embedded model took longer than 0.4 s for up to 20 tokens")
    assert "100 tokens/s" in message and "127.0.0.1" not in message
    assert message.endswith("; the setting timeout_s sets a longer limit")
    await client.close()


async def test_after_a_timeout_no_more_requests_are_made(scripted):
    scripted.hang(None, times=None)
    client = _client(scripted.base_url, timeout_s=0.3, max_retries=0)
    with pytest.raises(LLMTimeout) as first:
        await client.chat(HELLO)
    with pytest.raises(LLMTimeout) as second:  # at once, the same message
        await client.chat(HELLO)
    assert first.value.requests == 1 and second.value.requests == 0
    assert str(second.value) == str(first.value) and len(scripted.requests) == 1
    await client.close()


async def test_a_timeout_the_user_set_holds_for_the_embedded_model(scripted):
    # The embedded model's speed-based limit (30 s at least) gives way to timeout_s when the
    # user set it (client_for passes fixed_timeout when "timeout_s" is in a settings layer).
    from codeteam.llm.speed import CallSpeed

    scripted.hang(None)
    client = LLMClient(Endpoint(base_url=scripted.base_url, name="the embedded model"),
                       max_retries=0, timeout_s=0.3, speed=CallSpeed(), fixed_timeout=True)
    with pytest.raises(LLMTimeout, match=r"the embedded model did not answer within the "
                       r"timeout \(0\.3 s.*\); the setting timeout_s raises it$"):
        await client.chat(HELLO)
    await client.close()


async def test_client_for_honours_timeout_s_only_when_it_is_set():
    from codeteam.llm.provider import client_for
    from codeteam.llm.speed import CallSpeed
    from codeteam.settings import load_settings

    class Embedded:
        speed = CallSpeed()

        async def start(self) -> str:
            return "http://127.0.0.1:9/v1"

    unset, _ = load_settings(env=False)
    given, _ = load_settings({"timeout_s": 1800}, env=False)
    assert not (await client_for(unset, Embedded())).fixed_timeout
    client = await client_for(given, Embedded())
    assert client.fixed_timeout and client.timeout_s == 1800
