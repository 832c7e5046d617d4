"""Tests the sandbox cannot run (a module they import is not there) are "skipped", with the
missing module named: neither a pass nor a failure of the code."""

from __future__ import annotations

import pytest
from judge_support import run_tests

from codeteam.execution import pytest_run
from codeteam.execution.outcomes import TestCase
from codeteam.task import Task

pytestmark = pytest.mark.sandbox

PROGRAM = '''def parse_age(text):
    """An age from text.

    >>> parse_age("7")
    7
    """
    age = int(text)
    if age < 0:
        raise ValueError(text)
    return age
'''


def _assert(test_id: str, source: str) -> TestCase:
    return TestCase(id=test_id, kind="assert", origin="ai", source=source)


async def test_the_programs_own_missing_import_is_still_an_error(policy):
    # The function under test imports a module that does not exist: the code's bug.
    program = "def parse_age(text):\n    import codeteam_no_such_package\n    return 1\n"
    test = _assert("one", "assert parse_age('1') == 1")
    report = await run_tests(program, [test], module_name="parsing", policy=policy)
    (outcome,) = report.outcomes
    assert outcome.status == "failed" and outcome.exception_type == "ModuleNotFoundError"
    assert outcome.program_line == 2
    assert report.failures == [outcome]


async def test_other_import_errors_and_failures_are_not_skipped(policy):
    wrong_name = _assert("helper", "from parsing import helper\nassert helper() == 1")
    failing = _assert("bad", "assert parse_age('2') == 3")
    report = await run_tests(PROGRAM, [wrong_name, failing], module_name="parsing",
                             policy=policy)
    assert [o.status for o in report.outcomes] == ["failed", "failed"]
    assert report.outcomes[0].exception_type == "ImportError"


async def test_a_missing_module_the_rest_of_the_module_imports_skips_every_test(policy):
    source = "import codeteam_no_such_package\n\n\ndef f(x):\n    return x\n"
    task = Task.from_source(source, "f", module_name="mod")
    tests = [TestCase(id="a", kind="assert", origin="ai", source="assert f(1) == 1")]
    report = await run_tests(task.program_with("def f(x):\n    return x\n"), tests,
                             module_name="mod", policy=policy)
    (outcome,) = report.outcomes
    assert outcome.status == "skipped"
    assert "No module named 'codeteam_no_such_package'" in outcome.message
    assert "importing mod failed" in outcome.message
    # The same import in the code put in place of the function is the code's: an error.
    plain = Task.from_source("x = 1\n\n\ndef f(x):\n    return x\n", "f", module_name="mod")
    broken = plain.program_with("import codeteam_no_such_package\ndef f(x):\n    return x\n")
    report = await run_tests(broken, tests, module_name="mod", policy=policy)
    assert report.outcomes[0].status == "error"
    # The user's own module that does not import where the tests run: not run either.
    report = await run_tests(source, tests, module_name="mod", policy=policy)
    assert report.outcomes[0].status == "skipped"


async def test_a_known_skip_reason_is_reported_without_running(policy, monkeypatch):
    def no_process(*args, **kwargs):
        raise AssertionError("no sandbox process for tests that cannot run")

    known = TestCase(id="helper", kind="assert", origin="public",
                     source="from helpers import X\nassert parse_age(X) == 1",
                     skip_reason="it imports helpers")
    monkeypatch.setattr(pytest_run, "run_sandboxed", no_process)
    report = await run_tests(PROGRAM, [known], module_name="parsing", policy=policy)
    assert [(o.status, o.message) for o in report.outcomes] == [("skipped", "it imports helpers")]
    assert report.exit_code is None
    monkeypatch.undo()
    ok = TestCase(id="ok", kind="assert", origin="ai", source="assert parse_age('3') == 3")
    report = await run_tests(PROGRAM, [known, ok], module_name="parsing", policy=policy)
    assert [(o.test_id, o.status) for o in report.outcomes] == [
        (known.id, "skipped"), ("ok", "passed")]
