"""Helpers for pipeline tests: a task, settings pointing at the scripted model, and runners."""

from __future__ import annotations

import pytest

from codeteam.documents import task_for
from codeteam.llm.provider import client_for
from codeteam.pipelines.runner import run_pipeline
from codeteam.settings import load_settings

STUB = '''def running_max(xs):
    """Return the running maximum of xs.

    >>> running_max([1, 3, 2])
    [1, 3, 3]
    >>> running_max([])
    []
    """
'''

GOOD = """```python
def running_max(xs):
    out = []
    for x in xs:
        out.append(x if not out else max(out[-1], x))
    return out
```"""

SORTED = "```python\ndef running_max(xs):\n    return sorted(xs)\n```"

# Prompt routing: each role's prompt file has a distinctive sentence.
ANALYST = r"You are the analyst"
PLANNER = r"You write short plans"
CODER = r"You write correct, simple Python"
REVISE = r"The tester ran your code"
TESTER = r"You are the tester"
DIRECT = r"You complete Python functions"
REFLECT = r"You analyse programming problems"
SOLUTIONS = r"You design algorithms"
AI_TESTS = r"You write test cases"
FLOW_CODE = r"Write this function:"
FIX = r"You fix Python functions"


@pytest.fixture
async def run(scripted):
    """``await run(pipeline, source=STUB, qualname="running_max", **settings)``."""
    clients = []

    async def go(pipeline, source=STUB, qualname="running_max", **overrides):
        settings, problems = load_settings(
            {"base_url": scripted.base_url, "max_retries": 0, "timeout_s": 5, **overrides},
            env=False,
        )
        assert problems == []
        client = await client_for(settings)
        clients.append(client)
        stages: list[str] = []
        task = task_for(source, qualname)
        result = await run_pipeline(pipeline, task, settings=settings, client=client,
                                    progress=stages.append)
        return result, stages

    yield go
    for client in clients:
        await client.close()
