"""preflight.unreadable_reason: what the sandbox's uid could not read, said before any run."""

from __future__ import annotations

import os

import pytest

from codeteam.project import find_project
from codeteam.service.preflight import unreadable_reason
from project_kit import write

root_only = pytest.mark.skipif(os.geteuid() != 0, reason="only a root server drops to another uid")


def _project(tmp_path):
    root = write(tmp_path / "proj", {"pyproject.toml": "", "pkg/__init__.py": "",
                                     "pkg/mod.py": "X = 1\n", ".env": "KEY=1\n",
                                     "config/.env.local": "KEY=2\n"})  # fmt: skip
    return root


@root_only
def test_secret_files_of_mode_0600_do_not_count(tmp_path):
    root = _project(tmp_path)
    (root / ".env").chmod(0o600)
    (root / "config/.env.local").chmod(0o600)
    project = find_project(root / "pkg/mod.py")
    assert unreadable_reason(project, "bwrap") is None


@root_only
def test_a_closed_folder_is_named_with_its_mode_and_owner(tmp_path):
    root = _project(tmp_path)
    (root / "pkg").chmod(0o750)
    project = find_project(root / "pkg/mod.py")
    reason = unreadable_reason(project, "bwrap")
    assert reason is not None and f"{root / 'pkg'} (mode 0750, owner root)" in reason
    assert unreadable_reason(project, "none") is None  # "none" copies it as root
    (root / "pkg").chmod(0o755)
    assert unreadable_reason(project, "bwrap") is None  # the fix is seen at once


def test_a_server_that_is_not_root_reads_as_the_owner(tmp_path, monkeypatch):
    root = _project(tmp_path)
    (root / "pkg").chmod(0o700)
    project = find_project(root / "pkg/mod.py")
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert unreadable_reason(project, "bwrap") is None


@root_only
def test_the_advice_opens_only_the_paths_named_never_the_whole_project(tmp_path):
    # Found attacking issue 25's work: the advice was "chmod -R o+rX <project>", which also
    # makes every file kept private on purpose (a deploy key of mode 0600) world-readable.
    root = _project(tmp_path)
    (root / "pkg").chmod(0o700)
    (root / "deploy.key").write_text("private\n")
    (root / "deploy.key").chmod(0o600)
    reason = unreadable_reason(find_project(root / "pkg/mod.py"), "bwrap")
    assert reason is not None and "chmod -R" not in reason
    assert f"(chmod o+rX {root / 'deploy.key'} {root / 'pkg'})" in reason
    assert "run codeteam as the project's owner instead of root" in reason
