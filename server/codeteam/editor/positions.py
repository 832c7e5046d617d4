"""Positions between the editor and Python text.

An LSP position is a 0-based line and a 0-based column counted in code units of the position
encoding negotiated at ``initialize`` (``general.positionEncodings``): UTF-16 code units unless
the client offers otherwise (an emoji such as U+1F600 is 2 UTF-16 units, 4 UTF-8 units and
1 UTF-32 unit). Python ``str`` columns are code points (= UTF-32 units).

Lines end at ``\\n``, ``\\r\\n`` or ``\\r`` only (LSP "Text Documents"; Python's tokenizer
agrees): ``str.splitlines`` also splits at form feeds, ``\\x1c``-``\\x1e``, ``\\x85``,
``\\u2028`` and ``\\u2029``, which would shift every line after one of them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

UTF8 = "utf-8"
UTF16 = "utf-16"
UTF32 = "utf-32"
SUPPORTED_ENCODINGS = (UTF16, UTF8, UTF32)
"""Encodings the server can use, in its order of preference."""

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def split_lines(text: str) -> list[str]:
    """The lines of ``text`` with their endings kept, split only at ``\\n``, ``\\r\\n`` and
    ``\\r``. An empty text has no lines; a final line without an ending is kept."""
    return _LINE.findall(text)


def strip_ending(line: str) -> str:
    """``line`` without its line ending."""
    return line.rstrip("\r\n")


def choose_encoding(offered: Sequence[str] | None) -> str:
    """The position encoding to use given the client's ``general.positionEncodings``:
    UTF-16 when offered (or when nothing is offered: the LSP default), else the client's first
    supported choice among UTF-8 and UTF-32, else UTF-16 (which every client must support)."""
    if not offered:
        return UTF16
    names = [str(getattr(item, "value", item)) for item in offered]
    if UTF16 in names:
        return UTF16
    for name in names:
        if name in SUPPORTED_ENCODINGS:
            return name
    return UTF16


def first_code_column(line: str) -> int:
    """Code point column of the first non-blank character of ``line`` (0 when blank)."""
    text = strip_ending(line)
    stripped = text.lstrip()
    return len(text) - len(stripped) if stripped else 0
