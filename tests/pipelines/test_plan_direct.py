"""direct, plan and "Plan this docstring"."""

import ast

import pytest
from pipeline_support import CODER, DIRECT, GOOD, PLANNER, SORTED

pytestmark = pytest.mark.sandbox


async def test_direct_is_one_call_and_runs_the_public_tests(scripted, run):
    scripted.reply(DIRECT, SORTED)
    result, _ = await run("direct")
    assert result.status == "failed" and len(scripted.requests) == 1
    assert result.reports[0].counts("public") == (1, 2)


async def test_plan_docstring_writes_numbered_steps(scripted, run):
    scripted.reply(PLANNER, "1. Start with an empty list.\n2. Track the maximum.\n"
                            "3. Return the list.\n\ndef running_max(xs): pass")
    result, stages = await run("plan_docstring")
    assert result.status == "untested"
    doc = ast.get_docstring(ast.parse(result.code).body[0])
    assert doc.endswith("Plan:\n1. Start with an empty list.\n2. Track the maximum.\n"
                        "3. Return the list.")
    assert ">>> running_max([1, 3, 2])" in doc
    assert stages == ["planner: planning"]
    # The planner's few-shot prompt ends with this function's intent, then "Plan:".
    last = scripted.requests[0]["messages"][-1]["content"]
    assert last.rstrip().endswith("Plan:") and "Return the running maximum of xs." in last


async def test_plan_pipeline_plans_then_codes(scripted, run):
    scripted.reply(PLANNER, "1. Track the maximum.\n2. Append it.")
    scripted.reply(CODER, GOOD)
    result, _ = await run("plan")
    assert result.status == "passed" and result.plan == ["Track the maximum.", "Append it."]
    assert "1. Track the maximum.\n2. Append it." in scripted.texts()[1]


async def test_plan_failure_is_an_error_result(scripted, run):
    scripted.reply(PLANNER, "```python\ndef running_max(xs): return xs\n```", times=2)
    result, _ = await run("plan_docstring")
    assert result.status == "error" and result.code is None
    assert any("planner" in n for n in result.notes)
