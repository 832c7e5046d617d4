"""A test the judge cannot decide counts neither way (``TestOutcome.verdict`` "not judged"):
through the team and flow pipelines, with the scripted model and the real sandbox. An AI test
that passes objects of a class it makes at run time (``type("N", (int,), {})(5)``), which the
code compares (``max``), cannot be decided in the code's process: it is "not judged", for any
candidate (the forger's object equal to anything included), so no sampling is spent on it.
(Iterating, indexing or measuring such an object is judged: the judge runs its hooks.)"""

import re

import pytest
from pipeline_support import DIRECT, GOOD, REVISE, TESTER

from codeteam.pipelines import candidates

pytestmark = pytest.mark.sandbox

SEED = 1234  # the settings' default seed: the direct answer's; samples get 1235, 1236, ...
BARE = 'def running_max(xs):\n    """Return the running maximum of xs (a list of numbers)."""\n'

# Equal to anything: in the code's own process it passes every assert ==; the judge sees a
# value whose __eq__ is the function's own and makes the test an error.
FORGER = ('```python\ndef running_max(xs):\n    class Anything:\n'
          '        def __eq__(self, other):\n            return True\n\n'
          '        __hash__ = object.__hash__\n\n    return Anything()\n```')

# Both decided in the code's own process (an argument of a class the test defines), both right.
N = 'type("N", (int,), {})'
ONLY_UNTRUSTED = (f'```python\nassert running_max([{N}(5), {N}(1)]) == [5, 5]\n'
                  f'assert running_max([{N}(2), {N}(1)]) == [2, 2]\n```')
# One judged and right; two in the code's own process and wrong (an honest answer fails them).
JUDGED_AND_WRONG_UNTRUSTED = ('```python\nassert running_max([5]) == [5]\n'
                              f'assert running_max([{N}(1), {N}(2)]) == [2, 2]\n'
                              f'assert running_max([{N}(3), {N}(1)]) == [1, 1]\n```')


def seed(value):
    def match(body):
        text = "\n".join(str(m.get("content", "")) for m in body["messages"])
        return body.get("seed") == value and re.search(DIRECT, text) is not None
    return match


def sampled(body):
    return body.get("temperature") == candidates.SAMPLE_TEMPERATURE


def _with_docstring(reply: str) -> str:
    code = reply.removeprefix("```python\n").removesuffix("\n```")
    head, _, body = code.partition("\n")
    return f"{head}\n    \"\"\"Return the running maximum of xs (a list of numbers).\"\"\"\n{body}\n"


async def test_a_review_of_right_code_on_tests_it_cannot_be_judged_on_is_not_judged(
        scripted, run):
    """The AI tests pass an object of a class they make at run time and the right code
    iterates it: the judge cannot tell what that object does, so each test is "not judged",
    and the review says so, never "failed"."""
    scripted.reply(TESTER, ONLY_UNTRUSTED)
    result, _ = await run("review", source=_with_docstring(GOOD), ai_tests=2)
    run_report = result.last_report.run
    assert [o.status for o in run_report.outcomes] == ["not judged"] * 2, run_report.outcomes
    assert result.status == "not judged" and run_report.passed == []
    assert result.summary().startswith("review: not judged; 0/2 tests passed; 2 not judged")
    assert result.last_report.summary.count("NOT JUDGED AI test") == 2
    assert all(o.message.startswith("the test's arguments could not cross")
               for o in run_report.outcomes)


async def test_a_review_of_a_forger_on_those_tests_is_not_passed(scripted, run):
    """The forger returns an object equal to anything: in one process it would pass both; the
    judge refuses a value whose __eq__ is the function's own code."""
    scripted.reply(TESTER, ONLY_UNTRUSTED)
    result, _ = await run("review", source=_with_docstring(FORGER), ai_tests=2)
    run_report = result.last_report.run
    assert run_report.passed == [] and result.status != "passed", run_report.outcomes
    assert len(run_report.failures) == 2


async def test_tests_no_candidate_can_be_judged_on_spend_no_samples(scripted, run):
    scripted.reply(TESTER, ONLY_UNTRUSTED).reply(seed(SEED), GOOD)
    scripted.reply(sampled, GOOD, times=None)
    scripted.reply(REVISE, GOOD, times=None)
    result, _ = await run("team", source=BARE, ai_tests=2, candidates=2, max_rounds=3)
    # The first answer is not judged on either test, and no other candidate could be
    assert result.status == "not judged", result.summary()
    assert not any(map(sampled, scripted.requests))
    assert not any(re.search(REVISE, str(r)) for r in scripted.requests)
    assert any("no sampling: nothing failed" in n for n in result.notes)
    assert result.usage.total.calls == 2 and not scripted.unmatched


async def test_untrusted_passes_do_not_rank_a_candidate_above_a_judged_pass(scripted, run):
    scripted.reply(TESTER, JUDGED_AND_WRONG_UNTRUSTED).reply(seed(SEED), FORGER)
    scripted.reply(sampled, GOOD, times=None)
    result, _ = await run("team", source=BARE, ai_tests=3, candidates=1, max_rounds=2)
    forger, good = result.candidates
    # The forger: the judged test an error (a class of its own), the two others not judged;
    # GOOD: the judged pass, the two others not judged either.
    assert (forger.ai_passed, forger.ai_total, forger.chosen) == (0, 3, False)
    assert (good.ai_passed, good.ai_total, good.chosen) == (1, 3, True)
    assert "max(out[-1], x)" in result.code
    report = result.last_report
    assert report.run.failures == [] and len(report.run.not_judged) == 2
    assert result.status == "not judged"


async def test_flow_does_not_pass_a_forger_on_untrusted_tests(scripted, run):
    from pipeline_support import AI_TESTS, FIX, FLOW_CODE, REFLECT

    scripted.reply(REFLECT, "self_reflection:\n- xs is a list of numbers\n")
    scripted.reply(AI_TESTS, "tests:\n- input: 'type(\"L\", (list,), {})([2, 1])'\n  output: '[2, 2]'\n")
    scripted.reply(seed(SEED), FORGER).reply(FLOW_CODE, FORGER)
    scripted.reply(sampled, FORGER, times=None).reply(FIX, FORGER, times=None)
    result, _ = await run("flow", source=BARE, ai_tests=1, candidates=2)
    outcomes = [o for r in result.reports for o in r.run.outcomes]
    assert outcomes and not any(o.status == "passed" for o in outcomes), outcomes
    assert result.status != "passed", result.summary()


async def test_a_review_of_an_async_function_is_judged(scripted, run_on_disk, tmp_path):
    """An ``async def`` is judged like any function: the subject runs the coroutine."""
    source = 'async def double(x):\n    """Twice x."""\n    return 2 * x\n'
    module = tmp_path / "twice.py"
    module.write_text(source)
    (tmp_path / "test_twice.py").write_text(
        "import asyncio\n\nfrom twice import double\n\n\n"
        "def test_double():\n    assert asyncio.run(double(2)) == 4\n")
    result = await run_on_disk("review", source, "double", path=module, root=tmp_path)
    (outcome,) = result.last_report.run.outcomes
    assert outcome.status == "passed", outcome
    assert result.status == "passed", result.last_report.summary
