"""Fixtures of the Neovim suite (see nvim_harness.py): ``nvim`` runs a real headless Neovim with
the shipped setup module against the real server and the scripted model (``scripted``,
tests/conftest.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "editor"))  # editor_harness: the prompts' routing patterns

from nvim_harness import NvimRun, run_nvim


@pytest.fixture
def nvim(scripted, tmp_path):
    """``nvim(file, action=..., cursor=..., settings=..., setup=..., **spec)`` runs Neovim once
    and returns an :class:`~nvim_harness.NvimRun`."""

    def run(file: Path, **kwargs) -> NvimRun:
        return run_nvim(tmp_path, scripted.base_url, file, **kwargs)

    return run
