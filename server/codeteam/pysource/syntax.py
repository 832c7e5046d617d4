"""Parsing Python text into an :mod:`ast` tree, safely from several threads.

CPython 3.11 keeps the recursion depth of its AST constructor in one counter per interpreter,
not per thread: when two threads build trees at once (a garbage collection inside one parse
lets the other thread run), one of them fails with ``SystemError: AST constructor recursion
depth mismatch`` (CPython gh-106905; seen here as a "Generate with team" that failed while
eight runs parsed their modules in ``asyncio.to_thread``). Every parse of codeteam's server
process goes through :func:`parse_tree`, which holds one lock for the duration: nothing is
lost by it, since a parse holds the GIL all along anyway.

Libraries parse without that lock (pydantic builds its models through ``inspect.signature``,
whose ``_signature_fromstr`` calls ``ast.parse``, in the server's imports thread; anyio's lazy
importer compiles to an AST). Another thread only runs in the middle of a parse when a
collection inside it runs Python code (a gc callback, a finalizer) and lets the GIL go, so
:func:`parse_tree` parses with the collector off: nothing else builds a tree while it builds
its own (a codeAction failed with the SystemError beside the imports thread).
"""

from __future__ import annotations

import ast
import gc
import threading

_LOCK = threading.Lock()


def parse_tree(source: str, filename: str = "<unknown>", mode: str = "exec") -> ast.AST:
    """:func:`ast.parse` of ``source`` (``mode`` "exec", "eval" or "single"), one parse at a
    time in this process. Raises SyntaxError (and ValueError for a NUL byte) like it."""
    with _LOCK:
        collecting = gc.isenabled()
        gc.disable()
        try:
            return ast.parse(source, filename, mode)
        finally:
            if collecting:
                gc.enable()
