"""The flow pipeline: early exit, test anchors, wrong AI tests, the call budget."""

import pytest
from pipeline_support import AI_TESTS, DIRECT, FIX, FLOW_CODE, GOOD, REFLECT, SOLUTIONS, SORTED

pytestmark = pytest.mark.sandbox

REFLECTION = "self_reflection:\n- xs is a list of numbers\n- output[i] = max(xs[:i+1])\n"
APPROACHES = (
    "possible_solutions:\n- name: loop\n  content: keep the max while looping\n"
    "- name: slices\n  content: max of each prefix\nchosen: loop\n"
)
AI = ("tests:\n- input: '[5]'\n  output: '[5]'\n- input: '[2, 1]'\n  output: '[2, 2]'\n")
WRONG_AI = ("tests:\n- input: '[5]'\n  output: '[5]'\n- input: '[2, 1]'\n  output: '[2, 1]'\n")
# Passes both doctests and ai:1, fails ai:2 ([2, 1] -> [2, 1]).
ALMOST = ("```python\ndef running_max(xs):\n    if len(xs) == 2:\n        return list(xs)\n"
          "    return [max(xs[:i + 1]) for i in range(len(xs))]\n```")
IDENTITY = "It should return xs.\n```python\ndef running_max(xs):\n    return list(xs)\n```"


def _preprocess(scripted, ai=AI):
    scripted.reply(REFLECT, REFLECTION).reply(SOLUTIONS, APPROACHES).reply(AI_TESTS, ai)


async def test_public_and_ai_tests_pass_at_once_early_exit(scripted, run):
    _preprocess(scripted)
    scripted.reply(DIRECT, GOOD)
    result, stages = await run("flow", ai_tests=2)
    assert result.status == "passed"
    assert len(scripted.requests) == 4 and result.usage.total.calls == 4
    assert scripted.count(FIX) == 0 and scripted.count(FLOW_CODE) == 0
    assert stages[:4] == ["flow: reflecting on the problem", "flow: choosing an approach",
                          "flow: writing AI tests", "coder: writing code"]


async def test_the_approach_is_a_candidate_when_the_direct_answer_fails(scripted, run):
    _preprocess(scripted)
    scripted.reply(DIRECT, SORTED).reply(FLOW_CODE, GOOD)
    result, stages = await run("flow", ai_tests=2, candidates=1)
    assert result.status == "passed" and "max(out[-1], x)" in result.code
    # The chosen approach and the reflection reached the coder.
    assert "keep the max while looping" in scripted.texts()[4]
    assert "output[i] = max(xs[:i+1])" in scripted.texts()[4]
    assert "flow: writing code" in stages
    assert [(c.origin, c.chosen) for c in result.candidates] == [
        ("direct", False), ("approach", True)]


async def test_a_fix_that_breaks_an_anchor_is_reverted(scripted, run):
    _preprocess(scripted)
    scripted.reply(DIRECT, ALMOST)
    scripted.reply(FIX, SORTED, times=1)  # fixes nothing for ai:2 and breaks doctest:1
    scripted.reply(FIX, GOOD, times=1)
    result, _ = await run("flow", ai_tests=2, candidates=0)
    assert result.status == "passed"
    assert "max(out[-1], x)" in result.code
    assert any("reverted a fix for ai:2" in n and "doctest:1" in n for n in result.notes)
    assert any(e.kind == "event" and "reverted" in e.stage for e in result.transcript)
    # The fix prompt named the failing test and the anchors.
    fix_prompt = next(t for t in scripted.texts() if "You fix Python functions" in t)
    assert "running_max([2, 1])" in fix_prompt and "[2, 2]" in fix_prompt
    assert "must keep passing" in fix_prompt


async def test_anchors_protect_the_code_from_a_wrong_ai_test(scripted, run):
    _preprocess(scripted, ai=WRONG_AI)
    scripted.reply(DIRECT, GOOD)
    scripted.reply(FIX, IDENTITY, times=None)  # satisfies the wrong test, breaks doctest:1
    result, _ = await run("flow", ai_tests=2, candidates=0)
    assert result.status == "failed"
    assert "max(out[-1], x)" in result.code
    assert scripted.count(FIX) == 2  # FIX_ATTEMPTS_PER_TEST, then it gives up
    assert any("gave up on ai:2" in n and "wrong AI test" in n for n in result.notes)
    assert result.reports[-1].counts("public") == (1, 2)  # the reverted candidate's run
    best = max(result.reports, key=lambda r: r.counts("public"))
    assert best.counts("public") == (2, 2)


async def test_the_call_budget_stops_the_fixes(scripted, run):
    _preprocess(scripted)
    scripted.reply(DIRECT, ALMOST)
    scripted.reply(FIX, SORTED, times=None)
    result, _ = await run("flow", ai_tests=2, max_calls=5, candidates=0)
    assert result.usage.total.calls == 5
    assert any("budget (5) is spent" in n for n in result.notes)
    assert result.status == "failed" and "len(xs) == 2" in result.code


async def test_broken_yaml_stages_degrade_to_plain_coding(scripted, run):
    scripted.reply(REFLECT, "I think this is a nice problem.", times=2)
    scripted.reply(DIRECT, GOOD)
    result, _ = await run("flow", ai_tests=2)
    assert result.status == "passed"
    notes = " | ".join(result.notes)
    assert "reflection skipped" in notes
    # A model that wrote no parseable YAML (even when shown its error) is not asked again.
    assert "approaches skipped: the reflection stage's YAML did not parse" in notes
    assert "AI tests skipped: the reflection stage's YAML did not parse" in notes
    assert scripted.count(SOLUTIONS) == 0 and scripted.count(AI_TESTS) == 0
    assert len(scripted.requests) == 3


async def test_a_later_yaml_failure_skips_only_what_follows(scripted, run):
    scripted.reply(REFLECT, REFLECTION)
    scripted.reply(SOLUTIONS, ": : :", times=2)
    scripted.reply(DIRECT, SORTED).reply(FLOW_CODE, GOOD)
    result, _ = await run("flow", ai_tests=2, candidates=1)
    assert result.status == "passed"
    assert scripted.count(AI_TESTS) == 0 and len(scripted.requests) == 5
    assert "output[i] = max(xs[:i+1])" in scripted.texts()[-1]  # the reflection was used
