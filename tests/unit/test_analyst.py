"""Plan parsing from free text (weak models)."""

import pytest

from codeteam.roles.analyst import PlanError, parse_plan


def test_numbered_list_with_prose_around():
    text = "Here is the plan:\n1. Sort the list.\n2) Take the first k.\n   Keep order.\n\nThat's it."
    assert parse_plan(text) == ["Sort the list.", "Take the first k. Keep order."]


def test_leading_number_continues_the_prompt():
    assert parse_plan("Split the words.\n2. Count them.", leading_number=True) == [
        "Split the words.", "Count them."]


def test_bullets_and_code_stop_the_list():
    text = "- Read it\n- Sort it\n```python\ndef f(): pass\n```\n- More"
    assert parse_plan(text) == ["Read it", "Sort it"]


def test_duplicates_from_looping_models_are_dropped():
    assert parse_plan("1. Loop\n2. Loop\n3. Stop\n4. Loop") == ["Loop", "Stop"]


@pytest.mark.parametrize("text", ["", "def f(x):\n    return x", "```\n```", "1.\n1. 1.\n2. -"])
def test_no_steps_raises(text):
    with pytest.raises(PlanError):
        parse_plan(text)


def test_tester_replies_as_asserts_or_doctest_examples():
    from codeteam.roles.tester import parse_asserts

    asserts = parse_asserts(
        "```python\nassert strlen('ab') == 2\nassert strlen('') == 0\nassert other(1) == 1\n"
        "assert strlen('ab') == 2\nassert strlen(  # broken\n```", "strlen")
    assert [t.source for t in asserts] == ["assert strlen('ab') == 2", "assert strlen('') == 0"]
    assert [(t.call, t.expected) for t in asserts] == [("strlen('ab')", "2"), ("strlen('')", "0")]
    examples = parse_asserts(
        "def strlen(s):\n    '''\n    >>> strlen('abc')\n    3\n    >>> strlen('abc')\n    4\n"
        "    >>> strlen('')\n    0\n    >>> print(1)\n    1\n    '''", "strlen")
    assert [(t.kind, t.source, t.expected) for t in examples] == [
        ("doctest", "strlen('abc')", "3"), ("doctest", "strlen('')", "0")]
    assert all(t.origin == "ai" for t in examples)
