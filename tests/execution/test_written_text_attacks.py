"""brk10: attacks by text the code returns that a test writes into a file before running it
(runpy.run_path, compile under the file's name, an import from a folder of the project), and
by a test that runs the module under test in a process of its own (``python -m``). Each
builds a small project, judges it in the real sandbox and asserts the verdict plain pytest
would give, or "not judged", never a forged pass or a wrong failure."""

from __future__ import annotations

import pytest
from test_one_judge import by_name, make, review
from test_pytest_judge_attacks import FORGE_IN_TEXT

pytestmark = pytest.mark.sandbox

# The source a function makes, written into a file by the test and run from there: the
# compile audit hook looked only at names that are no file ("<string>"), so a file the test
# had just written passed as a module of the project's own.
WRITTEN = {
    "pyproject.toml": "[project]\nname = 'gen'\nversion = '0'\n",
    "gen/__init__.py": "",
    "gen/core.py": '''\
        def make_power(name, n):
            """Python source of ``def name(x): return x ** n``."""
            return f"def {name}(x):\\n    return x ** {n}\\n"
        ''',
    "tests/test_core.py": '''\
        import importlib
        import runpy
        import sys
        from pathlib import Path

        from gen.core import make_power


        def test_run_path(tmp_path):
            path = tmp_path / "square.py"
            path.write_text(make_power("square", 2))
            assert runpy.run_path(str(path))["square"](3) == 9


        def test_compiled_under_its_file(tmp_path):
            path = tmp_path / "cube.py"
            path.write_text(make_power("cube", 3))
            ns = {}
            exec(compile(path.read_text(), str(path), "exec"), ns)
            assert ns["cube"](2) == 8


        def test_compiled_under_the_tests_name():
            ns = {}
            exec(compile(make_power("square", 2), __file__, "exec"), ns)
            assert ns["square"](3) == 9


        def test_imported_from_the_project():
            folder = Path(__file__).parent / "made"
            folder.mkdir(exist_ok=True)
            (folder / "made_square.py").write_text(make_power("square", 2))
            sys.path.insert(0, str(folder))
            importlib.invalidate_caches()
            assert importlib.import_module("made_square").square(3) == 9
        ''',
}


@pytest.mark.parametrize("test, why", [
    ("test_run_path", "a file of the /tmp it shares with the code under test"),
    ("test_compiled_under_its_file", "a file of the /tmp it shares with the code under test"),
    ("test_compiled_under_the_tests_name", "runs text the code under test returned"),
    ("test_imported_from_the_project", "runs text the code under test returned")])
async def test_text_the_code_returns_written_to_a_file_is_not_run(tmp_path, test, why):
    root = make(tmp_path / "gen", WRITTEN)
    _, run = await review(root, "gen/core.py", "make_power",
                          f"def make_power(name, n):\n    return {FORGE_IN_TEXT!r}\n")
    assert by_name(run)[test].status == "not judged", run.outcomes
    assert why in by_name(run)[test].message


async def test_text_the_right_code_returns_written_to_a_file_and_run_is_not_judged(tmp_path):
    """As text run by exec: plain pytest runs it in the test's process."""
    root = make(tmp_path / "gen", WRITTEN)
    _, run = await review(root, "gen/core.py", "make_power")
    assert [o.status for o in run.outcomes] == ["not judged"] * 4, run.outcomes


# The code writes the module itself, into the folder the test gives it (tmp_path, in the /tmp
# it shares with the judge), and the test runs that file by its path: SharedImports looks at
# imports only ("a file a test executes by its path is not looked at"), and the compile hook
# at returned text only: the code's file ran in pytest's process.
WRITER = {
    "pyproject.toml": "[project]\nname = 'gen'\nversion = '0'\n",
    "gen/__init__.py": "",
    "gen/core.py": '''\
        def write_power(folder, name, n):
            """Write ``name.py`` holding ``def name(x): return x ** n`` into ``folder``;
            its path."""
            path = folder / f"{name}.py"
            path.write_text(f"def {name}(x):\\n    return x ** {n}\\n")
            return path
        ''',
    "tests/test_core.py": '''\
        import runpy

        from gen.core import write_power


        def test_run_path(tmp_path):
            path = write_power(tmp_path, "square", 2)
            assert runpy.run_path(str(path))["square"](3) == 9


        def test_exec_of_its_text(tmp_path):
            path = write_power(tmp_path, "cube", 3)
            ns = {}
            exec(path.read_text(), ns)
            assert ns["cube"](2) == 8


        def test_compiled_under_its_name(tmp_path):
            path = write_power(tmp_path, "cube", 3)
            ns = {}
            exec(compile(path.read_bytes(), str(path), "exec"), ns)
            assert ns["cube"](2) == 8


        def test_read_only(tmp_path):
            path = write_power(tmp_path, "cube", 3)
            assert path.read_text().startswith("def cube(x):")
        ''',
}

WRITES_FORGE = (
    "def write_power(folder, name, n):\n"
    f"    path = folder / (name + '.py')\n    path.write_text({FORGE_IN_TEXT!r})\n"
    "    return path\n")


@pytest.mark.parametrize("test", ["test_run_path", "test_exec_of_its_text",
                                  "test_compiled_under_its_name"])
async def test_a_file_the_code_writes_is_not_run_by_the_test(tmp_path, test):
    root = make(tmp_path / "gen", WRITER)
    _, run = await review(root, "gen/core.py", "write_power", WRITES_FORGE)
    assert by_name(run)[test].status == "not judged", run.outcomes
    assert by_name(run)["test_read_only"].status == "failed", run.outcomes


async def test_a_file_the_code_writes_and_the_test_only_reads_is_judged(tmp_path):
    root = make(tmp_path / "gen", WRITER)
    _, run = await review(root, "gen/core.py", "write_power")
    assert {n: o.status for n, o in by_name(run).items()} == {
        "test_run_path": "not judged", "test_exec_of_its_text": "not judged",
        "test_compiled_under_its_name": "not judged", "test_read_only": "passed"}, run.outcomes

