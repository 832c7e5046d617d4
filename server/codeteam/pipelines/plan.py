"""``plan``: self-planning code generation (Jiang et al., arXiv 2303.06689).

Planning phase (section 3.1): a few-shot prompt turns the intent into numbered steps.
Implementation phase (section 3.2): the coder writes the code guided by the plan. A plan
already in the docstring (written by "Plan this docstring", perhaps edited since) is used as
is. The paper reports +11% to +27% relative pass@1 over direct generation.
"""

from __future__ import annotations

from codeteam.llm.client import LLMError
from codeteam.pipelines.context import PipelineContext, status_of
from codeteam.pipelines.result import Result
from codeteam.pysource.docstrings import write_plan as write_plan_into_docstring
from codeteam.pysource.functions import indent_unit
from codeteam.pysource.syntax import parse_tree
from codeteam.roles.analyst import PlanError, write_plan
from codeteam.roles.code_extraction import CodeExtractionError
from codeteam.roles.coder import write_code
from codeteam.task import Task


async def make_plan(task: Task, ctx: PipelineContext) -> Result:
    """Only the planning phase: the stub with the plan written into its docstring (the "Plan
    this docstring" action). Status "untested" with ``code`` set, or "error" (with a note)
    when there is no plan or it cannot be written: ``code`` is never text that does not
    parse."""
    try:
        steps = await write_plan(ctx.conversation, task, role="planner", prompt="planner")
    except (LLMError, PlanError) as error:
        ctx.note(f"planner: {error}")
        return ctx.result("plan", "error", None)
    try:
        code = write_plan_into_docstring(task.stub, steps, unit=indent_unit(task.module_source))
        parse_tree(code)
    except (SyntaxError, ValueError) as error:
        ctx.note(f"the plan could not be written into the docstring: {error}")
        return ctx.result("plan", "error", None, plan=steps)
    return ctx.result("plan", "untested", code, plan=steps)


async def run_plan(task: Task, ctx: PipelineContext) -> Result:
    """Plan (or the docstring's plan), then code following it, then the public tests."""
    plan = task.plan
    if plan:
        ctx.conversation.event("planner", "plan from the docstring", "\n".join(plan))
    else:
        try:
            plan = await write_plan(ctx.conversation, task, role="planner", prompt="planner")
        except (LLMError, PlanError) as error:
            ctx.note(f"planner: {error}; the coder worked without a plan")
            plan = None
    try:
        code = await write_code(ctx.conversation, task, plan=plan)
    except (LLMError, CodeExtractionError) as error:
        ctx.note(f"coder: {error}")
        return ctx.result("plan", "error", None, plan=plan)
    report = await ctx.run_tests(task, code, task.public_tests, 1)
    return ctx.result(
        "plan", status_of(report), code, plan=plan, reports=[report] if report else [], rounds=1
    )
