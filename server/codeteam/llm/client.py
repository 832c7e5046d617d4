"""Chat calls to an OpenAI-compatible endpoint through the official ``openai`` SDK (imported
when the first :class:`LLMClient` is built).

Every model call in codeteam goes through :class:`LLMClient.chat`. Retries with exponential
backoff on 429, 5xx, connection errors and timeouts are the SDK's own (``max_retries``; it
honours ``Retry-After``), and every HTTP request is counted; each attempt is bounded by
``timeout_s`` seconds (for the embedded model: by its measured speed, :mod:`codeteam.llm.speed`,
unless ``timeout_s`` was set). The first connection failure or timeout stops the client: no
later call makes a request (:attr:`LLMClient.unreachable`).
Failures surface as the typed :class:`LLMError` subclasses below, with messages fit for a
user (never the key, never URL userinfo, the endpoint named by :attr:`Endpoint.shown`).
"""

from __future__ import annotations

import copy
import logging
import time
from contextvars import ContextVar
from typing import Any, Literal

from pydantic import BaseModel

from codeteam.llm.speed import CallSpeed
from codeteam.llm.usage import Usage
from codeteam.redaction import mask_url, redact, register_secret

log = logging.getLogger(__name__)


class LLMError(Exception):
    """A model call failed; the message is fit to show to the user. ``requests`` is how many
    HTTP requests the endpoint received for the call (retries included; 0 when none was
    made)."""

    def __init__(self, message: str = "", *, requests: int = 0) -> None:
        super().__init__(message)
        self.requests = requests


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
    (``{"cache_prompt": false}`` for llama.cpp's server). ``name`` is how messages name it
    ("the embedded model", or the URL with its userinfo masked): never the key, never an
    internal port."""

    base_url: str
    api_key: str = "not-needed"
    model: str = "default"
    extra_body: dict[str, Any] = {}
    name: str = ""

    @property
    def shown(self) -> str:
        """The name for messages: :attr:`name`, else ``base_url`` with userinfo masked."""
        return self.name or mask_url(self.base_url)

    def __repr__(self) -> str:  # never show the key
        return f"Endpoint({self.shown!r}, model={self.model!r})"

    __str__ = __repr__


_requests: ContextVar[list[int] | None] = ContextVar("codeteam_llm_requests", default=None)
"""The HTTP request counter of the :meth:`LLMClient.chat` call running in this context."""


async def _count_request(request: Any) -> None:
    """httpx event hook: one more HTTP request for the current call (SDK retries included)."""
    counter = _requests.get()
    if counter is not None:
        counter[0] += 1


class LLMClient:
    """An async chat client for one endpoint.

    ``timeout_s`` bounds each HTTP attempt (seconds); ``max_retries`` is the SDK's retry
    count for 429, 5xx, connection errors and timeouts; ``seed`` and ``temperature`` are sent
    with every request unless a call overrides the temperature. With ``speed`` (the embedded
    model) each attempt's limit is :meth:`CallSpeed.limit_s` of the tokens asked for instead
    (unless ``fixed_timeout``: the user set ``timeout_s``, which then holds), and every reply
    is measured into it.

    Every HTTP request the endpoint receives is counted (an httpx event hook on the SDK's
    client, so the SDK's own retries count): ``Reply.usage.calls`` and, on failure,
    :attr:`LLMError.requests`; :attr:`requests_sent` is the client's total.

    After a connection failure (nothing listens, DNS, TLS), a call that timed out (after
    the SDK's retries) or a refused API key (401/403) the client makes no further request: :attr:`unreachable` holds the
    error and every later :meth:`chat` raises it again at once (same class, no request).
    :meth:`session` gives a fresh view (one per run) that tries again.
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
        speed: CallSpeed | None = None,
        fixed_timeout: bool = False,
    ) -> None:
        self.endpoint = endpoint
        self.seed = seed
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.timeout_s = timeout_s
        self.speed = speed
        self.fixed_timeout = fixed_timeout
        self.requests_sent = 0
        self.unreachable: LLMUnavailable | LLMTimeout | LLMAuthError | None = None
        self._owner = True
        register_secret(endpoint.api_key if endpoint.api_key != "not-needed" else None)
        mask_url(endpoint.base_url)  # registers a password in the URL
        # The SDK takes about 0.9 CPU-s to import: loaded when the first client is built (at a
        # run's first model call), not by every run that imports this module and never asks
        # the model (a review with the embedded model, --help, a refused run).
        import openai

        self._client = openai.AsyncOpenAI(
            base_url=endpoint.base_url,
            api_key=endpoint.api_key,
            timeout=timeout_s,
            max_retries=max_retries,
            http_client=openai.DefaultAsyncHttpxClient(
                event_hooks={"request": [_count_request]}
            ),
        )

    def session(self) -> LLMClient:
        """A view of this client for one run: the same connection pool and settings, its own
        :attr:`unreachable` state and :attr:`requests_sent`; :meth:`close` on it does nothing
        (the owner closes the pool)."""
        view = copy.copy(self)
        view.requests_sent = 0
        view.unreachable = None
        view._owner = False
        return view

    async def close(self) -> None:
        if self._owner:
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
        :class:`LLMAuthError` or :class:`LLMResponseError` (also for a reply that is not
        valid JSON); each carries :attr:`LLMError.requests`. Cancelling the awaiting task
        closes the HTTP request.
        """
        if self.unreachable is not None:
            raise type(self.unreachable)(str(self.unreachable), requests=0)
        counter = [0]
        token = _requests.set(counter)
        try:
            return await self._chat(messages, model, temperature, max_tokens, stop, counter,
                                    seed)
        except LLMError as error:
            error.requests = counter[0]
            if isinstance(error, LLMUnavailable | LLMTimeout | LLMAuthError):
                self.unreachable = error  # no further request: stop at the first one
                log.info("%s (%d request(s)); this run makes no further model call", error,
                         counter[0])
            else:
                log.info("model call failed: %s (%d request(s))", error, counter[0])
            raise
        finally:
            _requests.reset(token)
            self.requests_sent += counter[0]

    async def _chat(
        self,
        messages: list[ChatMessage],
        model: str | None,
        temperature: float | None,
        max_tokens: int | None,
        stop: list[str] | None,
        counter: list[int],
        seed: int | None = None,
    ) -> Reply:
        import openai  # loaded by __init__ already; here for its error classes

        started = time.monotonic()
        name = model or self.endpoint.model
        limit_tokens = max_tokens or self.max_tokens
        shown = self.endpoint.shown
        kwargs: dict[str, Any] = {}
        if seed is not None or self.seed is not None:
            kwargs["seed"] = self.seed if seed is None else seed
        if stop:
            kwargs["stop"] = stop
        if self.endpoint.extra_body:
            kwargs["extra_body"] = dict(self.endpoint.extra_body)
        by_speed = self.speed is not None and not self.fixed_timeout
        limit_s = self.speed.limit_s(limit_tokens) if by_speed else self.timeout_s
        if self.speed:
            kwargs["timeout"] = limit_s
        try:
            completion = await self._client.chat.completions.create(
                model=name,
                messages=[m.model_dump() for m in messages],  # type: ignore[misc]
                temperature=self.temperature if temperature is None else temperature,
                max_tokens=limit_tokens,
                **kwargs,
            )
            choices = getattr(completion, "choices", None)
            choice = choices[0] if choices else None
            text = choice.message.content if choice and choice.message else None
            usage = completion.usage
            prompt_tokens = getattr(usage, "prompt_tokens", 0) or 0
            completion_tokens = getattr(usage, "completion_tokens", 0) or 0
        except openai.APITimeoutError as error:
            if by_speed:
                raise LLMTimeout(
                    f"{shown} took longer than {_seconds(limit_s)} s for up to {limit_tokens} tokens "
                    f"({self.speed.describe()}); the setting timeout_s sets a longer limit"
                ) from error
            raise LLMTimeout(
                f"{shown} did not answer within the timeout ({_seconds(limit_s)} s, model {name});"
                f" the setting timeout_s raises it"
            ) from error
        except openai.APIConnectionError as error:
            raise LLMUnavailable(
                f"cannot reach {shown}: {_short(_cause(error))}"
            ) from error
        except openai.RateLimitError as error:
            raise LLMRateLimited(
                f"{shown} is rate limiting (429) after {counter[0]} request(s)"
            ) from error
        except (openai.AuthenticationError, openai.PermissionDeniedError) as error:
            raise LLMAuthError(
                f"{shown} refused the API key ({error.status_code}); "
                "check api_key / OPENAI_API_KEY"
            ) from error
        except openai.APIStatusError as error:
            raise LLMResponseError(
                f"{shown} answered {error.status_code} for model {name}: "
                f"{_short(error.message)}"
            ) from error
        except openai.OpenAIError as error:
            raise LLMResponseError(f"model call to {shown} failed: {_short(str(error))}") from error
        except UnicodeEncodeError as error:
            raise LLMAuthError(
                "the API key holds characters an HTTP header cannot carry (only ASCII); "
                "check api_key / OPENAI_API_KEY"
            ) from error
        except ValueError as error:  # json.JSONDecodeError: a truncated or non-JSON body
            raise LLMResponseError(
                f"{shown} sent a reply that is not valid JSON (truncated?): "
                f"{_short(type(error).__name__)}"
            ) from error
        except (AttributeError, TypeError, KeyError, IndexError) as error:
            raise LLMResponseError(
                f"{shown} sent a reply of an unexpected shape ({type(error).__name__})"
            ) from error
        seconds = time.monotonic() - started
        if choice is None:
            raise LLMResponseError(f"{shown} sent a reply with no choices")
        if text is None:
            raise LLMResponseError(f"{shown} sent an empty message")
        if self.speed:
            self.speed.record(completion_tokens, seconds)
        return Reply(
            text=text,
            model=completion.model or name,
            finish_reason=choice.finish_reason,
            usage=Usage(
                calls=counter[0] or 1,
                prompt_tokens=prompt_tokens,
                completion_tokens=completion_tokens,
                seconds=seconds,
            ),
        )


def _seconds(value: float) -> str:
    return f"{value:.0f}" if value >= 10 else f"{value:.1f}"


def _cause(error: BaseException) -> str:
    """The connection error's own words (the SDK says only "Connection error.")."""
    cause = error.__cause__ or error.__context__
    while cause is not None and (cause.__cause__ or cause.__context__) and not str(cause):
        cause = cause.__cause__ or cause.__context__
    text = str(cause) if cause is not None and str(cause) else str(error)
    return redact(text)


def _short(text: str, limit: int = 300) -> str:
    text = redact(" ".join(str(text).split()))
    return text if len(text) <= limit else text[: limit - 1] + "…"
