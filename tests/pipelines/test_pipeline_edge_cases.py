"""Pipelines on real-world shapes (methods with column-0 strings, line separators, stateful
doctests, keyword-named files, prompt overrides, imports that fail), driven by the scripted
model and the real sandbox; each reproduces a defect a review found."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from scripted_replies import DIRECT, PLANNER, TESTER

pytestmark = pytest.mark.sandbox

METHOD_WITH_COLUMN_0_STRING = '''class Report:
    def header(self):
        """The header line.

        >>> Report().header()
        'TITLE'
        """
        return """\\
TITLE"""

    def footer(self):
        return "end"
'''


async def test_team_on_a_method_with_a_column_0_string_does_not_raise(scripted, run_on_disk):
    scripted.reply(DIRECT, "```python\ndef header(self):\n    return 'TITLE'\n```")
    result = await run_on_disk("team", METHOD_WITH_COLUMN_0_STRING, "Report.header")
    assert not scripted.unmatched and result.code is not None, result.notes
    assert result.code == ('def header(self):\n    """The header line.\n\n'
                           "    >>> Report().header()\n    'TITLE'\n    \"\"\"\n"
                           "    return 'TITLE'\n")
    # right code: judged, and passed (the one judge decides every doctest)
    run = result.last_report.run
    assert run.outcomes and not run.failures, result.last_report.summary
    assert result.status == "passed", result.last_report.summary


ANALYST_OR_PLANNER = r"You are the analyst|You write short plans"


async def test_review_of_a_correct_method_with_a_column_0_string(scripted, run_on_disk):
    result = await run_on_disk("review", METHOD_WITH_COLUMN_0_STRING, "Report.header")
    run = result.last_report.run
    assert run.outcomes and not run.failures, result.last_report.summary
    assert result.status == "passed", result.last_report.summary


async def test_review_does_not_pass_a_wrong_function_because_of_a_line_separator(
    scripted, run_on_disk, tmp_path: Path
):
    module = tmp_path / "textutil.py"
    source = 'def shout(s):\n    """Upper-case s."""\n    return s\n'  # wrong on purpose
    module.write_text(source)
    (tmp_path / "test_textutil.py").write_text(
        "from textutil import shout\n\n"
        'SEPARATOR = "a\u2028b"\n\n'
        "def test_shout():\n"
        '    word = "hi"\n'
        '    assert shout(word) == "HI"\n',
        encoding="utf-8",
    )
    result = await run_on_disk("review", source, "shout", path=module, root=tmp_path)
    assert result.status == "failed", result.last_report.summary


METHOD = '''class Counter:
    def __init__(self, start=0):
        self.value = start

    def bumped(self, step):
        """Return the value plus step (the counter is not changed)."""
        return self.value + step
'''


async def test_ai_tests_for_a_method_are_usable(scripted, run_on_disk):
    scripted.reply(
        TESTER,
        "```python\nassert Counter(1).bumped(2) == 3\nassert Counter().bumped(0) == 0\n```",
    )
    result = await run_on_disk("review", METHOD, "Counter.bumped", ai_tests=2)
    report = result.last_report
    assert report is not None and report.counts("ai")[1] == 2, result.notes
    # both ran and neither failed: judged passes, or (a method's test decided in the code's
    # own process) "not judged", which counts neither way
    assert not report.run.failures, report.summary
    assert len(report.run.passed) + len(report.run.not_judged) == 2, report.summary


async def test_bare_call_ai_tests_for_a_method_do_not_fail_a_correct_method(scripted, run_on_disk):
    """``bumped(Counter(1), 2)`` names no function of the module: the AI test is dropped as
    unusable, not run as a failure of the method."""
    scripted.reply(TESTER, "```python\nassert bumped(Counter(1), 2) == 3\n```")
    result = await run_on_disk("review", METHOD, "Counter.bumped", ai_tests=1)
    assert scripted.count(TESTER) == 1
    assert result.status == "untested", (result.status, result.notes)
    assert "tester: wrote no usable AI tests; only the public tests were run" in result.notes


async def test_plan_docstring_never_returns_code_that_does_not_parse(scripted, run_on_disk):
    scripted.reply(PLANNER, "1. Multiply x by two.\n2. Return it.")
    result = await run_on_disk("plan_docstring", "def double(x):\n\treturn 2 * x\n", "double")
    assert result.code == (
        'def double(x):\n\t"""Plan:\n\t1. Multiply x by two.\n\t2. Return it.\n\t"""\n'
        "\treturn 2 * x\n"
    ), (result.status, result.notes)
    ast.parse(result.code)


async def test_a_bad_prompt_override_degrades_instead_of_raising(scripted, run_on_disk, tmp_path):
    (tmp_path / "direct.yaml").write_text("system: only a system message\n")
    scripted.reply(ANALYST_OR_PLANNER, "1. Double it.", times=None)
    result = await run_on_disk("direct", 'def double(x):\n    """Double x."""\n', "double",
                       prompts_dir=str(tmp_path))
    assert result.status == "error" and result.code is None
    assert any(f"{tmp_path / 'direct.yaml'} is malformed" in note and "user" in note
               for note in result.notes), result.notes
    assert scripted.requests == []  # nothing was asked with a broken prompt


STATEFUL_DOCTEST = '''class Counter:
    """A counter.

    >>> c = Counter()
    >>> c.incr()
    1
    >>> c.incr()
    2
    """

    def __init__(self):
        self.n = 0

    def incr(self):
        """Add one and return the count."""
        self.n += 1
        return self.n


def total(xs):
    """Sum xs, remembering nothing.

    >>> seen = []
    >>> seen.append(1) or len(seen)
    1
    >>> seen.append(2) or len(seen)
    2
    >>> total(seen)
    3
    """
    return sum(xs)
'''


async def test_review_runs_stateful_doctests_like_doctest(scripted, run_on_disk):
    result = await run_on_disk("review", STATEFUL_DOCTEST, "total")
    assert result.status == "passed", result.last_report.summary


async def test_flow_survives_a_degenerate_yaml_reply(scripted, run_on_disk):
    from scripted_replies import AI_TESTS, DIRECT, FLOW_CODE, REFLECT

    scripted.reply(AI_TESTS, "tests:\n- input: '3'\n  output: '6'\n")
    scripted.reply(REFLECT, "self_reflection:\n- " + "[" * 1000, times=None)
    scripted.reply(DIRECT, "```python\ndef double(x):\n    return x\n```", times=1)
    scripted.reply(DIRECT, "```python\ndef double(x):\n    return 2 * x\n```", times=None)
    scripted.reply(FLOW_CODE, "```python\ndef double(x):\n    return x - 1\n```", times=None)
    result = await run_on_disk("flow", 'def double(x):\n    """Double x.\n\n    >>> double(2)\n    4\n'
                       '    """\n', "double", max_rounds=3)
    assert result.status == "passed", result.notes
    assert scripted.count(REFLECT) == 2 and scripted.count(FLOW_CODE) == 0  # YAML re-asked once
    assert any("reflection skipped" in n for n in result.notes)


async def test_user_tests_using_pytest_raises_without_the_dev_extra(
    scripted, run_on_disk, tmp_path: Path, monkeypatch
):
    # A plain install (scripts/setup.sh without --dev): pytest is one of codeteam's own
    # dependencies, the judge of every test.
    module = tmp_path / "parsing.py"
    source = 'def parse_age(text):\n    """An age from text; ValueError if negative."""\n' \
             '    age = int(text)\n    if age < 0:\n        raise ValueError(text)\n    return age\n'
    module.write_text(source)
    (tmp_path / "test_parsing.py").write_text(
        "import pytest\n\nfrom parsing import parse_age\n\n\n"
        "def test_negative():\n    with pytest.raises(ValueError):\n        parse_age('-1')\n"
    )
    result = await run_on_disk("review", source, "parse_age", path=module, root=tmp_path)
    assert result.status == "passed", result.last_report.summary
    [outcome] = result.last_report.run.outcomes
    assert (outcome.test_id, outcome.status) == ("test_parsing.py::test_negative", "passed")


async def test_review_of_a_file_named_after_a_keyword(scripted, run_on_disk, tmp_path: Path):
    module = tmp_path / "lambda.py"
    source = 'def handler(event):\n    """Echo.\n\n    >>> handler(1)\n    1\n    """\n' \
             '    return event\n'
    module.write_text(source)
    result = await run_on_disk("review", source, "handler", path=module, root=tmp_path)
    assert result.status == "passed", result.notes


@pytest.mark.sandbox
async def test_review_does_not_pass_a_function_whose_result_fails_to_import(
    scripted, run_on_disk, tmp_path: Path
):
    module = tmp_path / "formats.py"
    source = (
        "def reader_module(ext):\n"
        '    """The standard module that reads files with extension ext.\n\n'
        '    >>> reader_module("csv")\n'
        "    'csv'\n"
        '    """\n'
        '    return {"csv": "csv", "json": "jsonn"}.get(ext)  # typo: the bug\n'
    )
    module.write_text(source)
    (tmp_path / "test_formats.py").write_text(
        "import importlib\n\nfrom formats import reader_module\n\n\n"
        "def test_json_reader_parses():\n"
        '    assert importlib.import_module(reader_module("json")).loads("[1]") == [1]\n'
    )
    result = await run_on_disk("review", source, "reader_module", path=module, root=tmp_path)
    statuses = [(o.test_id, o.status) for o in result.last_report.run.outcomes]
    assert result.status == "failed", (result.status, statuses, result.notes)
