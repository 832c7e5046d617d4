"""Shared fixtures: the scripted OpenAI-compatible model on 127.0.0.1."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from scripted_llm import ScriptedLLM


@pytest.fixture
def scripted():
    """A running :class:`ScriptedLLM`; stopped after the test."""
    with ScriptedLLM() as llm:
        yield llm
