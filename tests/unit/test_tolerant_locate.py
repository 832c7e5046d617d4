"""codeteam.pysource.tolerant: finding a function while another part of the module is
half-typed, and never at a wrong place."""

import ast

import pytest

from codeteam.pysource.functions import (
    AmbiguousFunction,
    FunctionNotFound,
    SourceError,
    function_text,
    locate,
)
from codeteam.pysource.tolerant import ParseableModule, locate_tolerant, parseable_module

TWO = '''def alpha(xs):
    """Return the sum of xs."""


def beta(xs):
    """Return the product of xs."""
'''

CLASS = '''import functools


class Shop:
    """A shop."""

    def first(self):
        return 1

    @functools.cache
    def price(self, item: str) -> float:
        """Price of item."""
        text = """
def price(self, item: str) -> float:
"""
        return 1.0

    def last(self):
        return 2
'''


def test_a_module_that_parses_is_read_whole():
    assert locate_tolerant(TWO, "beta", "def beta(xs)") == locate(TWO, "beta", "def beta(xs)")


@pytest.mark.parametrize("where", ["after", "before"])
def test_a_half_typed_line_in_another_function(where):
    if where == "after":
        source = TWO + "    result = max("
        target, line = "alpha", 0
    else:
        source = TWO.replace('of xs."""\n\n', 'of xs."""\n    result = max(\n\n', 1)
        target, line = "beta", 5
    with pytest.raises(SourceError):
        locate(source, target)
    found = locate_tolerant(source, target, f"def {target}(xs)")
    assert (found.start_line, found.def_line, found.end_line) == (line, line, line + 1)
    assert found.docstring_lines == (line + 1, line + 1)
    assert function_text(source, found).startswith(f"def {target}(xs):\n")


@pytest.mark.parametrize("broken", ["first", "last"])
def test_a_method_beside_a_half_typed_method(broken):
    source = CLASS.replace("        return 1\n" if broken == "first" else "        return 2\n",
                           "        x = foo(\n", 1)
    found = locate_tolerant(source, "Shop.price", "def price(self, item: str) -> float")
    lines = source.split("\n")
    assert lines[found.start_line] == "    @functools.cache"
    assert lines[found.def_line].startswith("    def price(")
    assert lines[found.end_line] == "        return 1.0"
    assert found.indent == "    " and found.qualname == "Shop.price"


def test_crlf_and_a_decorated_function():
    source = "import x\r\n\r\n@x.deco\r\ndef f(a):\r\n    return a\r\n\r\ndef g():\r\n    y = [\r\n"
    found = locate_tolerant(source, "f", "def f(a)")
    assert (found.start_line, found.def_line, found.end_line) == (2, 3, 4)


def test_a_def_inside_a_string_is_never_taken():
    source = 'T = """\ndef alpha(xs):\n    return 1\n"""\nx = max(\n'
    with pytest.raises(FunctionNotFound):
        locate_tolerant(source, "alpha")


def test_a_function_after_an_unterminated_triple_quoted_string_is_not_found():
    source = 'def beta():\n    """Doc\n\n\ndef alpha(xs):\n    return 1\n'
    with pytest.raises(FunctionNotFound):
        locate_tolerant(source, "alpha")


def test_the_function_itself_half_typed_is_refused():
    source = TWO.replace('"""Return the sum of xs."""', 'total = sum(', 1)
    with pytest.raises(SourceError, match="line 1"):
        locate_tolerant(source, "alpha")


def test_a_second_definition_in_a_part_that_does_not_parse_is_refused():
    source = TWO + "\n\ndef alpha(xs):\n    return max(\n"
    with pytest.raises(SourceError, match="does not parse"):
        locate_tolerant(source, "alpha", "def alpha(xs)")


def test_two_definitions_that_parse_are_ambiguous():
    source = TWO + "\n\ndef alpha(xs):\n    return 1\n\n\ndef gamma():\n    y = (\n"
    with pytest.raises(AmbiguousFunction, match="lines 1, 9"):
        locate_tolerant(source, "alpha")


def test_a_changed_signature_is_reported():
    source = TWO.replace("def alpha(xs)", "def alpha(xs, ys)") + "    y = (\n"
    with pytest.raises(FunctionNotFound, match="signature changed"):
        locate_tolerant(source, "alpha", "def alpha(xs)")
    with pytest.raises(FunctionNotFound, match="no function named gamma"):
        locate_tolerant(source, "gamma")


def test_parseable_module_blanks_only_the_top_level_blocks_that_do_not_parse():
    source = (
        "import math\n\n"
        "@decorate(\n    1)\ndef typing(x):\n    return max(\n\n"
        "def done(y):\n    '''Keep me.\n\nstill the docstring\n'''\n    return y\n\n"
        "class Half:\n    def m(self):\n        if\n\n"
        "z = [1,\n"
    )
    readable = parseable_module(source.replace("\n", "\r\n"))
    assert readable.left_out == [(2, 6), (14, 17), (18, 18)]
    assert readable.describe() == "lines 3-7, 15-18 and 19"
    lines = readable.text.split("\n")
    assert len(lines) == len(source.split("\n"))
    assert lines[:2] == ["import math", ""] and all(not line for line in lines[2:7])
    assert "\n".join(lines[7:13]) == source.split("\n\nclass")[0].split("\n\n", 2)[2]
    assert all(not line for line in lines[14:])
    ast.parse(readable.text)


def test_parseable_module_of_a_module_that_parses_or_cannot_be_saved():
    assert parseable_module("x = 1\r\n") == ParseableModule("x = 1\n", [])
    # An unterminated string runs to the end: everything after it is left out.
    readable = parseable_module('def f():\n    return 1\n"""never closed\n\ndef g():\n    pass\n')
    assert readable.left_out == [(2, 5)]
    # A multi-line decorator stays with its function.
    source = "@retry(\n    times=3)\ndef f():\n    pass\n\ng = (\n"
    assert parseable_module(source).left_out == [(5, 5)]


def test_a_decorator_over_several_lines_belongs_to_its_function():
    source = "@retry(\n    times=3)\ndef f():\n    pass\n\ng = (\n"
    found = locate_tolerant(source, "f")
    assert (found.start_line, found.def_line, found.end_line) == (0, 2, 3)


def test_the_left_out_block_holding_a_function_and_the_run_note():
    source = ("def f(x):\n    return x\n\n\nclass A:\n    def m(self):\n        '''Doc.'''\n\n"
              "    def n(self):\n        return max(\n")
    readable = parseable_module(source)
    assert readable.left_out == [(4, 9)]
    assert readable.block_holding(source, "A.m") == (4, 9)
    assert readable.block_holding(source, "f") is None
    assert readable.block_holding(source, "nowhere") is None
    assert readable.run_note() == (
        "code that does not parse (lines 5-10) was left out of the prompt and the tests")
    assert parseable_module("x = 1\n").run_note() is None


def test_a_function_whose_own_body_does_not_parse_is_in_its_left_out_block():
    source = 'def double(x):\n    """Double x."""\n\n\ndef later(values):\n    return max(\n'
    assert parseable_module(source).block_holding(source, "later") == (4, 5)
