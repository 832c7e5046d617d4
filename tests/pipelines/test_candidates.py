"""Candidates chosen by execution (CodeT's dual execution agreement) in team and flow, against
the scripted model and the real sandbox: the direct answer is always a candidate, sampling
happens only when it fails, public tests outrank AI tests, agreeing samples outrank one that
passes a wrong AI test alone."""

import re

import pytest
from pipeline_support import (
    AI_TESTS,
    CODER,
    DIRECT,
    FLOW_CODE,
    GOOD,
    REFLECT,
    REVISE,
    SORTED,
    TESTER,
)

from codeteam.pipelines import candidates
from codeteam.pipelines.candidates import Candidate, rank
from codeteam.roles.tester import build_report

pytestmark = pytest.mark.sandbox

SEED = 1234  # the settings' default seed: the direct answer's; samples get 1235, 1236, ...
AI_OK = "```python\nassert running_max([5]) == [5]\nassert running_max([2, 1]) == [2, 2]\n```"
# No docstring examples: no public tests, the AI tests alone decide.
BARE = 'def running_max(xs):\n    """Return the running maximum of xs (a list of numbers)."""\n'
# Two right AI tests and a wrong one (the running maximum of [1, 2] is [1, 2]).
AI_ONE_WRONG = ("```python\nassert running_max([5]) == [5]\nassert running_max([2, 1]) == [2, 2]\n"
                "assert running_max([1, 2]) == [2, 2]\n```")
# Right, written another way: behaves like GOOD on every input.
GOOD_TOO = ("```python\ndef running_max(xs):\n    best = None\n    result = []\n    for x in xs:\n"
            "        best = x if best is None else max(best, x)\n        result.append(best)\n"
            "    return result\n```")
# Wrong, and alone in passing the wrong AI test (it passes all three).
ALL_MAX = "```python\ndef running_max(xs):\n    return [max(xs)] * len(xs)\n```"
EMPTY = "```python\ndef running_max(xs):\n    return []\n```"


def seed(value, pattern=DIRECT):
    """A matcher: the prompt ``pattern`` sent with ``seed`` (the direct answer: SEED)."""
    def match(body):
        text = "\n".join(str(m.get("content", "")) for m in body["messages"])
        return body.get("seed") == value and re.search(pattern, text) is not None
    return match


def sampled(body):
    return body.get("temperature") == candidates.SAMPLE_TEMPERATURE


async def test_a_first_answer_that_passes_everything_ends_the_run(scripted, run):
    scripted.reply(TESTER, AI_OK).reply(seed(SEED), GOOD)
    result, stages = await run("team", ai_tests=2)
    assert result.status == "passed" and result.rounds == 1
    # Two calls (the tester and the direct answer): no analyst, no sampling.
    assert [r["messages"][0]["content"][:22] for r in scripted.requests] == [
        "You are the tester in ", "You are an expert Pyth"]
    assert result.usage.total.calls == 2 and not any(map(sampled, scripted.requests))
    assert result.candidates == [] and not any("sampling" in s for s in stages)
    assert result.reports[0].counts("public") == (2, 2)
    assert result.reports[0].counts("ai") == (2, 2)
    assert not scripted.unmatched


async def test_the_same_call_as_direct_gives_the_same_first_answer(scripted, run):
    scripted.reply(DIRECT, GOOD, times=None).reply(TESTER, AI_OK)
    direct, _ = await run("direct")
    teamed, _ = await run("team", ai_tests=2)
    sent = [r for r in scripted.requests if "You complete Python functions" in str(r)]
    assert len(sent) == 2
    for key in ("messages", "seed", "temperature", "max_tokens"):
        assert sent[0].get(key) == sent[1].get(key), key
    assert direct.code == teamed.code


async def test_the_direct_answer_stays_when_the_planned_one_is_wrong(scripted, run):
    wrong = "```python\nassert running_max([2, 1]) == [2, 1]\n```"  # fails the right answer
    scripted.reply(TESTER, wrong).reply(seed(SEED), GOOD)
    scripted.reply(r"You are the analyst", "1. Sort xs.\n2. Return it.")
    scripted.reply(CODER, SORTED)  # the planned answer: fails a public test, passes ai:1
    scripted.reply(sampled, "```python\ndef running_max(xs):\n    return list(xs)\n```",
                   times=None)  # fails a public test, passes the wrong ai:1
    result, _ = await run("team", ai_tests=1, candidates=3, max_rounds=2, plan_candidate=True)
    assert result.status == "failed"
    assert "max(out[-1], x)" in result.code  # direct's answer, though it fails ai:1
    origins = [(c.origin, c.public_passed, c.ai_passed, c.chosen) for c in result.candidates]
    assert origins[:2] == [("direct", 2, 0, True), ("plan", 1, 0, False)]
    assert [c.seed for c in result.candidates if c.origin == "sample"] == [SEED + 1, SEED + 2]
    assert result.plan == ["Sort xs.", "Return it."]


async def test_agreeing_samples_win_over_one_that_passes_a_wrong_ai_test_alone(scripted, run):
    scripted.reply(TESTER, AI_ONE_WRONG)
    scripted.reply(seed(SEED), EMPTY)
    scripted.reply(seed(SEED + 1), GOOD).reply(seed(SEED + 2), ALL_MAX)
    scripted.reply(seed(SEED + 3), GOOD_TOO)
    result, stages = await run("team", source=BARE, ai_tests=3, candidates=3, max_rounds=2)
    # GOOD and GOOD_TOO agree and pass 2 AI tests each (score 2 x 2 = 4); ALL_MAX passes all
    # three, the wrong one included, but alone (1 x 3 = 3); EMPTY passes none.
    scores = [(c.origin, c.seed, c.agreement, c.ai_passed, c.dual_score)
              for c in result.candidates]
    assert scores == [("direct", None, 1, 0, 0), ("sample", SEED + 1, 2, 2, 4),
                      ("sample", SEED + 2, 1, 3, 3), ("sample", SEED + 3, 2, 2, 4)]
    assert "max(out[-1], x)" in result.code
    assert [c.chosen for c in result.candidates] == [False, True, False, False]  # shorter
    assert any("chose candidate #1 of 4 (sample, seed 1235)" in n for n in result.notes)
    # The seeds and the temperature are in the transcript.
    samples = [e.sampling for e in result.transcript if e.sampling is not None]
    assert [(s.temperature, s.seed) for s in samples] == [(0.5, 1235), (0.5, 1236), (0.5, 1237)]
    assert "coder: sampling code (temperature 0.5, seed 1235)" in stages
    assert [r.get("seed") for r in scripted.requests if sampled(r)] == [1235, 1236, 1237]
    assert result.usage.total.calls == 5 and not scripted.unmatched


async def test_a_revision_passing_a_wrong_ai_test_alone_does_not_replace_agreeing_answers(
    scripted, run
):
    scripted.reply(TESTER, AI_ONE_WRONG).reply(seed(SEED), EMPTY)
    scripted.reply(seed(SEED + 1), GOOD).reply(seed(SEED + 2), GOOD_TOO)
    scripted.reply(REVISE, ALL_MAX)  # "fixes" the wrong AI test, breaks nothing else it sees
    result, _ = await run("team", source=BARE, ai_tests=3, candidates=2, max_rounds=3)
    assert scripted.count(REVISE) == 1 and result.rounds == 3
    assert "max(out[-1], x)" in result.code
    assert [c.origin for c in result.candidates] == ["direct", "sample", "sample", "revision"]
    assert result.candidates[-1].ai_passed == 3 and not result.candidates[-1].chosen


async def test_when_every_ai_test_is_wrong_the_public_tests_decide(scripted, run):
    wrong = ("```python\nassert running_max([2, 1]) == [2, 1]\n"
             "assert running_max([3]) == [4]\n```")
    identity = "```python\ndef running_max(xs):\n    return list(xs)\n```"
    scripted.reply(TESTER, wrong).reply(seed(SEED), SORTED)
    scripted.reply(seed(SEED + 1), identity).reply(seed(SEED + 2), identity)
    scripted.reply(seed(SEED + 3), GOOD)
    result, _ = await run("team", ai_tests=2, candidates=3, max_rounds=2)
    # identity x2 agree and pass the wrong ai:1 (score 2), GOOD passes no AI test but both
    # public tests: it wins.
    assert "max(out[-1], x)" in result.code and result.status == "failed"
    chosen = [c for c in result.candidates if c.chosen]
    assert [(c.seed, c.public_passed, c.ai_passed) for c in chosen] == [(SEED + 3, 2, 0)]
    assert any("all 2 public tests pass; 2 AI test(s) fail" in n for n in result.notes)


async def test_without_a_sandbox_there_is_one_answer_and_no_sampling(
    scripted, run, monkeypatch, tmp_path
):
    monkeypatch.setenv("PATH", str(tmp_path))  # no bwrap on PATH
    scripted.reply(TESTER, AI_OK).reply(DIRECT, SORTED, times=None)
    result, _ = await run("team", ai_tests=2, candidates=3)
    assert result.status == "untested" and "return sorted(xs)" in result.code
    assert result.usage.total.calls == 2 and not any(map(sampled, scripted.requests))
    assert any("one answer, no sampling" in n for n in result.notes)
    assert any("bubblewrap" in n for n in result.notes)


async def test_no_candidates_setting_means_no_sampling(scripted, run):
    scripted.reply(TESTER, AI_OK).reply(seed(SEED), SORTED).reply(REVISE, GOOD)
    result, _ = await run("team", ai_tests=2, candidates=0)
    assert result.status == "passed" and result.rounds == 2
    assert not any(map(sampled, scripted.requests))


async def test_samples_without_code_are_dropped_and_counted(scripted, run):
    scripted.reply(TESTER, AI_OK).reply(seed(SEED), SORTED)
    scripted.reply(sampled, "I would loop over the list.", times=2)
    scripted.reply(sampled, GOOD)
    result, _ = await run("team", ai_tests=2, candidates=3)
    assert result.status == "passed" and "max(out[-1], x)" in result.code
    assert any("2 of 3 sampled candidates held no usable code" in n for n in result.notes)
    assert scripted.count(r"I could not use that") == 0  # a sample is not asked again
    assert result.usage.total.calls == 5


REFLECTION = "self_reflection:\n- xs is a list of numbers\n- output[i] = max(xs[:i+1])\n"


async def test_flow_keeps_the_direct_answer_over_its_approach(scripted, run):
    scripted.reply(REFLECT, REFLECTION)
    scripted.reply(AI_TESTS, "tests:\n- input: '[2, 1]'\n  output: '[2, 1]'\n")  # wrong
    scripted.reply(seed(SEED), GOOD).reply(FLOW_CODE, SORTED)
    scripted.reply(sampled, SORTED, times=None)
    scripted.reply(r"You fix Python functions", SORTED, times=None)
    result, _ = await run("flow", ai_tests=1, candidates=4)
    assert "max(out[-1], x)" in result.code
    assert [(c.origin, c.public_passed, c.chosen) for c in result.candidates][:2] == [
        ("direct", 2, True), ("approach", 1, False)]
    assert len([c for c in result.candidates if c.origin == "sample"]) == 2  # 4 - 2


async def test_flow_first_answer_passing_everything_ends_the_run(scripted, run):
    scripted.reply(REFLECT, REFLECTION)
    scripted.reply(AI_TESTS, "tests:\n- input: '[2, 1]'\n  output: '[2, 2]'\n")
    scripted.reply(seed(SEED), GOOD)
    result, _ = await run("flow", ai_tests=1)
    assert result.status == "passed" and result.usage.total.calls == 2
    assert scripted.count(FLOW_CODE) == 0 and result.candidates == []


def _candidate(code, outcomes):
    """A candidate whose report has the given AI-test outcomes (test id -> status, actual)."""
    from codeteam.execution.outcomes import RunReport, TestCase, TestOutcome

    tests = [TestCase(id=i, kind="assert", origin="ai", source=f"assert f({i!r})")
             for i in outcomes]
    run = RunReport(outcomes=[TestOutcome(test_id=i, status=s, actual=a)
                              for i, (s, a) in outcomes.items()])
    return Candidate(code=code, origin="sample", report=build_report(tests, run, round_number=2))


def test_ai_tests_no_candidate_passes_count_for_nothing_but_outputs_still_agree():
    # Nobody passes t2; a and b return the same wrong value there, c another one.
    a = _candidate("def f(x):\n    return 1\n", {"t1": ("passed", None), "t2": ("failed", "1")})
    b = _candidate("def f(x):\n    return 1 + 0\n",
                   {"t1": ("passed", None), "t2": ("failed", "1")})
    c = _candidate("def f(x):\n    return x\n", {"t1": ("passed", None), "t2": ("failed", "9")})
    chosen, records = rank([c, a, b])
    assert [(r.agreement, r.ai_passed, r.dual_score) for r in records] == [
        (1, 1, 1), (2, 1, 2), (2, 1, 2)]
    assert chosen == 1  # a: in the larger consensus set, and shorter than b
    with pytest.raises(ValueError):
        rank([])


NONE = "```python\ndef running_max(xs):\n    return None\n```"  # fails every test


async def test_when_no_candidate_passes_a_test_the_revision_round_is_one_more_sample(
        scripted, run):
    """The direct answer and both samples fail every public and AI test: round 3 is a sample
    (seed 1234 + 3), not a revision of code that is wrong everywhere; it passes and is chosen."""
    scripted.reply(TESTER, AI_OK).reply(seed(SEED), NONE)
    scripted.reply(seed(SEED + 1), NONE).reply(seed(SEED + 2), NONE)
    scripted.reply(seed(SEED + 3), GOOD)
    result, _ = await run("team", ai_tests=2, candidates=2, max_rounds=3)
    assert result.status == "passed" and "max(out[-1], x)" in result.code
    assert not any(re.search(REVISE, str(r)) for r in scripted.requests)
    assert [r.get("seed") for r in scripted.requests if sampled(r)] == [1235, 1236, 1237]
    assert result.usage.total.calls == 5 and result.rounds == 3
    chosen = [c for c in result.candidates if c.chosen]
    assert len(result.candidates) == 4 and chosen[0].seed == 1237
    assert any("spent on one more sample" in n for n in result.notes)
    assert not scripted.unmatched


async def test_the_embedded_defaults_spend_the_testers_call_on_a_fourth_sample(scripted, run):
    """ai_tests 0 and candidates 4 (the embedded model's defaults, settings.EMBEDDED_DEFAULTS):
    no tester call; the direct answer and four samples fail the docstring's examples, round 3
    is a fifth sample (seed 1234 + 5), which passes: six calls, the default's number."""
    from codeteam.settings import EMBEDDED_DEFAULTS

    scripted.reply(seed(SEED), NONE)
    for i in range(1, 5):
        scripted.reply(seed(SEED + i), NONE)
    scripted.reply(seed(SEED + 5), GOOD)
    result, _ = await run("team", **EMBEDDED_DEFAULTS)
    assert result.status == "passed" and "max(out[-1], x)" in result.code
    assert not any(re.search(TESTER, str(r["messages"][0])) for r in scripted.requests)
    assert [r.get("seed") for r in scripted.requests if sampled(r)] == [1235, 1236, 1237,
                                                                        1238, 1239]
    assert result.usage.total.calls == 6 and result.rounds == 3
    assert result.reports[-1].counts("ai") == (0, 0)
    assert not scripted.unmatched


async def test_a_candidate_passing_a_test_is_revised_not_sampled_again(scripted, run):
    half = "```python\ndef running_max(xs):\n    return list(xs)\n```"  # passes [] and [5]
    scripted.reply(TESTER, AI_OK).reply(seed(SEED), NONE)
    scripted.reply(sampled, half, times=2).reply(REVISE, GOOD)
    result, _ = await run("team", ai_tests=2, candidates=2, max_rounds=3)
    assert result.status == "passed"
    assert sum(map(sampled, scripted.requests)) == 2
    assert sum(1 for r in scripted.requests if re.search(REVISE, str(r))) == 1
    assert not any("spent on one more sample" in n for n in result.notes)


async def test_with_max_rounds_2_there_is_no_extra_sample(scripted, run):
    scripted.reply(TESTER, AI_OK).reply(DIRECT, NONE, times=None)
    result, _ = await run("team", ai_tests=2, candidates=2, max_rounds=2)
    assert result.status == "failed" and result.rounds == 2
    assert sum(map(sampled, scripted.requests)) == 2 and result.usage.total.calls == 4


async def test_when_no_answer_holds_code_one_more_sample_is_drawn(scripted, run):
    prose = "I would loop over the list."
    scripted.reply(TESTER, AI_OK).reply(seed(SEED), prose, times=None)
    scripted.reply(seed(SEED + 1), prose).reply(seed(SEED + 2), prose)
    scripted.reply(seed(SEED + 3), GOOD)
    result, _ = await run("team", ai_tests=2, candidates=2, max_rounds=3)
    assert result.status == "passed" and "max(out[-1], x)" in result.code
    assert [r.get("seed") for r in scripted.requests if sampled(r)] == [1235, 1236, 1237]
    assert any(n.startswith("no candidate held usable code: the round") for n in result.notes)


ASYNC_STUB = '''import asyncio


async def running_max(xs):
    """Return the running maximum of xs.

    >>> asyncio.run(running_max([1, 3, 2]))
    [1, 3, 3]
    """
'''
ASYNC_GOOD = ("```python\nasync def running_max(xs):\n    out = []\n    for x in xs:\n"
              "        out.append(x if not out else max(out[-1], x))\n    return out\n```")


@pytest.mark.parametrize("pipeline", ["team", "flow"])
async def test_an_async_def_is_judged(pipeline, scripted, run):
    """An ``async def`` is judged like any function (the subject runs the coroutine): the
    right answer passes, no sampling."""
    scripted.reply(DIRECT, ASYNC_GOOD, times=None)
    result, _ = await run(pipeline, source=ASYNC_STUB, ai_tests=0, candidates=3)
    assert result.status == "passed", result.summary()
    assert not any(map(sampled, scripted.requests)) and result.usage.total.calls == 1


UNCROSSABLE_STUB = '''def running_max(xs):
    """Return the running maximum of xs.

    >>> running_max([type("N", (int,), {})(n) for n in (1, 3, 2)])
    [1, 3, 3]
    """
'''


@pytest.mark.parametrize("pipeline", ["team", "flow"])
async def test_no_sampling_when_no_candidate_could_be_judged(pipeline, scripted, run):
    """The example's numbers are objects of a class made at run time, which the code compares
    (``max``): the judge cannot tell what they do in any candidate's process, so every
    candidate's test is "not judged". No sampling."""
    scripted.reply(DIRECT, GOOD, times=None)
    result, _ = await run(pipeline, source=UNCROSSABLE_STUB, ai_tests=0, candidates=3)
    assert result.status == "not judged", result.summary()
    assert not any(map(sampled, scripted.requests)) and result.usage.total.calls == 1
    assert any("no sampling: nothing failed" in n for n in result.notes)


async def test_without_tests_a_sample_with_code_beats_no_code(scripted, run):
    """No public tests, no usable AI tests, and the direct answer holds no code: samples are
    drawn until one holds code (at most ``candidates``), and it is returned untested."""
    prose = "I would loop over the list."
    scripted.reply(TESTER, "I cannot write tests.").reply(seed(SEED), prose, times=None)
    scripted.reply(seed(SEED + 1), prose).reply(seed(SEED + 2), GOOD)
    result, _ = await run("team", source=BARE, ai_tests=2, candidates=3)
    assert result.status == "untested" and "max(out[-1], x)" in result.code
    assert [r.get("seed") for r in scripted.requests if sampled(r)] == [1235, 1236]
    assert any("returned sample seed 1236, untested" in n for n in result.notes)
    assert any("1 of 2 sampled candidates held no usable code" in n for n in result.notes)
    assert not scripted.unmatched


async def test_without_tests_and_no_code_in_any_sample_the_run_is_an_error(scripted, run):
    prose = "I would loop over the list."
    scripted.reply(TESTER, "I cannot write tests.").reply(DIRECT, prose, times=None)
    result, _ = await run("team", source=BARE, ai_tests=2, candidates=2)
    assert result.status == "error" and result.code is None
    assert sum(map(sampled, scripted.requests)) == 2


async def test_the_choice_note_claims_no_agreement_when_no_ai_test_ran(scripted, run):
    """Without AI tests every candidate "behaves alike" (nothing was compared): the note says
    that no AI test ran instead of counting agreeing candidates."""
    scripted.reply(TESTER, "I cannot write tests.").reply(seed(SEED), SORTED)
    scripted.reply(sampled, GOOD, times=None)
    result, _ = await run("team", ai_tests=2, candidates=2)
    assert result.status == "passed"
    (note,) = [n for n in result.notes if n.startswith("chose candidate")]
    assert note.endswith("public tests 2/2, no AI tests ran") and "agreeing" not in note


HALF_NO_VIEW = '''from fractions import Fraction


def half(x): """Half of x, an even int.

    >>> half(4) == 2
    True
    """
'''


async def test_a_pass_not_judged_because_of_the_codes_value_still_samples(scripted, run):
    """A test "not judged" because of what the code returned (an object of a library's class
    the judge does not rebuild) depends on the code: the first answer's "not judged" does not
    stop the sampling, and the judged sample wins."""
    namespace = ("```python\ndef half(x):\n    import argparse\n"
                 "    return argparse.Namespace(value=x // 2)\n```")
    floor = "```python\ndef half(x):\n    return x // 2\n```"
    scripted.reply(seed(SEED), namespace).reply(sampled, floor, times=None)
    result, _ = await run("team", source=HALF_NO_VIEW, qualname="half", ai_tests=0,
                          candidates=1)
    assert sum(map(sampled, scripted.requests)) == 1
    assert result.status == "passed" and "x // 2" in result.code, result.summary()
    assert not any("no sampling" in n for n in result.notes)


HALF_NUMERATOR = HALF_NO_VIEW.replace(">>> half(4) == 2\n    True", ">>> half(4).numerator\n    2")


async def test_a_not_judged_value_of_the_codes_own_is_revised(scripted, run):
    """The first code returns an object of a library's class the judge does not rebuild and
    the example reads its state (``.numerator``): "not judged" for the code's own value
    (describe.CODE_CAUSED), which another body can change, so the team revises it as it
    revises a failure (before: the rounds ended at "not judged", no revision asked)."""
    namespace = ("```python\ndef half(x):\n    import argparse\n"
                 "    return argparse.Namespace(numerator=x // 2)\n```")
    floor = "```python\ndef half(x):\n    return x // 2\n```"
    scripted.reply(CODER, namespace).reply(DIRECT, namespace).reply(REVISE, floor, times=None)
    result, _ = await run("team", source=HALF_NUMERATOR, qualname="half", ai_tests=0,
                          candidates=0, max_rounds=2)
    assert sum(1 for r in scripted.requests if re.search(REVISE, str(r))) == 1, result.notes
    assert result.status == "passed" and "x // 2" in result.code, result.summary()


ASYNC_TWO = ASYNC_STUB.replace('''    [1, 3, 3]
    """''', '''    [1, 3, 3]
    >>> asyncio.run(running_max([]))
    []
    """''')
ASYNC_HALF = ("```python\nasync def running_max(xs):\n    if not xs:\n        return []\n"
              "    return sorted(xs)\n```")  # passes [], fails [1, 3, 2]


async def test_a_candidate_passing_a_test_is_revised(scripted, run):
    """A candidate that passes one test of two is revised in round 3, not replaced by another
    sample."""
    scripted.reply(seed(SEED), ASYNC_HALF).reply(sampled, ASYNC_HALF, times=None)
    scripted.reply(REVISE, ASYNC_GOOD, times=None)
    result, _ = await run("team", source=ASYNC_TWO, ai_tests=0, candidates=2, max_rounds=3)
    assert sum(map(sampled, scripted.requests)) == 2
    assert sum(1 for r in scripted.requests if re.search(REVISE, str(r))) == 1
    assert not any("spent on one more sample" in n for n in result.notes)


async def test_no_candidates_means_no_extra_sample_either(scripted, run):
    scripted.reply(TESTER, AI_OK).reply(DIRECT, "I would loop over the list.", times=None)
    result, _ = await run("team", ai_tests=2, candidates=0, max_rounds=3)
    assert result.status == "error" and not any(map(sampled, scripted.requests))
