"""The editor's apply helpers without a server: planning and checking a replacement, the
document watch's expectations, per-document locks, and the kept run records."""

import asyncio

import pytest

from codeteam.editor.document_watch import DocumentLocks, DocumentWatch
from codeteam.editor.replacement import (
    ReplacementError,
    check_replacement,
    plan_replacement,
    same_function,
)
from codeteam.editor.transcript import RunRecord, RunRecords, render_with_kept
from codeteam.pipelines.result import Result
from codeteam.pysource.functions import locate
from codeteam.pysource.tolerant import locate_tolerant

TWO = '''def alpha(xs):
    """Return the sum of xs."""


def beta(xs):
    """Return the product of xs."""
'''
ALPHA = "def alpha(xs):\n    total = 0\n    for x in xs:\n        total += x\n    return total\n"
HALF_TYPED = TWO + "    result = max("


def test_a_replacement_names_the_new_function():
    replacement = plan_replacement(TWO, locate(TWO, "alpha"), ALPHA)
    assert replacement is not None
    assert (replacement.qualname, replacement.signature) == ("alpha", "def alpha(xs)")
    assert replacement.new_text.startswith(ALPHA + "\n\ndef beta(xs):")
    assert check_replacement(replacement.new_text, replacement) == "applied"


def test_code_that_does_not_parse_is_refused():
    with pytest.raises(ReplacementError, match="does not parse .*line 2"):
        plan_replacement(TWO, locate(TWO, "alpha"), "def alpha(xs):\n    return max(\n")


def test_code_without_one_function_is_refused():
    code = "def one():\n    return 1\n\n\ndef two():\n    return 2\n"
    with pytest.raises(ReplacementError, match="one function"):
        plan_replacement(TWO, locate(TWO, "alpha"), code)


def test_a_replacement_while_another_function_is_half_typed():
    info = locate_tolerant(HALF_TYPED, "alpha", "def alpha(xs)")
    replacement = plan_replacement(HALF_TYPED, info, ALPHA)
    assert replacement is not None and replacement.new_text.endswith("    result = max(")
    assert check_replacement(replacement.new_text, replacement) == "applied"


def test_check_tells_missing_from_misplaced():
    replacement = plan_replacement(TWO, locate(TWO, "alpha"), ALPHA)
    assert check_replacement(TWO, replacement) == "missing"
    # The edit landed two lines too low: the old header is left above the new function.
    misplaced = TWO.split("\n")
    misplaced = "\n".join(misplaced[:2]) + "\n" + ALPHA + "\n".join(misplaced[4:])
    assert check_replacement(misplaced, replacement) == "misplaced"


def test_a_trailing_comment_line_is_not_part_of_the_span():
    assert same_function("def f():\n    return 1\n", "def f():\n    return 1\n    # done\n\n")
    assert not same_function("def f():\n    return 1\n", "def f():\n    return 2\n")


def test_an_expectation_is_reached_by_any_text_passed_through():
    watch = DocumentWatch()
    with watch.expect("file:///a%20b.py", "new") as expected:
        watch.text_changed("file:///a b.py", "old")
        assert not expected.reached
        watch.text_changed("file:///a b.py", "new")
        watch.text_changed("file:///a b.py", "new and typed")
        assert expected.reached
    watch.text_changed("file:///a b.py", "new")  # no one listens: nothing kept
    assert watch._expected == {}


async def test_document_locks_take_turns():
    locks = DocumentLocks()
    order = []

    async def apply(name, uri, seconds):
        async with locks.hold(uri):
            order.append(f"{name} start")
            await asyncio.sleep(seconds)
            order.append(f"{name} end")

    await asyncio.gather(apply("a", "file:///m.py", 0.05), apply("b", "file:///m.py", 0),
                         apply("c", "file:///other.py", 0))
    assert order.index("a end") < order.index("b start")
    assert order.index("c start") < order.index("a end")  # another document: no wait
    assert not locks.busy("file:///m.py")


def _record(qualname, applied, code="def f():\n    return 1\n", uri="file:///m.py"):
    return RunRecord(title="Generate with team", uri=uri, qualname=qualname,
                     result=Result(pipeline="team", status="untested", code=code),
                     applied=applied, outcome="")


def test_records_keep_the_latest_run_per_function():
    records = RunRecords(limit=3)
    assert records.latest() is None
    kept, applied, again = _record("beta", False), _record("alpha", True), _record("beta", True)
    records.put(kept)
    records.put(applied)
    assert records.latest() is applied and records.latest(qualname="beta") is kept
    assert records.kept() == [kept]
    assert "# Other results kept" in render_with_kept(applied, records.kept())
    assert records.latest("file:///m%2Epy", "beta") is kept  # compared unquoted
    records.put(again)
    assert records.latest(qualname="beta") is again and records.kept() == [] and len(records) == 2
    for name in ("c", "d", "e"):
        records.put(_record(name, None))
    assert len(records) == 3 and records.latest(qualname="alpha") is None
