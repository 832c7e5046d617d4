"""The argument of codeteam's commands and the function it designates.

``codeteam.plan``, ``codeteam.generate``, ``codeteam.review`` and ``codeteam.fix`` take ONE
argument object::

    {"uri": "file:///.../m.py",                      # required
     "position": {"line": 12, "character": 4},       # optional: 0-based line, and character
                                                     #   in the negotiated position encoding
     "qualname": "Outer.method",                     # optional
     "signature": "def method(self, x: int) -> int"} # optional

Code actions send all four; the VS Code client sends ``uri`` and ``position`` only. The
function is the service's to find (:func:`codeteam.service.locate.locate_target`: by
``qualname`` and ``signature``, told apart by the position's line; else the innermost
function around that line); the character is not needed for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

CONTRACT = (
    'one argument object {"uri": str, "position": {"line": int, "character": int}?, '
    '"qualname": str?, "signature": str?}'
)


class CommandArgumentError(ValueError):
    """The command's arguments do not follow the contract; the message says how."""


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


def _natural(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _shown(arguments: Any) -> str:
    text = repr(arguments)
    return text if len(text) <= 120 else text[:117] + "..."
