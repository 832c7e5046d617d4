"""Which function encloses a range: fast enough for every codeAction request.

Parsing a whole 5,000-line module with :mod:`ast` and reading its functions takes 50-150 ms;
a codeAction must answer in milliseconds, and the document changes between requests. So the
lookup parses only the *top-level block* around the range: the lines from the nearest
statement at column 0 at or above the range to the next one below it (decorators kept with
their ``def``/``class``). Its functions are cached by the block's text, so an edit elsewhere in
the file costs nothing and an edit inside the block re-parses only the block.

The block guess is checked: it must parse (otherwise it is widened, a few times); the text
before it must not leave a triple-quoted string open (an odd count of ``\"\"\"`` or ``'''``);
and when a block that does not start with ``def``/``class``/a decorator holds no function, the
brackets before it must balance. When a check fails, the whole module is parsed (once per
document version). Lines are 0-based.
"""

from __future__ import annotations

import itertools
import re
from collections import OrderedDict
from dataclasses import dataclass

from codeteam.editor.positions import split_lines
from codeteam.pysource.functions import FunctionInfo, SourceError, find_functions

_CODE_AT_COLUMN_0 = re.compile(r"[^\s#)\]}]")
_CONTINUATION = re.compile(r"(?:else|elif|except|finally)\b")
_DEF_LIKE = re.compile(r"(?:@|def\s|async\s+def\s|class\s)")
_WIDEN_ATTEMPTS = 6


@dataclass(frozen=True)
class FunctionRef:
    """A function's identity and span in one version of a document.

    ``start_line`` is the first decorator's line (or ``def``'s), ``end_line`` the last line of
    the body (inclusive), ``def_line`` the ``def`` line; all 0-based. ``qualname`` and
    ``signature`` are what :func:`codeteam.pysource.functions.locate` takes.
    """

    qualname: str
    name: str
    signature: str
    start_line: int
    def_line: int
    end_line: int

    def contains(self, first: int, last: int) -> bool:
        """True when lines ``first..last`` lie within the function's span."""
        return self.start_line <= first and last <= self.end_line

    @classmethod
    def from_info(cls, info: FunctionInfo, offset: int = 0) -> FunctionRef:
        return cls(
            qualname=info.qualname,
            name=info.name,
            signature=info.signature,
            start_line=info.start_line + offset,
            def_line=info.def_line + offset,
            end_line=info.end_line + offset,
        )

    def shifted(self, offset: int) -> FunctionRef:
        if not offset:
            return self
        return FunctionRef(
            self.qualname, self.name, self.signature,
            self.start_line + offset, self.def_line + offset, self.end_line + offset,
        )


def innermost(functions: list[FunctionRef], first: int, last: int) -> FunctionRef | None:
    """The innermost function whose span holds lines ``first..last``, or None."""
    best: FunctionRef | None = None
    for function in functions:
        if function.contains(first, last) and (
            best is None or function.start_line >= best.start_line
        ):
            best = function
    return best


@dataclass
class _Snapshot:
    version: int | None
    text: str
    lines: list[str]
    offsets: list[int]
    full: list[FunctionRef] | None = None
    full_error: SourceError | None = None
    full_done: bool = False


class Outline:
    """Finds the function enclosing a range, per document version, without parsing the whole
    module in the common case (see the module docstring).

    ``chunk_cache_size`` bounds how many blocks' function lists are kept (by text).
    Counters ``chunk_parses`` and ``full_parses`` say how much parsing was done (for tests and
    the benchmark).
    """

    def __init__(self, chunk_cache_size: int = 1024) -> None:
        self._snapshots: dict[str, _Snapshot] = {}
        self._chunks: OrderedDict[str, list[FunctionRef] | None] = OrderedDict()
        self._chunk_cache_size = chunk_cache_size
        self.chunk_parses = 0
        self.full_parses = 0

    def forget(self, uri: str) -> None:
        """Drop what is cached for ``uri`` (on didClose)."""
        self._snapshots.pop(uri, None)

    def lines(self, uri: str, version: int | None, text: str) -> list[str]:
        """The document's lines (endings kept), cached per version."""
        return self._snapshot(uri, version, text).lines

    def function_at(
        self, uri: str, version: int | None, text: str, first: int, last: int | None = None
    ) -> FunctionRef | None:
        """The innermost function holding 0-based lines ``first..last`` of ``text`` (version
        ``version`` of ``uri``), or None (no function there, or the code does not parse)."""
        last = first if last is None else last
        if last < first:
            first, last = last, first
        snapshot = self._snapshot(uri, version, text)
        lines = snapshot.lines
        if not lines or first >= len(lines):
            return None
        last = min(last, len(lines) - 1)
        if snapshot.full is not None:
            return innermost(snapshot.full, first, last)

        start = self._head_at_or_above(lines, first)
        end = self._end_of_block(lines, last)
        if self._inside_string(snapshot, start):
            return self._full(snapshot, first, last)
        for attempt in range(_WIDEN_ATTEMPTS + 1):
            functions = self._block_functions(lines, start, end)
            if functions is not None:
                found = innermost(functions, first, last)
                if found is not None:
                    return found
                if _DEF_LIKE.match(lines[start]) or self._brackets_balanced(snapshot, start):
                    return None
                break
            # The block does not parse: widen it by one block, below first, then above.
            if attempt % 2 == 0 and end + 1 < len(lines):
                end = self._end_of_block(lines, end + 1)
            elif start > 0:
                start = self._head_at_or_above(lines, start - 1)
                if self._inside_string(snapshot, start):
                    break
            elif end + 1 < len(lines):
                end = self._end_of_block(lines, end + 1)
            else:
                break
        return self._full(snapshot, first, last)

    # --- blocks ---------------------------------------------------------------------------
    @staticmethod
    def _is_head(lines: list[str], index: int) -> bool:
        """A statement at column 0 that starts a top-level block: not a continuation
        (``else:``, ``except``...), not a closing bracket, not the ``def`` of a decorator."""
        line = lines[index]
        if not _CODE_AT_COLUMN_0.match(line) or _CONTINUATION.match(line):
            return False
        previous = index - 1
        while previous >= 0:
            text = lines[previous].strip()
            if text and not text.startswith("#"):
                return not lines[previous].startswith("@")
            previous -= 1
        return True

    def _head_at_or_above(self, lines: list[str], index: int) -> int:
        for line in range(index, -1, -1):
            if self._is_head(lines, line):
                return line
        return 0

    def _end_of_block(self, lines: list[str], index: int) -> int:
        for line in range(index + 1, len(lines)):
            if self._is_head(lines, line):
                return line - 1
        return len(lines) - 1

    def _block_functions(self, lines: list[str], start: int, end: int) -> list[FunctionRef] | None:
        text = "".join(lines[start : end + 1])
        cached = self._chunks.get(text, False)
        if cached is False:
            self.chunk_parses += 1
            try:
                cached = [FunctionRef.from_info(info) for info in find_functions(text)]
            except (SourceError, ValueError, RecursionError, MemoryError):
                cached = None
            self._chunks[text] = cached
            if len(self._chunks) > self._chunk_cache_size:
                self._chunks.popitem(last=False)
        else:
            self._chunks.move_to_end(text)
        if cached is None:
            return None
        return [function.shifted(start) for function in cached]

    @staticmethod
    def _inside_string(snapshot: _Snapshot, line: int) -> bool:
        """True when the text before ``line`` leaves a triple-quoted string open (by count)."""
        offset = snapshot.offsets[line]
        text = snapshot.text
        return bool(text.count('"""', 0, offset) % 2 or text.count("'''", 0, offset) % 2)

    @staticmethod
    def _brackets_balanced(snapshot: _Snapshot, line: int) -> bool:
        offset = snapshot.offsets[line]
        text = snapshot.text
        return all(
            text.count(opening, 0, offset) == text.count(closing, 0, offset)
            for opening, closing in ("()", "[]", "{}")
        )

    # --- whole module (fallback) ----------------------------------------------------------
    def _full(self, snapshot: _Snapshot, first: int, last: int) -> FunctionRef | None:
        if not snapshot.full_done:
            self.full_parses += 1
            try:
                snapshot.full = [FunctionRef.from_info(info) for info in find_functions(snapshot.text)]
            except (SourceError, ValueError, RecursionError, MemoryError) as error:
                snapshot.full = None
                snapshot.full_error = error if isinstance(error, SourceError) else SourceError(
                    str(error)
                )
            snapshot.full_done = True
        return innermost(snapshot.full or [], first, last)

    def _snapshot(self, uri: str, version: int | None, text: str) -> _Snapshot:
        snapshot = self._snapshots.get(uri)
        if snapshot is not None and snapshot.version == version and (
            snapshot.text is text or snapshot.text == text
        ):
            return snapshot
        lines = split_lines(text)
        offsets = [0, *itertools.accumulate(len(line) for line in lines)]
        snapshot = _Snapshot(version=version, text=text, lines=lines, offsets=offsets)
        self._snapshots[uri] = snapshot
        return snapshot
