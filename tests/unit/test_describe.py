"""Test outcomes in words (codeteam.execution.describe): what the user and the coder read."""

from __future__ import annotations

from codeteam.execution.describe import NOTHING, describe_failure, failure_details
from codeteam.execution.outcomes import TestCase, TestOutcome


def _doctest() -> TestCase:
    return TestCase(id="doctest:1", kind="doctest", origin="public", source="add_numbers(2, 3)",
                    expected="5")


def test_an_example_that_gave_nothing_says_so_instead_of_a_blank_actual():
    outcome = TestOutcome(test_id="doctest:1", status="failed", expected="5", actual="")
    assert failure_details(outcome) == ["expected: 5", f"actual:   {NOTHING}"]
    assert describe_failure(_doctest(), outcome).splitlines()[1:] == [
        "  expected: 5", f"  actual:   {NOTHING}"]


def test_an_actual_value_is_shown_as_it_is_and_an_unknown_one_not_at_all():
    shown = TestOutcome(test_id="doctest:1", status="failed", expected="5", actual="6")
    assert failure_details(shown) == ["expected: 5", "actual:   6"]
    unknown = TestOutcome(test_id="doctest:1", status="failed", expected="5",
                          exception_type="ZeroDivisionError", message="division by zero")
    assert failure_details(unknown) == ["expected: 5",
                                        "error: ZeroDivisionError: division by zero"]
