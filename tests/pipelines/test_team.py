"""The team pipeline (analyst -> coder -> tester rounds), every branch, against the scripted
model and the real sandbox."""

import pytest
from pipeline_support import ANALYST, CODER, DIRECT, GOOD, REVISE, SORTED, STUB, TESTER

pytestmark = pytest.mark.sandbox

AI_OK = "```python\nassert running_max([5]) == [5]\nassert running_max([2, 1]) == [2, 2]\n```"


async def test_tester_passes_in_round_one(scripted, run):
    scripted.reply(TESTER, AI_OK).reply(DIRECT, GOOD)
    result, stages = await run("team", ai_tests=2)
    assert result.status == "passed" and result.rounds == 1
    assert result.plan is None  # no analyst: the first draft is the direct answer
    report = result.reports[0]
    assert report.counts("public") == (2, 2) and report.counts("ai") == (2, 2)
    assert "out.append(x if not out else max(out[-1], x))" in result.code
    assert result.code.startswith('def running_max(xs):\n    """Return the running maximum')
    # The tester never saw code: it writes tests from the requirement alone.
    assert [r["messages"][0]["content"][:20] for r in scripted.requests] == [
        "You are the tester i", "You are an expert Py"]
    assert "def running_max(xs):\n    out" not in scripted.texts()[0]
    assert result.usage.total.calls == 2
    assert {k: v.calls for k, v in result.usage.by_role.items()} == {"tester": 1, "coder": 1}
    assert stages[:2] == ["tester: writing tests", "coder: writing code"]
    assert "tester: running 4 tests" in stages
    assert not scripted.unmatched


async def test_tester_fails_and_the_coder_fixes(scripted, run):
    scripted.reply(TESTER, AI_OK).reply(DIRECT, SORTED).reply(REVISE, GOOD)
    result, stages = await run("team", ai_tests=2, candidates=0)
    assert result.status == "passed" and result.rounds == 2
    assert [r.verdict for r in result.reports] == ["fail", "pass"]
    revise_prompt = scripted.texts()[2]
    # The coder got the executed failure: the call, expected and actual.
    assert "running_max([1, 3, 2])" in revise_prompt
    assert "[1, 3, 3]" in revise_prompt and "[1, 2, 3]" in revise_prompt
    assert "return sorted(xs)" in revise_prompt
    assert "coder: revising (round 2)" in stages


async def test_revision_rounds_start_from_the_chosen_sample(scripted, run):
    scripted.reply(TESTER, AI_OK).reply(DIRECT, SORTED, times=1)
    half = "```python\ndef running_max(xs):\n    return list(xs)\n```"  # passes [] and [5]
    scripted.reply(DIRECT, half, times=None)  # the samples
    scripted.reply(REVISE, GOOD)
    result, stages = await run("team", ai_tests=2, candidates=2, max_rounds=3)
    assert result.status == "passed" and result.rounds == 3
    # sorted(xs) and list(xs) each pass 1 public and 1 AI test; the two list(xs) samples
    # agree (2 x 1 beats 1 x 1): the revision starts from list(xs).
    assert "return list(xs)" in scripted.texts()[-1] and "sorted" not in scripted.texts()[-1]
    assert "coder: revising (round 3)" in stages
    assert len(scripted.requests) == 5  # tester, direct, two samples, one revision


async def test_max_rounds_reached_keeps_the_best_code(scripted, run):
    half = "```python\ndef running_max(xs):\n    return list(xs)\n```"  # passes [] and [5]
    scripted.reply(TESTER, AI_OK)
    scripted.reply(DIRECT, half).reply(REVISE, SORTED, times=None)
    result, _ = await run("team", ai_tests=2, max_rounds=3, candidates=0)
    assert result.status == "failed" and result.rounds == 3
    assert len(result.reports) == 3
    assert len(scripted.requests) == 4  # tester, coder, two revisions
    # list(xs) passes 1 public + 1 AI test; sorted(xs) passes 1 public + 1 AI too: the
    # earlier candidate stays, and the user is told why.
    assert "return list(xs)" in result.code
    assert any("kept the code of round 1" in n for n in result.notes)


async def test_malformed_replies_degrade_and_recover(scripted, run):
    scripted.reply(TESTER, "Tests are important!")
    scripted.reply(DIRECT, "Here is a poem about code.", times=1)
    scripted.reply(r"I could not use that", GOOD)
    result, _ = await run("team", ai_tests=2)
    assert result.status == "passed"
    assert any("wrote no usable AI tests" in n for n in result.notes)
    assert result.reports[0].counts("public") == (2, 2)
    # tester, coder x2 (one retry with the extraction error)
    assert len(scripted.requests) == 3
    assert "holding the complete function running_max" in scripted.texts()[2]


async def test_429_then_success(scripted, run):
    scripted.error(TESTER, status=429, times=1)
    scripted.reply(TESTER, AI_OK).reply(DIRECT, GOOD)
    result, _ = await run("team", ai_tests=2, max_retries=2)
    assert result.status == "passed"
    assert len(scripted.requests) == 3
    assert result.usage.total.calls == 3  # the SDK's retry is a request too (issue 13, item 6)


async def test_timeout_of_the_coder_is_an_error_result_with_the_reason(scripted, run):
    scripted.reply(TESTER, AI_OK)
    scripted.hang(DIRECT, times=None)
    result, _ = await run("team", ai_tests=2, timeout_s=0.5, max_retries=0, candidates=0)
    assert result.status == "error" and result.code is None
    assert any("did not answer within the timeout" in n for n in result.notes)


async def test_plan_in_the_docstring_is_followed_without_an_analyst(scripted, run):
    source = STUB.replace("    []\n", "    []\n\n    Plan:\n    1. Track the max.\n"
                                    "    2. Append it.\n")
    scripted.reply(TESTER, AI_OK).reply(DIRECT, GOOD)
    result, _ = await run("team", source=source, ai_tests=2)
    assert result.status == "passed"
    assert result.plan == ["Track the max.", "Append it."]
    assert scripted.count(ANALYST) == 0
    assert "1. Track the max." in scripted.texts()[-1]  # the stub the coder saw holds it


async def test_wrong_ai_test_is_flagged_not_trusted(scripted, run):
    wrong = "```python\nassert running_max([2, 1]) == [2, 1]\n```"
    scripted.reply(TESTER, wrong).reply(DIRECT, GOOD, times=1)
    scripted.reply(DIRECT, SORTED, times=None)  # the samples
    scripted.reply(REVISE, SORTED, times=None)
    result, _ = await run("team", ai_tests=1, max_rounds=3)
    assert result.status == "failed"
    assert "max(out[-1], x)" in result.code  # public tests outrank the wrong AI test
    assert any("all 2 public tests pass; 1 AI test(s) fail" in n for n in result.notes)


async def test_no_tests_at_all_is_untested(scripted, run):
    source = 'def double(x):\n    """Return twice x."""\n'
    scripted.reply(DIRECT, "```python\ndef double(x):\n    return 2 * x\n```")
    result, _ = await run("team", source=source, qualname="double", ai_tests=0)
    assert result.status == "untested" and result.reports == []
    assert any("untested" in n for n in result.notes)
    assert len(scripted.requests) == 1


async def test_fix_starts_from_the_users_code(scripted, run):
    source = STUB + "    return sorted(xs)\n"
    scripted.reply(TESTER, AI_OK).reply(REVISE, GOOD)
    result, _ = await run("fix", source=source, ai_tests=2)
    assert result.status == "passed" and result.rounds == 2
    assert "return sorted(xs)" in scripted.texts()[1]
    assert scripted.count(CODER) == scripted.count(DIRECT) == 0  # the user's code is revised


async def test_review_says_when_the_tester_wrote_no_usable_tests(scripted, run):
    scripted.reply(TESTER, "I would test it with a few lists.")
    result, _ = await run("review", source=STUB + "    return sorted(xs)\n", ai_tests=2)
    assert result.status == "failed"  # the docstring's examples still ran
    assert "tester: wrote no usable AI tests; only the public tests were run" in result.notes


async def test_review_with_ai_tests_0_asks_the_model_nothing_and_says_so(scripted, run):
    result, _ = await run("review", source=STUB + "    return sorted(xs)\n", ai_tests=0)
    assert result.status == "failed"  # the docstring's examples still ran
    assert result.usage.total.calls == 0 and scripted.requests == []
    assert any(n.startswith("no AI tests asked for (ai_tests 0") for n in result.notes)
    assert result.reports[0].counts("ai") == (0, 0)


async def test_review_reports_failures_without_changing_code(scripted, run):
    source = STUB + "    return sorted(xs)\n"
    scripted.reply(TESTER, AI_OK)
    result, _ = await run("review", source=source, ai_tests=2)
    assert result.status == "failed"
    assert result.code.rstrip().endswith("return sorted(xs)")
    run_report = result.reports[0].run
    failed = {o.test_id: o for o in run_report.outcomes if not o.passed}
    assert set(failed) == {"doctest:1", "ai:2"}
    assert failed["doctest:1"].expected.strip() == "[1, 3, 3]"
    assert failed["doctest:1"].actual.strip() == "[1, 2, 3]"


async def test_a_revision_with_no_code_counts_as_the_round_the_transcript_shows(scripted, run):
    # The newcomer's finding (issue 26): the transcript showed "coder: revising (round 2)"
    # while the summary said "1 round" when that revision held no code.
    scripted.reply(TESTER, AI_OK).reply(DIRECT, SORTED)
    scripted.reply(REVISE, "No code today.", times=None)
    result, stages = await run("team", ai_tests=2, candidates=0, max_rounds=3)
    assert "coder: revising (round 2)" in stages
    assert result.status == "failed" and result.rounds == 2
    assert len(result.reports) == 1 and "return sorted(xs)" in result.code
    assert any(n.startswith("coder: revision 2 failed") for n in result.notes)
    assert "2 rounds" in result.verdict_line()
