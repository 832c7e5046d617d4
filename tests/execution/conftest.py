"""Shared helpers for the execution tests: policies and the bwrap availability check."""

from __future__ import annotations

import pytest

from codeteam.execution.sandbox import SandboxPolicy, sandbox_problem


def pytest_collection_modifyitems(config, items):
    """Tests marked ``sandbox`` are skipped (with the reason) where bwrap cannot run."""
    problem = sandbox_problem("bwrap")
    if problem is None:
        return
    skip = pytest.mark.skip(reason=f"bwrap unusable here: {problem}")
    for item in items:
        if "sandbox" in item.keywords and item.path.is_relative_to(
            config.rootpath / "tests" / "execution"
        ):
            item.add_marker(skip)


@pytest.fixture
def policy() -> SandboxPolicy:
    """bwrap with short limits, so that the tests that hit them stay fast."""
    return SandboxPolicy(mode="bwrap", timeout_s=8, per_test_timeout_s=1.0)


@pytest.fixture
def cov_plugin(monkeypatch):
    """pytest-cov loads in the judged sessions (the suite turns plugin autoload off for
    them, see tests/conftest.py): for a project whose addopts say ``--cov``."""
    pytest.importorskip("pytest_cov")
    monkeypatch.setenv("PYTEST_PLUGINS", "pytest_cov.plugin")
