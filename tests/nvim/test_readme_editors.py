"""The README's "Editors" section: its Lua snippets compile (Neovim's LuaJIT) and its Helix
snippet is the shipped editors/helix/languages.toml (same data)."""

from __future__ import annotations

import json
import re
import subprocess
import tomllib
from pathlib import Path

import pytest
from nvim_harness import needs_nvim

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"


def editors_section() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index("\n## Editors\n")
    end = text.index("\n## ", start + 1)
    return text[start:end]


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", editors_section(), re.DOTALL)


def test_the_placeholder_is_gone_and_the_first_commands_stay():
    text = README.read_text(encoding="utf-8")
    assert "(Editor setups: see below.)" not in text
    assert "scripts/setup.sh && .venv/bin/codeteam run examples/stubs.py" in text
    assert "scripts/setup.sh --dev && .venv/bin/python -m pytest" in text
    section = editors_section()
    for heading in ("### VS Code", "### Neovim 0.7 and later", "### Newer Neovim", "### Helix"):
        assert heading in section
    assert "client-vscode/README.md" in section and "ci.sh" in section


def test_the_preview_is_shown_for_each_editor():
    section = editors_section()
    preview = section[section.index("### Preview before apply"):]
    preview = preview[:preview.index("\n### ", 5)]
    for needle in ("**VS Code**", "refactor preview", "**Neovim**", ":CodeteamAccept",
                   ":CodeteamDiscard", "**Helix**", "applied as before", "codeteam.apply",
                   "never applied without you seeing it and its failures",
                   "No plan was produced"):
        assert needle in preview, needle
    [row] = [line for line in section.splitlines() if line.startswith("| preview before apply |")]
    assert "refactor preview" in row and ":CodeteamAccept" in row and "codeteam.apply" in row


def test_the_helix_snippet_is_the_shipped_file():
    [snippet] = blocks("toml")
    shipped = tomllib.loads((REPO / "editors" / "helix" / "languages.toml").read_text())
    assert tomllib.loads(snippet) == shipped


@pytest.mark.nvim
@needs_nvim
def test_the_lua_snippets_compile(tmp_path):
    snippets = blocks("lua")
    assert len(snippets) >= 4
    files = []
    for number, snippet in enumerate(snippets):
        path = tmp_path / f"snippet{number}.lua"
        path.write_text(snippet, encoding="utf-8")
        files.append(str(path))
    files.append(str(REPO / "editors" / "nvim" / "codeteam.lua"))
    out = tmp_path / "compiled.json"
    checker = tmp_path / "check.lua"
    checker.write_text(
        "local errors = {}\n"
        f"for _, path in ipairs(vim.fn.json_decode({json.dumps(json.dumps(files))})) do\n"
        "  local chunk, err = loadfile(path)\n"
        "  if not chunk then table.insert(errors, err) end\n"
        "end\n"
        f"vim.fn.writefile({{vim.fn.json_encode({{errors = errors}})}}, {json.dumps(str(out))})\n"
        "vim.cmd('qall!')\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        ["nvim", "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", f"luafile {checker}"],
        check=False, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )
    assert out.exists(), done.stderr
    assert json.loads(out.read_text())["errors"] == []
