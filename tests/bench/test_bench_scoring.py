"""Scoring code on hidden tests in the real sandbox: each failure kind, and bounded."""

from __future__ import annotations

import textwrap

import pytest

from codeteam.bench.datasets import load_dataset
from codeteam.bench.scoring import score_code, score_program, scoring_policy

pytestmark = pytest.mark.sandbox


@pytest.fixture(scope="module")
def item():
    return load_dataset("humaneval").select(ids=["HumanEval/0"])[0]


def with_body(item, body: str) -> str:
    """The task's function (header and docstring as given) with ``body``."""
    return item.task.stub.rstrip("\n") + "\n" + textwrap.indent(textwrap.dedent(body), "    ")


CORRECT = """
for i, a in enumerate(numbers):
    for j, b in enumerate(numbers):
        if i != j and abs(a - b) < threshold:
            return True
return False
"""


async def test_known_correct_solution_passes(item):
    score = await score_code(item, with_body(item, CORRECT), policy=scoring_policy("bwrap", 10))
    assert score.passed and score.kind is None
    assert (score.tests_passed, score.tests_total) == (1, 1)


async def test_reference_solution_passes(item):
    score = await score_program(item.reference, item.hidden_tests,
                                policy=scoring_policy("bwrap", 10))
    assert score.passed


async def test_known_wrong_solution_is_a_wrong_answer(item):
    score = await score_code(item, with_body(item, "return False"),
                             policy=scoring_policy("bwrap", 10))
    assert not score.passed and score.kind == "wrong_answer"
    assert "AssertionError" in score.detail or "failed" in score.detail


async def test_an_exception_is_an_error_with_its_type(item):
    score = await score_code(item, with_body(item, "return numbers[99]"),
                             policy=scoring_policy("bwrap", 10))
    assert score.kind == "error" and score.error_type == "IndexError"


async def test_missing_code_is_no_code(item):
    score = await score_code(item, None, policy=scoring_policy("bwrap", 10))
    assert score.kind == "no_code" and score.tests_total == 1


async def test_a_hang_is_a_timeout_and_bounded(item):
    # Bounded by the code's CPU time (2 s here), not by the wall clock: on a busy machine the
    # same hang takes longer to use it, and is the same timeout.
    score = await score_code(item, with_body(item, "while True:\n    pass"),
                             policy=scoring_policy("bwrap", 2))
    assert score.kind == "timeout" and not score.passed
    assert "the code used its" in score.detail and "CPU seconds" in score.detail, score.detail


@pytest.mark.parametrize(
    "body",
    ["import os\nos._exit(3)", "import ctypes\nctypes.string_at(0)"],
    ids=["os._exit", "segfault"],
)
async def test_an_interpreter_crash_is_a_crash(item, body):
    score = await score_code(item, with_body(item, body), policy=scoring_policy("bwrap", 10))
    assert score.kind == "crash" and not score.passed, score


async def test_mbpp_hidden_asserts_use_the_test_imports():
    mbpp = load_dataset("mbpp").select(ids=["Mbpp/2"])[0]
    body = "return tuple(set(test_tup1) & set(test_tup2))"
    score = await score_code(mbpp, with_body(mbpp, body), policy=scoring_policy("bwrap", 10))
    assert score.passed and score.tests_total == 3


async def test_plus_checks_floats_with_tolerance_and_find_zero_by_its_root():
    plus = load_dataset("humaneval-plus").select(ids=["HumanEval/2", "HumanEval/32"])
    truncate, find_zero = plus
    policy = scoring_policy("bwrap", 30)
    # A result off by 1e-9 passes only thanks to the tolerance.
    near = await score_code(truncate, with_body(truncate, "return number % 1.0 + 1e-9"),
                            policy=policy)
    assert near.passed, near
    far = await score_code(truncate, with_body(truncate, "return number % 1.0 + 1e-3"),
                           policy=policy)
    assert far.kind == "wrong_answer"
    # Any root is accepted for find_zero (bisection, not the reference's Newton steps).
    bisect = """
lo, hi = -1.0, 1.0
while poly(xs, lo) * poly(xs, hi) > 0:
    lo, hi = lo * 2, hi * 2
for _ in range(200):
    mid = (lo + hi) / 2
    if poly(xs, lo) * poly(xs, mid) <= 0:
        hi = mid
    else:
        lo = mid
return (lo + hi) / 2
"""
    program = find_zero.task.program_with(with_body(find_zero, bisect))
    base = [t for t in find_zero.hidden_tests if t.id == "hidden:base"]
    root = await score_program(program, base, policy=policy)
    assert root.passed, root


async def test_a_module_import_the_sandbox_lacks_is_an_error_not_a_wrong_answer():
    from codeteam.execution.outcomes import TestCase
    from codeteam.task import Task

    task = Task.from_source("import codeteam_no_such_package\n\n\ndef f():\n    pass\n", "f")
    tests = [TestCase(id="hidden:1", kind="assert", origin="hidden", source="assert f() == 1")]
    score = await score_program(task.program_with("def f():\n    return 1\n"), tests,
                                policy=scoring_policy("bwrap", 10))
    assert not score.passed
    assert score.kind == "error" and score.error_type == "ModuleNotFoundError"
