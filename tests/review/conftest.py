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
    from codeteam.documents import task_for, with_project_tests
    from codeteam.execution.sandbox import SandboxPolicy
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
        if root is not None:
            root.chmod(0o755)  # the sandbox's uid reads the project (pytest made it 0700)
        task = await with_project_tests(task, path=path, root=root, policy=SandboxPolicy(
            mode=settings.sandbox, timeout_s=settings.test_timeout_s))
        return await run_pipeline(pipeline, task, settings=settings, client=client)

    yield go
    for client in clients:
        await client.close()


# --- the real server, as in tests/editor/conftest.py ----------------------------------------

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "editor"))

import asyncio

import pytest_asyncio
from editor_harness import SERVER_COMMAND, Started, make_editor_client, server_env
from pytest_lsp import ClientServerConfig

EDITOR_SETTINGS = {"max_retries": 0, "timeout_s": 60, "ai_tests": 0, "max_rounds": 1,
                   "sandbox": "bwrap"}


@pytest.fixture(params=["vscode", "neovim"])
def client_kind(request) -> str:
    return request.param


@pytest_asyncio.fixture
async def start(scripted, tmp_path):
    """``await start(kind, **settings)``: a started, initialized server (shut down after)."""
    started = []

    async def go(kind="vscode", *, init_options=None, **settings):
        values = {"base_url": scripted.base_url, **EDITOR_SETTINGS, **settings}
        config = ClientServerConfig(
            server_command=SERVER_COMMAND,
            client_factory=make_editor_client,
            server_env=server_env(**values),
        )
        client = await config.start()
        started.append(client)
        root = tmp_path / "ws"
        root.mkdir(exist_ok=True)
        result = await client.start_session(kind, root=root, init_options=init_options)
        return Started(client=client, kind=kind, root=root, result=result)

    yield go
    for client in started:
        try:
            if client._server is not None and client._server.returncode is None:
                await asyncio.wait_for(client.shutdown_session(), 15)
        finally:
            await client.stop()
