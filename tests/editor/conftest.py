"""Fixtures of the editor suite: the real server (``python -m codeteam serve``) over stdio,
driven by pytest-lsp with VS Code's and Neovim 0.7's client capabilities, against the
scripted model (``scripted``, from tests/conftest.py)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
import pytest_asyncio
from pytest_lsp import ClientServerConfig

sys.path.insert(0, str(Path(__file__).resolve().parent))

from editor_harness import (
    SERVER_COMMAND,
    EditorClient,
    Started,
    make_editor_client,
    server_env,
)

DEFAULT_SETTINGS = {
    "max_retries": 0,
    "timeout_s": 60,
    "ai_tests": 0,
    "max_rounds": 1,
    "sandbox": "bwrap",
}
"""Server settings for the suite (tests override per case): no AI tests and one round, so
that a generate needs just the analyst and the coder."""


@pytest.fixture(params=["vscode", "neovim"])
def client_kind(request) -> str:
    return request.param


@pytest_asyncio.fixture
async def start(scripted, tmp_path):
    """``await start(kind, init_options=..., capabilities=..., **settings)``: a started,
    initialized server; all are shut down after the test."""
    started: list[EditorClient] = []

    async def go(kind: str = "vscode", *, init_options=None, capabilities=None,
                 env: dict | None = None, configuration: dict | None = None,
                 command: list[str] | None = None, client_factory=None,
                 **settings) -> Started:
        values = {"base_url": scripted.base_url, **DEFAULT_SETTINGS, **settings}
        config = ClientServerConfig(
            server_command=command or SERVER_COMMAND,
            client_factory=client_factory or make_editor_client,
            server_env=env if env is not None else server_env(**values),
        )
        client = await config.start()
        started.append(client)
        if configuration is not None:
            client.set_configuration(configuration)
        root = tmp_path / "ws"
        root.mkdir(exist_ok=True)
        result = await client.start_session(
            kind, root=root, init_options=init_options, capabilities=capabilities
        )
        return Started(client=client, kind=kind, root=root, result=result)

    yield go
    for client in started:
        client.stop_waiting.set()
        await asyncio.sleep(0)  # let the applyEdit handlers left waiting answer
        try:
            if client._server is not None and client._server.returncode is None:
                await client.shutdown_session()
        finally:
            await client.stop()


@pytest_asyncio.fixture
async def editor(start, client_kind) -> Started:
    """A server started with ``client_kind``'s capabilities (each test runs once per client)."""
    return await start(client_kind)
