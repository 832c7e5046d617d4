"""Helpers for pipeline tests: a task, settings pointing at the scripted model, and runners."""

from __future__ import annotations

import pytest
from pipeline_support import STUB

from codeteam.llm.provider import client_for
from codeteam.pipelines.registry import run_pipeline
from codeteam.service.documents import task_for
from codeteam.settings import load_settings

ENDPOINT_DEFAULTS = {"max_retries": 0, "timeout_s": 5, "plan_candidate": False}
"""Settings of every pipeline test. ``plan_candidate`` (on with an endpoint) is off unless a
test turns it on: the analyst's call and the planned candidate would change the calls and
candidates of every test about sampling; tests/pipelines/test_team_plan.py tests it."""


@pytest.fixture
async def run(scripted):
    """``await run(pipeline, source=STUB, qualname="running_max", **settings)``."""
    clients = []

    async def go(pipeline, source=STUB, qualname="running_max", **overrides):
        settings, problems = load_settings(
            {"base_url": scripted.base_url, **ENDPOINT_DEFAULTS, **overrides},
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


@pytest.fixture
async def run_on_disk(scripted):
    """``await run_on_disk(pipeline, source, qualname, path=None, root=None, **settings)``: a
    task built from a file on disk, with the project's pytest tests when they matter; no AI
    tests and one round unless given; returns the result."""
    from codeteam.execution.sandbox import SandboxPolicy
    from codeteam.service.documents import with_project_tests

    clients = []

    async def go(pipeline, source, qualname, *, path=None, root=None, **overrides):
        settings, problems = load_settings(
            {"base_url": scripted.base_url, **ENDPOINT_DEFAULTS, "ai_tests": 0,
             "max_rounds": 1, **overrides},
            env=False,
        )
        assert problems == []
        client = await client_for(settings)
        clients.append(client)
        task = task_for(source, qualname, path=path, workspace_root=root)
        if root is not None:
            root.chmod(0o755)  # the sandbox's uid reads the project (pytest made it 0700)
        task = await with_project_tests(task, path=path, root=root, policy=SandboxPolicy(
            mode=settings.sandbox, timeout_s=settings.test_timeout_s))
        return await run_pipeline(pipeline, task, settings=settings, client=client)

    yield go
    for client in clients:
        await client.close()
