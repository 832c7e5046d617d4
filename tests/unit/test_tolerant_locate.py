"""codeteam.pysource.tolerant: finding a function while another part of the module is
half-typed, and never at a wrong place."""

import pytest

from codeteam.pysource.functions import (
    AmbiguousFunction,
    FunctionNotFound,
    SourceError,
    function_text,
    locate,
)
from codeteam.pysource.tolerant import locate_tolerant

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
