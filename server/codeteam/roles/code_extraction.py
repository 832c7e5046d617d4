"""Turning a model's reply into the user's function, with the user's header and docstring.

Models answer with fenced blocks, bare code, prose around code, several blocks, a whole
module, or only a function body. :func:`extract_function` copes with each and returns one
function at column 0 that keeps the user's decorators, signature and docstring exactly as
written (from :attr:`Task.stub`) and takes its *body* from the reply. Imports and helper
definitions the reply puts at module level are moved inside the function, so that an edit
never touches text outside the function.
"""

from __future__ import annotations

import ast
import re
import textwrap

from codeteam.task import Task

FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)


class CodeExtractionError(ValueError):
    """No usable code for the function was found in the reply."""


def code_blocks(reply: str) -> list[str]:
    """The code candidates in ``reply``: fenced blocks (python-tagged or untagged) in order;
    when there is no fence, the reply itself and the longest parseable run of lines in it."""
    blocks = [
        body
        for lang, body in FENCE.findall(reply)
        if lang.lower() in ("", "python", "py", "python3")
    ]
    if blocks:
        return blocks
    candidates = [reply]
    window = _parseable_window(reply)
    if window and window != reply:
        candidates.append(window)
    return candidates


def _parses(text: str) -> ast.Module | None:
    try:
        return ast.parse(textwrap.dedent(text))
    except (SyntaxError, ValueError):
        return None


def _parseable_window(reply: str) -> str | None:
    """The longest run of lines that parses and holds a ``def`` or a ``return``: strips prose
    before and after unfenced code."""
    lines = reply.splitlines()
    starts = [i for i, line in enumerate(lines) if re.match(r"\s*(def |async def |import |from |@)", line)]
    best: str | None = None
    for start in starts[:20]:
        for end in range(len(lines), start, -1):
            chunk = "\n".join(lines[start:end])
            if _parses(chunk) is not None:
                if best is None or len(chunk) > len(best):
                    best = chunk
                break
    return best


def _find_def(tree: ast.AST, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return node
    return None


def _segment(lines: list[str], node: ast.stmt) -> str:
    start = min([d.lineno for d in getattr(node, "decorator_list", [])] + [node.lineno]) - 1
    end = node.end_lineno or node.lineno
    return textwrap.dedent("\n".join(lines[start:end]))


def _body_statements(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
) -> list[ast.stmt]:
    body = list(function.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(
        getattr(body[0], "value", None), ast.Constant
    ) and isinstance(body[0].value.value, str):
        body = body[1:]
    return body


def _is_placeholder(body: list[ast.stmt]) -> bool:
    """True for bodies that do nothing: ``pass``, ``...``, ``raise NotImplementedError``."""
    if not body:
        return True
    if len(body) != 1:
        return False
    node = body[0]
    if isinstance(node, ast.Pass):
        return True
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and node.value.value is Ellipsis:
        return True
    return isinstance(node, ast.Raise) and "NotImplementedError" in ast.unparse(node)


def _stub_parts(task: Task) -> tuple[str, str, str]:
    """(header, docstring, body indent) of the user's stub as written."""
    lines = task.stub.split("\n")
    tree = ast.parse(task.stub)
    function = _find_def(tree, task.name)
    if function is None:
        raise CodeExtractionError(f"the stub does not define {task.name}")
    first_body = function.body[0]
    if first_body.lineno == function.lineno:
        # `def f(x): ...` on one line: rebuild the header from the signature.
        indent = " " * (function.col_offset + 4)
        head = "\n".join(lines[: function.lineno - 1])
        signature = task.signature + ":"
        header = (head + "\n" if head else "") + " " * function.col_offset + signature
        return header, "", indent
    header = "\n".join(lines[: first_body.lineno - 1])
    indent = " " * first_body.col_offset
    docstring = ""
    if isinstance(first_body, ast.Expr) and isinstance(first_body.value, ast.Constant) and isinstance(
        first_body.value.value, str
    ):
        docstring = "\n".join(lines[first_body.lineno - 1 : first_body.end_lineno])
    return header, docstring, indent


def extract_function(reply: str, task: Task) -> str:
    """The function ``task.name`` built from ``reply``: the stub's header and docstring, the
    reply's body. Raises :class:`CodeExtractionError` when no block holds a usable body."""
    problems: list[str] = []
    for block in code_blocks(reply):
        block = textwrap.dedent(block).strip("\n")
        tree = _parses(block)
        if tree is None:
            problems.append("a code block does not parse")
            continue
        lines = block.split("\n")
        function = _find_def(tree, task.name)
        extras: list[str] = []
        if function is not None:
            body = _body_statements(function)
            if _is_placeholder(body):
                problems.append(f"the reply's {task.name} has no body")
                continue
            if body[0].lineno == function.lineno:  # `def f(x): return x`
                body_text = "\n".join(ast.unparse(node) for node in body)
            else:
                start = body[0].lineno - 1
                # Keep comment lines just above the first statement (after any docstring).
                floor = function.body[0].end_lineno if body[0] is not function.body[0] else (
                    function.lineno)
                while start - 1 >= (floor or 0) and lines[start - 1].strip().startswith("#"):
                    start -= 1
                body_text = textwrap.dedent("\n".join(lines[start : function.end_lineno]))
            # Module-level imports and helpers around the function travel inside it.
            for node in tree.body:
                if node is function or _contains(node, function):
                    continue
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    if not _already_imported(node, task):
                        extras.append(_segment(lines, node))
                elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    if not _defined_in_module(node.name, task):
                        extras.append(_segment(lines, node))
                elif isinstance(node, ast.Assign) and all(
                    isinstance(t, ast.Name) and t.id.isupper() for t in node.targets
                ):
                    extras.append(_segment(lines, node))
        else:
            if any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) for n in tree.body):
                problems.append(f"a code block defines other functions but not {task.name}")
                continue
            if not any(isinstance(n, ast.Return) for n in ast.walk(tree)):
                problems.append(f"a code block has neither {task.name} nor a return")
                continue
            # A bare body ("return sorted(xs)").
            body_text = block
        return _assemble(task, extras, body_text)
    detail = "; ".join(dict.fromkeys(problems)) or "the reply holds no code"
    raise CodeExtractionError(f"no usable code for {task.name}: {detail}")


def _contains(outer: ast.AST, inner: ast.AST) -> bool:
    return any(node is inner for node in ast.walk(outer))


def _already_imported(node: ast.Import | ast.ImportFrom, task: Task) -> bool:
    text = ast.unparse(node)
    return any(ast.unparse(n) == text for n in ast.parse(task.module_source).body
               if isinstance(n, (ast.Import, ast.ImportFrom)))


def _defined_in_module(name: str, task: Task) -> bool:
    for node in ast.parse(task.module_source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return True
    return False


def _assemble(task: Task, extras: list[str], body_text: str) -> str:
    header, docstring, indent = _stub_parts(task)
    parts = [header]
    if docstring:
        parts.append(docstring)
    for extra in extras:
        parts.append(textwrap.indent(extra, indent))
    parts.append(textwrap.indent(body_text.rstrip(), indent, lambda line: True))
    text = "\n".join(parts)
    # Blank lines inside the body stay blank (no trailing spaces).
    text = "\n".join(line if line.strip() else "" for line in text.split("\n"))
    if _parses(text) is None:
        raise CodeExtractionError(f"the code for {task.name} does not parse once assembled")
    return text + "\n"


def with_docstring_plan(task: Task, steps: list[str]) -> str:
    """The stub with ``steps`` written as its docstring's plan (see
    :func:`codeteam.pysource.docstrings.write_plan`)."""
    from codeteam.pysource.docstrings import write_plan

    return write_plan(task.stub, steps)
