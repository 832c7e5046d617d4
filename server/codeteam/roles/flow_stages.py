"""The stages of the AlphaCodium flow (Ridnik et al., arXiv 2401.08500, section 3), each a
prompt file and a pydantic model for its YAML reply.

Unlike AlphaCodium's reference code, which mutates one shared dict and returns "" on any
stage error, each stage here returns a typed value or raises a typed error
(:class:`~codeteam.roles.structured.StructuredReplyError`,
:class:`~codeteam.llm.client.LLMError`,
:class:`~codeteam.roles.code_extraction.CodeExtractionError`), and the pipeline decides how to
degrade.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, field_validator

from codeteam.execution.outcomes import TestCase
from codeteam.pysource.syntax import parse_tree
from codeteam.roles.coder import ask_for_code
from codeteam.roles.conversation import Conversation
from codeteam.roles.structured import ask_structured
from codeteam.task import Task


def _as_lines(value: Any) -> list[str]:
    """YAML gives a list, a string, or a mapping; make it a list of short strings."""
    if value is None:
        return []
    if isinstance(value, str):
        return [line.strip(" -*") for line in value.splitlines() if line.strip(" -*")]
    if isinstance(value, dict):
        return [f"{k}: {v}" for k, v in value.items()]
    if isinstance(value, list):
        out: list[str] = []
        for item in value:
            out.extend(_as_lines(item) if not isinstance(item, (str, int, float)) else
                       [str(item).strip()])
        return [s for s in out if s]
    return [str(value)]


class Reflection(BaseModel):
    """Problem reflection and public-test reasoning."""

    self_reflection: list[str] = Field(min_length=1)
    tests_explanation: list[str] = Field(default_factory=list)

    @field_validator("self_reflection", "tests_explanation", mode="before")
    @classmethod
    def _lines(cls, value: Any) -> list[str]:
        return _as_lines(value)


def _python_source(value: Any) -> str:
    """A YAML scalar or collection as Python source text."""
    if isinstance(value, str):
        return value.strip()
    return repr(value)


class AITest(BaseModel):
    input: str
    output: str
    explanation: str = ""

    @field_validator("input", "output", mode="before")
    @classmethod
    def _source(cls, value: Any) -> str:
        return _python_source(value)

    @field_validator("explanation", mode="before")
    @classmethod
    def _explanation(cls, value: Any) -> str:
        return "" if value is None else str(value)


class AITests(BaseModel):
    tests: list[AITest] = Field(min_length=1)


async def reflect(conversation: Conversation, task: Task) -> Reflection:
    """Self-reflection on the problem and reasoning about the public tests."""
    stage = "flow: reflecting on the problem"
    conversation.report(stage)
    return await ask_structured(
        conversation, "analyst", stage, "flow_reflect", Reflection, task=task,
        tests=[t.describe() for t in task.public_tests],
    )


def ai_tests_to_cases(tests: list[AITest], function_name: str, *, start: int = 1) -> list[TestCase]:
    """``assert name(input) == output`` test cases; items whose input or output is not valid
    Python are dropped. Ids ``ai:N`` count from ``start``."""
    cases: list[TestCase] = []
    seen: set[str] = set()
    for test in tests:
        call = f"{function_name}({test.input})"
        source = f"assert {call} == {test.output}"
        try:
            parse_tree(source)
        except SyntaxError:
            continue
        if source in seen:
            continue
        seen.add(source)
        cases.append(
            TestCase(
                id=f"ai:{start + len(cases)}",
                kind="assert",
                origin="ai",
                source=source,
                call=call,
                expected=test.output,
            )
        )
    return cases


async def write_ai_tests(conversation: Conversation, task: Task, count: int) -> list[TestCase]:
    """AI tests, easy to hard, as assert test cases."""
    stage = "flow: writing AI tests"
    conversation.report(stage)
    reply = await ask_structured(
        conversation, "tester", stage, "flow_tests", AITests, task=task, count=count,
        tests=[t.describe() for t in task.public_tests],
    )
    return ai_tests_to_cases(reply.tests[:count], task.name)


async def initial_code(conversation: Conversation, task: Task, reflection: list[str]) -> str:
    """The initial code written from the reflection (one call: a reply with no usable code
    raises :class:`~codeteam.roles.code_extraction.CodeExtractionError`, not asked again, as
    for a sample)."""
    stage = "flow: writing code"
    conversation.report(stage)
    return await ask_for_code(
        conversation, task, role="coder", stage=stage, prompt="flow_code", retries=0,
        reflection=reflection,
    )


async def fix_code(
    conversation: Conversation, task: Task, code: str, failure: str, anchors: list[str],
    *, label: str,
) -> str:
    """Code iterations: a fix of ``code`` for one failing test (``failure`` text), told which
    tests (``anchors``) must keep passing."""
    stage = f"flow: fixing ({label})"
    conversation.report(stage)
    return await ask_for_code(
        conversation, task, role="coder", stage=stage, prompt="flow_fix", retries=0,
        code=code, failure=failure, anchors=anchors,
    )
