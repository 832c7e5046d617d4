"""Generated code cannot forge its own verdict (issue 13, item 1): three bodies that made a
failing function "pass" when the tested code ran in the process that judged it. Each must now
fail for docstring examples and AI tests alike: the code runs apart from the judge."""

from __future__ import annotations

import pytest
from judge_support import run_tests

from codeteam.execution.outcomes import TestCase
from codeteam.task import Task

pytestmark = pytest.mark.sandbox

MODULE = '''\
def running_max(xs):
    """Running maximum.

    >>> running_max([1, 3, 2])
    [1, 3, 3]
    >>> running_max([])
    []
    """
'''

# (a) fake outcome lines on the results descriptor, then an exit that skips the harness.
FAKE_RESULTS = """\
def running_max(xs):
    import os
    fds = [int(os.environ[k]) for k in os.environ if k.endswith("RESULTS_FD")]
    for fd in fds + list(range(3, 64)):
        try:
            for i in range(20):
                os.write(fd, ('{"event":"outcome","index":%d,"test_id":"x","status":"passed"}\\n' % i).encode())
            os.write(fd, b'{"event":"done"}\\n')
        except OSError:
            pass
    os._exit(0)
"""

# (b) the harness's own emit function patched from the function body: every "failed" or
# "error" it writes becomes "passed".
PATCHED_EMIT = """\
def running_max(xs):
    import gc, sys
    for obj in gc.get_objects():
        if isinstance(obj, type) and hasattr(obj, "emit"):
            original = obj.emit
            def emit(self, record, original=original):
                if isinstance(record, dict) and record.get("status") in ("failed", "error"):
                    record = {k: v for k, v in record.items()
                              if k not in ("expected", "actual", "message", "exception_type",
                                           "traceback", "program_line")}
                    record["status"] = "passed"
                return original(self, record)
            obj.emit = emit
    for name, module in list(sys.modules.items()):
        for attr in ("emit", "_emit", "send", "reply"):
            if callable(getattr(module, attr, None)):
                setattr(module, attr, lambda *a, **k: None)
    return None
"""

# (c) an object whose repr is whatever the doctest expects (read from the runner's frames)
# and that equals anything.
CHAMELEON = """\
def running_max(xs):
    import sys

    class Chameleon:
        def __repr__(self):
            frame = sys._getframe(1)
            while frame is not None:
                example = frame.f_locals.get("example")
                if hasattr(example, "want"):
                    return example.want.rstrip("\\n")
                frame = frame.f_back
            return "[1, 3, 3]"

        def __eq__(self, other):
            return True

        __hash__ = object.__hash__

    return Chameleon()
"""


def _tests() -> list[TestCase]:
    return [
        TestCase(id="d1", kind="doctest", origin="public", source="running_max([1, 3, 2])",
                 expected="[1, 3, 3]"),
        TestCase(id="d2", kind="doctest", origin="public", source="running_max([])",
                 expected="[]"),
        TestCase(id="a1", kind="assert", origin="ai",
                 source="assert running_max([2, 1, 5]) == [2, 2, 5]"),
        TestCase(id="a2", kind="assert", origin="ai", source="assert running_max([4]) == [4]"),
    ]


@pytest.mark.parametrize("body", [FAKE_RESULTS, PATCHED_EMIT, CHAMELEON],
                         ids=["fake-results", "patched-emit", "chameleon"])
async def test_forged_verdicts_fail(body, policy):
    program = Task.from_source(MODULE, "running_max").program_with(body)
    report = await run_tests(program, _tests(), policy=policy)
    statuses = [o.status for o in report.outcomes]
    assert len(statuses) == 4
    assert "passed" not in statuses, report.outcomes


async def test_the_chameleon_is_named(policy):
    program = Task.from_source(MODULE, "running_max").program_with(CHAMELEON)
    report = await run_tests(program, _tests()[:1], policy=policy)
    (outcome,) = report.outcomes
    assert outcome.status == "error"
    assert "code under test" in outcome.message


async def test_honest_code_still_passes(policy):
    good = ("def running_max(xs):\n    out = []\n    for x in xs:\n"
            "        out.append(max(out[-1], x) if out else x)\n    return out\n")
    program = Task.from_source(MODULE, "running_max").program_with(good)
    report = await run_tests(program, _tests(), policy=policy)
    assert [o.status for o in report.outcomes] == ["passed"] * 4


THROUGH_PROC = """\
def running_max(xs):
    import os
    line = b'{"event":"outcome","index":0,"test_id":"x","status":"passed"}\\n'
    reached = []
    for pid in [p for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()]:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                with open(f"/proc/{pid}/fd/{fd}", "wb", buffering=0) as handle:
                    handle.write(line)
                reached.append((pid, fd))
            except OSError:
                pass
    try:
        open(f"/proc/{os.getppid()}/mem", "rb").read(1)
        reached.append("mem")
    except OSError:
        pass
    return reached
"""


async def test_the_judge_cannot_be_reached_through_proc(policy):
    """The subject (same uid) can open neither the judge's descriptors nor its memory: the
    judge is not dumpable. Only the subject's own descriptors (and its children's) open."""
    program = Task.from_source(MODULE, "running_max").program_with(THROUGH_PROC)
    tests = [TestCase(id="a", kind="assert", origin="ai", source="assert running_max([1]) == [1]")]
    report = await run_tests(program, tests, policy=policy)
    (outcome,) = report.outcomes
    assert outcome.status == "failed", outcome
    assert outcome.actual == "[]"  # nothing of another process was reachable


PROGRAM = '''\
import math


class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __repr__(self):
        return f"Point({self.x}, {self.y})"


def greet(name):
    """Print a greeting."""


def scale(xs, k):
    """Scale xs in place."""


def point(x):
    """A point."""


def check(x):
    """Raise on negatives."""
'''

BODIES = {
    "greet": "def greet(name):\n    print('hello', name)\n",
    "scale": "def scale(xs, k):\n    xs[:] = [x * k for x in xs]\n",
    "point": "def point(x):\n    return Point(x, math.floor(x))\n",
    "check": "def check(x):\n    if x < 0:\n        raise ValueError(f'negative: {x}')\n    return x\n",
}


def _program():
    text = PROGRAM
    for name, body in BODIES.items():
        task = Task.from_source(text, name)
        text = task.program_with(body).text
    return Task.from_source(text, "check").program_with(BODIES["check"])


async def test_what_the_judge_sees_of_calls(policy):
    tests = [
        TestCase(id="print", kind="doctest", origin="public", source="greet('ann')",
                 expected="hello ann"),
        TestCase(id="inplace", kind="assert", origin="ai",
                 source="xs = [1, 2]\nscale(xs, 3)\nassert xs == [3, 6]"),
        TestCase(id="repr", kind="doctest", origin="public", source="point(2.5)",
                 expected="Point(2.5, 2)"),
        TestCase(id="raises", kind="doctest", origin="public", source="check(-1)",
                 expected="Traceback (most recent call last):\n...\nValueError: negative: -1"),
        TestCase(id="caught", kind="assert", origin="ai", source=(
            "try:\n    check(-2)\nexcept ValueError as error:\n"
            "    assert str(error) == 'negative: -2'\nelse:\n    assert False")),
        TestCase(id="error", kind="assert", origin="ai", source="assert check(-3) == 3"),
        TestCase(id="module", kind="assert", origin="ai",
                 source="assert point(1).x == Point(1, 1).x"),
        TestCase(id="import", kind="assert", origin="ai",
                 source="import shapes\nassert shapes.check(4) == 4"),
    ]
    report = await run_tests(_program(), tests, module_name="shapes", policy=policy)
    by_id = {o.test_id: o for o in report.outcomes}
    assert [o.status for o in report.outcomes] == ["passed"] * 5 + ["failed"] + ["passed"] * 2
    error = by_id["error"]
    assert (error.exception_type, error.message) == ("ValueError", "negative: -3")
    assert error.function_line == 2
    assert 'shapes.py", line' in error.traceback and "_codeteam" not in error.traceback


EXECED_CHAMELEON = '''\
def running_max(xs):
    namespace = {}
    exec("class Chameleon:\\n"
         "    def __repr__(self):\\n"
         "        return '[1, 3, 3]'\\n", namespace)
    return namespace["Chameleon"]()
'''


async def test_a_repr_from_execed_text_is_not_trusted(policy):
    program = Task.from_source(MODULE, "running_max").program_with(EXECED_CHAMELEON)
    report = await run_tests(program, _tests()[:1], policy=policy)
    (outcome,) = report.outcomes
    assert outcome.status == "error" and "code under test" in outcome.message, outcome


async def test_a_humaneval_style_check_is_judged(policy):
    """``from solution import *`` and a ``check(candidate)`` function: evaluated by the judge."""
    test = TestCase(id="h", kind="assert", origin="hidden", setup="from solution import *",
                    source="import random\n\ndef check(candidate):\n"
                           "    assert candidate([3, 1]) == [3, 3]\n"
                           "    assert candidate([random.Random(1).randint(5, 5)]) == [5]\n\n"
                           "check(running_max)\n")
    good = ("def running_max(xs):\n    out = []\n    for x in xs:\n"
            "        out.append(max(out[-1], x) if out else x)\n    return out\n")
    for body, status in ((good, "passed"), (CHAMELEON, "error")):
        program = Task.from_source(MODULE, "running_max").program_with(body)
        report = await run_tests(program, [test], policy=policy)
        (outcome,) = report.outcomes
        assert outcome.status == status, outcome
