"""editors/helix/languages.toml (it lives with the other editor-setup tests): valid TOML in the
format Helix documents (https://docs.helix-editor.com/languages.html), a command that runs from
the venv, and codeteam settings the server accepts."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from codeteam.settings import Settings, load_settings

SNIPPET = Path(__file__).resolve().parents[2] / "editors" / "helix" / "languages.toml"

LANGUAGE_SERVER_KEYS = {
    "command", "args", "config", "timeout", "environment", "required-root-patterns",
}
"""The keys of a ``[language-server.NAME]`` table in Helix's documentation."""

LANGUAGE_KEYS = {
    "name", "language-id", "scope", "injection-regex", "file-types", "shebangs", "roots",
    "auto-format", "comment-tokens", "block-comment-tokens", "indent", "grammar", "formatter",
    "soft-wrap", "text-width", "rulers", "workspace-lsp-roots", "persistent-diagnostic-sources",
    "language-servers", "diagnostic-severity", "auto-pairs", "debugger",
}
"""The keys of a ``[[language]]`` table in Helix's documentation."""

FEATURES = {
    "format", "goto-definition", "goto-declaration", "goto-type-definition", "goto-reference",
    "goto-implementation", "signature-help", "hover", "document-highlight", "completion",
    "code-action", "workspace-command", "document-symbols", "workspace-symbols", "diagnostics",
    "rename-symbol", "inlay-hints",
}
"""The features ``only-features`` / ``except-features`` may name."""

HELIX_PYTHON_SERVERS = {"ruff", "jedi", "pylsp", "pyright", "basedpyright", "pylyzer", "ty"}
"""Python servers Helix defines itself (its default languages.toml)."""


def load() -> dict:
    return tomllib.loads(SNIPPET.read_text(encoding="utf-8"))


def test_the_codeteam_server_entry():
    server = load()["language-server"]["codeteam"]
    assert set(server) <= LANGUAGE_SERVER_KEYS, set(server) - LANGUAGE_SERVER_KEYS
    assert server["command"] == "codeteam"
    assert server["args"] == ["serve"]
    # A command is answered when its run ends: far longer than Helix's default 20 s.
    assert isinstance(server["timeout"], int) and server["timeout"] >= 300
    # No secrets in a file people share.
    assert "api_key" not in str(server.get("config", {}))
    assert "environment" not in server


def test_the_settings_are_codeteam_settings():
    """``config`` becomes the initializationOptions (nested under "codeteam", which the server
    accepts) and answers workspace/configuration section "codeteam"."""
    config = load()["language-server"]["codeteam"]["config"]
    assert list(config) == ["codeteam"]
    section = config["codeteam"]
    assert section and set(section) <= set(Settings.model_fields)
    settings, problems = load_settings(config, section, env=False)
    assert problems == []
    assert settings.sandbox == "bwrap" and settings.generate_pipeline == "team"


def test_python_lists_codeteam_beside_another_server():
    languages = load()["language"]
    python = [entry for entry in languages if entry["name"] == "python"]
    assert len(python) == 1
    entry = python[0]
    assert set(entry) <= LANGUAGE_KEYS, set(entry) - LANGUAGE_KEYS
    names = []
    for server in entry["language-servers"]:
        if isinstance(server, str):
            names.append(server)
        else:
            assert set(server) <= {"name", "only-features", "except-features"}
            assert set(server.get("only-features", [])) <= FEATURES
            assert set(server.get("except-features", [])) <= FEATURES
            names.append(server["name"])
    assert "codeteam" in names
    others = [name for name in names if name != "codeteam"]
    assert others and set(others) <= HELIX_PYTHON_SERVERS


def test_the_command_runs_from_the_venv():
    venv_bin = Path(sys.executable).parent
    command = shutil.which("codeteam", path=str(venv_bin))
    assert command is not None, f"no codeteam in {venv_bin}"
    server = load()["language-server"]["codeteam"]
    done = subprocess.run(
        [command, *server["args"], "--help"], check=False, capture_output=True, text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "--tcp" in done.stdout


def test_one_documented_way_to_cancel_is_a_server_command():
    """Helix has no cancel button: README.md and languages.toml name the same workspace command,
    which the server registers (Helix offers only the commands in executeCommandProvider), and
    the README's key binding is valid config.toml."""
    from codeteam.editor.actions import CANCEL_COMMAND
    from codeteam.editor.app import create_server

    assert CANCEL_COMMAND in create_server().protocol.fm.commands
    invocation = f":lsp-workspace-command {CANCEL_COMMAND}"
    snippet = SNIPPET.read_text(encoding="utf-8")
    assert invocation in snippet
    assert ":lsp-restart" not in snippet
    readme = (SNIPPET.parents[2] / "README.md").read_text(encoding="utf-8")
    helix = readme[readme.index("\n### Helix\n"):]
    helix = " ".join(helix[: helix.index("\n## ")].split())
    assert f"`{invocation}` cancels every run in progress" in helix
    binding = re.search(r'`(x = "[^"]+")` under `\[keys\.normal\.space\]`', helix)
    assert binding is not None
    keys = tomllib.loads(f"[keys.normal.space]\n{binding.group(1)}\n")
    assert keys["keys"]["normal"]["space"]["x"] == invocation
