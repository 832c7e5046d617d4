"""The project's own tests, chosen by a judged pytest session of everything pytest collects and
run by pytest itself in the sandbox (codeteam.execution.pytest_run, suite): small real projects,
each checked against what pytest itself collects (``pytest --collect-only -q``)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from judge_support import run_candidate

from codeteam.execution.pytest_run import (
    select_tests,
    selection_cases,
    target_for,
)
from codeteam.execution.sandbox import SandboxPolicy
from codeteam.project import project_for
from codeteam.pysource.functions import locate
from codeteam.service.documents import task_for, with_project_tests

pytestmark = pytest.mark.sandbox

POLICY = SandboxPolicy(mode="bwrap", timeout_s=30, per_test_timeout_s=5)

CORE = '''\
from .helpers import SEP


def add(a, b):
    """Add a and b.

    >>> add(1, 2)
    3
    """
    return a + b


def join(xs):
    return SEP.join(str(add(x, 0)) for x in xs)
'''

FILES = {
    "pyproject.toml": """\
        [project]
        name = "pkg"
        version = "0"

        [tool.pytest.ini_options]
        pythonpath = ["src"]
        addopts = "-m 'not slow' --strict-markers"
        markers = ["slow: slow tests"]
        """,
    "src/pkg/__init__.py": "from .core import add, join\n",
    "src/pkg/helpers.py": 'SEP = ","\n',
    "src/pkg/core.py": CORE,
    "tests/conftest.py": """\
        import pytest

        @pytest.fixture(params=[1, 2])
        def num(request):
            return request.param

        @pytest.fixture
        def saved(tmp_path):
            path = tmp_path / "n.txt"
            path.write_text("4")
            return path
        """,
    "tests/sibling.py": "PAIRS = [(1, 1, 2), (0, 5, 5)]\n",
    "tests/test_core.py": """\
        import unittest

        import pytest
        from sibling import PAIRS

        from pkg import join
        from pkg.core import add

        CASES = [(1, 2, 3), (2, 2, 4)]


        @pytest.mark.parametrize("a,b,c", CASES)
        def test_from_list(a, b, c):
            assert add(a, b) == c


        @pytest.mark.parametrize("a,b,c", PAIRS)
        def test_from_sibling(a, b, c):
            assert add(a, b) == c


        @pytest.fixture
        def doubled(request):
            return request.param * 2


        @pytest.mark.parametrize("doubled", [1, 3], indirect=True)
        def test_from_fixture(doubled):
            assert add(doubled, 0) == doubled


        def test_conftest_fixture(num):
            assert add(num, num) == 2 * num


        def test_tmp_path_fixture(saved):
            assert add(int(saved.read_text()), 1) == 5


        def test_through_another_function():
            assert join([1, 2]) == "1,2"


        def test_never_calls_it():
            assert sorted([2, 1]) == [1, 2]


        def test_missing_fixture(db):
            assert add(db, 1)


        @pytest.mark.skip(reason="not today")
        def test_skipped():
            assert add(1, 1) == 2


        @pytest.mark.slow
        def test_slow():
            assert add(2, 2) == 4


        class TestWithSetup:
            def setup_method(self):
                self.base = 5

            def test_method(self):
                assert add(self.base, 1) == 6


        class AddCase(unittest.TestCase):
            def test_unittest(self):
                self.assertEqual(add(3, 4), 7)
        """,
    "tests/test_broken.py": """\
        import codeteam_no_such_module
        from pkg.core import add

        def test_b():
            assert add(1, 1) == 2
        """,
    "tests/test_unrelated.py": "def test_other():\n    assert True\n",
    # names only a caller of add (join): found through the caller, selected by running it
    "tests/test_join_only.py": "from pkg import join\n\n\ndef test_join_only():\n"
                               "    assert join([3]) == '3'\n",
}

CALLING = {
    "tests/test_core.py::test_from_list[1-2-3]",
    "tests/test_core.py::test_from_list[2-2-4]",
    "tests/test_core.py::test_from_sibling[1-1-2]",
    "tests/test_core.py::test_from_sibling[0-5-5]",
    "tests/test_core.py::test_from_fixture[1]",
    "tests/test_core.py::test_from_fixture[3]",
    "tests/test_core.py::test_conftest_fixture[1]",
    "tests/test_core.py::test_conftest_fixture[2]",
    "tests/test_core.py::test_tmp_path_fixture",
    "tests/test_core.py::test_through_another_function",
    "tests/test_core.py::TestWithSetup::test_method",
    "tests/test_core.py::AddCase::test_unittest",
    "tests/test_join_only.py::test_join_only",
}


def make_project(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    (root / ".git").mkdir(exist_ok=True)
    (root / ".env").write_text("API_KEY=sk-very-secret\n")
    return root.resolve()


def collected(root: Path, *args: str) -> set[str]:
    """Node ids as pytest itself collects them (in the same interpreter)."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
         "--continue-on-collection-errors", *args],
        cwd=root, capture_output=True, text=True, check=False,
    )
    return {line.strip() for line in done.stdout.splitlines() if "::" in line}


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("projects")
    base.chmod(0o755)
    return make_project(base / "proj", FILES)


def _target(root: Path, text: str | None = None, qualname: str = "add"):
    path = root / "src/pkg/core.py"
    info = locate(text or path.read_text(), qualname)
    project = project_for(path)
    assert Path(project.root) == root
    return target_for(root, path, project.module, qualname, info.start_line, project.python,
                      extra_ro=project.read_only_paths(), hidden=project.hidden)


async def test_selection_is_the_tests_that_call_the_function(project):
    target = _target(project)
    assert target.module == "pkg.core"
    selection = await select_tests(target, CORE, POLICY)
    assert selection.problem is None
    assert set(selection.selected) == CALLING
    # ... each of them a test pytest itself collects, ids as pytest gives them
    pytest_ids = collected(project, "tests")
    assert CALLING <= pytest_ids
    assert "tests/test_core.py::test_never_calls_it" in pytest_ids
    assert "tests/test_core.py::test_never_calls_it" not in selection.selected
    assert "tests/test_unrelated.py::test_other" in pytest_ids
    assert selection.collected == len(pytest_ids)  # everything pytest collects was looked at
    # addopts honoured: -m 'not slow' deselects test_slow, as in the project's own run
    assert "tests/test_core.py::test_slow" not in selection.selected
    reasons = {group.reason: group.node_ids for group in selection.not_run}
    assert reasons == {
        "collection error: ModuleNotFoundError: No module named 'codeteam_no_such_module'":
            ["tests/test_broken.py"],
        "error in setup: fixture 'db' not found": ["tests/test_core.py::test_missing_fixture"],
        "Skipped: not today": ["tests/test_core.py::test_skipped"],
    }
    assert selection.doctests == []  # the project does not run doctests
    again = await select_tests(target, CORE, POLICY)
    assert again is selection  # cached: same file text, same test files


async def test_the_original_passes_and_a_wrong_body_fails(project):
    target = _target(project)
    selection = await select_tests(target, CORE, POLICY)
    cases = selection_cases(selection)
    target = target.model_copy(update={"rootdir": selection.rootdir})
    good = await run_candidate(target, CORE, CORE, cases, POLICY)
    by_id = {o.test_id: o for o in good.outcomes}
    assert [o.test_id for o in good.outcomes] == [c.id for c in cases]
    assert {i for i, o in by_id.items() if o.status == "passed"} == CALLING
    assert {i for i, o in by_id.items() if o.status == "skipped"} == {
        "tests/test_broken.py", "tests/test_core.py::test_missing_fixture",
        "tests/test_core.py::test_skipped"}

    wrong = CORE.replace("    return a + b\n", "    return a - b\n")
    bad = await run_candidate(target, CORE, wrong, cases, POLICY)
    failed = {o.test_id for o in bad.outcomes if o.status == "failed"}
    assert "tests/test_core.py::test_from_list[1-2-3]" in failed
    outcome = next(o for o in bad.outcomes if o.test_id.endswith("test_from_list[1-2-3]"))
    assert (outcome.expected, outcome.actual) == ("3", "-1")
    assert outcome.message.startswith("assert -1 == 3")
    assert outcome.test_file == str(project / "tests/test_core.py")
    assert outcome.test_line == 13  # the assert, 0-based
    # a body that raises: the failing line is the function's own
    raising = CORE.replace("    return a + b\n", "    raise NotImplementedError\n")
    broken = await run_candidate(target, CORE, raising, cases, POLICY)
    ran = [o for o in broken.outcomes if o.status != "skipped"]
    assert ran and all(o.status == "failed" for o in ran), [(o.test_id, o.status) for o in ran]
    assert {o.function_line for o in ran} == {6}  # `raise` is line 6 of the function
    assert (project / "src/pkg/core.py").read_text() == CORE


async def test_the_candidate_cannot_write_into_the_project(project):
    target = _target(project)
    selection = await select_tests(target, CORE, POLICY)
    cases = [c for c in selection_cases(selection) if c.id.endswith("test_from_list[1-2-3]")]
    hostile = CORE.replace("    return a + b\n", (
        "    import os\n"
        "    for name in ('src/pkg/core.py', 'tests/test_core.py', 'new.txt'):\n"
        "        try:\n"
        "            open(os.path.join(ROOT, name), 'w').write('x')\n"
        "        except OSError as error:\n"
        "            print(type(error).__name__)\n"
        "    env = os.path.join(ROOT, '.env')\n"
        "    secret = open(env).read() if os.path.exists(env) else ''  # absent, or empty\n"
        "    assert 'sk-very-secret' not in secret, 'the .env file is visible'\n"
        "    return a + b\n"
    )).replace("from .helpers import SEP\n", f"from .helpers import SEP\nROOT = {str(project)!r}\n")
    target = target.model_copy(update={"rootdir": selection.rootdir})
    report = await run_candidate(target, CORE, hostile, cases, POLICY)
    assert [o.status for o in report.outcomes] == ["passed"], report.outcomes
    assert (project / "src/pkg/core.py").read_text() == CORE
    assert (project / "tests/test_core.py").read_text() == textwrap.dedent(
        FILES["tests/test_core.py"])
    assert not (project / "new.txt").exists()


async def test_project_doctests_are_run_by_pytest_instead_of_the_stdlib(tmp_path):
    tmp_path.chmod(0o755)
    files = dict(FILES)
    files["pyproject.toml"] = FILES["pyproject.toml"].replace(
        "addopts = \"-m 'not slow' --strict-markers\"",
        "addopts = \"--doctest-modules -m 'not slow' --strict-markers\"")
    root = make_project(tmp_path / "proj", files)
    path = root / "src/pkg/core.py"
    task = task_for(CORE, "add", path=path)
    assert [t.kind for t in task.public_tests] == ["doctest"]  # the stdlib example
    task = await with_project_tests(task, path=path, root=root, policy=POLICY)
    doctest_id = "src/pkg/core.py::pkg.core.add"
    assert doctest_id in collected(root)  # pytest's own id for the function's doctest
    kinds = {t.id: t.kind for t in task.public_tests}
    assert kinds[doctest_id] == "pytest" and "doctest" not in kinds.values()
    wrong = CORE.replace("    return a + b\n", "    return a * b\n")
    doctest = [t for t in task.public_tests if t.id == doctest_id]
    for text, status in ((CORE, "passed"), (wrong, "failed")):  # judged: the project's verdict
        report = await run_candidate(task.pytest_target, CORE, text, doctest, POLICY)
        (outcome,) = report.outcomes
        assert outcome.status == status, outcome
    assert (outcome.expected, outcome.actual) == ("3", "2")


async def test_a_plugin_in_addopts_missing_from_the_interpreter_is_not_run(tmp_path):
    tmp_path.chmod(0o755)
    files = dict(FILES)
    files["pyproject.toml"] = FILES["pyproject.toml"].replace(
        "addopts = \"-m 'not slow' --strict-markers\"", 'addopts = "--codeteam-no-such-option"')
    root = make_project(tmp_path / "proj", files)
    selection = await select_tests(_target(root), CORE, POLICY)
    assert selection.selected == []
    assert "unrecognized arguments: --codeteam-no-such-option" in (selection.problem or "")
    (case,) = selection_cases(selection)
    assert case.skip_reason == selection.problem


async def test_a_project_without_tests_starts_no_process(tmp_path, monkeypatch):
    tmp_path.chmod(0o755)
    files = {k: v for k, v in FILES.items() if not k.startswith("tests/test_")}
    root = make_project(tmp_path / "proj", files)
    from codeteam.execution import pytest_run

    async def no_process(*args, **kwargs):
        raise AssertionError("no pytest run without anything for pytest to collect")

    monkeypatch.setattr(pytest_run, "run_sandboxed", no_process)
    path = root / "src/pkg/core.py"
    task = task_for(CORE, "add", path=path)
    same = await with_project_tests(task, path=path, root=root, policy=POLICY)
    assert same.public_tests == task.public_tests and same.pytest_target is None


async def test_a_candidate_that_forges_results_or_exits_early_does_not_pass(project):
    """The forging recipe of issue 13: fake outcome lines on the descriptor named in the
    environment, then ``os._exit(0)``. The code runs in a process of its own, which has no
    such descriptor: its exit is an error of the call."""
    target = _target(project)
    selection = await select_tests(target, CORE, POLICY)
    cases = [c for c in selection_cases(selection) if c.skip_reason is None][:3]
    lines = [{"event": "outcome", "nodeid": c.id, "outcome": "passed"} for c in cases]
    lines.append({"event": "done", "exitstatus": 0, "outcomes": len(cases)})
    fake = "".join(json.dumps(line) + "\n" for line in lines)
    forging = CORE.replace("    return a + b\n", (
        "    import os\n"
        f"    fake = {fake!r}\n"
        "    fd = os.environ.get('CODETEAM_RESULTS_FD')\n"
        "    if fd is not None:\n"
        "        os.write(int(fd), fake.encode())\n"
        "    os._exit(0)\n"
    ))
    target = target.model_copy(update={"rootdir": selection.rootdir})
    report = await run_candidate(target, CORE, forging, cases, POLICY)
    assert [o.status for o in report.outcomes] != ["passed"] * len(cases), report.outcomes
    assert all(o.status == "error" for o in report.outcomes), report.outcomes
    assert "died during this call" in report.outcomes[0].message


async def test_a_test_that_ends_the_process_does_not_hide_the_tests_after_it(tmp_path):
    tmp_path.chmod(0o755)
    root = make_project(tmp_path / "proj", {
        "pyproject.toml": "[project]\nname = 'calc'\n",
        "calc.py": "def double(x):\n    return 2 * x\n",
        "test_calc.py": """\
            import os
            from calc import double

            def test_before():
                assert double(1) == 2

            def test_exits():
                double(2)
                os._exit(3)

            def test_after():
                assert double(3) == 6
            """,
    })
    path = root / "calc.py"
    target = target_for(root, path, "calc", "double", 0, None)
    selection = await select_tests(target, path.read_text(), POLICY)
    # the selection ends each test at its call: test_exits never reaches its os._exit
    assert selection.selected == ["test_calc.py::test_before", "test_calc.py::test_exits",
                                  "test_calc.py::test_after"]
    assert set(selection.selected) == collected(root)
    report = await run_candidate(target, path.read_text(), path.read_text(),
                                 selection_cases(selection), POLICY)
    before, exits, after = report.outcomes
    assert before.status == "passed"
    assert exits.status == "error" and "died during this test" in exits.message
    # plain pytest does not run it either: no outcome of the code's, never an error
    assert after.status == "not judged" and "ended before this test" in after.message


async def test_an_endless_loop_times_out_its_test_and_the_next_ones_still_run(project):
    target = _target(project)
    selection = await select_tests(target, CORE, POLICY)
    wanted = ["tests/test_core.py::test_from_list[1-2-3]",
              "tests/test_core.py::test_from_list[2-2-4]"]
    cases = [c for c in selection_cases(selection) if c.id in wanted]
    looping = CORE.replace("    return a + b\n", "    while a == 1:\n        pass\n    return a + b\n")
    policy = POLICY.model_copy(update={"per_test_timeout_s": 1.0})
    target = target.model_copy(update={"rootdir": selection.rootdir})
    report = await run_candidate(target, CORE, looping, cases, policy)
    stuck, other = report.outcomes
    assert stuck.status == "timeout" and "CPU seconds" in stuck.message, stuck
    assert other.status == "passed"


async def test_methods_and_nested_functions_are_selected_by_their_code(tmp_path):
    tmp_path.chmod(0o755)
    source = (
        "class Calc:\n"
        "    def add(self, a, b):\n"
        "        return a + b\n\n\n"
        "def outer(x):\n"
        "    def add(y):\n"
        "        return y + 1\n"
        "    return add(x)\n"
    )
    root = make_project(tmp_path / "proj", {
        "setup.cfg": "[metadata]\nname = calc\n",
        "calc.py": source,
        "test_calc.py": """\
            from calc import Calc, outer

            def test_method():
                assert Calc().add(1, 2) == 3

            def test_nested():
                assert outer(1) == 2
            """,
    })
    path = root / "calc.py"
    for qualname, expected in (("Calc.add", "test_calc.py::test_method"),
                               ("outer.add", "test_calc.py::test_nested")):
        info = locate(source, qualname)
        target = target_for(root, path, "calc", qualname, info.start_line, None)
        selection = await select_tests(target, source, POLICY)
        assert selection.selected == [expected], (qualname, selection)
        wrong = source.replace("return a + b", "return a - b").replace("return y + 1",
                                                                       "return y - 1")
        report = await run_candidate(target, source, wrong, selection_cases(selection), POLICY)
        assert [o.status for o in report.outcomes] == ["failed"]


@pytest.mark.parametrize("mode", ["bwrap", "none"])
async def test_a_dependency_only_in_the_projects_virtualenv(tmp_path, mode):
    """The project's .venv is the interpreter: its packages (here ``onlyhere``, and pytest
    through a .pth file) are there for pytest; the server's own environment lacks them.
    With ``sandbox = "none"`` the project is copied without its .venv: the interpreter runs
    from where it is, not from its place in the copy (which does not exist)."""
    policy = POLICY.model_copy(update={"mode": mode})
    import site

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from project_kit import make_venv

    tmp_path.chmod(0o755)
    root = make_project(tmp_path / "proj", {
        "pyproject.toml": "[project]\nname = 'calc'\n",
        "calc.py": "import onlyhere\n\n\ndef double(x):\n    return onlyhere.FACTOR * x\n",
        "tests/test_calc.py": "from calc import double\n\n\ndef test_double():\n"
                              "    assert double(2) == 4\n",
    })
    server_packages = "\n".join(site.getsitepackages()) + "\n"
    python = make_venv(root / ".venv", {"onlyhere.py": "FACTOR = 2\n",
                                        "server_packages.pth": server_packages})
    with pytest.raises(ImportError):
        __import__("onlyhere")
    path = root / "calc.py"
    task = await with_project_tests(task_for(path.read_text(), "double", path=path),
                                    path=path, root=None, policy=policy)
    assert task.pytest_target.python == str(python)
    assert [(t.id, t.skip_reason) for t in task.public_tests] == [
        ("tests/test_calc.py::test_double", None)]
    text = path.read_text()
    report = await run_candidate(task.pytest_target, text, text.replace("* x", "+ x"),
                                 task.public_tests, policy)
    assert [o.status for o in report.outcomes] == ["passed"]  # 2 + 2 == 4: still right
    report = await run_candidate(task.pytest_target, text, text.replace("* x", "- x"),
                                 task.public_tests, policy)
    assert [o.status for o in report.outcomes] == ["failed"]


@pytest.mark.parametrize(("ini", "text", "spread"), [
    ("pytest.ini", "[pytest]\naddopts = -n auto\n", True),
    ("setup.cfg", "[tool:pytest]\naddopts = --numprocesses=4 -q\n", True),
    ("pyproject.toml", '[tool.pytest.ini_options]\naddopts = ["-n", "4"]\n', True),
    ("pyproject.toml", '[tool.pytest.ini_options]\naddopts = "-q --strict-markers"\n', False),
    ("tox.ini", "[testenv]\ncommands = pytest -n 4\n", False),  # not pytest's addopts
])
def test_xdist_workers_in_addopts_are_turned_off(tmp_path, ini, text, spread):
    from codeteam.execution.pytest_run import distributes_tests

    (tmp_path / ini).write_text(text)
    assert distributes_tests(tmp_path) is spread


def test_the_server_does_not_import_pytest_to_start_a_judge():
    """The launcher's text lives apart from the plugin: importing the plugin (and pytest with
    it) cost the server's event loop 0.2-0.3 s at the first judged run."""
    done = subprocess.run([sys.executable, "-c", (
        "import sys, codeteam.execution.pytest_run, codeteam.execution.suite\n"
        "from codeteam.execution.pytest_launch import LAUNCHER\n"
        "assert '_codeteam_pytest_plugin' in LAUNCHER\n"
        "print(sorted(name for name in sys.modules if name.split('.')[0] in "
        "('pytest', '_pytest')))")], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", done.stdout


async def test_a_lone_module_leaves_the_projects_below_its_folder_to_themselves(tmp_path):
    """A lone module (no project around it: a scratch file in /tmp, in a home folder holding
    clones) is tested with the tests of its folder, not with those of a project below it (a
    folder with its own ``pyproject.toml`` or ``.git``): that project's tests are its own,
    and its suite could be large (a newcomer's scratch file beside codeteam's own clone ran
    codeteam's whole suite). Here the nested project's test even reaches the function, so
    it would be selected if it were collected."""
    root = (tmp_path / "scratch").resolve()
    files = {
        "calc.py": "def double(x):\n    return 2 * x\n",
        "test_calc.py": "from calc import double\n\n\ndef test_double():\n"
                        "    assert double(2) == 4\n",
        "clone/pyproject.toml": "[project]\nname = 'other'\n",
        "clone/tests/test_other.py": "import sys\nfrom pathlib import Path\n\n"
                                     "sys.path.insert(0, str(Path(__file__).parents[2]))\n"
                                     "from calc import double\n\n\n"
                                     "def test_other():\n    assert double(3) == 6\n",
        "notaproject/test_more.py": "import sys\nfrom pathlib import Path\n\n"
                                    "sys.path.insert(0, str(Path(__file__).parents[1]))\n"
                                    "from calc import double\n\n\n"
                                    "def test_more():\n    assert double(4) == 8\n",
    }
    for name, text in files.items():  # (no .git: make_project's root is a project)
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    path = root / "calc.py"
    task = task_for(path.read_text(), "double", path=path)
    assert task.project is None or task.project.lone
    task = await with_project_tests(task, path=path, root=None, policy=POLICY)
    assert sorted(t.id for t in task.public_tests if t.kind == "pytest") == [
        "notaproject/test_more.py::test_more", "test_calc.py::test_double"]
    assert task.pytest_target.ignore == ["clone"]
