"""``review``: the tester alone ("Review with tester"). Runs the public tests and AI tests on
the function as it is now and reports per test; the code is not changed."""

from __future__ import annotations

from codeteam.llm.client import LLMError
from codeteam.pipelines.context import PipelineContext, status_of
from codeteam.pipelines.result import Result
from codeteam.roles.tester import write_tests
from codeteam.task import Task


async def run_review(task: Task, ctx: PipelineContext) -> Result:
    """Test the function as written. ``code`` in the result is the function unchanged."""
    ai_tests = []
    if not ctx.ai_tests:
        ctx.note("no AI tests asked for (ai_tests 0; the embedded model's default: it writes "
                 "no usable tests)")
    try:
        ai_tests = await write_tests(ctx.conversation, task, ctx.ai_tests)
        if ctx.ai_tests and not ai_tests:
            ctx.note("tester: wrote no usable AI tests; only the public tests were run")
    except LLMError as error:
        ctx.note(f"tester: {error}; only the public tests were run")
    tests = list(task.public_tests) + ai_tests
    if not tests:
        ctx.note("nothing to run: no docstring examples, no pytest tests, no AI tests")
    report = await ctx.run_tests(task, task.stub, tests, 1)
    return ctx.result(
        "review", status_of(report), task.stub, reports=[report] if report else [], rounds=1
    )
