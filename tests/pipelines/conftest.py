"""Helpers for pipeline tests: a task, settings pointing at the scripted model, and runners."""

from __future__ import annotations

import pytest
from pipeline_support import STUB

from codeteam.documents import task_for
from codeteam.llm.provider import client_for
from codeteam.pipelines.runner import run_pipeline
from codeteam.settings import load_settings


@pytest.fixture
async def run(scripted):
    """``await run(pipeline, source=STUB, qualname="running_max", **settings)``."""
    clients = []

    async def go(pipeline, source=STUB, qualname="running_max", **overrides):
        settings, problems = load_settings(
            {"base_url": scripted.base_url, "max_retries": 0, "timeout_s": 5, **overrides},
            env=False,
        )
        assert problems == []
        client = await client_for(settings)
        clients.append(client)
        stages: list[str] = []
        task = task_for(source, qualname)
        result = await run_pipeline(pipeline, task, settings=settings, client=client,
                                    progress=stages.append)
        return result, stages

    yield go
    for client in clients:
        await client.close()
