"""Structured YAML replies: repair, retry with the parse error, typed failure."""

import pytest
from pydantic import BaseModel

from codeteam.llm.client import Endpoint, LLMClient
from codeteam.roles.conversation import Conversation
from codeteam.roles.flow_stages import AITests, Reflection, ai_tests_to_cases
from codeteam.roles.prompts import PromptLibrary
from codeteam.roles.structured import (
    StructuredReplyError,
    ask_structured,
    parse_structured,
    repair_yaml,
)
from codeteam.task import Task


class Code(BaseModel):
    name: str
    code: str


class Codes(BaseModel):
    solutions: list[Code]


def test_repairs_fences_prose_and_missing_block_scalar():
    text = (
        "Here is the YAML you asked for:\n```yaml\nsolutions:\n  - name: loop\n    code:\n"
        "      def f(x):\n          return {'a': x}\n```\nDone."
    )
    parsed = parse_structured(text, Codes)
    assert parsed.solutions[0].code == "def f(x):\n    return {'a': x}\n"
    assert "code: |" in repair_yaml(text, ["solutions"])


def test_tabs_are_repaired():
    parsed = parse_structured("name: a\ncode: |\n\treturn 1\n", Code)
    assert parsed.code.strip() == "return 1"


def test_schema_error_is_typed_and_names_the_field():
    with pytest.raises(StructuredReplyError, match="name"):
        parse_structured("code: x\n", Code)


def test_lenient_models_accept_strings_or_lists():
    r = parse_structured("self_reflection: |\n  - takes a list\n  - returns ints\n", Reflection)
    assert r.self_reflection == ["takes a list", "returns ints"]


def test_ai_tests_become_asserts_and_bad_items_are_dropped():
    tests = parse_structured(
        "tests:\n- input: '[3, 1], 1'\n  output: '[3]'\n- input: [1, 2]\n  output: 3\n"
        "- input: '(('\n  output: '1'\n", AITests).tests
    cases = ai_tests_to_cases(tests, "top")
    assert [c.source for c in cases] == ["assert top([3, 1], 1) == [3]",
                                         "assert top([1, 2]) == 3"]
    assert [c.id for c in cases] == ["ai:1", "ai:2"]


async def test_retry_shows_the_parse_error_then_raises(scripted):
    scripted.reply(None, "not: [valid", times=1)
    scripted.reply(None, "self_reflection:\n- it works\n", times=1)
    client = LLMClient(Endpoint(base_url=scripted.base_url), max_retries=0)
    conversation = Conversation(client, PromptLibrary())
    task = Task.from_source('def f(x):\n    """Return x."""\n', "f")
    result = await ask_structured(conversation, "analyst", "reflect", "flow_reflect",
                                  Reflection, task=task, tests=[])
    assert result.self_reflection == ["it works"]
    assert len(scripted.requests) == 2
    retry = scripted.requests[1]["messages"]
    assert retry[-2] == {"role": "assistant", "content": "not: [valid"}
    assert "could not be parsed" in retry[-1]["content"]

    scripted.reply(None, "garbage", times=2)
    with pytest.raises(StructuredReplyError, match="after 2 attempt"):
        await ask_structured(conversation, "analyst", "reflect", "flow_reflect", Reflection,
                             task=task, tests=[])
    assert len(scripted.requests) == 4
    assert conversation.ledger.by_role["analyst"].calls == 4
    await client.close()
