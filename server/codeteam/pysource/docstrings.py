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


def _docstring_node(function: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.Expr | None:
    first = function.body[0] if function.body else None
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        return first
    return None


def _safe_step(step: str, raw: bool) -> str:
    step = " ".join(step.split())
    step = step.replace('"""', "'''")
    if not raw:
        step = step.replace("\\", "\\\\")
    return step


def write_plan(function_text: str, steps: list[str]) -> str:
    """``function_text`` (one function at column 0, decorators allowed) with ``steps`` written
    as the ``Plan:`` section of its docstring, replacing any plan already there. Everything
    else in the docstring and the function is kept as written. A function without a docstring
    gets one holding the plan. Raises :class:`SyntaxError` when the text is not one function.
    """
    if not steps:
        raise ValueError("a plan needs at least one step")
    text = function_text.replace("\r\n", "\n").replace("\r", "\n")
    tree = ast.parse(text)
    function = next(
        n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    )
    lines = text.split("\n")
    body_indent = " " * function.body[0].col_offset
    if function.body[0].lineno == function.lineno:  # `def f(): return 1` on one line
        body_indent = " " * (function.col_offset + 4)
    node = _docstring_node(function)
    if node is None:
        numbered = [f"{body_indent}{i}. {_safe_step(s, False)}" for i, s in enumerate(steps, 1)]
        doc = [f'{body_indent}"""{PLAN_HEADING}', *numbered, f'{body_indent}"""']
        insert_at = function.body[0].lineno - 1
        if function.body[0].lineno == function.lineno:
            raise SyntaxError("a one-line function cannot take a plan; put its body on a new line")
        return "\n".join(lines[:insert_at] + doc + lines[insert_at:])

    first, last = node.lineno - 1, (node.end_lineno or node.lineno) - 1
    start_col, end_col = node.col_offset, node.end_col_offset or len(lines[last])
    literal = "\n".join(lines[first : last + 1])
    # The literal's own text: from start_col on the first line to end_col on the last line.
    tail_after = lines[last][end_col:]
    head_before = lines[first][:start_col]
    literal = literal[start_col : len(literal) - len(lines[last]) + end_col]
    match = re.match(r"^([rRuU]{0,2})(\"\"\"|'''|\"|')", literal)
    if not match:
        raise SyntaxError("unrecognised docstring literal")
    prefix, quote = match.group(1), match.group(2)
    raw = "r" in prefix.lower()
    inner = literal[len(prefix) + len(quote) : len(literal) - len(quote)]
    if len(quote) == 1:
        quote = '"""'
    # Drop an existing plan section (as written, keeping the user's other lines).
    inner_lines = inner.split("\n")
    kept: list[str] = []
    skipping = False
    for line in inner_lines:
        if line.strip() == PLAN_HEADING:
            skipping = True
            continue
        if skipping and (_STEP.match(line) or not line.strip()
                         or (line[:1].isspace() and len(line) - len(line.lstrip())
                             > len(body_indent))):
            continue
        skipping = False
        kept.append(line)
    while kept and not kept[-1].strip() and len(kept) > 1:
        kept.pop()
    intent = "\n".join(kept).rstrip()
    numbered = [f"{body_indent}{i}. {_safe_step(s, raw)}" for i, s in enumerate(steps, 1)]
    new_inner = "\n".join(
        [intent, "", f"{body_indent}{PLAN_HEADING}", *numbered, body_indent]
    ) if intent.strip() else "\n".join([PLAN_HEADING, *numbered, body_indent])
    new_literal = f"{prefix}{quote}{new_inner}{quote}"
    new_lines = (head_before + new_literal + tail_after).split("\n")
    return "\n".join(lines[:first] + new_lines + lines[last + 1 :])
