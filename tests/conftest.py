"""Shared fixtures: the scripted OpenAI-compatible model on 127.0.0.1."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
# The bench tests read small excerpts of the benchmark files shipped with the tests, so that
# they run on any clone (the full files live in the project's shared data, outside the repo).
os.environ.setdefault("CODETEAM_BENCH_DATA", str(Path(__file__).resolve().parent / "bench" / "data"))

from scripted_llm import ScriptedLLM


@pytest.fixture
def scripted():
    """A running :class:`ScriptedLLM`; stopped after the test."""
    with ScriptedLLM() as llm:
        yield llm
