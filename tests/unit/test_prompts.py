"""Every prompt file renders, with StrictUndefined, from the variables its stage passes."""

import pytest
import yaml

from codeteam.execution.outcomes import TestCase
from codeteam.roles.prompts import PromptError, PromptLibrary, shipped_prompts_dir
from codeteam.task import Task

STUB = '''import math

def circle_area(r: float) -> float:
    """Area of a circle of radius r.

    >>> circle_area(1.0)
    3.141592653589793
    """
'''


@pytest.fixture
def task():
    return Task.from_source(STUB, "circle_area")


VARIABLES = {
    "direct": lambda t: {"task": t},
    "planner": lambda t: {"task": t},
    "analyst": lambda t: {"task": t},
    "coder": lambda t: {"task": t, "plan": ["Square r.", "Multiply by pi."]},
    "coder_revise": lambda t: {"task": t, "plan": [], "code": "def circle_area(r):\n    return r",
                               "report": "FAILED public test ..."},
    "tester": lambda t: {"task": t, "count": 4},
    "flow_reflect": lambda t: {"task": t, "tests": [">>> circle_area(1.0)"]},
    "flow_tests": lambda t: {"task": t, "count": 3, "tests": []},
    "flow_code": lambda t: {"task": t, "reflection": ["r is a radius"]},
    "flow_fix": lambda t: {"task": t, "code": "def circle_area(r):\n    return r",
                           "failure": "FAILED ...", "anchors": ["ai:1"]},
}

FOLLOWUPS = {
    "reask_code": lambda t: {"task": t, "error": "the reply has no code block"},
    "reask_plan": lambda t: {"error": ""},
    "reask_structured": lambda t: {"error": "line 3: mapping values are not allowed",
                                   "keys": ["tests", "notes"]},
}
"""Follow-up messages (re-asks): a user template only, sent inside a conversation."""


def test_every_prompt_file_is_covered_and_well_formed():
    files = sorted(p.stem for p in shipped_prompts_dir().glob("*.yaml"))
    assert files == sorted(VARIABLES | FOLLOWUPS)
    for name in files:
        data = yaml.safe_load((shipped_prompts_dir() / f"{name}.yaml").read_text())
        assert set(data) <= {"description", "temperature", "max_tokens", "system", "user"}
        assert data["description"].strip(), name


@pytest.mark.parametrize("name", sorted(VARIABLES))
def test_prompt_renders(name, task):
    rendered = PromptLibrary().render(name, **VARIABLES[name](task))
    system, user = rendered.messages
    assert system.role == "system" and user.role == "user"
    assert system.content and user.content
    assert "{{" not in user.content and "{%" not in user.content
    # Every prompt is about the task: its name or signature reaches the model.
    assert "circle_area" in user.content


def test_coder_prompt_carries_the_plan_and_planner_the_intent(task):
    coder = PromptLibrary().render("coder", **VARIABLES["coder"](task)).messages[1].content
    assert "1. Square r.\n2. Multiply by pi." in coder
    planner = PromptLibrary().render("planner", task=task).messages[1].content
    assert planner.rstrip().endswith('"""\nPlan:')
    assert "Area of a circle of radius r." in planner


def test_missing_variable_is_an_error(task):
    with pytest.raises(PromptError, match="undefined"):
        PromptLibrary().render("coder", task=task)


def test_override_dir_wins(tmp_path, task):
    (tmp_path / "direct.yaml").write_text(
        "description: mine\nsystem: custom system\nuser: 'only {{ task.name }}'\n"
    )
    rendered = PromptLibrary(tmp_path).render("direct", task=task, context="")
    assert rendered.messages[1].content == "only circle_area"
    assert PromptLibrary(tmp_path).render("tester", task=task, count=1).messages[0].content


def test_sandboxed_templates_cannot_reach_python_internals(tmp_path, task):
    (tmp_path / "direct.yaml").write_text(
        "system: x\nuser: '{{ task.__class__.__mro__[1].__subclasses__() }}'\n"
    )
    with pytest.raises(PromptError):
        PromptLibrary(tmp_path).render("direct", task=task, context="")


def test_public_tests_render_in_flow_prompts(task):
    case = TestCase(id="doctest:1", kind="doctest", origin="public", source="circle_area(1.0)",
                    expected="3.14")
    text = PromptLibrary().render("flow_reflect", task=task, tests=[case.describe()])
    assert ">>> circle_area(1.0)" in text.messages[1].content


@pytest.mark.parametrize("name", sorted(FOLLOWUPS))
def test_followup_renders(name, task):
    variables = FOLLOWUPS[name](task)
    message = PromptLibrary().followup(name, **variables)
    assert message.role == "user"
    assert variables["error"] in message.content
    assert "{{" not in message.content and "{%" not in message.content
    if name == "reask_code":
        assert "circle_area" in message.content
    elif name == "reask_plan":
        assert "numbered steps" in message.content
    else:
        assert "tests, notes" in message.content


def test_followup_needs_its_variables(task):
    with pytest.raises(PromptError):
        PromptLibrary().followup("reask_code", task=task)


# --- the project context block (prompts/project_context.jinja) ------------------------------

HELPERS = '''import math

SCALE = 2.0


def helper(r: float) -> float:
    """r squared."""
    return r * r


def circle_area(r: float) -> float:
    """Area of a circle of radius r: pi times helper(r)."""
'''

# Every prompt file that shows the function shows its context.
ROLES_WITH_CONTEXT = ["analyst", "coder", "coder_revise", "direct", "flow_code", "flow_fix",
                      "flow_reflect", "flow_tests", "planner", "tester"]


@pytest.mark.parametrize("name", ROLES_WITH_CONTEXT)
def test_every_role_shows_the_same_context_block(name):
    task = Task.from_source(HELPERS, "circle_area")
    user = PromptLibrary().render(name, **VARIABLES[name](task)).messages[1].content
    block = user[user.index("Definitions from the project"):].split("```\n\n")[0]
    assert block == (
        "Definitions from the project that the function can use (signatures and docstrings):\n"
        "```python\n"
        "import math\n\n"
        "def helper(r: float) -> float:\n"
        '    """r squared."""\n'
        "    return r * r\n\n"
        "SCALE = 2.0\n"
    )


def test_no_context_renders_no_block(task):
    for name in ROLES_WITH_CONTEXT:
        user = PromptLibrary().render(name, **VARIABLES[name](
            task.model_copy(update={"project_context": None}))).messages[1].content
        assert "Definitions from the project" not in user, name


def test_left_out_definitions_are_named_in_one_line():
    from codeteam.project_context import LeftOut

    task = Task.from_source(HELPERS, "circle_area")
    context = task.project_context.model_copy(update={"left_out": [
        LeftOut(qualname=f"far_{i}", path="pkg/far.py", reason="imported by the module")
        for i in range(14)
    ]})
    user = PromptLibrary().render("direct", task=task.model_copy(
        update={"project_context": context})).messages[1].content
    assert ("Not shown, for space: far_0, far_1, far_2, far_3, far_4, far_5, far_6, far_7, "
            "far_8, far_9, far_10, far_11 and 2 more.") in user


def test_the_context_block_can_be_overridden_like_a_prompt(tmp_path):
    (tmp_path / "project_context.jinja").write_text("MY CONTEXT {{ task.name }}\n")
    task = Task.from_source(HELPERS, "circle_area")
    user = PromptLibrary(tmp_path).render("coder", task=task, plan=[]).messages[1].content
    assert user.startswith("MY CONTEXT circle_area")


def test_an_edited_prompt_file_is_read_again_and_templates_are_compiled_once(tmp_path):
    """Parsed files and compiled templates are shared by every library of the process (the
    editor makes one per run), and a file edited since is read again."""
    from codeteam.roles import prompts

    task = Task.from_source("def f(x):\n    \"\"\"Return x.\"\"\"\n", "f")
    (tmp_path / "direct.yaml").write_text("system: one\nuser: '{{ task.name }} first'\n")
    assert PromptLibrary(tmp_path).render("direct", task=task).messages[1].content == "f first"
    compiled = prompts._template.cache_info().currsize
    PromptLibrary(tmp_path).render("direct", task=task)
    assert prompts._template.cache_info().currsize == compiled  # no new compile
    (tmp_path / "direct.yaml").write_text("system: two\nuser: '{{ task.name }} second, longer'\n")
    rendered = PromptLibrary(tmp_path).render("direct", task=task)
    assert rendered.messages[0].content == "two"
    assert rendered.messages[1].content == "f second, longer"
