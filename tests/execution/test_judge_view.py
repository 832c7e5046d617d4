"""The judge view of a module (codeteam.execution.judge_view): the user's text with the judged
function's body forwarded, lines kept; async, one-line and nested functions too."""

from __future__ import annotations

import ast

import pytest

from codeteam.execution.judge_view import FORWARDER, IMPORTED, judge_view, placement

F = FORWARDER
"""What the view calls (the judge's forwarding call, looked up in builtins)."""

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
    assert lines[9] == (f"    __tracebackhide__ = True; return {F}((a, b, c, "
                        "*args, ), {'d': d, 'e': e, **kw})")
    assert lines[10:-1] == SOURCE.splitlines()[10:]
    assert lines[-1] == (f"__import__('builtins').__dict__.get({IMPORTED!r}, "
                         "lambda space: None)(globals())")
    ast.parse(view.text)
    method = judge_view(SOURCE, "Box.put").text.splitlines()[14]
    assert method == ('        """Only a docstring."""; __tracebackhide__ = True; '
                      f"return {F}((self, x, ), {{}})")


@pytest.mark.parametrize("source, qualname, judged, line", [
    ("async def f(x):\n    return x\n", "f", "f",
     f"    __tracebackhide__ = True; return {F}((x, ), {{}})"),
    ("def f(x): return x\n", "f", "f",
     f"def f(x): __tracebackhide__ = True; return {F}((x, ), {{}})"),
    ('def f(x):\n    """Doc."""; return x\n', "f", "f",
     f'    """Doc."""; __tracebackhide__ = True; return {F}((x, ), {{}})'),
    ("def outer(y):\n    def f(x):\n        return x\n    return f(y)\n", "outer.f", "outer",
     f"    __tracebackhide__ = True; return {F}((y, ), {{}})"),
    ('def f(g):\n    """Doc."""\n    @wraps(g)\n    def h():\n        return g()\n    return h\n',
     "f", "f", f"    __tracebackhide__ = True; return {F}((g, ), {{}})"),  # (its decorator's
    # line is the body's first: survey9's boltons shape, "f is not a function of its text")
])
def test_async_one_line_and_nested_functions_have_a_view(source, qualname, judged, line):
    view = judge_view(source, qualname)
    assert view is not None and view.qualname == judged and view.nested == (judged != qualname)
    assert line in view.text.splitlines()
    assert len(view.text.splitlines()) == len(source.splitlines()) + 1  # lines kept
    ast.parse(view.text)


@pytest.mark.parametrize("source, qualname", [
    ("def f(x:\n", "f"),
    ("def g(x):\n    return x\n", "f"),
])
def test_no_view_where_there_is_no_such_function(source, qualname):
    assert judge_view(source, qualname) is None


def test_def_lines_name_the_decorator_and_the_def():
    assert placement(judge_view(SOURCE, "add", 3), SOURCE)[0] == [4, 5]
    assert placement(judge_view(SOURCE, "after"), SOURCE)[0] == [18]
    assert placement(judge_view(SOURCE, "after"), "def f(:\n") == ([], 0)
