"""The judge view of a module (codeteam.execution.judge_view): the user's text with the target's
body forwarded, lines kept; None where it cannot be built (then the old one-process run)."""

from __future__ import annotations

import ast

import pytest

from codeteam.execution.judge_view import def_lines, judge_view

SOURCE = '''\
import functools


@functools.lru_cache
def add(a, b=1, /, c=2, *args, d, e=3, **kw):
    """Doc.

    >>> add(1, d=0)
    """
    return a + b  # the body


class Box:
    def put(self, x):
        """Only a docstring."""


def after():
    return add(1, d=2)
'''


def test_the_body_becomes_one_forwarding_call_and_lines_are_kept():
    view = judge_view(SOURCE, "add", 3)
    assert (view.start_line, view.end_line) == (3, 9)
    lines = view.text.splitlines()
    assert lines[:9] == SOURCE.splitlines()[:9]  # decorator, signature, docstring: the user's
    assert lines[9] == ("    return __codeteam_forward__((a, b, c, *args, ), "
                        "{'d': d, 'e': e, **kw})")
    assert lines[10:-1] == SOURCE.splitlines()[10:]
    assert lines[-1] == "__codeteam_imported__(globals())"
    ast.parse(view.text)
    method = judge_view(SOURCE, "Box.put").text.splitlines()[14]
    assert method == ('        """Only a docstring."""; '
                      "return __codeteam_forward__((self, x, ), {})")


@pytest.mark.parametrize("source, qualname", [
    ("async def f(x):\n    return x\n", "f"),
    ("def outer():\n    def f(x):\n        return x\n    return f\n", "outer.f"),
    ("def f(x): return x\n", "f"),
    ('def f(x):\n    """Doc."""; return x\n', "f"),
    ("def f(x:\n", "f"),
    ("def g(x):\n    return x\n", "f"),
])
def test_no_view_where_it_cannot_be_built(source, qualname):
    assert judge_view(source, qualname) is None


def test_def_lines_name_the_decorator_and_the_def():
    assert def_lines(SOURCE, "add") == [4, 5]
    assert def_lines(SOURCE, "after") == [18]
    assert def_lines("def f(:\n", "f") == []
