"""codeteam.pysource.functions: finding and replacing functions with ast."""

import ast

import pytest

from codeteam.pysource.functions import (
    AmbiguousFunction,
    FunctionNotFound,
    SourceError,
    dedent_function,
    find_functions,
    function_text,
    indent_function,
    line_ending,
    locate,
    replace_span,
)

SOURCE = '''import os
# 😀 an emoji above
class Shop:
    @staticmethod
    @cached(size=2)
    async def price(item: str,
                    qty: int = 1) -> float:  # header comment
        """Price of qty items."""
        def helper():
            return 1.0
        return helper() * qty


def total(xs):
    return sum(xs)
'''


def test_finds_methods_decorators_async_and_nested_functions():
    found = {f.qualname: f for f in find_functions(SOURCE)}
    assert set(found) == {"Shop.price", "Shop.price.helper", "total"}
    price = found["Shop.price"]
    assert (price.start_line, price.def_line, price.end_line) == (3, 5, 10)
    assert price.is_async and price.decorators == ("staticmethod", "cached(size=2)")
    assert price.signature == "async def price(item: str, qty: int=1) -> float"
    assert price.indent == "    "
    assert price.docstring == "Price of qty items."


def test_locate_by_name_and_signature():
    info = locate(SOURCE, "total", "def total(xs)")
    assert info.start_line == 13
    with pytest.raises(FunctionNotFound, match="signature changed"):
        locate(SOURCE, "total", "def total(xs, ys)")
    with pytest.raises(FunctionNotFound):
        locate(SOURCE, "missing")
    with pytest.raises(AmbiguousFunction):
        locate("def f():\n    pass\ndef f():\n    pass\n", "f")


def test_signature_ignores_formatting():
    a = find_functions("def f(a,b = 2) ->int :\n    pass\n")[0].signature
    b = find_functions("def f(\n    a, b=2,\n) -> int:  # c\n    pass\n")[0].signature
    assert a == b == "def f(a, b=2) -> int"


def test_syntax_error_has_a_line():
    with pytest.raises(SourceError) as error:
        find_functions("def f(:\n    pass\n")
    assert error.value.line == 0


def test_replace_keeps_every_byte_outside_the_span_crlf():
    source = "import os\r\n\r\ndef f(x):\r\n    pass\r\n\r\ny = 1\r\n"
    info = locate(source.replace("\r\n", "\n"), "f")
    new = indent_function("def f(x):\n    return x\n", "", line_ending(source))
    out = replace_span(source, info.start_line, info.end_line, new)
    assert out == "import os\r\n\r\ndef f(x):\r\n    return x\r\n\r\ny = 1\r\n"


@pytest.mark.parametrize(("text", "ending"), [
    ("a\rb\r", "\r"), ("a\r\nb\r\n", "\r\n"), ("a\nb\n", "\n"), ("a", "\n"),
    ("a\r\nb\n", "\r\n"), ("a\rb\rc\n", "\r"), ("a\rb\nc\n", "\n"),
])
def test_line_ending_is_the_dominant_one_cr_included(text, ending):
    assert line_ending(text) == ending


def test_replace_keeps_cr_only_line_endings_everywhere_in_the_new_function():
    source = 'import os\r\rdef f(x):\r    """Doc.\r\r    >>> f(1)\r    1\r    """\r    pass\r\ry = 1\r'
    info = locate(source, "f")
    code = 'def f(x):\n    """Doc.\n\n    >>> f(1)\n    1\n    """\n    s = """a\nb"""\n    return x\n'
    out = replace_span(source, info.start_line, info.end_line,
                       indent_function(code, "", line_ending(source)))
    assert "\n" not in out
    assert out.startswith("import os\r\rdef f(x):\r") and out.endswith("    return x\r\ry = 1\r")


def test_replace_last_function_without_final_newline():
    source = "def f(x):\n    pass"
    out = replace_span(source, 0, 1, "def f(x):\n    return x\n")
    assert out == "def f(x):\n    return x"


def test_function_text_and_reindent_round_trip():
    info = locate(SOURCE, "Shop.price")
    text = function_text(SOURCE, info)
    assert text.startswith("    @staticmethod\n") and text.endswith("return helper() * qty\n")
    at_zero = dedent_function(text)
    assert at_zero.startswith("@staticmethod\n")
    ast.parse(at_zero)
    assert indent_function(at_zero, "    ") == text


def test_collapse_stubs_drops_module_stubs_and_shortens_method_stubs():
    from codeteam.pysource.functions import collapse_stubs

    source = (
        "import os\n\n\nclass A:\n    def m(self, x):\n        \"\"\"Doc.\"\"\"\n\n"
        "    def n(self,\n          y):\n        \"\"\"Doc.\"\"\"\n        return y\n\n"
        "    def p(self): pass\n\n\ndef f(a,\n      b):\n    \"\"\"Doc.\n\n    >>> f(1, 2)\n"
        "    \"\"\"\n    raise NotImplementedError\n"
    )
    expected = (
        "import os\n\n\nclass A:\n    def m(self, x):\n        ...\n\n"
        "    def n(self,\n          y):\n        \"\"\"Doc.\"\"\"\n        return y\n\n"
        "    def p(self): pass\n\n\n"
    )
    assert collapse_stubs(source) == expected
    assert collapse_stubs("def broken(:\n") == "def broken(:\n"


def test_prompt_context_leaves_other_stubs_out():
    from codeteam.task import Task

    module = ('def a(x):\n    """Return x.\n\n    >>> a(1)\n    1\n    """\n\n\n'
              'def b(y):\n    """Return y."""\n\n\ndef c(z):\n    return z\n')
    assert Task.from_source(module, "b").context() == "def c(z):\n    return z"


def test_dedent_keeps_a_multiline_f_string_of_a_method():
    """Python 3.12+ tokenizes f-strings as FSTRING_START ... FSTRING_END, not one STRING."""
    method = '    def m(self, x):\n        return f"""a\n    {x}\n        b"""\n'
    assert dedent_function(method) == 'def m(self, x):\n    return f"""a\n    {x}\n        b"""\n'


OVERLOADED = '''import typing


@typing.overload
def scale(x: int) -> int: ...
@typing.overload
def scale(x: float) -> float: ...
def scale(x):
    """x doubled."""
    return x * 2


class C:
    @property
    def size(self) -> int:
        return self._size

    @size.setter
    def size(self, value: int) -> None:
        self._size = value
'''


def test_overload_stubs_and_their_implementation_are_one_function():
    from codeteam.pysource.functions import locate

    found = locate(OVERLOADED, "scale")
    assert found.def_line == 7 and found.signature == "def scale(x)"
    assert locate(OVERLOADED, "scale", "def scale(x)").def_line == 7


def test_a_property_getter_by_name_and_its_setter_by_signature():
    from codeteam.pysource.functions import locate

    assert locate(OVERLOADED, "C.size").def_line == 14
    setter = locate(OVERLOADED, "C.size", "def size(self, value: int) -> None")
    assert setter.def_line == 18 and setter.decorators == ("size.setter",)


def test_the_context_tokens_setting():
    from codeteam.settings import load_settings

    settings, problems = load_settings({"context_tokens": "800"}, env=False)
    assert problems == [] and settings.context_tokens == 800
    assert load_settings({}, env=False)[0].context_tokens == 1500
    for bad in (True, -1, "lots"):
        _, problems = load_settings({"context_tokens": bad}, env=False)
        assert len(problems) == 1 and "context_tokens" in problems[0], bad
