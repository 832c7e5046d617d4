"""Docstring examples as tests (ast and doctest only; the project's pytest tests are chosen by
running pytest: tests/execution/test_pytest_run.py)."""

from __future__ import annotations

import ast

from codeteam.service.documents import doctest_cases

MODULE = '''\
import math


def running_max(xs):
    """
    Running maximum.

    >>> ys = [1, 3, 2]
    >>> running_max(ys)
    [1, 3, 3]
    >>> running_max([2,
    ...              1])
    [2, 2]
    >>> running_max([])  # doctest: +ELLIPSIS
    [...]
    """
    out = []
    for x in xs:
        out.append(max(out[-1], x) if out else x)
    return out


class Box:
    def size(self):
        """>>> Box().size()
        0"""
        return 0
'''


def _function(name: str) -> ast.FunctionDef:
    for node in ast.walk(ast.parse(MODULE)):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    raise LookupError(name)


def test_doctest_cases_lines_are_exact_with_the_document():
    node = _function("running_max")
    first = node.body[0].lineno - 1
    cases = doctest_cases(
        ast.get_docstring(node), "running_max", docstring_first_line=first, source=MODULE
    )
    lines = MODULE.splitlines()
    assert [c.id for c in cases] == ["doctest:1", "doctest:2", "doctest:3", "doctest:4"]
    assert [lines[c.line].strip() for c in cases] == [
        ">>> ys = [1, 3, 2]",
        ">>> running_max(ys)",
        ">>> running_max([2,",
        ">>> running_max([])  # doctest: +ELLIPSIS",
    ]
    assert cases[1].source == "running_max(ys)"
    assert cases[1].expected == "[1, 3, 3]"
    assert cases[1].call == "running_max(ys)"
    assert cases[0].expected == "" and cases[0].call is None
    # a statement example becomes setup for the ones after it
    assert cases[1].setup == ">>> ys = [1, 3, 2]\n"
    assert cases[2].source == "running_max([2,\n             1])"
    assert all(c.kind == "doctest" and c.origin == "public" for c in cases)


def test_doctest_cases_from_the_raw_literal_without_the_document():
    node = _function("running_max")
    first = node.body[0].lineno - 1
    raw = node.body[0].value.value
    cases = doctest_cases(raw, "running_max", docstring_first_line=first)
    lines = MODULE.splitlines()
    assert lines[cases[0].line].strip() == ">>> ys = [1, 3, 2]"
    assert lines[cases[2].line].strip() == ">>> running_max([2,"


def test_doctest_on_the_opening_quote_line():
    node = _function("size")
    first = node.body[0].lineno - 1
    cases = doctest_cases(
        ast.get_docstring(node), "size", docstring_first_line=first, source=MODULE, origin="ai"
    )
    assert len(cases) == 1
    assert cases[0].line == first
    assert cases[0].expected == "0"
    assert cases[0].origin == "ai"


def test_doctest_cases_without_lines_and_unparsable_docstrings():
    assert [c.line for c in doctest_cases(">>> f(1)\n2\n", "f")] == [None]
    assert doctest_cases("no examples here", "f") == []
    assert doctest_cases(">>>f(1)\n2\n", "f") == []  # doctest rejects a prompt without space
