"""Tests the sandbox cannot run (a module they import is not there) are "skipped", with the
missing module named: neither a pass nor a failure of the code."""

from __future__ import annotations

import pytest

from codeteam.execution import runner as runner_module
from codeteam.execution.discovery import doctest_cases
from codeteam.execution.models import TestCase
from codeteam.execution.runner import run_tests
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


def _pytest_case(name: str, source: str, setup: str = "", **fields) -> TestCase:
    return TestCase(
        id=f"pytest:test_parsing.py::{name}", kind="pytest", origin="public", source=source,
        name=name, setup=setup, file="/ws/test_parsing.py", line=4,
        module_aliases=["parsing"], **fields,
    )


RAISES = _pytest_case(
    "test_negative",
    "def test_negative():\n    with pytest.raises(ValueError):\n        parse_age('-1')\n",
    "import pytest\nfrom parsing import parse_age\n",
)


async def test_a_test_whose_import_of_pytest_fails_is_skipped_not_failed(policy, monkeypatch):
    monkeypatch.setattr(runner_module, "sandbox_site_packages", list)  # a venv without pytest
    tests = [*doctest_cases(PROGRAM.split('"""')[1], "parse_age"), RAISES]
    report = await run_tests(PROGRAM, tests, module_name="parsing", policy=policy)
    doctest, raises = report.outcomes
    assert doctest.status == "passed"
    assert raises.status == "skipped"
    assert raises.exception_type == "ModuleNotFoundError"
    assert "No module named 'pytest'" in raises.message
    assert report.failures == [] and report.skipped == [raises] and report.ran == [doctest]
    assert report.all_passed


async def test_with_pytest_available_the_same_test_runs(policy):
    report = await run_tests(PROGRAM, [RAISES], module_name="parsing", policy=policy)
    assert [o.status for o in report.outcomes] == ["passed"]


async def test_missing_third_party_and_sibling_modules_are_skipped(policy):
    third_party = _pytest_case(
        "test_frame", "def test_frame():\n    assert parse_age(frame_size) == 3\n",
        "import codeteam_no_such_package as cnsp\nfrom parsing import parse_age\n"
        "frame_size = cnsp.SIZE\n",
    )
    inside = _pytest_case(
        "test_inside", "def test_inside():\n    import codeteam_sibling\n"
        "    assert parse_age(codeteam_sibling.AGE) == 3\n", "from parsing import parse_age\n",
    )
    report = await run_tests(PROGRAM, [third_party, inside], module_name="parsing",
                             policy=policy)
    assert [o.status for o in report.outcomes] == ["skipped", "skipped"]
    assert "No module named 'codeteam_no_such_package'" in report.outcomes[0].message
    assert "No module named 'codeteam_sibling'" in report.outcomes[1].message
    assert not report.all_passed  # nothing ran


async def test_the_programs_own_missing_import_is_still_an_error(policy):
    # The function under test imports a module that does not exist: the code's bug.
    program = "def parse_age(text):\n    import codeteam_no_such_package\n    return 1\n"
    test = _pytest_case("test_one", "def test_one():\n    assert parse_age('1') == 1\n",
                        "from parsing import parse_age\n")
    report = await run_tests(program, [test], module_name="parsing", policy=policy)
    (outcome,) = report.outcomes
    assert outcome.status == "error" and outcome.exception_type == "ModuleNotFoundError"
    assert report.failures == [outcome]


async def test_other_import_errors_and_failures_are_not_skipped(policy):
    wrong_name = _pytest_case(
        "test_helper", "def test_helper():\n    assert helper() == 1\n",
        "from parsing import helper\n",  # the module lacks it: the code's problem
    )
    failing = _pytest_case("test_bad", "def test_bad():\n    assert parse_age('2') == 3\n",
                           "from parsing import parse_age\n")
    report = await run_tests(PROGRAM, [wrong_name, failing], module_name="parsing",
                             policy=policy)
    assert [o.status for o in report.outcomes] == ["error", "failed"]
    assert report.outcomes[0].exception_type == "ImportError"


async def test_pytest_skip_and_importorskip_are_skipped(policy):
    skip = _pytest_case("test_skip", "def test_skip():\n    pytest.skip('not on this OS')\n",
                        "import pytest\n")
    importorskip = _pytest_case(
        "test_numpyish",
        "def test_numpyish():\n    pytest.importorskip('codeteam_no_such_package')\n"
        "    assert parse_age('1') == 1\n",
        "import pytest\nfrom parsing import parse_age\n",
    )
    report = await run_tests(PROGRAM, [skip, importorskip], module_name="parsing",
                             policy=policy)
    assert [o.status for o in report.outcomes] == ["skipped", "skipped"]
    assert "not on this OS" in report.outcomes[0].message
    assert "codeteam_no_such_package" in report.outcomes[1].message


async def test_a_missing_module_the_rest_of_the_module_imports_skips_every_test(policy):
    source = "import codeteam_no_such_package\n\n\ndef f(x):\n    return x\n"
    task = Task.from_source(source, "f", module_name="mod")
    tests = [TestCase(id="a", kind="assert", origin="ai", source="assert f(1) == 1")]
    report = await run_tests(task.program_with("def f(x):\n    return x\n"), tests,
                             module_name="mod", policy=policy)
    (outcome,) = report.outcomes
    assert outcome.status == "skipped"
    assert "No module named 'codeteam_no_such_package'" in outcome.message
    assert "line 1 of mod.py" in outcome.message
    # The same import in the code put in place of the function is the code's: an error.
    plain = Task.from_source("x = 1\n\n\ndef f(x):\n    return x\n", "f", module_name="mod")
    broken = plain.program_with("import codeteam_no_such_package\ndef f(x):\n    return x\n")
    report = await run_tests(broken, tests, module_name="mod", policy=policy)
    assert report.outcomes[0].status == "error"
    # As plain text (no function span to tell them apart), it stays an error too.
    report = await run_tests(source, tests, module_name="mod", policy=policy)
    assert report.outcomes[0].status == "error"


async def test_a_known_skip_reason_is_reported_without_running(policy, monkeypatch):
    def no_process(*args, **kwargs):
        raise AssertionError("no sandbox process for tests that cannot run")

    known = _pytest_case("test_helper", "def test_helper():\n    assert parse_age(X) == 1\n",
                         "from helpers import X\n", skip_reason="it imports helpers")
    monkeypatch.setattr(runner_module, "run_sandboxed", no_process)
    report = await run_tests(PROGRAM, [known], module_name="parsing", policy=policy)
    assert [(o.status, o.message) for o in report.outcomes] == [("skipped", "it imports helpers")]
    assert report.exit_code is None
    monkeypatch.undo()
    ok = TestCase(id="ok", kind="assert", origin="ai", source="assert parse_age('3') == 3")
    report = await run_tests(PROGRAM, [known, ok], module_name="parsing", policy=policy)
    assert [(o.test_id, o.status) for o in report.outcomes] == [
        (known.id, "skipped"), ("ok", "passed")]
