"""brk15: wrong code whose failures became "not judged" (a forged escape), and the judge's own
crashes. Real sandbox, a small project each."""

from __future__ import annotations

import pytest
from test_one_judge import by_name, make, review

pytestmark = pytest.mark.sandbox

# An exception group whose exceptions cannot cross (hypothesis's DeadlineExceeded defines
# __reduce__: a library's class the judge does not rebuild) was made again by its builtin
# class's __new__ with no arguments, which BaseExceptionGroup refuses: every test "error"
# (the judge's own crash). Made of its exceptions, a group of them raised by wrong code had
# no frames on those: hypothesis's deadline rule named its failure "not judged".
GROUPED = {
    "pyproject.toml": "[project]\nname = 'slow'\nversion = '0'\n",
    "slow/__init__.py": "",
    "slow/core.py": '''\
        from datetime import timedelta

        from hypothesis.errors import DeadlineExceeded


        def check(runtimes_ms, deadline_ms):
            """The number of ``runtimes_ms``; an ExceptionGroup of DeadlineExceeded, one per
            runtime over ``deadline_ms``, when there are such."""
            late = [DeadlineExceeded(timedelta(milliseconds=r), timedelta(milliseconds=deadline_ms))
                    for r in runtimes_ms if r > deadline_ms]
            if late:
                raise ExceptionGroup("slow runs", late)
            return len(runtimes_ms)
        ''',
    "tests/test_core.py": '''\
        import pytest
        from hypothesis.errors import DeadlineExceeded

        from slow.core import check


        def test_each_slow_run():
            with pytest.raises(ExceptionGroup) as info:
                check([5, 50, 500], 10)
            assert len(info.value.exceptions) == 2
            assert info.value.message == "slow runs"


        def test_slow_runs_by_kind():
            try:
                check([50], 10)
            except* DeadlineExceeded as group:
                assert "exceeds the deadline of 10.00ms" in str(group.exceptions[0])


        def test_count():
            assert check([1, 2], 10) == 2
        ''',
}

FORGED_DEADLINE = '''\
def check(runtimes_ms, deadline_ms):
    raise ExceptionGroup("late", [DeadlineExceeded(timedelta(1), timedelta(0))])
'''


async def test_an_exception_group_whose_exceptions_cannot_cross_is_made_of_them(tmp_path):
    """The group is made again of its exceptions, each as a lone one would be (before: every
    test "error", BaseExceptionGroup.__new__() takes exactly 2 arguments); wrong code raising
    a group of DeadlineExceeded fails (the deadline rule is the judge's hypothesis's, never a
    group that crossed from the code)."""
    root = make(tmp_path / "slow", GROUPED)
    _, run = await review(root, "slow/core.py", "check")
    assert {o.status for o in run.outcomes} == {"passed"}, run.outcomes
    _, run = await review(root, "slow/core.py", "check", FORGED_DEADLINE)
    outcomes = by_name(run)
    assert outcomes["test_count"].status == "failed", run.outcomes
    assert "DeadlineExceeded" in outcomes["test_count"].message, run.outcomes


# A group that crosses whole (its exceptions' classes rebuilt by the judge) came with frames
# on itself only: the deadline rule took its exceptions for hypothesis's own. A conftest.py
# taking DeadlineExceeded's __reduce__ away in pytest's process, and the code in its own,
# stand for a hypothesis whose class the judge rebuilds.
REBUILT = dict(GROUPED, **{"tests/conftest.py": """\
    from hypothesis.errors import DeadlineExceeded

    del DeadlineExceeded.__reduce__
    """})

FORGED_REBUILT = '''\
def check(runtimes_ms, deadline_ms):
    if "__reduce__" in vars(DeadlineExceeded):
        del DeadlineExceeded.__reduce__
    raise ExceptionGroup("late", [DeadlineExceeded(timedelta(1), timedelta(0))])
'''


async def test_a_group_of_deadlines_that_crossed_from_the_code_is_its_failure(tmp_path):
    """Every exception in a group that crossed from the code is the code's (before: "not
    judged", the test's own wall-clock deadline was exceeded)."""
    root = make(tmp_path / "slow", REBUILT)
    _, run = await review(root, "slow/core.py", "check", FORGED_REBUILT)
    outcome = by_name(run)["test_count"]
    assert outcome.status == "failed", run.outcomes


# A value of a library's class the judge does not rebuild (argparse's Namespace: survey 7)
# was refused whole ("the code under test sent what the judge does not rebuild"): wrong code
# returning one made every test "not judged". It crosses as a handle now.
TOTAL = {
    "pyproject.toml": "[project]\nname = 'one'\nversion = '0'\n",
    "one/__init__.py": "",
    "one/core.py": '''\
        import argparse


        def total(items):
            """The sum of ``items``."""
            return sum(items)


        def options(argv):
            """The options ``argv`` gives (``--n N``)."""
            parser = argparse.ArgumentParser()
            parser.add_argument("--n", type=int, default=0)
            return parser.parse_args(argv)
        ''',
    "tests/test_core.py": '''\
        import argparse

        from one.core import options, total


        def test_total():
            assert total([1, 2]) == 3


        def test_total_is_an_int():
            assert isinstance(total([1]), int)


        def test_options():
            assert options(["--n", "3"]).n == 3


        def test_options_whole():
            assert options([]) == argparse.Namespace(n=0)


        def test_options_kind():
            assert isinstance(options([]), argparse.Namespace)
        ''',
}


async def test_a_wrong_value_of_a_class_the_judge_does_not_rebuild_fails(tmp_path):
    """Wrong code returning ``argparse.Namespace()`` fails ``total([1, 2]) == 3`` and the
    isinstance check as plain pytest does (the judge runs its own Namespace's ``__eq__`` on
    the code's object; before: every test "not judged"); a test reading the object's state
    (``.n``, ``==`` another Namespace) stays "not judged", as the code's doing."""
    root = make(tmp_path / "one", TOTAL)
    body = "def total(items):\n    return argparse.Namespace()\n"
    _, run = await review(root, "one/core.py", "total", body)
    outcomes = by_name(run)
    assert outcomes["test_total"].status == "failed", run.outcomes
    assert "Namespace()" in outcomes["test_total"].message, run.outcomes
    assert outcomes["test_total_is_an_int"].status == "failed", run.outcomes
    from codeteam.execution.describe import code_caused
    from codeteam.execution.pytest_codec import CODE_OBJECT

    _, run = await review(root, "one/core.py", "options")
    outcomes = by_name(run)
    assert outcomes["test_options_kind"].status == "passed", run.outcomes
    for name in ("test_options", "test_options_whole"):
        assert outcomes[name].status == "not judged", run.outcomes
        assert outcomes[name].message.startswith(CODE_OBJECT), run.outcomes
        assert code_caused(outcomes[name]), run.outcomes  # the team revises it (describe)


# A value nested deeper than the codec's limit (1,000 levels) could not cross: wrong code
# returning one made its tests "not judged"; and the judge counted a list's identity mark as
# a level of its own, so a list of lists 500 to 1,000 deep was "a malformed answer" (error).
NESTED = {
    "pyproject.toml": "[project]\nname = 'nest'\nversion = '0'\n",
    "nest/__init__.py": "",
    "nest/core.py": '''\
        def nest(n):
            """A list holding a list ... ``n`` levels around an empty one: ``nest(1) == [[]]``."""
            value = []
            for _ in range(n):
                value = [value]
            return value
        ''',
    "tests/test_core.py": '''\
        from nest.core import nest


        def depth(value):
            found = 0
            while value:
                value = value[0]
                found += 1
            return found


        def test_deep():
            assert depth(nest(700)) == 700


        def test_very_deep():
            assert depth(nest(5000)) == 5000
        ''',
}


async def test_a_value_deeper_than_the_codec_takes_crosses_as_a_handle_below(tmp_path):
    """The code's value crosses whole to 990 levels and as a handle below (its items, the
    container protocol, answered by the code's process): right code passes both tests (before:
    "error", a malformed answer; "not judged", nested too deeply), wrong code fails both."""
    root = make(tmp_path / "nest", NESTED)
    _, run = await review(root, "nest/core.py", "nest")
    assert {o.status for o in run.outcomes} == {"passed"}, run.outcomes
    wrong = "def nest(n):\n    value = []\n    for _ in range(n + 1):\n        value = [value]\n    return value\n"
    _, run = await review(root, "nest/core.py", "nest", wrong)
    assert {o.status for o in run.outcomes} == {"failed"}, run.outcomes


# A value whose encoding is larger than a frame (64 MiB) ended the code's process ("died
# during this call", error) where pytest reports the test failed or passed.
ZEROS = {
    "pyproject.toml": "[project]\nname = 'zeros'\nversion = '0'\n",
    "zeros/__init__.py": "",
    "zeros/core.py": '''\
        def zeros(n):
            """A list of ``n`` zeros."""
            return [0] * n
        ''',
    "tests/test_core.py": '''\
        from zeros.core import zeros


        def test_length():
            assert len(zeros(9_000_000)) == 9_000_000


        def test_a_list():
            assert isinstance(zeros(9_000_000), list) and zeros(9_000_000) != 0
        ''',
}


async def test_a_value_too_large_for_a_frame_crosses_as_a_handle(tmp_path):
    """A list of 9,000,000 ints (72 MB encoded) crosses as a handle: its length, class and
    ``!=`` a number are answered (before: "error", the process running the code under test
    died during this call); wrong code fails."""
    root = make(tmp_path / "zeros", ZEROS)
    _, run = await review(root, "zeros/core.py", "zeros")
    assert {o.status for o in run.outcomes} == {"passed"}, run.outcomes
    _, run = await review(root, "zeros/core.py", "zeros", "def zeros(n):\n    return [0] * (n + 1)\n")
    assert by_name(run)["test_length"].status == "failed", run.outcomes


# A set of the project's objects whose __hash__ fails on the state the code left them in
# (changed after they went in) could not be made again in the judge: "a malformed answer",
# every test "error", where plain pytest passes a test that only counts them.
KEYS = {
    "pyproject.toml": "[project]\nname = 'keys'\nversion = '0'\n",
    "keys/__init__.py": "",
    "keys/core.py": '''\
        class Key:
            def __init__(self, name):
                self.name = name

            def __hash__(self):
                return hash(self.name.lower())

            def __eq__(self, other):
                return isinstance(other, Key) and self.name == other.name


        def keys(names):
            """The set of the Keys of ``names``."""
            return {Key(n) for n in names}
        ''',
    "tests/test_core.py": '''\
        from keys.core import Key, keys


        def test_keys():
            assert keys(["a"]) == {Key("a")}


        def test_count():
            assert len(keys(["a", "b"])) == 2
        ''',
}

UNHASHED = '''\
def keys(names):
    found = {Key(n) for n in names}
    for key in found:
        key.name = None
    return found
'''


async def test_a_set_whose_keys_no_longer_hash_crosses_as_a_handle(tmp_path):
    """Such a set crosses as a handle: its length is the code's process's answer (before:
    "error", a frame that does not decode); comparing it with the test's set needs its
    items' state: "not judged", the code's doing (CODE_OBJECT)."""
    from codeteam.execution.pytest_codec import CODE_OBJECT

    root = make(tmp_path / "keys", KEYS)
    _, run = await review(root, "keys/core.py", "keys", UNHASHED)
    outcomes = by_name(run)
    assert outcomes["test_count"].status == "passed", run.outcomes
    assert outcomes["test_keys"].status == "not judged", run.outcomes
    assert outcomes["test_keys"].message.startswith(CODE_OBJECT), run.outcomes
