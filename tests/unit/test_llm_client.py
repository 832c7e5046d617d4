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
    scripted.hang(None, seconds=1.5, times=None)
    client = _client(scripted.base_url, timeout_s=0.3, max_retries=1)
    with pytest.raises(LLMTimeout, match="did not answer"):
        await client.chat(HELLO)
    assert len(scripted.requests) == 2
    await client.close()


async def test_timeout_then_success(scripted):
    scripted.hang(None, seconds=1.0, times=1)
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
    scripted.hang(None, seconds=2.0)
    client = _client(scripted.base_url)
    task = asyncio.create_task(client.chat(HELLO))
    await asyncio.sleep(0.2)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert len(scripted.requests) == 1
    await client.close()
