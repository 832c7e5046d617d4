"""Fixtures of the editor suite: the real server (``python -m codeteam serve``) over stdio,
driven by pytest-lsp with VS Code's and Neovim 0.7's client capabilities, against the
scripted model (``scripted``: one for the session here, reset for each test).

A fresh server costs about 3 s of CPU before its first run is done (its imports, the parse
worker's spawn, the first project context); a run on a warm one about 0.3 s. So a test that
asks ``start`` for nothing but a client kind and settings gets a server kept from an earlier
test with the same kind and settings (:class:`ServerPool`), settled (its runs cancelled and
over, documents closed, the client's records cleared) and given the test's own workspace
folder. A test that passes anything else (initialization options, capabilities, an
environment, a command, a client factory, a configuration), or is marked ``own_server`` (it
looks at what the server remembers across documents: the transcript with no argument),
starts a server of its own; a server that saw a failure, or that a test shut down, is not
kept. All editor tests run in the
session's event loop (the kept servers' clients live there).
"""

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

from scripted_llm import ScriptedLLM

DEFAULT_SETTINGS = {
    "max_retries": 0,
    "timeout_s": 60,
    "ai_tests": 0,
    "max_rounds": 1,
    "sandbox": "bwrap",
}
"""Server settings for the suite (tests override per case): no AI tests and one round, so
that a generate needs just the analyst and the coder."""

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items):
    """Every async test of this folder runs in the session's event loop."""
    for item in items:
        if HERE in Path(item.path).parents and item.get_closest_marker("asyncio"):
            item.add_marker(pytest.mark.asyncio(loop_scope="session"), append=False)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """Keep each phase's report on the item (``item.failed_phase``): a server that saw a
    failure is not kept for the next test."""
    report = yield
    if report.failed:
        item.failed_phase = report.when
    return report


@pytest.fixture(scope="session")
def scripted_model():
    with ScriptedLLM() as llm:
        yield llm


@pytest.fixture
def scripted(scripted_model):
    """The session's :class:`ScriptedLLM` (the kept servers know its address), with no rules
    and no recorded requests."""
    scripted_model.reset()
    return scripted_model


class ServerPool:
    """Started servers by (client kind, settings), idle between tests."""

    def __init__(self, folder: Path) -> None:
        self._folder = folder
        self._idle: dict[tuple, list[Started]] = {}
        self._all: list[EditorClient] = []

    async def take(self, key: tuple, kind: str, settings: dict[str, str], root: Path) -> Started:
        """An idle server for ``key`` (or a new one), its workspace folder now ``root``."""
        idle = self._idle.get(key) or []
        if idle:
            started = idle.pop()
        else:
            client = await ClientServerConfig(
                server_command=SERVER_COMMAND, client_factory=make_editor_client,
                server_env=server_env(**settings),
            ).start()
            self._all.append(client)
            first = self._folder / f"server-{len(self._all)}"
            first.mkdir()
            result = await client.start_session(kind, root=first)
            started = Started(client=client, kind=kind, root=first, result=result)
        await started.client.enter_folder(root, previous=started.root)
        started.root = root
        return started

    async def give_back(self, key: tuple, started: Started) -> None:
        """Settle ``started`` and keep it; a server that cannot be settled is stopped."""
        try:
            await started.client.settle()
        except Exception:  # noqa: BLE001 - a dead or wedged server: not kept
            await self.stop(started.client)
            return
        self._idle.setdefault(key, []).append(started)

    async def stop(self, client: EditorClient) -> None:
        client.stop_waiting.set()
        await asyncio.sleep(0)
        try:
            if client._server is not None and client._server.returncode is None:
                await client.shutdown_session()
        finally:
            await client.stop()

    async def close(self) -> None:
        await asyncio.gather(*(self.stop(client) for client in self._all),
                             return_exceptions=True)


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def server_pool(tmp_path_factory):
    pool = ServerPool(tmp_path_factory.mktemp("kept-servers"))
    yield pool
    await pool.close()


@pytest.fixture(params=["vscode", "neovim"])
def client_kind(request) -> str:
    return request.param


@pytest_asyncio.fixture(loop_scope="session")
async def start(scripted, tmp_path, server_pool, request):
    """``await start(kind, init_options=..., capabilities=..., **settings)``: a started,
    initialized server (kept from an earlier test when only ``kind`` and settings are
    given); all are settled or shut down after the test."""
    started: list[tuple[tuple | None, Started]] = []

    async def go(kind: str = "vscode", *, init_options=None, capabilities=None,
                 env: dict | None = None, configuration: dict | None = None,
                 command: list[str] | None = None, client_factory=None,
                 **settings) -> Started:
        values = {"base_url": scripted.base_url, **DEFAULT_SETTINGS, **settings}
        root = tmp_path / "ws"
        root.mkdir(exist_ok=True)
        own = (init_options, capabilities, env, configuration, command, client_factory)
        if all(option is None for option in own) and not request.node.get_closest_marker(
            "own_server"
        ):
            key = (kind, tuple(sorted((k, str(v)) for k, v in values.items())))
            kept = await server_pool.take(key, kind, values, root)
            started.append((key, kept))
            return kept
        config = ClientServerConfig(
            server_command=command or SERVER_COMMAND,
            client_factory=client_factory or make_editor_client,
            server_env=env if env is not None else server_env(**values),
        )
        client = await config.start()
        started.append((None, Started(client=client, kind=kind, root=root, result=None)))
        if configuration is not None:
            client.set_configuration(configuration)
        result = await client.start_session(
            kind, root=root, init_options=init_options, capabilities=capabilities
        )
        started[-1][1].result = result
        return started[-1][1]

    yield go
    failed = getattr(request.node, "failed_phase", None) is not None
    for key, one in started:
        if key is None or failed:
            await server_pool.stop(one.client)
        else:
            await server_pool.give_back(key, one)


@pytest_asyncio.fixture(loop_scope="session")
async def editor(start, client_kind) -> Started:
    """A server started with ``client_kind``'s capabilities (each test runs once per client)."""
    return await start(client_kind)
