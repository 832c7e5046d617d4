"""Runs through the one judge (run_suite) in bubblewrap: docstring examples by pytest's doctest
runner, asserts as generated test modules; outcomes with expected vs actual and mapped lines."""

from __future__ import annotations

import ast
import os

import pytest
from judge_support import run_tests

from codeteam.execution import pytest_run
from codeteam.execution import sandbox as sandbox_module
from codeteam.execution.outcomes import SandboxUnavailable, TestCase
from codeteam.execution.sandbox import NOT_INSTALLED, SandboxPolicy, sandbox_problem
from codeteam.service.documents import doctest_cases
from codeteam.task import Task

pytestmark = pytest.mark.sandbox

MODULE = '''\
"""A module with a stub."""

import math


def running_max(xs):
    """Running maximum of ``xs``.

    >>> running_max([1, 3, 2])
    [1, 3, 3]
    >>> ys = [2, 1]
    >>> running_max(ys)
    [2, 2]
    >>> running_max(None)
    Traceback (most recent call last):
    ...
    TypeError: xs must be a list
    """
'''

GOOD = """\
def running_max(xs):
    if xs is None:
        raise TypeError("xs must be a list")
    out = []
    for x in xs:
        out.append(max(out[-1], x) if out else x)
    return out
"""

BUGGY = """\
def running_max(xs):
    if xs is None:
        raise TypeError("xs must be a list")
    out = []
    for x in xs:
        if x < 0:
            raise ValueError("negative")
        out.append(x)
    return out
"""


def _task() -> Task:
    task = Task.from_source(MODULE, "running_max")
    node = next(n for n in ast.parse(MODULE).body if isinstance(n, ast.FunctionDef))
    task.public_tests = doctest_cases(
        ast.get_docstring(node),
        "running_max",
        docstring_first_line=node.body[0].lineno - 1,
        source=MODULE,
    )
    return task


def _assert(test_id: str, source: str, origin: str = "ai") -> TestCase:
    return TestCase(id=test_id, kind="assert", origin=origin, source=source)


async def test_doctests_pass_on_good_code(policy):
    task = _task()
    report = await run_tests(task.program_with(GOOD), task.public_tests, policy=policy)
    assert [o.status for o in report.outcomes] == ["passed"] * 4
    assert report.all_passed and report.sandbox == "bwrap" and report.exit_code == 0
    assert not report.killed and report.seconds > 0


async def test_doctests_fail_with_expected_and_actual(policy):
    task = _task()
    report = await run_tests(task.program_with(BUGGY), task.public_tests, policy=policy)
    first, _, third, fourth = report.outcomes
    assert first.status == "failed"
    assert first.expected == "[1, 3, 3]"
    assert first.actual == "[1, 3, 2]"
    assert third.status == "failed" and third.actual == "[2, 1]"  # used ys from the setup
    assert fourth.status == "passed"  # the expected exception


async def test_asserts_report_values_and_the_failing_line(policy):
    task = _task()
    program = task.program_with(BUGGY)
    tests = [
        _assert("eq", "assert running_max([1, 3, 2]) == [1, 3, 3]"),
        _assert("raises", "assert running_max([1, -1]) == [1, 1]"),
        _assert("is", "assert running_max([]) is None"),
        _assert("truth", "assert running_max([])"),
        _assert("pass", "assert running_max([2]) == [2]"),
        _assert("name", "assert nonexistent(1) == 2"),
    ]
    report = await run_tests(program, tests, module_name="mymod", policy=policy)
    eq, raises, is_, truth, ok, name = report.outcomes
    assert [o.test_id for o in report.outcomes] == [t.id for t in tests]
    assert eq.status == "failed"
    assert (eq.expected, eq.actual) == ("[1, 3, 3]", "[1, 3, 2]")
    assert eq.exception_type == "AssertionError"
    assert eq.message.startswith("assert [1, 3, 2] == [1, 3, 3]")  # pytest's own rewriting
    assert eq.function_line is None  # the assert is in the test, not the function

    assert raises.status == "failed"  # pytest: an exception in a test is a failure
    assert (raises.exception_type, raises.message) == ("ValueError", "negative")
    lines = program.text.splitlines()
    assert lines[raises.program_line - 1].strip() == 'raise ValueError("negative")'
    assert raises.function_line == 6  # 0-based within the function
    assert "In the code under test's process" in raises.traceback  # the code's own frames
    assert "_codeteam" not in raises.traceback and "__codeteam_forward__" not in raises.traceback

    assert is_.status == truth.status == "failed" and ok.status == "passed"
    assert name.status == "failed" and name.exception_type == "NameError"


async def test_per_test_timeout_points_at_the_loop(policy):
    program = Task.from_source("def spin(n):\n    pass\n", "spin").program_with(
        "def spin(n):\n    while n:\n        n += 1\n    return n\n"
    )
    tests = [_assert("spin", "spin(1)"), _assert("after", "assert spin(0) == 0")]
    report = await run_tests(program, tests, policy=policy)
    spin, after = report.outcomes
    assert spin.status == "timeout" and "CPU seconds" in spin.message
    assert spin.message.endswith("(a fixed limit per test: no setting raises it)"), spin.message
    assert spin.function_line in (1, 2)  # where the code was
    assert after.status == "passed"
    assert not report.killed


async def test_import_error_is_an_error_for_every_test(policy):
    program = Task.from_source("x = 1\n\ndef f():\n    pass\n", "f").program_with(
        "def f():\n    return (\n"
    )
    report = await run_tests(program, [_assert("a", "f()"), _assert("b", "f()")], policy=policy)
    assert [o.status for o in report.outcomes] == ["error", "error"]
    for outcome in report.outcomes:
        assert outcome.message.startswith("importing the code under test failed: "
                                          "builtins.SyntaxError")


async def test_an_error_raised_by_the_test_itself_is_not_an_import_failure(policy):
    program = Task.from_source("def f():\n    pass\n", "f").program_with(
        "def f():\n    raise ModuleNotFoundError('importing solution failed: x')\n"
    )
    report = await run_tests(program, [_assert("a", "f()")], policy=policy)
    (outcome,) = report.outcomes
    assert outcome.status == "failed"
    assert outcome.exception_type == "ModuleNotFoundError"
    assert outcome.message == "importing solution failed: x"


async def test_a_crash_keeps_finished_outcomes(policy):
    tests = [
        _assert("before", "assert 1 + 1 == 2"),
        _assert("exit", "import os; os._exit(3)"),
        _assert("after", "assert True"),
    ]
    report = await run_tests("", tests, policy=policy)
    before, exit_, after = report.outcomes
    assert before.status == "passed"  # kept
    assert exit_.status == "error" and "died during this test" in exit_.message
    assert "status 3" in exit_.message  # the test's own code ended pytest's process
    assert after.status == "not judged" and "ended before this test" in after.message


async def test_a_subject_that_exits_is_an_error_and_a_fresh_one_runs_the_rest(policy):
    program = "import os\n\ndef leave(code):\n    os._exit(code)\n"
    tests = [_assert("exit", "leave(3)"), _assert("after", "assert 1 + 1 == 2")]
    report = await run_tests(program, tests, policy=policy)
    exit_, after = report.outcomes
    assert exit_.status == "error" and "died during this call" in exit_.message
    assert after.status == "passed"
    assert report.exit_code == 1  # the judge survived the code's exit


async def test_a_segfault_is_an_error_of_the_call(policy):
    program = "import ctypes\n\ndef crash():\n    return ctypes.string_at(0)\n"
    report = await run_tests(program, [_assert("crash", "crash()")], policy=policy)
    assert report.outcomes[0].status == "error"
    assert "died during this call" in report.outcomes[0].message
    assert report.exit_code == 1  # the subject crashed, not the judge


async def test_server_packages_are_importable(policy):
    pytest.importorskip("pydantic")
    report = await run_tests(
        "import pydantic\n", [_assert("v", "assert pydantic.VERSION")], policy=policy
    )
    assert report.outcomes[0].status == "passed", report.outcomes[0]


async def test_empty_tests_start_no_process(monkeypatch, policy):
    async def fail(*args, **kwargs):
        raise AssertionError("a process was started")

    monkeypatch.setattr(pytest_run, "run_sandboxed", fail)
    report = await run_tests("x = 1", [], policy=policy)
    assert report.outcomes == [] and report.exit_code is None


async def test_a_module_name_that_is_no_identifier_runs_as_solution(policy):
    report = await run_tests("X = 1\n", [_assert("a", "import solution\nassert solution.X == 1")],
                             module_name="not-a-name", policy=policy)
    assert report.outcomes[0].status == "passed", report.outcomes[0]


async def test_missing_bwrap_refuses_and_none_runs(monkeypatch, tmp_path, policy):
    monkeypatch.setenv("PATH", str(tmp_path))  # no bwrap on PATH
    assert sandbox_problem("bwrap") == NOT_INSTALLED
    assert sandbox_problem("none") is None
    with pytest.raises(SandboxUnavailable, match="not installed"):
        await run_tests("", [_assert("a", "pass")], policy=policy)
    report = await run_tests(
        "", [_assert("a", "import os\nopen(os.environ['HOME'] + '/../cwd', 'w').write(os.getcwd())")],
        policy=SandboxPolicy(mode="none"))
    assert report.sandbox == "none" and [o.status for o in report.outcomes] == ["passed"]


async def test_broken_bwrap_is_reported(monkeypatch, tmp_path, policy):
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:/usr/bin:/bin")
    problem = sandbox_problem("bwrap")
    assert problem and "cannot create a sandbox" in problem and "uid map" in problem
    with pytest.raises(SandboxUnavailable, match="cannot create a sandbox"):
        await run_tests("", [_assert("a", "pass")], policy=policy)
    assert (str(fake), os.geteuid()) not in sandbox_module._problems  # failures are not cached


def test_a_probe_the_system_refuses_is_a_problem_not_an_exception(monkeypatch):
    """Inside a sandbox (a project's test module that checks for bwrap at import, run by the
    tester) preparing the probe meets seccomp's ENOSYS: a message, not an OSError that
    breaks the module's collection."""
    def refused(bwrap):
        raise OSError(38, "Function not implemented")

    monkeypatch.setattr(sandbox_module, "_problems", {})
    monkeypatch.setattr(sandbox_module, "_probe", refused)
    problem = sandbox_problem("bwrap")
    assert problem and "cannot be prepared here" in problem and "Errno 38" in problem


async def test_concurrent_runs_are_independent(policy):
    import asyncio

    tests = [
        _assert("w", "open('/tmp/f.txt', 'w').write(NAME)"),
        _assert("r", "assert open('/tmp/f.txt').read() == NAME"),
    ]
    reports = await asyncio.gather(
        *(run_tests(f"NAME = {name!r}\n", tests, policy=policy) for name in "abc")
    )
    assert all([o.status for o in r.outcomes] == ["passed", "passed"] for r in reports)


async def test_a_module_named_like_the_stdlib(policy):
    """A user file inspect.py runs as module "solution" (pytest needs the real inspect)."""
    program = "def mean_of(xs):\n    return sum(xs) // len(xs)\n"
    tests = [
        TestCase(id="d", kind="doctest", origin="ai", source="mean_of([1, 2])", expected="1.5"),
        _assert("a", "assert mean_of([1, 2]) == 1.5"),
    ]
    report = await run_tests(program, tests, module_name="inspect", policy=policy)
    doc, check = report.outcomes
    assert (doc.status, doc.actual) == ("failed", "1")
    assert (check.status, check.expected, check.actual) == ("failed", "1.5", "1")
