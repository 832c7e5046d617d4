"""A reply's decorators kept on an inner function, and the lookup of a function while another
part of the module does not parse: each test reproduces a defect a review found. No model, no
sandbox: extraction and the lookups are called directly."""

from __future__ import annotations

from contextlib import contextmanager

import pytest

from codeteam.pysource.functions import SourceError
from codeteam.pysource.tolerant import locate_tolerant, parseable_module
from codeteam.roles.code_extraction import extract_function
from codeteam.service.locate import TargetError, locate_target
from codeteam.task import Task


def _define(code: str, name: str, **namespace):
    """Define ``code`` (our own literal replies, not model output) and return ``name``."""
    exec(compile(code, "<generated>", "exec"), namespace)  # noqa: S102
    return namespace[name]


# --- a reply's decorator kept on an inner function ------------------------------------------


def test_a_kept_decorator_keeps_the_users_defaults_for_recursive_calls():
    task = Task.from_source(
        'def ways(n: int, step: int = 2) -> int:\n    """Ways to climb n stairs."""\n', "ways")
    reply = ("```python\nfrom functools import lru_cache\n\n@lru_cache(None)\n"
             "def ways(n, step=2):\n    if n <= 0:\n        return 1\n"
             "    return ways(n - 1) + ways(n - step)\n```")
    # Was: TypeError: ways() missing 1 required positional argument: 'step'.
    assert _define(extract_function(reply, task), "ways")(10) == 144

    task = Task.from_source('def count(n, *, step=1):\n    """Count down."""\n', "count")
    reply = ("```python\nfrom functools import cache\n\n@cache\ndef count(n, *, step=1):\n"
             "    return 0 if n <= 0 else 1 + count(n - step)\n```")
    assert _define(extract_function(reply, task), "count")(5) == 5


def test_a_decorator_the_user_already_has_under_another_spelling_is_not_applied_twice():
    task = Task.from_source(
        'from contextlib import contextmanager\n\n\n@contextmanager\ndef tagged(out, name):\n'
        '    """Write <name> before the block and </name> after it."""\n', "tagged")
    reply = ("```python\nimport contextlib\n\n@contextlib.contextmanager\ndef tagged(out, name):\n"
             "    out.append(f'<{name}>')\n    yield\n    out.append(f'</{name}>')\n```")
    tagged = _define(extract_function(reply, task), "tagged", contextmanager=contextmanager)
    out: list[str] = []
    # Was: TypeError: '_GeneratorContextManager' object is not an iterator.
    with tagged(out, "b"):
        out.append("x")
    assert out == ["<b>", "x", "</b>"]


def test_a_memoised_recursive_method_stays_memoised():
    task = Task.from_source(
        'class Seq:\n    def fib(self, n):\n        """The n-th Fibonacci number."""\n',
        "Seq.fib")
    reply = ("```python\nfrom functools import lru_cache\n\nclass Seq:\n"
             "    @lru_cache(maxsize=None)\n    def fib(self, n):\n        CALLS.append(n)\n"
             "        if n < 2:\n            return n\n"
             "        return self.fib(n - 1) + self.fib(n - 2)\n```")
    code = extract_function(reply, task)
    calls: list[int] = []
    method = _define(code, "fib", CALLS=calls)
    seq = type("Seq", (), {"fib": method})()
    assert seq.fib(20) == 6765
    assert len(calls) <= 21  # memoised: each n once (was: 21891 calls)


# --- a run while another part of the module does not parse --------------------------------


BLACK_DECORATED = (
    "import functools\n\n\n"
    "@functools.lru_cache(\n    maxsize=None,\n)\n"
    "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n\n\n"
    "def typing(x):\n    return max(\n"
)


def test_a_black_formatted_multi_line_decorator_stays_with_its_function_in_a_run():
    readable = parseable_module(BLACK_DECORATED)
    # Only the half-typed function is left out (was: also lines 4-6, the decorator).
    assert readable.left_out == [(10, 11)]
    assert "@functools.lru_cache(" in readable.text


def test_a_black_formatted_multi_line_decorator_belongs_to_its_function_in_the_lookup():
    found = locate_tolerant(BLACK_DECORATED, "fib")
    assert (found.start_line, found.def_line) == (3, 6)  # was (6, 6)


def test_a_run_is_refused_up_front_when_a_same_named_def_does_not_parse():
    source = "def f(x):\n    '''Double x.'''\n\n\ndef f(x):\n    return max(\n"
    with pytest.raises(SourceError):  # what the apply step will say
        locate_tolerant(source, "f", "def f(x)")
    with pytest.raises(TargetError):  # was: resolved to the first f
        locate_target(source, line=0)


def test_a_named_target_in_code_left_out_is_not_reported_missing():
    source = ("class A:\n    def m(self):\n        '''Doc.'''\n\n"
              "    def n(self):\n        return max(\n")
    assert locate_tolerant(source, "A.m").def_line == 1
    try:
        _, found = locate_target(source, "A.m")
    except TargetError as error:
        assert "does not parse" in str(error), str(error)
    else:
        assert found.def_line == 1
