"""The tester: writes AI tests from the requirement and reports on *executed* tests.

Self-collaboration's tester (Dong et al., arXiv 2304.07590, section 3.2) reviews the code and
writes a report (:func:`build_report`, from a run the pipeline obtained from execution:
:func:`codeteam.execution.suite.run_suite`); a report from opinion alone hallucinates passes, so here the report is built
from running the public tests (the user's doctests and pytest tests) and the AI tests in the
sandbox. The AI tests come from the requirement alone, ordered easy to hard (AlphaCodium,
Ridnik et al., arXiv 2401.08500, section 3; AgentCoder's independent test designer), so they
do not inherit the code's bugs.
"""

from __future__ import annotations

import ast
from collections import Counter
from typing import Literal

from pydantic import BaseModel, Field

from codeteam.execution.describe import (  # noqa: F401 - the tester's vocabulary, re-exported
    NOT_JUDGED,
    describe_failure,
    describe_not_judged,
    describe_skipped,
    failure_details,
    not_judged_reason,
    skipped_label,
)
from codeteam.execution.outcomes import RunReport, TestCase
from codeteam.pysource.syntax import parse_tree
from codeteam.roles.code_extraction import code_blocks
from codeteam.roles.conversation import Conversation
from codeteam.task import Task

REPORT_LIMIT = 4000
"""Characters of the report text the coder sees (the failures first)."""


class TesterReport(BaseModel):
    """The tester's report on one candidate: the tests it ran and what happened.

    ``round`` counts from 1; ``run`` holds the executed outcomes; ``tests`` the test cases run,
    in order; ``verdict`` is "pass" when some test ran and every test that ran passed (a
    skipped test counts neither way, nor does a docstring example that only disagrees with the
    code beside the project's passing tests), "not judged" when no test failed but some could
    not be judged (neither a pass nor a failure), else "fail";
    ``summary`` is the text shown to the user and given to the coder for its next revision.
    """

    round: int
    verdict: Literal["pass", "fail", "not judged"]
    summary: str
    tests: list[TestCase] = Field(default_factory=list)
    run: RunReport | None = None

    @property
    def passed(self) -> bool:
        return self.verdict == "pass"

    def counts(self, origin: str | None = None, kind: str | None = None) -> tuple[int, int]:
        """(passed, total) over the tests of ``origin`` ("public", "ai"; None: all) and, given
        ``kind``, of that kind ("pytest": the project's own tests) that ran (skipped tests are
        not counted; a "not judged" one is in the total, not a pass)."""
        if self.run is None:
            return 0, 0
        by_id = {t.id: t for t in self.tests}
        chosen = [o for o in self.run.ran
                  if (origin is None or by_id[o.test_id].origin == origin)
                  and (kind is None or by_id[o.test_id].kind == kind)]
        return sum(o.passed for o in chosen), len(chosen)

    def skipped_notes(self) -> list[str]:
        """One line per reason a test could not run (``test_x.py::test_y not run: No module
        named 'foo' ...``), for the run's notes: tests with the same reason share a line."""
        if self.run is None:
            return []
        by_id = {t.id: t for t in self.tests}
        reasons: dict[str, list[str]] = {}
        for outcome in self.run.skipped:
            test = by_id.get(outcome.test_id)
            name = skipped_label(test) if test is not None else outcome.test_id
            reasons.setdefault(outcome.message or "not runnable in the sandbox", []).append(name)
        notes = []
        for reason, names in reasons.items():
            if len(names) > 1 and len(names) == len(self.run.outcomes):
                who = f"all {len(names)} tests"
            elif len(names) > 3:
                who = f"{names[0]} and {len(names) - 1} more tests"
            else:
                who = ", ".join(names)
            notes.append(f"{who} not run: {reason}")
        return notes


def parse_asserts(
    text: str, function_name: str, *, limit: int = 30, method: bool = False
) -> list[TestCase]:
    """AI tests from a reply: each top-level ``assert`` statement that calls
    ``function_name`` becomes one test, in order, duplicates dropped. Lines that do not parse
    are skipped one by one (a weak model's broken line costs only that test). A reply with no
    such assert but doctest examples (``>>> f(x)`` and the output) gives those instead, the
    first expectation of each call only (weak models repeat a call with other outputs).

    ``method``: the function is a method (or a nested function), which a test can only reach
    through an object: only calls ``something.function_name(...)`` count, and bare calls,
    which could only fail with NameError, are dropped."""
    tests = _assert_cases(text, function_name, limit, method)
    return tests or _doctest_cases(text, function_name, limit, method)


def _calls_target(tree: ast.AST, function_name: str, method: bool) -> bool:
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if method and isinstance(func, ast.Attribute) and func.attr == function_name:
            return True
        if not method and isinstance(func, ast.Name) and func.id == function_name:
            return True
    return False


def _doctest_cases(text: str, function_name: str, limit: int, method: bool) -> list[TestCase]:
    tests: list[TestCase] = []
    seen: set[str] = set()
    lines = [line.strip() for line in text.splitlines()]
    for i, line in enumerate(lines):
        if not line.startswith(">>> ") or i + 1 >= len(lines):
            continue
        source, want = line[4:].strip(), lines[i + 1]
        if not want or want.startswith((">>>", "```", '"""')):
            continue
        try:
            tree = parse_tree(source)
        except SyntaxError:
            continue
        if not _calls_target(tree, function_name, method):
            continue
        if source in seen:
            continue
        seen.add(source)
        tests.append(TestCase(id=f"ai:{len(tests) + 1}", kind="doctest", origin="ai",
                              source=source, expected=want, call=source))
        if len(tests) >= limit:
            break
    return tests


def _assert_cases(text: str, function_name: str, limit: int, method: bool) -> list[TestCase]:
    tests: list[TestCase] = []
    seen: set[str] = set()
    for block in code_blocks(text):
        for line in _statements(block):
            try:
                tree = parse_tree(line)
            except SyntaxError:
                continue
            for node in tree.body:
                if not isinstance(node, ast.Assert):
                    continue
                if not _calls_target(node.test, function_name, method):
                    continue
                source = ast.unparse(node)
                if source in seen:
                    continue
                seen.add(source)
                call = expected = None
                if (
                    isinstance(node.test, ast.Compare)
                    and len(node.test.ops) == 1
                    and isinstance(node.test.ops[0], ast.Eq)
                ):
                    call = ast.unparse(node.test.left)
                    expected = ast.unparse(node.test.comparators[0])
                tests.append(
                    TestCase(
                        id=f"ai:{len(tests) + 1}",
                        kind="assert",
                        origin="ai",
                        source=source,
                        call=call,
                        expected=expected,
                    )
                )
                if len(tests) >= limit:
                    return tests
    return tests


def _statements(block: str) -> list[str]:
    """Top-level statements of ``block``; if it does not parse as a whole, its lines."""
    try:
        tree = parse_tree(block)
    except SyntaxError:
        return [line.strip() for line in block.splitlines() if line.strip()]
    return [ast.get_source_segment(block, node) or ast.unparse(node) for node in tree.body]


async def write_tests(conversation: Conversation, task: Task, count: int) -> list[TestCase]:
    """``count`` AI tests for ``task`` from the requirement (not the code), easiest first.
    May return fewer (or none) when the model writes fewer valid asserts. Raises what
    :meth:`Conversation.ask` raises."""
    if count <= 0:
        return []
    stage = "tester: writing tests"
    conversation.report(stage)
    reply = await conversation.ask("tester", stage, "tester", task=task, count=count)
    return parse_asserts(reply, task.name, limit=count, method=task.is_method)


def not_run_line(run: RunReport) -> str:
    """``3 not run: fixture 'db' not found`` (one reason) or ``5 not run: 3 fixture 'db' not
    found, 2 Skipped: slow``: the tests that could not run, counted per reason (pytest's own
    words for pytest tests; not a failure of the code)."""
    reasons = Counter(_short(o.message) for o in run.skipped)
    count = len(run.skipped)
    if len(reasons) == 1:
        return f"{count} not run: {next(iter(reasons))}"
    groups = ", ".join(f"{n} {reason}" for reason, n in reasons.most_common(5))
    if len(reasons) > 5:
        groups += f", {len(reasons) - 5} more reasons"
    return f"{count} not run: {groups}"


def _short(message: str) -> str:
    text = " ".join((message or "not runnable in the sandbox").split())
    return text if len(text) <= 160 else text[:159] + "…"


def build_report(tests: list[TestCase], run: RunReport, *, round_number: int) -> TesterReport:
    """The report for executed ``run`` of ``tests``: verdict and the summary text."""
    by_id = {t.id: t for t in tests}
    failures, not_judged, disagreeing = run.failures, run.not_judged, run.disagreements
    verdict: Literal["pass", "fail", "not judged"] = "fail"
    if run.all_passed:
        verdict = "pass"
    elif not_judged and not failures:
        verdict = "not judged"  # no failure, but tests that count neither way
    lines = []
    for origin, label in (("public", "public tests"), ("ai", "AI tests"), ("hidden", "tests")):
        chosen = [o for o in run.ran if by_id[o.test_id].origin == origin and not o.advisory]
        if chosen:
            lines.append(f"{sum(o.passed for o in chosen)}/{len(chosen)} {label} passed")
    advisory = [o for o in run.ran if o.advisory]
    if advisory:
        lines.append(f"{sum(o.passed for o in advisory)}/{len(advisory)} docstring examples "
                     "agree with the code")
    head = "; ".join(lines) or "no tests ran"
    if verdict == "not judged":
        head = "not judged: " + head
    if run.ran:
        head += f" (ran {len(run.ran)}: {len(run.passed)} passed, {len(failures)} failed"
        if disagreeing:  # so that the parts add up to what ran
            head += f", {len(disagreeing)} docstring example(s) disagree"
        head += (f", {len(not_judged)} not judged: {not_judged_reason(not_judged)})"
                 if not_judged else ")")
    if disagreeing:
        head += ("; a docstring example that disagrees with the code is not a failure here: "
                 "the project's configuration does not run its doctests")
    if run.skipped:
        head += "; " + not_run_line(run)
    if run.killed:
        head += " (the run hit its wall-clock backstop)"
    details = [describe_failure(by_id[o.test_id], o) for o in failures]
    details += [describe_not_judged(by_id[o.test_id], o) for o in not_judged]
    details += [describe_failure(by_id[o.test_id], o) for o in disagreeing]
    details += [describe_skipped(by_id[o.test_id], o) for o in run.skipped]
    summary = head if not details else head + "\n\n" + "\n\n".join(details)
    if len(summary) > REPORT_LIMIT:
        summary = summary[: REPORT_LIMIT - 20] + "\n… (report cut)"
    return TesterReport(
        round=round_number, verdict=verdict, summary=summary, tests=tests, run=run
    )
