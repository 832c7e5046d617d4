"""Code extraction: fenced, unfenced, several blocks, bodies only; the user's header kept."""

import ast

import pytest

from codeteam.roles.code_extraction import CodeExtractionError, code_blocks, extract_function
from codeteam.task import Task

MODULE = '''import math


class Geometry:
    @staticmethod
    def hypot(a: float, b: float) -> float:  # keep me
        """Length of the hypotenuse.

        >>> Geometry.hypot(3, 4)
        5.0
        """
        raise NotImplementedError
'''


@pytest.fixture
def task():
    return Task.from_source(MODULE, "Geometry.hypot")


def _header_and_doc_kept(code: str) -> None:
    assert code.startswith(
        "@staticmethod\ndef hypot(a: float, b: float) -> float:  # keep me\n"
        '    """Length of the hypotenuse.\n'
    )
    ast.parse(code)


def test_fenced_block_with_prose_and_a_different_signature(task):
    reply = (
        "Sure, here it is:\n```python\ndef hypot(x, y):\n    '''Theirs.'''\n"
        "    return math.sqrt(x * x + y * y)\n```\nThis uses Pythagoras."
    )
    code = extract_function(reply, task)
    _header_and_doc_kept(code)
    assert "Theirs" not in code
    # the reply's parameters are renamed to the user's, by position
    assert code.endswith("    return math.sqrt(a * a + b * b)\n")


def test_several_blocks_take_the_one_defining_the_function(task):
    reply = (
        "```python\nprint(Geometry.hypot(3, 4))\n```\n"
        "```python\ndef hypot(a, b):\n    return (a ** 2 + b ** 2) ** 0.5\n```"
    )
    assert "(a ** 2 + b ** 2) ** 0.5" in extract_function(reply, task)


def test_unfenced_code_inside_prose(task):
    reply = "Here is my answer\ndef hypot(a, b):\n    return math.hypot(a, b)\nHope it helps!"
    code = extract_function(reply, task)
    _header_and_doc_kept(code)
    assert code.rstrip().endswith("return math.hypot(a, b)")


def test_body_only_reply(task):
    code = extract_function("```\nreturn math.hypot(a, b)\n```", task)
    _header_and_doc_kept(code)
    assert code.rstrip().endswith("return math.hypot(a, b)")


def test_module_level_imports_and_helpers_move_inside(task):
    reply = (
        "```python\nimport math\nimport operator\n\n"
        "def square(v):\n    return operator.mul(v, v)\n\n"
        "def hypot(a, b):\n    return math.sqrt(square(a) + square(b))\n```"
    )
    code = extract_function(reply, task)
    _header_and_doc_kept(code)
    body = code.split('    """\n', 1)[1]
    assert body.startswith("    import operator\n    def square(v):")
    assert "import math" not in body  # the module imports it already
    program = task.program_with(code).text
    tree = ast.parse(program)
    method = tree.body[1].body[0]
    assert [type(n).__name__ for n in method.body[1:]] == ["Import", "FunctionDef", "Return"]


@pytest.mark.parametrize(
    "reply",
    ["I cannot help with that.", "```python\ndef hypot(a, b):\n    pass\n```",
     "```python\ndef other(a):\n    return a\n```", "```python\ndef hypot(a, b:\n```"],
)
def test_no_usable_code_raises(reply, task):
    with pytest.raises(CodeExtractionError):
        extract_function(reply, task)


def test_comments_before_the_first_statement_are_kept(task):
    reply = "```python\ndef hypot(a, b):\n    # Pythagoras\n    return math.hypot(a, b)\n```"
    assert "    # Pythagoras\n    return math.hypot(a, b)" in extract_function(reply, task)


def test_code_blocks_ignores_other_languages():
    assert code_blocks("```bash\nls\n```\n```py\nx = 1\n```") == ["x = 1\n"]


def test_a_single_function_under_another_name_is_taken_as_the_target():
    stub = Task.from_source('def fact(n):\n    """n!"""\n', "fact")
    reply = "```python\ndef factorial(k):\n    return 1 if k < 2 else k * factorial(k - 1)\n```"
    code = extract_function(reply, stub)
    namespace: dict = {}
    exec(compile(code, "<generated>", "exec"), namespace)  # noqa: S102 - our own fixed reply, not model output
    assert namespace["fact"](5) == 120
    assert "factorial" not in code


def test_another_name_with_other_parameters_or_beside_a_helper_is_not_guessed():
    stub = Task.from_source('def fact(n):\n    """n!"""\n', "fact")
    with pytest.raises(CodeExtractionError, match="other functions"):
        extract_function("```python\ndef factorial(k, j):\n    return 1\n```", stub)
    with pytest.raises(CodeExtractionError, match="other functions"):
        extract_function("```python\ndef a(k):\n    return 1\n\ndef b(k):\n    return 2\n```",
                         stub)


def test_a_demo_main_or_test_function_beside_the_answer_is_left_out():
    stub = Task.from_source('def add_numbers(a, b):\n    """Add a and b."""\n', "add_numbers")
    reply = ("```python\ndef add(x, y):\n    return x + y\n\n"
             "def test_add():\n    assert add(2, 3) == 5\n\n"
             "def main():\n    print(add(2, 3))\n```")
    code = extract_function(reply, stub)
    assert code == 'def add_numbers(a, b):\n    """Add a and b."""\n    return a + b\n'
