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


def pytest_configure(config):
    """The judged pytest sessions of the suite's small projects (which run with this venv's
    interpreter, the default for a project without one) load none of the dev plugins
    installed here: ``PYTEST_DISABLE_PLUGIN_AUTOLOAD`` reaches the sandbox from codeteam's
    environment (:data:`codeteam.execution.sandbox_command.PYTEST_VARIABLES`), as it would
    reach plain pytest. pytest-lsp alone (pygls, lsprotocol) costs a judge about 1 CPU
    second at each start; half the CPU of a judge-heavy test module went there. Set in this
    process once its own plugins are loaded: in each xdist worker, or in the one process of
    ``-n 0``, never in the xdist controller (its workers must still load theirs). A test
    whose project needs an installed plugin names it (``PYTEST_PLUGINS``) or unsets this."""
    if getattr(config, "workerinput", None) is None and config.getoption("numprocesses", 0):
        return
    os.environ.setdefault("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
