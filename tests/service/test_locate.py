"""The one resolver of "which function" (:func:`codeteam.service.locate.locate_target`), as the
editor calls it (qualname, signature, the cursor's 0-based line) and as the CLI does (a name)."""

from __future__ import annotations

import pytest

from codeteam.service.locate import ServiceError, TargetError, locate_target

TWICE = "def f(x):\n    return 1\n\n\ndef f(x):\n    return 2\n"


def test_a_name_defined_twice_is_told_apart_by_the_line():
    _, found = locate_target(TWICE, "f", signature="def f(x)", line=5)
    assert found.def_line == 4
    with pytest.raises(TargetError, match=r"f is defined more than once \(lines 1, 5\)"):
        locate_target(TWICE, "f")


def test_a_line_alone_finds_the_innermost_function():
    source = "class A:\n    def m(self):\n        return 1\n"
    _, found = locate_target(source, line=2)
    assert found.qualname == "A.m"
    with pytest.raises(TargetError, match="no function at line 1"):
        locate_target("x = 1\n", line=0)


def test_a_stale_name_with_a_line_falls_back_to_the_function_there():
    _, found = locate_target(TWICE.replace("def f", "def g", 1), "h", line=1)
    assert found.qualname == "g"


def test_a_missing_name_is_named_with_the_functions_that_are_there():
    with pytest.raises(TargetError) as caught:
        locate_target(TWICE.replace("def f", "def g", 1), "h")
    assert str(caught.value).startswith("no function named h in the document")
    assert caught.value.hint == " (functions here: g, f; a method is Class.method)"
    assert isinstance(caught.value, ServiceError)  # the CLI and the editor catch one kind


def test_a_line_in_code_that_does_not_parse_names_the_lines_and_the_error():
    source = "def g(x):\n    return x\n\n\ndef later(:\n    pass\n"
    with pytest.raises(TargetError) as caught:
        locate_target(source, line=5)
    assert str(caught.value) == ("line 6 is in code that does not parse (lines 5-6; line 5: "
                                 "invalid syntax); finish or fix it first")
    readable, found = locate_target(source, "g")
    assert found.qualname == "g" and readable.left_out == [(4, 5)]


def test_the_overload_implementation_is_found_by_name_for_the_editor_too():
    source = ("from typing import overload\n\n\n@overload\ndef f(x: int) -> int: ...\n\n\n"
              "@overload\ndef f(x: str) -> str: ...\n\n\ndef f(x):\n    return x\n")
    _, found = locate_target(source, "f", line=4)
    assert found.def_line == 11  # the implementation, as the CLI finds it by name


def test_the_syntax_error_of_a_block_below_a_form_feed_is_on_its_line():
    """``str.splitlines`` also splits at a form feed (a page break of older Python files): the
    block was taken two lines off and its error was not found."""
    source = '\f\n"""Page one."""\n\f\ndef g(x):\n    return x\n\n\ndef later(:\n    pass\n'
    with pytest.raises(TargetError) as caught:
        locate_target(source, line=8)
    assert str(caught.value) == ("line 9 is in code that does not parse (lines 8-9; line 8: "
                                 "invalid syntax); finish or fix it first")
