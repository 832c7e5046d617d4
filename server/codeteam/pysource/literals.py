"""The string values a piece of Python code spells, however it spells them:
:func:`string_values` (escapes decoded, f-strings' literal parts, bytes) and
:func:`spellings` (those values joined, reversed and decoded from base64, base32 and hex),
for a rule that must find a value in code whatever form the code gives it (the API key that
the write policy never writes: :mod:`codeteam.service.write_policy`).

Tokens come from the stdlib ``tokenize`` and each string token is read by ``ast``, so code
that does not parse as a whole still gives the literals before the point where it breaks.
"""

from __future__ import annotations

import ast
import base64
import binascii
import io
import re
import tokenize

from codeteam.pysource.syntax import parse_tree

_ENCODED = re.compile(r"[A-Za-z0-9+/=_\-\s]{8,}")
"""A text that may be base64, base32 or hex (checked by decoding it)."""


def string_values(code: str) -> list[str]:
    """The values of the str and bytes literals of ``code`` in source order (bytes as
    latin-1; an f-string gives its literal parts, joined). Stops at the first token that
    cannot be read (the literals before it are returned)."""
    values: list[str] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            if token.type == tokenize.STRING:
                values.extend(_token_values(token.string))
    except (tokenize.TokenError, SyntaxError):  # IndentationError too
        pass
    return values


def _token_values(token: str) -> list[str]:
    try:
        tree = parse_tree(token.strip(), mode="eval")
    except (SyntaxError, ValueError):
        return []
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            out.append(node.value)
        elif isinstance(node, ast.Constant) and isinstance(node.value, bytes):
            out.append(node.value.decode("latin-1"))
    return ["".join(out)] if isinstance(tree.body, ast.JoinedStr) else out


def _decoded(text: str) -> list[str]:
    """``text`` read as base64 (standard or URL-safe, padding optional), base32 or hex, when
    it is one of them (as latin-1 text)."""
    compact = re.sub(r"\s+", "", text)
    if len(compact) < 8 or not _ENCODED.fullmatch(text):
        return []
    out: list[bytes] = []
    padded = compact.rstrip("=") + "=" * (-len(compact.rstrip("=")) % 4)
    for decode in (base64.b64decode, base64.urlsafe_b64decode):
        try:
            out.append(decode(padded))
        except (binascii.Error, ValueError):
            pass
    try:
        bare = compact.rstrip("=")
        out.append(base64.b32decode(bare.upper() + "=" * (-len(bare) % 8)))
    except (binascii.Error, ValueError):
        pass
    try:
        out.append(bytes.fromhex(compact))
    except ValueError:
        pass
    return [raw.decode("latin-1") for raw in out]


def spellings(code: str) -> list[str]:
    """Texts in which a value that ``code`` spells appears as itself: ``code``; its string
    values joined in order (so a value split over literals, lines, variables or ``+`` is
    whole there), and reversed; each value and the join decoded from base64, base32 or hex."""
    values = string_values(code)
    joined = "".join(values)
    texts = [code, joined, joined[::-1]]
    for value in [*values, joined]:
        texts.extend(_decoded(value))
    return texts
