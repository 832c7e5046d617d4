"""A function's docstring examples as tests, without running anything of the user's.

:func:`doctest_cases`: the examples in the function's docstring (stdlib
:class:`doctest.DocTestParser`), one test per example. :func:`example_cases`: examples written
as prose lines instead (``f(1, 2) == 3``, ``f([1]) ➞ [1]``, ``f("a") returns "b"``), one
``assert`` test per line whose call and value are Python literals. As plain :class:`Example`
data: :mod:`codeteam.service.documents` makes them tests.

Nothing here imports or executes user code. Lines are 0-based document lines.
"""

from __future__ import annotations

import ast
import doctest
import inspect
import re
from dataclasses import dataclass

from codeteam.pysource.functions import split_lines
from codeteam.pysource.syntax import parse_tree


@dataclass(frozen=True)
class Example:
    """One docstring example as a test: ``kind`` "doctest" (``source``, ``expected`` the
    output doctest compares, ``setup`` the earlier examples in doctest format) or "assert"
    (a prose example as ``assert <call> == <value>``); ``id`` ``doctest:<n>`` or
    ``example:<n>``; ``call`` the source when it calls the function; ``line`` its 0-based
    document line, when known."""

    id: str
    kind: str
    source: str
    expected: str | None = None
    call: str | None = None
    setup: str = ""
    line: int | None = None


_PROMPT = re.compile(r"^[ ]*>>>")
_ARROW = re.compile(
    r"\s*(?:==>|=>|==|->|-->|\u279e|\u2192|\u21d2|is\b|returns?\b|should\s+return\b|"
    r"should\s+be\b|gives?\b|outputs?\b)\s*:?\s*",
    re.IGNORECASE,
)
_BULLET = re.compile(r"^\s*(?:[-*\u2022+]|\d+[.)])?\s*")
_WORD_LITERALS = {"true": "True", "false": "False", "none": "None", "null": "None"}
_OPENING_QUOTE = re.compile(r"[rRuU]*('{3}|\"{3}|'|\")")


# ----------------------------------------------------------------------------------------------
# Doctests


def doctest_cases(
    docstring: str,
    function_name: str,
    *,
    docstring_first_line: int | None = None,
    source: str | None = None,
) -> list[Example]:
    """One ``doctest`` :class:`Example` per example in ``docstring``, in order.

    The examples are read from the cleaned docstring (:func:`inspect.cleandoc`, as
    :func:`ast.get_docstring` gives it; ``docstring`` may be raw or cleaned), so that an
    example on the opening-quote line compares its output as written. Each case has
    ``source`` (the example's code, without prompts), ``expected`` (its wanted output,
    without the final newline; "" when it prints nothing), ``id`` ``"doctest:<n>"``
    (1-based), ``call`` (the source, when it calls ``function_name``) and ``setup`` (all the
    earlier examples of the docstring, in doctest format with their outputs, replayed before
    this one as doctest would run them, so that an example using ``xs`` from
    ``>>> xs = [1, 2]`` or the state left by ``>>> c.incr()`` runs on its own).

    ``line`` is the 0-based document line of the example's ``>>>`` when
    ``docstring_first_line`` (the 0-based line of the docstring's opening quotes) is given.
    It is exact when ``source`` (the document text) is given too: the ``>>>`` lines are then
    found in the document's string literal itself. Without ``source`` it is exact for the
    literal's raw value (``node.body[0].value.value``); for a cleaned docstring it is off by
    the number of blank lines right after the opening quotes, which cleaning dropped.

    An example marked ``# doctest: +SKIP`` is left out, as doctest leaves it out (it is not
    run, and later examples do not see its state); the others keep their numbers.

    Examples that doctest cannot parse (e.g. ``>>>`` without a following space) make the whole
    docstring yield no cases; nothing is raised.
    """
    prompt_lines: list[int] | None = None
    if source is not None and docstring_first_line is not None:
        prompt_lines = _prompt_lines(source, docstring_first_line)
    cleaned = inspect.cleandoc(docstring)
    examples = _examples(cleaned)
    if not examples:
        return []
    if prompt_lines is not None and len(prompt_lines) != len(examples):
        prompt_lines = None
    # cleandoc drops the blank lines after the opening quotes: count them back in
    blank = 0
    for text in docstring.split("\n"):
        if text.strip():
            break
        blank += 1
    cases: list[Example] = []
    setup: list[str] = []
    for number, example in enumerate(examples, start=1):
        if example.options.get(doctest.SKIP):
            continue  # `# doctest: +SKIP`: doctest neither runs it nor replays it
        code = example.source.rstrip("\n")
        line = None
        if prompt_lines is not None:
            line = prompt_lines[number - 1]
        elif docstring_first_line is not None:
            line = docstring_first_line + blank + example.lineno
        cases.append(
            Example(
                id=f"doctest:{number}",
                kind="doctest",
                source=code,
                expected=example.want.removesuffix("\n"),
                call=code if _calls(code, function_name) else None,
                setup="".join(setup),
                line=line,
            )
        )
        # Every earlier example is replayed before the next one, with its expected output (its
        # own failure is reported only as context), as doctest runs a docstring: state built
        # by `>>> c.incr()` examples carries over.
        setup.append(_prompted(code) + example.want)
    return cases


def example_cases(
    docstring: str,
    function_name: str,
    *,
    docstring_first_line: int | None = None,
    source: str | None = None,
) -> list[Example]:
    """Docstring examples written as prose lines, for docstrings with no doctest example: one
    ``assert`` :class:`Example` per line of the form ``<call> <arrow> <value>``, where
    ``<call>`` calls ``function_name`` with Python literal arguments only (``f([1, 2], 3)``),
    the arrow is one of ``==``, ``=>``, ``==>``, ``->``, ``➞``, ``→``, ``returns``, ``should
    return``, ``should be``, ``gives``, ``is`` (a leading bullet ``-``/``*``/``1.`` is
    ignored), and ``<value>`` is a Python literal (``true``/``false``/``null`` are read as
    ``True``/``False``/``None``; a final ``.``/``,``/``;`` and a ``# comment`` are dropped).
    A line that does not read this way in full is not a test (``f(x) returns the sum``,
    ``f(5) -> 5 - 1 = 4``, a definition such as ``tri(1) = 3``): these are the user's own examples, so nothing is guessed.

    Each case has ``id`` ``"example:<n>"`` (1-based, in order), ``source``
    ``assert <call> == <value>``, ``call`` and ``expected`` (the value's source), and ``line``:
    the 0-based document line when ``docstring_first_line`` (the opening quotes' line) is given:
    exact when ``source`` (the document text) is given too (the line is found in the
    document), else exact for the literal's raw value and off by the blank lines cleaning
    dropped for a cleaned one, as in :func:`doctest_cases`. An empty list when the docstring has doctest
    examples (those are the tests then). Nothing is run; nothing is raised.
    """
    cleaned = inspect.cleandoc(docstring)
    if _examples(cleaned):
        return []
    blank = 0
    for text in docstring.split("\n"):
        if text.strip():
            break
        blank += 1
    document = [line.strip() for line in split_lines(source)] if source is not None else None
    cursor = docstring_first_line or 0
    cases: list[Example] = []
    seen: set[str] = set()
    for offset, raw in enumerate(cleaned.split("\n")):
        found = _example_line(raw, function_name)
        if found is None:
            continue
        call, value = found
        line = None if docstring_first_line is None else docstring_first_line + blank + offset
        if document is not None and docstring_first_line is not None:
            at = next((i for i in range(cursor, len(document))
                       if raw.strip() and raw.strip() in document[i]), None)
            if at is not None:
                line, cursor = at, at + 1
        source = f"assert {call} == {value}"
        if source in seen:
            continue
        seen.add(source)
        cases.append(Example(
            id=f"example:{len(cases) + 1}", kind="assert", source=source,
            call=call, expected=value, line=line,
        ))
    return cases


def _example_line(text: str, function_name: str) -> tuple[str, str] | None:
    """``(call, value)`` sources when ``text`` reads as one prose example (see
    :func:`example_cases`), else None."""
    body = _BULLET.sub("", text, count=1).rstrip()
    if not body.startswith(function_name + "("):
        return None
    # the call ends at the first ")" that closes a literal-argument call of the function
    for end in [i for i, ch in enumerate(body) if ch == ")"]:
        call = _literal_call(body[: end + 1], function_name)
        if call is None:
            continue
        rest = body[end + 1 :]
        arrow = _ARROW.match(rest)
        if not arrow or not arrow.group(0).strip():
            return None
        value = _literal_value(rest[arrow.end() :])
        return None if value is None else (call, value)
    return None


def _literal_call(text: str, function_name: str) -> str | None:
    try:
        node = parse_tree(text, mode="eval").body
    except (SyntaxError, ValueError):
        return None
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == function_name):
        return None
    try:
        for argument in [*node.args, *(k.value for k in node.keywords)]:
            if isinstance(argument, ast.Starred):
                return None
            ast.literal_eval(argument)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    if any(k.arg is None for k in node.keywords):
        return None
    return ast.unparse(node)


def _literal_value(text: str) -> str | None:
    text = text.split("#", 1)[0].strip() if "#" in text and not _quoted_hash(text) else text
    text = text.strip().rstrip(".,;").strip()
    if not text:
        return None
    text = _WORD_LITERALS.get(text.lower(), text)
    try:
        node = parse_tree(text, mode="eval").body
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return ast.unparse(node)


def _quoted_hash(text: str) -> bool:
    """Whether the first ``#`` of ``text`` sits inside a string literal (``"#a"``)."""
    first = text.index("#")
    return text[:first].count("'") % 2 == 1 or text[:first].count('"') % 2 == 1


def _examples(text: str) -> list[doctest.Example] | None:
    try:
        return doctest.DocTestParser().get_examples(text)
    except ValueError:
        return None


def _prompted(code: str) -> str:
    lines = code.split("\n")
    return ">>> " + lines[0] + "\n" + "".join(f"... {line}\n" for line in lines[1:])


def _calls(code: str, function_name: str) -> bool:
    try:
        tree = parse_tree(code)
    except SyntaxError:
        return function_name + "(" in code
    return any(
        isinstance(node, ast.Call) and _dotted(node.func).split(".")[-1] == function_name
        for node in ast.walk(tree)
    )


def _prompt_lines(source: str, first_line: int) -> list[int] | None:
    """The 0-based document lines that start with a ``>>>`` prompt inside the string literal
    that starts on 0-based ``first_line`` of ``source`` (None when there is no such literal)."""
    try:
        tree = parse_tree(source)
    except (SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
            and node.lineno - 1 == first_line
        ):
            lines = [line.rstrip("\r\n") for line in split_lines(source)]
            end = min((node.end_lineno or node.lineno) - 1, len(lines) - 1)
            first = lines[first_line][node.col_offset :]
            quote = _OPENING_QUOTE.match(first)
            first = first[quote.end() :] if quote else first
            prompts = []
            for number in range(first_line, end + 1):
                text = first if number == first_line else lines[number]
                if _PROMPT.match(text.expandtabs()):
                    prompts.append(number)
            return prompts
    return None


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else ""
    if isinstance(node, ast.Call):
        return _dotted(node.func)
    return ""
