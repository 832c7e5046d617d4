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
