"""Shared by the tests that drive the scripted model: how to route a request to a prompt (each
prompt file has a distinctive sentence) and a correct reply for the running_max stub. A module
of its own in tests/ (on sys.path), not a conftest: ``from conftest import ...`` gets whichever
conftest pytest loaded last."""

ANALYST = r"You are the analyst"
PLANNER = r"You write short plans"
CODER = r"You write correct, simple Python"
REVISE = r"The tester ran your code"
TESTER = r"You are the tester"
DIRECT = r"You complete Python functions"
REFLECT = r"You analyse programming problems"
AI_TESTS = r"You write test cases"
FLOW_CODE = r"Write this function:"
FIX = r"You fix Python functions"

# A correct reply for running_max(xs).
GOOD = """```python
def running_max(xs):
    out = []
    for x in xs:
        out.append(x if not out else max(out[-1], x))
    return out
```"""
