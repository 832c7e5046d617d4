"""A verdict decided in the code's own process counts against the code but never for it
(``TestOutcome.verdict``): through the team and flow pipelines, with the scripted model and
the real sandbox. An AI test that passes an object of a class it defines (``type("L", (list,), {})([5])``)
is one the harness's judge cannot evaluate
itself: it runs in the code's own process (``trusted`` False), where code that returns an
object equal to anything passes it."""

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
ONLY_UNTRUSTED = ('```python\nassert running_max(type("L", (list,), {})([5])) == [5]\n'
                  'assert running_max(type("L", (list,), {})([2, 1])) == [2, 2]\n```')
# One judged and right; two in the code's own process and wrong (an honest answer fails them).
JUDGED_AND_WRONG_UNTRUSTED = ('```python\nassert running_max([5]) == [5]\n'
                              'assert running_max(type("L", (list,), {})([1, 2])) == [2, 2]\n'
                              'assert running_max(type("L", (list,), {})([3, 1])) == [1, 1]\n```')


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


@pytest.mark.parametrize("code", [FORGER, GOOD], ids=["forger", "right"])
async def test_a_review_whose_tests_run_in_the_codes_own_process_is_not_judged(
        code, scripted, run):
    """These AI tests run in the code's own process, and both the forger and the right code
    pass them there (status "passed", trusted False): passes that are not counted. The
    review says "not judged", never "passed" (the forger) nor "failed" (the right code)."""
    scripted.reply(TESTER, ONLY_UNTRUSTED)
    result, _ = await run("review", source=_with_docstring(code), ai_tests=2)
    run_report = result.last_report.run
    assert [(o.status, o.trusted) for o in run_report.outcomes] == [("passed", False)] * 2
    assert [o.verdict for o in run_report.outcomes] == ["not judged"] * 2
    assert result.status == "not judged" and run_report.passed == []
    assert result.summary().startswith("review: not judged; 0/2 tests passed; 2 not judged")
    assert result.last_report.summary.count("NOT JUDGED AI test") == 2
    assert all("judge does not run this test itself" in o.untrusted_reason
               for o in run_report.outcomes)


async def test_an_untrusted_pass_does_not_end_a_team_run_early(scripted, run):
    scripted.reply(TESTER, ONLY_UNTRUSTED).reply(seed(SEED), FORGER)
    scripted.reply(sampled, GOOD, times=None)
    scripted.reply(REVISE, GOOD, times=None)
    result, _ = await run("team", source=BARE, ai_tests=2, candidates=2, max_rounds=3)
    # The forger's passes are not passes: the run went on to sample other answers.
    assert sum(map(sampled, scripted.requests)) == 2
    assert len(result.candidates) == 3
    assert result.status == "not judged", result.summary()
    assert not result.summary().startswith("team: passed")
    # Nothing failed, so there is nothing to revise: no revision round was asked for.
    assert not any(re.search(REVISE, str(r)) for r in scripted.requests)
    assert result.usage.total.calls == 4 and not scripted.unmatched


async def test_untrusted_passes_do_not_rank_a_candidate_above_a_judged_pass(scripted, run):
    scripted.reply(TESTER, JUDGED_AND_WRONG_UNTRUSTED).reply(seed(SEED), FORGER)
    scripted.reply(sampled, GOOD, times=None)
    result, _ = await run("team", source=BARE, ai_tests=3, candidates=1, max_rounds=2)
    forger, good = result.candidates
    # The forger: the judged test an error, the two wrong ones "passed" in its own process
    # (counted before, 2 passes to GOOD's 1); GOOD: the judged pass, the wrong ones failed.
    assert (forger.ai_passed, forger.ai_total, forger.chosen) == (0, 3, False)
    assert (good.ai_passed, good.ai_total, good.chosen) == (1, 3, True)
    assert "max(out[-1], x)" in result.code
    # An untrusted failure still fails.
    report = result.last_report
    assert [o.test_id for o in report.run.failures] == ["ai:2", "ai:3"]
    assert all(not o.trusted for o in report.run.failures)
    assert result.status == "failed"


async def test_flow_does_not_pass_a_forger_on_untrusted_tests(scripted, run):
    from pipeline_support import AI_TESTS, FIX, FLOW_CODE, REFLECT

    scripted.reply(REFLECT, "self_reflection:\n- xs is a list of numbers\n")
    scripted.reply(AI_TESTS, "tests:\n- input: 'type(\"L\", (list,), {})([2, 1])'\n  output: '[2, 2]'\n")
    scripted.reply(seed(SEED), FORGER).reply(FLOW_CODE, FORGER)
    scripted.reply(sampled, FORGER, times=None).reply(FIX, FORGER, times=None)
    result, _ = await run("flow", source=BARE, ai_tests=1, candidates=2)
    outcomes = [o for r in result.reports for o in r.run.outcomes]
    assert outcomes and all(o.verdict == "not judged" for o in outcomes), outcomes
    assert result.status == "not judged", result.summary()
    # not an early exit: the approach's code and a sample were tried; no fix was asked for
    assert len(result.candidates) == 3 and scripted.count(FIX) == 0


async def test_a_review_of_an_async_function_says_why_its_pytest_test_is_not_judged(
        scripted, run_on_disk, tmp_path):
    """An ``async def`` has no judge view: its pytest tests run in one process; the right
    code's pass there is "not judged", with the reason, never "passed" nor "failed"."""
    source = 'async def double(x):\n    """Twice x."""\n    return 2 * x\n'
    module = tmp_path / "twice.py"
    module.write_text(source)
    (tmp_path / "test_twice.py").write_text(
        "import asyncio\n\nfrom twice import double\n\n\n"
        "def test_double():\n    assert asyncio.run(double(2)) == 4\n")
    result = await run_on_disk("review", source, "double", path=module, root=tmp_path)
    (outcome,) = result.last_report.run.outcomes
    assert (outcome.status, outcome.trusted, outcome.verdict) == ("passed", False, "not judged")
    assert "cannot be judged in a process of its own" in outcome.untrusted_reason
    assert result.status == "not judged", result.last_report.summary
    assert "(the function cannot be judged in a process of its own" in result.last_report.summary
