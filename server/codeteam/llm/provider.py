"""Choosing the endpoint from the settings: a configured ``base_url`` or the embedded model."""

from __future__ import annotations

import asyncio

from codeteam.llm.client import Endpoint, LLMClient
from codeteam.llm.embedded import (
    EMBEDDED_NAME,
    MODEL_NAME,
    EmbeddedModel,
    shared_embedded_model,
)
from codeteam.redaction import mask_url
from codeteam.settings import Settings


async def endpoint_for(settings: Settings, embedded: EmbeddedModel | None = None) -> Endpoint:
    """The endpoint for ``settings``; starts the embedded model when no ``base_url`` is set.

    Raises :class:`~codeteam.llm.embedded.EmbeddedModelError` when the embedded model is
    needed and cannot start.
    """
    if settings.base_url:
        key = settings.api_key.get_secret_value() if settings.api_key else "not-needed"
        return Endpoint(
            base_url=settings.base_url,
            api_key=key,
            model=settings.model or "default",
            name=mask_url(settings.base_url),
        )
    model = embedded or shared_embedded_model()
    base_url = await model.start()
    return Endpoint(
        base_url=base_url,
        model=MODEL_NAME,
        # llama.cpp's prompt cache can change greedy output between identical requests.
        extra_body={"cache_prompt": False},
        name=EMBEDDED_NAME,
    )


async def client_for(settings: Settings, embedded: EmbeddedModel | None = None) -> LLMClient:
    """An :class:`LLMClient` for ``settings`` (see :func:`endpoint_for`).

    Calls to the embedded model are not retried: it runs in this process, so a timeout means
    a long greedy generation that a retry would only repeat, and it never rate-limits. Their
    time limit follows the model's measured speed (:class:`~codeteam.llm.speed.CallSpeed`)
    unless ``timeout_s`` is set in some layer (``--set timeout_s=1800``): then that holds.
    """
    endpoint = await endpoint_for(settings, embedded)
    speed = None
    if settings.uses_embedded_model:
        speed = (embedded or shared_embedded_model()).speed
    # Building the SDK's client reads package metadata and loads CA certificates (tens of
    # milliseconds): not on the event loop.
    return await asyncio.to_thread(
        LLMClient,
        endpoint,
        timeout_s=settings.timeout_s,
        speed=speed,
        fixed_timeout="timeout_s" in settings.model_fields_set,
        max_retries=0 if settings.uses_embedded_model else settings.max_retries,
        seed=settings.seed,
        temperature=settings.temperature,
        max_tokens=settings.max_tokens,
    )
