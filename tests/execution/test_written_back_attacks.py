"""brk12: what the code changes in place in objects of the test's it was handed, or can reach
(the exception the test is handling, ``sys.exc_info()``), must reach the test as under plain
pytest, in one process: a change lost is a wrong failure of right code (``add_note`` on the
test's exception) or a pass of wrong code (one that spoils the test's exception). Real
sandbox, a small project each."""

from __future__ import annotations

import pytest
from test_one_judge import by_name, make, review

pytestmark = pytest.mark.sandbox

NOTES = {
    "pyproject.toml": "[project]\nname = 'notes'\nversion = '0'\n",
    "notes/__init__.py": "",
    "notes/core.py": '''\
        import sys


        class Boom(Exception):
            pass


        def annotate(error, note):
            """Add ``note`` to ``error`` and return it."""
            error.add_note(note)
            return error


        def annotate_current(note):
            """Add ``note`` to the exception being handled."""
            sys.exc_info()[1].add_note(note)


        def code_of(error):
            """The code of ``error`` (its first argument's length)."""
            return len(error.args[0])
        ''',
    "tests/test_core.py": '''\
        from notes.core import Boom, annotate, annotate_current, code_of


        def test_annotate():
            error = ValueError("x")
            assert annotate(error, "seen") is error
            assert error.__notes__ == ["seen"]


        def test_annotate_current():
            for kind in (KeyError, Boom):
                try:
                    raise kind("k")
                except kind as error:
                    annotate_current("while")
                    assert error.__notes__ == ["while"]


        def test_code_of():
            error = Boom("abc")
            assert code_of(error) == 3
            assert error.args == ("abc",) and not hasattr(error, "__notes__")
        ''',
}


@pytest.mark.parametrize("name", ["annotate", "annotate_current"])
async def test_a_note_the_code_adds_to_the_tests_exception_reaches_it(tmp_path, name):
    """An exception of the test's, handed to the code or being handled while the test calls
    it, is written back after the call (its args, its ``__dict__``: ``__notes__``) and keeps
    its identity (before: 'failed', "'ValueError' object has no attribute '__notes__'")."""
    root = make(tmp_path / "notes", NOTES)
    _, run = await review(root, "notes/core.py", name)
    assert by_name(run)[f"test_{name}"].status == "passed", run.outcomes


@pytest.mark.parametrize("spoil", ["error.args = ('abc',) * 2", "error.add_note('spoilt')"])
async def test_wrong_code_spoiling_the_tests_exception_is_no_pass(tmp_path, spoil):
    """Wrong code that changes the test's exception fails the test that looks at it after,
    as under plain pytest (before: 'passed')."""
    root = make(tmp_path / "notes", NOTES)
    _, run = await review(root, "notes/core.py", "code_of")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    body = f"def code_of(error):\n    n = len(error.args[0])\n    {spoil}\n    return n\n"
    _, run = await review(root, "notes/core.py", "code_of", body)
    assert by_name(run)["test_code_of"].status == "failed", run.outcomes


# A generator's body runs at each next(), a closure's at its call, after the call that made it
# crossed back: what it changes then in the arguments that call was given is, under plain
# pytest, the test's own object. Each later run of a handle the code returned writes that
# call's arguments back (and is sent what the test changed in them since). And a list the test
# sends (gen.send(mine)) is changed in place.
GENERATORS = {
    "pyproject.toml": "[project]\nname = 'gens'\nversion = '0'\n",
    "gens/__init__.py": "",
    "gens/core.py": '''\
        def drain(source, log):
            """Each of ``source`` doubled, logged in ``log`` as it goes."""
            for x in source:
                log.append(x)
                yield x * 2


        def ordered(items):
            """``items`` in order, one by one (``items`` left as it is)."""
            yield from sorted(items)


        def recorder(log):
            """A function appending what it is given to ``log``."""
            def add(x):
                log.append(x)
            return add


        def appender(log):
            """``log``'s own ``append``."""
            return log.append


        def windows(items):
            """One list, grown by each of ``items`` in turn, yielded after each."""
            seen = []
            for x in items:
                seen.append(x)
                yield seen


        def pair(log):
            """A function appending to ``log`` and a generator of ``log``'s lengths."""
            def lengths():
                while True:
                    yield len(log)
            return log.append, lengths()


        def loggers(log):
            """For each name sent, a function appending (name, x) to ``log``."""
            name = yield
            while True:
                name = yield (lambda x, name=name: log.append((name, x)))


        def grow():
            """Each list sent gets a 0 appended; its new length is yielded."""
            got = yield
            while True:
                got.append(0)
                got = yield len(got)
        ''',
    "tests/test_core.py": '''\
        from gens.core import appender, drain, grow, loggers, ordered, pair, recorder, windows


        def test_drain():
            log = []
            assert list(drain([1, 2], log)) == [2, 4]
            assert log == [1, 2]


        def test_drain_cleared_between():
            log = []
            gen = drain([1, 2, 3], log)
            assert next(gen) == 2 and log == [1]
            log.clear()
            assert list(gen) == [4, 6]
            assert log == [2, 3]


        def test_drain_inside_another():
            first, second = [], []
            made = drain([1, 2], first)

            def source():
                yield from made  # (its next() runs inside the second call)

            assert list(drain(source(), second)) == [4, 8]
            assert first == [1, 2] and second == [2, 4]


        def test_windows():
            got = list(windows([1, 2, 3]))
            assert got[0] is got[2] and got[0] == [1, 2, 3]


        def test_loggers():
            log = []
            gen = loggers(log)
            next(gen)
            gen.send("a")(1)
            gen.send("b")(2)
            assert log == [("a", 1), ("b", 2)]


        def test_pair():
            log = []
            add, lengths = pair(log)
            assert next(lengths) == 0
            add(1)
            assert next(lengths) == 1
            log.pop()
            assert next(lengths) == 0
            log.extend([2, 3])
            assert next(lengths) == next(lengths) == 2
            add(4)
            assert log == [2, 3, 4]


        def test_ordered():
            items = [3, 1, 2]
            assert list(ordered(items)) == [1, 2, 3]
            assert items == [3, 1, 2]


        def test_recorder():
            log = []
            add = recorder(log)
            add(1)
            assert log == [1]
            add(2)
            assert log == [1, 2]


        def test_appender():
            log = [0]
            push = appender(log)
            push(1)
            push(2)
            assert log == [0, 1, 2]


        def test_grow():
            gen = grow()
            next(gen)
            mine = [1]
            assert gen.send(mine) == 2
            assert mine == [1, 0]
        ''',
}

WRONG_LATER = {
    "drain": "def drain(source, log):\n    for x in source:\n        log.append(x)\n"
             "        log.sort(reverse=True)\n        yield x * 2\n",
    "recorder": "def recorder(log):\n    def add(x):\n        log.append(x)\n"
                "        log.append(x)\n    return add\n",
    "appender": "def appender(log):\n    return lambda x: log.extend((x, x))\n",
    "ordered": "def ordered(items):\n    items.sort()\n    yield from items\n",
    "pair": "def pair(log):\n    def lengths():\n        while True:\n"
            "            yield len(log)\n            log.clear()\n"
            "    return log.append, lengths()\n",
    "loggers": "def loggers(log):\n    name = yield\n    while True:\n"
               "        name = yield (lambda x, name=name: log.append((x, name)))\n",
}


async def test_what_a_generator_or_closure_the_code_returned_changes_later_reaches_the_test(
        tmp_path):
    """Right code's generator (or closure, or bound method, or a closure its generator
    yields) appending to the test's list at a later next() (its call) passes, a next() run
    inside a later call of the code too; the test's own change between two runs reaches the
    code (before: 'not judged', "after the call that gave it": brk12's look at the test's
    end)."""
    root = make(tmp_path / "gens", GENERATORS)
    for name, tests in (("drain", ["test_drain", "test_drain_cleared_between",
                                   "test_drain_inside_another"]),
                        ("recorder", ["test_recorder"]), ("appender", ["test_appender"]),
                        ("ordered", ["test_ordered"]), ("loggers", ["test_loggers"]),
                        ("pair", ["test_pair"])):
        _, run = await review(root, "gens/core.py", name)
        assert [by_name(run)[t].status for t in tests] == ["passed"] * len(tests), run.outcomes


async def test_what_a_generator_yields_again_is_the_same_object(tmp_path):
    """The later runs of a generator go on with the numbering of the call that made it: a
    list it yields twice is one object in the test, holding what it holds at the end, as
    under plain pytest (before: 'failed', three copies [1], [1, 2], [1, 2, 3])."""
    root = make(tmp_path / "gens", GENERATORS)
    _, run = await review(root, "gens/core.py", "windows")
    assert by_name(run)["test_windows"].status == "passed", run.outcomes
    _, run = await review(root, "gens/core.py", "windows", "def windows(items):\n"
                          "    for i in range(len(items)):\n        yield items[:i + 1]\n")
    assert by_name(run)["test_windows"].status == "failed", run.outcomes


@pytest.mark.parametrize("name", sorted(WRONG_LATER))
async def test_wrong_code_whose_generator_or_closure_spoils_the_tests_list_fails(tmp_path, name):
    """Wrong code's generator sorting the test's list in place as it runs, its closure
    appending twice: 'failed', as under plain pytest (before: 'not judged'; never a pass)."""
    root = make(tmp_path / "gens", GENERATORS)
    _, run = await review(root, "gens/core.py", name, WRONG_LATER[name])
    statuses = {o.test_id.split("::")[-1]: o.status for o in run.outcomes}
    assert statuses and set(statuses.values()) == {"failed"}, run.outcomes


async def test_what_the_code_changes_in_a_value_sent_to_its_generator_reaches_the_test(
        tmp_path):
    """(before: 'failed', the test's list [1])"""
    root = make(tmp_path / "gens", GENERATORS)
    _, run = await review(root, "gens/core.py", "grow")
    assert by_name(run)["test_grow"].status == "passed", run.outcomes
    _, run = await review(root, "gens/core.py", "grow", "def grow():\n    got = yield\n"
                          "    while True:\n        got = yield len(got) + 1\n")
    assert by_name(run)["test_grow"].status == "failed", run.outcomes
