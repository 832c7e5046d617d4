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


def _define(code: str, **namespace):
    exec(compile(code, "<generated>", "exec"), namespace)  # noqa: S102 - our own fixed replies
    return namespace


def test_a_reply_decorator_is_kept_on_an_inner_function_with_every_argument_passed_on():
    stub = Task.from_source(
        'def paths(rows: int, cols: int = 2, *rest, scale=1, **extra) -> int:\n'
        '    """Lattice paths."""\n', "paths")
    reply = ("```python\nimport functools\n\n@functools.lru_cache(maxsize=None)\n"
             "def paths(r, c=2, *more, scale=1, **kw):\n    SEEN.append((r, c))\n"
             "    if r == 0 or c == 0:\n        return scale + len(more) + len(kw)\n"
             "    return paths(r - 1, c, *more, scale=scale, **kw) + "
             "paths(r, c - 1, *more, scale=scale, **kw)\n```")
    code = extract_function(reply, stub)
    # The user's header is kept as written; the reply's decorator sits on the inner function.
    assert code.startswith('def paths(rows: int, cols: int = 2, *rest, scale=1, **extra) -> int:')
    assert ("    @functools.lru_cache(maxsize=None)\n"
            "    def paths(rows, cols=2, *rest, scale=1, **extra):\n") in code
    seen: list = []
    paths = _define(code, SEEN=seen)["paths"]
    assert paths(12, 12) == 2704156  # C(24, 12)
    assert len(seen) <= 13 * 13 + 1  # memoised: each (r, c) once
    assert paths(1, 1, 7, scale=0, x=1) == 4  # each base case: 0 + one *rest + one **extra


def test_class_only_and_unresolved_decorators_of_a_reply_are_dropped():
    stub = Task.from_source('def double(n):\n    """Twice n."""\n', "double")
    for decorator in ("staticmethod", "property", "timed", "abc.abstractmethod"):
        reply = f"```python\n@{decorator}\ndef double(n):\n    return 2 * n\n```"
        code = extract_function(reply, stub)
        assert code == 'def double(n):\n    """Twice n."""\n    return 2 * n\n', decorator
    # A decorator the user's header already has is not added a second time.
    stub = Task.from_source(
        'import functools\n\n\n@functools.cache\ndef double(n):\n    """Twice n."""\n', "double")
    code = extract_function("```python\n@functools.cache\ndef double(n):\n    return 2 * n\n```",
                            stub)
    assert code == '@functools.cache\ndef double(n):\n    """Twice n."""\n    return 2 * n\n'


def test_a_decorated_async_reply_awaits_its_inner_function():
    stub = Task.from_source(
        'from functools import cache\n\n\nasync def fetch(key):\n    """Value of key."""\n',
        "fetch")
    code = extract_function("```python\n@cache\nasync def fetch(k):\n    return k * 2\n```", stub)
    assert code.endswith("    @cache\n    async def fetch(key):\n        return key * 2\n\n"
                         "    return await fetch(key)\n")
    import asyncio
    import functools
    assert asyncio.run(_define(code, cache=functools.cache)["fetch"](21)) == 42
