"""Shared data of the pipeline tests: the stub, scripted replies and the prompt routes (each
prompt file has a distinctive sentence). A module of its own, not ``conftest``: several test
directories have a conftest.py, and ``from conftest import ...`` gets whichever pytest loaded
last when they are collected together."""

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
