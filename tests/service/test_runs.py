"""The service: one test per kind of outcome, against the scripted model over real HTTP.

The CLI and the editor translate these outcomes (exit codes, messages, WorkspaceEdits); their
own tests check the translation."""

from __future__ import annotations

import pytest

from codeteam.llm.embedded import EmbeddedModelError
from codeteam.service import runs as service
from codeteam.service.clients import OneClient
from codeteam.settings import load_settings
from scripted_replies import DIRECT, GOOD, PLANNER, TESTER

STUB = '''import math


def running_max(xs):
    """Return the running maximum of xs.

    >>> running_max([1, 3, 2])
    [1, 3, 3]
    """
'''


def _settings(scripted, **overrides):
    settings, problems = load_settings(
        {"base_url": scripted.base_url, "max_retries": 0, "timeout_s": 5, "ai_tests": 0,
         **overrides},
        env=False,
    )
    assert problems == []
    return settings


async def _run(request, progress=None):
    clients = OneClient()
    try:
        return await service.run(request, clients, progress=progress)
    finally:
        await clients.close()


async def test_generated_code_comes_back_in_place(scripted):
    scripted.reply(DIRECT, GOOD)
    stages: list[str] = []
    request = service.RunRequest(text=STUB.replace("\n", "\r\n"), settings=_settings(scripted),
                                 pipeline="direct", qualname="running_max")
    outcome = await _run(request, stages.append)
    assert outcome.result.status == "passed"
    assert outcome.applicable
    assert outcome.new_text.startswith("import math\r\n")  # the file's line endings kept
    assert "out.append(x if not out else max(out[-1], x))\r\n" in outcome.new_text
    assert outcome.task.public_tests and outcome.task.public_tests[0].kind == "doctest"
    assert stages[:5] == ["collecting the public tests", "checking the sandbox",
                          "coder: writing code", "connecting",  # at the first model call
                          "coder: writing code"]  # then the call's own stage, again


class NoClients:
    """A ClientSource that must not be used: acquiring a client fails the test."""

    acquired = 0

    async def acquire(self, settings):
        NoClients.acquired += 1
        raise AssertionError("a run that makes no model call acquired a model client")

    async def release(self, client):
        raise AssertionError("nothing to release")


async def test_a_review_without_ai_tests_starts_no_model(scripted):
    # No base_url: the embedded model's defaults (no AI tests); nothing may start it.
    settings, problems = load_settings({"max_retries": 0}, env=False)
    assert problems == [] and settings.uses_embedded_model and settings.ai_tests == 0
    stages: list[str] = []
    request = service.RunRequest(text=STUB, settings=settings, pipeline="review",
                                 qualname="running_max")
    outcome = await service.run(request, NoClients(), progress=stages.append)
    assert NoClients.acquired == 0 and "starting the model" not in stages
    assert outcome.result.status == "failed"  # the stub's doctest ran, without a model
    assert outcome.result.usage.total.calls == 0


async def test_code_that_does_not_parse_in_place_is_not_applicable(scripted):
    # Extraction compiles the function alone; the service checks it again in its place, so a
    # result that would break the module (here: code made broken after the pipeline) is
    # never offered for writing.
    scripted.reply(DIRECT, GOOD)
    request = service.RunRequest(text=STUB, settings=_settings(scripted), pipeline="direct",
                                 qualname="running_max")
    outcome = await _run(request)
    task = outcome.task
    broken = "def running_max(xs):\n    return [x for x in xs if x >]\n"
    new_text, problem = service.new_module_text(
        request.text, outcome.readable.text, task.start_line, task.end_line, task.indent,
        broken, "<document>")
    assert new_text is None and "invalid syntax" in problem
    good, problem = service.new_module_text(
        request.text, outcome.readable.text, task.start_line, task.end_line, task.indent,
        outcome.result.code, "<document>")
    assert problem is None and good == outcome.new_text


async def test_review_reports_and_never_replaces(scripted):
    scripted.reply(TESTER, "assert running_max([2]) == [2]")
    request = service.RunRequest(text=STUB, settings=_settings(scripted, ai_tests=1),
                                 pipeline="review", qualname="running_max")
    outcome = await _run(request)
    assert outcome.new_text is None
    assert outcome.result.last_report is not None


async def test_missing_function_is_a_target_error_naming_the_others(scripted):
    request = service.RunRequest(text=STUB, settings=_settings(scripted), pipeline="direct",
                                 qualname="running_min")
    with pytest.raises(service.TargetError) as caught:
        await _run(request)
    assert "running_max" in caught.value.hint
    assert scripted.texts() == []  # no model call


async def test_function_inside_half_typed_code_names_its_lines(scripted):
    text = STUB + "\n\ndef later(:\n    pass\n"
    request = service.RunRequest(text=text, settings=_settings(scripted), pipeline="direct",
                                 qualname="later")
    with pytest.raises(service.TargetError) as caught:
        await _run(request)
    assert "does not parse (lines 12-13; line 12: invalid syntax)" in str(caught.value)
    assert scripted.texts() == []


async def test_other_half_typed_code_is_left_out_with_a_note(scripted):
    scripted.reply(DIRECT, GOOD)
    text = STUB + "\n\ndef later(:\n    pass\n"
    request = service.RunRequest(text=text, settings=_settings(scripted), pipeline="direct",
                                 qualname="running_max")
    outcome = await _run(request)
    assert outcome.result.notes and "12" in outcome.result.notes[0]
    assert outcome.new_text.endswith("def later(:\n    pass\n")  # kept as it was


class _NoModel:
    async def acquire(self, settings):
        raise EmbeddedModelError("the embedded model could not start: no weights")

    async def release(self, client):
        raise AssertionError("nothing to release")


async def test_model_that_cannot_start_is_model_unavailable(scripted):
    request = service.RunRequest(text=STUB, settings=_settings(scripted), pipeline="direct",
                                 qualname="running_max")
    with pytest.raises(service.ModelUnavailable, match="could not start"):
        await service.run(request, _NoModel())


async def test_unavailable_generate_pipeline_falls_back_to_team_with_a_note(scripted):
    name, note = service.pipeline_name(None, _settings(scripted))
    assert (name, note) == ("team", None)
    settings = _settings(scripted)
    object.__setattr__(settings, "generate_pipeline", "missing")
    name, note = service.pipeline_name(None, settings)
    assert name == "team" and '"missing"' in note
    with pytest.raises(service.ServiceError, match="unknown pipeline"):
        service.pipeline_name("nonesuch", settings)


async def test_the_direct_answer_is_teams_first_draft(scripted):
    scripted.reply(DIRECT, GOOD)
    request = service.RunRequest(text=STUB, settings=_settings(scripted, max_rounds=1),
                                 pipeline="team", qualname="running_max")
    outcome = await _run(request)
    assert outcome.result.code is not None and outcome.applicable


async def test_the_actions_seconds_include_collecting_its_tests(scripted):
    """The cost's seconds are the whole action's: collecting the public tests (the project's
    selection session, which can take most of an action) counts, not only the pipeline."""
    import time

    scripted.reply(DIRECT, GOOD)
    after_collecting: list[float] = []

    def progress(stage):
        if stage == "checking the sandbox" and not after_collecting:
            time.sleep(0.5)  # a slow collection, before the pipeline starts
            after_collecting.append(time.monotonic())

    request = service.RunRequest(text=STUB, settings=_settings(scripted), pipeline="direct",
                                 qualname="running_max")
    outcome = await _run(request, progress)
    returned = time.monotonic()
    result = outcome.result
    assert result.status == "passed"
    # The pipeline alone ran between the end of the collecting and the return.
    assert result.seconds > returned - after_collecting[0], result.seconds
    assert result.cost.seconds == result.seconds
    assert f"{result.seconds:.1f} s" in result.cost_line()


async def test_plan_this_docstring_collects_no_tests(scripted):
    """"Plan this docstring" runs no test: its stages never say it collects them."""
    scripted.reply(PLANNER, "1. Keep the largest so far.\n2. Return the list.")
    stages: list[str] = []
    request = service.RunRequest(text=STUB, settings=_settings(scripted),
                                 pipeline="plan_docstring", qualname="running_max")
    outcome = await _run(request, stages.append)
    assert outcome.result.code is not None and "Plan:" in outcome.result.code, outcome.result
    assert stages[0] == "reading the function", stages
    assert not any("test" in stage for stage in stages), stages
