"""Finding, extracting, planning and re-indenting functions of unusual shapes (tabs,
multi-line signatures, strings at column 0, form feeds, future imports): no model, no sandbox;
each test reproduces a defect a review found."""

from __future__ import annotations

import ast

import pytest

from codeteam.pysource.docstrings import write_plan
from codeteam.roles.code_extraction import CodeExtractionError, extract_function
from codeteam.service.documents import task_for
from codeteam.task import Task


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except SyntaxError:
        return False
    return True


# --- tabs ------------------------------------------------------------------------------------


def test_generate_keeps_working_for_a_tab_indented_function():
    task = Task.from_source('def double(x):\n\t"""Double x."""\n\tpass\n', "double")
    code = extract_function("```python\ndef double(x):\n    return 2 * x\n```", task)
    assert _parses(code) and "return 2 * x" in code


def test_plan_into_tab_indented_function_without_docstring_parses():
    task = Task.from_source("def double(x):\n\treturn 2 * x\n", "double")
    assert _parses(write_plan(task.stub, ["Multiply x by two."]))


# --- headers and one-line bodies -------------------------------------------------------------


def test_plan_for_multiline_signature_with_body_on_header_line():
    task = Task.from_source("def add(a,\n        b): return a + b\n", "add")
    try:
        planned = write_plan(task.stub, ["Add them."])
    except SyntaxError:
        return  # refusing (like a one-line def) is fine; broken code is not
    assert _parses(planned), planned


def test_generate_for_multiline_signature_with_body_on_header_line():
    task = Task.from_source("def add(a,\n        b): return 0\n", "add")
    code = extract_function("```python\ndef add(a, b):\n    return a + b\n```", task)
    assert _parses(code) and "return a + b" in code


# --- quotes in plans ---------------------------------------------------------------------------


def test_plan_step_with_triple_quotes_in_a_single_quoted_docstring():
    task = Task.from_source("def wrap(s):\n    '''Wrap s in quotes.'''\n", "wrap")
    planned = write_plan(task.stub, ['Return s between """ quotes.'])
    assert _parses(planned), planned
    assert "Plan:" in ast.get_docstring(ast.parse(planned).body[0])


def test_plan_for_a_one_quote_docstring_holding_triple_quotes():
    task = Task.from_source("def q():\n    'Return the text \"\"\" (three quotes).'\n", "q")
    planned = write_plan(task.stub, ["Return the constant."])
    assert _parses(planned), planned


# --- string literals and indentation ---------------------------------------------------------

_BANNER_STUB = 'def banner():\n    """Two lines: Hello and World."""\n'
_BANNER_REPLY = '```python\ndef banner():\n    return """\\\nHello\nWorld"""\n```'


def test_reply_with_a_multiline_string_at_column_0_is_used():
    task = Task.from_source(_BANNER_STUB, "banner")
    code = extract_function(_BANNER_REPLY, task)
    namespace: dict = {}
    exec(code, namespace)  # noqa: S102 - our own literal
    assert namespace["banner"]() == "Hello\nWorld"


def test_reply_with_a_multiline_string_keeps_its_value():
    task = Task.from_source("def banner():\n    pass\n", "banner")
    code = extract_function(_BANNER_REPLY, task)
    namespace: dict = {}
    exec(code, namespace)  # noqa: S102 - our own literal
    assert namespace["banner"]() == "Hello\nWorld"


def test_method_code_keeps_its_string_values_in_the_class():
    source = 'class Page:\n    def banner(self):\n        """Two lines."""\n        pass\n'
    task = Task.from_source(source, "Page.banner")
    code = 'def banner(self):\n    """Two lines."""\n    return """\\\nHello\nWorld"""\n'
    namespace: dict = {}
    exec(task.program_with(code).text, namespace)  # noqa: S102 - our own literal
    assert namespace["Page"]().banner() == "Hello\nWorld"


_METHOD_WITH_COLUMN_0_STRING = (
    "class Report:\n"
    "    def header(self):\n"
    '        """The header line."""\n'
    '        return """\\\n'
    'TITLE"""\n'
    "\n"
    "    def footer(self):\n"
    "        return 'end'\n"
)


def test_method_with_a_column_0_string_line_can_be_generated():
    task = Task.from_source(_METHOD_WITH_COLUMN_0_STRING, "Report.header")
    try:
        code = extract_function("```python\ndef header(self):\n    return 'TITLE'\n```", task)
    except CodeExtractionError:
        pytest.fail("a correct reply was refused")
    assert _parses(code)


def test_program_of_a_method_with_a_column_0_string_line_imports():
    task = Task.from_source(_METHOD_WITH_COLUMN_0_STRING, "Report.header")
    program = task.program_with(task.stub).text
    namespace: dict = {}
    exec(program, namespace)  # noqa: S102 - our own literal
    assert namespace["Report"]().header() == "TITLE"


# --- line breaks that are not line breaks ----------------------------------------------------


def test_doctest_lines_after_a_form_feed():
    source = (
        "import os\n\x0c\n\n"
        "def double(x):\n"
        '    """Double x.\n\n'
        "    >>> double(1)\n    2\n"
        '    """\n'
        "    return 2 * x\n"
    )
    task = task_for(source, "double")
    lines = source.split("\n")
    (case,) = task.public_tests
    assert lines[case.line].strip() == ">>> double(1)"


# --- replies that change the signature or add module-level statements -----------------------


def test_reply_with_renamed_parameters_still_works():
    task = Task.from_source(
        'def area(width, height):\n    """Area of a rectangle."""\n', "area"
    )
    code = extract_function("```python\ndef area(w, h):\n    return w * h\n```", task)
    namespace: dict = {}
    exec(code, namespace)  # noqa: S102 - our own literal
    assert namespace["area"](2, 3) == 6


def test_reply_with_a_future_import_compiles():
    task = Task.from_source(
        'def area(width, height):\n    """Area of a rectangle."""\n', "area"
    )
    reply = (
        "```python\nfrom __future__ import annotations\n\n"
        "def area(width: int, height: int) -> int:\n    return width * height\n```"
    )
    code = extract_function(reply, task)
    compile(code, "area.py", "exec")


def test_generate_for_a_black_formatted_stub_with_a_long_signature():
    source = (
        "def clamp(\n"
        "    value: float,\n"
        "    low: float,\n"
        "    high: float,\n"
        ") -> float: ...\n"
    )
    task = Task.from_source(source, "clamp")
    reply = "```python\ndef clamp(value, low, high):\n    return max(low, min(high, value))\n```"
    code = extract_function(reply, task)
    namespace: dict = {}
    exec(code, namespace)  # noqa: S102 - our own literal
    assert namespace["clamp"](5, 0, 1) == 1


def test_generate_keeps_the_docstring_of_a_one_line_stub():
    task = Task.from_source('def double(x): "Return x doubled."\n', "double")
    code = extract_function("```python\ndef double(x):\n    return 2 * x\n```", task)
    assert ast.get_docstring(ast.parse(code).body[0]) == "Return x doubled."


def test_property_setter_takes_the_setters_body_from_a_whole_class_reply():
    from codeteam.pysource.functions import find_functions

    source = (
        "class Box:\n"
        "    @property\n"
        "    def size(self):\n"
        '        """The size."""\n'
        "        return self._size\n\n"
        "    @size.setter\n"
        "    def size(self, value):\n"
        '        """Set the size; negative values become 0."""\n'
    )
    setter = [f for f in find_functions(source) if f.qualname == "Box.size"][1]
    task = task_for(source, info=setter)
    reply = (
        "```python\nclass Box:\n    @property\n    def size(self):\n        return self._size\n\n"
        "    @size.setter\n    def size(self, value):\n        self._size = max(0, value)\n```"
    )
    assert "self._size = max(0, value)" in extract_function(reply, task)


def test_unfenced_degenerate_reply_costs_a_linear_number_of_parses(monkeypatch):
    from codeteam.roles import code_extraction

    calls = 0
    real = code_extraction._parses

    def counting(text):
        nonlocal calls
        calls += 1
        return real(text)

    monkeypatch.setattr(code_extraction, "_parses", counting)
    lines = [f"import x{i} as" if i % 10 == 0 else f"    y = ({i}" for i in range(400)]
    code_extraction.code_blocks("\n".join(lines))
    assert calls <= 4 * len(lines), calls
