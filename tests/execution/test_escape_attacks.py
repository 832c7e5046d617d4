"""brk14: wrong code turning its own failures into "not judged" (a forged escape): a "not
judged" hides a failure from "Review with tester" and from the team's revisions. The rules
that make a failure "not judged" must hold only where the failure may come from what they are
about. Real sandbox, a small project each."""

from __future__ import annotations

import pytest
from test_one_judge import by_name, make, review

from codeteam.execution import pytest_run

pytestmark = pytest.mark.sandbox

TIMED = {
    "pyproject.toml": "[project]\nname = 'sums'\nversion = '0'\n",
    "sums/__init__.py": "",
    "sums/core.py": '''\
        def total(items):
            """The sum of ``items``."""
            return sum(items)
        ''',
    "tests/test_core.py": '''\
        import time

        import pytest

        from sums.core import total


        def below(value, bound):
            assert value < bound


        def test_value_after_the_timing():
            start = time.perf_counter()
            result = total([1, 2])
            elapsed = time.perf_counter() - start
            assert result == 3
            assert elapsed < 60


        def test_timing_in_a_helper():
            start = time.perf_counter()
            total([1, 2])
            elapsed = (time.perf_counter() - start) * 1000
            below(elapsed, 0)


        def test_timing_in_an_if():
            start = time.monotonic()
            total([1, 2])
            if time.monotonic() - start > 0:
                pytest.fail("slower than nothing")


        def test_timing_by_a_fixture(timer):
            total([1, 2])
            assert timer.elapsed() < 0
        ''',
    "tests/conftest.py": '''\
        import time

        import pytest


        class Timer:
            def __init__(self):
                self.start = time.perf_counter()

            def elapsed(self):
                return time.perf_counter() - self.start


        @pytest.fixture
        def timer():
            return Timer()
        ''',
}


async def test_a_wrong_value_checked_after_the_test_timed_itself_fails(tmp_path):
    """The clock rule (a failed assertion of a test that read a clock around calls of the code
    is "not judged") holds for checks a clock read reaches, here, in a helper the test hands
    it to, or in a fixture's method the check calls; a wrong value checked after the second
    read fails as under plain pytest (before: "not judged", the test measures its own run
    time)."""
    root = make(tmp_path / "sums", TIMED)
    _, run = await review(root, "sums/core.py", "total", "def total(items):\n    return 7\n")
    outcomes = by_name(run)
    assert outcomes["test_value_after_the_timing"].status == "failed", run.outcomes
    for name in ("test_timing_in_a_helper", "test_timing_in_an_if", "test_timing_by_a_fixture"):
        assert outcomes[name].status == "not judged", run.outcomes
        assert "measures its own run time" in outcomes[name].message


# structlog's bind_contextvars: the code sets a context variable its module holds. Under plain
# pytest that is the test's context too. It was "not judged" (not written back), which wrong
# code could use to hide any failure: one REQUEST.set(...) in its body.
BOUND = {
    "pyproject.toml": "[project]\nname = 'bound'\nversion = '0'\n",
    "bound/__init__.py": "",
    "bound/core.py": '''\
        import contextvars

        REQUEST = contextvars.ContextVar("request", default=None)
        _VARS = {"user": contextvars.ContextVar("user", default="nobody")}


        def bind(request, user):
            """Bind ``request`` and ``user`` for the rest of the context; the request's length."""
            REQUEST.set(request)
            _VARS["user"].set(user)
            return len(request)
        ''',
    "tests/test_core.py": '''\
        import contextvars

        from bound.core import REQUEST, _VARS, bind


        def test_bind():
            assert bind("abc", "ann") == 3
            assert REQUEST.get() == "abc" and _VARS["user"].get() == "ann"


        def test_bind_in_a_context_of_its_own():
            def run():
                return bind("xy", "bob"), REQUEST.get()
            assert contextvars.copy_context().run(run) == (2, "xy")
            assert REQUEST.get() != "xy"


        def test_length():
            assert bind("abcd", "cy") == 4
        ''',
}


async def test_a_context_variable_the_code_sets_is_the_tests_and_hides_no_failure(tmp_path):
    """What the code sets in a context variable of the project's modules is set in the test's
    context after the call (before: "not judged", the code set the context variable, not
    written back); wrong code setting one fails its tests as under plain pytest (before: "not
    judged" for every test)."""
    root = make(tmp_path / "bound", BOUND)
    _, run = await review(root, "bound/core.py", "bind")
    assert {o.status for o in run.outcomes} == {"passed"}, run.outcomes
    wrong = ("def bind(request, user):\n    REQUEST.set(request)\n    _VARS['user'].set(user)\n"
             "    return 0\n")
    _, run = await review(root, "bound/core.py", "bind", wrong)
    assert {o.status for o in run.outcomes} == {"failed"}, run.outcomes


# The code's process writes its replies: it can say the code "used an object of the test's
# that cannot cross" whenever it likes, in the words of describe.ARGUMENTS, which tell the team
# that no candidate can be judged (candidates.judged_nowhere: no sampling, no revision).
HANDED = {
    "pyproject.toml": "[project]\nname = 'handed'\nversion = '0'\n",
    "handed/__init__.py": "",
    "handed/core.py": '''\
        def size(box):
            """The size ``box`` reports."""
            return box.size()
        ''',
    "tests/test_core.py": '''\
        from handed.core import size


        def test_size():
            class Box:
                def size(self):
                    return 3
            assert size(Box()) == 3


        def test_size_of_a_list():
            assert size([1, 2]) == 2
        ''',
}

FORGED = '''\
def size(box):
    import gc
    subject = next(o for o in gc.get_objects() if type(o).__name__ == "Subject")
    subject.misused = ("the test's arguments could not cross to the code under test: the code "
                       "used an object of the test's that cannot cross (Box: .size)")
    return 0
'''


async def test_only_the_judge_says_the_tests_arguments_could_not_cross(tmp_path):
    """The code calling a method of the test's object (of a class made in the test) makes the
    test "not judged" as the test's arguments' doing (describe.ARGUMENTS); the code's process
    saying so where the judge sent it no such object is the code's doing, in other words
    (before: ARGUMENTS for both of a forging body's tests)."""
    from codeteam.execution.describe import ARGUMENTS

    root = make(tmp_path / "handed", HANDED)
    _, run = await review(root, "handed/core.py", "size")
    outcomes = by_name(run)
    assert outcomes["test_size"].status == "not judged", run.outcomes
    assert outcomes["test_size"].message.startswith(ARGUMENTS), run.outcomes
    _, run = await review(root, "handed/core.py", "size", FORGED)
    for outcome in run.outcomes:
        assert outcome.status == "not judged", run.outcomes
        assert not outcome.message.startswith(ARGUMENTS), run.outcomes
        assert outcome.message.startswith("the code under test did what the judge cannot follow")


# A busy machine keeps the code's process waiting for a CPU, which the wall-clock backstop
# leaves out; the subject's own watchdog says "slept" of code that sleeps. Code that stops its
# own process, or sleeps in C holding the GIL (its watchdog cannot run), reached the backstop
# as "not judged: the machine was too busy" (40 s, any failure hidden).
ONE = {
    "pyproject.toml": "[project]\nname = 'one'\nversion = '0'\n",
    "one/__init__.py": "",
    "one/core.py": '''\
        def total(items):
            """The sum of ``items``."""
            return sum(items)
        ''',
    "tests/test_core.py": '''\
        from one.core import total


        def test_total():
            assert total([1, 2]) == 3
        ''',
}

IDLE = {
    "stopped": "def total(items):\n    import os, signal\n    os.kill(os.getpid(), signal.SIGSTOP)\n",
    "asleep_in_c": "def total(items):\n    import ctypes\n    ctypes.PyDLL(None).sleep(300)\n",
}


@pytest.mark.parametrize("body", list(IDLE))
async def test_code_waiting_off_the_cpu_until_the_backstop_is_no_busy_machine(
        tmp_path, body, monkeypatch):
    """The backstop, reached while the judge waits for the code's answer and no thread of
    the code's processes runs or waits for a CPU or I/O (the server's look in /proc), is the
    code's timeout (before: "not judged", the machine was too busy)."""
    monkeypatch.setattr(pytest_run, "wall_backstop", lambda cpu_limit: 6.0)  # (was 35 s)
    root = make(tmp_path / "one", ONE)
    _, run = await review(root, "one/core.py", "total", IDLE[body])
    outcome = by_name(run)["test_total"]
    assert outcome.status == "timeout", run.outcomes
    assert "waited off the CPU" in outcome.message, outcome


# A later run of a handle went on with the arguments of the request that made it; a list the
# test gave to one run (g.send(bucket)) that the handle keeps and fills in later runs was the
# code's copy only: right code "failed" (mine == []), and a test that asserted the list stayed
# empty would have passed wrong code.
COLLECTOR = {
    "pyproject.toml": "[project]\nname = 'gen'\nversion = '0'\n",
    "gen/__init__.py": "",
    "gen/core.py": '''\
        def collector():
            """Send it a list, then items: each is appended to that list; yields its length."""
            bucket = yield
            while True:
                item = yield len(bucket)
                bucket.append(item)
        ''',
    "tests/test_core.py": '''\
        from gen.core import collector


        def test_collector():
            g = collector()
            next(g)
            mine = []
            assert g.send(mine) == 0
            g.send(1)
            g.send(2)
            assert mine == [1, 2]


        def test_collector_sees_the_tests_changes():
            g = collector()
            next(g)
            mine = []
            g.send(mine)
            mine.append(0)
            assert g.send(1) == 2
            assert mine == [0, 1]
        ''',
}


async def test_what_a_handle_keeps_of_a_later_runs_arguments_is_the_tests(tmp_path):
    """A list the test sends to the code's generator, which keeps it and fills it in its later
    steps, is the test's: written back at each later step, and sent with what the test changed
    in it since (before: right code 'failed' both tests, 'assert [] == [1, 2]'); wrong code
    filling it wrong fails."""
    root = make(tmp_path / "gen", COLLECTOR)
    _, run = await review(root, "gen/core.py", "collector")
    assert {o.status for o in run.outcomes} == {"passed"}, run.outcomes
    wrong = ('def collector():\n    bucket = yield\n    while True:\n'
             '        item = yield len(bucket)\n        bucket.append(item * 2)\n')
    _, run = await review(root, "gen/core.py", "collector", wrong)
    assert {o.status for o in run.outcomes} == {"failed"}, run.outcomes
