"""Checks made before the first model call, so that no model call is spent on a run whose
result could not be used: can the generated code be tested here?

The CLI and the editor ask :func:`untestable_reason` first; when it answers, they say so and
make no call (the CLI runs anyway only when asked explicitly, ``--allow-untested``). The
endpoint is not probed beforehand: the LLM client stops at its first connection failure
(:attr:`codeteam.llm.client.LLMClient.unreachable`) and the caller reports that one failure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from codeteam.settings import Settings

TESTED_PIPELINES = frozenset({"direct", "plan", "team", "flow", "fix", "review"})
"""Pipelines whose result depends on running tests in the sandbox (``plan_docstring`` runs
none)."""


def untestable_reason(settings: Settings, pipeline: str) -> str | None:
    """Why pipeline ``pipeline`` could not run its tests with ``settings`` (the sandbox is
    missing or broken), or None. Blocking (the first check starts bwrap once, ~30 ms): call it
    off the event loop."""
    if pipeline not in TESTED_PIPELINES:
        return None
    from codeteam.execution.sandbox import sandbox_problem

    return sandbox_problem(settings.sandbox)
