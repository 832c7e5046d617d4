"""Shapes of real projects that the second verdict survey (docs/bench-runs/verdict-survey/
survey2.md: voluptuous, pathspec, pydash) found judged wrongly, each as a small project: the
verdict must be plain pytest's, or "not judged" with a reason, never a failure of right code."""

from __future__ import annotations

import pytest
from test_one_judge import SPIN_POLICY, by_name, make, review

pytestmark = pytest.mark.sandbox


# voluptuous: Schema.__call__ runs the compiled closure the test's Schema holds, which calls
# the inner Schema: the judged function is called again from inside a callback of its own call.
REENTRY = {
    "pyproject.toml": "[project]\nname = 'valid'\nversion = '0'\n",
    "valid/__init__.py": "",
    "valid/core.py": '''\
        def apply(check, value):
            """``check(value)``."""
            return check(value)


        class Schema:
            def __init__(self, inner=None):
                self.check = self.compile(inner)

            def compile(self, inner):
                def check(value):
                    return value if inner is None else inner(value) * 2
                return check

            def __call__(self, value):
                return self.check(value)
        ''',
    "tests/test_core.py": '''\
        from valid.core import Schema, apply


        def test_a_callback_that_calls_the_function_again():
            assert apply(lambda v: apply(abs, v), -3) == 3


        def test_nested_schemas():
            assert Schema(Schema(Schema()))(5) == 20
        ''',
}


async def test_the_function_called_again_from_a_callback_of_its_call(tmp_path):
    """The subject answered the nested call as a call of one of its handles: "the code under
    test raised builtins.LookupError: an unknown handle" for right code (voluptuous: 21
    tests of ``Schema.__call__``)."""
    root = make(tmp_path / "valid", REENTRY)
    _, run = await review(root, "valid/core.py", "apply")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "valid/core.py", "Schema.__call__")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    wrong = "def __call__(self, value):\n    return self.check(value) + 1\n"
    _, run = await review(root, "valid/core.py", "Schema.__call__", wrong)
    (outcome,) = run.outcomes
    assert outcome.status == "failed" and outcome.actual == "27", outcome  # each level +1


# voluptuous: a path component is a str subclass whose __str__ (and so __repr__) wraps it.
SUBCLASS = {
    "pyproject.toml": "[project]\nname = 'paths'\nversion = '0'\n",
    "paths/__init__.py": "",
    "paths/core.py": '''\
        class Component(str):
            def __str__(self):
                return "<" + self + ">"

            def __repr__(self):
                return self.__str__()


        class Count(int):
            def __index__(self):
                return 0


        def component(name):
            return Component(name)


        def show(part):
            return repr([part])
        ''',
    "tests/test_core.py": '''\
        from paths.core import Component, Count, component, show


        def test_returned():
            assert repr(component("a")) == "<a>"


        def test_an_argument():
            assert show(Component("b")) == "[<b>]"
            assert show(Count(7)) == "[7]"
        ''',
}


async def test_a_str_subclass_crosses_with_its_own_value_not_its_str(tmp_path):
    """The value crossed as ``str(value)``: the class's ``__str__`` ran, "<<a>>" came back
    (voluptuous: "data[<<<<stuff>>>>]" != "data[<stuff>]" in 3 tests of ``Invalid.__str__``)."""
    root = make(tmp_path / "paths", SUBCLASS)
    for name in ("component", "show"):
        _, run = await review(root, "paths/core.py", name)
        assert [o.status for o in run.outcomes] == ["passed"], run.outcomes


# voluptuous: Schema.extend makes ``type(self)(...)``; the test's self is of a subclass it made.
CALLABLE = {
    "pyproject.toml": "[project]\nname = 'checks'\nversion = '0'\n",
    "checks/__init__.py": "",
    "checks/core.py": '''\
        class AtMost:
            def __init__(self, limit):
                self.limit = limit

            def __call__(self, value):
                return value <= self.limit

            def extend(self, more):
                return type(self)(self.limit + more)


        def check_all(check, values):
            return all(check(value) for value in values)
        ''',
    "tests/test_core.py": '''\
        from checks.core import AtMost, check_all


        def test_a_subclass_of_the_tests():
            class Strict(AtMost):
                pass

            assert isinstance(Strict(1).extend(2), Strict)


        def test_a_callable_of_the_tests():
            class Small:
                def __call__(self, value):
                    return value < 3

            assert check_all(Small(), [1, 2])
            assert not check_all(Small(), [1, 5])
        ''',
}


async def test_a_callable_object_of_the_tests_class_is_its_object_not_a_function(tmp_path):
    """A callable object of a class the test made crossed as a function: ``type(self)(...)``
    called the proxy's class ("RemoteCallable.__init__() got an unexpected keyword argument
    'required'", voluptuous' Schema.extend on a test's subclass): a failure of right code.
    Now it is the test's object: calling it is a call into the judge, anything else of it
    makes the test "not judged"."""
    root = make(tmp_path / "checks", CALLABLE)
    _, run = await review(root, "checks/core.py", "AtMost.extend")
    (outcome,) = run.outcomes
    assert outcome.status == "not judged" and "Strict" in outcome.message, outcome
    _, run = await review(root, "checks/core.py", "check_all")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    wrong = "def check_all(check, values):\n    return any(check(value) for value in values)\n"
    _, run = await review(root, "checks/core.py", "check_all", wrong)
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# pathspec: a pattern object keeps its compiled regular expression; a tree entry its os.stat.
PATTERNS = {
    "pyproject.toml": "[project]\nname = 'rules'\nversion = '0'\n",
    "rules/__init__.py": "",
    "rules/core.py": '''\
        import os
        import re


        class Rule:
            def __init__(self, text):
                self.regex = re.compile(text, re.IGNORECASE)

            def matches(self, path):
                return self.regex.match(path) is not None


        def rule(text):
            return Rule(text)


        def size(path):
            return os.stat(path)


        class Result:
            def __init__(self, match):
                self.match = match


        def match_file(rule, path):
            found = rule.regex.match(path)
            return Result(found) if found is not None else None


        def year(match):
            return int(match.group(1))
        ''',
    "tests/test_core.py": '''\
        import re

        from rules.core import Rule, match_file, rule, size, year


        def test_an_argument():
            assert Rule("a.*").matches("ABC")


        def test_returned():
            assert rule("x+").regex == re.compile("x+", re.I)


        def test_a_match_returned():
            assert match_file(Rule("(a)b"), "ABc").match.span() == (0, 2)


        def test_a_match_given():
            assert year(re.search(r"(\\d+)-", "on 2024-01")) == 2024


        def test_a_stat(tmp_path):
            (tmp_path / "f").write_text("abc")
            assert size(str(tmp_path / "f")).st_size == 3
        ''',
}


async def test_compiled_patterns_and_stat_results_cross_as_values(tmp_path):
    """A compiled pattern was an object of the test's to the code (172 pathspec tests "not
    judged": "the code used an object of the test's that cannot cross (re.Pattern: .match)")
    and refused from the code (67: "an object of re.Pattern: only the project's own classes
    cross"), and so was an ``os.stat_result`` (3); a match too (64 "not judged": "an object of
    re.Match"; tomli's ``match_to_datetime`` takes one)."""
    root = make(tmp_path / "rules", PATTERNS)
    for name in ("Rule.matches", "rule", "size", "match_file", "year"):
        _, run = await review(root, "rules/core.py", name)
        assert [o.status for o in run.outcomes] == ["passed"], run.outcomes


# pathspec: a unittest class whose first test finds out whether symlinks work and keeps it on
# the class (``self.__class__.no_symlink = ...``); its later tests read it.
CLASS_STATE = {
    "pyproject.toml": "[project]\nname = 'tree'\nversion = '0'\n",
    "tree/__init__.py": "",
    "tree/core.py": '''\
        def entries(names):
            return sorted(names)
        ''',
    "tests/test_core.py": '''\
        import unittest

        from tree.core import entries


        class TreeTest(unittest.TestCase):
            def test_1_probe(self):
                self.__class__.links = True

            def test_2_entries(self):
                if self.links:
                    self.assertEqual(entries(["b", "a"]), ["a", "b"])
        ''',
}


async def test_the_earlier_tests_of_a_class_run_before_a_kept_one(tmp_path):
    """Only the tests that call the function ran: the test that sets the class's state was
    left out, "'IterTreeTest' object has no attribute 'no_symlink'" for right code (pathspec:
    3 tests of ``iter_tree_entries``)."""
    root = make(tmp_path / "tree", CLASS_STATE)
    task, run = await review(root, "tree/core.py", "entries")
    assert [t.id for t in task.public_tests] == ["tests/test_core.py::TreeTest::test_2_entries"]
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "tree/core.py", "entries", "def entries(names):\n    return names\n")
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# pathspec: iter_tree_entries (a generator) hands an OSError to the test's on_error, which
# raises it again; the test looks at its errno.
ERRORS = {
    "pyproject.toml": "[project]\nname = 'walk'\nversion = '0'\n",
    "walk/__init__.py": "",
    "walk/core.py": '''\
        import os


        def walk(paths, on_error=None):
            for path in paths:
                try:
                    os.stat(path)
                except OSError as error:
                    if on_error is not None:
                        on_error(error)
                    continue
                yield path
        ''',
    "tests/test_core.py": '''\
        import errno

        import pytest

        from walk.core import walk


        def test_broken():
            def reraise(error):
                raise error

            with pytest.raises(OSError) as info:
                list(walk(["/does-not-exist"], on_error=reraise))
            assert info.value.errno == errno.ENOENT
            assert info.value.filename == "/does-not-exist"
        ''',
}


async def test_an_oserror_crosses_with_its_errno_and_filename(tmp_path):
    """``OSError(2, 'No such file', path)`` crossed as its ``args`` ``(2, 'No such file')``
    set on an empty exception: ``errno`` None ("None != 2", pathspec: 1 test of
    ``iter_tree_entries``)."""
    root = make(tmp_path / "walk", ERRORS)
    _, run = await review(root, "walk/core.py", "walk")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes


# pathspec: RegexPattern.match_file returns a result holding an re.Match, which the judge does
# not rebuild; 132 tests call it, more than the subjects one run may start (64; 4 here).
UNSENT = {
    "pyproject.toml": "[project]\nname = 'unsent'\nversion = '0'\n",
    "unsent/__init__.py": "",
    "unsent/core.py": '''\
        import optparse


        def value(x):
            return optparse.Values({"v": x})
        ''',
    "tests/test_core.py": '''\
        import pytest

        from unsent.core import value


        @pytest.mark.parametrize("x", range(8))
        def test_value(x):
            assert value(x).v == x
        ''',
}


async def test_a_value_the_judge_does_not_rebuild_leaves_the_subject_running(
        tmp_path, monkeypatch):
    """The judge ended the code's process whenever it sent a value the judge does not rebuild;
    the 65th test found no process left to start ("no more subjects: this run started 64"),
    an error for right code (pathspec: 62 tests of ``RegexPattern.match_file``). Here a run
    may start 4 subjects, and 8 tests send such a value (70 tests for 64 before: 11 s)."""
    from codeteam.execution import pytest_run

    launch = pytest_run.subject_launch
    monkeypatch.setattr(pytest_run, "subject_launch", lambda *args: launch(*args).model_copy(
        update={"max_starts": 4}))
    root = make(tmp_path / "unsent", UNSENT)
    _, run = await review(root, "unsent/core.py", "value")
    assert {o.status for o in run.outcomes} == {"not judged"}, [
        (o.status, o.message) for o in run.outcomes if o.status != "not judged"][:3]


# pydash: retry(...) is a decorator factory; the decorator wraps the test's function with
# functools.wraps, which copies the function's __dict__ into its wrapper.
WRAPS = {
    "pyproject.toml": "[project]\nname = 'deco'\nversion = '0'\n",
    "deco/__init__.py": "",
    "deco/core.py": '''\
        import functools


        def retry(attempts=3):
            def decorator(func):
                @functools.wraps(func)
                def decorated(*args, **kwargs):
                    for attempt in range(attempts):
                        try:
                            return func(*args, **kwargs)
                        except Exception:
                            if attempt + 1 == attempts:
                                raise
                return decorated
            return decorator
        ''',
    "tests/test_core.py": '''\
        import pytest

        from deco.core import retry


        def test_retry():
            calls = []

            @retry(attempts=2)
            def func():
                """Fails."""
                calls.append(1)
                raise KeyError()

            with pytest.raises(KeyError):
                func()
            assert calls == [1, 1] and func.__doc__ == "Fails." and func.__name__ == "func"
        ''',
}


async def test_a_wrapper_of_the_tests_function_is_called_through_its_own_handle(tmp_path):
    """The proxy of the test's function kept its handle in its ``__dict__``: ``functools.wraps``
    copied it into the wrapper, whose copy overwrote the handle of the judge's proxy of the
    wrapper ("the object came from a process of the code under test that has ended", pydash:
    17 tests of ``retry``)."""
    root = make(tmp_path / "deco", WRAPS)
    _, run = await review(root, "deco/core.py", "retry")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes


# pydash: the retry tests patch time.sleep (unittest.mock, through a conftest fixture) and
# count the code's sleeps; monkeypatch does the same.
PATCHED = {
    "pyproject.toml": "[project]\nname = 'waits'\nversion = '0'\n",
    "waits/__init__.py": "",
    "waits/core.py": '''\
        import time


        def wait_twice(delay):
            time.sleep(delay)
            end = time.perf_counter() + 0.3  # (the code's process goes on meanwhile)
            while time.perf_counter() < end:
                pass
            time.sleep(delay * 2)
            return "done"
        ''',
    "tests/conftest.py": '''\
        from unittest import mock

        import pytest


        @pytest.fixture
        def mock_sleep():
            with mock.patch("time.sleep") as mocked:
                yield mocked
        ''',
    "tests/test_core.py": '''\
        import time
        from unittest import mock

        from waits.core import wait_twice


        def test_mocked(mock_sleep):
            assert wait_twice(0.01) == "done"
            assert mock_sleep.call_args_list == [mock.call(0.01), mock.call(0.02)]


        def test_monkeypatched(monkeypatch):
            slept = []
            monkeypatch.setattr(time, "sleep", slept.append)
            wait_twice(0.01)
            assert slept == [0.01, 0.02]
        ''',
}


async def test_a_library_function_the_test_patches_is_patched_for_the_code(tmp_path):
    """The test's ``mock.patch("time.sleep")`` (or ``monkeypatch.setattr(time, ...)``) was the
    judge's alone: the code slept for real and the mock counted nothing ("assert 2 == 0", pydash:
    17 tests of ``retry``, 6 of them cut by the time limit). A library module the project's
    modules hold (``import time``) is watched as they are, and a mock crosses to the code as
    the test's object: its calls are the judge's. The code's process's own watchdog and
    channel keep the functions they took at import (they called the patch too: a second
    writer on the channel, frames cut into each other, "DID NOT RAISE", "trailing data")."""
    root = make(tmp_path / "waits", PATCHED)
    _, run = await review(root, "waits/core.py", "wait_twice")
    assert [o.status for o in run.outcomes] == ["passed", "passed"], run.outcomes
    wrong = "def wait_twice(delay):\n    time.sleep(delay)\n    return 'done'\n"
    _, run = await review(root, "waits/core.py", "wait_twice", wrong)
    assert [o.status for o in run.outcomes] == ["failed", "failed"], run.outcomes


# pydash: the selection runs all 2,274 tests; on a machine at load 20 it ran out of its wall
# clock and 76 tests of base_get were "not looked at" (plain pytest ran them).
SLOW_SUITE = {
    "pyproject.toml": "[project]\nname = 'slow'\nversion = '0'\n",
    "slow/__init__.py": "",
    "slow/core.py": "def value():\n    return 1\n",
    "tests/test_core.py": '''\
        import time

        import pytest

        from slow.core import value


        @pytest.mark.parametrize("n", range(2))
        def test_waits(n):
            time.sleep(3)  # off the CPU, as a test does on a machine busy with other work


        def test_value():
            assert value() == 1
        ''',
}


async def test_a_selection_the_wall_clock_cuts_on_a_busy_machine_goes_on(tmp_path):
    """A selection session cut by its wall clock while it used little CPU is started again for
    the tests not looked at yet (as one that crashed is), as long as each session gets
    further."""
    from codeteam.execution.pytest_run import select_tests, target_for
    from codeteam.execution.sandbox import SandboxPolicy

    root = make(tmp_path / "slow", SLOW_SUITE)
    target = target_for(root, root / "slow/core.py", "slow.core", "value", 0, None)
    policy = SandboxPolicy(mode="bwrap", timeout_s=8, per_test_timeout_s=1.0)
    selection = await select_tests(target, (root / "slow/core.py").read_text(), policy)
    assert selection.selected == ["tests/test_core.py::test_value"], selection
    assert selection.not_run == [], selection.not_run


# humanize: ``i18n.activate("fr_FR")`` (run by the test, in the judge) sets ``_CURRENT.locale``
# on a ``threading.local`` and adds the translation to the module's ``_TRANSLATIONS`` dict in
# place; the code under test (``intcomma``, ``naturalsize``...) reads both from its own process.
LOCALE = {
    "pyproject.toml": "[project]\nname = 'loc'\nversion = '0'\n",
    "loc/__init__.py": "",
    "loc/i18n.py": '''\
        from threading import local

        _TRANSLATIONS = {None: {}}
        _CURRENT = local()


        def activate(locale, words=None):
            if locale not in _TRANSLATIONS:
                _TRANSLATIONS[locale] = dict(words or {})
            _CURRENT.locale = locale


        def translate(word):
            table = _TRANSLATIONS.get(getattr(_CURRENT, "locale", None), _TRANSLATIONS[None])
            return table.get(word, word)
        ''',
    "loc/words.py": '''\
        from loc import i18n


        def hello():
            return i18n.translate("hello")


        def known():
            return sorted(str(k) for k in i18n._TRANSLATIONS)
        ''',
    "tests/test_words.py": '''\
        from loc import i18n
        from loc.words import hello, known


        def test_hello():
            assert hello() == "hello"


        def test_bonjour():
            i18n.activate("fr", {"hello": "bonjour"})
            try:
                assert hello() == "bonjour"
            finally:
                i18n.activate(None)


        def test_known():
            i18n.activate("de")
            assert "de" in known()
            i18n.activate(None)
        ''',
}


async def test_data_the_test_changes_in_place_in_another_module_reaches_the_code(tmp_path):
    """What the test changed in place in a project module's data (an item of its dict, an
    attribute of its ``threading.local``) stayed the judge's: the code read its own, and right
    code failed ("assert 'hello' == 'bonjour'"; humanize: 176 tests of intcomma, ordinal,
    naturaldelta, precisedelta and naturalsize in tests/test_i18n.py)."""
    root = make(tmp_path / "loc", LOCALE)
    _, run = await review(root, "loc/words.py", "hello")
    assert [o.status for o in run.outcomes] == ["passed", "passed"], run.outcomes
    _, run = await review(root, "loc/words.py", "known")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    wrong = "def hello():\n    return 'hello'\n"
    _, run = await review(root, "loc/words.py", "hello", wrong)
    assert [o.status for o in run.outcomes] == ["passed", "failed"], run.outcomes


# humanize: ``@freeze_time("2020-02-02")`` puts freezegun's ``FakeDatetime`` into ``datetime``;
# its ``now()`` reads freezegun's own module state (``freeze_factories``), which the test's
# process set up and the code's process did not: the code's ``dt.datetime.now()`` gave the real
# time ("assert '17 years ago' == 'now'": 130 tests of humanize's ``_now``).
FROZEN = {
    "pyproject.toml": "[project]\nname = 'ages'\nversion = '0'\n",
    "src/ages/__init__.py": "",
    "src/ages/core.py": '''\
        def now():
            import datetime as dt  # (humanize's _now: the module holds no datetime)

            return dt.datetime.now()


        def days_since(when):
            return (now() - when).days
        ''',
    "tests/__init__.py": "",
    "tests/test_core.py": '''\
        import datetime

        from freezegun import freeze_time

        from ages.core import days_since, now


        @freeze_time("2020-02-02")
        def test_decorated():
            assert days_since(datetime.datetime(2020, 1, 1)) == 32


        def test_within():
            with freeze_time("2020-02-02"):
                assert days_since(datetime.datetime(2020, 1, 1)) == 32


        @freeze_time("2020-02-02")
        def test_now():
            assert now() == datetime.datetime(2020, 2, 2)
        ''',
}


async def test_the_state_of_a_library_the_tests_use_reaches_the_code(tmp_path):
    """The tests' library (freezegun) keeps what its patches consult in its own module; that
    state is sent with each call, changes in place included, so the code's process sees the
    frozen time the test's does (tests/ beside src/: test modules that are not the package's
    count too), and the ``FakeDatetime`` the code returns crosses back. A standard module the
    tests hold (``datetime``) is watched for their patches even when no module of the project
    holds it (humanize's ``_now`` imports it inside the function: 130 tests failed)."""
    pytest.importorskip("freezegun")
    root = make(tmp_path / "ages", FROZEN)
    _, run = await review(root, "src/ages/core.py", "days_since")
    assert [o.status for o in run.outcomes] == ["passed"] * 2, run.outcomes
    wrong = "def days_since(when):\n    return (now() - when).days + 1\n"
    _, run = await review(root, "src/ages/core.py", "days_since", wrong)
    assert [o.status for o in run.outcomes] == ["failed"] * 2, run.outcomes
    _, run = await review(root, "src/ages/core.py", "now")  # (a FakeDatetime crosses back)
    assert [o.status for o in run.outcomes] == ["passed"] * 3, run.outcomes


# more-itertools: ``peekable`` and ``seekable`` are the project's classes and iterators
# (``__iter__`` returns self); ``self`` crossed as a remote iterator, not as the project's
# object: "'RemoteIterator' object has no attribute '_cache'" for right code (14 tests).
PEEKABLE = {
    "pyproject.toml": "[project]\nname = 'peeks'\nversion = '0'\n",
    "peeks/__init__.py": "",
    "peeks/core.py": '''\
        class peekable:
            def __init__(self, iterable):
                self._it = iter(iterable)
                self._cache = []

            def __iter__(self):
                return self

            def __next__(self):
                if self._cache:
                    return self._cache.pop(0)
                return next(self._it)

            def peek(self, default=None):
                if not self._cache:
                    try:
                        self._cache.append(next(self._it))
                    except StopIteration:
                        return default
                return self._cache[0]
        ''',
    "tests/test_core.py": '''\
        from peeks.core import peekable


        def test_peek():
            p = peekable([1, 2])
            assert p.peek() == 1
            assert next(p) == 1
            assert p.peek() == 2
            assert list(p) == [2]
            assert p.peek("end") == "end"
        ''',
}


async def test_an_iterator_of_the_projects_class_crosses_as_its_object(tmp_path):
    """``self`` of a method of the project's iterator class crosses by its state (its source
    iterator as a handle), and what the method changed comes back."""
    root = make(tmp_path / "peeks", PEEKABLE)
    _, run = await review(root, "peeks/core.py", "peekable.peek")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    wrong = "def peek(self, default=None):\n    return next(self._it, default)\n"
    _, run = await review(root, "peeks/core.py", "peekable.peek", wrong)
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# sortedcontainers: SortedDict keeps bound methods of its SortedList (``self._list_pop =
# _list.pop``); they crossed as handles calling the judge's list while the code changed its own
# copy, which then overwrote the judge's: popitem's doctest and introduction.rst failed on
# right code ("KeyError: 'e'").
BOUND = {
    "pyproject.toml": "[project]\nname = 'sorts'\nversion = '0'\n",
    "sorts/__init__.py": "",
    "sorts/core.py": '''\
        class Keys:
            def __init__(self):
                self.items = []

            def add(self, key):
                self.items.append(key)
                self.items.sort()

            def pop(self, index=-1):
                return self.items.pop(index)


        class SortedDict(dict):
            def __init__(self, pairs=()):
                self._keys = Keys()
                self._keys_add = self._keys.add
                self._keys_pop = self._keys.pop
                for key, value in pairs:
                    self[key] = value

            def __setitem__(self, key, value):
                if key not in self:
                    self._keys_add(key)
                dict.__setitem__(self, key, value)

            def popitem(self, index=-1):
                key = self._keys_pop(index)
                return key, dict.pop(self, key)
        ''',
    "tests/test_core.py": '''\
        from sorts.core import SortedDict


        def test_popitem():
            sd = SortedDict([("b", 2), ("a", 1), ("c", 3)])
            assert sd.popitem() == ("c", 3)
            assert sd.popitem(0) == ("a", 1)
            assert sd.popitem() == ("b", 2)
            assert sd == {} and sd._keys.items == []
        ''',
}


async def test_a_bound_method_of_a_project_object_crosses_bound_to_its_copy(tmp_path):
    """A project object's attribute that is a method of another project object crossing by
    state is that object's method on the other side, so both see one list."""
    root = make(tmp_path / "sorts", BOUND)
    _, run = await review(root, "sorts/core.py", "SortedDict.popitem")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    wrong = ("def popitem(self, index=-1):\n    key = self._keys_pop(index)\n"
             "    return key, dict.get(self, key)\n")
    _, run = await review(root, "sorts/core.py", "SortedDict.popitem", wrong)
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# sortedcontainers (survey 3): test_irange calls a method thousands of times and iterates over
# what each call returns; the code's process spent more on the crossing than the code did.
LARGE = {
    "pyproject.toml": "[project]\nname = 'bag'\nversion = '0'\n",
    "bag/__init__.py": "",
    "bag/core.py": '''\
        class Bag:
            def __init__(self, items):
                self.items = list(items)

            def irange(self, start, end):
                """The items from ``start`` to ``end`` (included), lazily."""
                return (item for item in self.items if start <= item <= end)
        ''',
    "tests/test_core.py": '''\
        from bag.core import Bag


        def test_many_calls():
            bag = Bag(range(20))
            for start in range(20):
                for end in range(start, 20):
                    assert list(bag.irange(start, end)) == list(range(start, end + 1))
        ''',
}


async def test_the_crossings_allowance_lets_no_spinning_code_escape(tmp_path):
    """The judge allows the code's process CROSSING_SHARE times the CPU the judge spent on a
    test's crossing beyond its CPU limit (sortedcontainers' test_irange was "timeout" at 8.6
    CPU seconds for right code: docs/bench-runs/verdict-survey/survey3.md). Right code called
    210 times passes; a body that spins is still cut as a timeout, not let run to the
    wall-clock backstop."""
    root = make(tmp_path / "bag", LARGE)
    _, run = await review(root, "bag/core.py", "Bag.irange")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    spin = "def irange(self, start, end):\n    while True:\n        pass\n"
    _, run = await review(root, "bag/core.py", "Bag.irange", spin, policy=SPIN_POLICY)
    assert [o.status for o in run.outcomes] == ["timeout"], run.outcomes
    assert "CPU seconds" in run.outcomes[0].message, run.outcomes[0].message


# more-itertools: TestSynchronized and TestConcurrentTee start 50 and 100 threads. glibc
# reserves 64 MiB of address space per malloc arena (up to 8 per core) and the sandbox's
# RLIMIT_AS counts what is reserved: the judge could not start its threads ("can't start new
# thread", MemoryError), and pytest's report of that failure raised MemoryError itself.
THREADS = {
    "pyproject.toml": "[project]\nname = 'pool'\nversion = '0'\n",
    "pool/__init__.py": "",
    "pool/core.py": "def total(values):\n    return sum(values)\n",
    "tests/test_core.py": '''\
        import threading

        from pool.core import total


        def test_threads():
            results = []
            together = threading.Barrier(41)

            def work(n):
                numbers = list(range(1000))  # malloc in this thread: an arena of its own
                together.wait()  # all alive at once
                results.append(sum(numbers) + n)

            workers = [threading.Thread(target=work, args=[n]) for n in range(40)]
            try:
                for worker in workers:
                    worker.start()
            except BaseException:
                together.abort()  # (the started ones end: BrokenBarrierError)
                raise
            together.wait()
            for worker in workers:
                worker.join()
            assert len(results) == 40
            assert total([1, 2]) == 3
        ''',
}


async def test_a_test_that_starts_threads_runs_as_under_plain_pytest(tmp_path):
    """A test that starts 40 threads (the run allows 64 tasks) passes in the judge, as under
    plain pytest."""
    root = make(tmp_path / "pool", THREADS)
    _, run = await review(root, "pool/core.py", "total")
    assert [(o.test_id, o.status) for o in run.outcomes] == [
        ("tests/test_core.py::test_threads", "passed")], run.outcomes


# more-itertools: pytest itself failed in the judge (INTERNALERROR, a MemoryError while it
# reported a test of tests/test_more.py); the session ended with a "done" event, and the 161
# tests after it (those of tests/test_recipes.py, 10 of them calling take or unique_everseen)
# were neither selected nor named: silently missing.
INTERNAL = {
    "pyproject.toml": "[project]\nname = 'brk'\nversion = '0'\n",
    "brk/__init__.py": "",
    "brk/core.py": "def double(x):\n    return 2 * x\n",
    "tests/conftest.py": '''\
        def pytest_runtest_logreport(report):
            if report.when == "teardown" and "test_breaks" in report.nodeid:
                raise MemoryError("pytest's report of this test")  # INTERNALERROR
        ''',
    "tests/test_a.py": '''\
        import pytest


        @pytest.mark.parametrize("n", range({breaks}))
        def test_breaks(n):
            pass
        ''',
    "tests/test_b.py": '''\
        from brk.core import double


        def test_double():
            assert double(2) == 4


        def test_other():
            assert sum([1, 2]) == 3  # calls nothing of the project
        ''',
}


@pytest.mark.parametrize("breaks", [1, 5])
async def test_tests_after_an_internal_error_of_pytest_are_looked_at_or_named(tmp_path, breaks):
    """After pytest's own error (INTERNALERROR: the session ends) the selection goes on with
    the tests not looked at yet, as after a crash (one break: test_double is selected); when it
    cannot go on (a break at every session), each test pytest collected and did not run is
    named with why, never left out in silence."""
    from codeteam.execution.pytest_run import SELECTION_RESUMES, select_tests, target_for
    from codeteam.execution.sandbox import SandboxPolicy

    files = dict(INTERNAL, **{"tests/test_a.py": INTERNAL["tests/test_a.py"].replace(
        "{breaks}", str(breaks))})
    root = make(tmp_path / "brk", files)
    target = target_for(root, root / "brk/core.py", "brk.core", "double", 0, None)
    selection = await select_tests(target, (root / "brk/core.py").read_text(), SandboxPolicy(
        mode="bwrap", timeout_s=30, per_test_timeout_s=5))
    named = {n: g.reason for g in selection.not_run for n in g.node_ids}
    if breaks <= SELECTION_RESUMES:
        assert selection.selected == ["tests/test_b.py::test_double"], selection
        assert named == {}, named
    else:
        assert selection.selected == [], selection
        later = [f"tests/test_a.py::test_breaks[{n}]" for n in range(SELECTION_RESUMES + 1,
                                                                     breaks)]
        assert sorted(named) == sorted([*later, "tests/test_b.py::test_double",
                                        "tests/test_b.py::test_other"]), named
        assert all("internal error" in why and "MemoryError" in why
                   for why in named.values()), named


# humanize: tests/test_benchmarks.py's session-scoped autouse fixture ``_warmup_i18n`` calls
# naturaltime (so naturaldelta and _now). In the selection the call ends the fixture
# (ReachedTarget, a BaseException, which pytest does not cache as a fixture's error), and
# pytest's next setup of it failed on its own state ("AssertionError"): 3 tests calling the
# function were missed and one was named "error in setup: AssertionError".
WARMUP = {
    "pyproject.toml": "[project]\nname = 'warm'\nversion = '0'\n",
    "warm/__init__.py": "",
    "warm/core.py": "def ago(seconds):\n    return f'{seconds} seconds ago'\n",
    "tests/test_bench.py": '''\
        import pytest

        from warm.core import ago


        @pytest.fixture(scope="session", autouse=True)
        def _warmup():
            ago(1)


        def test_first():
            assert sum([1, 2]) == 3  # calls nothing of the project


        def test_second():
            assert 1 + 1 == 2


        def test_ago():
            assert ago(3) == "3 seconds ago"
        ''',
}


async def test_a_session_fixture_that_calls_the_function_selects_each_test_using_it(tmp_path):
    """Every test that uses a fixture which reached the function is selected and run (the
    fixture's setup ran in the first one, as under plain pytest, and its value serves the
    others)."""
    root = make(tmp_path / "warm", WARMUP)
    _, run = await review(root, "warm/core.py", "ago")
    assert [(o.test_id.split("::")[-1], o.status) for o in run.outcomes] == [
        ("test_first", "passed"), ("test_second", "passed"), ("test_ago", "passed")
    ], run.outcomes
    wrong = "def ago(seconds):\n    return f'{seconds} seconds'\n"
    _, run = await review(root, "warm/core.py", "ago", wrong)
    assert [o.status for o in run.outcomes] == ["passed", "passed", "failed"], run.outcomes


def _mo(entries: dict[str, str]) -> bytes:
    """A gettext catalog (``.mo``) of ``entries`` (msgid -> msgstr; plural forms joined by
    NUL), as msgfmt writes it."""
    import struct

    keys = sorted(entries)
    ids = [k.encode() for k in keys]
    strs = [entries[k].encode() for k in keys]
    start = 7 * 4 + 16 * len(keys)
    offsets, data = [], b""
    for text in ids + strs:
        offsets.append((len(text), start + len(data)))
        data += text + b"\0"
    head = struct.pack("Iiiiiii", 0x950412DE, 0, len(keys), 7 * 4, 7 * 4 + 8 * len(keys), 0, 0)
    return head + b"".join(struct.pack("ii", *o) for o in offsets) + data


# humanize: ``i18n.activate`` returns the ``gettext.GNUTranslations`` it keeps in
# ``_TRANSLATIONS`` and sets ``_CURRENT.locale`` on a ``threading.local``; the test then calls
# other functions of the package (in the judge) that read both. The value did not cross (all
# 149 tests "not judged"), and neither the dict's new item nor the attribute came back.
GETTEXT = {
    "pyproject.toml": "[project]\nname = 'words'\nversion = '0'\n",
    "words/__init__.py": "",
    "words/i18n.py": '''\
        import gettext as gettext_module
        import os
        from threading import local

        _TRANSLATIONS = {None: gettext_module.NullTranslations()}
        _CURRENT = local()
        PATH = os.path.join(os.path.dirname(__file__), "locale")


        def activate(locale):
            if locale is None:
                _CURRENT.locale = None
                return _TRANSLATIONS[None]
            if locale not in _TRANSLATIONS:
                _TRANSLATIONS[locale] = gettext_module.translation("words", PATH, [locale])
            _CURRENT.locale = locale
            return _TRANSLATIONS[locale]


        def deactivate():
            _CURRENT.locale = None


        def apples(n):
            table = _TRANSLATIONS.get(getattr(_CURRENT, "locale", None), _TRANSLATIONS[None])
            return table.ngettext("%d apple", "%d apples", n) % n
        ''',
    "tests/test_i18n.py": '''\
        import gettext

        from words import i18n


        def test_french():
            translation = i18n.activate("fr")
            try:
                assert isinstance(translation, gettext.GNUTranslations)
                assert translation.gettext("apple") == "pomme"
                assert translation.ngettext("%d apple", "%d apples", 0) == "%d pomme"
                assert i18n.apples(0) == "0 pomme"  # (French: n > 1 is plural)
                assert i18n.apples(3) == "3 pommes"
            finally:
                i18n.deactivate()


        def test_english():
            assert i18n.activate(None).gettext("apple") == "apple"
            assert i18n.apples(0) == "0 apples"
        ''',
}
FRENCH = {"": "Content-Type: text/plain; charset=UTF-8\nPlural-Forms: nplurals=2; plural=(n > 1);\n",
          "apple": "pomme", "%d apple\0%d apples": "%d pomme\0%d pommes"}


async def test_a_translation_the_code_returns_crosses_and_what_it_set_comes_back(tmp_path):
    """A ``gettext`` translation crosses (its catalog and headers; its plural rule made again
    from them by the judge's own gettext), and what the call set on an object its module holds
    (``_CURRENT.locale``) and the dict item it added come back into the judge, as one process
    would show them to the test's later calls of the package's other functions."""
    root = make(tmp_path / "words", GETTEXT)
    folder = root / "words/locale/fr/LC_MESSAGES"
    folder.mkdir(parents=True)
    (folder / "words.mo").write_bytes(_mo(FRENCH))
    _, run = await review(root, "words/i18n.py", "activate")
    assert [(o.test_id.split("::")[-1], o.status) for o in run.outcomes] == [
        ("test_french", "passed"), ("test_english", "passed")], run.outcomes
    forgetful = ("def activate(locale):\n    if locale is None:\n        return "
                 "_TRANSLATIONS[None]\n    if locale not in _TRANSLATIONS:\n"
                 "        _TRANSLATIONS[locale] = gettext_module.translation('words', PATH, "
                 "[locale])\n    return _TRANSLATIONS[locale]\n")
    _, run = await review(root, "words/i18n.py", "activate", forgetful)
    assert [o.status for o in run.outcomes] == ["failed", "passed"], run.outcomes
    assert run.outcomes[0].actual == "'0 apple'" or "0 apple" in run.outcomes[0].message, (
        run.outcomes[0])


# humanize: ``monkeypatch.setattr(i18n, "__spec__", None)`` / ``monkeypatch.delattr(i18n,
# "__spec__")``, then ``pytest.raises(FileNotFoundError)`` around ``activate("ru_RU")``, which
# finds its catalogs from ``__spec__``: the code's module kept its own (a dunder never crossed,
# a deleted global neither), "DID NOT RAISE", and the locale it then set leaked into the next
# test ("assert '3 секунды назад' == '3 seconds ago'").
SPEC = {
    "pyproject.toml": "[project]\nname = 'spec'\nversion = '0'\n",
    "spec/__init__.py": "",
    "spec/core.py": '''\
        LIMIT = 3


        def package():
            return __spec__ and __spec__.parent


        def limit():
            return globals().get("LIMIT", 0)
        ''',
    "tests/test_core.py": '''\
        import importlib

        from spec.core import limit, package

        core = importlib.import_module("spec.core")


        def test_spec():
            assert package() == "spec"


        def test_spec_none(monkeypatch):
            monkeypatch.setattr(core, "__spec__", None)
            assert package() is None


        def test_spec_deleted(monkeypatch):
            monkeypatch.delattr(core, "__spec__")
            assert package() == ""  # builtins' __spec__, as Python looks it up


        def test_limit_deleted(monkeypatch):
            assert limit() == 3
            monkeypatch.delattr(core, "LIMIT")
            assert limit() == 0
        ''',
}


async def test_a_global_the_test_deletes_and_the_modules_spec_reach_the_code(tmp_path):
    """A global the test deleted, and the module's ``__spec__`` it set to None or deleted, are
    so for the code too."""
    root = make(tmp_path / "spec", SPEC)
    _, run = await review(root, "spec/core.py", "package")
    assert [o.status for o in run.outcomes] == ["passed"] * 3, run.outcomes
    _, run = await review(root, "spec/core.py", "limit")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes


# toolz (survey 4): ``memoize`` returns a function of its own, which the test's class keeps as
# a method (``@memoize def addmethod(self, x, y)``): under plain pytest it binds like any
# function; the proxy of the code's function did not, so ``a.addmethod(3, 4)`` lost ``self``.
DECORATOR = {
    "pyproject.toml": "[project]\nname = 'wraps'\nversion = '0'\n",
    "wraps/__init__.py": "",
    "wraps/core.py": '''\
        def logged(func):
            """``func``, recording its calls' arguments in ``calls``."""
            calls = []

            def wrapper(*args, **kwargs):
                calls.append(args)
                return func(*args, **kwargs)
            wrapper.calls = calls
            return wrapper
        ''',
    "tests/test_core.py": '''\
        from wraps.core import logged


        def test_a_method():
            class A:
                def __init__(self, base):
                    self.base = base

                @logged
                def add(self, x):
                    return self.base + x

                @staticmethod
                @logged
                def twice(x):
                    return 2 * x

            a = A(100)
            assert a.add(3) == 103
            assert A.add(a, 4) == 104
            assert a.twice(5) == A.twice(5) == 10
            assert A.__dict__["add"].__get__(None, A) is A.add
        ''',
}


async def test_a_function_the_code_returns_binds_as_a_method_of_the_tests_class(tmp_path):
    """A function the code returns binds as a method when the test's class keeps it (toolz's
    ``test_memoize_on_classmethods``: "addmethod() missing 1 required positional argument"
    for right code); a wrong body that drops the first argument still fails."""
    root = make(tmp_path / "wraps", DECORATOR)
    _, run = await review(root, "wraps/core.py", "logged")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    wrong = ("def logged(func):\n    def wrapper(*args, **kwargs):\n"
             "        return func(*args[1:], **kwargs)\n    return wrapper\n")
    _, run = await review(root, "wraps/core.py", "logged", wrong)
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# toolz (survey 4): ``curry._should_curry`` caches ``inspect.signature(func)`` on the curry
# object the test holds; that object's state comes back to the judge after each call.
SIGNATURES = {
    "pyproject.toml": "[project]\nname = 'sigs'\nversion = '0'\n",
    "sigs/__init__.py": "",
    "sigs/core.py": '''\
        import inspect


        class Cached:
            def __init__(self, func):
                self.func = func
                self.sig = None

            def arity(self):
                """The number of parameters of ``func``, its signature kept."""
                if self.sig is None:
                    self.sig = inspect.signature(self.func)
                return len(self.sig.parameters)
        ''',
    "tests/test_core.py": '''\
        import inspect

        from sigs.core import Cached


        def add(x, *, y: int = 2) -> int:
            return x + y


        def test_the_signature_kept():
            cached = Cached(add)
            assert cached.arity() == 2
            assert cached.sig == inspect.signature(add)
            assert cached.sig.parameters["y"].kind is inspect.Parameter.KEYWORD_ONLY
            assert cached.sig.parameters["x"].default is inspect.Parameter.empty
        ''',
}


async def test_a_signature_the_code_keeps_crosses_as_a_value(tmp_path):
    """An ``inspect.Signature`` the code keeps on the test's object made the test "not
    judged: ... an object of inspect.Signature" (toolz: 20 tests of ``curry.__call__``); it
    crosses as a value (its parameters, kinds, defaults and annotations), and a wrong body
    still fails."""
    root = make(tmp_path / "sigs", SIGNATURES)
    _, run = await review(root, "sigs/core.py", "Cached.arity")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    wrong = ("def arity(self):\n    import inspect\n"
             "    self.sig = inspect.signature(len)\n    return 2\n")
    _, run = await review(root, "sigs/core.py", "Cached.arity", wrong)
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# marshmallow (survey 4): a parametrized test whose ids are made from the time of collection
# (``[05:28:24 2026-12-04]``): the selection's ids are not the judged session's.
MOVING_IDS = {
    "pyproject.toml": "[project]\nname = 'clock'\nversion = '0'\n",
    "clock/__init__.py": "",
    "clock/core.py": '''\
        def stamp(text):
            """``text`` with a mark."""
            return "@" + text
        ''',
    "tests/test_core.py": '''\
        import time

        import pytest

        from clock.core import stamp


        @pytest.mark.parametrize("text", [str(time.time_ns()), "fixed"])
        def test_stamp(text):
            assert stamp(text) == "@" + text
        ''',
}


async def test_a_test_whose_id_changes_between_sessions_is_not_judged_not_failed(tmp_path):
    """The parametrized test named by the time of collection was "error: pytest did not
    collect this test any more" in the judged session for right code (marshmallow: 11 tests
    of ``test_invalid_datetime_deserialization``): it is "not judged" with that reason; the
    test with a stable id is judged, and a wrong body fails it."""
    root = make(tmp_path / "clock", MOVING_IDS)
    _, run = await review(root, "clock/core.py", "stamp")
    found = {o.test_id.rsplit("[", 1)[-1]: o for o in run.outcomes}
    assert found["fixed]"].status == "passed", run.outcomes
    (moving,) = [o for key, o in found.items() if key != "fixed]"]
    assert moving.status == "not judged" and "another id" in moving.message, moving
    _, run = await review(root, "clock/core.py", "stamp", "def stamp(text):\n    return text\n")
    statuses = sorted(o.status for o in run.outcomes)
    assert statuses == ["failed", "not judged"], run.outcomes


# marshmallow (survey 4): fields that deserialize to uuid.UUID and ipaddress objects.
IDENTIFIERS = {
    "pyproject.toml": "[project]\nname = 'ids'\nversion = '0'\n",
    "ids/__init__.py": "",
    "ids/core.py": '''\
        import ipaddress
        import uuid


        def parse(text):
            """A UUID or an IP address (or interface) from ``text``."""
            if "/" in text:
                return ipaddress.ip_interface(text)
            try:
                return uuid.UUID(text)
            except ValueError:
                return ipaddress.ip_address(text)
        ''',
    "tests/test_core.py": '''\
        import ipaddress
        import uuid

        from ids.core import parse


        def test_parse():
            value = "12345678-1234-5678-1234-567812345678"
            assert parse(value) == uuid.UUID(value) and type(parse(value)) is uuid.UUID
            assert parse("10.0.0.1") == ipaddress.IPv4Address("10.0.0.1")
            assert parse("::1") == ipaddress.IPv6Address("::1")
            assert parse("10.0.0.1/24").network == ipaddress.IPv4Network("10.0.0.0/24")
            assert parse("::1/64") == ipaddress.IPv6Interface("::1/64")
        ''',
}


async def test_uuids_and_ip_addresses_cross_as_values(tmp_path):
    """A ``uuid.UUID`` or an ``ipaddress`` object the code returns made the test "not judged:
    ... an object of uuid.UUID" (marshmallow: 126 tests of ``get_value`` and
    ``String._serialize``); they cross as values (their text), and a wrong body fails."""
    root = make(tmp_path / "ids", IDENTIFIERS)
    _, run = await review(root, "ids/core.py", "parse")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    wrong = "def parse(text):\n    import uuid\n    return uuid.UUID(int=0)\n"
    _, run = await review(root, "ids/core.py", "parse", wrong)
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# toolz (survey 4): ``curry`` keeps a ``functools.partial`` the code made; the test reads its
# ``func``, ``args`` and ``keywords`` (``curry(f)`` of a curry unpacks them).
PARTIALS = {
    "pyproject.toml": "[project]\nname = 'parts'\nversion = '0'\n",
    "parts/__init__.py": "",
    "parts/core.py": '''\
        from functools import partial


        def add(x, y, z=0):
            return x + y + z


        def bind(func, *args, **kwargs):
            """``func`` with ``args`` and ``kwargs`` bound."""
            return partial(func, *args, **kwargs)
        ''',
    "tests/test_core.py": '''\
        from parts.core import add, bind


        def test_bind():
            bound = bind(add, 1, z=5)
            assert bound(2) == 8
            assert bound.func is add and bound.args == (1,) and bound.keywords == {"z": 5}
        ''',
}


async def test_a_partial_the_code_returns_shows_its_func_args_and_keywords(tmp_path):
    """A ``functools.partial`` of the code's crosses as a handle (its calls run in the code's
    process): it had no ``func``, ``args`` or ``keywords`` ("'RemoteCallable' object has no
    attribute 'func'": toolz, 10 tests of ``curry.__call__``). The handle now carries them (as
    the judge decodes them: the function by reference or as a handle of its own); a wrong
    body fails."""
    root = make(tmp_path / "parts", PARTIALS)
    _, run = await review(root, "parts/core.py", "bind")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    wrong = ("def bind(func, *args, **kwargs):\n    from functools import partial\n"
             "    return partial(func, *args)\n")
    _, run = await review(root, "parts/core.py", "bind", wrong)
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# toolz (survey 4): test_is_valid_py3 sets ``f.__signature__ = 34`` on a function of its own
# that crossed before: ``curry(f)`` must then fail as under plain pytest (a TypeError).
SIGNATURE_SET = {
    "pyproject.toml": "[project]\nname = 'arity'\nversion = '0'\n",
    "arity/__init__.py": "",
    "arity/core.py": '''\
        import inspect


        def arity(func):
            """The number of ``func``'s parameters, or None without a signature."""
            try:
                return len(inspect.signature(func).parameters)
            except (TypeError, ValueError):
                return None
        ''',
    "tests/test_core.py": '''\
        from arity.core import arity


        def test_a_signature_set_later():
            def f(a, b):
                return a
            assert arity(f) == 2
            f.__signature__ = 34
            assert arity(f) is None
        ''',
}


async def test_a_signature_the_test_sets_later_reaches_the_code(tmp_path):
    """The code's handle of the test's function kept the signature copied when it first
    crossed; ``f.__signature__ = 34`` set by the test later never reached it (toolz's
    ``test_is_valid_curry`` failed right code: "assert True is False")."""
    root = make(tmp_path / "arity", SIGNATURE_SET)
    _, run = await review(root, "arity/core.py", "arity")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes


# arrow (survey 4): the tests build datetimes with ``dateutil.tz`` time zones (``tz.tzutc()``,
# ``tz.tzoffset``, ``tz.gettz``, ``tz.tzlocal()``) and ``zoneinfo.ZoneInfo``; the code calls
# their ``utcoffset`` and returns datetimes carrying them. (dateutil: a dependency of freezegun,
# in the dev extras.)
ZONES = {
    "pyproject.toml": "[project]\nname = 'zones'\nversion = '0'\n",
    "zones/__init__.py": "",
    "zones/core.py": '''\
        import datetime


        def offset_hours(moment):
            """The UTC offset of ``moment`` (an aware datetime), in hours."""
            return moment.utcoffset().total_seconds() / 3600


        def at_noon(day, zone):
            """``day`` (a date) at noon in ``zone``."""
            return datetime.datetime(day.year, day.month, day.day, 12, tzinfo=zone)


        def zone_named(name):
            """The time zone ``name`` (dateutil's ``gettz``)."""
            from dateutil import tz

            return tz.gettz(name)
        ''',
    "tests/test_core.py": '''\
        import datetime
        import zoneinfo

        from dateutil import tz

        from zones.core import at_noon, offset_hours, zone_named


        def test_offsets():
            july = datetime.datetime(2024, 7, 1)
            assert offset_hours(july.replace(tzinfo=tz.tzutc())) == 0
            assert offset_hours(july.replace(tzinfo=tz.tzoffset("X", 5400))) == 1.5
            assert offset_hours(july.replace(tzinfo=tz.tzoffset(None, -3600))) == -1
            assert offset_hours(july.replace(tzinfo=tz.gettz("US/Pacific"))) == -7
            assert offset_hours(july.replace(tzinfo=zoneinfo.ZoneInfo("Europe/Paris"))) == 2
            assert offset_hours(july.replace(tzinfo=tz.tzstr("EST5EDT"))) == -4
            local = tz.tzlocal()
            assert offset_hours(july.replace(tzinfo=local)) == local.utcoffset(july) / (
                datetime.timedelta(hours=1))


        def test_zones_come_back():
            day = datetime.date(2024, 7, 1)
            for zone in (tz.tzutc(), tz.tzoffset(None, 3600), tz.gettz("US/Pacific"),
                         zoneinfo.ZoneInfo("Asia/Tokyo"), tz.tzlocal(), tz.tzstr("EST5EDT")):
                made = at_noon(day, zone)
                assert made.tzinfo == zone, zone
                assert made == datetime.datetime(2024, 7, 1, 12, tzinfo=zone)
            tokyo = zoneinfo.ZoneInfo("Asia/Tokyo")
            assert at_noon(day, tokyo).tzinfo is tokyo
            assert at_noon(day, tz.gettz("US/Pacific")).tzinfo is tz.gettz("US/Pacific")
            assert at_noon(day, tz.tzutc()).tzinfo is tz.UTC
            assert at_noon(day, tz.tzoffset("X", 60)).tzinfo is tz.tzoffset("X", 60)


        def test_a_zone_the_code_makes():
            assert zone_named("Europe/Paris") is tz.gettz("Europe/Paris")
            assert zone_named("US/Pacific").utcoffset(datetime.datetime(2024, 1, 1)) == (
                datetime.timedelta(hours=-8))
        ''',
}


async def test_time_zones_of_zoneinfo_and_dateutil_cross_as_values(tmp_path):
    """A ``dateutil.tz`` or ``zoneinfo`` time zone of the test's crossed as an opaque handle:
    "the test's arguments could not cross to the code under test: the code used an object of
    the test's" when the code asked its ``utcoffset`` (arrow: 637 tests, 612 of
    ``DateTimeFormatter._format_token``'s 627), and a datetime carrying one could not come back
    ("the code under test sent what the judge does not rebuild (an object of
    datetime.datetime"). They cross as values, made again by their library (identity kept by
    its caches: ``ZoneInfo(key)``, ``gettz``, ``tzoffset``, the ``tzutc`` singleton); wrong
    bodies fail."""
    root = make(tmp_path / "zones", ZONES)
    for name in ("offset_hours", "at_noon", "zone_named"):
        _, run = await review(root, "zones/core.py", name)
        assert [o.status for o in run.outcomes] == ["passed"], (name, run.outcomes)
    wrongs = {
        "offset_hours": "def offset_hours(moment):\n    return moment.utcoffset().seconds / 3600\n",
        "at_noon": ("def at_noon(day, zone):\n    import datetime\n    return datetime.datetime("
                    "day.year, day.month, day.day, 12, tzinfo=datetime.timezone.utc)\n"),
        "zone_named": ("def zone_named(name):\n    from dateutil import tz\n"
                       "    return tz.gettz('Europe/Berlin')\n"),
    }
    for name, wrong in wrongs.items():
        _, run = await review(root, "zones/core.py", name, wrong)
        assert [o.status for o in run.outcomes] == ["failed"], (name, run.outcomes)


FORGED_ZONE = {
    "pyproject.toml": "[project]\nname = 'forged'\nversion = '0'\n",
    "forged/__init__.py": "",
    "forged/core.py": '''\
        import zoneinfo


        def pacific():
            """The time zone of US/Pacific."""
            return zoneinfo.ZoneInfo("US/Pacific")
        ''',
    "tests/test_core.py": '''\
        import datetime
        import zoneinfo

        from forged.core import pacific


        def test_pacific():
            assert pacific() is zoneinfo.ZoneInfo("US/Pacific")
            assert pacific().utcoffset(datetime.datetime(2024, 1, 1)) == datetime.timedelta(
                hours=-8)
        ''',
}


async def test_a_time_zone_under_another_zones_key_is_not_that_zone(tmp_path):
    """A time zone crosses by its key only when its library, asked for that key, gives that
    very object: the code's ``ZoneInfo.from_file`` of UTC's data named "US/Pacific" (or a
    ``no_cache`` copy) is no pass; a right body passes."""
    root = make(tmp_path / "forged", FORGED_ZONE)
    _, run = await review(root, "forged/core.py", "pacific")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    from_file = ('zoneinfo.ZoneInfo.from_file(open("/usr/share/zoneinfo/UTC", "rb"), '
                 'key="US/Pacific")')
    for made in (from_file, 'zoneinfo.ZoneInfo.no_cache("US/Pacific")'):
        wrong = f"def pacific():\n    import zoneinfo\n    return {made}\n"
        _, run = await review(root, "forged/core.py", "pacific", wrong)
        (outcome,) = run.outcomes
        assert outcome.status in ("failed", "not judged"), outcome


# toolz (survey4, "What is left"): objects of the tests' own classes with container hooks
# crossed as opaque handles, and the code iterating them made the test "not judged": a test's
# ``list`` subclass whose ``__len__`` lies, iterated by ``partition_all``; a ``Mapping`` class
# made inside a test and a module-level ``CustomMapping`` given to ``merge_with``/``assoc``.
HOOKS = {
    "pyproject.toml": "[project]\nname = 'bags'\nversion = '0'\n",
    "bags/__init__.py": "",
    "bags/core.py": '''\
        import collections
        from collections.abc import Mapping
        from itertools import zip_longest

        no_pad = "__no__pad__"


        def partition_all(n, seq):
            """Tuples of ``n`` items of ``seq``, the last one shorter."""
            args = [iter(seq)] * n
            it = zip_longest(*args, fillvalue=no_pad)
            try:
                prev = next(it)
            except StopIteration:
                return
            for item in it:
                yield prev
                prev = item
            if prev[-1] is no_pad:
                try:
                    end = len(seq) % n
                    if prev[end - 1] is no_pad or prev[end] is not no_pad:
                        raise LookupError("invalid length")
                    yield prev[:end]
                except TypeError:
                    yield tuple(x for x in prev if x is not no_pad)
            else:
                yield prev


        def merge_with(func, *dicts, factory=dict):
            """Merge mappings, ``func`` applied to the values of each key."""
            if len(dicts) == 1 and not isinstance(dicts[0], Mapping):
                dicts = dicts[0]
            values = collections.defaultdict(lambda: [].append)
            for d in dicts:
                for k, v in d.items():
                    values[k](v)
            result = factory()
            for k, v in values.items():
                result[k] = func(v.__self__)
            return result


        def assoc(d, key, value, factory=dict):
            """A new mapping: ``d`` with ``key`` set to ``value``."""
            d2 = factory()
            d2.update(d)
            d2[key] = value
            return d2
        ''',
    "tests/test_core.py": '''\
        from collections.abc import Mapping

        import pytest

        from bags.core import assoc, merge_with, partition_all


        class CustomMapping:
            def __init__(self, *args, **kwargs):
                self._d = dict(*args, **kwargs)

            def __getitem__(self, key):
                return self._d[key]

            def __setitem__(self, key, val):
                self._d[key] = val

            def __delitem__(self, key):
                del self._d[key]

            def __iter__(self):
                return iter(self._d)

            def __len__(self):
                return len(self._d)

            def __contains__(self, key):
                return key in self._d

            def __eq__(self, other):
                return isinstance(other, CustomMapping) and self._d == other._d

            def keys(self):
                return self._d.keys()

            def values(self):
                return self._d.values()

            def items(self):
                return self._d.items()

            def update(self, *args, **kwargs):
                self._d.update(*args, **kwargs)


        def test_partition_all():
            class ListWithBadLength(list):
                def __init__(self, contents, off_by=1):
                    self.off_by = off_by
                    super().__init__(contents)

                def __len__(self):
                    return super().__len__() + self.off_by

            assert list(partition_all(2, ListWithBadLength([1, 2, 3], 0))) == [(1, 2), (3,)]
            with pytest.raises(LookupError):
                list(partition_all(5, ListWithBadLength([1, 2], off_by=+1)))
            with pytest.raises(LookupError):
                list(partition_all(5, ListWithBadLength([1, 2], off_by=-1)))


        def test_merge_with_non_dict_mappings():
            class Foo(Mapping):
                def __init__(self, d):
                    self.d = d

                def __iter__(self):
                    return iter(self.d)

                def __getitem__(self, key):
                    return self.d[key]

                def __len__(self):
                    return len(self.d)

            assert merge_with(sum, Foo({1: 1}), Foo({1: 2, 3: 4})) == {1: 3, 3: 4}


        def test_merge_with_custom_mapping():
            got = merge_with(sum, CustomMapping({1: 1}), CustomMapping({1: 2}),
                             factory=lambda: CustomMapping())
            assert got == CustomMapping({1: 3})


        def test_assoc_custom_mapping():
            d = CustomMapping(a=1)
            got = assoc(d, "b", 2, factory=lambda: CustomMapping())
            assert got == CustomMapping(a=1, b=2)
            assert d == CustomMapping(a=1)


        def test_assoc_local_mapping():
            class Local(dict):
                pass

            d = Local(a=1)
            got = assoc(d, "b", 2, factory=lambda: Local())
            assert got == {"a": 1, "b": 2} and type(got) is Local
            assert d == {"a": 1}
        ''',
}


async def test_objects_of_the_tests_classes_used_as_containers_are_judged(tmp_path):
    """The code iterates, measures, indexes and fills the tests' objects (``iter``, ``len``,
    ``x[k]``, ``x[k] = v``, ``.items()``, ``.update()``): each is run on the test's object in
    the judge, and the verdict is plain pytest's (survey4: toolz's ``partition_all``,
    ``merge_with``, ``assoc`` "not judged"). Right bodies pass, wrong ones fail."""
    root = make(tmp_path / "bags", HOOKS)
    for name in ("partition_all", "merge_with", "assoc"):
        _, run = await review(root, "bags/core.py", name)
        assert {o.status for o in run.outcomes} == {"passed"}, (name, run.outcomes)
    wrongs = {
        "partition_all": ("def partition_all(n, seq):\n    items = list(seq)\n"
                          "    for i in range(0, len(items), n):\n"
                          "        yield tuple(items[i:i + n])\n"),
        "merge_with": ("def merge_with(func, *dicts, factory=dict):\n    result = factory()\n"
                       "    for d in dicts:\n        for k in d:\n"
                       "            result[k] = func([d[k]])\n    return result\n"),
        "assoc": ("def assoc(d, key, value, factory=dict):\n    d2 = factory()\n"
                  "    d2[key] = value\n    return d2\n"),
    }
    for name, wrong in wrongs.items():
        _, run = await review(root, "bags/core.py", name, wrong)
        assert "failed" in {o.status for o in run.outcomes}, (name, run.outcomes)
        assert "not judged" not in {o.status for o in run.outcomes}, (name, run.outcomes)


# tabulate (survey 5): ``_type(value)`` returns the type a column's cell has, ``type(None)``
# for an empty one; the test compares it with ``type(None)`` (and ``int``, ``str``).
TYPES = {
    "pyproject.toml": "[project]\nname = 'kinds'\nversion = '0'\n",
    "kinds/__init__.py": "",
    "kinds/core.py": '''\
        def kind(value):
            """The type of a table cell."""
            if value is None or value == "":
                return type(None)
            if value == "...":
                return type(...)
            if value == "NotImplemented":
                return type(NotImplemented)
            return int if str(value).isdigit() else str
        ''',
    "tests/test_core.py": '''\
        from kinds.core import kind


        def test_kind():
            assert kind(None) is type(None) and kind("") is type(None)
            assert kind("...") is type(...) and kind("NotImplemented") is type(NotImplemented)
            assert kind("12") is int and kind("x") is str
            assert {kind(None): 1}[type(None)] == 1
        ''',
}


async def test_the_type_of_none_the_code_returns_crosses(tmp_path):
    """``type(None)`` (``builtins.NoneType``, which the ``builtins`` module does not hold by
    that name) could not be named: "not judged: the code under test sent what the judge does
    not rebuild (the class builtins.NoneType ...)" (tabulate: 51 tests of ``_type``). It and
    the types of ``...`` and ``NotImplemented`` cross as themselves; a wrong body fails."""
    root = make(tmp_path / "kinds", TYPES)
    _, run = await review(root, "kinds/core.py", "kind")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    wrong = ("def kind(value):\n    if value is None:\n        return type(...)\n"
             "    return int if str(value).isdigit() else str\n")
    _, run = await review(root, "kinds/core.py", "kind", wrong)
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# parse (survey 5): a Parser keeps ``re.IGNORECASE | re.DOTALL`` (a combination of RegexFlag's
# members, which ``RegexFlag.__members__`` does not hold) in its state.
FLAGS = {
    "pyproject.toml": "[project]\nname = 'flags'\nversion = '0'\n",
    "flags/__init__.py": "",
    "flags/core.py": '''\
        import enum
        import re


        class Mode(enum.Flag):
            READ = 1
            WRITE = 2


        class Parser:
            def __init__(self, pattern, case_sensitive=False):
                self.pattern = pattern
                self.flags = re.DOTALL if case_sensitive else re.IGNORECASE | re.DOTALL
                self.mode = Mode.READ | Mode.WRITE
                self.none = Mode(0)

            def parse(self, text):
                """The match of the pattern at the start of ``text``, or None."""
                found = re.match(self.pattern, text, self.flags)
                return found and (found.group(0), self.flags, self.mode, self.none)
        ''',
    "tests/test_core.py": '''\
        import re

        from flags.core import Mode, Parser


        def test_parse():
            text, flags, mode, none = Parser("a.b").parse("A\\nB")
            assert text == "A\\nB" and flags == re.IGNORECASE | re.DOTALL
            assert mode == Mode.READ | Mode.WRITE and none == Mode(0)
            assert Parser("a", case_sensitive=True).parse("A") is None
        ''',
}


async def test_combined_flags_cross_as_values(tmp_path):
    """A Flag's combined members (``re.IGNORECASE | re.DOTALL`` in the state of parse's
    ``Parser``) crossed by their name, which no member has: "not judged: a value could not
    cross ... (the arguments: RegexFlag)" (parse: 98 of the 100 tests of each method, its
    ``return None`` mutants "not judged" too). They cross as their members' names joined."""
    root = make(tmp_path / "flags", FLAGS)
    _, run = await review(root, "flags/core.py", "Parser.parse")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    wrong = "def parse(self, text):\n    return None\n"
    _, run = await review(root, "flags/core.py", "Parser.parse", wrong)
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# parse (survey 5): ``date_convert`` returns a datetime whose tzinfo is the project's own
# ``FixedTzOffset``.
OWN_ZONE = {
    "pyproject.toml": "[project]\nname = 'zones'\nversion = '0'\n",
    "zones/__init__.py": "",
    "zones/core.py": '''\
        from datetime import datetime, timedelta, tzinfo


        class FixedTzOffset(tzinfo):
            ZERO = timedelta(0)

            def __init__(self, offset, name):
                self._offset = timedelta(minutes=offset)
                self._name = name

            def utcoffset(self, dt):
                return self._offset

            def tzname(self, dt):
                return self._name

            def dst(self, dt):
                return self.ZERO

            def __eq__(self, other):
                return isinstance(other, FixedTzOffset) and self._offset == other._offset


        def stamp(text):
            """``YYYY-MM-DD hh:mm +hhmm`` as an aware datetime."""
            day, time, zone = text.split()
            sign = -1 if zone[0] == "-" else 1
            minutes = sign * (int(zone[1:3]) * 60 + int(zone[3:5]))
            return datetime.strptime(day + " " + time, "%Y-%m-%d %H:%M").replace(
                tzinfo=FixedTzOffset(minutes, zone))
        ''',
    "tests/test_core.py": '''\
        from datetime import datetime

        from zones.core import FixedTzOffset, stamp


        def test_stamp():
            got = stamp("2024-02-03 04:05 +0130")
            assert got == datetime(2024, 2, 3, 4, 5, tzinfo=FixedTzOffset(90, "+0130"))
            assert got.tzinfo == FixedTzOffset(90, "x") and got.tzname() == "+0130"
        ''',
}


async def test_a_datetime_in_a_time_zone_of_the_projects_own_class_crosses(tmp_path):
    """A datetime whose tzinfo is of the project's own class was "not judged: the code under
    test sent what the judge does not rebuild (an object of datetime.datetime ...)" (parse:
    6 of ``date_convert``'s 14 tests); its time zone crosses by state as the project's other
    objects do, and a wrong body fails."""
    root = make(tmp_path / "zones", OWN_ZONE)
    _, run = await review(root, "zones/core.py", "stamp")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    wrong = ("def stamp(text):\n    day, time, zone = text.split()\n"
             "    return datetime.strptime(day + ' ' + time, '%Y-%m-%d %H:%M').replace(\n"
             "        tzinfo=FixedTzOffset(60, zone))\n")
    _, run = await review(root, "zones/core.py", "stamp", wrong)
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# tabulate (survey 5): ``tabulate(data)`` asks its input ``hasattr(data, "keys")`` (a dict of
# columns?) before iterating it: the test's ``map``, ``zip``, generator, sqlite3 cursor,
# namedtuples and dataclass rows.
KEYS = {
    "pyproject.toml": "[project]\nname = 'rows'\nversion = '0'\n",
    "rows/__init__.py": "",
    "rows/core.py": '''\
        def table(data):
            """The rows of ``data``: a dict of columns or an iterable of rows."""
            if hasattr(data, "keys") and hasattr(data, "values"):
                return [list(r) for r in zip(*data.values())]
            rows = []
            for row in data:
                rows.append(list(row) if not hasattr(row, "__dataclass_fields__")
                            else [getattr(row, "name")])
            return rows
        ''',
    "tests/test_core.py": '''\
        from collections import namedtuple

        from rows.core import table


        def test_iterators_and_rows():
            assert table(map(lambda i: (i, i), range(2))) == [[0, 0], [1, 1]]
            assert table(zip([1, 2], [3, 4])) == [[1, 3], [2, 4]]
            assert table((x, x + 1) for x in (5,)) == [[5, 6]]
            NT = namedtuple("NT", ["foo", "bar"])
            assert table([NT(1, 2)]) == [[1, 2]]
            assert table({"a": [1, 2]}) == [[1], [2]]
        ''',
}


async def test_an_attribute_the_tests_object_lacks_is_absent_to_the_code(tmp_path):
    """``hasattr(it, "keys")`` on the test's iterator or object (which cross as handles) made
    the test "not judged: ... (the iterator map: .keys: only next() crosses)" (tabulate: 9 of
    ``tabulate``'s 258 tests). A name that the object's class and own ``__dict__`` lack is
    absent (the class makes up no attributes): the answer plain Python gives."""
    root = make(tmp_path / "rows", KEYS)
    _, run = await review(root, "rows/core.py", "table")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    wrong = "def table(data):\n    return [list(r)[::-1] for r in data]\n"
    _, run = await review(root, "rows/core.py", "table", wrong)
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# parse (survey 5): README.rst, collected by ``--doctest-glob=README.rst``, defines a converter
# (its globals say ``__name__ = "__main__"``) and hands it to the code; a ``Result`` is sliced.
README_DOCTEST = {
    "pyproject.toml": ("[project]\nname = 'fields'\nversion = '0'\n\n[tool.pytest.ini_options]\n"
                       "addopts = '--doctest-glob=README.rst'\n"),
    "README.rst": '''\
        Fields
        ======

        >>> from fields.core import convert, Result
        >>> def shout(text):
        ...     return text.upper()
        >>> convert("abc", shout)
        'ABC'
        >>> Result([1, 2, 3, 4])[1:3]
        [2, 3]
        ''',
    "fields/__init__.py": "",
    "fields/core.py": '''\
        def convert(text, converter):
            """``converter(text)``."""
            return converter(text)


        class Result:
            def __init__(self, items):
                self.items = items

            def __getitem__(self, item):
                if isinstance(item, slice):
                    return self.items[item.start:item.stop:item.step]
                return self.items[item]
        ''',
}


async def test_a_function_a_text_files_doctest_defines_and_a_slice_cross(tmp_path):
    """A function defined in a ``--doctest-glob`` file is of ``__main__`` (doctest's globals),
    a module nothing crosses from: "not judged: ... (a callable of __main__)"; a ``slice``
    crossed as the test's handle, and ``isinstance(item, slice)`` made the test "not judged"
    (parse's README.rst: the two "not judged" left in four functions). The function goes as the
    test's callable, the slice as a value; wrong bodies fail."""
    root = make(tmp_path / "fields", README_DOCTEST)
    for name, wrong in (("convert", "def convert(text, converter):\n    return text\n"),
                        ("Result.__getitem__", ("def __getitem__(self, item):\n"
                                                "    return self.items[item][::-1]\n"))):
        _, run = await review(root, "fields/core.py", name)
        assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
        _, run = await review(root, "fields/core.py", name, wrong)
        assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# glom (survey 6): ``T = TType()`` and ``S = TType()`` are module globals of a class with
# ``__call__``; ``_format_t(path, root=T)`` looks its root up in ``{T: 'T', S: 'S'}``, and
# ``TType.__repr__`` (which pytest's own reporting calls) passes the test's ``T``.
CALLABLE_GLOBAL = {
    "pyproject.toml": "[project]\nname = 'spec'\nversion = '0'\n",
    "spec/__init__.py": "",
    "spec/core.py": '''\
        class TType:
            def __call__(self, *args):
                return self


        T = TType()
        S = TType()


        def name_of(root=T):
            """The name of ``root``: 'T' or 'S'."""
            return {T: "T", S: "S"}[root]
        ''',
    "tests/test_core.py": '''\
        from spec.core import S, T, name_of


        def test_names():
            assert name_of(S) == "S"
            assert name_of(T) == "T"
            assert name_of() == "T"
        ''',
}


async def test_a_callable_module_global_crosses_as_the_other_sides_own(tmp_path):
    """A callable object that is a global of the function's module crossed by its state, as a
    copy: ``{T: 'T', S: 'S'}[root]`` raised KeyError for right code (glom's ``_format_t``: 34
    tests, a pytest internal error when ``repr`` of a ``T`` reached it). It crosses by its
    name, as a sentinel does (the other side's own object); a wrong body fails."""
    root = make(tmp_path / "spec", CALLABLE_GLOBAL)
    _, run = await review(root, "spec/core.py", "name_of")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    wrong = 'def name_of(root=T):\n    return {T: "S", S: "T"}[root]\n'
    _, run = await review(root, "spec/core.py", "name_of", wrong)
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# Python-Markdown (survey 6): ``AtomicString(str)`` marks text not to parse again; the inline
# processors are handed ``re.Match`` objects on such text.
MATCH_ON_SUBCLASS = {
    "pyproject.toml": "[project]\nname = 'marks'\nversion = '0'\n",
    "marks/__init__.py": "",
    "marks/core.py": '''\
        class AtomicString(str):
            """Text that is not parsed again."""


        def handle(m):
            """The first group of ``m``, and whether its text is atomic."""
            return m.group(1), isinstance(m.string, AtomicString)
        ''',
    "tests/test_core.py": '''\
        import re

        from marks.core import AtomicString, handle


        def test_a_match_on_atomic_text():
            assert handle(re.search("(b+)", AtomicString("abbc"))) == ("bb", True)
        ''',
}


async def test_a_match_on_text_of_a_str_subclass_crosses(tmp_path):
    """A match whose string is of a project's ``str`` subclass was refused ("a value could
    not cross ... (the arguments: a pattern that is not text)": Python-Markdown's
    ``AtomicString``, 70 of ``parseBoolValue``'s 74 tests). The match is made again on that
    text (the subclass's object, as it crossed); a wrong body fails."""
    root = make(tmp_path / "marks", MATCH_ON_SUBCLASS)
    _, run = await review(root, "marks/core.py", "handle")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    wrong = "def handle(m):\n    return m.string, True\n"
    _, run = await review(root, "marks/core.py", "handle", wrong)
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# Python-Markdown (survey 6): attr_list keeps ``_scanner = re.Scanner([...])``, whose compiled
# pattern has no text (``.pattern`` is None: made from the parsed lexicon).
SCANNER = {
    "pyproject.toml": "[project]\nname = 'lexer'\nversion = '0'\n",
    "lexer/__init__.py": "",
    "lexer/core.py": '''\
        def words(text, scanner):
            """The tokens ``scanner`` finds in ``text``."""
            return scanner.scan(text)[0]
        ''',
    "tests/test_core.py": '''\
        import re

        from lexer.core import words


        def test_words():
            scanner = re.Scanner([(r"[a-z]+", lambda s, t: t.upper()), (r"\\s+", None)])
            assert words("ab cd", scanner) == ["AB", "CD"]
        ''',
}


async def test_a_scanner_crosses_by_its_lexicon(tmp_path):
    """A ``re.Scanner`` crossed by its state, whose pattern (made from the parsed lexicon, its
    ``.pattern`` None) could not be made again: "a value could not cross ... (the arguments:
    a pattern that is not text)" (Python-Markdown's ``attr_list._scanner``, in 58 of
    ``toc.slugify``'s tests). It crosses by its lexicon and flags; a wrong body fails."""
    root = make(tmp_path / "lexer", SCANNER)
    _, run = await review(root, "lexer/core.py", "words")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    wrong = "def words(text, scanner):\n    return scanner.scan(text)[1]\n"
    _, run = await review(root, "lexer/core.py", "words", wrong)
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# Python-Markdown (survey 6): a module's small list holds a compiled pattern with no text (a
# ``re.Scanner``'s, made from the parsed lexicon).
PATTERN_WITHOUT_TEXT = {
    "pyproject.toml": "[project]\nname = 'lexer'\nversion = '0'\n",
    "lexer/__init__.py": "",
    "lexer/core.py": '''\
        import re

        _scanner = re.Scanner([(r"[a-z]+", lambda s, t: t.upper()), (r"\\s+", None)])
        PATTERNS = [_scanner.scanner]


        def words(text):
            """The words of ``text``, in capitals."""
            return _scanner.scan(text)[0]


        def tokens(text):
            return _scanner.scan(text)[0]
        ''',
    "tests/test_core.py": '''\
        from lexer.core import tokens, words


        def test_words():
            assert words("ab cd") == ["AB", "CD"]


        def test_words_after_a_scan_in_the_tests_process():
            assert tokens("x") == ["X"]  # (the scanner keeps its last match: ``.match``)
            assert words("ab cd") == ["AB", "CD"]
        ''',
}


async def test_a_module_list_holding_a_pattern_without_text(tmp_path):
    """A pattern whose ``.pattern`` is None cannot be compiled again: sent with the module's
    small lists it made every call "not judged (a pattern that is not text)" (58 tests of
    Python-Markdown's ``toc.slugify``). Such a pattern is no value that crosses (the list is
    not followed); a wrong body fails."""
    root = make(tmp_path / "lexer", PATTERN_WITHOUT_TEXT)
    _, run = await review(root, "lexer/core.py", "words")
    assert [o.status for o in run.outcomes] == ["passed"] * 2, run.outcomes
    wrong = "def words(text):\n    return _scanner.scan(text)[1]\n"
    _, run = await review(root, "lexer/core.py", "words", wrong)
    assert [o.status for o in run.outcomes] == ["failed"] * 2, run.outcomes


# inflect (survey 6): ``engine.group1sub`` and its kin are ``re.sub`` callbacks; every match
# after the first is one ``search`` from the match's ``pos`` does not find.
SUB_CALLBACK = {
    "pyproject.toml": "[project]\nname = 'words'\nversion = '0'\n",
    "words/__init__.py": "",
    "words/core.py": '''\
        import re


        def unit(m):
            """The digit ``m`` matched, as a word."""
            return ["zero", "one", "two", "three"][int(m.group(1))] + ","


        def spell(text):
            return re.sub(r"(\\d)", unit, text)
        ''',
    "tests/test_core.py": '''\
        from words.core import spell


        def test_spell():
            assert spell("1 2 3") == "one, two, three,"
        ''',
}


async def test_every_match_of_a_sub_callback_crosses(tmp_path):
    """A match crossed as the call that made it, made again by ``search``/``match`` from its
    ``pos``: the second and later matches of ``re.sub`` or ``finditer`` were not found so,
    "not judged (re.Match (a match its pattern does not make again from its pos))" (9 tests
    of inflect's ``engine.group1sub``). They are found again among ``finditer``'s matches
    from that ``pos`` (the same ``pos``, so ``m.pos`` is the code's too); a wrong body fails."""
    root = make(tmp_path / "words", SUB_CALLBACK)
    _, run = await review(root, "words/core.py", "unit")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    wrong = 'def unit(m):\n    return m.group(1) + ","\n'
    _, run = await review(root, "words/core.py", "unit", wrong)
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# itsdangerous (survey 7): freezegun puts its ``fake_time`` & co. into ``time``, which the
# project's module holds; their annotations (``Optional[float]``) went with the handles.
PATCHED_ANNOTATED = {
    "pyproject.toml": "[project]\nname = 'stamp'\nversion = '0'\n",
    "stamp/__init__.py": "",
    "stamp/encoding.py": '''\
        def to_bytes(n):
            """``n`` as 8 big-endian bytes."""
            return n.to_bytes(8, "big")
        ''',
    "stamp/signer.py": '''\
        import time

        from .encoding import to_bytes


        def stamp(n):
            return to_bytes(int(time.time()) + n)
        ''',
    "tests/test_signer.py": '''\
        import time
        from typing import Optional

        from stamp.signer import stamp


        def fake_time(offset: Optional[int] = None) -> float:
            return 1.0


        def test_stamp(monkeypatch):
            monkeypatch.setattr(time, "time", fake_time)
            assert stamp(3) == bytes(7) + b"\\4"
        ''',
}


async def test_a_patched_function_annotated_with_a_typing_alias(tmp_path):
    """A typing alias (``Optional[int]``: its ``__dict__`` holds ``__slots__ = None``) was
    sent by its state, which the receiver refuses: the annotations of the test's
    ``fake_time``, patched into ``time`` and sent with each call, made every call "not
    judged (... __slots__ in an object's state)" (itsdangerous: 94 of 97 tests of
    ``int_to_bytes``, freezegun's fakes). What the receiver refuses is not sent (the handle
    goes without that annotation); a wrong body fails."""
    root = make(tmp_path / "stamp", PATCHED_ANNOTATED)
    _, run = await review(root, "stamp/encoding.py", "to_bytes")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    wrong = 'def to_bytes(n):\n    return n.to_bytes(8, "little")\n'
    _, run = await review(root, "stamp/encoding.py", "to_bytes", wrong)
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# python-slugify (survey 7): argparse's ``parser.error`` prints the usage to stderr and
# raises ``SystemExit(2)``, which the tests expect (``assertRaises(SystemExit)``).
SYSTEM_EXIT = {
    "pyproject.toml": "[project]\nname = 'cli'\nversion = '0'\n",
    "cli/__init__.py": "",
    "cli/main.py": '''\
        import argparse


        def parse_args(argv):
            """The options of ``argv``; exits (status 2) on a bad one, as argparse does."""
            parser = argparse.ArgumentParser(prog="cli")
            parser.add_argument("--count", type=int, default=1)
            args = parser.parse_args(argv)
            if args.count < 0:
                parser.error("count must not be negative")
            return args.count
        ''',
    "tests/test_main.py": '''\
        import contextlib
        import io
        import unittest

        from cli.main import parse_args


        class TestParse(unittest.TestCase):
            def test_count(self):
                self.assertEqual(parse_args(["--count", "3"]), 3)

            def test_negative_count_exits(self):
                err = io.StringIO()
                with self.assertRaises(SystemExit) as caught, contextlib.redirect_stderr(err):
                    parse_args(["--count", "-1"])
                self.assertEqual(caught.exception.code, 2)
                self.assertIn("count must not be negative", err.getvalue())
        ''',
}


async def test_a_system_exit_of_the_code_reaches_the_test(tmp_path):
    """The code's ``SystemExit`` became the judge's own error, "the code under test raised
    builtins.SystemExit: 2", a failure of right code where plain pytest passed (python-slugify
    ``parse_args``: 2 tests caught it with ``assertRaises(SystemExit)``). It is raised in the
    test as plain pytest would see it (pytest, unittest and doctest report one that is not
    caught as the test's failure); a body that does not exit fails."""
    root = make(tmp_path / "cli", SYSTEM_EXIT)
    _, run = await review(root, "cli/main.py", "parse_args")
    assert [o.status for o in run.outcomes] == ["passed"] * 2, run.outcomes
    wrong = ("def parse_args(argv):\n    import argparse\n    parser = argparse.ArgumentParser()\n"
             "    parser.add_argument('--count', type=int, default=1)\n"
             "    return parser.parse_args(argv).count\n")
    _, run = await review(root, "cli/main.py", "parse_args", wrong)
    assert sorted(o.status for o in run.outcomes) == ["failed", "passed"], run.outcomes


# itsdangerous (survey 7): ``BadPayload`` keeps the error it caught as ``original_error``: a
# ``json.JSONDecodeError`` (which defines ``__reduce__``; configparser's errors define
# ``__repr__``); neither crossed, so neither did the ``BadPayload``: the test got a stand-in with its class
# and message only.
PAYLOAD_ERROR = {
    "pyproject.toml": "[project]\nname = 'payload'\nversion = '0'\n",
    "payload/__init__.py": "",
    "payload/core.py": '''\
        import configparser
        import json


        class BadPayload(Exception):
            def __init__(self, message, original_error=None):
                super().__init__(message)
                self.original_error = original_error


        def load(text):
            """The JSON value ``text`` holds (``=`` first: an INI text); ``BadPayload`` (with
            the error) when it is not one."""
            try:
                if text.startswith("="):
                    configparser.ConfigParser().read_string(text)
                return json.loads(text)
            except Exception as e:
                raise BadPayload("could not load the payload", original_error=e) from e
        ''',
    "tests/test_core.py": '''\
        import json

        import pytest

        from payload.core import BadPayload, load


        def test_load():
            assert load("[1]") == [1]


        def test_bad_ini_keeps_the_error():
            with pytest.raises(BadPayload) as caught:
                load("=x")
            assert caught.value.original_error is not None


        def test_bad_json_keeps_the_error():
            with pytest.raises(BadPayload) as caught:
                load("[1")
            assert isinstance(caught.value.original_error, json.JSONDecodeError)
            assert caught.value.original_error.pos == 2
        ''',
}


async def test_a_field_of_an_exception_that_crossed_by_its_name_only(tmp_path):
    """An exception that cannot cross reaches the test as a stand-in of its class and
    message: reading one of its fields raised ``AttributeError`` in the test, which failed
    where plain pytest passed (itsdangerous ``Serializer.loads``:
    ``test_bad_payload_exception``, the one *differ* of survey 7). The test that reads one
    (configparser's ``MissingSectionHeaderError`` does not cross) is "not judged"; json's ``JSONDecodeError`` crosses
    (its ``__reduce__`` reads only its fields: ``STATE_CLASSES``), and so does the
    ``BadPayload`` holding it; a body that raises nothing fails."""
    root = make(tmp_path / "payload", PAYLOAD_ERROR)
    _, run = await review(root, "payload/core.py", "load")
    assert [o.status for o in run.outcomes] == ["passed", "not judged", "passed"], run.outcomes
    assert "'original_error'" in run.outcomes[1].message, run.outcomes[1]
    wrong = "def load(text):\n    return [1]\n"
    _, run = await review(root, "payload/core.py", "load", wrong)
    assert [o.status for o in run.outcomes] == ["passed", "failed", "failed"], run.outcomes


# itsdangerous (survey 7): a ``Serializer`` keeps the ``json`` module as its ``serializer``
# (``default_serializer = json``); ``self`` goes to the code and comes back after each call.
MODULE_ATTRIBUTE = {
    "pyproject.toml": "[project]\nname = 'ser'\nversion = '0'\n",
    "ser/__init__.py": "",
    "ser/core.py": '''\
        import json


        class Serializer:
            default_serializer = json

            def __init__(self, serializer=None):
                self.serializer = serializer or self.default_serializer

            def loads(self, text):
                """The value ``text`` holds, by the serializer."""
                return self.serializer.loads(text)
        ''',
    "tests/test_core.py": '''\
        import json

        from ser.core import Serializer


        def test_loads():
            serializer = Serializer()
            assert serializer.loads("[1, 2]") == [1, 2]
            assert serializer.serializer is json
        ''',
}


async def test_a_module_the_test_sent_comes_back_as_itself(tmp_path):
    """A module crossed to the code (by name) but not back: ``self``, written back after the
    call, held ``json``, "the code under test sent what the judge does not rebuild (an object
    of builtins.module ...)" (itsdangerous: 105 tests of ``Serializer.loads`` and of
    ``iter_unsigners``). A module the judge sent comes back as the judge's own; one it did
    not send stays refused (tests/execution/test_pytest_subject_codec.py); a wrong body
    fails."""
    root = make(tmp_path / "ser", MODULE_ATTRIBUTE)
    _, run = await review(root, "ser/core.py", "Serializer.loads")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    wrong = "def loads(self, text):\n    return self.serializer.loads(text)[::-1]\n"
    _, run = await review(root, "ser/core.py", "Serializer.loads", wrong)
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# itsdangerous (survey 7): ``timed.py`` holds the class (``from datetime import datetime``),
# as do the tests; freezegun's ``freeze_time`` rebinds it there to ``FakeDatetime``, and the
# code's ``datetime.fromtimestamp`` returns one.
FROZEN_CLASS = {
    "pyproject.toml": "[project]\nname = 'stamps'\nversion = '0'\n",
    "stamps/__init__.py": "",
    "stamps/timed.py": '''\
        import time
        from datetime import datetime, timezone


        def to_datetime(ts):
            """The UTC datetime of the timestamp ``ts``."""
            return datetime.fromtimestamp(ts, tz=timezone.utc)


        def signed_at():
            return to_datetime(int(time.time()))
        ''',
    "tests/test_timed.py": '''\
        from datetime import datetime, timezone

        from freezegun import freeze_time

        from stamps.timed import signed_at


        def test_signed_at():
            ts = datetime(2011, 6, 24, 0, 9, 5, tzinfo=timezone.utc)
            with freeze_time(ts):
                assert signed_at() == ts
        ''',
}


async def test_a_fake_datetime_made_from_a_class_a_module_holds_crosses_back(tmp_path):
    """freezegun rebinds ``datetime`` in the project's module that holds the class; the
    ``FakeDatetime`` the code then made was "the code under test sent what the judge does
    not rebuild (an object of freezegun.api.FakeDatetime ...)" (itsdangerous: 83 of 84 tests
    of ``TimestampSigner.timestamp_to_datetime``, 70 of ``unsign``): only a patch of the
    ``datetime`` module itself was known. A subclass of a standard value type a test puts in
    place of it in any module crosses as that type's value; a wrong body fails."""
    pytest.importorskip("freezegun")
    root = make(tmp_path / "stamps", FROZEN_CLASS)
    _, run = await review(root, "stamps/timed.py", "to_datetime")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    wrong = ("def to_datetime(ts):\n"
             "    return datetime.fromtimestamp(ts + 1, tz=timezone.utc)\n")
    _, run = await review(root, "stamps/timed.py", "to_datetime", wrong)
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# docopt-ng (survey 7): ``docopt(doc)`` parses ``sys.argv[1:]``, which the tests set
# (``sys.argv = "prog -a".split()``, ``mock.patch("sys.argv", ...)`` in an autouse fixture).
ARGV = {
    "pyproject.toml": "[project]\nname = 'argv'\nversion = '0'\n",
    "argv/__init__.py": "",
    "argv/core.py": '''\
        import sys


        def options(argv=None):
            """The words of ``argv``, else of ``sys.argv[1:]``, that start with a dash."""
            return [a for a in (sys.argv[1:] if argv is None else argv) if a.startswith("-")]
        ''',
    "tests/test_core.py": '''\
        import sys
        from unittest import mock

        from argv.core import options


        def test_given():
            assert options(["x", "-a"]) == ["-a"]


        def test_sys_argv_set_by_the_test():
            saved = sys.argv
            try:
                sys.argv = "prog -a b".split()
                assert options() == ["-a"]
                sys.argv = "prog -b".split()
                assert options() == ["-b"]
            finally:
                sys.argv = saved


        def test_sys_argv_patched():
            with mock.patch("sys.argv", ["prog", "-c"]):
                assert options() == ["-c"]
        ''',
}


async def test_the_tests_sys_argv_is_the_codes(tmp_path):
    """The code read its own process's ``sys.argv``, not the one the test set: "DocoptExit:
    Warning: found unmatched (duplicate?) arguments [Argument(None, '20')]" for right code
    (docopt-ng ``docopt``: ``test_issue_65_evaluate_argv_when_called_not_when_imported``).
    The test's ``sys.argv`` goes with each call, as its environment does; a wrong body
    fails."""
    root = make(tmp_path / "argv", ARGV)
    _, run = await review(root, "argv/core.py", "options")
    assert [o.status for o in run.outcomes] == ["passed"] * 3, run.outcomes
    wrong = ("def options(argv=None):\n"
             "    return [a for a in (sys.argv[2:] if argv is None else argv) if a[0] == '-']\n")
    _, run = await review(root, "argv/core.py", "options", wrong)
    assert [o.status for o in run.outcomes] == ["passed", "failed", "failed"], run.outcomes


# Python-Markdown (survey 6): attr_list's ``isheader(elem)`` reads ``elem.tag`` of the test's
# ``xml.etree.ElementTree.Element``; tabulate (survey 5) a sqlite3 cursor's ``.description``.
ATTRIBUTES = {
    "pyproject.toml": "[project]\nname = 'tree'\nversion = '0'\n",
    "tree/__init__.py": "",
    "tree/core.py": '''\
        def isheader(elem):
            """Whether ``elem`` is a header element."""
            return elem.tag in ["h1", "h2", "h3"]


        def columns(cursor):
            return [column[0] for column in cursor.description]


        def label(box):
            return box.label


        def size(box):
            return box.size


        def cleared(elem):
            elem.attrib.clear()
            return elem.attrib
        ''',
    "tests/test_core.py": '''\
        import sqlite3
        import xml.etree.ElementTree as etree

        from tree.core import cleared, columns, isheader, label, size


        def test_isheader():
            assert isheader(etree.Element("h2"))
            assert not isheader(etree.Element("p"))


        def test_columns():
            cursor = sqlite3.connect(":memory:").execute("select 1 as a, 2 as b")
            assert columns(cursor) == ["a", "b"]


        def test_an_attribute_of_a_class_made_in_the_test():
            class Box:
                def __init__(self):
                    self.label = "first"

                @property
                def size(self):
                    return 3

            assert label(Box()) == "first"
            assert size(Box()) == 3


        def test_a_dict_attribute_changed_in_place():
            elem = etree.Element("p", {"id": "x"})
            cleared(elem)
            assert elem.attrib == {}
        ''',
}


async def test_an_attribute_the_tests_object_has_is_read_by_the_judge(tmp_path):
    """The code reading an attribute the test's object has (``elem.tag`` of an ``Element``,
    a cursor's ``description``, a value of the object's ``__dict__``) made the test "not
    judged": only absence was answered (Python-Markdown's ``isheader``, 46 tests). The judge
    reads it on its own object when that runs no Python code (a C getter or slot, a value of
    ``__dict__``) and answers it when it is data nothing changes in place; a property (code)
    or a dict (the code could change the test's object through it) stays "not judged"; a
    wrong body fails."""
    root = make(tmp_path / "tree", ATTRIBUTES)
    _, run = await review(root, "tree/core.py", "isheader")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "tree/core.py", "columns")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "tree/core.py", "label")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "tree/core.py", "size")
    assert [o.status for o in run.outcomes] == ["not judged"], run.outcomes
    assert ".size" in run.outcomes[0].message, run.outcomes
    _, run = await review(root, "tree/core.py", "cleared")
    assert [o.status for o in run.outcomes] == ["not judged"], run.outcomes
    assert ".attrib" in run.outcomes[0].message, run.outcomes
    wrong = 'def isheader(elem):\n    return elem.tag in ["h1", "h3"]\n'
    _, run = await review(root, "tree/core.py", "isheader", wrong)
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# glom (judge8): ``Check(default=RAISE)`` holds ``RAISE = make_sentinel()`` of
# ``glom.matching``, not of the module under test; ``Check.glomit`` compares ``self.default
# is not RAISE``.
OTHER_MODULE_SENTINEL = {
    "pyproject.toml": "[project]\nname = 'marks'\nversion = '0'\n",
    "marks/__init__.py": "",
    "marks/checks.py": '''\
        RAISE = object()


        class Check:
            def __init__(self, default=RAISE):
                self.default = default

            def apply(self, target):
                if target:
                    return target
                if self.default is not RAISE:
                    return self.default
                raise ValueError("failed check")
        ''',
    "marks/core.py": '''\
        def run(spec, target):
            """``spec`` applied to ``target``."""
            return spec.apply(target)
        ''',
    "tests/test_core.py": '''\
        import pytest

        from marks.checks import RAISE, Check
        from marks.core import run


        def test_raises():
            with pytest.raises(ValueError):
                run(Check(), 0)


        def test_default():
            assert run(Check(default=5), 0) == 5
            assert run(Check(), 7) == 7
            assert run(Check(default=RAISE), "x") == "x"
        ''',
}


async def test_a_sentinel_of_another_project_module_keeps_its_identity(tmp_path):
    """A sentinel of another project module (``RAISE = object()`` in ``checks.py``, held by
    the test's ``Check``) crossed by its state, a new ``object()``: the code's ``is not
    RAISE`` was true and right code **failed** ("DID NOT RAISE ValueError"; glom's
    ``Check``, found while rebuilding ``ChainMap``s: 33a5d3f). It crosses by module and
    name, the receiver's own; a wrong body fails."""
    root = make(tmp_path / "marks", OTHER_MODULE_SENTINEL)
    _, run = await review(root, "marks/core.py", "run")
    assert [o.status for o in run.outcomes] == ["passed", "passed"], run.outcomes
    wrong = "def run(spec, target):\n    return spec.default if not target else target\n"
    _, run = await review(root, "marks/core.py", "run", wrong)
    assert [o.status for o in run.outcomes] == ["failed", "passed"], run.outcomes


# Python-Markdown (survey 6): ``testManyHeadersWithSameText`` calls ``toc.slugify`` 10,000
# times; each call costs the code's process bookkeeping (decoding, the logging levels and
# module state it compares before and after) that grows with the project, here its loggers.
MANY_CALLS = {
    "pyproject.toml": "[project]\nname = 'many'\nversion = '0'\n",
    "many/__init__.py": '''\
        import logging

        LOGGERS = [logging.getLogger(f"many.part{i}") for i in range(10000)]
        ''',
    "many/core.py": '''\
        def slug(text):
            """``text`` in lower case."""
            return text.lower()
        ''',
    "tests/test_core.py": '''\
        from many.core import slug


        def test_many_calls():
            for _ in range(800):
                assert slug("Header") == "header"
        ''',
}


async def test_many_calls_of_right_code_are_no_timeout(tmp_path):
    """The code's process may use the test's CPU limit plus ``CROSSING_SHARE`` times what the
    judge spends crossing the calls; only the judge's encoding and decoding counted there (0.19
    CPU seconds for 1,000 calls here, while the code's process spent 7.3 on its bookkeeping
    and the judge 3.9 on its side of them): right code was a "timeout" ("the code used 3.4 CPU
    seconds in this test ..., over its limit of 1"). The judge's whole side of each call
    counts now: a pass, or "not judged" when the machine is too busy, never a timeout."""
    root = make(tmp_path / "many", MANY_CALLS)
    _, run = await review(root, "many/core.py", "slug", policy=SPIN_POLICY)
    (outcome,) = run.outcomes
    assert outcome.status == "passed" or (
        outcome.status == "not judged" and "too busy" in outcome.message), outcome


# natsort: a fixture sets the locale (locale.setlocale(LC_ALL, "en_US.UTF-8")) and the code
# sorts by it (localeconv()'s separators, strxfrm). The locale is one per process: the code's
# process kept its own, and right code failed (4 tests each of natsort_keygen and natsorted).
LOCALES = {
    "pyproject.toml": "[project]\nname = 'marks'\nversion = '0'\n",
    "marks/__init__.py": "",
    "marks/core.py": '''\
        import locale


        def decimal_mark():
            """The current locale's decimal point."""
            return locale.localeconv()["decimal_point"]


        def numeric_locale():
            """The name of the current locale's LC_NUMERIC category."""
            return locale.setlocale(locale.LC_NUMERIC)


        def use_numeric(name):
            """Set the LC_NUMERIC category to ``name``."""
            locale.setlocale(locale.LC_NUMERIC, name)
        ''',
    "tests/test_core.py": '''\
        import locale

        import pytest

        from marks.core import decimal_mark, numeric_locale, use_numeric


        @pytest.fixture()
        def german():
            before = locale.setlocale(locale.LC_ALL)
            try:
                locale.setlocale(locale.LC_ALL, "de_DE.UTF-8")
            except locale.Error:
                pytest.skip("no de_DE.UTF-8 locale here")
            yield
            locale.setlocale(locale.LC_ALL, before)


        def test_the_tests_locale(german):
            assert decimal_mark() == ","


        def test_the_tests_numeric_category():
            locale.setlocale(locale.LC_NUMERIC, "C.UTF-8")
            try:
                assert numeric_locale() == "C.UTF-8"
            finally:
                locale.setlocale(locale.LC_NUMERIC, "C")


        def test_the_codes_numeric_category():
            use_numeric("C.UTF-8")
            try:
                assert locale.setlocale(locale.LC_NUMERIC) == "C.UTF-8"
            finally:
                locale.setlocale(locale.LC_NUMERIC, "C")
        ''',
}


async def test_the_locale_is_the_tests_and_the_codes(tmp_path):
    """The test's locale is the code's for each call and the locale the code sets is the
    test's, as in one process (a shared state of :data:`pytest_subject.SHARED_STATES`, like
    the decimal context): right code failed each of these tests."""
    import locale

    root = make(tmp_path / "marks", LOCALES)
    try:
        before = locale.setlocale(locale.LC_ALL, None)
        locale.setlocale(locale.LC_ALL, "de_DE.UTF-8")
        locale.setlocale(locale.LC_ALL, before)
        german = True
    except locale.Error:  # (the judge skips that test too)
        german = False
    _, run = await review(root, "marks/core.py", "decimal_mark")
    assert [o.status for o in run.outcomes] == ["passed" if german else "skipped"]
    _, run = await review(root, "marks/core.py", "decimal_mark", "def decimal_mark():\n"
                          "    return '.'\n")
    assert [o.status for o in run.outcomes] == ["failed" if german else "skipped"]
    for name in ("numeric_locale", "use_numeric"):
        _, run = await review(root, "marks/core.py", name)
        assert [o.status for o in run.outcomes] == ["passed"], (name, run.outcomes)
    _, run = await review(root, "marks/core.py", "use_numeric", "def use_numeric(name):\n"
                          "    pass\n")
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# jmespath: Parser runs list(Lexer().tokenize(expression)), a generator method whose body warns
# (PendingDeprecationWarning for a deprecated literal) during a next(). The subject took the
# warning machinery of pytest's catch_warnings in the judge (warnings._showwarnmsg_impl, a
# module global of a library the project holds) outside a call and called it with the
# WarningMessage: "not judged (an object of warnings.WarningMessage ...)", and the next test
# failed with "a malformed message" (7 + 4 tests of Lexer.tokenize).
WARNING_GENERATOR = {
    "pyproject.toml": "[project]\nname = 'lexp'\nversion = '0'\n",
    "lexp/__init__.py": "",
    "lexp/core.py": '''\
        import warnings


        class Lexer:
            def tokenize(self, text):
                """The words of ``text``, one at a time (a word in quotes: deprecated)."""
                for word in text.split():
                    if word.startswith("'"):
                        warnings.warn("quoted words are deprecated", PendingDeprecationWarning)
                        word = word.strip("'")
                    yield word


        def parse(text):
            return list(Lexer().tokenize(text))
        ''',
    "tests/test_core.py": '''\
        import pytest

        from lexp.core import parse


        def test_quoted():
            assert parse("a 'b' c") == ["a", "b", "c"]


        def test_quoted_warns():
            with pytest.warns(PendingDeprecationWarning, match="quoted"):
                parse("'b'")


        def test_plain():
            assert parse("x y") == ["x", "y"]
        ''',
}


async def test_a_warning_of_a_generators_next_reaches_the_test(tmp_path):
    """A ``next()`` of the code's generator (and a call of any handle of the code's) runs
    under the test's warning filters with its warnings sent back, as a call does."""
    root = make(tmp_path / "lexp", WARNING_GENERATOR)
    _, run = await review(root, "lexp/core.py", "Lexer.tokenize")
    assert [o.status for o in run.outcomes] == ["passed"] * 3, run.outcomes
    quiet = ("def tokenize(self, text):\n    for word in text.split():\n"
             "        yield word.strip(\"'\")\n")
    _, run = await review(root, "lexp/core.py", "Lexer.tokenize", quiet)
    assert [o.status for o in run.outcomes] == ["passed", "failed", "passed"], run.outcomes


# natsort: property tests under hypothesis's deadline (200 ms of wall-clock time per example).
# In the judge each call of the code crosses to the code's process: right code that calls the
# function many times per example went over it and "failed" (DeadlineExceeded, or FlakyFailure
# "Unreliable test timings"; 9 tests of fast_float, sep_inserter and groupletters).
DEADLINE = {
    "pyproject.toml": "[project]\nname = 'props'\nversion = '0'\n",
    "props/__init__.py": "",
    "props/core.py": '''\
        def double(x):
            """``2 * x``."""
            return x * 2
        ''',
    "tests/test_core.py": '''\
        from datetime import timedelta

        from hypothesis import given, settings, strategies as st

        from props.core import double


        @settings(deadline=timedelta(milliseconds=2), max_examples=5, database=None)
        @given(st.integers())
        def test_double_many_times(x):
            for _ in range(50):
                assert double(x) == x + x
        ''',
}


async def test_a_hypothesis_deadline_the_crossing_exceeds_is_not_judged(tmp_path):
    """A failure that is hypothesis's deadline only is "not judged" (the judge's crossing and a
    busy machine count in it); a failed assertion stays a failure."""
    pytest.importorskip("hypothesis")
    root = make(tmp_path / "props", DEADLINE)
    _, run = await review(root, "props/core.py", "double")
    (outcome,) = run.outcomes
    assert outcome.status == "passed" or outcome.status == "not judged" and (
        "deadline" in outcome.message or outcome.message.startswith("the machine was too busy")
    ), outcome  # (passed: a machine fast enough)
    _, run = await review(root, "props/core.py", "double", "def double(x):\n    return x * 3\n")
    (outcome,) = run.outcomes
    assert outcome.status == "failed", outcome


# mistune: a test timing its own run (``start = perf_counter(); ...; assertLess(perf_counter() -
# start, 2.0)``). Each call crosses to the code's process, time plain pytest's run does not
# spend: right code "failed" on a busy machine (BlockState.depth: 2.56 s at load 15).
TIMED = {
    "pyproject.toml": "[project]\nname = 'timed'\nversion = '0'\n",
    "timed/__init__.py": "",
    "timed/core.py": '''\
        def depth(x):
            """``x + 1``."""
            return x + 1
        ''',
    "tests/test_core.py": '''\
        import time
        import unittest
        from time import perf_counter

        from timed.core import depth


        class TestSpeed(unittest.TestCase):
            def test_calls_are_fast(self):
                start = perf_counter()
                for i in range(1000):
                    depth(i)
                self.assertLess(perf_counter() - start, 0.005)  # local calls: about 0.1 ms


        def test_values_timed():
            start = time.monotonic()
            assert [depth(i) for i in range(3)] == [1, 2, 3]
            assert time.monotonic() - start < 60
        ''',
}


async def test_a_test_timing_its_calls_fails_not_judged_and_wrong_values_fail(tmp_path):
    """A failed assertion of a test that read a clock before and after calls that crossed
    (1,000 crossings take more than 5 ms) is "not judged"; a failure on a value before its
    second read stays a failure, whatever clocks the code reads in its own process."""
    root = make(tmp_path / "timed", TIMED)
    _, run = await review(root, "timed/core.py", "depth")
    outcomes = by_name(run)
    timed = outcomes["test_calls_are_fast"]
    assert timed.status == "not judged" and timed.message.startswith(
        "the test measures its own run time (2 reads of time.perf_counter) and each of the "
        "1000 call(s)"), timed
    assert outcomes["test_values_timed"].status == "passed", outcomes
    wrong = "def depth(x):\n    import time\n    time.perf_counter()\n    return x\n"
    _, run = await review(root, "timed/core.py", "depth", wrong)
    outcomes = by_name(run)
    assert outcomes["test_calls_are_fast"].status == "not judged", outcomes
    assert outcomes["test_values_timed"].status == "failed", outcomes


# jmespath (with the warnings of a generator's next() sent to the judge's function, fixed
# above): a generator of the code that calls the test's function with a value the judge does
# not rebuild. The test is "not judged", but the subject still waited for the callback's
# answer and took the next test's request for it: that test "failed: a malformed message".
CALLBACK_OF_A_GENERATOR = {
    "pyproject.toml": "[project]\nname = 'told'\nversion = '0'\n",
    "told/__init__.py": "",
    "told/core.py": '''\
        import array


        def each(items, seen):
            """Each of ``items``, after ``seen`` was told of it (in an array: a C class's
            object, which cannot cross)."""
            for item in items:
                seen(array.array("i", [item]))
                yield item
        ''',
    "tests/test_core.py": '''\
        from told.core import each


        def test_told():
            told = []
            assert list(each([1, 2], told.append)) == [1, 2]
            assert len(told) == 2


        def test_none_told():
            assert list(each([], print)) == []
        ''',
}


async def test_a_value_not_rebuilt_in_a_generators_callback_leaves_no_call_behind(tmp_path):
    """The subject is ended when the judge cannot rebuild what it sent (it may wait for an
    answer); a fresh one runs the next test."""
    root = make(tmp_path / "told", CALLBACK_OF_A_GENERATOR)
    _, run = await review(root, "told/core.py", "each")
    assert [o.status for o in run.outcomes] == ["not judged", "passed"], run.outcomes


# isodate: test_date.py parametrizes over a *set* of tuples, one holding None; pytest names a
# date parameter by its position (expected0, expected1, ...). hash(None) is None's address,
# which address space randomisation changes from one process to the next (PYTHONHASHSEED=0
# does not fix it): the judged session collected the tests under other ids than the
# selection's, "not judged (collected under another id)" for 25 tests of parse_date and
# date_isoformat each.
SET_OF_CASES = {
    "pyproject.toml": "[project]\nname = 'dates'\nversion = '0'\n",
    "dates/__init__.py": "",
    "dates/core.py": '''\
        from datetime import date


        def parse_year(text):
            """January 1st of the year ``text`` names, or None for text that is no year."""
            return date(int(text), 1, 1) if text.isdigit() else None
        ''',
    "tests/test_core.py": '''\
        from datetime import date

        import pytest

        from dates.core import parse_year

        CASES = {(str(year), date(year, 1, 1)) for year in range(1990, 2000)} | {
            (f"y{year}", None) for year in range(1990, 2000)}


        @pytest.mark.parametrize("text, expected", CASES)
        def test_parse_year(text, expected):
            assert parse_year(text) == expected
        ''',
}


async def test_tests_parametrized_over_a_set_holding_none_keep_their_ids(tmp_path):
    """The sandbox starts its command without address space randomisation (``setarch
    -R``): the judged session's ids are the selection's, each test judged."""
    root = make(tmp_path / "dates", SET_OF_CASES)
    _, run = await review(root, "dates/core.py", "parse_year")
    assert len(run.outcomes) == 20
    assert [o.status for o in run.outcomes] == ["passed"] * 20, [
        (o.test_id, o.status, o.message) for o in run.outcomes if o.status != "passed"]


# natsort: mocker.patch("natsort.compat.locale.dumb_sort", return_value=...) puts the test's
# mock into a project module the code calls. In the code's process the judge's own look at the
# module's data (module_state: isinstance(value, type), _sentinel_like's isinstance) asked the
# mock's handle for its __class__, which counts as the code's use of the test's object: "not
# judged (unittest.mock.MagicMock: its class)" for every later test (22 of natsort's tests).
MOCKED_GLOBAL = {
    "pyproject.toml": "[project]\nname = 'mk'\nversion = '0'\n",
    "mk/__init__.py": "",
    "mk/compat.py": '''\
        def dumb():
            """Whether the platform's sort is dumb."""
            return False
        ''',
    "mk/core.py": '''\
        import mk.compat


        def keygen(flag):
            """A key, dumb or not."""
            if flag and mk.compat.dumb():
                return "dumb"
            return "smart"
        ''',
    "tests/test_core.py": '''\
        from unittest import mock

        from mk.core import keygen


        def test_first():
            with mock.patch("mk.compat.dumb", return_value=True):
                assert keygen(True) == "dumb"


        def test_dumb():
            with mock.patch("mk.compat.dumb", return_value=True):
                assert keygen(True) == "dumb"


        def test_smart():
            with mock.patch("mk.compat.dumb", return_value=False):
                assert keygen(True) == "smart"
        ''',
}


async def test_the_judges_look_at_module_data_asks_no_mock_for_its_class(tmp_path):
    """The subject's look at the modules' data reads a handle's class with ``type()`` only;
    the test's mock in the module is the code's (its first test: the next test below)."""
    root = make(tmp_path / "mk", MOCKED_GLOBAL)
    _, run = await review(root, "mk/core.py", "keygen")
    assert [o.status for o in run.outcomes][1:] == ["passed", "passed"], run.outcomes
    assert run.outcomes[0].status in ("not judged", "passed"), run.outcomes[0]
    _, run = await review(root, "mk/core.py", "keygen", "def keygen(flag):\n"
                          "    return 'smart'\n")
    assert [o.status for o in run.outcomes][1:] == ["failed", "passed"], run.outcomes


# survey8 (a shape of its own, not a project's): the code yields a library's object whose class
# no module names (threading.Lock() is of _thread.lock; _thread has no "lock"): the judge said
# "(an object of _thread.lock, a class made at run time ...)", the code's doing, an error, where
# plain pytest passes. Only a class defined in Python (by the code, at run time) is the code's.
LIBRARY_LOCK = {
    "pyproject.toml": "[project]\nname = 'locks'\nversion = '0'\n",
    "locks/__init__.py": "",
    "locks/core.py": '''\
        import threading


        def tok(text):
            """One lock per token."""
            yield threading.Lock()
        ''',
    "tests/test_core.py": '''\
        from locks.core import tok


        def test_one_lock():
            assert len(list(tok(""))) == 1
        ''',
}


async def test_a_library_object_of_a_class_no_module_names_is_not_the_codes_error(tmp_path):
    """A C class no module holds under its name (``_thread.lock``) is not "a class made at run
    time": the value does not cross, the test is "not judged" (plain pytest: passed); a class
    the code makes with ``type()`` stays the code's error."""
    root = make(tmp_path / "locks", LIBRARY_LOCK)
    _, run = await review(root, "locks/core.py", "tok")
    (outcome,) = run.outcomes
    assert outcome.status == "not judged" and "_thread.lock" in outcome.message, outcome
    _, run = await review(root, "locks/core.py", "tok", "def tok(text):\n"
                          "    yield type('lock', (), {})()\n")
    (outcome,) = run.outcomes
    assert outcome.status == "error" and "made at run time" in outcome.message, outcome


# python-slugify 9.2.0 (judge9's survey): a test puts a mock into the module's import_module
# whose side effect raises ModuleNotFoundError(name="unidecode"); the code falls back only when
# the error names that module (error.name). An ImportError's name and path are no arguments of
# it: they did not cross, error.name was None, the code raised it on, and right code failed.
IMPORT_ERROR_NAME = {
    "pyproject.toml": "[project]\nname = 'translit'\nversion = '0'\n",
    "translit/__init__.py": "",
    "translit/core.py": '''\
        from importlib import import_module


        def backend():
            """The name of the first transliteration module that imports."""
            try:
                return import_module("unidecode").__name__
            except ModuleNotFoundError as error:
                if error.name != "unidecode":
                    raise
                return import_module("string").__name__


        def missing(name):
            """Raise the error of importing ``name``, which is missing."""
            raise ModuleNotFoundError(f"No module named {name!r}", name=name, path="/nowhere")
        ''',
    "tests/test_core.py": '''\
        from unittest import mock

        import pytest

        from translit import core


        def test_falls_back_when_unidecode_is_missing():
            original = core.import_module

            def load(name):
                if name == "unidecode":
                    raise ModuleNotFoundError(name=name)
                return original(name)

            with mock.patch.object(core, "import_module", side_effect=load):
                assert core.backend() == "string"


        def test_the_error_names_the_module():
            with pytest.raises(ModuleNotFoundError) as caught:
                core.missing("six")
            assert (caught.value.name, caught.value.path) == ("six", "/nowhere")
        ''',
}


async def test_an_import_errors_name_and_path_cross_both_ways(tmp_path):
    """``ImportError.name`` and ``.path`` (fields of its builtin set by keyword, not in
    ``args``) cross with the exception, from the test's callback to the code and back."""
    root = make(tmp_path / "translit", IMPORT_ERROR_NAME)
    _, run = await review(root, "translit/core.py", "backend")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "translit/core.py", "missing")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "translit/core.py", "missing", "def missing(name):\n"
                          "    raise ModuleNotFoundError(name, name=name, path='/else')\n")
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# python-slugify 9.2.0 (judge9's survey, after brk10's guards): test_readme_examples runs each
# python block of README.md, exec(compile(block, "README.md", "exec"), {}); the blocks hold the
# slugs the code returns ("this-is-a-test") as their expected values. README.md holds more than
# the block, so it counted as text made in the run holding the code's text: "not judged" (2
# tests). A block that is a piece of a project file no one changed since the judge started is
# that file's text, not the code's.
README_BLOCKS = {
    "pyproject.toml": "[project]\nname = 'slugs'\nversion = '0'\n",
    "README.md": '''\
        # slugs

        ```python
        from slugs.core import slug
        assert slug("Hello World") == "hello-world"
        ```

        More text.
        ''',
    "slugs/__init__.py": "",
    "slugs/core.py": '''\
        def slug(text):
            """``text`` lower case, words joined by hyphens."""
            return "-".join(text.lower().split())
        ''',
    "tests/test_core.py": '''\
        import re
        from pathlib import Path

        from slugs.core import slug


        def test_slug():
            assert slug("Hello World") == "hello-world"


        def test_readme_examples():
            readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
            for block in re.findall(r"```python\\n(.*?)```", readme, flags=re.DOTALL):
                exec(compile(block, "README.md", "exec"), {})
        ''',
}


async def test_a_readme_block_compiled_under_the_readmes_name_is_judged(tmp_path):
    """Text compiled under the name of a project file that holds it (a piece of it), the file
    unchanged since the judge started, is the file's: judged, even when it holds what the
    code returned. The code's text compiled under the name of a file not holding it stays
    refused (test_written_text_attacks.py)."""
    root = make(tmp_path / "slugs", README_BLOCKS)
    _, run = await review(root, "slugs/core.py", "slug")
    assert [o.status for o in run.outcomes] == ["passed", "passed"], run.outcomes
    _, run = await review(root, "slugs/core.py", "slug", "def slug(text):\n"
                          "    return '_'.join(text.lower().split())\n")
    assert [o.status for o in run.outcomes] == ["failed", "failed"], run.outcomes


# docopt-ng 0.9.0 (judge9's survey, after brk10's guards): docopt's docstring example sets
# doc = '''Usage: my_program tcp <host> ...''' after the project's tests ran, in which the code
# returned (in DocoptExit's usage) text that this example's source holds: doctest's compile of
# the example counted as running the code's text, "not judged", and the next example, which
# uses doc, failed (NameError), where plain doctest passes both.
USAGE_DOC = {
    "pyproject.toml": "[project]\nname = 'cli'\nversion = '0'\n",
    "cli/__init__.py": "",
    "cli/core.py": '''\
        def usage(name):
            """The usage line of ``name``.

            >>> doc = """
            ... Usage: prog run fast
            ... """
            >>> usage("prog run fast") in doc
            True
            """
            return "Usage: " + name
        '''.replace('"""\n            ...', "'''\n            ...").replace(
            '... """', "... '''"),
    "tests/test_core.py": '''\
        from cli.core import usage


        def test_usage():
            assert usage("prog run fast") == "Usage: prog run fast"
        ''',
}


async def test_a_docstring_example_holding_what_the_code_returned_is_judged(tmp_path):
    """A doctest example's source collected by pytest (before the code ran) is the user's
    text, whatever the code returned since: doctest's compile of it is judged."""
    root = make(tmp_path / "cli", USAGE_DOC)
    _, run = await review(root, "cli/core.py", "usage")
    assert [o.status for o in run.outcomes] == ["passed"] * 3, run.outcomes
    _, run = await review(root, "cli/core.py", "usage", "def usage(name):\n"
                          "    return 'usage: ' + name\n")
    assert [o.status for o in run.outcomes] == ["passed", "failed", "failed"], run.outcomes


async def test_a_mock_put_into_a_project_module_the_code_has_not_imported_yet(tmp_path):
    """survey8's first test of MOCKED_GLOBAL, "not judged (the arguments: the global 'dumb'
    of 'mk.compat')": the judge indexes the project modules' sentinels (which cross by name)
    at its first call, in the test, while the mock was in place: the mock was sent by name,
    as ``mk.compat.dumb``, which the code's process has as the real function. Only values
    the module held when the tests were collected are indexed; the mock crosses as itself."""
    root = make(tmp_path / "mk", MOCKED_GLOBAL)
    _, run = await review(root, "mk/core.py", "keygen")
    assert [o.status for o in run.outcomes] == ["passed"] * 3, run.outcomes
    _, run = await review(root, "mk/core.py", "keygen", "def keygen(flag):\n"
                          "    return 'smart'\n")
    assert [o.status for o in run.outcomes] == ["failed", "failed", "passed"], run.outcomes


# click 8.5.1 (survey9): pyproject.toml's [tool.tox] section runs "pytest --numprocesses=auto";
# codeteam read that as the project's addopts asking xdist for workers and added -n0, which
# pytest refuses where xdist is not loaded ("unrecognized arguments: -n0"): no test of the
# project was run, 965 tests of 10 functions silently left out. Here xdist is kept out by the
# project's own addopts (-p no:xdist), as in a project whose environment lacks it.
TOX_IN_PYPROJECT = {
    "pyproject.toml": """\
        [project]
        name = "opts"
        version = "0"

        [tool.pytest.ini_options]
        testpaths = ["tests"]
        addopts = "-p no:xdist -m 'not stress'"
        markers = ["stress: long tests"]

        [tool.tox.env.py-random]
        commands = [["pytest", "-v", "--numprocesses=auto"]]
        """,
    "opts/__init__.py": "",
    "opts/core.py": '''\
        def split_opt(opt):
            """``("-", "f")`` for ``"-f"``."""
            first = opt[:1]
            if first.isalnum():
                return "", opt
            if opt[1:2] == first:
                return opt[:2], opt[2:]
            return first, opt[1:]
        ''',
    "tests/test_core.py": '''\
        import pytest
        from opts.core import split_opt


        def test_short():
            assert split_opt("-f") == ("-", "f")


        @pytest.mark.stress
        def test_stress():
            assert split_opt("--foo") == ("--", "foo")
        ''',
}


async def test_xdist_options_of_another_tools_section_are_not_addopts(tmp_path):
    """Only pytest's ``addopts`` say the project distributes its tests (then the runs add
    ``-n0``); a tox section naming ``--numprocesses`` does not (before: the selection's pytest
    exited "unrecognized arguments: -n0", and no project test was run)."""
    root = make(tmp_path / "opts", TOX_IN_PYPROJECT)
    _, run = await review(root, "opts/core.py", "split_opt")
    assert [(o.test_id, o.status) for o in run.outcomes] == [
        ("tests/test_core.py::test_short", "passed")], run.outcomes
    _, run = await review(root, "opts/core.py", "split_opt", "def split_opt(opt):\n"
                          "    return None\n")
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# backoff 2.2.1 (survey9): wait generators are primed with next() and then driven by
# ``wait.send(None)`` (backoff._common._next_wait). The code's generator in the test had no
# send ("'RemoteIterator' object has no attribute 'send'": right code failed 80 tests of expo),
# and the code calling send on the test's generator made the test "not judged" (106 tests of
# _next_wait).
SENT_GENERATORS = {
    "pyproject.toml": "[project]\nname = 'waits'\nversion = '0'\n",
    "waits/__init__.py": "",
    "waits/core.py": '''\
        def expo(base=2):
            """Waits ``1, base, base**2...``, primed by a first ``send(None)``."""
            yield
            n = 0
            while True:
                received = yield base ** n
                n += 1 if received is None else received


        def next_wait(wait, value):
            """The next wait of generator ``wait``, sent ``value``."""
            return wait.send(value) * 10
        ''',
    "tests/test_core.py": '''\
        import pytest
        from waits.core import expo, next_wait


        def test_expo_sent_none_and_steps():
            gen = expo()
            gen.send(None)
            assert [gen.send(None), gen.send(None), gen.send(2), gen.send(None)] == [1, 2, 8, 16]


        def test_a_plain_iterator_has_no_send():
            with pytest.raises(AttributeError):
                next_wait(iter([1, 2]), None)


        def test_next_wait_sends_to_the_tests_generator():
            seen = []

            def waits():
                yield
                while True:
                    seen.append((yield len(seen)))

            gen = waits()
            next(gen)
            assert [next_wait(gen, "a"), next_wait(gen, "b")] == [0, 10]
            assert seen == ["b"]  # (the first send resumes the bare yield)
        ''',
}


async def test_a_generators_send_crosses_both_ways(tmp_path):
    """``send(value)`` of the code's generator (in the test) and of the test's generator (in
    the code) crosses as a ``next`` with the value; a plain iterator still has none."""
    root = make(tmp_path / "waits", SENT_GENERATORS)
    _, run = await review(root, "waits/core.py", "expo")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "waits/core.py", "expo", "def expo(base=2):\n"
                          "    yield\n    n = 0\n    while True:\n"
                          "        yield base ** n\n        n += 1\n")
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes  # ignores what is sent
    _, run = await review(root, "waits/core.py", "next_wait")
    assert [o.status for o in run.outcomes] == ["passed", "passed"], run.outcomes
    _, run = await review(root, "waits/core.py", "next_wait", "def next_wait(wait, value):\n"
                          "    return next(wait) * 10\n")
    assert [o.status for o in run.outcomes] == ["failed", "failed"], run.outcomes


# backoff 2.2.1 (survey9): tests/common.py's ``_save_target`` sets ``f._target = f`` on the
# test's async function given to the decorator. The judge describing a callable it sends
# (its attributes, each checked by encoding it) went round the cycle, raising the recursion
# limit at each turn until the C stack overflowed: the pytest process died (SIGSEGV) and that
# test and every later one were errors (16 tests of retry_exception, 16 of _call_handlers).
SELF_REFERENCE = {
    "pyproject.toml": "[project]\nname = 'hooks'\nversion = '0'\n",
    "hooks/__init__.py": "",
    "hooks/core.py": '''\
        def apply(func, x):
            """``func(x) + 1``."""
            return func(x) + 1
        ''',
    "tests/test_core.py": '''\
        from hooks.core import apply


        def _save_target(f):
            f._target = f
            return f


        def test_a_callback_holding_itself():
            @_save_target
            def double(x):
                return 2 * x

            assert apply(double, 3) == 7
        ''',
}


async def test_a_callback_whose_attributes_lead_back_to_it(tmp_path):
    """A callable the judge sends is described once however its attributes lead back to it
    (before: the pytest process died, SIGSEGV)."""
    root = make(tmp_path / "hooks", SELF_REFERENCE)
    _, run = await review(root, "hooks/core.py", "apply")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "hooks/core.py", "apply", "def apply(func, x):\n"
                          "    return func(x)\n")
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# A chain of the test's functions linked by attributes (``f.following = g``): the judge
# described each callback's attributes by trying to encode them (``_sendable``), each trial
# describing the rest of the chain again (2 ** length encodings) and raising the recursion
# limit again (``_deep``) at each nested one: 3,000 long, the pytest process ended (exit
# status 1) or the test used its 20 CPU seconds in the judge ("timeout" for right code).
def chain(length):
    return dict(SELF_REFERENCE, **{
        "tests/test_core.py": f'''\
            from hooks.core import apply


            def test_a_chain_of_callbacks():
                steps = []
                for n in range({length}):
                    def step(x, n=n):
                        return x + n
                    steps.append(step)
                for i in range(len(steps) - 1):
                    steps[i].following = steps[i + 1]
                assert apply(steps[1], 3) == 5
                assert apply(steps[0].following.following, 3) == 6


            def test_after_it():
                assert apply(abs, -3) == 4
            '''})


@pytest.mark.parametrize("length", [40, 3000])
async def test_a_long_chain_of_callbacks_does_not_end_the_judge(tmp_path, length):
    """40 long, the chain crosses (before: a timeout, 20 CPU seconds in the judge); 3,000
    long, the test is "not judged" with the reason, and the test after it is judged."""
    root = make(tmp_path / "hooks", chain(length))
    _, run = await review(root, "hooks/core.py", "apply")
    first, after = run.outcomes
    assert after.status == "passed", run.outcomes
    if length < 100:
        assert first.status == "passed", run.outcomes
    else:
        assert first.status == "not judged", run.outcomes
        assert "could not cross" in first.message and "nested too deeply" in first.message
    _, run = await review(root, "hooks/core.py", "apply", "def apply(func, x):\n"
                          "    return func(x)\n")
    first, after = run.outcomes
    assert after.status == "failed", run.outcomes
    assert first.status == ("failed" if length < 100 else "not judged"), run.outcomes


# backoff 2.2.1 (survey9): test_event_log_levels sets caplog.at_level(DEBUG, logger="backoff")
# and counts the DEBUG records the project's retry loop logs after each call of the judged
# jitter. The logger is a module global of the project: the subject had it at the test's
# level for the call, put its own level back after it, and then compared the levels, so it
# reported the logger set to NOTSET "by the code", which the judge took over: no DEBUG
# record after the first call (right code failed 18 tests of full_jitter, "assert 0 == 2").
LOGGER_LEVEL = {
    "pyproject.toml": "[project]\nname = 'lg'\nversion = '0'\n",
    "lg/__init__.py": "",
    "lg/core.py": '''\
        import logging

        logger = logging.getLogger("lg")


        def jitter(value):
            """``value`` as it is."""
            return value


        def retry():
            for n in range(3):
                logger.debug("backing off %s", jitter(n))
        ''',
    "tests/test_core.py": '''\
        import logging

        from lg.core import retry


        def test_debug_records_of_each_try(caplog):
            with caplog.at_level(logging.DEBUG, logger="lg"):
                retry()
                assert logging.getLogger("lg").level == logging.DEBUG
            assert [r.getMessage() for r in caplog.records] == [
                "backing off 0", "backing off 1", "backing off 2"]
        ''',
}


async def test_a_module_loggers_level_set_by_the_test_stays_the_tests(tmp_path):
    """The levels the code set are compared before the subject puts back its own module
    data: a logger a module holds keeps the level the test gave it."""
    root = make(tmp_path / "lg", LOGGER_LEVEL)
    _, run = await review(root, "lg/core.py", "jitter")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "lg/core.py", "jitter", "def jitter(value):\n"
                          "    return value + 1\n")
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# backoff 2.2.1 (survey9): test_on_exception's decorated function appends to the list it is
# given and raises; the decorator's retry loop (the code) calls it again until the list is
# long enough. The test's function changed the list in the judge, but the code's copy of it
# was never updated after a callback: the loop never ended (expo's waits overflowed a float:
# right code failed 19 tests of on_exception, "int too large to convert to float").
CALLBACK_CHANGES = {
    "pyproject.toml": "[project]\nname = 'again'\nversion = '0'\n",
    "again/__init__.py": "",
    "again/core.py": '''\
        def retry(func, log, tries=10):
            """Call ``func(log)`` until it returns, at most ``tries`` times."""
            for _ in range(tries):
                try:
                    return func(log), len(log)
                except KeyError:
                    continue
            return None, len(log)
        ''',
    "tests/test_core.py": '''\
        from again.core import retry


        def test_a_callback_that_appends_then_raises():
            def flaky(log):
                if len(log) == 2:
                    return True
                log.append(KeyError())
                raise log[-1]

            log = []
            assert retry(flaky, log) == (True, 2)
            assert len(log) == 2


        def test_a_callback_that_appends_and_returns():
            assert retry(lambda log: log.append(1) or len(log), []) == (1, 1)
        ''',
}


async def test_what_a_callback_changes_in_its_arguments_reaches_the_code(tmp_path):
    """A callback's arguments cross back with its answer, returned or raised, as a call's
    do: the code's copies are updated in place."""
    root = make(tmp_path / "again", CALLBACK_CHANGES)
    _, run = await review(root, "again/core.py", "retry")
    assert [o.status for o in run.outcomes] == ["passed", "passed"], run.outcomes
    _, run = await review(root, "again/core.py", "retry", "def retry(func, log, tries=10):\n"
                          "    return func(log), 0\n")
    assert [o.status for o in run.outcomes] == ["failed", "failed"], run.outcomes


# backoff 2.2.1 (survey9): the default handler _log_backoff(details, logger, log_level) reads
# sys.exc_info() to log the exception being handled (it is called from the retry loop's
# except block); in the code's process no exception was being handled: it read
# details['value'] instead (KeyError: right code failed 63 tests of _log_backoff).
HANDLED = {
    "pyproject.toml": "[project]\nname = 'handled'\nversion = '0'\n",
    "handled/__init__.py": "",
    "handled/core.py": '''\
        import sys


        def describe(details):
            """The exception being handled, else ``details['value']``."""
            exc = sys.exc_info()[1]
            return repr(exc) if exc is not None else details["value"]


        def retry(func):
            try:
                return func()
            except ValueError:
                return describe({})
        ''',
    "tests/test_core.py": '''\
        from handled.core import describe, retry


        def test_in_the_retry_loops_except_block():
            def fails():
                raise ValueError("boom")

            assert retry(fails) == "ValueError('boom')"


        def test_outside_any_except_block():
            assert describe({"value": 3}) == 3
        ''',
}


async def test_the_exception_the_test_is_handling_is_the_codes_too(tmp_path):
    """A call made in an except block of the test's process is made in one in the code's,
    with the same exception: ``sys.exc_info()`` there is the test's."""
    root = make(tmp_path / "handled", HANDLED)
    _, run = await review(root, "handled/core.py", "describe")
    assert [o.status for o in run.outcomes] == ["passed", "passed"], run.outcomes
    _, run = await review(root, "handled/core.py", "describe", "def describe(details):\n"
                          "    return details.get('value')\n")
    assert [o.status for o in run.outcomes] == ["failed", "passed"], run.outcomes


# boltons 26.2.0 (survey9): OrderedMultiDict is a dict subclass that stores a list per key
# and whose __getitem__ gives the last value (and __iter__ its own order). After a call of
# its method, the judge updated the test's object with dict.update(original, fresh), which
# for such a subclass reads fresh[key]: the last value, not the list ("'int' object has no
# attribute 'extend'" in the addlist doctest when judging OrderedMultiDict.add).
MULTI_DICT = {
    "pyproject.toml": "[project]\nname = 'multi'\nversion = '0'\n",
    "multi/__init__.py": "",
    "multi/core.py": '''\
        class MultiDict(dict):
            def __getitem__(self, key):
                return super().__getitem__(key)[-1]

            def __iter__(self):
                return iter(list(super().keys()))

            def add(self, key, value):
                """Add ``value`` under ``key``, keeping the others."""
                super().setdefault(key, []).append(value)

            def getlist(self, key):
                return list(super().__getitem__(key))
        ''',
    "tests/test_core.py": '''\
        from multi.core import MultiDict


        def test_values_kept_under_a_key():
            md = MultiDict()
            md.add("a", 1)
            md.add("a", 2)
            assert (md.getlist("a"), md["a"]) == ([1, 2], 2)
        ''',
}


async def test_a_dict_subclass_showing_other_values_is_updated_as_stored(tmp_path):
    """The test's dict is given the items the code's copy stores, not what its class's
    ``__getitem__`` shows."""
    root = make(tmp_path / "multi", MULTI_DICT)
    _, run = await review(root, "multi/core.py", "MultiDict.add")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "multi/core.py", "MultiDict.add", "def add(self, key, value):\n"
                          "    super().setdefault(key, []).insert(0, value)\n")
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# boltons 26.2.0 (survey9): funcutils.wraps builds the wrapper with the wrapped function's
# annotations (test_wraps_py3 compares them); the code's function reached the test without
# its __annotations__ (a function keeps them apart from its __dict__): "'RemoteFunction'
# object has no attribute '__annotations__'", a wrong failure.
ANNOTATED = {
    "pyproject.toml": "[project]\nname = 'annot'\nversion = '0'\n",
    "annot/__init__.py": "",
    "annot/core.py": '''\
        def typed(kind):
            """A function ``x -> kind(x)`` annotated so."""
            def convert(x: object) -> kind:
                return kind(x)
            return convert
        ''',
    "tests/test_core.py": '''\
        from annot.core import typed


        def test_the_wrappers_annotations():
            convert = typed(int)
            assert convert("3") == 3
            assert convert.__annotations__ == {"x": object, "return": int}
        ''',
}


async def test_a_code_functions_annotations_reach_the_test(tmp_path):
    """A function of the code's crosses with its ``__annotations__`` (when they can)."""
    root = make(tmp_path / "annot", ANNOTATED)
    _, run = await review(root, "annot/core.py", "typed")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "annot/core.py", "typed", "def typed(kind):\n"
                          "    def convert(x: object) -> str:\n        return kind(x)\n"
                          "    return convert\n")
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# backoff 2.2.1 and boltons 26.2.0 (survey9): backoff's decorator picks its async retry loop
# when asyncio.iscoroutinefunction(target); the test's async function reached the code as a
# proxy that said False, so the sync loop ran and the test failed ("KeyError": 14 tests of
# on_exception), where it cannot be judged (a coroutine does not cross). boltons'
# test_wraps_async asks the same of the code's async wrapper.
ASYNC_TARGET = {
    "pyproject.toml": "[project]\nname = 'deco'\nversion = '0'\n",
    "deco/__init__.py": "",
    "deco/core.py": '''\
        import asyncio


        def kind(func):
            """``"async"`` for an ``async def``, else ``"sync"``."""
            return "async" if asyncio.iscoroutinefunction(func) else "sync"


        def make(flag):
            """An async function when ``flag``."""
            async def run():
                return 1

            def call():
                return 1

            return run if flag else call
        ''',
    "tests/test_core.py": '''\
        import asyncio

        from deco.core import kind, make


        def test_kind():
            async def target():
                return 1

            assert (kind(target), kind(len)) == ("async", "sync")


        def test_make():
            assert asyncio.iscoroutinefunction(make(True))
            assert not asyncio.iscoroutinefunction(make(False))
        ''',
}


async def test_an_async_function_is_one_on_the_other_side(tmp_path):
    """A proxy of an ``async def`` is a coroutine function for ``asyncio``, both ways."""
    root = make(tmp_path / "deco", ASYNC_TARGET)
    _, run = await review(root, "deco/core.py", "kind")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "deco/core.py", "make")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "deco/core.py", "make", "def make(flag):\n"
                          "    def call():\n        return 1\n    return call\n")
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# backoff 2.2.1 (survey9): `on_exception` returns the code's `async def retry`, which the test
# awaits in its own event loop (pytest-asyncio), and which awaits the test's `async def` target
# and handlers; the coroutines did not cross ("not judged": 48 tests of `retry_exception`,
# `_call_handlers` and `on_exception`). A coroutine now crosses as a handle both ways, each
# step (send, throw, close) run where it was made, the test's loop's futures crossing back.
COROUTINES = {
    "pyproject.toml": "[project]\nname = 'retry'\nversion = '0'\n",
    "retry/__init__.py": "",
    "retry/core.py": '''\
        import asyncio


        def retrying(target, tries):
            """An async function awaiting ``target`` until it raises no ValueError."""
            async def run(*args):
                for n in range(tries):
                    try:
                        return await target(*args)
                    except ValueError:
                        if n == tries - 1:
                            raise
                        await asyncio.sleep(0)
            return run


        async def call_all(handlers, value):
            """Await each of ``handlers`` with ``value``."""
            for handler in handlers:
                await handler(value)
        ''',
    "tests/test_core.py": '''\
        import asyncio
        import inspect

        import pytest

        from retry.core import call_all, retrying


        @pytest.mark.asyncio
        async def test_retrying():
            async def target(log, x):  # (the code's copy of log, back as the test's list)
                log.append(x)
                if len(log) < 3:
                    raise ValueError(x)
                await asyncio.sleep(0.01)  # a future of the test's loop
                return x * 2

            log = []
            assert await retrying(target, 5)(log, 4) == 8
            assert log == [4, 4, 4]


        def test_retrying_gives_up():
            async def target():
                raise ValueError("no")

            run = retrying(target, 2)
            coroutine = run()
            assert inspect.iscoroutine(coroutine) and asyncio.iscoroutine(coroutine)
            with pytest.raises(ValueError, match="no"):
                asyncio.run(coroutine)


        @pytest.mark.asyncio
        async def test_call_all():
            seen = []

            async def handler(value):
                seen.append(value)

            await call_all([handler, handler], 3)
            assert seen == [3, 3]


        @pytest.mark.asyncio
        async def test_call_all_waiting():
            seen = []

            async def handler(value):
                await asyncio.sleep(0.01)
                seen.append(value)

            await call_all([handler], 3)
            assert seen == [3]
        ''',
}


async def test_a_coroutine_crosses_as_a_handle_stepped_where_it_was_made(tmp_path, monkeypatch):
    """The code's coroutine awaited in the test's loop, the test's awaited by the code: judged
    as under plain pytest; a test's coroutine waiting on its loop inside the judged ``async
    def`` (run to completion in the code's process) is "not judged"."""
    monkeypatch.setenv("PYTEST_PLUGINS", "pytest_asyncio.plugin")  # (backoff's plugin)
    root = make(tmp_path / "retry", COROUTINES)
    _, run = await review(root, "retry/core.py", "retrying")
    assert [o.status for o in run.outcomes] == ["passed", "passed"], run.outcomes
    _, run = await review(root, "retry/core.py", "call_all")
    outcomes = by_name(run)
    assert outcomes["test_call_all"].status == "passed", outcomes
    assert outcomes["test_call_all_waiting"].verdict == "not judged", outcomes
    _, run = await review(root, "retry/core.py", "retrying", "def retrying(target, tries):\n"
                          "    async def run(*args):\n        return None\n"
                          "    return run\n")
    assert [o.status for o in run.outcomes] == ["failed", "failed"], run.outcomes
    _, run = await review(root, "retry/core.py", "call_all",
                          "async def call_all(handlers, value):\n    return None\n")
    assert by_name(run)["test_call_all"].status == "failed", run.outcomes


# boltons 26.2.0 (survey9), funcutils.wraps: 2 wrong failures. test_remove_kwonly_arg: the
# code's wrapper (its __wrapped__ the test's function) crossed with the signature inspect
# follows to the wrapped one, where FunctionBuilder's getfullargspec reads the wrapper's own;
# test_wraps_async: on Python 3.11 inspect.iscoroutinefunction reads __code__'s flags, which
# the proxy of the test's async def lacked in the code's process.
WRAPPERS = {
    "pyproject.toml": "[project]\nname = 'wrap'\nversion = '0'\n",
    "wrap/__init__.py": "",
    "wrap/core.py": '''\
        import functools
        import inspect


        def rewrap(func):
            """A wrapper of ``func`` taking ``(*args, **kwargs)``."""
            @functools.wraps(func)
            def wrapper(*args, **kwargs):
                return func(*args, **kwargs)
            return wrapper


        def kind_of(func):
            """``"async"`` when ``inspect`` finds ``func`` a coroutine function."""
            return "async" if inspect.iscoroutinefunction(func) else "sync"
        ''',
    "tests/test_core.py": '''\
        import inspect

        from wrap.core import kind_of, rewrap


        def test_own_and_followed_signatures():
            def f(a, b=2):
                return a + b

            wrapped = rewrap(f)
            assert str(inspect.signature(wrapped)) == "(a, b=2)"
            spec = inspect.getfullargspec(wrapped)
            assert (spec.args, spec.varargs, spec.varkw) == ([], "args", "kwargs")
            assert wrapped(1) == 3


        def test_kind_of():
            async def f():
                return 1

            assert (kind_of(f), kind_of(len)) == ("async", "sync")
        ''',
}


async def test_a_wrappers_signatures_and_an_async_defs_code_flags_cross(tmp_path):
    """``inspect.signature`` of the code's wrapper follows ``__wrapped__``, ``getfullargspec``
    reads its own; ``inspect.iscoroutinefunction`` of the test's ``async def`` is True in the
    code's process (Python 3.11: its ``__code__``'s flags)."""
    root = make(tmp_path / "wrap", WRAPPERS)
    _, run = await review(root, "wrap/core.py", "rewrap")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "wrap/core.py", "kind_of")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "wrap/core.py", "rewrap", "def rewrap(func):\n"
                          "    return func\n")
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# click 8.5.1 (survey9): the parser a judged method gets as `self` holds click's Context, which
# holds a contextlib.ExitStack. After the call `self` goes back by its state, and with it the
# ExitStack, a library object the judge does not rebuild: 78 tests "not judged". One the code
# left as it came (its callbacks the test's) now goes back as the judge's own object; one the
# code changed (a callback of its own) still cannot cross.
EXIT_STACK = {
    "pyproject.toml": "[project]\nname = 'opts'\nversion = '0'\n",
    "opts/__init__.py": "",
    "opts/core.py": '''\
        import contextlib


        class Context:
            def __init__(self):
                self._exit_stack = contextlib.ExitStack()
                self.params = {}

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                self._exit_stack.close()

            def call_on_close(self, f):
                return self._exit_stack.callback(f)


        class Parser:
            def __init__(self, ctx):
                self.ctx = ctx
                self.seen = []

            def take(self, arg):
                """Record ``arg`` (``-x`` sets ``ctx.params[x]``)."""
                self.seen.append(arg)
                if arg.startswith("-"):
                    self.ctx.params[arg[1:]] = True
                return len(self.seen)

            def hold(self, f):
                """Call ``f`` when the context closes."""
                self.ctx.call_on_close(f)
        ''',
    "tests/test_core.py": '''\
        from opts.core import Context, Parser


        def test_take():
            closed = []
            ctx = Context()
            ctx.call_on_close(lambda: closed.append(1))
            with ctx:
                parser = Parser(ctx)
                assert parser.take("-v") == 1
                assert parser.take("file") == 2
                assert ctx.params == {"v": True} and parser.seen == ["-v", "file"]
            assert closed == [1]


        def test_hold():
            closed = []
            with Context() as ctx:
                Parser(ctx).hold(lambda: closed.append(2))
            assert closed == [2]
        ''',
}


async def test_a_library_object_the_code_left_as_it_came_goes_back_as_itself(tmp_path):
    """``self``'s Context with the test's ExitStack: judged; the test's callback registered
    in it by the code: the test's ExitStack, changed by the code, cannot go back ("not
    judged"): as a handle of the code's copy in its place, the test's other references to it
    would keep the old one (a test's Namespace changed by the code went back that way and
    its change was lost: a forged pass, test_a_library_object_holding_others...)."""
    root = make(tmp_path / "opts", EXIT_STACK)
    _, run = await review(root, "opts/core.py", "Parser.take")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "opts/core.py", "Parser.hold")
    assert [o.verdict for o in run.outcomes] == ["not judged"], run.outcomes
    _, run = await review(root, "opts/core.py", "Parser.take", "def take(self, arg):\n"
                          "    self.seen.append(arg)\n    return 0\n")
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# boltons 26.2.0 (survey9): LRI.__getitem__ does `with self._lock:`, an RLock the cache
# holds; it reached the code as an opaque handle of the test's ("not judged": all 5 tests). A
# lock of the test's that is not held now crosses as a new one, and goes back as the test's own
# when the code leaves it unheld; one the test holds still cannot cross.
LOCKED = {
    "pyproject.toml": "[project]\nname = 'lri'\nversion = '0'\n",
    "lri/__init__.py": "",
    "lri/core.py": '''\
        import threading


        class Cache(dict):
            def __init__(self):
                super().__init__()
                self._lock = threading.RLock()
                self.hits = 0

            def get_hit(self, key):
                """``self[key]``, counted."""
                with self._lock:
                    self.hits += 1
                    return dict.__getitem__(self, key)
        ''',
    "tests/test_core.py": '''\
        from lri.core import Cache


        def test_get_hit():
            cache = Cache()
            cache["a"] = 1
            lock = cache._lock
            assert cache.get_hit("a") == 1 and cache.hits == 1
            assert cache._lock is lock
            with lock:
                pass


        def test_get_hit_while_held():
            cache = Cache()
            cache["a"] = 1
            with cache._lock:
                assert cache.get_hit("a") == 1
        ''',
}


async def test_a_lock_the_test_does_not_hold_crosses_and_comes_back_as_itself(tmp_path):
    root = make(tmp_path / "lri", LOCKED)
    _, run = await review(root, "lri/core.py", "Cache.get_hit")
    outcomes = by_name(run)
    assert outcomes["test_get_hit"].status == "passed", outcomes
    assert outcomes["test_get_hit_while_held"].verdict == "not judged", outcomes
    _, run = await review(root, "lri/core.py", "Cache.get_hit", "def get_hit(self, key):\n"
                          "    with self._lock:\n        return dict.__getitem__(self, key)\n")
    assert by_name(run)["test_get_hit"].status == "failed", run.outcomes


# boltons 26.2.0 (nj10, once LRI's lock crossed): cachedmethod's keys are _HashedKey(list)
# objects with `__slots__ = 'hash_value'`, which __hash__ reads. A builtin's subclass crossed
# with its value and __dict__, not its slots: the cache, a dict keyed by them, written back
# after the call, could not be rebuilt ("'_HashedKey' object has no attribute 'hash_value'",
# a failure of right code: 2 tests).
SLOTTED_KEYS = {
    "pyproject.toml": "[project]\nname = 'keys'\nversion = '0'\n",
    "keys/__init__.py": "",
    "keys/core.py": '''\
        class Key(list):
            __slots__ = ("hash_value",)

            def __init__(self, items):
                self[:] = items
                self.hash_value = hash(tuple(items))

            def __hash__(self):
                return self.hash_value


        def register(table, items, value):
            """``table[Key(items)] = value``."""
            table[Key(items)] = value
        ''',
    "tests/test_core.py": '''\
        from keys.core import Key, register


        def test_register():
            table = {}
            register(table, [1, 2], "a")
            assert table[Key([1, 2])] == "a"
            assert [key.hash_value for key in table] == [hash((1, 2))]
        ''',
}


async def test_a_builtins_subclass_crosses_with_its_slots(tmp_path):
    root = make(tmp_path / "keys", SLOTTED_KEYS)
    _, run = await review(root, "keys/core.py", "register")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "keys/core.py", "register",
                          "def register(table, items, value):\n    table[Key(items)] = 0\n")
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# tomlkit 0.15.3 (survey10): test_container_updates.py parametrizes a lookup over a str
# subclass the test module defines (`class StringKey(str): pass`); tomlkit's escape_string
# answers `str(s)` for it.
TEST_STR_SUBCLASS = {
    "pyproject.toml": "[project]\nname = 'keys'\nversion = '0'\n",
    "keys/__init__.py": "",
    "keys/core.py": '''\
        def plain(s):
            """``s`` as a plain ``str``, quoted when it holds a space."""
            if " " in s:
                return '"' + s + '"'
            return str(s)
        ''',
    "tests/test_core.py": '''\
        import pytest

        from keys.core import plain


        class StringKey(str):
            pass


        @pytest.mark.parametrize("name", ["a", StringKey("a"), StringKey("a b")])
        def test_plain(name):
            assert plain(name) in ("a", '"a b"')
            assert type(plain(name)) is str


        class Loose(str):
            def __eq__(self, other):
                return True

            __hash__ = str.__hash__


        def test_loose():
            assert plain(Loose("a")) == "a"
        ''',
}


async def test_a_str_subclass_of_the_tests_given_to_the_code(tmp_path):
    """An instance of a ``str`` subclass the test module defines, given to the code."""
    root = make(tmp_path / "keys", TEST_STR_SUBCLASS)
    _, run = await review(root, "keys/core.py", "plain")
    assert [o.status for o in run.outcomes] == ["passed"] * 4, run.outcomes
    _, run = await review(root, "keys/core.py", "plain", "def plain(s):\n    return s\n")
    assert [o.status for o in run.outcomes] == ["passed", "failed", "failed", "passed"], (
        run.outcomes)  # (the test's own Loose back: its __eq__ says yes, as under plain pytest)
    _, run = await review(root, "keys/core.py", "plain", "def plain(s):\n"
                          "    return type(s)(s + 'z')\n")
    assert [o.status for o in run.outcomes] == ["failed", "failed", "failed", "not judged"], (
        run.outcomes)  # (a new object of a test's class whose __eq__ says yes: never judged)


# tomlkit 0.15.3 (survey10): items.DateTime is a project class over datetime.datetime (with a
# __new__ of its own taking more arguments, and state in __dict__); its as_string() calls
# _format_datetime(self), which asks value.utcoffset(): the object reached the code as an
# opaque handle of the test's ("cannot cross (tomlkit.items.DateTime: .utcoffset)", 7 tests).
STAMPS = {
    "pyproject.toml": "[project]\nname = 'stamps'\nversion = '0'\n",
    "stamps/__init__.py": "",
    "stamps/core.py": '''\
        from datetime import date, datetime, timedelta


        class Item:
            def __init__(self, raw=None):
                self.raw = raw


        class Stamp(Item, datetime):
            def __new__(cls, year, month, day, hour, tzinfo=None, raw=None, fold=0):
                return datetime.__new__(cls, year, month, day, hour, tzinfo=tzinfo, fold=fold)

            def __init__(self, year, month, day, hour, tzinfo=None, raw=None, fold=0):
                super().__init__(raw)

            def as_string(self):
                return self.raw or show(self)


        class Day(Item, date):
            def __new__(cls, year, month, day, raw=None):
                return date.__new__(cls, year, month, day)

            def __init__(self, year, month, day, raw=None):
                super().__init__(raw)


        def show(value):
            """``value.isoformat()``, in UTC when its offset is not whole minutes."""
            offset = value.utcoffset()
            if offset is None or not offset % timedelta(minutes=1):
                return value.isoformat()
            return (value.replace(tzinfo=None) - offset).isoformat() + "+00:00"


        def later(value):
            """``value`` with its ``raw`` text dropped, one day later (the same class)."""
            value.raw = None
            return value + timedelta(days=1)
        ''',
    "tests/test_core.py": '''\
        from datetime import timedelta, timezone

        from stamps.core import Day, Stamp, later, show


        def test_as_string():
            zone = timezone(timedelta(hours=-8), "PST")
            assert Stamp(2019, 7, 21, 4, tzinfo=zone).as_string() == "2019-07-21T04:00:00-08:00"
            assert Stamp(2019, 7, 21, 4, raw="x").as_string() == "x"
            assert show(Stamp(2019, 7, 21, 4, fold=1)) == "2019-07-21T04:00:00"


        def test_later():
            day = Day(2019, 7, 21, raw="y")
            assert later(day) == Day(2019, 7, 22) and day.raw is None
        ''',
}


async def test_a_project_class_over_datetime_crosses_by_value_and_state(tmp_path):
    """An object of a project's class over ``datetime`` / ``date`` reaches the code as such
    (its date and time, its ``__dict__``), and comes back so."""
    root = make(tmp_path / "stamps", STAMPS)
    for name in ("show", "later"):
        _, run = await review(root, "stamps/core.py", name)
        assert [o.status for o in run.outcomes] == ["passed"], (name, run.outcomes)
    _, run = await review(root, "stamps/core.py", "show", "def show(value):\n"
                          "    return value.isoformat()[:10]\n")
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# schedule 1.2.2: `Job.at(time, tz)` keeps `pytz.timezone(tz)` on the job and later localizes
# with it; pytz makes a class per zone at run time (`pytz.tzfile.Europe/Berlin`), so the zone
# the code set on `self` could not come back ("the code under test sent what the judge does not
# rebuild (an object of pytz.tzfile.Europe/Berlin, a class made at run time": a failure, 31 of
# `Job.at`'s 57 tests), and one of the test's reached the code as an opaque handle.
PYTZ_ZONES = {
    "pyproject.toml": "[project]\nname = 'shifts'\nversion = '0'\n",
    "shifts/__init__.py": "",
    "shifts/core.py": '''\
        import pytz


        class Job:
            def __init__(self):
                self.zone = None

            def at(self, zone_name):
                """Keep pytz's time zone ``zone_name``; returns the job."""
                self.zone = pytz.timezone(zone_name)
                return self


        def localized(moment, zone):
            """``moment`` (naive) in ``zone`` (pytz's), with that zone's offset at that date."""
            return zone.localize(moment)
        ''',
    "tests/test_core.py": '''\
        import datetime

        import pytz

        from shifts.core import Job, localized


        def test_at_keeps_the_zone():
            assert Job().at("Europe/Berlin").zone is pytz.timezone("Europe/Berlin")
            assert Job().at("UTC").zone is pytz.utc


        def test_localized_in_summer_and_in_utc():
            berlin = pytz.timezone("Europe/Berlin")
            moment = localized(datetime.datetime(2024, 7, 1, 12), berlin)
            assert moment.utcoffset() == datetime.timedelta(hours=2)
            assert moment.tzinfo is berlin.localize(datetime.datetime(2024, 7, 2)).tzinfo
            assert localized(datetime.datetime(2024, 1, 1), pytz.utc).tzinfo is pytz.utc
        ''',
}


async def test_pytz_time_zones_cross_as_values(tmp_path):
    """pytz's zones cross by their pickle's arguments (the key; a localized zone's offsets and
    name), made again from pytz's own cache (``pytz.timezone(key)`` and the localized zones it
    holds: identity kept); wrong bodies fail."""
    pytest.importorskip("pytz")
    root = make(tmp_path / "shifts", PYTZ_ZONES)
    for name in ("Job.at", "localized"):
        _, run = await review(root, "shifts/core.py", name)
        assert [o.status for o in run.outcomes] == ["passed"], (name, run.outcomes)
    wrongs = {
        "Job.at": ("def at(self, zone_name):\n    import pytz\n"
                   "    self.zone = pytz.timezone('Europe/London')\n    return self\n"),
        "localized": "def localized(moment, zone):\n    return moment.replace(tzinfo=zone)\n",
    }
    for name, wrong in wrongs.items():
        _, run = await review(root, "shifts/core.py", name, wrong)
        assert [o.status for o in run.outcomes] == ["failed"], (name, run.outcomes)


# tenacity 9.2.1: its `Future` (a `concurrent.futures.Future`) holds a `threading.Condition`;
# a Future the code made (`Future.construct`) or one of the test's it was given in `self`
# (`RetryCallState.outcome`) could not come back: "the code under test sent what the judge does
# not rebuild (an object of threading.Condition ...)" (143 tests not judged).
FUTURES = {
    "pyproject.toml": "[project]\nname = 'attempts'\nversion = '0'\n",
    "attempts/__init__.py": "",
    "attempts/core.py": '''\
        from concurrent import futures


        class Attempt(futures.Future):
            def __init__(self, number):
                super().__init__()
                self.number = number

            @classmethod
            def construct(cls, number, value):
                """A finished attempt ``number`` whose result is ``value``."""
                attempt = cls(number)
                attempt.set_result(value)
                return attempt


        class State:
            def __init__(self):
                self.outcome = None
                self.tries = 0

            def tried(self):
                """How many tries were made (an int)."""
                return self.tries
        ''',
    "tests/test_core.py": '''\
        from attempts.core import Attempt, State


        def test_construct():
            attempt = Attempt.construct(3, "x")
            assert attempt.done() and attempt.result() == "x" and attempt.number == 3
            assert attempt._condition.acquire(blocking=False)


        def test_a_state_holding_a_future():
            state = State()
            state.outcome = Attempt(1)
            state.outcome.set_result(5)
            condition = state.outcome._condition
            assert state.tried() == 0
            assert state.outcome._condition is condition and state.outcome.result() == 5
        ''',
}


async def test_a_future_and_its_condition_cross(tmp_path):
    """A ``threading.Condition`` that nobody waits on and whose lock is free crosses as a new
    one (a new Future's), and the test's own goes back as itself when the code left it free;
    wrong bodies fail."""
    root = make(tmp_path / "attempts", FUTURES)
    for name in ("Attempt.construct", "State.tried"):
        _, run = await review(root, "attempts/core.py", name)
        assert {o.status for o in run.outcomes} == {"passed"}, (name, run.outcomes)
    wrongs = {
        "Attempt.construct": ("@classmethod\ndef construct(cls, number, value):\n"
                              "    attempt = cls(number)\n    attempt.set_result(None)\n"
                              "    return attempt\n"),
        "State.tried": "def tried(self):\n    return self.tries + 1\n",
    }
    for name, wrong in wrongs.items():
        _, run = await review(root, "attempts/core.py", name, wrong)
        assert "failed" in {o.status for o in run.outcomes}, (name, run.outcomes)


# tenacity 9.2.1: tests/test_tenacity.py decorates functions at its import (`@retry(...)` at
# module level: `BaseRetrying.wraps` called), and its tests call `.retry_with(...)`, which calls
# `wraps` again in the code's process. tests/test_after.py imports test_tenacity first
# (`from . import test_tenacity`), so that import's calls were counted as test_after.py's
# collection: 3 tests of test_tenacity.py were silently left out of the selection.
IMPORTED_TEST_MODULE = {
    "pyproject.toml": "[project]\nname = 'twice'\nversion = '0'\n",
    "twice/__init__.py": "",
    "twice/core.py": '''\
        def twice(f):
            """A function summing ``f(x)`` twice; its ``again()`` makes a new one."""
            def run(x):
                return f(x) + f(x)
            run.again = lambda: twice(f)
            return run
        ''',
    "tests/__init__.py": "",
    "tests/test_a.py": '''\
        from .test_b import DOUBLE


        def test_a():
            assert DOUBLE(-1) == 2
        ''',
    "tests/test_b.py": '''\
        from twice.core import twice

        DOUBLE = twice(abs)


        def test_again():
            assert DOUBLE.again()(-2) == 4
        ''',
}


async def test_calls_at_the_import_of_a_test_module_another_one_imports(tmp_path):
    """The function called at the import of a test module belongs to that module's
    collection even when another test module imports it first: its tests are selected."""
    root = make(tmp_path / "twice", IMPORTED_TEST_MODULE)
    _, run = await review(root, "twice/core.py", "twice")
    assert {name: o.status for name, o in by_name(run).items()} == {
        "test_a": "passed", "test_again": "passed"}, run.outcomes
    _, run = await review(root, "twice/core.py", "twice", "def twice(f):\n"
                          "    def run(x):\n        return f(x)\n"
                          "    run.again = lambda: twice(f)\n    return run\n")
    assert {name: o.status for name, o in by_name(run).items()} == {
        "test_a": "failed", "test_again": "failed"}, run.outcomes


# structlog 26.1.0: `KeyValueRenderer` renders `f"{key}={value!r}"`; the event dict of its
# tests' fixture holds an object of a class the fixture defines (`class A` with a `__repr__`),
# which reached the code as an opaque handle whose repr was codeteam's own text ("<object of
# the test: ...A>"): 6 tests failed where plain pytest passes.
SHOWN = {
    "pyproject.toml": "[project]\nname = 'shown'\nversion = '0'\n",
    "shown/__init__.py": "",
    "shown/core.py": '''\
        def render(event):
            """``key=repr(value)`` pairs, then ``str`` and ``format`` of the value under "x"."""
            pairs = " ".join(f"{key}={value!r}" for key, value in event.items())
            return f"{pairs} | " + str(event["x"]) + f" | {event['x']:>8}"
        ''',
    "tests/test_core.py": '''\
        from shown.core import render


        def test_render():
            class A:
                def __repr__(self):
                    return "<A(o)>"

                def __str__(self):
                    return "a"

                def __format__(self, spec):
                    return format("A", spec)

            assert render({"x": A(), "y": 1}) == "x=<A(o)> y=1 | a |        A"
        ''',
}


async def test_repr_str_and_format_of_the_tests_object_are_its_own(tmp_path):
    """``repr()``, ``str()`` and ``format()`` of a test's object the code was given run the
    test's own methods (in pytest's process, as the container hooks do); a wrong body fails."""
    root = make(tmp_path / "shown", SHOWN)
    _, run = await review(root, "shown/core.py", "render")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "shown/core.py", "render", "def render(event):\n"
                          "    return ' '.join(f'{k}={v!r}' for k, v in event.items())\n")
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# schedule 1.2.2: `Job.do` keeps `functools.partial(job_func, *args)` dressed by
# `functools.update_wrapper` (its __dict__: __name__, __wrapped__...), and the judged method
# gets the job as `self`. The partial crossed as a new one and came back as a handle written
# into the job (str(job) showed "do=<...RemoteCallable object at ...>": a wrong failure), and
# when it held a mock the look at it asked the mock its class (isinstance): 132 tests "not
# judged (unittest.mock.Mock: its class)".
JOBS = {
    "pyproject.toml": "[project]\nname = 'jobs'\nversion = '0'\n",
    "jobs/__init__.py": "",
    "jobs/core.py": '''\
        import functools


        class Job:
            def __init__(self):
                self.func = None
                self.plans = 0

            def do(self, func, *args):
                self.func = functools.partial(func, *args)
                functools.update_wrapper(self.func, func)
                self.plan()
                return self

            def plan(self):
                """Count one more plan of the job."""
                self.plans += 1

            def __str__(self):
                return f"do={self.func.__name__} args={self.func.args}"

            def run(self):
                return self.func()
        ''',
    "tests/test_core.py": '''\
        from unittest import mock

        from jobs.core import Job


        def test_str():
            def job_fun(x):
                pass

            assert str(Job().do(job_fun, "foo")) == "do=job_fun args=('foo',)"


        def test_a_mock_job_runs():
            job_func = mock.Mock()
            job_func.__name__ = "job"
            job = Job().do(job_func, 1)
            job.run()
            assert job_func.call_count == 1 and job.plans == 1
        ''',
}


async def test_a_partial_of_the_tests_left_as_it_came_goes_back_as_itself(tmp_path):
    """A partial of the test's in the code's arguments (one dressed by ``update_wrapper``,
    one of a mock) goes back as the test's own object when the code left it as it came;
    a wrong body fails."""
    root = make(tmp_path / "jobs", JOBS)
    _, run = await review(root, "jobs/core.py", "Job.plan")
    assert [o.status for o in run.outcomes] == ["passed", "passed"], run.outcomes
    _, run = await review(root, "jobs/core.py", "Job.__str__")  # (the partial's __name__,
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes  # in the code)
    _, run = await review(root, "jobs/core.py", "Job.plan",
                          "def plan(self):\n    self.plans += 2\n")
    assert [o.status for o in run.outcomes] == ["passed", "failed"], run.outcomes


# tenacity 9.2.1: `BaseRetrying.wraps` returns `functools.wraps(f, WRAPPER_ASSIGNMENTS +
# ("__defaults__", "__kwdefaults__"))(wrapped_f)`; the wrapper crossed as a handle without them
# ("'RemoteFunction' object has no attribute '__defaults__'": a wrong failure).
DEFAULTS = {
    "pyproject.toml": "[project]\nname = 'keeps'\nversion = '0'\n",
    "keeps/__init__.py": "",
    "keeps/core.py": '''\
        import functools


        def retrying(f):
            """A wrapper of ``f`` with its names, defaults and keyword-only defaults."""
            @functools.wraps(f, functools.WRAPPER_ASSIGNMENTS + ("__defaults__",
                                                                  "__kwdefaults__"))
            def wrapped(*args, **kw):
                return f(*args, **kw)
            return wrapped
        ''',
    "tests/test_core.py": '''\
        from keeps.core import retrying


        def test_defaults_kept():
            def one(a=1):
                return a

            def two(*, a=2):
                return a

            assert retrying(one).__defaults__ == (1,) and retrying(one)() == 1
            assert retrying(two).__kwdefaults__ == {"a": 2}
            assert retrying(two).__defaults__ is None
        ''',
}


async def test_a_functions_defaults_cross_with_it(tmp_path):
    """A function of the code crosses with its ``__defaults__`` and ``__kwdefaults__`` (a
    wrapper's, copied from the test's function); a wrong body fails."""
    root = make(tmp_path / "keeps", DEFAULTS)
    _, run = await review(root, "keeps/core.py", "retrying")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "keeps/core.py", "retrying", "def retrying(f):\n"
                          "    import functools\n\n    @functools.wraps(f)\n"
                          "    def wrapped(*args, **kw):\n        return f(*args, **kw)\n"
                          "    return wrapped\n")
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# schedule 1.2.2: its tests' `mock_datetime` puts `class MockDate(datetime.datetime)` (made in
# `__enter__`) into the datetime module, `datetime.datetime = MockDate`, and the code reads
# `datetime.datetime.now()`. The class cannot cross; the rebinding was left out silently, and
# the code read the real clock: 48 of `_schedule_next_run`'s tests failed where plain pytest
# passes (earlier hidden behind "not judged (unittest.mock.Mock: its class)").
MOCKED_CLOCK = {
    "pyproject.toml": "[project]\nname = 'clock'\nversion = '0'\n",
    "clock/__init__.py": "",
    "clock/core.py": '''\
        import datetime


        def tomorrow(after=None):
            """The date after today's (``datetime.datetime.now()``), or after ``after``."""
            if after is not None and not isinstance(after, datetime.datetime):
                raise TypeError("after: a datetime")
            moment = datetime.datetime.now() if after is None else after
            return (moment + datetime.timedelta(days=1)).date()


        def hour_here(seconds):
            """The local hour at ``seconds`` since the epoch."""
            import time

            return time.localtime(seconds).tm_hour
        ''',
    "tests/test_zone.py": '''\
        import os
        import time

        from clock.core import hour_here


        def test_hour_in_another_zone():
            old = os.environ.get("TZ")
            os.environ["TZ"] = "NZST-12"
            time.tzset()
            try:
                assert hour_here(0) == 12
            finally:
                os.environ.pop("TZ") if old is None else os.environ.update(TZ=old)
                time.tzset()
        ''',
    "tests/test_core.py": '''\
        import datetime

        from clock.core import tomorrow


        def test_tomorrow_mocked():
            class MockDate(datetime.datetime):
                @classmethod
                def now(cls, tz=None):
                    return cls(2020, 1, 1, 12)

            original = datetime.datetime
            datetime.datetime = MockDate
            try:
                assert tomorrow() == datetime.date(2020, 1, 2)
                assert tomorrow(datetime.datetime(2021, 5, 1)) == datetime.date(2021, 5, 2)
            finally:
                datetime.datetime = original


        def test_tomorrow_mocked_otherwise():
            class OddDate(datetime.datetime):
                @classmethod
                def now(cls, tz=None):
                    return cls(2020, 1, 1, 12)

                def date(self):
                    return datetime.date(1999, 1, 1)

            original = datetime.datetime
            datetime.datetime = OddDate
            try:
                assert tomorrow() == datetime.date(1999, 1, 1)
            finally:
                datetime.datetime = original


        def test_tomorrow():
            assert tomorrow() > datetime.date.today()
        ''',
}


async def test_a_library_global_rebound_to_what_cannot_cross_is_not_judged(tmp_path):
    """The test's rebinding of a library module's global (one a project module holds) to a
    value that cannot cross makes the test "not judged" when the code is called, never a
    silent difference; a test's class over ``datetime`` with class methods only crosses as a
    class over the real one whose class methods call the test's (then, with ``TZ`` and
    ``time.tzset()``, the time of schedule's tests is the code's); the others are judged."""
    root = make(tmp_path / "clock", MOCKED_CLOCK)
    _, run = await review(root, "clock/core.py", "tomorrow")
    found = by_name(run)
    assert found["test_tomorrow"].status == "passed", run.outcomes
    assert found["test_tomorrow_mocked"].status == "passed", run.outcomes
    assert found["test_tomorrow_mocked_otherwise"].status == "not judged", run.outcomes
    assert "the test rebound datetime.datetime to what cannot cross" in found[
        "test_tomorrow_mocked_otherwise"].message
    _, run = await review(root, "clock/core.py", "tomorrow",
                          "def tomorrow():\n    import datetime\n    return datetime.date.today()\n")
    assert by_name(run)["test_tomorrow"].status == "failed", run.outcomes
    assert by_name(run)["test_tomorrow_mocked"].status == "failed", run.outcomes
    _, run = await review(root, "clock/core.py", "hour_here")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes


# structlog 26.1.0: its TimeStamper tests travel in time with time-machine
# (`time_machine.travel(..., tick=False)`), which patches the test's process's clocks in C;
# the code read the real clock in its own process: 31 of `_make_stamper`'s 52 tests failed
# where plain pytest passes.
TRAVEL = {
    "pyproject.toml": "[project]\nname = 'travel'\nversion = '0'\n",
    "travel/__init__.py": "",
    "travel/core.py": '''\
        import datetime
        import time


        def stamp(read=True):
            """``(time.time(), the year of datetime.datetime.now in UTC)``; None unless
            ``read``."""
            if not read:
                return None
            return time.time(), datetime.datetime.now(datetime.timezone.utc).year
        ''',
    "tests/test_core.py": '''\
        import datetime
        import time

        import time_machine

        from travel.core import stamp


        def test_travelled():
            moment = datetime.datetime(1980, 3, 25, 16, tzinfo=datetime.timezone.utc)
            with time_machine.travel(moment, tick=False):
                assert stamp() == (time.time(), 1980)


        def test_ticking_starts_at_the_first_read():
            moment = datetime.datetime(1980, 3, 25, 16, tzinfo=datetime.timezone.utc)
            with time_machine.travel(moment):  # (tick=True: time goes on from its first read)
                assert stamp(read=False) is None
                assert stamp()[0] == moment.timestamp()


        def test_not_travelled():
            assert stamp()[1] >= 2024
        ''',
}


async def test_the_tests_time_travel_is_the_codes(tmp_path):
    """While the test travels with time-machine, the code's process travels to the same
    moment (ticking or not) for the call; a wrong body fails."""
    pytest.importorskip("time_machine")
    root = make(tmp_path / "travel", TRAVEL)
    _, run = await review(root, "travel/core.py", "stamp")
    assert [o.status for o in run.outcomes] == ["passed"] * 3, run.outcomes
    _, run = await review(root, "travel/core.py", "stamp",
                          "def stamp(read=True):\n    import time\n"
                          "    return time.time(), 1981\n")
    assert [o.status for o in run.outcomes] == ["failed"] * 3, run.outcomes


# structlog 26.1.0: `class DropEvent(BaseException)`; `capture_logs()`'s `LogCapture` (a
# processor) raises it, and `_proxy_to_logger` catches it around `_process_event`: the judge
# did not re-raise a BaseException that is no Exception, so the test failed with "the code
# under test raised structlog.exceptions.DropEvent" (5 tests) where plain pytest passes.
DROPS = {
    "pyproject.toml": "[project]\nname = 'drops'\nversion = '0'\n",
    "drops/__init__.py": "",
    "drops/core.py": '''\
        class Drop(BaseException):
            """Drop the event (for the callers of ``process``)."""


        def process(event, processors):
            """``event`` through each of ``processors``; ``Drop`` goes to the caller."""
            for processor in processors:
                event = processor(event)
            return event


        def log(event, processors):
            try:
                return process(event, processors)
            except Drop:
                return None


        class Capture:
            def __init__(self):
                self.entries = []

            def __call__(self, event):
                self.entries.append(event)
                raise Drop
        ''',
    "tests/test_core.py": '''\
        from drops.core import Capture, log


        def test_dropped():
            capture = Capture()
            assert log({"a": 1}, [capture]) is None
            assert capture.entries == [{"a": 1}]
        ''',
}


async def test_a_projects_own_base_exception_reaches_the_test(tmp_path):
    """An exception of the project's own class over ``BaseException`` is raised in the test
    as itself (its callers catch it); a wrong body fails."""
    root = make(tmp_path / "drops", DROPS)
    _, run = await review(root, "drops/core.py", "process")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "drops/core.py", "process",
                          "def process(event, processors):\n    return event\n")
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# structlog 26.1.0: `bind_contextvars` sets context variables it keeps in a module dict
# (`_CONTEXT_VARS`), and `merge_contextvars` reads `contextvars.copy_context()`; the code's
# process had a context of its own, empty: 10 tests failed where plain pytest passes.
CONTEXT = {
    "pyproject.toml": "[project]\nname = 'ctx'\nversion = '0'\n",
    "ctx/__init__.py": "",
    "ctx/core.py": '''\
        import contextvars

        _VARS = {}


        def bind(**values):
            for key, value in values.items():
                var = _VARS.get(key)
                if var is None:
                    var = _VARS[key] = contextvars.ContextVar("ctx_" + key, default=Ellipsis)
                var.set(value)


        def merged(event):
            """``event`` with the values bound in the running context."""
            out = dict(event)
            for var, value in contextvars.copy_context().items():
                if var.name.startswith("ctx_") and value is not Ellipsis:
                    out.setdefault(var.name[4:], value)
            return out
        ''',
    "tests/test_core.py": '''\
        import contextvars

        from ctx.core import bind, merged


        def test_merged():
            def run():
                bind(a=1)
                return merged({"b": 2})

            assert contextvars.copy_context().run(run) == {"a": 1, "b": 2}
        ''',
}


async def test_the_tests_context_variables_are_the_codes(tmp_path):
    """The context variables a project module holds, set in the test's context, are set in
    the code's process for the call; one the code makes and sets, which the test's modules
    do not hold, is "not judged" (one they hold is the test's: test_escape_attacks.py); a
    wrong body fails."""
    root = make(tmp_path / "ctx", CONTEXT)
    _, run = await review(root, "ctx/core.py", "merged")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "ctx/core.py", "bind")
    assert [o.status for o in run.outcomes] == ["not judged"], run.outcomes
    assert "set the context variable 'ctx_a'" in run.outcomes[0].message
    _, run = await review(root, "ctx/core.py", "merged",
                          "def merged(event):\n    return dict(event)\n")
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# tenacity 9.2.1: `wait_base.__radd__` answers NotImplemented for a number other than 0 (so
# that `1 + wait` raises TypeError); NotImplemented could not come back ("the code under test
# sent what the judge does not rebuild (an object of builtins.NotImplementedType ...)").
RADD = {
    "pyproject.toml": "[project]\nname = 'adds'\nversion = '0'\n",
    "adds/__init__.py": "",
    "adds/core.py": '''\
        class Wait:
            def __radd__(self, other):
                """``sum()`` of waits starts at 0: itself then; NotImplemented for the rest."""
                return self if other == 0 else NotImplemented
        ''',
    "tests/test_core.py": '''\
        import pytest

        from adds.core import Wait


        def test_radd():
            wait = Wait()
            assert sum([wait]) is wait
            with pytest.raises(TypeError):
                1 + wait
            assert wait.__radd__(2) is NotImplemented and wait.__radd__(...) is NotImplemented
        ''',
}


async def test_not_implemented_and_ellipsis_cross_as_themselves(tmp_path):
    """``NotImplemented`` and ``...`` cross as themselves; a wrong body fails."""
    root = make(tmp_path / "adds", RADD)
    _, run = await review(root, "adds/core.py", "Wait.__radd__")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "adds/core.py", "Wait.__radd__",
                          "def __radd__(self, other):\n    return self if other == 0 else ...\n")
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# tenacity 9.2.1: `retry_error_cls=ValueError` makes the code raise `ValueError(future)`; when
# the exception's arguments cannot cross, the judge raised a stand-in class named ValueError
# over ValueError, so `exc_info.type is ValueError` failed where plain pytest passes.
BUILTIN_RAISED = {
    "pyproject.toml": "[project]\nname = 'boxes'\nversion = '0'\n",
    "boxes/__init__.py": "",
    "boxes/core.py": '''\
        def fail():
            """Raise ValueError carrying an object of a class made here."""
            class Box:
                def __repr__(self):
                    return "<Box>"

            raise ValueError(Box())
        ''',
    "tests/test_core.py": '''\
        import pytest

        from boxes.core import fail


        def test_fail():
            with pytest.raises(ValueError) as info:
                fail()
            assert info.type is ValueError and str(info.value) == "<Box>"
        ''',
}


async def test_a_builtin_exception_whose_arguments_cannot_cross_keeps_its_class(tmp_path):
    """A builtin exception whose arguments cannot cross is raised in the test as that very
    class (with their text), never a stand-in over it; a wrong body fails."""
    root = make(tmp_path / "boxes", BUILTIN_RAISED)
    _, run = await review(root, "boxes/core.py", "fail")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "boxes/core.py", "fail",
                          "def fail():\n    raise ValueError(object())\n")
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# schedule 1.2.2: `default_scheduler = Scheduler()` is a global of the module; `Job.do` appends
# to its `jobs` list in place, and `Scheduler.idle_seconds` (judged) reads `self.jobs`. The
# scheduler crosses by its name, and only rebound attributes were sent: the code saw no jobs
# (`idle_seconds()` None, 3 tests failed where plain pytest passes).
REGISTRY = {
    "pyproject.toml": "[project]\nname = 'reg'\nversion = '0'\n",
    "reg/__init__.py": "",
    "reg/core.py": '''\
        class Registry:
            def __init__(self):
                self.items = []

            def add(self, item):
                self.items.append(item)

            @property
            def size(self):
                """How many items it holds."""
                return len(self.items)


        default = Registry()


        def size():
            return default.size
        ''',
    "tests/test_core.py": '''\
        from reg import core


        def test_size():
            core.default.add(1)
            core.default.add(2)
            assert core.size() == 2
        ''',
}


async def test_a_list_a_module_objects_attribute_holds_changed_in_place_reaches_the_code(
        tmp_path):
    """What the test appended in place to a list an object of the module holds as an
    attribute reaches the code (the object crosses by its name); a wrong body fails."""
    root = make(tmp_path / "reg", REGISTRY)
    _, run = await review(root, "reg/core.py", "Registry.size")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "reg/core.py", "Registry.size",
                          "@property\ndef size(self):\n    return len(self.items) + 1\n")
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# tenacity 9.2.1: test_tenacity.py decorates functions at its import (`@retry`: handles of the
# code's closures); once the code's process was ended (another test's value that could not
# cross), every later test calling one of them was an error, "the object came from a process of
# the code under test that has ended", where plain pytest passes (3 + 9 tests of `wraps`).
ENDED = {
    "pyproject.toml": "[project]\nname = 'handles'\nversion = '0'\n",
    "handles/__init__.py": "",
    "handles/core.py": '''\
        def make(n):
            """A function adding ``n``; ``make(-1)`` ends its process."""
            if n == -1:
                import os

                os._exit(3)
            return lambda x: x + n
        ''',
    "tests/test_core.py": '''\
        from handles.core import make

        ADD = make(1)


        def test_a():
            assert ADD(1) == 2


        def test_b():
            make(-1)


        def test_c():
            assert ADD(2) == 3
        ''',
}


async def test_a_handle_of_an_ended_process_is_not_judged(tmp_path):
    """A handle the code made before its process ended (at a test module's import) makes a
    later test that uses it "not judged", never an error."""
    root = make(tmp_path / "handles", ENDED)
    _, run = await review(root, "handles/core.py", "make")
    found = {name: o.status for name, o in by_name(run).items()}
    assert found == {"test_a": "passed", "test_b": "error", "test_c": "not judged"}, run.outcomes


# tenacity 9.2.1: `@retry` over tornado's `@gen.coroutine` wraps a function that carries
# `__tornado_coroutine__ = True`, which `functools.wraps` copies into the wrapper's __dict__;
# the wrapper's handle took no dunder name but a few, so `gen.is_coroutine_function(wrapped)`
# was False (test_tornado.py: wrong failures of right code).
DUNDER_ATTRIBUTE = {
    "pyproject.toml": "[project]\nname = 'marks'\nversion = '0'\n",
    "marks/__init__.py": "",
    "marks/core.py": '''\
        import functools


        def wrap(f):
            """A wrapper of ``f`` with its names and attributes."""
            @functools.wraps(f)
            def wrapped(*args, **kwargs):
                return f(*args, **kwargs)
            return wrapped
        ''',
    "tests/test_core.py": '''\
        from marks.core import wrap


        def test_marked():
            def f():
                return 1

            f.__marked__ = True
            assert getattr(wrap(f), "__marked__", False) is True and wrap(f)() == 1
        ''',
}


async def test_a_dunder_attribute_of_a_functions_dict_crosses(tmp_path):
    """An attribute of a dunder name in a function's ``__dict__`` (one ``functools.wraps``
    copied) crosses with its handle; a wrong body fails."""
    root = make(tmp_path / "marks", DUNDER_ATTRIBUTE)
    _, run = await review(root, "marks/core.py", "wrap")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "marks/core.py", "wrap", "def wrap(f):\n"
                          "    def wrapped(*args, **kwargs):\n        return f(*args, **kwargs)\n"
                          "    return wrapped\n")
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# structlog 26.1.0: `_figure_out_exc_info(e)` returns `(type(e), e, e.__traceback__)`, and
# `test_exception` compares it with the test's exception's traceback; a traceback (frames)
# never crosses, so in the code's process the exception had none: right code "failed" (3 tests,
# also ConsoleRenderer's output without the traceback's lines).
TRACEBACKS = {
    "pyproject.toml": "[project]\nname = 'tbs'\nversion = '0'\n",
    "tbs/__init__.py": "",
    "tbs/core.py": '''\
        def exc_info(value):
            """``(class, exception, traceback)`` of an exception."""
            return (value.__class__, value, value.__traceback__)
        ''',
    "tests/test_core.py": '''\
        from tbs.core import exc_info


        def test_a_raised_exception():
            try:
                raise ValueError("test")
            except ValueError as error:
                caught = error
            assert exc_info(caught) == (ValueError, caught, caught.__traceback__)


        def test_an_exception_never_raised():
            error = KeyError("k")
            assert exc_info(error) == (KeyError, error, None)
        ''',
}


async def test_a_failure_after_an_exception_crossed_without_its_traceback_is_not_judged(
        tmp_path):
    """The test's exception crosses to the code without its traceback: a failure then is
    "not judged" (it may come from the traceback's absence), a pass stays one, and a wrong
    body fails where no traceback crossed."""
    root = make(tmp_path / "tbs", TRACEBACKS)
    _, run = await review(root, "tbs/core.py", "exc_info")
    found = {name: (o.status, o.message) for name, o in by_name(run).items()}
    assert found["test_an_exception_never_raised"][0] == "passed", found
    status, message = found["test_a_raised_exception"]
    assert status == "not judged" and "without its traceback" in message, found
    _, run = await review(root, "tbs/core.py", "exc_info",
                          "def exc_info(value):\n    return (type(value), value, 0)\n")
    found = {name: o.status for name, o in by_name(run).items()}
    assert found == {"test_a_raised_exception": "not judged",
                     "test_an_exception_never_raised": "failed"}, found


# python-dotenv (survey12): find_dotenv decides "interactive" by `hasattr(sys, "ps1")`, and
# its tests set `sys.ps1` (monkeypatch.setattr(sys, "ps1", ">>> ", raising=False)),
# `sys.gettrace` to a lambda, and `builtins.__import__` to a function of theirs.
SYS_PATCHES = {
    "pyproject.toml": "[project]\nname = 'where'\nversion = '0'\n",
    "where/__init__.py": "",
    "where/core.py": '''\
        import sys


        def interactive():
            """Whether this runs in a REPL (``sys.ps1``) or under a debugger."""
            return hasattr(sys, "ps1") or sys.gettrace() is not None


        def platform_name():
            return sys.platform


        def main_has_file():
            return hasattr(__import__("__main__"), "__file__")
        ''',
    "tests/test_core.py": '''\
        import builtins
        import sys
        import types

        from where.core import interactive, main_has_file, platform_name


        def test_in_a_repl(monkeypatch):
            monkeypatch.setattr(sys, "ps1", ">>> ", raising=False)
            assert interactive()


        def test_not_in_a_repl(monkeypatch):
            if hasattr(sys, "ps1"):
                monkeypatch.delattr(sys, "ps1")
            monkeypatch.setattr(sys, "gettrace", lambda: None)
            assert not interactive()


        def test_on_another_platform(monkeypatch):
            monkeypatch.setattr(sys, "platform", "darwin")
            assert platform_name() == "darwin"


        def test_a_main_without_a_file(monkeypatch):
            real = builtins.__import__

            def fake(name, *args, **kwargs):
                return types.ModuleType("__main__") if name == "__main__" else real(
                    name, *args, **kwargs)

            monkeypatch.setattr(builtins, "__import__", fake)
            assert not main_has_file()


        def test_printed(capsys):
            print("hello")
            assert platform_name() == sys.platform
            assert capsys.readouterr().out == "hello\\n"
        ''',
}


async def test_what_the_test_set_in_sys_is_the_codes(tmp_path):
    """``sys`` was never watched: the code saw no ``sys.ps1``, the real ``sys.gettrace`` and
    ``sys.platform``, and its own ``__import__`` (python-dotenv: 5 tests of ``find_dotenv``
    failed for right code). What the test sets in ``sys`` crosses for the call (its lambda
    as a callback); ``builtins.__import__`` replaced makes the test "not judged" (the code's
    process imports with its own)."""
    root = make(tmp_path / "where", SYS_PATCHES)
    _, run = await review(root, "where/core.py", "interactive")
    assert {n: o.status for n, o in by_name(run).items()} == {
        "test_in_a_repl": "passed", "test_not_in_a_repl": "passed"}, run.outcomes
    wrong = "def interactive():\n    return hasattr(sys, 'ps2')\n"
    _, run = await review(root, "where/core.py", "interactive", wrong)
    assert by_name(run)["test_in_a_repl"].status == "failed", run.outcomes
    _, run = await review(root, "where/core.py", "platform_name")
    assert {n: o.status for n, o in by_name(run).items()} == {
        "test_on_another_platform": "passed", "test_printed": "passed"}, run.outcomes
    _, run = await review(root, "where/core.py", "main_has_file")
    (outcome,) = run.outcomes
    assert outcome.status == "not judged" and "builtins.__import__" in outcome.message, outcome


# boolean.py (survey12): an algebra's TRUE and FALSE hold each other (`dual`) and themselves
# (`TRUE.TRUE`, `TRUE.FALSE`); `Symbol.__eq__` answers NotImplemented for a FALSE.
CROSS_REFERENCES = {
    "pyproject.toml": "[project]\nname = 'logic'\nversion = '0'\n",
    "logic/__init__.py": "",
    "logic/core.py": '''\
        class Element:
            def __init__(self):
                self.args = ()


        class Truth(Element):
            def __eq__(self, other):
                return self is other or isinstance(other, Truth)

            def __hash__(self):
                return hash(True)


        class Falsity(Element):
            def __eq__(self, other):
                return self is other or isinstance(other, Falsity)

            def __hash__(self):
                return hash(False)


        class Symbol(Element):
            def __init__(self, obj):
                super().__init__()
                self.obj = obj

            def __hash__(self):
                return hash(self.obj)

            def __eq__(self, other):
                if self is other:
                    return True
                if isinstance(other, Symbol):
                    return self.obj == other.obj
                return NotImplemented


        def algebra():
            true, false = Truth(), Falsity()
            true.dual, false.dual = false, true
            for element in (true, false):
                element.TRUE, element.FALSE = true, false
            return true, false


        def same(items):
            """Whether the second and the last of ``items`` are one object."""
            return items[1] is items[-1]
        ''',
    "tests/test_core.py": '''\
        from logic.core import Symbol, algebra, same


        def test_a_symbol_is_no_false():
            true, false = algebra()
            assert not (Symbol("c") == false)
            assert true.FALSE is false and true.TRUE is true and false.dual is true


        def test_after_the_type_of_none():
            true, false = algebra()
            assert same([type(None), false, false])
            assert not same([type(None), false, true])
        ''',
}


async def test_back_references_after_not_implemented_name_the_object_meant(tmp_path):
    """NotImplemented (and ``type(None)``) crossed one number (two) short of what the
    receiver's table counts for it: every later back-reference of the message named another
    object. boolean.py's ``Symbol.__eq__`` answered NotImplemented for a FALSE whose ``dual``
    holds TRUE: the write-back set ``TRUE.FALSE`` to the Symbol (5 tests of ``Symbol.__eq__``
    and ``Symbol.__hash__`` failed for right code: "'Symbol' object is not iterable")."""
    root = make(tmp_path / "logic", CROSS_REFERENCES)
    for name in ("Symbol.__eq__", "same"):
        _, run = await review(root, "logic/core.py", name)
        assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "logic/core.py", "same", "def same(items):\n    return True\n")
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# python-dotenv (survey12): `load_dotenv` sets what a `.env` names, its own switch
# `PYTHON_DOTENV_DISABLED` too, and the test compares os.environ.
ENVIRONMENT = {
    "pyproject.toml": "[project]\nname = 'envs'\nversion = '0'\n",
    "envs/__init__.py": "",
    "envs/core.py": '''\
        import os


        def load(values):
            """Set each of ``values`` (a dict) in ``os.environ``."""
            for key, value in values.items():
                os.environ[key] = value
        ''',
    "tests/test_core.py": '''\
        import os

        from envs.core import load


        def test_the_switch_is_set(monkeypatch):
            monkeypatch.delenv("PYTHON_ENVS_DISABLED", raising=False)
            load({"PYTHON_ENVS_DISABLED": "true"})
            assert os.environ.get("PYTHON_ENVS_DISABLED") == "true"
            monkeypatch.delenv("PYTHON_ENVS_DISABLED")


        def test_a_plain_name(monkeypatch):
            monkeypatch.delenv("ENVS_NAME", raising=False)
            load({"ENVS_NAME": "x"})
            assert os.environ["ENVS_NAME"] == "x"
            monkeypatch.delenv("ENVS_NAME")
        ''',
}


async def test_a_variable_the_judge_does_not_take_over_leaves_the_test_not_judged(tmp_path):
    """A ``PYTHON*`` variable the code set is not taken over: a pass was "not judged" but a
    failure stayed one, though the test failed for its absence (python-dotenv's
    ``test_load_dotenv_doesnt_disable_itself``: a wrong failure of right code)."""
    root = make(tmp_path / "envs", ENVIRONMENT)
    _, run = await review(root, "envs/core.py", "load")
    outcomes = by_name(run)
    assert outcomes["test_a_plain_name"].status == "passed", run.outcomes
    assert outcomes["test_the_switch_is_set"].status == "not judged", run.outcomes
    assert "PYTHON_ENVS_DISABLED" in outcomes["test_the_switch_is_set"].message
    _, run = await review(root, "envs/core.py", "load", "def load(values):\n    return None\n")
    assert {o.status for o in run.outcomes} == {"failed"}, run.outcomes


# python-dotenv (survey12, nj13): a fixture saves os.environ and puts it back after each test;
# the code sets a variable only when it is not set yet (`load_dotenv(override=False)`).
ENVIRONMENT_BACK = {
    "pyproject.toml": "[project]\nname = 'envs'\nversion = '0'\n",
    "envs/__init__.py": "",
    "envs/core.py": '''\
        import os


        def load(name, value):
            """Set ``name`` to ``value`` in ``os.environ`` unless it is set; its value."""
            os.environ.setdefault(name, value)
            return os.environ[name]
        ''',
    "tests/test_core.py": '''\
        import os

        import pytest

        from envs.core import load


        @pytest.fixture(autouse=True)
        def environ_back():
            saved = dict(os.environ)
            yield
            os.environ.clear()
            os.environ.update(saved)


        def test_first():
            assert load("ENVS_BACK", "1") == "1"


        def test_second():
            assert load("ENVS_BACK", "2") == "2"


        def test_put_back_between_calls():
            saved = dict(os.environ)
            assert load("ENVS_TWICE", "1") == "1"
            os.environ.clear()
            os.environ.update(saved)
            assert load("ENVS_TWICE", "2") == "2"
        ''',
}


async def test_the_environment_the_test_puts_back_reaches_the_code(tmp_path):
    """The code's variable is taken over into the test's process; the test (or a fixture)
    then puts os.environ back as it was before the call, byte for byte. The next call must
    send it again: the judge had kept its look from before the take-over and sent nothing,
    so the code's process still held the first call's variable (test_put_back_between_calls
    failed, '1' for '2'; python-dotenv's ``set_as_environment_variables`` under
    ``mock.patch.dict(os.environ, ..., clear=True)``: 3 wrong failures)."""
    root = make(tmp_path / "envs", ENVIRONMENT_BACK)
    _, run = await review(root, "envs/core.py", "load")
    assert [o.status for o in run.outcomes] == ["passed"] * 3, run.outcomes
    _, run = await review(root, "envs/core.py", "load",
                          "def load(name, value):\n    return None\n")
    assert {o.status for o in run.outcomes} == {"failed"}, run.outcomes


# python-dotenv (survey12): `parse_stream(stream)` reads the test's StringIO, or the file it
# opened in its tmp_path, with `stream.read()`.
STREAMS = {
    "pyproject.toml": "[project]\nname = 'pairs'\nversion = '0'\n",
    "pairs/__init__.py": "",
    "pairs/core.py": '''\
        def parse(stream):
            """``{key: value}`` of the ``key=value`` lines of a text stream, read to its end."""
            return dict(line.split("=", 1) for line in stream.read().splitlines() if line)


        def first_line(stream):
            """The first line of ``stream``, which is left at its start."""
            line = stream.readline()
            stream.seek(0)
            return line.strip()
        ''',
    "tests/test_core.py": '''\
        import io

        import pytest

        from pairs.core import first_line, parse


        @pytest.mark.parametrize("text, expected", [
            ("a=1\\nb=2\\n", {"a": "1", "b": "2"}),
            ("", {}),
        ])
        def test_a_string_stream(text, expected):
            stream = io.StringIO(text)
            assert parse(stream) == expected
            assert stream.tell() == len(text)


        def test_a_file(tmp_path):
            (tmp_path / "pairs.txt").write_text("x=y\\n")
            with open(tmp_path / "pairs.txt") as stream:
                assert parse(stream) == {"x": "y"}
                assert stream.read() == ""


        def test_the_first_line():
            stream = io.StringIO("one\\ntwo\\n")
            assert first_line(stream) == "one"
            assert stream.read() == "one\\ntwo\\n"
        ''',
}


async def test_the_tests_stream_is_read_where_it_is(tmp_path):
    """A test's stream (``io.StringIO``, an open file) crossed as an iterator whose every use
    but ``next()`` made the test "not judged" ("the iterator StringIO: .read": python-dotenv's
    ``parse_stream``, 188 tests, and ``dotenv_values``, 43). Its ``read``, ``readline``,
    ``seek``, ``tell``, ``write``... run on the test's own object in pytest's process, as the
    mapping methods of its objects do."""
    root = make(tmp_path / "pairs", STREAMS)
    _, run = await review(root, "pairs/core.py", "parse")
    assert [o.status for o in run.outcomes] == ["passed"] * 3, run.outcomes
    _, run = await review(root, "pairs/core.py", "first_line")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    wrong = "def first_line(stream):\n    return stream.readline().strip()\n"
    _, run = await review(root, "pairs/core.py", "first_line", wrong)
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# munch (survey12): `Munch(dict)` defines `__dict__` as a property (its items, as a new dict);
# `DefaultMunch` keeps its default in its own `__default__` attribute.
DICT_PROPERTY = {
    "pyproject.toml": "[project]\nname = 'bags'\nversion = '0'\n",
    "bags/__init__.py": "",
    "bags/core.py": '''\
        class Bag(dict):
            def __getattr__(self, k):
                try:
                    return object.__getattribute__(self, k)
                except AttributeError:
                    try:
                        return self[k]
                    except KeyError:
                        raise AttributeError(k)

            @property
            def __dict__(self):
                return dict(self)


        class DefaultBag(Bag):
            def __init__(self, default, **items):
                super().__init__(**items)
                object.__setattr__(self, "__default__", default)

            def __getattr__(self, k):
                try:
                    return super().__getattr__(k)
                except AttributeError:
                    return self.__default__

            def __getitem__(self, k):
                try:
                    return super().__getitem__(k)
                except KeyError:
                    return self.__default__


        def mark(bag):
            """Set ``bag.seen`` (an attribute, not an item)."""
            object.__setattr__(bag, "seen", True)
            return bag
        ''',
    "tests/test_core.py": '''\
        from bags.core import DefaultBag, mark


        def test_a_default():
            bag = DefaultBag(0, a=1)
            assert bag.a == 1 and bag.b == 0 and bag["c"] == 0


        def test_marked():
            bag = mark(DefaultBag(None, a=1))
            assert bag.seen is True and "seen" not in bag and bag.__dict__ == {"a": 1}
        ''',
}


async def test_an_objects_own_attributes_cross_past_a_dict_property(tmp_path):
    """The state of an object was read (and written) through ``obj.__dict__``: munch's
    ``__dict__`` property gave its items, so ``DefaultMunch``'s ``__default__`` never crossed
    and the code's ``__getattr__`` recursed ("maximum recursion depth exceeded": 31 tests of
    munch failed or crashed the judge for right code)."""
    root = make(tmp_path / "bags", DICT_PROPERTY)
    _, run = await review(root, "bags/core.py", "DefaultBag.__getattr__")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "bags/core.py", "mark")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    wrong = "def mark(bag):\n    bag['seen'] = True\n    return bag\n"
    _, run = await review(root, "bags/core.py", "mark", wrong)
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# munch (survey12): tests/test_readme.py runs README.md with `doctest.testfile`, which leaves
# `doctest.master` set to its runner; the tests after it were "not judged" for it.
DOCTEST_MASTER = {
    "pyproject.toml": "[project]\nname = 'twice'\nversion = '0'\n",
    "twice/__init__.py": "",
    "twice/core.py": '''\
        def double(x):
            """``x`` twice.

            >>> double(2)
            4
            """
            return 2 * x
        ''',
    "README.txt": ">>> from twice.core import double\n>>> double(21)\n42\n",
    "tests/test_a_readme.py": '''\
        import doctest
        import pathlib


        def test_readme():
            readme = pathlib.Path(__file__).parent.parent / "README.txt"
            assert doctest.testfile(str(readme), module_relative=False).failed == 0
        ''',
    "tests/test_core.py": '''\
        from twice.core import double


        def test_double():
            assert double(3) == 6
        ''',
}


async def test_doctests_own_state_is_the_runners(tmp_path):
    """``doctest.testfile`` sets ``doctest.master`` (a ``DocTestRunner``, which cannot cross)
    in a test module's library: every later test was "not judged" ("the test rebound
    doctest.master to what cannot cross"), the docstring's examples too. doctest's state is
    the test runner's, as pytest's is."""
    root = make(tmp_path / "twice", DOCTEST_MASTER)
    _, run = await review(root, "twice/core.py", "double")
    assert {o.test_id.split("::")[-1]: o.status for o in run.outcomes} == {
        "test_readme": "passed", "test_double": "passed", "doctest:1": "passed"}, run.outcomes


# munch (survey12): `toYAML` is defined under `try: import yaml`, then set on the class
# (`Munch.toYAML = toYAML`).
GUARDED = {
    "pyproject.toml": "[project]\nname = 'guarded'\nversion = '0'\n",
    "guarded/__init__.py": "",
    "guarded/core.py": '''\
        class Box(dict):
            pass


        try:
            import json
        except ImportError:  # pragma: no cover
            json = None
        else:
            def to_json(self):
                """The box as JSON text, keys sorted."""
                return json.dumps(self, sort_keys=True)

            Box.to_json = to_json

        if json is not None:
            def from_json(text):
                """A box of JSON text."""
                return Box(json.loads(text))
        ''',
    "tests/test_core.py": '''\
        from guarded.core import Box, from_json


        def test_to_json():
            assert Box(b=1, a=2).to_json() == '{"a": 2, "b": 1}'


        def test_from_json():
            assert from_json('{"a": 1}') == Box(a=1)
        ''',
}


async def test_a_function_defined_in_a_block_of_the_module_is_judged(tmp_path):
    """The judge's view looked for the function among the module's top statements only: one
    defined under ``try:``/``else:`` or ``if`` was "not a function of its module's text" and
    its tests were silently left out (munch's ``toYAML``: 8 tests missed)."""
    root = make(tmp_path / "guarded", GUARDED)
    for name in ("to_json", "from_json"):
        _, run = await review(root, "guarded/core.py", name)
        assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "guarded/core.py", "to_json", "def to_json(self):\n    return '{}'\n")
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# munch (survey12): a test makes `class CustomMunch(Munch)` in its function; the judged
# `Munch.__getattr__` answers every attribute the object lacks.
ANSWERS_ALL = {
    "pyproject.toml": "[project]\nname = 'loose'\nversion = '0'\n",
    "loose/__init__.py": "",
    "loose/core.py": '''\
        class Loose(dict):
            def __getattr__(self, k):
                """The item ``k``."""
                try:
                    return self[k]
                except KeyError:
                    raise AttributeError(k)
        ''',
    "tests/test_core.py": '''\
        from loose.core import Loose


        def test_a_subclass_made_here():
            class Custom(Loose):
                def __setitem__(self, k, v):
                    super().__setitem__(k, [v] * 2)

            custom = Custom()
            custom["a"] = "x"
            assert custom.a == ["x", "x"]


        def test_after_it():
            assert Loose(b=1).b == 1
        ''',
}


async def test_an_object_whose_getattr_is_judged_is_exported_without_asking_it(tmp_path):
    """Exporting a test's object read its ``__qualname__`` with ``getattr``: the class has
    none, so the judged ``__getattr__`` ran, which forwarded the object again, and so on
    until pytest's process died of SIGSEGV (munch's ``test_setitem_dunder_for_subclass``: an
    error of right code, and 5 later tests not run)."""
    root = make(tmp_path / "loose", ANSWERS_ALL)
    _, run = await review(root, "loose/core.py", "Loose.__getattr__")
    assert [o.status for o in run.outcomes] == ["passed", "passed"], run.outcomes
    wrong = "def __getattr__(self, k):\n    return None\n"
    _, run = await review(root, "loose/core.py", "Loose.__getattr__", wrong)
    assert [o.status for o in run.outcomes] == ["failed", "failed"], run.outcomes


# munch (survey12): tests/test_readme.py runs README.md with doctest.testfile; an example
# stores 'are pretty!' in a Munch, which the code gives back; a later example's source holds
# that text.
GIVEN_BACK = {
    "pyproject.toml": "[project]\nname = 'echo'\nversion = '0'\n",
    "echo/__init__.py": "",
    "echo/core.py": '''\
        def pick(items, key):
            """``items[key]``."""
            return items[key]
        ''',
    "README.txt": '''\
        >>> from echo.core import pick
        >>> pick({"ponies": "are pretty!"}, "ponies")
        'are pretty!'
        >>> print({"ponies": "are pretty!"})
        {'ponies': 'are pretty!'}
        ''',
    "tests/test_readme.py": '''\
        import doctest
        import pathlib


        def test_readme():
            readme = pathlib.Path(__file__).parent.parent / "README.txt"
            assert doctest.testfile(str(readme), module_relative=False).failed == 0


        def test_a_text_given_back_runs():
            from echo.core import pick

            assert eval(pick({"a": "1 + 2 + 3"}, "a") + " + 4") == 10
        ''',
}


async def test_a_text_the_test_gave_back_unchanged_is_the_tests_own(tmp_path):
    """Every text the judge decoded from the code's process counted as the code's: a test
    that then compiled source holding it was "not judged" ("the test runs text the code
    under test returned") though the text was the test's own, given back unchanged
    (munch's ``test_readme``, 5 functions). A text the code made stays refused."""
    root = make(tmp_path / "echo", GIVEN_BACK)
    _, run = await review(root, "echo/core.py", "pick")
    outcomes = by_name(run)
    assert outcomes["test_readme"].status == "passed", run.outcomes
    assert outcomes["test_a_text_given_back_runs"].status == "passed", run.outcomes
    wrong = "def pick(items, key):\n    return '(' + items[key] + ')'\n"
    _, run = await review(root, "echo/core.py", "pick", wrong)
    outcomes = by_name(run)
    assert outcomes["test_readme"].status == "failed", run.outcomes
    assert outcomes["test_a_text_given_back_runs"].status == "not judged", run.outcomes


# munch (survey12): `Munch.__setattr__`'s docstring sets `b.values = 'uh oh'`, then reads it;
# when the first example was "not judged", the second failed on what it left.
AFTER_NOT_JUDGED = {
    "pyproject.toml": "[project]\nname = 'names'\nversion = '0'\n",
    "names/__init__.py": "",
    "names/core.py": '''\
        def make(x):
            """An array holding ``x`` (of a C class: it cannot cross).

            >>> 1 + 1
            2
            >>> ns = make(1)
            >>> ns[0]
            1
            """
            import array

            return array.array("i", [x])
        ''',
}


async def test_an_example_after_one_not_judged_is_not_judged(tmp_path):
    """A docstring example whose value cannot cross is "not judged"; the next example, which
    reads the name it would have bound, failed (NameError) where plain doctest passes (munch
    ``Munch.__setattr__``'s example 4 after example 3). It is "not judged" too, its reason
    naming the one it follows."""
    root = make(tmp_path / "names", AFTER_NOT_JUDGED)
    _, run = await review(root, "names/core.py", "make")
    statuses = {o.test_id: o.status for o in run.outcomes}
    assert statuses == {"doctest:1": "passed", "doctest:2": "not judged",
                        "doctest:3": "not judged"}, run.outcomes
    assert "it reads ns, which doctest:2 would have bound" in by_name(run)["doctest:3"].message
    # any other failure after an example "not judged" stays one (wrong code cannot hide its
    # later failures behind an example it made "not judged": brk14's forged escapes)
    wrong = AFTER_NOT_JUDGED | {"names/core.py": AFTER_NOT_JUDGED["names/core.py"].replace(
        ">>> ns[0]\n            1", ">>> len('ns')\n            3")}
    root = make(tmp_path / "wrong", wrong)
    _, run = await review(root, "names/core.py", "make")
    statuses = {o.test_id: o.status for o in run.outcomes}
    assert statuses == {"doctest:1": "passed", "doctest:2": "not judged",
                        "doctest:3": "failed"}, run.outcomes


# structlog 26.1.0: its async logger methods set `_ASYNC_CALLING_STACK` (a ContextVar of
# `structlog.contextvars`) to the caller's frame; every test calling a function in that
# context was "not judged" ("the test's context variable ... holds what cannot cross (an
# object of builtins.frame)"), even when the code never reads the variable: 47 tests.
FRAME_VAR = {
    "pyproject.toml": "[project]\nname = 'calls'\nversion = '0'\n",
    "calls/__init__.py": "",
    "calls/core.py": '''\
        import contextvars

        CALLER = contextvars.ContextVar("CALLER")


        def double(x):
            """``2 * x``."""
            return 2 * x


        def caller_name():
            """The name of the function whose frame ``CALLER`` holds."""
            return CALLER.get().f_code.co_name


        def caller():
            """The frame ``CALLER`` holds."""
            return CALLER.get()


        def is_frame(x):
            """Whether ``x`` is a frame."""
            import types

            return isinstance(x, types.FrameType)
        ''',
    "tests/test_core.py": '''\
        import sys

        import pytest

        from calls.core import CALLER, caller, caller_name, double, is_frame


        @pytest.fixture(autouse=True)
        def _frame():
            token = CALLER.set(sys._getframe())
            yield
            CALLER.reset(token)


        def test_double():
            assert double(2) == 4


        def test_caller_name():
            assert caller_name() == "_frame"


        def test_caller():
            assert caller() is CALLER.get()


        def test_is_frame():
            assert is_frame(sys._getframe()) and not is_frame(1)
        ''',
}


async def test_a_frame_in_a_context_variable_the_code_does_not_read_is_judged(tmp_path):
    """A frame the test's context variable holds crosses as the test's opaque object: a
    call that does not look into it is judged, one that reads it is "not judged", the frame
    comes back as itself, and a wrong body fails."""
    root = make(tmp_path / "calls", FRAME_VAR)
    _, run = await review(root, "calls/core.py", "double")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "calls/core.py", "double", "def double(x):\n    return x\n")
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes
    _, run = await review(root, "calls/core.py", "caller")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "calls/core.py", "caller_name")
    assert [o.status for o in run.outcomes] == ["not judged"], run.outcomes
    assert "f_code" in run.outcomes[0].message, run.outcomes[0].message
    _, run = await review(root, "calls/core.py", "is_frame")  # (its class is a frame's)
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "calls/core.py", "is_frame",
                          "def is_frame(x):\n    return isinstance(x, type(len))\n")
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# structlog 26.1.0: the generic BoundLogger's `__getattr__` caches `partial(self._proxy_to_logger,
# name)` on itself; after a call of `_process_event` the partial came back as a handle of the
# code's process, and the test's `pickle.dumps(logger)` failed ("a callable of the code under
# test's process cannot be pickled") where plain pytest passes (`test_pickle[3..5]`).
CACHED_PARTIAL = {
    "pyproject.toml": "[project]\nname = 'logs'\nversion = '0'\n",
    "logs/__init__.py": "",
    "logs/core.py": '''\
        from functools import partial


        class Logger:
            def __init__(self):
                self.calls = 0

            def __getattr__(self, name):
                if name.startswith("__"):
                    raise AttributeError(name)
                wrapped = partial(self._proxy, name)
                setattr(self, name, wrapped)
                return wrapped

            def _proxy(self, name, *args):
                return process(self, name, *args)


        def process(logger, name, *args):
            """``(name, args)``, counted in ``logger.calls``."""
            logger.calls += 1
            return (name, args)
        ''',
    "tests/test_core.py": '''\
        import pickle

        from logs.core import Logger


        def test_pickle():
            logger = Logger()
            assert logger.info("hi") == ("info", ("hi",))
            again = pickle.loads(pickle.dumps(logger))
            assert again.info("hi") == ("info", ("hi",)) and again.calls == 2
        ''',
}


async def test_a_partial_of_a_bound_method_left_as_it_came_goes_back_as_itself(tmp_path):
    """A partial of a method of the object the code is given, which that object holds, goes
    back as the test's own when the code left it as it came (so that it pickles); a wrong
    body fails."""
    root = make(tmp_path / "logs", CACHED_PARTIAL)
    _, run = await review(root, "logs/core.py", "process")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "logs/core.py", "process",
                          "def process(logger, name, *args):\n    return (name, args)\n")
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# structlog 26.1.0: `_find_first_app_frame_and_name` walks `sys._getframe().f_back` past
# structlog's own frames to its caller's (CallsiteParameterAdder reads the frame's file, line
# and function): in the code's process that stack was the subject's, and the frame could not
# cross back ("the code under test sent what the judge does not rebuild (an object of
# builtins.frame ...)"): 90 tests "not judged".
WALK = {
    "pyproject.toml": "[project]\nname = 'walk'\nversion = '0'\n",
    "walk/__init__.py": "",
    "walk/core.py": '''\
        import sys


        def first_app_frame(end=False):
            """The first frame of the stack outside ``walk``, and its module's name; ``end``:
            its process ends instead."""
            if end:
                import os

                os._exit(3)
            f = sys._getframe()
            name = f.f_globals.get("__name__") or "?"
            while name.startswith("walk"):
                f = f.f_back
                name = f.f_globals.get("__name__") or "?"
            return f, name


        def caller_global():
            """The caller's global ``VALUE``."""
            return sys._getframe(1).f_globals["VALUE"]
        ''',
    "walk/adder.py": '''\
        from walk.core import first_app_frame


        def where():
            frame, name = first_app_frame()
            return name, frame.f_code.co_name, frame.f_lineno
        ''',
    "tests/test_core.py": '''\
        import sys

        from walk.adder import where
        from walk.core import caller_global, first_app_frame

        VALUE = 3


        def test_an_ended_process():
            first_app_frame(end=True)


        def test_where():
            line = sys._getframe().f_lineno + 1
            assert where() == (__name__, "test_where", line)


        def test_the_frame_is_the_tests():
            frame, name = first_app_frame()
            assert frame is sys._getframe() and name == __name__


        def test_caller_global():
            assert caller_global() == 3
        ''',
}


async def test_the_code_walks_the_tests_stack_from_its_own_frame(tmp_path):
    """The code is called from frames standing for the test's stack: walking ``f_back``
    past its own frames it finds its callers' names, functions and lines, the frame it
    returns is the test's own; reading their globals but ``__name__`` is "not judged"; a
    wrong body fails."""
    root = make(tmp_path / "walk", WALK)
    _, run = await review(root, "walk/core.py", "first_app_frame")
    found = {name: (o.status, o.message) for name, o in by_name(run).items()}
    assert {name: status for name, (status, _) in found.items()} == {
        "test_an_ended_process": "error", "test_where": "passed",
        "test_the_frame_is_the_tests": "passed"}, found  # (the last two: a new process)
    _, run = await review(root, "walk/core.py", "caller_global")
    outcome = by_name(run)["test_caller_global"]
    assert outcome.status == "not judged" and "'VALUE'" in outcome.message, run.outcomes
    wrong = '''def first_app_frame(end=False):
    f = sys._getframe()
    name = f.f_globals.get("__name__") or "?"
    while name.startswith("walk"):
        f = f.f_back
        name = f.f_globals.get("__name__") or "?"
    return f.f_back, name
'''
    _, run = await review(root, "walk/core.py", "first_app_frame", wrong)
    found = {name: o.status for name, o in by_name(run).items()}
    assert found == {"test_an_ended_process": "passed", "test_where": "failed",
                     "test_the_frame_is_the_tests": "failed"}, found


# structlog 26.1.0: `_figure_out_exc_info(True)` returns `sys.exc_info()` when the test calls
# it in an except block; the code's process raised the test's exception to handle it, and
# the traceback of that raise could not cross back ("the code under test sent what the
# judge does not rebuild (an object of builtins.traceback ...)"): 15 tests "not judged".
HANDLED_TRACEBACK = {
    "pyproject.toml": "[project]\nname = 'excs'\nversion = '0'\n",
    "excs/__init__.py": "",
    "excs/core.py": '''\
        import sys


        def exc_info(v):
            """``sys.exc_info()`` when ``v`` is true, else None."""
            return sys.exc_info() if v else None
        ''',
    "tests/test_core.py": '''\
        import sys

        from excs.core import exc_info


        def test_in_an_except_block():
            try:
                1 / 0
            except ZeroDivisionError:
                ei = sys.exc_info()
                assert exc_info(True) == ei


        def test_false():
            assert exc_info(False) is None
        ''',
}


async def test_the_traceback_of_the_exception_the_test_handles_goes_back_as_its_own(tmp_path):
    """The traceback of the exception the test handles at the call, which the code's
    ``sys.exc_info()`` gives, goes back as the test's own; a wrong body fails."""
    root = make(tmp_path / "excs", HANDLED_TRACEBACK)
    _, run = await review(root, "excs/core.py", "exc_info")
    found = {name: (o.status, o.message) for name, o in by_name(run).items()}
    assert {name: status for name, (status, _) in found.items()} == {
        "test_in_an_except_block": "passed", "test_false": "passed"}, found
    _, run = await review(root, "excs/core.py", "exc_info",
                          "def exc_info(v):\n    return sys.exc_info()\n")
    found = {name: o.status for name, o in by_name(run).items()}
    assert found == {"test_in_an_except_block": "passed", "test_false": "failed"}, found


# hpack 4.2.0: a hypothesis test (`@given`) saves each example to its database: a temporary
# file in /tmp, read back and renamed away; the printer then parses a value's repr
# (`ast.parse(repr(obj))`). A file of the shared /tmp read and changed since made any source
# made after it "the code's text", parsing too: "the test runs text the code under test
# returned" for a test that ran none (1 test of each of hpack's ten functions).
PARSED = {
    "pyproject.toml": "[project]\nname = 'ints'\nversion = '0'\n",
    "ints/__init__.py": "",
    "ints/core.py": '''\
        def encode(n):
            """``n``'s decimal digits as bytes."""
            return str(n).encode()


        def listing(n):
            """The text of a Python list of 0 .. n - 1."""
            return repr(list(range(n)))
        ''',
    "tests/test_core.py": '''\
        import ast
        import os
        import tempfile

        from ints.core import encode, listing


        def save(data, folder):
            fd, path = tempfile.mkstemp()
            os.write(fd, data)
            os.close(fd)
            with open(path, "rb") as file:
                data = file.read()
            os.replace(path, folder / "example")


        def test_saved_then_parsed(tmp_path):
            data = encode(12345678)
            save(b"x = " + data, tmp_path)
            assert ast.parse(repr(data)).body[0].value.value == b"12345678"


        def test_compiled_under_the_name_ast_parse_gives():
            assert eval(compile(listing(5), "<unknown>", "eval")) == [0, 1, 2, 3, 4]
        ''',
}


async def test_a_parse_after_a_file_read_and_changed_runs_nothing(tmp_path):
    """``ast.parse`` (known by its code, not by the name ``"<unknown>"`` it compiles under)
    after a file of the shared /tmp was read and changed is judged; a compile under that
    name of the code's text is still "not judged"."""
    root = make(tmp_path / "ints", PARSED)
    _, run = await review(root, "ints/core.py", "encode")
    found = {name: (o.status, o.message) for name, o in by_name(run).items()}
    assert found["test_saved_then_parsed"][0] == "passed", found
    _, run = await review(root, "ints/core.py", "encode", "def encode(n):\n    return b'1'\n")
    assert by_name(run)["test_saved_then_parsed"].status == "failed", run.outcomes
    _, run = await review(root, "ints/core.py", "listing")
    outcome = by_name(run)["test_compiled_under_the_name_ast_parse_gives"]
    assert outcome.status == "not judged", outcome
    assert "runs text the code under test returned" in outcome.message, outcome


# python-multipart 0.0.34: test methods named after their parameters, two of them 10 MB long
# (`b"\r\n" * 5_000_000 + ...`); each event of the judge's naming one whole (collected,
# start, outcome) went into its results file past the run's file size limit (16 MiB): the
# selection's pytest process "ended during this test" and the rest went unreported (25 tests
# of python-multipart's functions "not looked at", create_form_parser's all six).
LONG_IDS = {
    "pyproject.toml": "[project]\nname = 'hdr'\nversion = '0'\n",
    "hdr/__init__.py": "",
    "hdr/core.py": '''\
        def first_line(data):
            """``data`` up to its first CRLF."""
            return data.split(b"\\r\\n", 1)[0]
        ''',
    "tests/test_core.py": '''\
        from hdr.core import first_line

        for index, data in enumerate([b"\\r\\n" * 100 + b"a", b"\\r\\n" * 1000 + b"b"]):
            def test(data=data):
                assert first_line(data) == b""

            globals()["test_preamble_" + "rn" * 5_000_000 + str(index)] = test
        del test


        def test_after():
            assert first_line(b"x\\r\\ny") == b"x"
        ''',
}


async def test_tests_with_node_ids_of_megabytes_are_judged(tmp_path):
    """Each test is selected and judged under a node id cut to its head and a digest."""
    root = make(tmp_path / "hdr", LONG_IDS)
    _, run = await review(root, "hdr/core.py", "first_line")
    found = sorted((len(o.test_id), o.status) for o in run.outcomes)
    assert [status for _, status in found] == ["passed"] * 3, found
    assert found[-1][0] < 1100, found
    _, run = await review(root, "hdr/core.py", "first_line",
                          "def first_line(data):\n    return data[:2]\n")
    assert sorted(o.status for o in run.outcomes) == ["failed"] * 3, run.outcomes
# python-dotenv 1.2.4 (survey12, nj13): click calls `list_values(ctx, ...)` with its Context,
# which holds its parent Context, the Group and Command (module globals, crossing by name), a
# `Path` in `ctx.obj` and Options whose default is click's `UNSET` (an enum member). The
# Context, left as it came, could not go back (only plain data and proxies counted as "as it
# came"): all 13 tests "not judged", and the `return None` mutant with them. An object that
# crossed with such a state, a global crossing by name, a frozen standard value or an enum
# member counts too, each object checked at any depth; one the code changed cannot cross.
NAMESPACES = {
    "pyproject.toml": "[project]\nname = 'cmds'\nversion = '0'\n",
    "cmds/__init__.py": "",
    "cmds/core.py": '''\
        import argparse

        PARSER = argparse.ArgumentParser(prog="cmds")


        def listing(ctx):
            """``"<prog>: <file name> <depth>"`` of click-like ``ctx`` (an argparse Namespace)."""
            return f"{ctx.command.prog}: {ctx.obj['FILE'].name} {ctx.parent.depth}"
        ''',
    "tests/test_core.py": '''\
        import argparse
        import http

        from cmds.core import PARSER, listing


        def test_listing(tmp_path):
            parent = argparse.Namespace(depth=0, command=PARSER, status=http.HTTPStatus.OK)
            ctx = argparse.Namespace(parent=parent, command=PARSER, default=http.HTTPStatus.OK,
                                     obj={"FILE": tmp_path / "a.env"})
            assert listing(ctx) == "cmds: a.env 0"
            assert ctx.parent is parent and parent.depth == 0
        ''',
}


async def test_a_library_object_holding_others_left_as_it_came_goes_back_as_itself(tmp_path):
    """The Namespace holding another, a global, an enum member and a Path: judged (was "not
    judged"); a wrong body fails; one that changes the parent in place stays "not judged"."""
    root = make(tmp_path / "cmds", NAMESPACES)
    _, run = await review(root, "cmds/core.py", "listing")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "cmds/core.py", "listing", "def listing(ctx):\n    return None\n")
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes
    changed = ("def listing(ctx):\n    ctx.parent.depth = 0.0\n"
               "    return f\"{ctx.command.prog}: {ctx.obj['FILE'].name} 0\"\n")
    _, run = await review(root, "cmds/core.py", "listing", changed)
    assert [o.verdict for o in run.outcomes] == ["not judged"], run.outcomes
    # (plain pytest: failed, parent.depth == 5; the changed Namespace went back as a handle
    # of the code's, its change lost: "passed", a forged pass, on the merge of brk15 and nj13)
    _, run = await review(root, "cmds/core.py", "listing", changed.replace("0.0", "5"))
    assert [o.verdict for o in run.outcomes] == ["not judged"], run.outcomes


# python-dotenv 1.2.4 (survey12, nj13): `rewrite` is a contextmanager that yields the file it
# opened and a `tempfile.NamedTemporaryFile` to write, then renames the one over the other;
# `set_key` (in the test's process) reads the first and writes the second. The code's
# streams crossed as iterators (next() only) and the temporary file's wrapper not at all: all
# 47 tests "not judged". A stream of the code's (an io object, or the wrapper of one) now
# crosses as a handle whose stream methods (read, write, ...) run on it in the code's process.
CODE_STREAMS = {
    "pyproject.toml": "[project]\nname = 'envs'\nversion = '0'\n",
    "envs/__init__.py": "",
    "envs/core.py": '''\
        import contextlib
        import os
        import tempfile


        @contextlib.contextmanager
        def rewrite(path):
            """Yield ``(source, dest)``: ``path`` open to read, a temporary file beside it to
            write, renamed over ``path`` at the end."""
            with open(path) as source, tempfile.NamedTemporaryFile(
                    "w", dir=os.path.dirname(path), delete=False) as dest:
                yield source, dest
            os.replace(dest.name, path)


        def upper_keys(path):
            with rewrite(path) as (source, dest):
                first = source.readline()
                dest.write(first.upper())
                for line in source:
                    dest.write(line.upper())


        def temp_beside(path):
            with rewrite(path) as (source, dest):
                dest.write(source.read())
                return dest.name.startswith(os.path.dirname(path))
        ''',
    "tests/test_core.py": '''\
        from envs.core import temp_beside, upper_keys


        def test_upper_keys(tmp_path):
            path = tmp_path / ".env"
            path.write_text("a=1\\nb=2\\nc=3\\n")
            upper_keys(str(path))
            assert path.read_text() == "A=1\\nB=2\\nC=3\\n"


        def test_temp_beside(tmp_path):
            path = tmp_path / ".env"
            path.write_text("a=1\\n")
            assert temp_beside(str(path)) is True
        ''',
}


async def test_the_codes_streams_are_read_and_written_where_they_live(tmp_path):
    """The code's file and temporary file: judged (was "not judged"); a test reading what is
    no stream method of them (``dest.name``) is "not judged" (it failed: AttributeError); a
    body that yields the streams the other way round fails."""
    root = make(tmp_path / "envs", CODE_STREAMS)
    _, run = await review(root, "envs/core.py", "rewrite")
    found = by_name(run)
    assert found["test_upper_keys"].status == "passed", run.outcomes
    assert found["test_temp_beside"].verdict == "not judged", run.outcomes
    assert "beyond its stream methods, which alone cross (.name)" in found[
        "test_temp_beside"].message
    swapped = ("@contextlib.contextmanager\ndef rewrite(path):\n"
               "    with open(path) as source, tempfile.NamedTemporaryFile(\n"
               "            'w', dir=os.path.dirname(path), delete=False) as dest:\n"
               "        yield dest, source\n    os.replace(dest.name, path)\n")
    _, run = await review(root, "envs/core.py", "rewrite", swapped)
    assert by_name(run)["test_upper_keys"].status == "failed", run.outcomes


# boolean.py 5.0 (survey12): `Function.__str__` reads `self.args` of a test's `CountingAnd`
# (a class made in the test function): a tuple of the test's objects. The judge answers an
# attribute read only with plain data, so the test is "not judged", but the reason said "a
# builtins.tuple the code could change in place": a tuple cannot change; its items are what
# is no plain data, and the reason now names them.
TUPLE_READ = {
    "pyproject.toml": "[project]\nname = 'terms'\nversion = '0'\n",
    "terms/__init__.py": "",
    "terms/core.py": '''\
        def arity(term):
            """The number of ``term.args``."""
            return len(term.args)
        ''',
    "tests/test_core.py": '''\
        from terms.core import arity


        def test_arity():
            class Leaf:
                pass

            class Node:
                def __init__(self, *args):
                    self.args = args

            assert arity(Node(Leaf(), Leaf())) == 2
        ''',
}


async def test_a_read_tuple_of_the_tests_objects_is_named_by_its_items(tmp_path):
    root = make(tmp_path / "terms", TUPLE_READ)
    _, run = await review(root, "terms/core.py", "arity")
    (outcome,) = run.outcomes
    assert outcome.verdict == "not judged", outcome
    assert (".args, a builtins.tuple holding a test_core.test_arity.<locals>.Leaf, "
            "which is no plain data") in outcome.message, outcome.message


# python-multipart 0.0.34 (survey13): its parsers keep `logging.getLogger(__name__)`, whose
# parent, the root logger, holds pytest's capture handlers: every test passing a parser to the
# code was "not judged" (57 of 168: "an object of _pytest.logging._LiveLoggingNullHandler").
# A logger that `getLogger(name)` finds crosses by its name; one made otherwise does not.
LOGGERS = {
    "pyproject.toml": "[project]\nname = 'feeds'\nversion = '0'\n",
    "feeds/__init__.py": "",
    "feeds/core.py": '''\
        import logging


        class Parser:
            def __init__(self, logger=None):
                self.logger = logger or logging.getLogger(__name__)
                self.seen = []


        def feed(parser, data):
            """Log and keep ``data``; how many ``parser`` has seen."""
            parser.logger.warning("feeding %r", data)
            parser.seen.append(data)
            return len(parser.seen)
        ''',
    "tests/test_core.py": '''\
        import logging

        from feeds.core import Parser, feed


        def test_feed(caplog):
            parser = Parser()
            assert feed(parser, "a") == 1 and feed(parser, "b") == 2
            assert parser.seen == ["a", "b"]
            assert parser.logger is logging.getLogger("feeds.core")
            assert "feeding 'a'" in caplog.text


        def test_root(caplog):
            parser = Parser(logging.getLogger())
            assert feed(parser, "c") == 1 and parser.logger is logging.root


        def test_unnamed():
            parser = Parser(logging.Logger("mine"))
            assert feed(parser, "d") == 1
        ''',
}


async def test_a_logger_getlogger_finds_crosses_by_its_name(tmp_path):
    """A module's logger and the root logger, held by the test's object: judged, the code's
    records in caplog; a logger made as ``Logger("mine")`` stays "not judged" (by name the
    code would get another); a wrong body fails."""
    root = make(tmp_path / "feeds", LOGGERS)
    _, run = await review(root, "feeds/core.py", "feed")
    outcomes = by_name(run)
    assert outcomes["test_feed"].status == "passed", run.outcomes
    assert outcomes["test_root"].status == "passed", run.outcomes
    assert outcomes["test_unnamed"].status == "not judged", run.outcomes
    _, run = await review(root, "feeds/core.py", "feed",
                          "def feed(parser, data):\n    parser.seen.append(data)\n"
                          "    return len(parser.seen)\n")
    assert by_name(run)["test_feed"].status == "failed", run.outcomes


# python-multipart 0.0.34 (survey13): `class FileError(FormParserError, OSError)` with
# `FormParserError(ValueError)`; the code raises it and the test expects it. The judge made it
# again by ValueError's __new__, which refuses a class laid out as an OSError: "a malformed
# answer", an error for right code (hidden behind the loggers' "not judged" until those crossed).
TWO_BUILTINS = {
    "pyproject.toml": "[project]\nname = 'files'\nversion = '0'\n",
    "files/__init__.py": "",
    "files/core.py": '''\
        class FormParserError(ValueError):
            pass


        class FileError(FormParserError, OSError):
            pass


        def flush(path):
            """Raise FileError: nothing can be written to ``path`` here."""
            raise FileError("Error opening temporary file: %r" % path)
        ''',
    "tests/test_core.py": '''\
        import pytest

        from files.core import FileError, flush


        def test_flush():
            with pytest.raises(FileError, match="temporary"):
                flush("/nowhere")


        def test_flush_is_a_value_error():
            with pytest.raises(ValueError):
                flush("/nowhere")
        ''',
}


async def test_an_exception_of_two_builtin_bases_crosses(tmp_path):
    """Made again by the builtin whose layout it has (OSError): both tests judged and passed;
    a body raising a plain ValueError fails the first."""
    root = make(tmp_path / "files", TWO_BUILTINS)
    _, run = await review(root, "files/core.py", "flush")
    assert [o.status for o in run.outcomes] == ["passed", "passed"], run.outcomes
    _, run = await review(root, "files/core.py", "flush",
                          "def flush(path):\n    raise ValueError('temporary')\n")
    assert by_name(run)["test_flush"].status == "failed", run.outcomes
