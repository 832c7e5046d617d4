"""What an action costs: calls, tokens, seconds and, with prices, money per model; the token
budget stops a run cleanly with the best code so far. Scripted model as the endpoint (it
reports tokens as words: tests/scripted_llm.py)."""

import pytest
from pipeline_support import DIRECT, GOOD, SORTED

from codeteam.llm.usage import Cost, Usage, UsageLedger

pytestmark = pytest.mark.sandbox


def test_the_cost_line_with_and_without_prices():
    ledger = UsageLedger()
    ledger.record("coder", Usage(calls=2, prompt_tokens=1500, completion_tokens=500), "gpt-4o")
    ledger.record("tester", Usage(calls=1, prompt_tokens=1000, completion_tokens=0), "mini")
    plain = ledger.cost(12.34)
    assert plain.usd is None and plain.unpriced == []
    assert plain.line() == "3 LLM calls, 2,500 prompt + 500 completion tokens, 12.3 s"
    priced = ledger.cost(12.34, {"gpt-4o": (2.5, 10.0), "mini": (0.15, 0.6)})
    # 1500 x 2.5 + 500 x 10 + 1000 x 0.15 per million tokens
    assert priced.usd == pytest.approx((1500 * 2.5 + 500 * 10 + 1000 * 0.15) / 1e6)
    assert priced.line().endswith(", 12.3 s, $0.0089")
    partly = ledger.cost(1.0, {"gpt-4o": (2.5, 10.0)})
    assert partly.unpriced == ["mini"]
    assert partly.line().endswith("$0.0088 (no price for mini)")
    none_priced = ledger.cost(1.0, {"other": (1.0, 1.0)})
    assert none_priced.usd is None and none_priced.line().endswith("(no price for gpt-4o, mini)")
    assert Cost(calls=1, usd=12.5).line().endswith("$12.50")


async def test_a_runs_cost_is_priced_per_model(scripted, run):
    scripted.reply(DIRECT, GOOD)
    result, _ = await run("team", ai_tests=0, model="scripted-gpt",
                          prices={"scripted-gpt": [2.5, 10]})
    usage = result.usage.by_model["scripted-gpt"]
    assert usage.calls == 1 and usage.prompt_tokens > 0 and usage.completion_tokens > 0
    expected = (usage.prompt_tokens * 2.5 + usage.completion_tokens * 10) / 1e6
    assert result.cost.usd == pytest.approx(expected)
    assert result.cost.seconds == pytest.approx(result.seconds)
    assert f"${expected:.4f}" in result.summary()
    assert result.summary().startswith("team: passed; 2/2 tests passed; 1 round; 1 LLM call, ")

    plain, _ = await run("team", ai_tests=0, model="scripted-gpt")
    assert plain.cost.usd is None and "$" not in plain.summary()


async def test_a_role_override_is_priced_as_its_own_model(scripted, run):
    scripted.reply(DIRECT, GOOD)
    result, _ = await run("team", ai_tests=0, model="cheap", models={"coder": "big"},
                          prices={"cheap": [0, 0]})
    assert list(result.usage.by_model) == ["big"]
    assert result.cost.usd is None and result.cost.unpriced == ["big"]
    assert scripted.requests[0]["model"] == "big"


async def test_the_token_budget_stops_the_run_with_the_best_code_so_far(scripted, run):
    scripted.reply(DIRECT, SORTED)  # the first answer fails the docstring's examples
    scripted.reply(None, GOOD, times=None)  # anything after it would pass: never asked
    result, _ = await run("team", ai_tests=0, candidates=3, max_rounds=3, token_budget=1)
    assert len(scripted.requests) == 1  # the call that crossed the budget, then none
    assert result.status == "failed" and "sorted(xs)" in result.code
    assert result.usage.total.calls == 1
    note = [n for n in result.notes if n.startswith("stopped at the token budget")]
    used = result.usage.total.total_tokens
    assert note == [(f"stopped at the token budget: {used:,} of 1 tokens used (token_budget); "
                     "the best code so far is returned")], result.notes


async def test_the_token_budget_keeps_the_best_candidate_seen(scripted, run):
    """The budget lets the direct answer and one sample through: the sample passes, so it
    is returned although later stages were refused."""
    scripted.reply(DIRECT, SORTED)
    first, _ = await run("direct")
    one_call = first.usage.total.total_tokens
    scripted.requests.clear()
    scripted.reply(lambda body: body.get("temperature") != 0.5, SORTED)
    scripted.reply(lambda body: body.get("temperature") == 0.5, GOOD, times=None)
    result, _ = await run("team", ai_tests=0, candidates=3, max_rounds=3,
                          token_budget=one_call + 1)
    assert len(scripted.requests) == 2
    assert result.status == "passed" and "max(out[-1], x)" in result.code
    assert any(n.startswith("stopped at the token budget") for n in result.notes)


async def test_flow_stops_at_the_token_budget_too(scripted, run):
    scripted.reply(DIRECT, SORTED)
    scripted.reply(None, GOOD, times=None)
    result, _ = await run("flow", ai_tests=0, token_budget=1)
    assert len(scripted.requests) == 1 and "sorted(xs)" in result.code
    assert any(n.startswith("stopped at the token budget") for n in result.notes)
