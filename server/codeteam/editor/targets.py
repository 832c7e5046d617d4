"""The argument of codeteam's commands and the function it designates.

``codeteam.plan``, ``codeteam.generate``, ``codeteam.review`` and ``codeteam.fix`` take ONE
argument object::

    {"uri": "file:///.../m.py",                      # required
     "position": {"line": 12, "character": 4},       # optional: 0-based line, and character
                                                     #   in the negotiated position encoding
     "qualname": "Outer.method",                     # optional
     "signature": "def method(self, x: int) -> int"} # optional

Code actions send all four; the VS Code client sends ``uri`` and ``position`` only. The
function is found by ``qualname`` (and ``signature`` when given; a qualname defined twice is
told apart by the position), else as the innermost function around ``position``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from codeteam.pysource.functions import FunctionInfo, SourceError, find_functions
from codeteam.pysource.tolerant import ParseableModule, locate_tolerant, parseable_module

CONTRACT = (
    'one argument object {"uri": str, "position": {"line": int, "character": int}?, '
    '"qualname": str?, "signature": str?}'
)


class CommandArgumentError(ValueError):
    """The command's arguments do not follow the contract; the message says how."""


class TargetError(LookupError):
    """The designated function cannot be found (or the file does not parse)."""


@dataclass(frozen=True)
class CommandTarget:
    """A parsed command argument. ``line``/``character`` are 0-based, ``character`` in the
    negotiated position encoding's code units; None when no position was sent."""

    uri: str
    line: int | None = None
    character: int | None = None
    qualname: str | None = None
    signature: str | None = None

    def as_argument(self) -> dict[str, Any]:
        """The argument object for a Command (the inverse of :func:`parse_target`)."""
        argument: dict[str, Any] = {"uri": self.uri}
        if self.qualname is not None:
            argument["qualname"] = self.qualname
        if self.signature is not None:
            argument["signature"] = self.signature
        if self.line is not None:
            argument["position"] = {"line": self.line, "character": self.character or 0}
        return argument


def parse_target(arguments: Sequence[Any] | None) -> CommandTarget:
    """The target from a command's ``arguments`` (the list sent in ``workspace/executeCommand``).

    Raises :class:`CommandArgumentError` with a message naming the contract.
    """
    if not arguments or len(arguments) != 1 or not isinstance(arguments[0], dict):
        raise CommandArgumentError(f"expected {CONTRACT}; got {_shown(arguments)}")
    raw = arguments[0]
    uri = raw.get("uri")
    if not isinstance(uri, str) or not uri:
        raise CommandArgumentError(f'"uri" must be a non-empty string ({CONTRACT})')
    line = character = None
    position = raw.get("position")
    if position is not None:
        if not isinstance(position, dict):
            raise CommandArgumentError('"position" must be {"line": int, "character": int}')
        line, character = position.get("line"), position.get("character", 0)
        if not _natural(line) or not _natural(character):
            raise CommandArgumentError(
                '"position" needs a 0-based "line" and "character" (integers >= 0)'
            )
    qualname, signature = raw.get("qualname"), raw.get("signature")
    for key, value in (("qualname", qualname), ("signature", signature)):
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise CommandArgumentError(f'"{key}" must be a non-empty string when given')
    if qualname is None and line is None:
        raise CommandArgumentError('give "position" or "qualname" to say which function')
    return CommandTarget(uri, line, character, qualname, signature)


def resolve_function(
    text: str, target: CommandTarget, readable: ParseableModule | None = None
) -> FunctionInfo:
    """The function ``target`` designates in ``text``: parsed in full, or, when another part
    of the module does not parse (a function being typed), in the rest of it
    (:func:`~codeteam.pysource.tolerant.parseable_module`; lines keep their numbers).
    ``readable`` is ``parseable_module(text)`` when the caller already has it.

    Raises :class:`TargetError` with a message for the user.
    """
    try:
        if readable is None:
            readable = parseable_module(text)
        functions = find_functions(readable.text)
    except SourceError as error:
        raise TargetError(str(error)) from error
    if target.line is not None:
        for first, last in readable.left_out:
            if first <= target.line <= last:
                raise TargetError(
                    f"line {target.line + 1} is in code that does not parse "
                    f"(lines {first + 1}-{last + 1}); finish or fix it first")
    try:
        found = _designated(functions, target)
    except TargetError:
        if readable.left_out and target.qualname is not None:
            _refuse_if_left_out(text, target, readable)
        raise
    if readable.left_out:
        # The result will be applied by the tolerant lookup: refuse now what it would refuse
        # then (a def of the same name in code that does not parse may be a second one).
        try:
            locate_tolerant(text, found.qualname, found.signature)
        except (LookupError, SourceError) as error:
            raise TargetError(f"{error}; finish or fix that code first") from error
    return found


def _refuse_if_left_out(text: str, target: CommandTarget, readable: ParseableModule) -> None:
    """Raise :class:`TargetError` saying so when the named target is there, inside code left
    out because it does not parse (a method whose class holds a half-typed sibling)."""
    block = readable.block_holding(text, target.qualname or "", target.signature)
    if block is not None:
        first, last = block
        raise TargetError(
            f"{target.qualname} is in code that does not parse "
            f"(lines {first + 1}-{last + 1}); finish or fix it first")


def _designated(functions: list[FunctionInfo], target: CommandTarget) -> FunctionInfo:
    """The function of ``functions`` that ``target`` designates; raises :class:`TargetError`."""
    around = _innermost(functions, target.line) if target.line is not None else None
    if target.qualname is not None:
        named = [f for f in functions if f.qualname == target.qualname]
        same = [f for f in named if target.signature is None or f.signature == target.signature]
        if len(same) == 1:
            return same[0]
        if len(same) > 1:
            if around is not None and around in same:
                return around
            lines = ", ".join(str(f.def_line + 1) for f in same)
            raise TargetError(f"{target.qualname} is defined more than once (lines {lines})")
        if around is None:
            if named:
                raise TargetError(
                    f"{target.qualname} is there but its signature changed "
                    f"(now `{named[0].signature}`, was `{target.signature}`)"
                )
            raise TargetError(f"no function named {target.qualname} in the document")
        return around
    if around is None:
        raise TargetError(f"no function at line {(target.line or 0) + 1}")
    return around


def _innermost(functions: list[FunctionInfo], line: int | None) -> FunctionInfo | None:
    if line is None:
        return None
    best: FunctionInfo | None = None
    for function in functions:
        if function.contains_line(line) and (best is None or function.start_line >= best.start_line):
            best = function
    return best


def _natural(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _shown(arguments: Any) -> str:
    text = repr(arguments)
    return text if len(text) <= 120 else text[:117] + "..."
