"""The plan inside a docstring: reading it and writing it.

"Plan this docstring" writes a numbered plan (self-planning, Jiang et al., arXiv 2303.06689,
section 3: the plan is a list of numbered, concise steps) as a ``Plan:`` section at the end of
the function's docstring::

    def running_max(xs):
        \"\"\"Return the running maximum of xs.

        Plan:
        1. Start with an empty result and no current maximum.
        2. For each x, update the maximum and append it.
        3. Return the result.
        \"\"\"

A plan already there (perhaps edited by the user) is what the coder follows. Functions here
work on a function's text at column 0 (see :func:`codeteam.pysource.functions.dedent_function`).
"""

from __future__ import annotations

import ast
import re

from codeteam.pysource.functions import (
    char_column,
    header_colon,
    indent_unit,
    leading_whitespace,
)
from codeteam.pysource.syntax import parse_tree

PLAN_HEADING = "Plan:"
_STEP = re.compile(r"^\s*(\d+)[.)]\s+(.*)$")


def read_plan(docstring: str | None) -> list[str] | None:
    """The numbered steps under a ``Plan:`` line in ``docstring`` (a cleaned docstring, as from
    :func:`ast.get_docstring`), without their numbers; a step's indented continuation lines are
    joined to it. None when there is no plan section or it holds no numbered step."""
    if not docstring:
        return None
    lines = docstring.splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == PLAN_HEADING)
    except StopIteration:
        return None
    steps: list[str] = []
    for line in lines[start + 1 :]:
        match = _STEP.match(line)
        if match:
            steps.append(match.group(2).strip())
        elif line.strip() and steps and line[:1].isspace():
            steps[-1] = f"{steps[-1]} {line.strip()}"
        elif not line.strip() and steps or line.strip():
            break
    return steps or None


def strip_plan(docstring: str) -> str:
    """``docstring`` (cleaned) without its ``Plan:`` section: what the user wrote as intent."""
    lines = docstring.splitlines()
    out: list[str] = []
    skipping = False
    for line in lines:
        if line.strip() == PLAN_HEADING:
            skipping = True
            continue
        if skipping:
            if _STEP.match(line) or (line.strip() and line[:1].isspace()):
                continue
            if not line.strip():
                continue
            skipping = False
        out.append(line)
    return "\n".join(out).rstrip()


def docstring_node(function: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.Expr | None:
    """The docstring statement of ``function`` (its first statement when that is a string
    literal), or None."""
    first = function.body[0] if function.body else None
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        return first
    return None


def _safe_step(step: str, quote: str, raw: bool) -> str:
    """``step`` on one line, safe inside a docstring delimited by ``quote`` (a triple quote):
    backslashes doubled unless the docstring is raw, and the delimiter replaced by the other
    triple quote (a step cannot end the docstring early)."""
    step = " ".join(step.split())
    if not raw:
        step = step.replace("\\", "\\\\")
    return step.replace(quote, "'''" if quote == '"""' else '"""')


def _triple_quote_for(inner: str) -> str:
    """The triple quote that can hold ``inner`` (the text of a one-quote docstring, which the
    plan always follows on a new line) unchanged: ``\"\"\"`` unless ``inner`` holds it, else
    ``'''``. Raises :class:`SyntaxError` when neither can (not possible for a valid one-quote
    literal, but checked)."""
    for quote in ('"""', "'''"):
        if quote not in inner:
            return quote
    raise SyntaxError("the docstring holds both kinds of triple quotes; cannot add a plan")


def write_plan(function_text: str, steps: list[str], unit: str | None = None) -> str:
    """``function_text`` (one function at column 0, decorators allowed) with ``steps`` written
    as the ``Plan:`` section of its docstring, replacing any plan already there. Everything
    else in the docstring and the function is kept as written. A function without a docstring
    gets one holding the plan, indented like the function's body (tabs stay tabs).

    A body on the header's last line (``def f(x): return x``, also after a multi-line
    signature) is moved to its own line below the new docstring, indented by ``unit`` (one
    level of indentation; by default the text's own, else four spaces). A one-quote docstring
    becomes a triple-quoted one (``\"\"\"``, or ``'''`` when its text holds ``\"\"\"``);
    the steps never hold the docstring's delimiter.

    The result always parses. Raises :class:`SyntaxError` when the text is not one function or
    the plan cannot be written without breaking it, :class:`ValueError` without steps.
    """
    if not steps:
        raise ValueError("a plan needs at least one step")
    text = function_text.replace("\r\n", "\n").replace("\r", "\n")
    tree = parse_tree(text)
    function = next(
        (n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))), None
    )
    if function is None:
        raise SyntaxError("the text holds no function")
    lines = text.split("\n")
    colon_line, colon_col = header_colon(text, function)
    first = function.body[0]
    body_on_header = first.lineno - 1 == colon_line
    if body_on_header:
        body_indent = leading_whitespace(lines[function.lineno - 1]) + (unit or indent_unit(text))
    else:
        body_indent = leading_whitespace(lines[first.lineno - 1])
    node = docstring_node(function)
    if node is None:
        quote = '"""'
        numbered = [f"{body_indent}{i}. {_safe_step(s, quote, False)}"
                    for i, s in enumerate(steps, 1)]
        doc = [f"{body_indent}{quote}{PLAN_HEADING}", *numbered, f"{body_indent}{quote}"]
        if body_on_header:
            header_end = lines[colon_line][: colon_col + 1]
            rest = lines[colon_line][colon_col + 1 :].strip()
            new = lines[:colon_line] + [header_end, *doc, body_indent + rest]
            result = "\n".join(new + lines[colon_line + 1 :])
        else:
            insert_at = first.lineno - 1
            result = "\n".join(lines[:insert_at] + doc + lines[insert_at:])
        return _checked(result)

    first_line, last_line = node.lineno - 1, (node.end_lineno or node.lineno) - 1
    start_col = char_column(lines[first_line], node.col_offset)
    end_col = (char_column(lines[last_line], node.end_col_offset)
               if node.end_col_offset is not None else len(lines[last_line]))
    head_before = lines[first_line][:start_col]
    tail_after = lines[last_line][end_col:]
    if first_line == last_line:
        literal = lines[first_line][start_col:end_col]
    else:
        literal = "\n".join(
            [lines[first_line][start_col:], *lines[first_line + 1 : last_line],
             lines[last_line][:end_col]]
        )
    match = re.match(r"^([rRuU]{0,2})(\"\"\"|'''|\"|')", literal)
    if not match:
        raise SyntaxError("unrecognised docstring literal")
    prefix, quote = match.group(1), match.group(2)
    raw = "r" in prefix.lower()
    inner = literal[len(prefix) + len(quote) : len(literal) - len(quote)]
    if len(quote) == 1:
        quote = _triple_quote_for(inner)
    inner_lines = inner.split("\n")
    # The docstring's own indentation (its continuation lines), else the body's.
    continuation = [leading_whitespace(line) for line in inner_lines[1:] if line.strip()]
    if len(inner_lines) > 1 and not inner_lines[-1].strip():
        continuation.append(inner_lines[-1])
    doc_indent = min(continuation, key=len) if continuation else body_indent
    # Drop an existing plan section (as written, keeping the user's other lines).
    kept: list[str] = []
    skipping = False
    for line in inner_lines:
        if line.strip() == PLAN_HEADING:
            skipping = True
            continue
        if skipping and (_STEP.match(line) or not line.strip()
                         or (line[:1].isspace() and len(line) - len(line.lstrip())
                             > len(doc_indent))):
            continue
        skipping = False
        kept.append(line)
    while kept and not kept[-1].strip() and len(kept) > 1:
        kept.pop()
    intent = "\n".join(kept).rstrip()
    numbered = [f"{doc_indent}{i}. {_safe_step(s, quote, raw)}" for i, s in enumerate(steps, 1)]
    new_inner = "\n".join(
        [intent, "", f"{doc_indent}{PLAN_HEADING}", *numbered, doc_indent]
    ) if intent.strip() else "\n".join([PLAN_HEADING, *numbered, doc_indent])
    new_literal = f"{prefix}{quote}{new_inner}{quote}"
    new_lines = (head_before + new_literal + tail_after).split("\n")
    return _checked("\n".join(lines[:first_line] + new_lines + lines[last_line + 1 :]))


def _checked(text: str) -> str:
    try:
        parse_tree(text)
    except SyntaxError as error:
        raise SyntaxError(f"the plan cannot be written into this docstring: {error.msg}") from None
    return text
