"""codeteam.pysource.docstrings: the plan inside a docstring."""

import ast

import pytest

from codeteam.pysource.docstrings import read_plan, strip_plan, write_plan

STUB = '''@cache
def running_max(xs: list[int]) -> list[int]:
    """Return the running maximum of xs.

    >>> running_max([1, 3, 2])
    [1, 3, 3]
    """
    ...
'''


def _doc(text):
    return ast.get_docstring(ast.parse(text).body[0])


def test_write_then_read_plan_keeps_the_rest():
    out = write_plan(STUB, ["Start empty.", "Track the max.", "Return the list."])
    assert out.startswith("@cache\ndef running_max(xs: list[int]) -> list[int]:\n")
    assert out.endswith("    ...\n")
    doc = _doc(out)
    assert read_plan(doc) == ["Start empty.", "Track the max.", "Return the list."]
    assert strip_plan(doc) == "Return the running maximum of xs.\n\n>>> running_max([1, 3, 2])\n[1, 3, 3]"


def test_writing_again_replaces_the_plan():
    once = write_plan(STUB, ["a", "b", "c"])
    twice = write_plan(once, ["only one"])
    assert read_plan(_doc(twice)) == ["only one"]
    assert twice.count("Plan:") == 1


def test_one_line_docstring_and_no_docstring():
    out = write_plan("def f(x):\n    '''Double x.'''\n    return 2 * x\n", ["Multiply by two."])
    assert read_plan(_doc(out)) == ["Multiply by two."]
    assert "'''" in out  # the user's quote style is kept
    out = write_plan("def f(x):\n    return 2 * x\n", ["Multiply by two."])
    assert read_plan(_doc(out)) == ["Multiply by two."]
    assert out.rstrip().endswith("return 2 * x")


def test_steps_with_quotes_and_backslashes_stay_valid_python():
    out = write_plan(STUB, ['Split on "\\n" and """quotes"""'])
    ast.parse(out)
    assert read_plan(_doc(out)) == ["Split on \"\\n\" and '''quotes'''"]


def test_read_plan_joins_continuations_and_ignores_other_text():
    doc = "Intent.\n\nPlan:\n1. First step\n   continues here.\n2) Second.\n\nNotes after."
    assert read_plan(doc) == ["First step continues here.", "Second."]
    assert read_plan("No plan here.") is None
    assert read_plan(None) is None


def test_empty_plan_is_refused():
    with pytest.raises(ValueError):
        write_plan(STUB, [])


def test_a_skipped_doctest_example_is_left_out_as_doctest_leaves_it():
    from codeteam.service.documents import doctest_cases

    docstring = (
        "Group.\n\n"
        ">>> group([1, 2])  # doctest: +SKIP\n"
        "{'whatever': 'the docs do not promise'}\n"
        ">>> group([])\n"
        "{}\n"
    )
    cases = doctest_cases(docstring, "group")
    assert [c.id for c in cases] == ["doctest:2"]
    assert cases[0].source == "group([])" and cases[0].setup == ""
