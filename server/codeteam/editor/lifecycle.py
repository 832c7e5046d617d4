"""initialize, initialized, configuration changes and shutdown."""

from __future__ import annotations

import asyncio
import logging
import threading

from lsprotocol import types

from codeteam.editor.configuration import SECTION, pushed_section
from codeteam.editor.server import CodeteamServer
from codeteam.redaction import mask_url

log = logging.getLogger(__name__)

CONFIGURATION_TIMEOUT_S = 5.0
SHUTDOWN_WAIT_S = 5.0


def client_shows_run_messages(init_options: object) -> bool:
    """True when the client said (``initializationOptions.client.shows_run_messages``) that it
    shows each run's answer ``{status, message}`` itself, as codeteam's VS Code extension
    does; the server then sends no window/showMessage for run results, so the user does not
    see every result twice. Other clients (Neovim, Helix) ignore command answers and get the
    message."""
    if not isinstance(init_options, dict):
        return False
    client = init_options.get("client")
    return isinstance(client, dict) and client.get("shows_run_messages") is True


def register(server: CodeteamServer) -> None:
    @server.feature(types.INITIALIZE)
    def on_initialize(ls: CodeteamServer, params: types.InitializeParams) -> None:
        ls.protocol.use_lsp_lines()
        ls.config.init_options = params.initialization_options
        ls.client_shows_run_messages = client_shows_run_messages(params.initialization_options)

    @server.feature(types.INITIALIZED)
    async def on_initialized(ls: CodeteamServer, params: types.InitializedParams) -> None:
        ls.log_info(
            f"codeteam {ls.version} started (position encoding {ls.position_encoding})"
        )
        await refresh_settings(ls)
        await _register_configuration_changes(ls)
        threading.Thread(
            target=_warm_imports, args=(ls,), name="codeteam-imports", daemon=True
        ).start()

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def on_configuration_change(
        ls: CodeteamServer, params: types.DidChangeConfigurationParams
    ) -> None:
        pushed = pushed_section(params.settings)
        if pushed is not None and not ls.capability("workspace.configuration", False):
            ls.config.workspace_config = pushed
        await refresh_settings(ls)

    @server.feature(types.SHUTDOWN)
    async def on_shutdown(ls: CodeteamServer, params: None) -> None:
        ls.runs.cancel_all("the server is shutting down")
        await ls.runs.wait_all(SHUTDOWN_WAIT_S)
        await ls.llm.close()
        ls.parser.shutdown()
        log.info("shut down")


async def refresh_settings(ls: CodeteamServer) -> None:
    """Pull the ``codeteam`` section (when the client supports workspace/configuration),
    rebuild the settings, tell the user about each new problem, and rebuild the LLM client
    when the settings it depends on changed."""
    if ls.capability("workspace.configuration", False):
        try:
            answer = await asyncio.wait_for(
                ls.workspace_configuration_async(
                    types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)])
                ),
                CONFIGURATION_TIMEOUT_S,
            )
            ls.config.workspace_config = answer[0] if answer else None
        except Exception as error:  # noqa: BLE001 - any client failure: keep what we have
            ls.log_warning(f"workspace/configuration failed: {error}")
    settings = ls.config.reload()
    for problem in ls.config.unreported():
        ls.show(f"codeteam settings: {problem}", types.MessageType.Warning)
    model = mask_url(settings.base_url) if settings.base_url else "the embedded model"
    ls.log_info(
        f"settings: model endpoint {model}, generate pipeline {settings.generate_pipeline}, "
        f"sandbox {settings.sandbox}, max_rounds {settings.max_rounds}"
    )
    log.debug("settings %s", settings.redacted())
    if ls.llm.settings_changed(settings):
        ls.log_info("settings changed: the LLM client is rebuilt for the next run")


async def _register_configuration_changes(ls: CodeteamServer) -> None:
    """Ask for workspace/didChangeConfiguration notifications (dynamic registration)."""
    if not ls.capability("workspace.did_change_configuration.dynamic_registration", False):
        return
    try:
        await asyncio.wait_for(
            ls.client_register_capability_async(
                types.RegistrationParams(
                    registrations=[
                        types.Registration(
                            id="codeteam-configuration",
                            method=types.WORKSPACE_DID_CHANGE_CONFIGURATION,
                            register_options=types.DidChangeConfigurationRegistrationOptions(
                                section=SECTION
                            ),
                        )
                    ]
                )
            ),
            CONFIGURATION_TIMEOUT_S,
        )
    except Exception as error:  # noqa: BLE001 - optional: the client may refuse
        log.info("could not register for configuration changes: %s", error)


def _warm_imports(ls: CodeteamServer) -> None:
    """Import the pipeline layers and start the parse worker in the background so the first
    command starts at once."""
    ls.parser.warm()
    try:
        from codeteam.service.clients import warm_imports

        warm_imports()
    except Exception as error:  # noqa: BLE001 - reported to the user when a command needs them
        log.warning("the pipelines cannot be imported: %s", error)
