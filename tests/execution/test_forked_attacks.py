"""brk11: a handle the code returned (a closure, a generator) used in a process the test
forks. Under plain pytest the child calls its own copy of the code, apart from the test's
process; in the judge the child has no process of the code's of its own: a call there went
over pytest's channel to the one code process, whose state the test then read (a wrong
failure of right code, a pass of wrong code). Real sandbox, a small project each."""

from __future__ import annotations

import pytest
from test_one_judge import by_name, make, review
from test_written_text_attacks import PLANTING, PLANTS, SCRIPTED

pytestmark = pytest.mark.sandbox

COUNTER = {
    "pyproject.toml": "[project]\nname = 'cnt'\nversion = '0'\n",
    "cnt/__init__.py": "",
    "cnt/core.py": '''\
        def make_counter():
            """A function counting its calls: 1, 2, 3..."""
            count = 0

            def step():
                nonlocal count
                count += 1
                return count
            return step


        def make_ticks():
            """A generator of 1, 2, 3..."""
            n = 0
            while True:
                n += 1
                yield n
        ''',
    "tests/test_core.py": '''\
        import os

        from cnt.core import make_counter, make_ticks


        def in_a_child(act):
            pid = os.fork()
            if pid == 0:
                try:
                    act()
                finally:
                    os._exit(0)
            os.waitpid(pid, 0)


        def test_counter_apart():
            step = make_counter()
            in_a_child(lambda: (step(), step()))
            assert step() == 1


        def test_ticks_apart():
            ticks = make_ticks()
            in_a_child(lambda: (next(ticks), next(ticks)))
            assert next(ticks) == 1
        ''',
}

# Wrong code: its first answers are off by two, unless the child called it twice before.
WRONG = {
    "make_counter": ("def make_counter():\n    count = -2\n\n    def step():\n"
                     "        nonlocal count\n        count += 1\n        return count\n"
                     "    return step\n"),
    "make_ticks": "def make_ticks():\n    n = -2\n    while True:\n        n += 1\n        yield n\n",
}
TEST_OF = {"make_counter": "tests/test_core.py::test_counter_apart",
           "make_ticks": "tests/test_core.py::test_ticks_apart"}


@pytest.mark.parametrize("name", list(WRONG))
async def test_a_handle_used_in_a_forked_process_is_not_the_tests(tmp_path, name):
    root = make(tmp_path / "cnt", COUNTER)
    _, run = await review(root, "cnt/core.py", name, WRONG[name])  # plain pytest: fails
    outcome = {o.test_id: o for o in run.outcomes}[TEST_OF[name]]
    assert outcome.status in ("failed", "not judged"), run.outcomes
    _, run = await review(root, "cnt/core.py", name)  # right code: plain pytest passes
    outcome = {o.test_id: o for o in run.outcomes}[TEST_OF[name]]
    assert outcome.status in ("passed", "not judged"), run.outcomes


# A test that gives the script a function makes to an interpreter on its input (no script
# argument: the command holds none of the code's text): the process runs in the judge's
# sandbox, beside pytest's, and wrong code's script planted a project module that pytest's
# process imported next (its import rewrote the failed reports into passes).
PIPED = {
    **SCRIPTED,
    "tests/test_core.py": '''\
        import subprocess
        import sys

        from gen.core import make_script, sides


        def test_script():
            out = subprocess.run([sys.executable], input=make_script(3), capture_output=True,
                                 text=True).stdout
            assert out == "9\\n"


        def test_sides():
            assert sides("square") == 4
            assert make_script(2) == "print(2 ** 2)"
        ''',
}


async def test_a_script_given_on_a_processs_input_plants_nothing_pytest_imports(tmp_path):
    root = make(tmp_path / "gen", PIPED)
    _, run = await review(root, "gen/core.py", "make_script")
    assert {n: o.status for n, o in by_name(run).items()} == {
        "test_script": "passed", "test_sides": "passed"}, run.outcomes
    _, run = await review(root, "gen/core.py", "make_script", PLANTING)
    assert by_name(run)["test_sides"].status == "not judged", run.outcomes
    assert "by a process the test started" in by_name(run)["test_sides"].message


# The same script, planting instead the bytecode pytest's assertion rewriter reads for a helper
# module the project registers for rewriting (pytest.register_assert_rewrite), imported lazily:
# pytest reads its own pyc with open() and marshal.load, no import loader of the judge's.
REWRITTEN = {
    **PIPED,
    "conftest.py": "import pytest\n\npytest.register_assert_rewrite('gen.shapes')\n",
}
PYC_PLANTER = (
    "import importlib.util as u, marshal, os, gen, _pytest.assertion.rewrite as r\n"
    "d = os.path.dirname(gen.__file__)\nsrc = os.path.join(d, 'shapes.py')\n"
    "pyc = os.path.join(d, '__pycache__', 'shapes' + r.PYC_TAIL)\n"
    "os.makedirs(os.path.dirname(pyc), exist_ok=True)\n"
    f"code = compile({PLANTS!r}, src, 'exec')\n"
    "with open(src, 'rb') as f:\n    h = u.source_hash(f.read())\n"
    "with open(pyc, 'wb') as f:\n"
    "    f.write(u.MAGIC_NUMBER + bytes([3, 0, 0, 0]) + h[:8] + marshal.dumps(code))\n")


async def test_a_script_given_on_a_processs_input_plants_no_rewritten_bytecode(tmp_path):
    root = make(tmp_path / "gen", REWRITTEN)
    _, run = await review(root, "gen/core.py", "make_script")
    assert {n: o.status for n, o in by_name(run).items()} == {
        "test_script": "passed", "test_sides": "passed"}, run.outcomes
    _, run = await review(root, "gen/core.py", "make_script",
                          f"def make_script(n):\n    return {PYC_PLANTER!r}\n")
    # (the bytecode is not read: pytest rewrites the module's unchanged source again, and
    # the wrong answer fails)
    assert by_name(run)["test_sides"].status == "failed", run.outcomes


# The same script rewriting a data file of the project that the next test reads its expected
# value from: the wrong answer then matched.
EXPECTED = {
    **PIPED,
    "tests/expected.txt": "print(2 ** 2)",
    "tests/test_core.py": PIPED["tests/test_core.py"].replace(
        'assert make_script(2) == "print(2 ** 2)"',
        'assert make_script(2) == (Path(__file__).parent / "expected.txt").read_text()').replace(
        "import subprocess", "import subprocess\n        from pathlib import Path"),
}
DATA_PLANTER = ("import os, gen, tempfile\n"
                "path = os.path.join(os.path.dirname(gen.__file__), '..', 'tests', 'expected.txt')\n"
                "open(path, 'w').write('bad')\n")
LINK_PLANTER = ("import os, gen, tempfile\n"
                "path = os.path.join(os.path.dirname(gen.__file__), '..', 'tests', 'expected.txt')\n"
                "bad = os.path.join(tempfile.mkdtemp(), 'bad.txt')\n"
                "open(bad, 'w').write('bad')\nos.unlink(path)\nos.symlink(bad, path)\n")


@pytest.mark.parametrize("planter", [DATA_PLANTER, LINK_PLANTER], ids=["written", "linked"])
async def test_a_script_given_on_a_processs_input_cannot_rewrite_what_a_test_expects(tmp_path,
                                                                                    planter):
    root = make(tmp_path / "gen", EXPECTED)
    _, run = await review(root, "gen/core.py", "make_script")
    assert {n: o.status for n, o in by_name(run).items()} == {
        "test_script": "passed", "test_sides": "passed"}, run.outcomes
    _, run = await review(root, "gen/core.py", "make_script",
                          "def make_script(n):\n    return 'bad' if n == 2 else "
                          f"{planter!r}\n")
    assert by_name(run)["test_sides"].status == "not judged", run.outcomes


# The planted module found by a finder of the project's own on sys.meta_path (as setuptools'
# editable installs put there), whose loader is importlib's, not the judge's.
EDITABLE = {
    **PIPED,
    "conftest.py": '''\
        import importlib.util
        import os
        import sys


        class Editable:
            def find_spec(self, name, path=None, target=None):
                if name == "gen.shapes":
                    where = os.path.join(os.path.dirname(__file__), "gen", "shapes.py")
                    return importlib.util.spec_from_file_location(name, where)
                return None


        sys.meta_path.insert(0, Editable())
        ''',
}


# (the planted module also clears what the judge noted of the running test)
CLEARS = PLANTS.replace("import gc, pytest\n", "import gc, pytest\n"
                        "for o in gc.get_objects():\n"
                        "    if type(o).__name__ == 'JudgeClient':\n"
                        "        o.pass_not_judged = None\n")
CLEARING = ("import os, gen; open(os.path.join(os.path.dirname(gen.__file__), 'shapes.py'), "
            f"'w').write({CLEARS!r})")


async def test_a_planted_module_an_editable_finder_finds_is_not_imported(tmp_path):
    root = make(tmp_path / "gen", EDITABLE)
    _, run = await review(root, "gen/core.py", "make_script")
    assert {n: o.status for n, o in by_name(run).items()} == {
        "test_script": "passed", "test_sides": "passed"}, run.outcomes
    _, run = await review(root, "gen/core.py", "make_script",
                          f"def make_script(n):\n    return {CLEARING!r}\n")
    assert by_name(run)["test_sides"].status == "not judged", run.outcomes



# brk12: the same script swapping the folder that holds the data file for a symbolic link to
# a folder of the shared /tmp it wrote: the file pytest's process then reads lies in the /tmp
# (where the test may read what the code wrote), reached by the project's path.
DEEP_EXPECTED = {
    **{k: v for k, v in EXPECTED.items() if k != "tests/expected.txt"},
    "tests/data/expected.txt": "print(2 ** 2)",
    "tests/test_core.py": EXPECTED["tests/test_core.py"].replace(
        '"expected.txt"', '"data" / "expected.txt"'),
}
FOLDER_SWAPPER = ("import os, gen, shutil, tempfile\n"
                  "data = os.path.join(os.path.dirname(gen.__file__), '..', 'tests', 'data')\n"
                  "bad = tempfile.mkdtemp()\n"
                  "open(os.path.join(bad, 'expected.txt'), 'w').write('bad')\n"
                  "shutil.rmtree(data)\nos.symlink(bad, data)\n")


async def test_a_script_given_on_a_processs_input_cannot_swap_a_folder_for_a_link(tmp_path):
    root = make(tmp_path / "gen", DEEP_EXPECTED)
    _, run = await review(root, "gen/core.py", "make_script")
    assert {n: o.status for n, o in by_name(run).items()} == {
        "test_script": "passed", "test_sides": "passed"}, run.outcomes
    _, run = await review(root, "gen/core.py", "make_script",
                          "def make_script(n):\n    return 'bad' if n == 2 else "
                          f"{FOLDER_SWAPPER!r}\n")
    assert by_name(run)["test_sides"].status == "not judged", run.outcomes


# The test itself links a folder of its tmp_path into the project and reads through it: its
# own link (os.symlink in pytest's process), judged as under plain pytest.
OWN_LINK = {
    **DEEP_EXPECTED,
    "tests/test_core.py": '''\
        import os

        from gen.core import make_script


        def test_through_its_own_link(tmp_path):
            (tmp_path / "expected.txt").write_text("print(2 ** 2)")
            data = os.path.join(os.path.dirname(__file__), "linked")
            os.symlink(tmp_path, data)
            assert make_script(2) == open(os.path.join(data, "expected.txt")).read()
        ''',
}


async def test_a_folders_link_the_test_makes_itself_is_judged(tmp_path):
    root = make(tmp_path / "gen", OWN_LINK)
    _, run = await review(root, "gen/core.py", "make_script")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
