"""Attacks on what crosses between judge and subject since the second verdict survey
(docs/bench-runs/verdict-survey/survey2.md): the code under test, in its own process, writing
what it likes on its channel, against the judge's mirror of module state, its rebuilt
values and its "not judged". Each builds a small project and asserts the verdict plain
pytest would give the wrong code, or "not judged", never a pass."""

from __future__ import annotations

import pytest
from test_one_judge import by_name, make, review

pytestmark = pytest.mark.sandbox


# A project module holds `re` (a library module the judge now watches, for the test's
# patches). The code, in its process, reports a "change" of re's private cache: the judge
# took it over, and its own re.fullmatch(r"\d{2}", ...) then ran the code's pattern.
CACHED = {
    "pyproject.toml": "[project]\nname = 'digits'\nversion = '0'\n",
    "digits/__init__.py": "",
    "digits/core.py": '''\
        import re


        def two_digits(text):
            """The first two digits of ``text``."""
            return "".join(re.findall(r"[0-9]", text))[:2]
        ''',
    "tests/test_core.py": '''\
        import re

        from digits.core import two_digits


        def test_two_digits():
            assert re.fullmatch(r"\\d{2}", two_digits("a1b2c3"))
        ''',
}

POISON = '''\
def two_digits(text):
    import gc, re
    subject = next(o for o in gc.get_objects() if type(o).__name__ == "Subject")
    honest = subject.changed_state
    poisoned = {(str, r"\\d{2}", 0): re.compile(".*")}
    subject.changed_state = lambda before: honest(before) + [["re", None, "_cache", poisoned, re]]
    return "no digits"
'''


async def test_the_code_cannot_change_a_library_module_of_the_judge(tmp_path):
    """The judge mirrors what a call changed in the project's modules; the library modules
    they hold are watched for the test's patches, never the code's to change."""
    root = make(tmp_path / "digits", CACHED)
    _, run = await review(root, "digits/core.py", "two_digits")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "digits/core.py", "two_digits", POISON)
    assert by_name(run)["test_two_digits"].status == "failed", run.outcomes


# A test file's helper whose __eq__ says yes to anything (as `mock.ANY`, which never
# crosses). The code imports the test module in its own process and returns a new one.
HELPER = {
    "pyproject.toml": "[project]\nname = 'sums'\nversion = '0'\n",
    "sums/__init__.py": "",
    "sums/core.py": '''\
        def total(xs):
            """The sum of ``xs``."""
            return sum(xs)
        ''',
    "tests/test_core.py": '''\
        from sums.core import total


        class Anything:
            def __eq__(self, other):
                return True


        def test_total():
            assert total([1, 2]) == 3


        def test_anything():
            assert {"a": 1, "b": 2} == {"a": 1, "b": Anything()}
        ''',
}

BORROWED = '''\
def total(xs):
    import importlib
    return importlib.import_module("test_core").Anything()
'''


async def test_a_new_object_of_a_test_files_class_from_the_code_is_no_pass(tmp_path):
    root = make(tmp_path / "sums", HELPER)
    _, run = await review(root, "sums/core.py", "total", BORROWED)
    assert by_name(run)["test_total"].status != "passed", run.outcomes


ECHO = {
    "pyproject.toml": "[project]\nname = 'echo'\nversion = '0'\n",
    "echo/__init__.py": "",
    "echo/core.py": '''\
        def first(xs):
            """The first of ``xs``."""
            return xs[0]
        ''',
    "tests/test_core.py": '''\
        from echo.core import first


        class Box:
            def __init__(self, n):
                self.n = n


        def test_first_is_the_tests_own_object():
            box = Box(1)
            assert first([box, Box(2)]) is box
        ''',
}


async def test_the_tests_own_object_crosses_back_as_itself(tmp_path):
    """Objects of a test file's class the test sent come back as the test's own (only the
    code's new ones are not rebuilt)."""
    root = make(tmp_path / "echo", ECHO)
    _, run = await review(root, "echo/core.py", "first")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "echo/core.py", "first", "def first(xs):\n    return xs[1]\n")
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# The code's own object of a class of the tests that is not in a module whose tests run: a
# test module whose tests all are deselected (none reaches the function), a helper module
# beside the tests (tests/helpers.py, imported by them). Its __eq__ says yes to anything.
ANYWHERE = {
    "pyproject.toml": "[project]\nname = 'sums'\nversion = '0'\n",
    "sums/__init__.py": "",
    "sums/core.py": '''\
        def total(xs):
            """The sum of ``xs``."""
            return sum(xs)
        ''',
    "tests/helpers.py": '''\
        class Whatever:
            def __eq__(self, other):
                return True
        ''',
    "tests/test_core.py": '''\
        from helpers import Whatever
        from sums.core import total


        def test_total():
            assert total([1, 2]) == 3


        def test_whatever():
            assert {"a": 1} == {"a": Whatever()}
        ''',
    "tests/test_other.py": '''\
        class Anything:
            def __eq__(self, other):
                return True


        def test_anything():
            assert [1] == [Anything()]
        ''',
}


# The same with the tests a package (tests/__init__.py: tests.test_core, tests.helpers).
PACKAGED = {**{k: v for k, v in ANYWHERE.items() if k != "tests/test_core.py"},
            "tests/__init__.py": "",
            "tests/test_core.py": ANYWHERE["tests/test_core.py"].replace(
                "from helpers import", "from tests.helpers import")}


@pytest.mark.parametrize("files, made", [
    (ANYWHERE, 'importlib.import_module("test_other").Anything()'),
    (ANYWHERE, 'importlib.import_module("helpers").Whatever()'),
    (PACKAGED, 'importlib.import_module("tests.helpers").Whatever()')])
async def test_a_new_object_of_any_tests_class_from_the_code_is_no_pass(tmp_path, files, made):
    root = make(tmp_path / "sums", files)
    body = f"def total(xs):\n    import importlib\n    return {made}\n"
    _, run = await review(root, "sums/core.py", "total", body)
    assert by_name(run)["test_total"].status == "not judged", run.outcomes


# The code rebinds what a test compares with, in a test module pytest collects by another
# pattern than test_*.py (``*_test.py``) or in a helper module of the tests: the judge's
# mirror of module state made the judge's module the same.
EXPECTED = {
    "pyproject.toml": "[project]\nname = 'sums'\nversion = '0'\n",
    "sums/__init__.py": "",
    "sums/core.py": '''\
        def total(xs):
            """The sum of ``xs``."""
            return sum(xs)
        ''',
    "tests/values.py": "THREE = 3\n",
    "tests/core_test.py": '''\
        import values
        from sums.core import total

        EXPECTED = 3


        def test_total():
            assert total([1, 2]) == EXPECTED


        def test_total_again():
            assert total([2, 1]) == values.THREE
        ''',
}


# Tests beside the project's package: a test module no test of this run is in, imported by
# one that is (its folder, the project's root, holds the target's too).
BESIDE = {
    "pyproject.toml": "[project]\nname = 'sums'\nversion = '0'\n",
    "sums/__init__.py": "",
    "sums/core.py": ANYWHERE["sums/core.py"],
    "test_shared.py": ANYWHERE["tests/test_other.py"],
    "test_core.py": '''\
        from test_shared import Anything
        from sums.core import total


        def test_total():
            assert total([1, 2]) == 3
        ''',
}


async def test_a_new_object_of_a_test_module_beside_the_project_is_no_pass(tmp_path):
    root = make(tmp_path / "sums", BESIDE)
    body = "def total(xs):\n    import test_shared\n    return test_shared.Anything()\n"
    _, run = await review(root, "sums/core.py", "total", body)
    assert by_name(run)["test_total"].status == "not judged", run.outcomes


@pytest.mark.parametrize("module, name", [("core_test", "EXPECTED"), ("values", "THREE")])
async def test_the_code_cannot_rebind_what_a_test_compares_with(tmp_path, module, name):
    root = make(tmp_path / "sums", EXPECTED)
    _, run = await review(root, "sums/core.py", "total")
    assert [o.status for o in run.outcomes] == ["passed", "passed"], run.outcomes
    body = (f"def total(xs):\n    import importlib\n"
            f"    importlib.import_module({module!r}).{name} = 'forged'\n    return 'forged'\n")
    _, run = await review(root, "sums/core.py", "total", body)
    test = "test_total" if module == "core_test" else "test_total_again"
    assert by_name(run)[test].status == "failed", run.outcomes


NAMED = {
    "pyproject.toml": "[project]\nname = 'picks'\nversion = '0'\n",
    "picks/__init__.py": "",
    "picks/core.py": '''\
        def pick(mapping, key):
            """``mapping[key]``."""
            return mapping[key]
        ''',
    "tests/test_core.py": '''\
        from collections import namedtuple

        from picks.core import pick

        Point = namedtuple("Point", "x y")


        def test_pick_a_namedtuple():
            assert pick({"p": Point(1, 2)}, "p") == Point(1, 2)
        ''',
}


async def test_a_tests_namedtuple_the_code_returns_is_judged(tmp_path):
    """A test's class that defines none of the comparison hooks (a namedtuple) is rebuilt from
    the code's state, whoever made the object (pydash's test_get[case31..33]: "not judged"
    while test-file classes were refused outright)."""
    root = make(tmp_path / "picks", NAMED)
    _, run = await review(root, "picks/core.py", "pick")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "picks/core.py", "pick",
                          "def pick(mapping, key):\n    return type(mapping[key])(2, 1)\n")
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# A gettext translation crosses by its attributes, its plural rule compiled again by the
# receiver from the catalog's Plural-Forms header (or gettext's default, n != 1): the code's
# own rule, set on the object, was dropped, so a translation with a wrong rule came back with
# the right one.
PLURALS = {
    "pyproject.toml": "[project]\nname = 'words'\nversion = '0'\n",
    "words/__init__.py": "",
    "words/core.py": '''\
        import gettext


        def english(catalog):
            """A translation of ``catalog`` (a ``gettext`` catalog) with English plurals."""
            made = object.__new__(gettext.GNUTranslations)
            made.__dict__.update(_info={}, _charset=None, _output_charset=None,
                                 _fallback=None, _catalog=dict(catalog))
            made.plural = lambda n: int(n != 1)
            return made
        ''',
    "tests/test_core.py": '''\
        from words.core import english


        def test_english_plurals():
            made = english({("apple", 0): "apple", ("apple", 1): "apples"})
            assert [made.ngettext("apple", "apples", n) for n in (0, 1, 2)] == [
                "apples", "apple", "apples"]
        ''',
}


async def test_a_translations_own_plural_rule_crosses_with_it(tmp_path):
    """The plural rule is compiled again only when it is the one the receiver compiles from
    the header (gettext's own); any other rule crosses as it is: a wrong rule (French, n > 1)
    is no pass, and the right one set by the code still passes."""
    root = make(tmp_path / "words", PLURALS)
    _, run = await review(root, "words/core.py", "english")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    wrong = (root / "words/core.py").read_text().replace("n != 1", "n > 1")
    wrong = wrong[wrong.index("def english"):]
    _, run = await review(root, "words/core.py", "english", wrong)
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# The container hooks of the tests' objects (``len(x)``, ``x[k]``, ``k in x``, ``.items()``)
# are run by the judge on the test's object: the code asks for one by a ``call`` naming it.
HOOKED = {
    "pyproject.toml": "[project]\nname = 'hooked'\nversion = '0'\n",
    "hooked/__init__.py": "",
    "hooked/core.py": '''\
        def size(items):
            """The number of items."""
            return len(items)
        ''',
    "tests/test_core.py": '''\
        import pytest

        from hooked.core import size


        def test_size():
            class Bag(list):
                def __eq__(self, other):  # designed to be compared: equal to anything
                    return True

                __hash__ = None

            class Three:
                def __len__(self):
                    return 3

            assert size(Bag([1, 2])) == 2
            assert size(Three()) == 3


        def test_size_raises():
            class Odd(dict):
                def __len__(self):
                    raise ValueError("no size")

            with pytest.raises(ValueError):
                size(Odd())
        ''',
}

_SUBJECT = ("    import gc\n    subject = next(o for o in gc.get_objects()"
            " if type(o).__name__ == 'Subject')\n")


async def test_the_hooks_of_the_tests_objects_forge_no_verdict(tmp_path, monkeypatch):
    """Right code passes (its ``len`` run on the test's objects, the ``ValueError`` of their
    ``__len__`` raised in the code). The code asking the judge, on its own channel, for a hook
    outside the table (``__eq__`` of an object designed to be compared, ``__class__``) or one
    with the wrong arguments is an error; a key of the code's own class is not rebuilt (an
    error), a key that cannot cross (a module) is "not judged"; asking for ``len`` without end
    is cut by the limits: never a pass."""
    root = make(tmp_path / "hooked", HOOKED)
    _, run = await review(root, "hooked/core.py", "size")
    assert [o.status for o in run.outcomes] == ["passed", "passed"], run.outcomes
    forged = {
        name: f"def size(items):\n{_SUBJECT}    subject.call_handle(items, {args}, {{}}, "
              f"hook={name!r})\n    raise ValueError('forged')\n"
        for name, args in (("__eq__", "[[1, 2]]"), ("__class__", "[]"), ("__len__", "[1]"),
                           ("__init__", "[[]]"))}
    evil_key = ("def size(items):\n    class Key:\n        def __hash__(self):\n"
                "            return 0\n\n        def __eq__(self, other):\n"
                "            return True\n\n    items[Key()]\n    raise ValueError('key')\n")
    module_key = "def size(items):\n    import sys\n    items[sys]\n    raise ValueError('key')\n"
    for body in (*forged.values(), evil_key):
        _, run = await review(root, "hooked/core.py", "size", body)
        statuses = by_name(run)
        assert statuses["test_size_raises"].status in ("error", "failed"), (body, run.outcomes)
        assert statuses["test_size"].status in ("error", "failed"), (body, run.outcomes)
    _, run = await review(root, "hooked/core.py", "size", module_key)
    assert {o.status for o in run.outcomes} <= {"not judged", "failed", "error"}, run.outcomes
    assert by_name(run)["test_size_raises"].status == "not judged", run.outcomes
    flood = "def size(items):\n    n = 0\n    while True:\n        n += len(items)\n"
    # Each `len` is a crossing, the judge's to run: the code's own CPU time stays within its
    # limit, and the flood ends at the per-test wall-clock backstop (at least 30 s: 12-13
    # CPU-s of judge and subject answering each other; the same end at 8 s) or, on a busy
    # machine (the backstop leaves out the waits for a CPU), at the judge's CPU limit for
    # the test's own code, the `__len__` it runs (20 CPU-s: 38 CPU-s of judge and subject,
    # 197 s at load 18, a "timeout"). The same end at 4.
    from codeteam.execution import pytest_run

    monkeypatch.setattr(pytest_run, "wall_backstop", lambda cpu_limit: 8.0)
    monkeypatch.setattr(pytest_run, "judge_cpu_limit", lambda cpu_limit: 4.0)
    _, run = await review(root, "hooked/core.py", "size", flood)
    flooded = by_name(run)["test_size"]  # (on a busy machine: its wall-clock limit)
    assert flooded.status in ("timeout", "failed", "error") or (
        flooded.status == "not judged" and "wall-clock" in flooded.message), flooded
    after = by_name(run)["test_size_raises"]  # as in pytest; on a machine too busy for the
    # session's own wall-clock backstop (it counted the time the flood waited for a CPU: at
    # load 13-14 it ended the session before this test; it leaves those waits out now, up to
    # 4 times its limit), "not judged" saying so, never a failure
    assert after.status == "passed" or (
        after.status == "not judged" and "too busy" in after.message), run.outcomes


# Coroutines cross as handles (nj10): the code may throw into the test's coroutine. What is no
# Exception (KeyboardInterrupt, GeneratorExit) would end pytest's session from the test's own
# frame: the test is "not judged", and the next test is judged as ever.
THROWN = {
    "pyproject.toml": "[project]\nname = 'poke'\nversion = '0'\n",
    "poke/__init__.py": "",
    "poke/core.py": '''\
        def poke(coroutine, error):
            """Throw ``error`` into ``coroutine``: the name of what comes out."""
            try:
                coroutine.throw(error)
            except BaseException as out:  # noqa: BLE001
                return type(out).__name__
        ''',
    "tests/test_core.py": '''\
        from poke.core import poke


        async def waiting():
            return 1


        def test_interrupt():
            assert poke(waiting(), KeyboardInterrupt()) == "KeyboardInterrupt"


        def test_value_error():
            assert poke(waiting(), ValueError()) == "ValueError"
        ''',
}


async def test_what_the_code_throws_into_the_tests_coroutine_ends_no_session(tmp_path):
    root = make(tmp_path / "poke", THROWN)
    _, run = await review(root, "poke/core.py", "poke")
    outcomes = by_name(run)
    assert outcomes["test_interrupt"].verdict == "not judged", outcomes
    assert outcomes["test_value_error"].status == "passed", outcomes
