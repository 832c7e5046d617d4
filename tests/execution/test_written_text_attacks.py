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


async def test_a_file_the_code_writes_too_large_to_look_at_is_not_run_as_text(tmp_path):
    """Past the bytes the judge reads of a file (1 MiB: a forge padded with a comment), any
    source the test makes from then on is refused."""
    root = make(tmp_path / "gen", WRITER)
    padded = FORGE_IN_TEXT + "#" * (1 << 20) + "\n"
    _, run = await review(root, "gen/core.py", "write_power", (
        "def write_power(folder, name, n):\n"
        f"    path = folder / (name + '.py')\n    path.write_text({FORGE_IN_TEXT!r} + '#' * "
        f"{1 << 20} + '\\n')\n    return path\n"))
    assert len(padded) > 1 << 20
    assert by_name(run)["test_exec_of_its_text"].status == "not judged", run.outcomes
    assert by_name(run)["test_read_only"].status == "failed", run.outcomes


async def test_a_file_the_code_writes_and_the_test_only_reads_is_judged(tmp_path):
    root = make(tmp_path / "gen", WRITER)
    _, run = await review(root, "gen/core.py", "write_power")
    assert {n: o.status for n, o in by_name(run).items()} == {
        "test_run_path": "not judged", "test_exec_of_its_text": "not judged",
        "test_compiled_under_its_name": "not judged", "test_read_only": "passed"}, run.outcomes


# A test that runs the module under test in a process of its own (python -m, python -c
# "import ..."): that process imports the judge's view, where the function's body forwards
# to the judge's client, which it does not have (NameError: __codeteam_forward__, or
# __codeteam_imported__ at the end of its import): right code was "failed". It cannot call
# the code there: such a test is "not judged" once its process called the function, and
# judged as plain pytest when it only imported the module; a test that reaches the function
# only through such a process is selected (it was left out).
SCRIPT = {
    "pyproject.toml": "[project]\nname = 'cli'\nversion = '0'\n",
    "cli/__init__.py": "",
    "cli/core.py": '''\
        import sys

        id = "cli"  # names of the module's own that the judge view must not use


        def getattr(obj, name, default=None):
            return default


        def shout(text):
            """``text`` in capitals, with an exclamation mark."""
            return text.upper() + "!"


        if __name__ == "__main__":
            print(shout(sys.argv[1]))
        ''',
    "tests/test_core.py": '''\
        import subprocess
        import sys

        from cli.core import shout


        def run(*args):
            return subprocess.run([sys.executable, *args], capture_output=True, text=True,
                                  check=True).stdout


        def test_shout():
            assert shout("hi") == "HI!"


        def test_module_run():
            assert shout("a") == "A!"
            assert run("-m", "cli.core", "hi") == "HI!\\n"


        def test_imported_in_a_process():
            assert shout("a") == "A!"
            assert run("-c", "import cli.core; print(cli.core.__name__)") == "cli.core\\n"


        def test_only_the_module_run():
            assert run("-m", "cli.core", "ho") == "HO!\\n"
        ''',
}


async def test_the_module_run_in_a_process_of_the_test_is_not_judged(tmp_path):
    root = make(tmp_path / "cli", SCRIPT)
    _, run = await review(root, "cli/core.py", "shout",
                          'def shout(text):\n    return text.upper() + "!"\n')
    assert {n: o.status for n, o in by_name(run).items()} == {
        "test_shout": "passed", "test_module_run": "not judged",
        "test_imported_in_a_process": "passed", "test_only_the_module_run": "not judged",
    }, run.outcomes
    assert "in a process of its own" in by_name(run)["test_module_run"].message
    _, run = await review(root, "cli/core.py", "shout",
                          'def shout(text):\n    return text.upper() + "?"\n')
    assert {n: o.status for n, o in by_name(run).items()} == {
        "test_shout": "failed", "test_module_run": "failed",
        "test_imported_in_a_process": "failed", "test_only_the_module_run": "not judged",
    }, run.outcomes


# The code writes a module and its bytecode beside it (__pycache__, with the module's own
# size and time in its header): a loader the test makes by the file's path
# (spec_from_file_location) reads the bytecode and compiles nothing, so the compile hook
# never saw it: the code's bytecode ran in pytest's process.
LOADED = {**WRITER, "tests/test_core.py": '''\
    import importlib.util

    from gen.core import write_power


    def test_loaded_by_its_path(tmp_path):
        path = write_power(tmp_path, "square", 2)
        spec = importlib.util.spec_from_file_location("square", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        assert module.square(3) == 9


    def test_read_only(tmp_path):
        path = write_power(tmp_path, "cube", 3)
        assert path.read_text() == "def cube(x):\\n    return x ** 3\\n"
    '''}

WRITES_BYTECODE = (
    "def write_power(folder, name, n):\n"
    "    import importlib.util, marshal, os\n"
    "    path = folder / (name + '.py')\n"
    "    path.write_text(f'def {name}(x):\\n    return x ** {n + 1}\\n')\n"
    "    stat = os.stat(path)\n"
    f"    code = compile({FORGE_IN_TEXT!r}, str(path), 'exec')\n"
    "    cached = importlib.util.cache_from_source(str(path))\n"
    "    os.makedirs(os.path.dirname(cached), exist_ok=True)\n"
    "    with open(cached, 'wb') as file:\n"
    "        file.write(importlib.util.MAGIC_NUMBER + b'\\0\\0\\0\\0'\n"
    "                   + int(stat.st_mtime).to_bytes(4, 'little')\n"
    "                   + (stat.st_size & 0xFFFFFFFF).to_bytes(4, 'little')\n"
    "                   + marshal.dumps(code))\n"
    "    return path\n")


async def test_bytecode_the_code_writes_beside_a_file_is_not_loaded(tmp_path):
    root = make(tmp_path / "gen", LOADED)
    _, run = await review(root, "gen/core.py", "write_power")
    assert {n: o.status for n, o in by_name(run).items()} == {
        "test_loaded_by_its_path": "not judged", "test_read_only": "passed"}, run.outcomes
    _, run = await review(root, "gen/core.py", "write_power", WRITES_BYTECODE)
    assert {n: o.status for n, o in by_name(run).items()} == {
        "test_loaded_by_its_path": "not judged", "test_read_only": "failed"}, run.outcomes


# Text that reaches the test otherwise than in the function's answer: written into an
# argument in place, bound to a module global, printed. Only answers were looked for: the
# code's text in any of these, run by the test, rewrote the failed report into a pass.
ROUTES = {
    "pyproject.toml": "[project]\nname = 'gen'\nversion = '0'\n",
    "gen/__init__.py": "",
    "gen/core.py": '''\
        SOURCE = ""


        def make_power(name, n, into=None):
            """``def name(x): return x ** n``: put into ``into["source"]``, bound to
            ``SOURCE`` and printed."""
            global SOURCE
            SOURCE = f"def {name}(x):\\n    return x ** {n}\\n"
            if into is not None:
                into["source"] = SOURCE
            print(SOURCE, end="")
        ''',
    "tests/test_core.py": '''\
        from gen import core


        def test_into_an_argument():
            made, ns = {}, {}
            core.make_power("square", 2, made)
            exec(made["source"], ns)
            assert ns["square"](3) == 9


        def test_in_a_global():
            ns = {}
            core.make_power("square", 2)
            exec(core.SOURCE, ns)
            assert ns["square"](3) == 9


        def test_printed(capsys):
            ns = {}
            core.make_power("square", 2)
            exec(capsys.readouterr().out, ns)
            assert ns["square"](3) == 9
        ''',
}

ROUTED_FORGE = (
    "def make_power(name, n, into=None):\n    global SOURCE\n"
    f"    SOURCE = {FORGE_IN_TEXT!r}\n"
    "    if into is not None:\n        into['source'] = SOURCE\n"
    "    print(SOURCE, end='')\n")


@pytest.mark.parametrize("test", ["test_into_an_argument", "test_in_a_global",
                                  "test_printed"])
async def test_text_the_code_gives_otherwise_than_returning_it_is_not_run(tmp_path, test):
    root = make(tmp_path / "gen", ROUTES)
    _, run = await review(root, "gen/core.py", "make_power", ROUTED_FORGE)
    assert by_name(run)[test].status == "not judged", run.outcomes
    assert "runs text the code under test returned" in by_name(run)[test].message


# A test that runs the script a function makes in a process of its own (python -c): that
# process runs in the judge's sandbox, beside pytest's process, and can write what pytest's
# process imports later (here a module of the project imported lazily by another function):
# wrong code's script planted a module whose import rewrote the failed reports into passes.
SCRIPTED = {
    "pyproject.toml": "[project]\nname = 'gen'\nversion = '0'\n",
    "gen/__init__.py": "",
    "gen/shapes.py": "SIDES = {'square': 4}\n",
    "gen/core.py": '''\
        def make_script(n):
            """A Python script that prints ``n`` squared."""
            return f"print({n} ** 2)"


        def sides(name):
            from gen import shapes  # (imported when first needed)

            return shapes.SIDES[name]
        ''',
    "tests/test_core.py": '''\
        import subprocess
        import sys

        from gen.core import make_script, sides


        def test_script():
            out = subprocess.run([sys.executable, "-c", make_script(3)], capture_output=True,
                                 text=True).stdout
            assert out == "9\\n"


        def test_sides():
            assert sides("square") == 4
            assert make_script(2) == "print(2 ** 2)"
        ''',
}

PLANTS = FORGE_IN_TEXT.split("def square")[0] + "SIDES = {'square': 4}\n"
PLANTER = ("import os, gen; open(os.path.join(os.path.dirname(gen.__file__), 'shapes.py'), "
           f"'w').write({PLANTS!r})")
PLANTING = f"def make_script(n):\n    return {PLANTER!r}\n"


async def test_the_codes_script_run_in_a_process_of_the_test_is_not_judged(tmp_path):
    root = make(tmp_path / "gen", SCRIPTED)
    _, run = await review(root, "gen/core.py", "make_script")
    assert {n: o.status for n, o in by_name(run).items()} == {
        "test_script": "not judged", "test_sides": "passed"}, run.outcomes
    _, run = await review(root, "gen/core.py", "make_script", PLANTING)
    assert {n: o.status for n, o in by_name(run).items()} == {
        "test_script": "not judged", "test_sides": "failed"}, run.outcomes
    assert "in a process of its own" in by_name(run)["test_script"].message


FILE_WRITER = {
    "pyproject.toml": "[project]\nname = 'out'\nversion = '0'\n",
    "out/__init__.py": "",
    "out/core.py": '''\
        def write(folder, name, text):
            """Write ``text`` into ``folder / name``; its path (a str)."""
            path = folder / name
            path.write_text(text)
            return str(path)
        ''',
    "tests/test_core.py": '''\
        import subprocess
        import sys

        from out.core import write


        def test_read_by_a_program(tmp_path):
            path = write(tmp_path, "data.txt", "hello there\\n")
            assert subprocess.run(["cat", path], capture_output=True,
                                  text=True).stdout == "hello there\\n"


        def test_run_as_a_script(tmp_path):
            path = write(tmp_path, "nine.py", "print(3 ** 2)\\n")
            assert subprocess.run([sys.executable, path], capture_output=True,
                                  text=True).stdout == "9\\n"


        def test_run_by_a_shell(tmp_path):
            path = write(tmp_path, "four.py", "print(2 ** 2)\\n")
            assert subprocess.run(f"{sys.executable} {path}", shell=True, capture_output=True,
                                  text=True).stdout == "4\\n"
        ''',
}


async def test_a_script_the_code_writes_is_not_run_but_its_data_is_read(tmp_path):
    """A file the code wrote that a program reads is judged (``cat``); one a program runs
    (``python path``) is not."""
    root = make(tmp_path / "out", FILE_WRITER)
    _, run = await review(root, "out/core.py", "write")
    assert {n: o.status for n, o in by_name(run).items()} == {
        "test_read_by_a_program": "passed", "test_run_as_a_script": "not judged",
        "test_run_by_a_shell": "not judged"}, run.outcomes


# A test that calls the function in processes it forks (a multiprocessing pool): the forked
# process held pytest's judge client and its channel to the code's process, shared with
# pytest's own process.
FORKED = {
    "pyproject.toml": "[project]\nname = 'mp'\nversion = '0'\n",
    "mp/__init__.py": "",
    "mp/core.py": '''\
        def square(x):
            """``x`` squared."""
            return x * x
        ''',
    "tests/test_core.py": '''\
        import multiprocessing

        from mp.core import square


        def test_in_a_pool():
            with multiprocessing.get_context("fork").Pool(2) as pool:
                assert pool.map(square, [1, 2, 3]) == [1, 4, 9]


        def test_here():
            assert square(2) == 4
        ''',
}


async def test_a_call_in_a_process_the_test_forks_is_not_judged(tmp_path):
    root = make(tmp_path / "mp", FORKED)
    _, run = await review(root, "mp/core.py", "square")
    assert {n: o.status for n, o in by_name(run).items()} == {
        "test_in_a_pool": "not judged", "test_here": "passed"}, run.outcomes
    assert "in a process of its own" in by_name(run)["test_in_a_pool"].message
