"""Chat calls to an OpenAI-compatible endpoint through the official ``openai`` SDK.

Every model call in codeteam goes through :class:`LLMClient.chat`. Retries with exponential
backoff on 429, 5xx, connection errors and timeouts are the SDK's own (``max_retries``; it
honours ``Retry-After``); each attempt is bounded by ``timeout_s`` seconds. Failures surface
as the typed :class:`LLMError` subclasses below, with messages fit for a user (never the key).
"""

from __future__ import annotations

import logging
import time
from typing import Any, Literal

import openai
from pydantic import BaseModel

from codeteam.llm.usage import Usage

log = logging.getLogger(__name__)


class LLMError(Exception):
    """A model call failed; the message is fit to show to the user."""


class LLMUnavailable(LLMError):
    """The endpoint could not be reached (connection refused, DNS, TLS)."""


class LLMTimeout(LLMError):
    """No reply within ``timeout_s`` seconds, after the retries."""


class LLMRateLimited(LLMError):
    """The endpoint kept answering 429 through every retry."""


class LLMAuthError(LLMError):
    """The endpoint refused the API key (401/403)."""


class LLMResponseError(LLMError):
    """The endpoint answered with an error status or an unusable reply."""


class ChatMessage(BaseModel):
    """One chat message (OpenAI's ``{"role": ..., "content": ...}``)."""

    role: Literal["system", "user", "assistant"]
    content: str


class Reply(BaseModel):
    """A completion: its text, the model that wrote it, why it stopped, and its usage."""

    text: str
    model: str
    finish_reason: str | None = None
    usage: Usage


class Endpoint(BaseModel):
    """Where calls go: ``base_url``, an ``api_key`` (a placeholder for local servers that take
    none), the default ``model`` name, and ``extra_body`` fields merged into every request
    (``{"cache_prompt": false}`` for llama.cpp's server)."""

    base_url: str
    api_key: str = "not-needed"
    model: str = "default"
    extra_body: dict[str, Any] = {}
    name: str = "endpoint"

    def __repr__(self) -> str:  # never show the key
        return f"Endpoint(base_url={self.base_url!r}, model={self.model!r})"

    __str__ = __repr__


class LLMClient:
    """An async chat client for one endpoint.

    ``timeout_s`` bounds each HTTP attempt (seconds); ``max_retries`` is the SDK's retry
    count for 429, 5xx, connection errors and timeouts; ``seed`` and ``temperature`` are sent
    with every request unless a call overrides the temperature.
    """

    def __init__(
        self,
        endpoint: Endpoint,
        *,
        timeout_s: float = 120.0,
        max_retries: int = 2,
        seed: int | None = 1234,
        temperature: float = 0.0,
        max_tokens: int = 1024,
    ) -> None:
        self.endpoint = endpoint
        self.seed = seed
        self.temperature = temperature
        self.max_tokens = max_tokens
        self._client = openai.AsyncOpenAI(
            base_url=endpoint.base_url,
            api_key=endpoint.api_key,
            timeout=timeout_s,
            max_retries=max_retries,
        )

    async def close(self) -> None:
        await self._client.close()

    async def chat(
        self,
        messages: list[ChatMessage],
        *,
        model: str | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        stop: list[str] | None = None,
        seed: int | None = None,
    ) -> Reply:
        """One chat completion. ``max_tokens`` caps the completion (tokens); ``seed``
        replaces the client's seed for this call (a sampled candidate's own seed).

        Raises :class:`LLMUnavailable`, :class:`LLMTimeout`, :class:`LLMRateLimited`,
        :class:`LLMAuthError` or :class:`LLMResponseError`. Cancelling the awaiting task
        closes the HTTP request.
        """
        started = time.monotonic()
        name = model or self.endpoint.model
        kwargs: dict[str, Any] = {}
        if seed is not None or self.seed is not None:
            kwargs["seed"] = self.seed if seed is None else seed
        if stop:
            kwargs["stop"] = stop
        if self.endpoint.extra_body:
            kwargs["extra_body"] = dict(self.endpoint.extra_body)
        try:
            completion = await self._client.chat.completions.create(
                model=name,
                messages=[m.model_dump() for m in messages],  # type: ignore[misc]
                temperature=self.temperature if temperature is None else temperature,
                max_tokens=max_tokens or self.max_tokens,
                **kwargs,
            )
        except openai.APITimeoutError as error:
            raise LLMTimeout(
                f"{self.endpoint.base_url} did not answer within the timeout (model {name})"
            ) from error
        except openai.APIConnectionError as error:
            raise LLMUnavailable(f"cannot reach {self.endpoint.base_url}: {error}") from error
        except openai.RateLimitError as error:
            raise LLMRateLimited(
                f"{self.endpoint.base_url} is rate limiting (429) after the retries"
            ) from error
        except (openai.AuthenticationError, openai.PermissionDeniedError) as error:
            raise LLMAuthError(
                f"{self.endpoint.base_url} refused the API key ({error.status_code}); "
                "check api_key / OPENAI_API_KEY"
            ) from error
        except openai.APIStatusError as error:
            raise LLMResponseError(
                f"{self.endpoint.base_url} answered {error.status_code} for model {name}: "
                f"{_short(error.message)}"
            ) from error
        except openai.OpenAIError as error:
            raise LLMResponseError(f"model call failed: {_short(str(error))}") from error
        seconds = time.monotonic() - started
        if not getattr(completion, "choices", None):
            raise LLMResponseError(f"{self.endpoint.base_url} sent a reply with no choices")
        choice = completion.choices[0]
        text = choice.message.content if choice.message else None
        if text is None:
            raise LLMResponseError(f"{self.endpoint.base_url} sent an empty message")
        usage = completion.usage
        return Reply(
            text=text,
            model=completion.model or name,
            finish_reason=choice.finish_reason,
            usage=Usage(
                calls=1,
                prompt_tokens=getattr(usage, "prompt_tokens", 0) or 0,
                completion_tokens=getattr(usage, "completion_tokens", 0) or 0,
                seconds=seconds,
            ),
        )


def _short(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
