"""Starting the language server: :func:`create_server` makes the one
:class:`~codeteam.editor.server.CodeteamServer` and registers every feature module on it
(lifecycle, text sync, code actions, commands), and :func:`serve` runs it on stdio or TCP.

The feature modules import :class:`CodeteamServer` for their handlers' types; nothing imports
this module back but the CLI, so the editor's modules form no import cycle.
"""

from __future__ import annotations

import logging
import os
import sys

from codeteam.editor import code_actions, commands, lifecycle, text_sync
from codeteam.editor.protocol import ResyncingStream, serve_stdio
from codeteam.editor.server import CodeteamServer
from codeteam.redaction import install_log_redaction
from codeteam.service.clients import embedded_stop_stuck, stop_embedded_model

log = logging.getLogger(__name__)


def create_server() -> CodeteamServer:
    """A new server with every codeteam feature registered."""
    server = CodeteamServer()
    lifecycle.register(server)
    text_sync.register(server)
    code_actions.register(server)
    commands.register(server)
    return server


def _configure_logging(log_file: str | None) -> None:
    root = logging.getLogger()
    if not any(isinstance(h, logging.StreamHandler) for h in root.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        root.addHandler(handler)
    if log_file:
        file_handler = logging.FileHandler(log_file, encoding="utf-8")
        file_handler.setFormatter(
            logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
        )
        root.addHandler(file_handler)
        logging.getLogger("codeteam").setLevel(logging.INFO)
    # pygls logs whole messages at INFO (initializationOptions may hold the API key).
    logging.getLogger("pygls").setLevel(logging.WARNING)
    install_log_redaction(root)


def _protocol_stdout():
    """A binary stream on the real stdout for the protocol; fd 1 itself is pointed at stderr so
    that stray prints (ours, a library's, C code's) cannot corrupt the protocol stream."""
    sys.stdout.flush()
    protocol_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return os.fdopen(protocol_fd, "wb", buffering=0)


def serve(tcp: str | None = None, log_file: str | None = None) -> int:
    """Run the language server until the client exits: on stdio, or on TCP ``HOST:PORT``.
    Returns the process exit code: 2 for a bad ``--tcp`` value or a log file that cannot be
    opened, 1 when the address cannot be listened on (in use, unknown host); one line on stderr
    says why."""
    try:
        _configure_logging(log_file)
    except OSError as error:
        print(f"codeteam serve: cannot write the log to {log_file}: {error.strerror or error}",
              file=sys.stderr)
        return 2
    if tcp:
        host, _, port = tcp.rpartition(":")
        if not port.isdigit() or not 0 < int(port) < 65536:
            print(f"codeteam serve: --tcp takes HOST:PORT (a port 1-65535), got {tcp!r}",
                  file=sys.stderr)
            return 2
        server = create_server()
        log.info("codeteam %s listening on %s:%s", server.version, host or "127.0.0.1", port)
        try:
            server.start_tcp(host or "127.0.0.1", int(port))
        except OSError as error:  # (pygls binds inside start_tcp: in use, unknown host)
            print(f"codeteam serve: cannot listen on {host or '127.0.0.1'}:{port}: "
                  f"{error.strerror or error}", file=sys.stderr)
            return 1
        _exit_now_if_the_model_is_stuck()
        return 0
    stdout = _protocol_stdout()
    server = create_server()
    log.info("codeteam %s on stdio", server.version)
    # Lines start at a header even after a body whose Content-Length was wrong; a pipe is
    # read by the event loop itself (no thread per read).
    serve_stdio(server, ResyncingStream(sys.stdin.buffer, on_body=server.protocol.body_read),
                stdout)
    _exit_now_if_the_model_is_stuck()
    return 0


def _exit_now_if_the_model_is_stuck() -> None:
    """If the embedded model did not stop, leave without Python's finalization (which would
    run xllamacpp's destructor again and could hang the exit)."""
    if embedded_stop_stuck() or not stop_embedded_model():
        log.warning("exiting with the embedded model still running")
        logging.shutdown()
        os._exit(0)

