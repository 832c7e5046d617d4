"""find_project / project_for: root, import root, dotted module, interpreter, hidden paths."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from codeteam.project import InterpreterError, find_project, probe_interpreter, project_for
from codeteam.settings import load_settings
from project_kit import flat_package, make_venv, src_layout, write


def test_src_layout_module_is_importable_from_src(tmp_path):
    root = src_layout(tmp_path)
    project = find_project(root / "src/greeting/greet.py")
    assert not project.lone
    assert project.root == str(root)
    assert project.import_root == str(root / "src")
    assert project.module == "greeting.greet"
    assert project.file == str(root / "src/greeting/greet.py")
    assert project.python == sys.executable  # no .venv in the project
    assert project.interpreter is not None and project.interpreter.has_pytest


def test_hidden_paths_are_the_secrets_not_what_tests_read(tmp_path):
    """Top-level dotfiles (but the test tools' own), and at any depth ``.env*``, ``*.pem``,
    ``id_rsa*``, ``.netrc``, ``.pypirc`` files and ``.git`` folders (issue 25 item 5)."""
    root = src_layout(tmp_path)
    write(root, {".pytest.ini": "[pytest]\n", ".coveragerc": "[run]\n", ".hypothesis/x": "",
                 "src/.env.production": "X=1\n", "docs/.env": "not on the file's way\n",
                 "config/deep/.env": "A=1\n", "deploy/key.pem": "KEY\n",
                 "deploy/id_rsa.pub": "ssh-rsa\n", "tools/.netrc": "machine x\n",
                 "tools/.pypirc": "[pypi]\n", "vendor/lib/.git/config": "[core]\n",
                 "notes.txt": "", "tests/test_env.py": "",
                 ".venv/lib/site-packages/certifi/cacert.pem": "not walked\n",
                 ".venv/pyvenv.cfg": "home = /usr/bin\n",
                 "node_modules/x/.env": "not walked\n"})
    project = find_project(root / "src/greeting/greet.py")
    assert project.hidden == sorted(
        str(root / name)
        for name in (".env", ".git", ".hypothesis", ".venv", "config/deep/.env",
                     "deploy/id_rsa.pub", "deploy/key.pem", "docs/.env", "src/.env.production",
                     "src/greeting/.env.local", "tools/.netrc", "tools/.pypirc",
                     "vendor/lib/.git")
    )  # fmt: skip


def test_the_project_tree_is_walked_once_until_a_folder_changes(tmp_path, monkeypatch):
    from codeteam import project as project_module

    root = write(tmp_path / "proj", {"pkg/a.py": "", "pkg/sub/b.py": "", "link": ""})
    (root / "pkg" / "linked").symlink_to(root / "pkg" / "sub")
    root = root.resolve()
    tree = project_module.project_tree(str(root))
    assert tree.folders == ("pkg", "pkg/sub") and tree.secrets == () and tree.complete
    walks = []
    monkeypatch.setattr(project_module, "_walk",
                        lambda path, walk=project_module._walk: walks.append(path) or walk(path))
    assert project_module.project_tree(str(root)) is tree and walks == []
    (root / "pkg" / "sub" / ".env").write_text("SECRET=1\n")
    again = project_module.project_tree(str(root))
    assert walks == [str(root)] and again.secrets == (str(root / "pkg/sub/.env"),)


def test_the_project_tree_names_what_others_cannot_read(tmp_path, monkeypatch):
    from codeteam import project as project_module

    root = write(tmp_path / "proj", {"pkg/a.py": "", "pkg/private.py": "", "open/b.py": ""})
    (root / "pkg" / "private.py").chmod(0o600)
    (root / "open").chmod(0o700)
    tree = project_module.project_tree(str(root.resolve()))
    assert set(tree.closed) >= {str(root.resolve() / "pkg/private.py"),
                                str(root.resolve() / "open")}
    monkeypatch.setattr(project_module, "MAX_WALKED", 2)
    assert not project_module._walk(str(root.resolve())).complete


def test_flat_package_and_a_module_at_the_root(tmp_path):
    root = flat_package(tmp_path)
    write(root, {"tool.py": "def f():\n    pass\n", "calc/sub/__init__.py": "",
                 "calc/sub/deep.py": ""})
    assert find_project(root / "calc/core.py").module == "calc.core"
    assert find_project(root / "calc/core.py").import_root == str(root)
    assert find_project(root / "calc/sub/deep.py").module == "calc.sub.deep"
    assert find_project(root / "calc/__init__.py").module == "calc"
    top = find_project(root / "tool.py")
    assert (top.module, top.import_root, top.lone) == ("tool", str(root), False)


def test_a_lone_file_keeps_the_old_behaviour(tmp_path):
    folder = tmp_path / "scratch"
    write(folder, {"stub.py": "", "my-script.py": ""})
    lone = find_project(folder / "stub.py")
    assert lone.lone and lone.module == "stub" and lone.root == str(folder.resolve())
    assert lone.interpreter is None and lone.hidden == []
    assert find_project(folder / "my-script.py").module == "solution"


def test_a_package_without_project_files_is_rooted_above_its_top_package(tmp_path):
    root = write(tmp_path / "loose", {"pkg/__init__.py": "", "pkg/mod.py": ""})
    project = find_project(root / "pkg/mod.py")
    assert (project.root, project.module, project.lone) == (str(root), "pkg.mod", False)


def test_an_explicit_workspace_root_wins_when_it_holds_the_file(tmp_path):
    root = src_layout(tmp_path)
    outer = tmp_path.resolve()
    assert find_project(root / "src/greeting/greet.py", outer).root == str(outer)
    elsewhere = tmp_path / "other"
    elsewhere.mkdir()
    assert find_project(root / "src/greeting/greet.py", elsewhere).root == str(root)


def test_home_as_the_workspace_folder_is_not_the_project(tmp_path, monkeypatch):
    """An editor opened on $HOME must not mount all of it: the project is found instead."""
    monkeypatch.setenv("HOME", str(tmp_path))
    root = src_layout(tmp_path)
    assert find_project(root / "src/greeting/greet.py", tmp_path).root == str(root)


def test_the_project_venv_is_the_default_interpreter(tmp_path):
    root = src_layout(tmp_path)
    python = make_venv(root / ".venv")
    project = find_project(root / "src/greeting/greet.py")
    assert project.python == str(python)
    assert project.interpreter.prefix == str(root / ".venv")
    assert str(root / ".venv") not in project.hidden  # the interpreter in use stays visible
    # made --without-pip from codeteam's own interpreter: no pytest there, and it says so
    assert not project.interpreter.has_pytest
    assert any("has no pytest" in note and str(python) in note for note in project.notes)


def test_a_python_setting_that_does_not_exist_is_a_clear_error_then_a_fallback(tmp_path):
    root = src_layout(tmp_path)
    missing = str(tmp_path / "nowhere" / "python")
    with pytest.raises(InterpreterError, match=f"the interpreter {missing} does not exist"):
        find_project(root / "src/greeting/greet.py", python=missing)
    project = project_for(root / "src/greeting/greet.py", python=missing)
    assert project.python == sys.executable
    assert project.notes[0] == (
        f"setting python: the interpreter {missing} does not exist; the tests run with "
        f"{sys.executable} instead"
    )


def test_a_python_setting_for_a_lone_module_is_named_as_not_used(tmp_path):
    # newcomer9: --set python=... was ignored without a word for a file in no project
    lone = write(tmp_path / "scratch", {"m.py": "def f():\n    pass\n"}) / "m.py"
    project = project_for(lone, python="/nowhere/python")
    assert project.lone and project.python == sys.executable
    assert project.notes == [
        ("setting python: not used: m.py is in no project (no pyproject.toml, setup.cfg, "
        "setup.py, pytest.ini, tox.ini, .git in its folder or above, nor a package around it); "
        f"its tests run with {sys.executable}")]
    assert project_for(lone).notes == []


def test_a_python_setting_that_is_not_python(tmp_path):
    fake = write(tmp_path / "bin", {"python": "#!/bin/sh\necho hello\n"}) / "python"
    fake.chmod(0o755)
    with pytest.raises(InterpreterError, match="does not run as a Python 3 interpreter"):
        probe_interpreter(str(fake))
    not_executable = write(tmp_path / "bin2", {"python": ""}) / "python"
    with pytest.raises(InterpreterError, match="is not executable"):
        probe_interpreter(str(not_executable))


def test_a_relative_python_setting_is_taken_from_the_root(tmp_path):
    root = src_layout(tmp_path)
    python = make_venv(root / "envs" / "dev")
    project = find_project(root / "src/greeting/greet.py", python="envs/dev/bin/python")
    assert project.python == str(python)


def test_python_is_a_setting(monkeypatch):
    monkeypatch.setenv("CODETEAM_PYTHON", "/opt/py/bin/python")
    settings, problems = load_settings()
    assert settings.python == "/opt/py/bin/python" and problems == []
    settings, problems = load_settings({"python": ""}, env=False)
    assert settings.python is None and problems == []


def test_the_probe_is_cached_per_interpreter():
    first = probe_interpreter(sys.executable)
    assert probe_interpreter(sys.executable) is first
    assert first.version == ".".join(map(str, sys.version_info[:3]))
    assert Path(first.prefix) == Path(sys.prefix)


def test_an_interpreter_is_started_once_for_its_probe_and_its_borrowed_pytest(
        tmp_path, monkeypatch):
    """A project's interpreter without pytest borrows codeteam's (same Python version): what it
    has is read from the project's probe, not from a second start of it (each ``import
    pytest`` there costs about 0.15 CPU seconds, in every CLI run and editor server)."""
    import os
    import site
    import subprocess

    from codeteam.execution.pytest_run import borrowed_pytest

    python = str(make_venv(tmp_path / ".venv"))
    started = []
    real_run = subprocess.run

    def counted(argv, *args, **kwargs):
        started.append(argv[0])
        return real_run(argv, *args, **kwargs)

    monkeypatch.setattr(subprocess, "run", counted)
    assert not probe_interpreter(python).has_pytest
    assert borrowed_pytest(python) == tuple(
        os.path.realpath(p) for p in site.getsitepackages() if os.path.isdir(p))
    assert borrowed_pytest(sys.executable) == ()  # it has pytest of its own
    assert started.count(python) == 1, started


def test_codeteams_own_interpreter_is_not_started_to_find_its_pytest(monkeypatch):
    """A lone module runs with codeteam's interpreter, whose pytest is in its site-packages:
    nothing to borrow, known without starting it (about 0.15 CPU-s a CLI run on a lone file)."""
    import subprocess

    from codeteam import project
    from codeteam.execution.pytest_run import borrowed_pytest

    started = []
    real_run = subprocess.run

    def counted(argv, *args, **kwargs):
        started.append(argv[0])
        return real_run(argv, *args, **kwargs)

    monkeypatch.setattr(subprocess, "run", counted)
    monkeypatch.setattr(project, "_probes", {})  # not probed yet in this process
    assert borrowed_pytest.__wrapped__(sys.executable) == ()
    assert started == []
