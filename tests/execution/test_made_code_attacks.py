"""brk11: attacks by text or bytes the code returns that a test runs, where the judge's look
at the code's answers did not reach: text nested deeper than it looked or past its count, in a
value whose items are no list, tuple, set, dict or ``__dict__`` (a deque, an exception's
args), or bytes that are a code object (``marshal.loads``). Each judges a small project in the
real sandbox: wrong code's text must not forge a pass ("not judged", as right code's)."""

from __future__ import annotations

import pytest
from test_one_judge import make, review
from test_pytest_judge_attacks import FORGE_IN_TEXT

pytestmark = pytest.mark.sandbox

SHAPES = {
    "pyproject.toml": "[project]\nname = 'gen'\nversion = '0'\n",
    "gen/__init__.py": "",
    "gen/core.py": '''\
        import collections
        import marshal


        def power_source(name, n, shape):
            """``def name(x): return x ** n`` as source, in the ``shape`` a test takes it."""
            text = f"def {name}(x):\\n    return x ** {n}\\n"
            return shaped(text)[shape]


        def shaped(text):
            return {"deep": [[[[[text]]]]], "many": [""] * 10000 + [text],
                    "lines": collections.deque(text.splitlines()),
                    "code": marshal.dumps(compile(text, "<power>", "exec")),
                    "raised": ValueError(text), "fenced": f"```python\\n{text}```",
                    "pyc": bytes(16) + marshal.dumps(compile(text, "<power>", "exec"))}
        ''',
}

# How each test takes the source out of the answer (one test per project: a forge that ran
# rewrites every later failure of its session).
TAKEN = {"deep": 'power_source("square", 2, "deep")[0][0][0][0][0]',
         "many": 'power_source("square", 2, "many")[-1]',
         "lines": '"\\n".join(power_source("square", 2, "lines"))',
         "marshal": 'marshal.loads(power_source("square", 2, "code"))',
         "raised": 'power_source("square", 2, "raised").args[0]',
         "fenced": 'power_source("square", 2, "fenced")[10:-3]',
         "pyc": 'marshal.loads(power_source("square", 2, "pyc")[16:])'}


def project(tmp_path, shape):
    test = ("import marshal\n\nfrom gen.core import power_source\n\n\n"
            f"def test_{shape}():\n    ns = {{}}\n    exec({TAKEN[shape]}, ns)\n"
            "    assert ns['square'](3) == 9\n")
    return make(tmp_path / "gen", {**SHAPES, "tests/test_core.py": test})


@pytest.mark.parametrize("shape", list(TAKEN))
async def test_the_codes_text_in_any_shape_is_not_run_by_the_test(tmp_path, shape):
    body = f"def power_source(name, n, shape):\n    return shaped({FORGE_IN_TEXT!r})[shape]\n"
    _, run = await review(project(tmp_path, shape), "gen/core.py", "power_source", body)
    assert [o.status for o in run.outcomes] == ["not judged"], run.outcomes
    assert "text the code under test returned" in run.outcomes[0].message


@pytest.mark.parametrize("shape", list(TAKEN))
async def test_the_right_codes_text_in_any_shape_is_not_judged(tmp_path, shape):
    """Plain pytest runs it in the test's process: the judge cannot."""
    _, run = await review(project(tmp_path, shape), "gen/core.py", "power_source")
    assert [o.status for o in run.outcomes] == ["not judged"], run.outcomes


# A test that reads a file of the shared /tmp the code writes, then has the code write it
# again: any source made from then on was refused, the namedtuple's and the dataclass's the
# standard library compiles from names too (plain pytest passes).
LOGGER = {
    "pyproject.toml": "[project]\nname = 'logs'\nversion = '0'\n",
    "logs/__init__.py": "",
    "logs/core.py": '''\
        def log(folder, line):
            """Append ``line`` to ``folder / "log.txt"``; that path."""
            path = folder / "log.txt"
            with open(path, "a") as file:
                file.write(line + "\\n")
            return path
        ''',
    "tests/test_core.py": '''\
        import collections
        import dataclasses

        from logs.core import log


        def test_then_a_namedtuple(tmp_path):
            assert log(tmp_path, "one").read_text() == "one\\n"
            log(tmp_path, "two")
            Point = collections.namedtuple("Point", "x y")
            assert Point(1, 2).y == 2


        def test_then_a_dataclass(tmp_path):
            assert log(tmp_path, "one").read_text() == "one\\n"
            log(tmp_path, "two")
            Point = dataclasses.make_dataclass("Point", ["x", "y"])
            assert Point(1, 2).y == 2
        ''',
}


async def test_a_class_the_standard_library_compiles_after_a_read_file_changed_is_judged(
        tmp_path):
    root = make(tmp_path / "logs", LOGGER)
    _, run = await review(root, "logs/core.py", "log")
    assert [o.status for o in run.outcomes] == ["passed", "passed"], run.outcomes


# The options a function builds, given to a program the test starts: words no program runs as
# code ("--verbose", "--width=80"), which made the test "not judged" as if they were a script.
OPTIONS = {
    "pyproject.toml": "[project]\nname = 'cli'\nversion = '0'\n",
    "cli/__init__.py": "",
    "cli/core.py": '''\
        def options(verbose, width):
            """The command-line options for ``verbose`` and ``width``."""
            return (["--verbose"] if verbose else []) + [f"--width={width}"]
        ''',
    "tests/test_core.py": '''\
        import subprocess
        import sys

        from cli.core import options


        def test_given_to_a_program():
            out = subprocess.run([sys.executable, "-c", "import sys; print(sys.argv[1:])",
                                  *options(True, 80)], capture_output=True, text=True).stdout
            assert out == "['--verbose', '--width=80']\\n"
        ''',
}


async def test_options_the_code_builds_given_to_a_program_are_judged(tmp_path):
    root = make(tmp_path / "cli", OPTIONS)
    _, run = await review(root, "cli/core.py", "options")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes


# The code writes a zip archive (deflated: its text is not in the file's bytes) that the test
# imports from by zipimport directly, not through sys.path: its module compiled under the
# archive's name and a name inside it (no file on disk), or its bytecode loaded, ran in
# pytest's process.
ZIPPED = {
    "pyproject.toml": "[project]\nname = 'zips'\nversion = '0'\n",
    "zips/__init__.py": "",
    "zips/core.py": '''\
        import marshal
        import zipfile


        def pack(folder, name, source, compiled=False):
            """A zip archive in ``folder`` holding the module ``name`` of ``source`` (or its
            bytecode); its path."""
            return _pack(folder, name, source, compiled)


        def _pack(folder, name, source, compiled):
            path = folder / f"{name}.zip"
            with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
                if compiled:
                    code = marshal.dumps(compile(source, name + ".py", "exec"))
                    archive.writestr(name + ".pyc", pyc_header() + code)
                else:
                    archive.writestr(name + ".py", source)
            return path


        def pyc_header():
            import importlib.util

            return importlib.util.MAGIC_NUMBER + b"\\0" * 12
        ''',
}
ZIP_TEST = '''\
import importlib.util
import zipimport

from zips.core import pack


def test_{kind}(tmp_path):
    path = pack(tmp_path, "power", "def square(x):\\n    return x ** 2\\n", {compiled})
    spec = zipimport.zipimporter(str(path)).find_spec("power")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.square(3) == 9
'''
PACKS_FORGE = ("def pack(folder, name, source, compiled=False):\n"
               f"    return _pack(folder, name, {FORGE_IN_TEXT!r}, compiled)\n")


@pytest.mark.parametrize("compiled", [False, True])
async def test_a_zip_archive_the_code_writes_is_not_imported_from(tmp_path, compiled):
    kind = "compiled" if compiled else "source"
    files = {**ZIPPED, "tests/test_core.py": ZIP_TEST.format(kind=kind, compiled=compiled)}
    root = make(tmp_path / "zips", files)
    _, run = await review(root, "zips/core.py", "pack")  # (as plain pytest, it runs there)
    assert [o.status for o in run.outcomes] == ["not judged"], run.outcomes
    _, run = await review(root, "zips/core.py", "pack", PACKS_FORGE)
    assert [o.status for o in run.outcomes] == ["not judged"], run.outcomes


ZIP_ON_PATH_TEST = '''\
import sys

from zips.core import pack


def test_on_path(tmp_path):
    path = str(pack(tmp_path, "power", "def square(x):\\n    return x ** 2\\n"))
    sys.path.insert(0, path)
    try:
        import power
    finally:
        sys.path.remove(path)
    assert power.square(3) == 9
'''


async def test_a_zip_archive_the_code_writes_put_on_sys_path_is_not_imported_from(tmp_path):
    """The same archive the test puts on ``sys.path`` and imports from: zipimport's importer
    through the judge's path hook (its ``Archive``), not the test's own zipimporter."""
    root = make(tmp_path / "zips", {**ZIPPED, "tests/test_core.py": ZIP_ON_PATH_TEST})
    _, run = await review(root, "zips/core.py", "pack")  # (as plain pytest, it runs there)
    assert [o.status for o in run.outcomes] == ["not judged"], run.outcomes
    _, run = await review(root, "zips/core.py", "pack", PACKS_FORGE)
    assert [o.status for o in run.outcomes] == ["not judged"], run.outcomes


# A namespace the code returns, in which the test runs a line of its own that runs the code's
# text: the inner compile's caller is that line, whose module name is the namespace's
# __name__, which the code chose (pytest's or collections': a compile the judge trusts).
NAMESPACE = {
    "pyproject.toml": "[project]\nname = 'env'\nversion = '0'\n",
    "env/__init__.py": "",
    "env/core.py": '''\
        def environment(name, n):
            """A namespace holding the source of ``def name(x): return x ** n``."""
            return {"__name__": "env", "source": f"def {name}(x):\\n    return x ** {n}\\n"}
        ''',
    "tests/test_core.py": '''\
        from env.core import environment


        def test_run_inside():
            ns = environment("square", 2)
            exec("exec(source)", ns)
            assert ns["square"](3) == 9
        ''',
}


@pytest.mark.parametrize("module", ["_pytest.forge", "collections"])
async def test_a_namespace_the_code_names_like_a_trusted_module_is_not_trusted(tmp_path,
                                                                              module):
    root = make(tmp_path / "env", NAMESPACE)
    _, run = await review(root, "env/core.py", "environment")
    assert [o.status for o in run.outcomes] == ["not judged"], run.outcomes
    body = (f"def environment(name, n):\n    return {{'__name__': {module!r}, "
            f"'source': {FORGE_IN_TEXT!r}}}\n")
    _, run = await review(root, "env/core.py", "environment", body)
    assert [o.status for o in run.outcomes] == ["not judged"], run.outcomes


# The code writes a code object's bytes (marshal.dump) into a file the test loads it from:
# marshal.load's audit event carries no bytes to look at.
DUMPER = {
    "pyproject.toml": "[project]\nname = 'dump'\nversion = '0'\n",
    "dump/__init__.py": "",
    "dump/core.py": '''\
        import marshal


        def dump_power(path, name, n):
            """Write the code of ``def name(x): return x ** n`` into ``path``."""
            _dump(path, f"def {name}(x):\\n    return x ** {n}\\n")


        def _dump(path, source):
            with open(path, "wb") as file:
                marshal.dump(compile(source, "<power>", "exec"), file)
        ''',
    "tests/test_core.py": '''\
        import marshal

        from dump.core import dump_power


        def test_loaded(tmp_path):
            dump_power(tmp_path / "power.bin", "square", 2)
            ns = {}
            with open(tmp_path / "power.bin", "rb") as file:
                exec(marshal.load(file), ns)
            assert ns["square"](3) == 9
        ''',
}


async def test_code_the_code_dumps_into_a_file_is_not_loaded(tmp_path):
    root = make(tmp_path / "dump", DUMPER)
    _, run = await review(root, "dump/core.py", "dump_power")
    assert [o.status for o in run.outcomes] == ["not judged"], run.outcomes
    body = f"def dump_power(path, name, n):\n    _dump(path, {FORGE_IN_TEXT!r})\n"
    _, run = await review(root, "dump/core.py", "dump_power", body)
    assert [o.status for o in run.outcomes] == ["not judged"], run.outcomes


# The code writes a pickle into a file the test loads: the pickle's look (what it names) was
# made only once the code returned bytes, not once the test read a file the code wrote.
PICKLER = {
    "pyproject.toml": "[project]\nname = 'pick'\nversion = '0'\n",
    "pick/__init__.py": "",
    "pick/core.py": '''\
        import pickle


        def save(path, value):
            """Pickle ``value`` into ``path``."""
            with open(path, "wb") as file:
                pickle.dump(value, file)
        ''',
    "tests/test_core.py": '''\
        import pickle

        from pick.core import save


        def test_saved(tmp_path):
            save(tmp_path / "v.pickle", {"a": [1, 2]})
            with open(tmp_path / "v.pickle", "rb") as file:
                assert pickle.load(file) == {"a": [1, 2]}
        ''',
}
EXEC_PICKLE = ("import pickle\n\n\nclass _Run:\n    def __reduce__(self):\n"
               f"        return exec, ({FORGE_IN_TEXT!r}, {{}})\n\n\n"
               "def save(path, value):\n    with open(path, 'wb') as file:\n"
               "        pickle.dump([_Run(), value], file)\n")


async def test_a_pickle_the_code_writes_into_a_file_runs_nothing_it_names(tmp_path):
    root = make(tmp_path / "pick", PICKLER)
    _, run = await review(root, "pick/core.py", "save")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "pick/core.py", "save", EXEC_PICKLE)
    assert [o.status for o in run.outcomes] == ["not judged"], run.outcomes
