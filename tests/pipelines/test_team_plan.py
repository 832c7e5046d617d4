"""The seeds' team with an endpoint: when the first answer fails, the analyst plans and one
candidate is the coder's answer following that plan (self-collaboration, Dong et al., arXiv
2304.07590: analyst -> coder -> tester); with the embedded model's defaults
(settings.EMBEDDED_DEFAULTS) no analyst call is made. Scripted model as the endpoint."""

import re

import pytest
from pipeline_support import ANALYST, DIRECT, REVISE, SORTED, STUB

from codeteam.llm.provider import client_for
from codeteam.pipelines.registry import run_pipeline
from codeteam.service.documents import task_for
from codeteam.settings import load_settings

pytestmark = pytest.mark.sandbox

PLAN = "1. Start an empty list out.\n2. For each x, append max(out[-1], x) (x first).\n3. Return out."
PLANNED = ("```python\ndef running_max(xs):\n    out = []\n    for x in xs:\n"
           "        out.append(x if not out else max(out[-1], x))\n    return out\n```")
WRONG = "```python\ndef running_max(xs):\n    return list(xs)\n```"


def first_answer(body):
    """The direct answer (no sampling temperature, no plan in the prompt)."""
    text = "\n".join(str(m.get("content", "")) for m in body["messages"])
    return re.search(DIRECT, text) is not None and "Plan:" not in text and body.get(
        "temperature") != 0.5


def follows_plan(body):
    text = "\n".join(str(m.get("content", "")) for m in body["messages"])
    return "Append max(out[-1], x)" in text or "append max(out[-1], x)" in text


async def _team(scripted, settings):
    endpoint, _ = load_settings({"base_url": scripted.base_url, "max_retries": 0}, env=False)
    client = await client_for(endpoint)
    try:
        return await run_pipeline("team", task_for(STUB, "running_max"), settings=settings,
                                  client=client)
    finally:
        await client.close()


async def test_with_an_endpoint_the_analysts_plan_reaches_a_coder_prompt(scripted):
    settings, problems = load_settings(
        {"base_url": scripted.base_url, "max_retries": 0, "ai_tests": 0, "candidates": 2,
         "max_rounds": 2}, env=False)
    assert problems == [] and settings.plan_candidate is True  # the endpoint's default
    scripted.reply(first_answer, SORTED)  # fails the docstring's examples
    scripted.reply(ANALYST, PLAN)
    scripted.reply(follows_plan, PLANNED)
    scripted.reply(lambda body: body.get("temperature") == 0.5, WRONG, times=None)

    result = await _team(scripted, settings)

    texts = scripted.texts()
    analyst = [i for i, t in enumerate(texts) if re.search(ANALYST, t)]
    planned = [i for i, t in enumerate(texts) if "append max(out[-1], x)" in t.lower()
               and not re.search(ANALYST, t)]
    assert len(analyst) == 1 and planned and planned[0] > analyst[0], texts
    assert result.status == "passed" and "max(out[-1], x)" in result.code
    assert result.plan and "append max(out[-1], x)" in " ".join(result.plan).lower()
    origins = [(c.origin, c.chosen) for c in result.candidates]
    assert ("plan", True) in origins and origins[0] == ("direct", False)
    # The plan takes one of the two candidate slots: one sample besides it.
    assert sum(1 for c in result.candidates if c.origin == "sample") == 1
    assert result.usage.by_role["analyst"].calls == 1
    assert not scripted.unmatched


async def test_the_plan_guides_the_revisions(scripted):
    settings, _ = load_settings(
        {"base_url": scripted.base_url, "max_retries": 0, "ai_tests": 0, "candidates": 1,
         "max_rounds": 3}, env=False)
    scripted.reply(first_answer, SORTED).reply(ANALYST, PLAN)
    scripted.reply(follows_plan, WRONG, times=1)  # the planned candidate: still wrong
    scripted.reply(REVISE, PLANNED)

    result = await _team(scripted, settings)

    revisions = [t for t in scripted.texts() if re.search(REVISE, t)]
    assert len(revisions) == 1 and "append max(out[-1], x)" in revisions[0].lower()
    assert result.status == "passed"


async def test_with_the_embedded_defaults_no_analyst_is_called(scripted):
    settings, problems = load_settings(
        {"max_retries": 0, "candidates": 2, "max_rounds": 2}, env=False)  # no base_url
    assert problems == [] and settings.plan_candidate is False and settings.ai_tests == 0
    scripted.reply(first_answer, SORTED)
    scripted.reply(lambda body: body.get("temperature") == 0.5, PLANNED, times=None)

    result = await _team(scripted, settings)

    assert not any(re.search(ANALYST, t) for t in scripted.texts())
    assert "analyst" not in result.usage.by_role
    assert all(c.origin != "plan" for c in result.candidates)
    assert result.status == "passed" and not scripted.unmatched


async def test_a_value_in_a_layer_turns_it_on_for_the_embedded_model_too(scripted):
    settings, _ = load_settings({"max_retries": 0, "candidates": 2, "max_rounds": 2},
                                {"plan_candidate": True}, env=False)
    assert settings.uses_embedded_model and settings.plan_candidate is True
    scripted.reply(first_answer, SORTED).reply(ANALYST, PLAN).reply(follows_plan, PLANNED)
    scripted.reply(lambda body: body.get("temperature") == 0.5, WRONG, times=None)

    result = await _team(scripted, settings)

    assert scripted.count(ANALYST) == 1 and result.status == "passed"
