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


# A generator's body runs at each next(), after the call that made it crossed back: what it
# changes then in the arguments it was given is the code's copy only, where under plain pytest
# it is the test's own list. And a list the test sends (gen.send(mine)) is changed in place.
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


        def grow():
            """Each list sent gets a 0 appended; its new length is yielded."""
            got = yield
            while True:
                got.append(0)
                got = yield len(got)
        ''',
    "tests/test_core.py": '''\
        from gens.core import drain, grow, ordered, recorder


        def test_drain():
            log = []
            assert list(drain([1, 2], log)) == [2, 4]
            assert log == [1, 2]


        def test_ordered():
            items = [3, 1, 2]
            assert list(ordered(items)) == [1, 2, 3]
            assert items == [3, 1, 2]


        def test_recorder():
            log = []
            add = recorder(log)
            add(1)
            assert log == [1]


        def test_grow():
            gen = grow()
            next(gen)
            mine = [1]
            assert gen.send(mine) == 2
            assert mine == [1, 0]
        ''',
}


async def test_a_generator_changing_its_arguments_after_its_call_is_not_judged(tmp_path):
    """Right code's generator (or closure) appending to the test's list (before: 'failed', the
    test's list empty), wrong code's sorting the test's list in place (before: 'passed')."""
    root = make(tmp_path / "gens", GENERATORS)
    for name in ("drain", "recorder"):  # (a closure's call too)
        _, run = await review(root, "gens/core.py", name)
        assert by_name(run)[f"test_{name}"].status == "not judged", run.outcomes
        assert "after the call that gave it" in by_name(run)[f"test_{name}"].message
    _, run = await review(root, "gens/core.py", "ordered")
    assert by_name(run)["test_ordered"].status == "passed", run.outcomes
    _, run = await review(root, "gens/core.py", "ordered",
                          "def ordered(items):\n    items.sort()\n    yield from items\n")
    assert by_name(run)["test_ordered"].status == "not judged", run.outcomes


async def test_what_the_code_changes_in_a_value_sent_to_its_generator_reaches_the_test(
        tmp_path):
    """(before: 'failed', the test's list [1])"""
    root = make(tmp_path / "gens", GENERATORS)
    _, run = await review(root, "gens/core.py", "grow")
    assert by_name(run)["test_grow"].status == "passed", run.outcomes
    _, run = await review(root, "gens/core.py", "grow", "def grow():\n    got = yield\n"
                          "    while True:\n        got = yield len(got) + 1\n")
    assert by_name(run)["test_grow"].status == "failed", run.outcomes
