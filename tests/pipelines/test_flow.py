"""The flow pipeline: AI tests then the direct answer (early exit), the reflection and its
code only when that fails, test anchors, wrong AI tests, the round and call budgets."""

import pytest
from pipeline_support import AI_TESTS, DIRECT, FIX, FLOW_CODE, GOOD, REFLECT, SORTED

pytestmark = pytest.mark.sandbox

REFLECTION = "self_reflection:\n- xs is a list of numbers\n- output[i] = max(xs[:i+1])\n"
AI = ("tests:\n- input: '[5]'\n  output: '[5]'\n- input: '[2, 1]'\n  output: '[2, 2]'\n")
WRONG_AI = ("tests:\n- input: '[5]'\n  output: '[5]'\n- input: '[2, 1]'\n  output: '[2, 1]'\n")
# Passes both doctests and ai:1, fails ai:2 ([2, 1] -> [2, 1]).
ALMOST = ("```python\ndef running_max(xs):\n    if len(xs) == 2:\n        return list(xs)\n"
          "    return [max(xs[:i + 1]) for i in range(len(xs))]\n```")
IDENTITY = "It should return xs.\n```python\ndef running_max(xs):\n    return list(xs)\n```"


def _preprocess(scripted, ai=AI):
    scripted.reply(REFLECT, REFLECTION).reply(AI_TESTS, ai)


async def test_public_and_ai_tests_pass_at_once_early_exit(scripted, run):
    _preprocess(scripted)
    scripted.reply(DIRECT, GOOD)
    result, stages = await run("flow", ai_tests=2)
    assert result.status == "passed"
    # No reasoning is paid for when the first answer passes: AI tests and the direct answer.
    assert len(scripted.requests) == 2 and result.usage.total.calls == 2
    assert scripted.count(REFLECT) == 0
    assert scripted.count(FIX) == 0 and scripted.count(FLOW_CODE) == 0
    assert stages[:2] == ["flow: writing AI tests", "coder: writing code"]


async def test_the_reflections_code_is_a_candidate_when_the_direct_answer_fails(scripted, run):
    _preprocess(scripted)
    scripted.reply(DIRECT, SORTED).reply(FLOW_CODE, GOOD)
    result, stages = await run("flow", ai_tests=2, candidates=2)
    assert result.status == "passed" and "max(out[-1], x)" in result.code
    # The reflection reached the coder.
    assert "output[i] = max(xs[:i+1])" in scripted.texts()[3]
    assert [s for s in stages if s.startswith(("flow", "coder"))][:4] == [
        "flow: writing AI tests", "coder: writing code",
        "flow: reflecting on the problem", "flow: writing code"]
    assert [(c.origin, c.chosen) for c in result.candidates][:2] == [
        ("direct", False), ("approach", True)]


async def test_a_failing_run_costs_at_most_six_calls_by_default(scripted, run):
    _preprocess(scripted)
    scripted.reply(DIRECT, SORTED, times=None)  # the direct answer and every sample
    scripted.reply(FLOW_CODE, SORTED).reply(FIX, SORTED, times=None)
    result, _ = await run("flow")  # defaults: candidates 3, max_rounds 3, ai_tests
    assert result.status == "failed"
    # AI tests, direct, reflection, the reflection's code, one sample, one fix
    assert result.usage.total.calls == 6
    assert scripted.count(FIX) == 1 and scripted.count(REFLECT) == 1
    assert [c.origin for c in result.candidates] == ["direct", "approach", "sample"]


async def test_a_fix_that_breaks_an_anchor_is_reverted(scripted, run):
    _preprocess(scripted)
    scripted.reply(DIRECT, ALMOST)
    scripted.reply(FIX, SORTED, times=1)  # fixes nothing for ai:2 and breaks doctest:1
    scripted.reply(FIX, GOOD, times=1)
    result, _ = await run("flow", ai_tests=2, candidates=0, max_rounds=4)
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
    result, _ = await run("flow", ai_tests=2, candidates=0, max_rounds=5)
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
    result, _ = await run("flow", ai_tests=2, max_calls=3, candidates=0, max_rounds=9)
    assert result.usage.total.calls == 3
    assert any("budget (3) is spent" in n for n in result.notes), result.notes
    assert result.status == "failed" and "len(xs) == 2" in result.code


async def test_max_rounds_stops_the_fixes(scripted, run):
    _preprocess(scripted)
    scripted.reply(DIRECT, ALMOST)
    scripted.reply(FIX, SORTED, times=None)
    result, _ = await run("flow", ai_tests=2, candidates=0, max_rounds=2)
    assert scripted.count(FIX) == 1  # round 2, after the direct answer's round 1
    assert any("stopped after 2 rounds (max_rounds 2)" in n for n in result.notes)
    assert result.status == "failed" and "len(xs) == 2" in result.code


async def test_a_fix_that_times_out_ends_the_fixes_without_a_rounds_note(scripted, run):
    # A timed-out call stops the client's calls: the fixes end there, said once, and the
    # note does not blame max_rounds for rounds no model call was made in.
    _preprocess(scripted)
    scripted.reply(DIRECT, ALMOST)
    scripted.hang(FIX, times=None)
    result, _ = await run("flow", ai_tests=2, candidates=0, max_rounds=3, timeout_s=0.5,
                          max_retries=0)
    assert scripted.count(FIX) == 1
    assert result.status == "failed" and "len(xs) == 2" in result.code
    ended = [n for n in result.notes if "a fix for" in n]
    assert len(ended) == 1 and "called no more" in ended[0], result.notes
    assert not any("stopped after" in n for n in result.notes), result.notes


async def test_broken_yaml_stages_degrade_to_plain_coding(scripted, run):
    scripted.reply(AI_TESTS, "I think this is a nice problem.", times=2)
    scripted.reply(DIRECT, SORTED, times=1).reply(DIRECT, GOOD, times=None)
    result, _ = await run("flow", ai_tests=2, candidates=2)
    assert result.status == "passed" and "max(out[-1], x)" in result.code
    notes = " | ".join(result.notes)
    assert "AI tests skipped" in notes
    # A model that wrote no parseable YAML (even when shown its error) is not asked again:
    # the reflection's slot is a sample.
    assert "reflection skipped: the AI tests stage's YAML did not parse" in notes
    assert scripted.count(REFLECT) == 0 and scripted.count(FLOW_CODE) == 0
    assert [c.origin for c in result.candidates] == ["direct", "sample", "sample"]


async def test_a_reflection_that_does_not_parse_gives_its_slot_to_a_sample(scripted, run):
    scripted.reply(AI_TESTS, AI)
    scripted.reply(REFLECT, ": : :", times=2)
    scripted.reply(DIRECT, SORTED, times=1).reply(DIRECT, GOOD, times=None)
    result, _ = await run("flow", ai_tests=2, candidates=3)
    assert result.status == "passed"
    assert scripted.count(REFLECT) == 2 and scripted.count(FLOW_CODE) == 0
    assert any("reflection skipped" in n for n in result.notes)
    assert [c.origin for c in result.candidates] == ["direct", "sample", "sample"]
