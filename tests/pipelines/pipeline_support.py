"""Shared data of the pipeline tests: the stub and scripted replies; the prompt routes come
from tests/scripted_replies.py. A module of its own, not ``conftest``: several test
directories have a conftest.py, and ``from conftest import ...`` gets whichever pytest loaded
last when they are collected together."""

from scripted_replies import (  # noqa: F401 - re-exported for the pipeline tests
    AI_TESTS,
    ANALYST,
    CODER,
    DIRECT,
    FIX,
    FLOW_CODE,
    GOOD,
    PLANNER,
    REFLECT,
    REVISE,
    TESTER,
)

STUB = '''def running_max(xs):
    """Return the running maximum of xs.

    >>> running_max([1, 3, 2])
    [1, 3, 3]
    >>> running_max([])
    []
    """
'''

SORTED = "```python\ndef running_max(xs):\n    return sorted(xs)\n```"

