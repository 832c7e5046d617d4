"""brk13: attacks from the code's side of the wire. The code under test runs in its own
process, which holds the codec and the channel to the judge: it can write any frame there (a
reply the judge did not ask for, a tag naming the judge's objects, a frame that does not
decode). Whatever it writes, the judge's verdict is plain pytest's for the code's doing or
"not judged"; what the judge raises reading it is its own error, never an exception a test can
catch. Real sandbox, a small project each."""

from __future__ import annotations

import pytest
from test_one_judge import by_name, make, review

pytestmark = pytest.mark.sandbox

POWER = {
    "pyproject.toml": "[project]\nname = 'calc'\nversion = '0'\n",
    "calc/__init__.py": "",
    "calc/core.py": '''\
        def power(base, exponent):
            """``base ** exponent`` as a float (OverflowError when it is too large)."""
            return float(base) ** exponent
        ''',
    "tests/test_core.py": '''\
        import pytest

        from calc.core import power


        def test_power():
            assert power(2, 3) == 8.0


        def test_power_overflows():
            with pytest.raises(OverflowError):
                power(10, 400)
        ''',
}

# The code, as it is imported (a default value), finds its process's channel to the judge; at
# its first import it runs as imported and its process ends in its first call (a test's
# error); imported again for the next test, it writes a frame of its own before the subject's
# "ready": a float of 2**99999, which the judge's decoder cannot make (OverflowError).
_FORGE = """\
import gc, os, sys
if os.path.exists("/tmp/started"):
    subject = next(o for o in gc.get_objects() if type(o).__name__ == "Subject")
    sys.modules["_codeteam_pytest_codec"].send_frame(subject.wfd, frame)
open("/tmp/started", "w").close()
"""


def _at_import(frame: bytes) -> str:
    """A ``power`` that writes ``frame`` on its channel when imported a second time, and is
    wrong (its process ends at its first call)."""
    return (f"def power(base, exponent, _forged=exec({_FORGE!r}, {{'frame': {frame!r}}})):\n"
            "    import os\n"
            "    os._exit(3)\n")


async def test_a_frame_the_judge_cannot_decode_at_the_start_is_no_exception_of_the_test(
        tmp_path):
    """Before: the judge's decoder raised OverflowError as the subject started, and the
    judge's start let it through into the test: ``pytest.raises(OverflowError)`` passed for
    wrong code. Now it is the judge's error, for every test of the run."""
    root = make(tmp_path / "calc", POWER)
    _, run = await review(root, "calc/core.py", "power")
    assert [o.status for o in run.outcomes] == ["passed", "passed"], run.outcomes
    _, run = await review(root, "calc/core.py", "power", _at_import(b"f1p99999;"))
    outcomes = by_name(run)
    assert outcomes["test_power_overflows"].status != "passed", run.outcomes
    assert outcomes["test_power"].status != "passed", run.outcomes


# A generator the code returns is a handle in the test's process: its steps run where it was
# made. Its throw() and close() (steps too, as a coroutine's) were no attribute of the proxy:
# right code failed ("'RemoteIterator' object has no attribute 'close'").
STEPS = {
    "pyproject.toml": "[project]\nname = 'steps'\nversion = '0'\n",
    "steps/__init__.py": "",
    "steps/core.py": '''\
        def countdown(n):
            """n, n - 1, ... 1; a ValueError thrown in starts it again from n."""
            while True:
                k = n
                try:
                    while k:
                        yield k
                        k -= 1
                    return
                except ValueError:
                    continue


        def first_of(items):
            """The first of ``items`` (a generator), which is closed then."""
            first = next(items)
            items.close()
            return first
        ''',
    "tests/test_core.py": '''\
        import pytest

        from steps.core import countdown, first_of


        def test_first_of():
            log = []

            def numbers():
                try:
                    yield 1
                    yield 2
                finally:
                    log.append("closed")

            assert first_of(numbers()) == 1
            assert log == ["closed"]


        def test_close():
            g = countdown(3)
            assert next(g) == 3
            assert g.close() is None
            assert list(g) == []


        def test_throw():
            g = countdown(3)
            assert [next(g), next(g)] == [3, 2]
            assert g.throw(ValueError("again")) == 3
            with pytest.raises(KeyError):
                g.throw(KeyError("k"))
            with pytest.raises(StopIteration):
                next(g)
        ''',
}


async def test_a_generators_throw_and_close_run_where_it_was_made(tmp_path):
    """Both ways: the test's throw() and close() of the code's generator; the code's close()
    of the test's (before: "not judged", the code's use of an object it could not have)."""
    root = make(tmp_path / "steps", STEPS)
    _, run = await review(root, "steps/core.py", "countdown")
    assert [o.status for o in run.outcomes] == ["passed", "passed"], run.outcomes
    wrong = "def countdown(n):\n    yield from range(n, 0, -1)\n"
    _, run = await review(root, "steps/core.py", "countdown", wrong)
    assert by_name(run)["test_throw"].status == "failed", run.outcomes
    _, run = await review(root, "steps/core.py", "first_of")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "steps/core.py", "first_of", "def first_of(items):\n"
                          "    return next(items)\n")
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# An exception raised `from` the one before, level by level (a recursive parser wrapping
# its error at each level): its cause is also its context. Each was tried (can it cross?)
# twice before it was sent, with what it holds: 3**n encodings for a chain of n, 10 CPU-s
# for 12, so right code's error never reached the test ("not judged": the machine busy).
PARSER = {
    "pyproject.toml": "[project]\nname = 'parse'\nversion = '0'\n",
    "parse/__init__.py": "",
    "parse/core.py": '''\
        class ParseError(Exception):
            pass


        def depth_of(text):
            """How deep the brackets of ``text`` nest; ParseError, chained level by level
            from the innermost, for anything else."""
            if not text.startswith("(") or not text.endswith(")"):
                if text:
                    raise ParseError(f"unexpected {text[0]!r}")
                return 0
            try:
                return 1 + depth_of(text[1:-1])
            except ParseError as error:
                raise ParseError(f"in level {len(text) // 2}") from error
        ''',
    "tests/test_core.py": '''\
        import pytest

        from parse.core import ParseError, depth_of


        def test_depth():
            assert depth_of("((()))") == 3


        def test_a_deep_error():
            with pytest.raises(ParseError, match="in level 16") as raised:
                depth_of("(" * 16 + "x" + ")" * 16)
            assert str(raised.value.__cause__.__cause__) == "in level 14"
        ''',
}


async def test_a_long_chain_of_exceptions_crosses_in_time(tmp_path):
    root = make(tmp_path / "parse", PARSER)
    _, run = await review(root, "parse/core.py", "depth_of")
    assert [o.status for o in run.outcomes] == ["passed", "passed"], run.outcomes
    wrong = "def depth_of(text):\n    return text.count('(')\n"
    _, run = await review(root, "parse/core.py", "depth_of", wrong)
    assert by_name(run)["test_a_deep_error"].status == "failed", run.outcomes


# A plain def returning a coroutine (asyncio.sleep's, an async def's of the module's): the
# subject ran every awaitable the function returned to completion, as for an async def, and
# the test got the coroutine's value where it gets the coroutine ("a coroutine was expected,
# got 5": right code failed). Only the view's async def is awaited there now.
LATER = {
    "pyproject.toml": "[project]\nname = 'later'\nversion = '0'\n",
    "later/__init__.py": "",
    "later/core.py": '''\
        import asyncio


        def later(x):
            """A coroutine returning ``x``."""
            return asyncio.sleep(0, result=x)


        async def doubled(x):
            """``2 * x``."""
            return 2 * x
        ''',
    "tests/test_core.py": '''\
        import asyncio
        import inspect

        from later.core import doubled, later


        def test_later():
            pending = later(5)
            assert inspect.iscoroutine(pending)
            assert asyncio.run(pending) == 5


        def test_doubled():
            assert asyncio.run(doubled(2)) == 4
        ''',
}


async def test_a_coroutine_a_plain_def_returns_reaches_the_test_as_one(tmp_path):
    root = make(tmp_path / "later", LATER)
    for name in ("later", "doubled"):  # (each reached by its own test)
        _, run = await review(root, "later/core.py", name)
        assert [o.status for o in run.outcomes] == ["passed"], (name, run.outcomes)
    wrong = "def later(x):\n    return asyncio.sleep(0, result=x + 1)\n"
    _, run = await review(root, "later/core.py", "later", wrong)
    assert by_name(run)["test_later"].status == "failed", run.outcomes
