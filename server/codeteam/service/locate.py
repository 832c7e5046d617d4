"""Which function a run is on: the one resolver the editor (a command's ``qualname``,
``signature`` and cursor line) and the CLI (``--function``) call, with its one error,
:class:`TargetError`. Pure and picklable (the editor runs it in its parse worker); it imports
no pipeline and no model client. Lines are 0-based.
"""

from __future__ import annotations

from codeteam.pysource.functions import (
    AmbiguousFunction,
    FunctionInfo,
    FunctionNotFound,
    SourceError,
    find_functions,
    locate,
    split_lines,
)
from codeteam.pysource.tolerant import ParseableModule, locate_tolerant, parseable_module


class ServiceError(Exception):
    """A run that could not be made; ``str(error)`` is the message for the user."""


class TargetError(ServiceError):
    """The function is not in the module (or not unambiguously), or the module does not parse.
    ``hint`` names the functions that are there, when there are any."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message + hint)
        self.hint = hint


def locate_target(
    text: str,
    qualname: str | None = None,
    *,
    signature: str | None = None,
    line: int | None = None,
    readable: ParseableModule | None = None,
) -> tuple[ParseableModule, FunctionInfo]:
    """The module as a run reads it (top-level blocks that do not parse blanked, line for line:
    :func:`~codeteam.pysource.tolerant.parseable_module`; ``readable`` when the caller already
    has it) and the function designated in it: ``qualname`` (``Class.method``; with
    ``signature`` when given; an overload's implementation, a property's getter, as
    :func:`~codeteam.pysource.functions.locate` finds them), told apart by ``line`` when it is
    defined more than once; else the innermost function around the 0-based ``line``. A
    ``qualname`` that is not there, given with a ``line``, falls back to the function around
    it.

    Raises :class:`TargetError` with a message for the user: nothing of the module parses;
    ``line`` or the function is inside code that does not parse (naming those lines and the
    first syntax error); the function is not there (``hint`` names those that are) or is
    ambiguous; another ``def`` of its name is in code that does not parse (the result could
    not be applied unambiguously)."""
    try:
        if readable is None:
            readable = parseable_module(text)
        functions = find_functions(readable.text)
    except SourceError as error:
        raise TargetError(str(error)) from error
    if qualname is None and line is None:
        raise TargetError("say which function: give its name or a line inside it")
    if line is not None:
        for first, last in readable.left_out:
            if first <= line <= last:
                raise TargetError(
                    f"line {line + 1} is in code that does not parse (lines {first + 1}-"
                    f"{last + 1}{_syntax_error_in(text, (first, last))}); finish or fix it first")
    around = _innermost(functions, line)
    if qualname is None:
        if around is None:
            raise TargetError(f"no function at line {(line or 0) + 1}")
        found = around
    else:
        found = _named(text, readable, functions, qualname, signature, around)
    if readable.left_out:
        # The result is applied by the tolerant lookup: refuse now what it would refuse then
        # (a def of the same name in code that does not parse may be a second one).
        try:
            locate_tolerant(text, found.qualname, found.signature)
        except (LookupError, SourceError) as error:
            raise TargetError(f"{error}; finish or fix that code first") from error
    return readable, found


def _named(
    text: str, readable: ParseableModule, functions: list[FunctionInfo], qualname: str,
    signature: str | None, around: FunctionInfo | None,
) -> FunctionInfo:
    """The function ``qualname`` (and ``signature``) of ``readable``; ``around`` (the function
    at the caller's line, or None) tells two of that name apart and stands in for a name that
    is not there. Raises :class:`TargetError`."""
    try:
        return locate(readable.text, qualname, signature)
    except AmbiguousFunction as error:
        if around is not None and around.qualname == qualname and (
            signature is None or around.signature == signature
        ):
            return around
        raise TargetError(str(error)) from error
    except FunctionNotFound as error:
        block = readable.block_holding(text, qualname, signature)
        if block is not None:
            raise TargetError(
                f"{qualname} is in code that does not parse (lines {block[0] + 1}-"
                f"{block[1] + 1}{_syntax_error_in(text, block)}); finish or fix it first"
            ) from error
        if around is not None:
            return around
        names = [f.qualname for f in functions]
        hint = (f" (functions here: {', '.join(names[:12])}; a method is Class.method)"
                if names else "")
        raise TargetError(str(error), hint) from error


def _innermost(functions: list[FunctionInfo], line: int | None) -> FunctionInfo | None:
    """The innermost of ``functions`` whose span holds 0-based ``line``, or None."""
    if line is None:
        return None
    best: FunctionInfo | None = None
    for function in functions:
        if function.contains_line(line) and (best is None or function.start_line >= best.start_line):
            best = function
    return best


def _syntax_error_in(text: str, block: tuple[int, int]) -> str:
    """``"; line N: message"`` for the first syntax error of the 0-based line span ``block``
    of ``text`` (1-based line, as editors and Python show it), or ""."""
    lines = split_lines(text)[block[0]: block[1] + 1]  # (not str.splitlines: a form feed
    try:  # above would shift the block off the lines the editor and ast number)
        compile("".join(lines) + "\n", "<block>", "exec", dont_inherit=True)
    except SyntaxError as error:
        if error.lineno is not None:
            return f"; line {block[0] + error.lineno}: {error.msg}"
        return f"; {error.msg}"
    except ValueError as error:  # a NUL byte
        return f"; {error}"
    return ""
