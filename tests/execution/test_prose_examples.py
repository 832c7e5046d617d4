"""Docstring examples written as prose lines (``f(1) == 2``, ``f(1) ➞ 2``) as public tests:
parsed with ast only (pysource.examples.example_cases), then run for real in the sandbox."""

from __future__ import annotations

import ast

from judge_support import run_tests

from codeteam.service.documents import example_cases, task_for

MODULE = '''\
def will_it_fly(q, w):
    """Return True if q is a palindrome whose sum is at most w.

    Examples:
    will_it_fly([1, 2], 5) \u279e False
    - will_it_fly([3, 2, 3], 9) => true
    will_it_fly([3], 5) returns True.
    will_it_fly((1, 2), 0) should return False  # too heavy
    will_it_fly([3, 2, 3], 1) == False
    will_it_fly(q, w) returns whether it flies
    will_it_fly([1], 1) -> 1 - 1 = 0
    will_it_fly([1], 1) = True
    """
    return q == q[::-1] and sum(q) <= w
'''


def _cases(source: str = MODULE, name: str = "will_it_fly"):
    node = next(n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef))
    return example_cases(ast.get_docstring(node), name,
                         docstring_first_line=node.body[0].lineno - 1, source=source)


def test_prose_examples_become_assert_tests_with_their_document_lines():
    cases = _cases()
    assert [c.source for c in cases] == [
        "assert will_it_fly([1, 2], 5) == False",
        "assert will_it_fly([3, 2, 3], 9) == True",
        "assert will_it_fly([3], 5) == True",
        "assert will_it_fly((1, 2), 0) == False",
        "assert will_it_fly([3, 2, 3], 1) == False",
    ]
    assert [c.id for c in cases] == [f"example:{n}" for n in range(1, 6)]
    assert all(c.kind == "assert" and c.origin == "public" for c in cases)
    lines = MODULE.split("\n")
    for case in cases:
        assert case.call.split("(")[0] == "will_it_fly"
        assert case.call.replace(" ", "")[:12] in lines[case.line].replace(" ", "")
    assert [c.line for c in cases] == [4, 5, 6, 7, 8]


def test_lines_that_do_not_read_as_literal_examples_are_not_tests():
    # prose, an arithmetic explanation, a definition with "=", a non-literal argument
    assert _cases().__len__() == 5
    source = '''\
def f(n):
    """f(n) returns the n-th number.
    f(1) = 3
    f(x) == 4
    f(2) == g(3)
    f(*[1]) == 1
    """
'''
    assert _cases(source, "f") == []


def test_docstrings_with_doctests_keep_only_the_doctests():
    source = '''\
def f(n):
    """
    f(1) == 2
    >>> f(1)
    2
    """
'''
    assert _cases(source, "f") == []
    task = task_for(source, "f")
    assert [t.kind for t in task.public_tests] == ["doctest"]


def test_the_editor_task_carries_prose_examples():
    task = task_for(MODULE, "will_it_fly")
    assert [t.id for t in task.public_tests] == [f"example:{n}" for n in range(1, 6)]


async def test_prose_examples_run_in_the_sandbox(policy):
    task = task_for(MODULE, "will_it_fly")
    good = await run_tests(MODULE, task.public_tests, policy=policy)
    assert [o.status for o in good.outcomes] == ["passed"] * 5
    wrong = MODULE.replace("return q == q[::-1] and sum(q) <= w", "return True")
    bad = await run_tests(wrong, task.public_tests, policy=policy)
    assert [o.status for o in bad.outcomes] == ["failed", "passed", "passed", "failed", "failed"]
