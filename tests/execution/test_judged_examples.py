"""The judge decides docstring examples and AI tests that use the whole module (issue 13, item
1; issue 24: by pytest, the examples with its doctest runner, the asserts as generated test
modules): it imports the judge view of the user's text (the module's classes, constants,
helpers and imports are the user's own code, in the judge) and only the target's calls go to
the subject, through pytest_codec. Tests of a method, of a module constant, with a lambda
argument, importing a sibling module of the project: judged and right; bodies that try to
forge their verdict fail or are errors, never "passed"."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from judge_support import run_tests

from codeteam.execution.outcomes import RunReport, TestCase
from codeteam.execution.sandbox import SandboxPolicy
from codeteam.project import project_for
from codeteam.service.documents import task_for
from codeteam.task import Task

pytestmark = pytest.mark.sandbox

MODULE = '''\
import math

LIMIT = 3


class Counter:
    def __init__(self):
        self.value = 0

    def incr(self, step=1):
        """Add ``step`` (at most LIMIT) to the value.

        >>> c = Counter(); c.incr(); c.value
        1
        """


class Stack:
    def __init__(self):
        self.items = []

    def push(self, x):
        """Push ``x``; the stack itself is returned."""

    def peek(self):
        return self.items[-1]


def apply_all(f, xs):
    """``f`` applied to each of ``xs``."""
'''

INCR = "def incr(self, step=1):\n    self.value += min(step, LIMIT)\n    return self\n"
INCR_WRONG = "def incr(self, step=1):\n    self.value += step + 1\n    return self\n"
PUSH = "def push(self, x):\n    self.items.append(x)\n    return self\n"
PUSH_WRONG = "def push(self, x):\n    self.items.insert(0, x)\n    return self\n"
APPLY = "def apply_all(f, xs):\n    return [f(x) for x in xs]\n"
APPLY_WRONG = "def apply_all(f, xs):\n    return [f(x) for x in reversed(xs)]\n"


def doctest_case(test_id: str, source: str, expected: str, setup: str = "") -> TestCase:
    return TestCase(id=test_id, kind="doctest", origin="public", source=source,
                    expected=expected, setup=setup)


def ai_test(test_id: str, source: str) -> TestCase:
    return TestCase(id=test_id, kind="assert", origin="ai", source=source)


async def run(qualname: str, body: str, tests: list[TestCase], policy: SandboxPolicy,
              module: str = MODULE) -> RunReport:
    program = Task.from_source(module, qualname).program_with(body)
    return await run_tests(program, tests, policy=policy)


def verdicts(report: RunReport) -> list[str]:
    return [o.status for o in report.outcomes]


COUNTER_TESTS = [
    doctest_case("doc", "c.value", "1", setup=">>> c = Counter(); _ = c.incr()\n"),
    doctest_case("chain", "Counter().incr().incr(5).value", "4"),
    ai_test("limit", "c = Counter()\nc.incr(LIMIT + 10)\nassert c.value == LIMIT"),
    ai_test("math", "import math\nc = Counter()\nc.incr(math.floor(2.5))\nassert c.value == 2"),
]


async def test_a_method_and_a_constant_are_judged(policy):
    report = await run("Counter.incr", INCR, COUNTER_TESTS, policy)
    assert verdicts(report) == ["passed"] * 4, report.outcomes
    wrong = await run("Counter.incr", INCR_WRONG, COUNTER_TESTS, policy)
    assert verdicts(wrong) == ["failed"] * 4, wrong.outcomes
    limit = wrong.outcomes[2]
    assert (limit.expected, limit.actual) == ("3", "14")  # compared in the judge


async def test_a_chained_method_call_is_judged(policy):
    tests = [ai_test("peek", "assert Stack().push(1).peek() == 1"),
             ai_test("two", "s = Stack().push(1).push(2)\nassert s.items == [1, 2]")]
    report = await run("Stack.push", PUSH, tests, policy)
    assert verdicts(report) == ["passed"] * 2, report.outcomes
    wrong = await run("Stack.push", PUSH_WRONG, tests, policy)
    assert verdicts(wrong) == ["passed", "failed"], wrong.outcomes


async def test_a_lambda_argument_is_judged(policy):
    tests = [ai_test("lambda", "assert apply_all(lambda x: x * 2, [1, 2, 3]) == [2, 4, 6]"),
             doctest_case("doctest", "apply_all(str.upper, ['a', 'b'])", "['A', 'B']"),
             ai_test("def", "def twice(x):\n    return [x, x]\n"
                            "assert apply_all(twice, 'ab') == [['a', 'a'], ['b', 'b']]")]
    report = await run("apply_all", APPLY, tests, policy)
    assert verdicts(report) == ["passed"] * 3, report.outcomes
    wrong = await run("apply_all", APPLY_WRONG, tests, policy)
    assert verdicts(wrong) == ["failed"] * 3


async def test_errors_and_timeouts_point_at_the_candidate(policy):
    tests = [ai_test("error", "assert Stack().push(1).peek() == 1"),
             ai_test("loop", "Stack().push(1)"),
             ai_test("after", "assert Stack().items == []")]
    broken = "def push(self, x):\n    return self.items[x]\n"
    report = await run("Stack.push", broken, tests[:1], policy)
    (error,) = report.outcomes
    assert (error.status, error.exception_type) == ("failed", "IndexError")
    assert error.function_line == 1 and 'solution.py", line 2' in error.traceback
    spin = "def push(self, x):\n    while x:\n        x += 1\n"
    report = await run("Stack.push", spin, tests[1:], policy)
    loop, after = report.outcomes
    assert loop.status == "timeout" and loop.function_line in (1, 2), loop
    assert after.status == "passed"  # a fresh subject for the rest


async def test_a_dying_subject_is_an_error_and_a_fresh_one_runs_the_rest(policy):
    body = "def apply_all(f, xs):\n    import os\n    if xs:\n        os._exit(3)\n    return []\n"
    tests = [ai_test("dies", "assert apply_all(abs, [-1]) == [1]"),
             ai_test("after", "assert apply_all(abs, []) == []")]
    report = await run("apply_all", body, tests, policy)
    dies, after = report.outcomes
    assert dies.status == "error" and "died during this call" in dies.message
    assert after.status == "passed"


async def test_generators_and_closures_of_the_code_are_handles(policy):
    tests = [ai_test("iterate", "assert list(apply_all(abs, [-2, 3])) == [2, 3]"),
             ai_test("call", "assert apply_all(abs, [-2])() == [2]")]
    generator = "def apply_all(f, xs):\n    return (f(x) for x in xs)\n"
    closure = "def apply_all(f, xs):\n    return lambda: [f(x) for x in xs]\n"
    assert verdicts(await run("apply_all", generator, tests, policy)) == [
        "passed", "failed"]  # a generator is not callable
    assert verdicts(await run("apply_all", closure, tests, policy)) == [
        "failed", "passed"]  # nor a closure iterable


async def test_an_object_of_a_class_the_test_makes_is_passed_around_judged(policy):
    """A class the test defines inside its own function has no name the code's process can
    import: its object crosses as an opaque handle, which the code may pass around (here to
    the test's own lambda and back), so the test is judged, and read a data attribute of it
    (the judge reads it); calling its method is not judged."""
    test = ai_test("own-class", "class Box:\n    pass\nb = Box()\n"
                                "assert apply_all(lambda x: x, [b]) == [b]")
    report = await run("apply_all", APPLY, [test], policy)
    assert verdicts(report) == ["passed"], report.outcomes
    read = ai_test("read", "class Box:\n    v = 2\nassert apply_all(None, [Box()]) == [2]")
    peek = "def apply_all(f, xs):\n    return [x.v for x in xs]\n"
    (outcome,) = (await run("apply_all", peek, [read], policy)).outcomes
    assert outcome.status == "passed", outcome
    used = ai_test("used", "class Box:\n    def v(self):\n        return 2\n"
                           "assert apply_all(None, [Box()]) == [2]")
    call = "def apply_all(f, xs):\n    return [x.v() for x in xs]\n"
    (outcome,) = (await run("apply_all", call, [used], policy)).outcomes
    assert outcome.status == "not judged" and "cannot cross" in outcome.message, outcome


async def test_a_benchmark_stub_is_judged(policy):
    """HumanEval-style: the module is just the prompt, the hidden test a check function."""
    prompt = ('from typing import List\n\n\ndef below_zero(operations: List[int]) -> bool:\n'
              '    """True when the running balance goes below zero.\n\n'
              '    >>> below_zero([1, 2, -4, 5])\n    True\n    """\n')
    good = ("def below_zero(operations: List[int]) -> bool:\n    balance = 0\n"
            "    for op in operations:\n        balance += op\n        if balance < 0:\n"
            "            return True\n    return False\n")
    check = TestCase(id="hidden", kind="assert", origin="hidden", setup="from solution import *",
                     source="def check(candidate):\n    assert candidate([]) is False\n"
                            "    assert candidate([1, -2]) is True\n\ncheck(below_zero)\n")
    doc = doctest_case("doc", "below_zero([1, 2, -4, 5])", "True")
    report = await run("below_zero", good, [check, doc], policy, module=prompt)
    assert verdicts(report) == ["passed"] * 2, report.outcomes
    lazy = "def below_zero(operations: List[int]) -> bool:\n    return True\n"
    report = await run("below_zero", lazy, [check, doc], policy, module=prompt)
    assert verdicts(report) == ["failed", "passed"], report.outcomes


def write_package(tmp_path: Path) -> Path:
    root = tmp_path / "shop-project"  # not tmp_path itself (mode 0700: see README's Limits)
    root.mkdir()
    (root / "pyproject.toml").write_text("[project]\nname = 'shop'\n")
    package = root / "shop"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "money.py").write_text(
        "RATE = 2\n\n\nclass Price:\n    def __init__(self, cents):\n        self.cents = cents\n\n"
        "    def __eq__(self, other):\n        return isinstance(other, Price) and "
        "other.cents == self.cents\n\n    def __repr__(self):\n"
        "        return f'Price({self.cents})'\n")
    cart = package / "cart.py"
    cart.write_text(
        'from .money import RATE, Price\n\n\ndef total(prices):\n'
        '    """The sum of ``prices`` (Price objects) times RATE, as a Price.\n\n'
        '    >>> total([Price(1), Price(2)])\n    Price(6)\n    """\n')
    return cart


@pytest.mark.parametrize("mode", ["bwrap", "none"])
async def test_a_sibling_module_of_the_project_is_judged(tmp_path, mode):
    cart = write_package(tmp_path)
    task = task_for(cart.read_text(), "total", path=cart, project=project_for(cart))
    assert task.module_name == "shop.cart"
    policy = SandboxPolicy(mode=mode, timeout_s=15, per_test_timeout_s=2.0)
    tests = [*[t for t in task.public_tests if t.kind == "doctest"],
             ai_test("sibling", "from shop.money import Price, RATE\n"
                                "assert total([Price(5)]) == Price(5 * RATE)"),
             ai_test("import", "import shop.money as m\nassert total([]) == m.Price(0)")]
    assert len(tests) == 3
    good = "def total(prices):\n    return Price(sum(p.cents for p in prices) * RATE)\n"
    report = await run_tests(task.program_with(good), tests, policy=policy, project=task.project)
    assert verdicts(report) == ["passed"] * 3, report.outcomes
    wrong = "def total(prices):\n    return Price(sum(p.cents for p in prices))\n"
    report = await run_tests(task.program_with(wrong), tests, policy=policy, project=task.project)
    assert verdicts(report) == ["failed", "failed", "passed"]
    assert report.outcomes[0].actual == "Price(3)"  # the user's own __repr__, in the judge


# -- forging ---------------------------------------------------------------------------------

FORGE_TESTS = [
    doctest_case("doc", "c.value", "1", setup=">>> c = Counter(); _ = c.incr()\n"),
    ai_test("limit", "c = Counter()\nc.incr(LIMIT + 10)\nassert c.value == LIMIT"),
    ai_test("plain", "assert Counter().incr().value == 1"),
]

FAKE_LINES = """\
def incr(self, step=1):
    import os
    for fd in range(0, 256):
        try:
            for i in range(8):
                os.write(fd, ('{"event":"outcome","index":%d,"test_id":"x","status":"passed"}\\n' % i).encode())
            os.write(fd, b'{"event":"done"}\\n')
        except OSError:
            pass
    os._exit(0)
"""

PATCH_EVERYTHING = """\
def incr(self, step=1):
    import builtins, gc, sys
    for obj in gc.get_objects():
        try:
            if isinstance(obj, type) and hasattr(obj, "emit"):
                obj.emit = lambda *a, **k: None
        except Exception:
            pass
    for name, module in list(sys.modules.items()):
        for attr in ("emit", "_emit", "send", "reply", "send_frame", "exception_info"):
            try:
                if callable(getattr(module, attr, None)):
                    setattr(module, attr, lambda *a, **k: None)
            except Exception:
                pass
    builtins.AssertionError = type("AssertionError", (Exception,), {})
    builtins.isinstance = lambda *a: True
    sys.modules["doctest"] = None
    self.value = 1
    return self
"""

CHAMELEON = """\
def incr(self, step=1):
    class Chameleon:
        def __repr__(self):
            return "1"

        def __eq__(self, other):
            return True

        __hash__ = object.__hash__

    self.value = Chameleon()
    return self
"""

CHAMELEON_INT = """\
def incr(self, step=1):
    class One(int):
        def __eq__(self, other):
            return True

        __hash__ = int.__hash__

    self.value = One(7)
    return self
"""

SIGNALS = """\
def incr(self, step=1):
    import os, signal
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGUSR1, signal.SIGHUP):
        try:
            os.kill(os.getppid(), number)
        except OSError:
            pass
    self.value = 1
    return self
"""

REACH_PARENT = """\
def incr(self, step=1):
    import os
    reached = []
    for pid in [p for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()]:
        for what in ("fd", "mem", "environ"):
            try:
                os.listdir(f"/proc/{pid}/fd") if what == "fd" else open(f"/proc/{pid}/{what}", "rb").read(1)
                reached.append((pid, what))
            except OSError:
                pass
    self.value = len(reached) if reached else 2
    return self
"""


@pytest.mark.parametrize("body", [FAKE_LINES, PATCH_EVERYTHING, CHAMELEON, CHAMELEON_INT,
                                  REACH_PARENT],
                         ids=["fake-lines-and-exit", "patch-builtins-modules-emit", "chameleon",
                              "int-subclass", "reach-the-judge"])
async def test_forging_bodies_are_never_passed(body, policy):
    report = await run("Counter.incr", body, FORGE_TESTS, policy)
    assert len(report.outcomes) == len(FORGE_TESTS)
    for outcome in report.outcomes:  # never passed
        assert outcome.status in ("failed", "error", "timeout", "not judged"), outcome
    if body is REACH_PARENT:  # nothing of the judge (or another process) was reachable
        assert [o.actual for o in report.outcomes] == ["2", "2", "2"]


async def test_signals_the_code_sends_never_reach_the_judge(policy):
    """The code's process is in a sandbox of its own: its parent is not the judge. The
    verdicts are the code's own (it sets the value to 1 whatever the step)."""
    report = await run("Counter.incr", SIGNALS, FORGE_TESTS, policy)
    assert verdicts(report) == ["passed", "failed", "passed"], report.outcomes
    assert not any("the judge received" in o.message for o in report.outcomes)


async def test_the_honest_body_passes_the_forging_tests(policy):
    """The tests the forging bodies face can pass: the bodies fail because they forge."""
    report = await run("Counter.incr", INCR, FORGE_TESTS, policy)
    assert verdicts(report) == ["passed"] * 3, report.outcomes


async def test_a_subject_that_patches_itself_cannot_change_the_judges_comparison(policy):
    """The code patches ``builtins`` and ``sys.modules`` in its own process and returns a
    value that is wrong: the comparison happens in the judge, which is untouched."""
    body = ("def apply_all(f, xs):\n    import builtins, sys\n"
            "    builtins.AssertionError = type('AssertionError', (Exception,), {})\n"
            "    builtins.repr = lambda value: '[1]'\n    sys.modules['operator'] = None\n"
            "    return [0]\n")
    tests = [ai_test("eq", "assert apply_all(abs, [-1]) == [1]"),
             ai_test("op", "import operator\nassert operator.eq(apply_all(abs, [-1]), [1])")]
    report = await run("apply_all", body, tests, policy)
    assert verdicts(report) == ["failed", "failed"], report.outcomes


# -- hostile bodies in the judged mode ---------------------------------------------------------


def _processes_named(comm: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and (entry / "comm").read_text().strip() == comm:
                found.append(int(entry.name))
        except OSError:
            continue
    return found


async def test_hostile_bodies_are_contained_and_the_rest_still_runs(policy):
    comm = f"bomb{uuid.uuid4().hex[:8]}"
    head = "def apply_all(f, xs):\n    import itertools, os\n    if not xs:\n        return []\n"
    bomb = (head + f"    open('/proc/self/comm', 'w').write({comm!r})\n"
            "    while True:\n        try:\n            os.fork()\n        except OSError:\n"
            "            pass\n")
    in_c = head + "    return sum(itertools.repeat(1))\n"
    alloc = head + "    return bytearray(8 * 1024 ** 3)\n"
    loud = head + "    for _ in range(50):\n        print('x' * 1_000_000)\n    return xs\n"
    tests = [ai_test("hostile", "apply_all(abs, [1])"),
             ai_test("after", "assert apply_all(abs, []) == []")]
    expected = {bomb: "timeout", in_c: "timeout", alloc: "failed", loud: "passed"}
    hostiles = {}
    for body, status in expected.items():
        report = await run("apply_all", body, tests, policy)
        hostile, after = report.outcomes
        assert hostile.status == status, (body, hostile)
        assert after.status == "passed", (body, after)
        assert not report.killed, body
        hostiles[body] = hostile
    assert _processes_named(comm) == []
    # (read from the runs above: a run of the hostile test alone for each, as before, cost
    # two more sessions and said the same)
    assert hostiles[alloc].exception_type == "MemoryError", hostiles[alloc]
    assert len(hostiles[loud].stdout) < 5_000


# An AI test is model-written code, and in the judged mode a test's own code runs in the
# judge: one that writes fake outcome lines to every descriptor and exits, or patches the
# judge's emit function, must not change how the user's tests are judged.
FORGING_AI_TESTS = [
    ai_test("fake-lines", "import os\nfor fd in range(0, 256):\n    try:\n"
            "        for i in range(8):\n"
            "            os.write(fd, ('{\"event\":\"outcome\",\"index\":%d,\"test_id\":\"x\","
            "\"status\":\"passed\"}\\n' % i).encode())\n"
            "        os.write(fd, b'{\"event\":\"done\"}\\n')\n"
            "    except OSError:\n        pass\nos._exit(0)"),
    ai_test("patch-emit", "import gc\nfor obj in gc.get_objects():\n"
            "    if hasattr(type(obj), 'emit') and not isinstance(obj, type):\n"
            "        try:\n            type(obj).emit = lambda self, record: None\n"
            "        except Exception:\n            pass\nassert True"),
    ai_test("patch-checker", "import doctest, gc\n"
            "doctest.OutputChecker.check_output = lambda self, want, got, flags: True\n"
            "for obj in gc.get_objects():\n"
            "    if isinstance(obj, dict) and 'check_output' in obj:\n"
            "        obj['check_output'] = lambda *args: True\n"
            "assert True"),
]


@pytest.mark.parametrize("forger", FORGING_AI_TESTS, ids=lambda t: t.id)
async def test_an_ai_test_cannot_change_the_verdict_of_the_users_tests(forger, policy):
    public = [doctest_case("doc", "c.value", "1", setup=">>> c = Counter(); _ = c.incr()\n"),
              doctest_case("chain", "Counter().incr().incr(5).value", "4")]
    # the AI test first: it would run before the user's tests in one process
    wrong = await run("Counter.incr", INCR_WRONG, [forger, *public], policy)
    assert [o.test_id for o in wrong.outcomes] == [forger.id, "doc", "chain"]
    assert [o.status for o in wrong.outcomes[1:]] == ["failed", "failed"]
    right = await run("Counter.incr", INCR, [forger, *public], policy)
    assert [o.passed for o in right.outcomes[1:]] == [True, True]


NAMESPACE_MODULE = '''\
import optparse


def options(verbose):
    """The options as optparse's values.

    >>> options(True).verbose
    True
    >>> print(options(True))
    {'verbose': True}
    """
'''


async def test_a_value_the_judge_cannot_rebuild_is_not_judged_not_a_failure(policy):
    # Right code whose answer is an object of a library's class: the judge does not rebuild
    # it (only the project's own classes cross by state). It crosses as a handle (brk15):
    # reading its state is not the code's failure, nor a pass; its str() is the code's
    # process's, as in one process.
    body = "def options(verbose):\n    return optparse.Values({'verbose': verbose})\n"
    task = Task.from_source(NAMESPACE_MODULE, "options")
    from codeteam.service.documents import task_for

    tests = task_for(NAMESPACE_MODULE, "options").public_tests
    report = await run_tests(task.program_with(body), tests, policy=policy)
    assert [o.status for o in report.outcomes] == ["not judged", "passed"], report.outcomes
    assert "does not rebuild" in report.outcomes[0].message, report.outcomes
    assert report.failures == [] and len(report.not_judged) == 1 and not report.all_passed
    # a wrong body that answers plain data is judged, and fails
    wrong = await run_tests(task.program_with("def options(verbose):\n    return verbose\n"),
                            tests, policy=policy)
    assert [o.status for o in wrong.outcomes] == ["failed", "failed"]
    assert len(wrong.failures) == 2
