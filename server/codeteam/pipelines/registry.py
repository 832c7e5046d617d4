"""Running a pipeline by name: the one entry point the CLI, the editor and the benchmark use."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from codeteam.execution.suite import Offload
from codeteam.llm.client import LLMClient
from codeteam.pipelines import GENERATION_PIPELINES
from codeteam.pipelines.context import PipelineContext
from codeteam.pipelines.direct import run_direct
from codeteam.pipelines.flow import run_flow
from codeteam.pipelines.plan import make_plan, run_plan
from codeteam.pipelines.result import Result
from codeteam.pipelines.review import run_review
from codeteam.pipelines.team import run_fix, run_team
from codeteam.roles.conversation import ProgressCallback
from codeteam.roles.prompts import PromptError, PromptLibrary
from codeteam.settings import Settings
from codeteam.task import Task

Pipeline = Callable[[Task, PipelineContext], Awaitable[Result]]

PIPELINES: dict[str, Pipeline] = {
    "direct": run_direct,
    "plan": run_plan,
    "team": run_team,
    "flow": run_flow,
}
"""Generation pipelines by name (``codeteam run --pipeline NAME``, ``codeteam bench``)."""
if tuple(PIPELINES) != GENERATION_PIPELINES:  # the CLI lists the names without this module
    raise ImportError(f"PIPELINES {tuple(PIPELINES)} differ from {GENERATION_PIPELINES}")

ACTIONS: dict[str, Pipeline] = {
    "plan_docstring": make_plan,
    "review": run_review,
    "fix": run_fix,
}
"""Pipelines behind editor actions that do not generate a whole function."""


async def run_pipeline(
    name: str,
    task: Task,
    *,
    settings: Settings,
    client: LLMClient,
    progress: ProgressCallback | None = None,
    prompts: PromptLibrary | None = None,
    offload: Offload | None = None,
) -> Result:
    """Run pipeline ``name`` (a key of :data:`PIPELINES` or :data:`ACTIONS`) on ``task``.

    ``progress`` receives stage labels; ``offload`` runs the test runs' parsing off the event
    loop (:data:`codeteam.execution.suite.Offload`). Raises :class:`KeyError` for an unknown name;
    cancellation (``asyncio.CancelledError``) propagates after LLM calls and test processes
    are stopped. Model, sandbox and prompt-file failures do not raise: they degrade the result
    (notes), status "error" when there is no code.
    """
    pipeline = PIPELINES.get(name) or ACTIONS.get(name)
    if pipeline is None:
        raise KeyError(f"unknown pipeline {name!r}; choose from {sorted(PIPELINES)}")
    ctx = PipelineContext.from_settings(
        settings,
        client,
        progress=progress,
        prompts=prompts,
        max_calls=settings.max_calls if name == "flow" else None,
        offload=offload,
    )
    if task.project_context is not None and not task.project_context.empty:
        # What context every prompt carries, and which name pulled each definition in.
        ctx.conversation.event("context", "project context", task.project_context.describe())
    try:
        result = await pipeline(task, ctx)
    except PromptError as error:
        # A broken prompt file (usually a user's prompts_dir override): no result is possible.
        ctx.note(f"prompt files: {error}")
        return ctx.result(name, "error", None)
    conversation = ctx.conversation
    if conversation.token_budget_spent:
        kept = "the best code so far is returned" if result.code else "no code was produced"
        result.notes.append(
            f"stopped at the token budget: {conversation.ledger.total.total_tokens:,} of "
            f"{conversation.token_budget:,} tokens used (token_budget); {kept}"
        )
    return result
