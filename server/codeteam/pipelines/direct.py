"""``direct``: the baseline. The coder writes the function from the stub in one call; the
public tests, if any, are run once to report on it (no revision)."""

from __future__ import annotations

from codeteam.llm.client import LLMError
from codeteam.pipelines.context import PipelineContext, status_of
from codeteam.pipelines.result import Result
from codeteam.roles.code_extraction import CodeExtractionError
from codeteam.roles.coder import write_code
from codeteam.task import Task


async def run_direct(task: Task, ctx: PipelineContext) -> Result:
    """One coder call, then the public tests. Status "error" (with the reason in notes) when
    the model gives no usable code."""
    try:
        code = await write_code(ctx.conversation, task, prompt="direct")
    except (LLMError, CodeExtractionError) as error:
        ctx.note(f"coder: {error}")
        return ctx.result("direct", "error", None)
    report = await ctx.run_tests(task, code, task.public_tests, 1)
    return ctx.result(
        "direct", status_of(report), code, reports=[report] if report else [], rounds=1
    )
