"""Runs on a function that lives in a project: imported by its dotted name inside its package,
with the project's interpreter (codeteam's pytest borrowed when it has none), the project
read-only, its secrets hidden."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest
from judge_support import run_tests

from codeteam.execution.outcomes import TestCase
from codeteam.execution.sandbox import SandboxPolicy
from codeteam.project import project_for
from codeteam.service.documents import task_for
from project_kit import flat_package, make_venv, src_layout, write

pytestmark = pytest.mark.sandbox

MODES = ["bwrap", "none"]


def task_of(path: Path, qualname: str, **project_args):
    project = project_for(path, **project_args)
    return task_for(path.read_text(), qualname, path=path, project=project)


def ai_test(source: str, test_id: str = "ai:1") -> TestCase:
    return TestCase(id=test_id, kind="assert", origin="ai", source=source)


@pytest.mark.parametrize("mode", MODES)
async def test_relative_import_in_a_src_layout_passes_its_docstring_example(tmp_path, mode):
    """Before projects were known this failed: "attempted relative import with no known
    parent package" for correct code."""
    root = src_layout(tmp_path)
    task = task_of(root / "src/greeting/greet.py", "greet")
    assert task.module_name == "greeting.greet"
    [example] = [t for t in task.public_tests if t.kind == "doctest"]
    policy = SandboxPolicy(mode=mode, timeout_s=15)
    report = await run_tests(task.program_with(task.stub), [example, ai_test(
        "assert greet('x') == 'HELLO X'")], policy=policy, project=task.project)
    assert [o.status for o in report.outcomes] == ["passed", "passed"], report.outcomes
    wrong = "def greet(name):\n    return _('bye ' + name)\n"
    report = await run_tests(task.program_with(wrong), [example], policy=policy,
                             project=task.project)
    [outcome] = report.outcomes
    assert outcome.status == "failed" and outcome.actual == "'BYE BOB'", outcome
    broken = "def greet(name):\n    return 1 / 0\n"
    report = await run_tests(task.program_with(broken), [example], policy=policy,
                             project=task.project)
    [outcome] = report.outcomes
    assert outcome.status == "failed" and outcome.exception_type == "ZeroDivisionError"
    assert outcome.function_line == 1  # the line of the candidate, mapped into the function
    assert (root / "src/greeting/greet.py").read_text().count("return _(\"hello \" + name)") == 1


async def test_the_package_init_runs_first(tmp_path, policy):
    root = flat_package(tmp_path)
    task = task_of(root / "calc/core.py", "scale")
    assert task.module_name == "calc.core"
    report = await run_tests(task.program_with(task.stub), task.public_tests, policy=policy,
                             project=task.project)
    assert [o.status for o in report.outcomes] == ["passed"], report.outcomes


async def test_a_dependency_in_the_projects_venv(tmp_path):
    root = write(tmp_path / "app", {
        "pyproject.toml": "[project]\nname = 'app'\n",
        "app/__init__.py": "",
        "app/money.py": 'import fancymoney\n\n\ndef total(xs):\n    """Sum.\n\n'
                        '    >>> total([1, 2])\n    \'3 EUR\'\n    """\n'
                        '    return fancymoney.fmt(sum(xs))\n',
    })  # fmt: skip
    python = make_venv(root / ".venv", {
        "fancymoney/__init__.py": "def fmt(amount):\n    return f'{amount} EUR'\n",
    })  # fmt: skip
    task = task_of(root / "app/money.py", "total")
    assert task.project.python == str(python)
    report = await run_tests(task.program_with(task.stub), task.public_tests,
                             policy=SandboxPolicy(timeout_s=15), project=task.project)
    assert [o.status for o in report.outcomes] == ["passed"], report.outcomes
    # the server's interpreter does not have it: the project's own one ran the test
    assert importlib.util.find_spec("fancymoney") is None


SNOOP = '''\
import os


def snoop(name):
    """What the code under test finds at ``name`` in the project."""
    path = os.path.join(os.path.dirname(__file__), "..", "..", name)
    if os.path.isdir(path):
        return sorted(os.listdir(path))
    if not os.path.exists(path):
        return None
    with open(path) as handle:
        return handle.read()


def scribble(name):
    """Try to write ``name`` in the project; the error's name, or "written"."""
    path = os.path.join(os.path.dirname(__file__), "..", "..", name)
    try:
        with open(path, "w") as handle:
            handle.write("pwned")
    except OSError as error:
        return type(error).__name__ + ":" + str(error.errno)
    return "written"
'''


async def test_secrets_are_not_visible_and_the_project_cannot_be_written(tmp_path, policy):
    root = src_layout(tmp_path)
    write(root, {"src/greeting/snoop.py": SNOOP})
    task = task_of(root / "src/greeting/snoop.py", "snoop")
    tests = [
        ai_test("assert snoop('.git') == []", "git"),
        ai_test("assert snoop('.env') is None", "env"),  # a hidden file: none in the view
        ai_test("assert snoop('src/greeting/.env.local') is None", "deep-env"),
        ai_test("assert snoop('pyproject.toml').startswith('[project]')", "visible"),
        # the code writes into its own copy-on-write view of the project, as under plain
        # pytest; the project on disk is unchanged (below); its own file stays read-only, a
        # hidden folder (.git) is an empty one of the view's own
        ai_test("assert scribble('pyproject.toml') in ('written', 'PermissionError:13')",
                "write-file"),  # (a root server's subject has a uid of its own)
        ai_test("assert scribble('src/greeting/snoop.py') == 'OSError:30'", "write-self"),
        ai_test("assert scribble('new.txt') == 'written'", "write-new"),
        ai_test("assert scribble('.git/config') == 'written'", "write-git"),
    ]
    report = await run_tests(task.program_with(task.stub), tests, policy=policy,
                             project=task.project)
    assert {o.test_id: o.status for o in report.outcomes} == dict.fromkeys(
        [t.id for t in tests], "passed"), report.outcomes
    assert "ghp_secret" not in report.output and "sk-top-secret" not in report.output
    assert (root / ".env").read_text() == "API_KEY=sk-top-secret\n"
    assert "ghp_secret" in (root / ".git/config").read_text()
    assert not (root / "new.txt").exists()
    assert "pwned" not in (root / "pyproject.toml").read_text()
    assert not list(root.rglob("__pycache__"))  # no bytecode written into the project


async def test_a_lone_file_is_a_project_of_one_file(tmp_path, policy):
    path = write(tmp_path / "scratch", {"double.py": 'def double(x):\n    """D.\n\n'
                                        '    >>> double(2)\n    4\n    """\n'
                                        '    return 2 * x\n'}) / "double.py"  # fmt: skip
    task = task_of(path, "double")
    assert task.project.lone and task.module_name == "double"
    report = await run_tests(task.program_with(
        "def double(x):\n    import os\n    assert os.getcwd() == os.path.dirname(__file__)\n"
        "    assert sorted(os.listdir('.')) == ['double.py', 'pytest.ini'], os.listdir('.')\n"
        "    return 2 * x\n"),
        task.public_tests, module_name=task.module_name, policy=policy, project=task.project)
    assert [o.status for o in report.outcomes] == ["passed"], report.outcomes


def test_codeteam_run_review_on_a_src_layout(tmp_path, scripted):
    """``codeteam run --pipeline review`` finds the project from the file and passes the
    docstring example of a module with a relative import."""
    root = src_layout(tmp_path)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("CODETEAM_") and k != "OPENAI_API_KEY"}
    env.update({"CODETEAM_BASE_URL": scripted.base_url, "CODETEAM_AI_TESTS": "0",
                "CODETEAM_MAX_RETRIES": "0"})
    done = subprocess.run(
        [sys.executable, "-m", "codeteam", "run", str(root / "src/greeting/greet.py"),
         "--function", "greet", "--pipeline", "review"],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f"testing greeting.greet in the project {root}" in done.stderr
    # tests/test_greet.py (found under the project root), and the docstring example beside it
    assert "1/1 public tests passed" in done.stderr, done.stderr
    assert "1/1 docstring examples agree" in done.stderr, done.stderr
    bad = subprocess.run(
        [sys.executable, "-m", "codeteam", "run", str(root / "src/greeting/greet.py"),
         "--function", "greet", "--pipeline", "review", "--set", "python=/no/such/python"],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert bad.stderr.count("the interpreter /no/such/python does not exist") == 1, bad.stderr
    assert "1/1 public tests passed" in bad.stderr and bad.returncode == 0
