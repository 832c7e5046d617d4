"""Fixtures of the review suite: a pipeline runner against the scripted model (like
tests/pipelines), with a task built from a file on disk when pytest tests matter."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))


@pytest.fixture
async def run(scripted):
    """``await run(pipeline, source, qualname, path=None, root=None, **settings)``."""
    from codeteam.documents import task_for
    from codeteam.llm.provider import client_for
    from codeteam.pipelines.runner import run_pipeline
    from codeteam.settings import load_settings

    clients = []

    async def go(pipeline, source, qualname, *, path=None, root=None, **overrides):
        settings, problems = load_settings(
            {"base_url": scripted.base_url, "max_retries": 0, "timeout_s": 5, "ai_tests": 0,
             "max_rounds": 1, **overrides},
            env=False,
        )
        assert problems == []
        client = await client_for(settings)
        clients.append(client)
        task = task_for(source, qualname, path=path, workspace_root=root)
        return await run_pipeline(pipeline, task, settings=settings, client=client)

    yield go
    for client in clients:
        await client.close()
