"""Parsing a document off the server's process.

``ast.parse`` of a whole module holds the GIL from start to end (tens of milliseconds for a
2,000-line module, several times that on a busy machine), so even in a worker thread it stalls
the event loop: codeAction answers waited 100-400 ms while runs started (issue 13, item 9).
:class:`ParsePool` runs such work (locating the run's function, planning the replacement) in
one worker process instead; the loop only pickles the text. The worker is started on first
use (:meth:`ParsePool.warm` at ``initialized``); when it cannot start or dies, the work runs in
a thread as before.

Functions given to :meth:`ParsePool.run` must be importable module-level functions, their
arguments and results picklable. Exceptions come back as raised.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")

DISABLE_ENV = "CODETEAM_PARSE_IN_THREAD"
"""Set to 1 to parse in a thread of the server instead (no worker process)."""


WORKER_NICENESS = 10
"""The worker runs at a lower CPU priority than the server: on a busy machine (the runs' own
test processes are busy too) the event loop that answers the editor gets the CPU first."""


YOUNG_THRESHOLD = 100_000
"""The worker's first-generation threshold for the garbage collector (Python's default: 700).
A parse of a 2,000-line module builds tens of thousands of AST objects that all live until it
ends: at 700 they were scanned over and over and promoted, and every second parse or so
triggered a full collection of the worker's heap (jedi's and parso's trees, 250,000 objects:
150-215 ms of CPU each; a run's judge view took 180 ms instead of 30). The count is net
(allocations less deallocations), so a parse that ends frees what it counted; cyclic garbage
waits for that many objects at most."""


def tune_collector() -> None:
    """Garbage collection for a process that parses large modules (the worker, see
    :data:`YOUNG_THRESHOLD`): what is loaded so far (modules, grammars) moves to the permanent
    generation, out of every later full collection."""
    import gc

    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, old)


def _die_with(parent: int) -> None:
    """End this worker once the server ``parent`` (its pid) is gone: a daemon thread looks at
    the worker's parent every second. (Linux's parent-death signal would fire when the
    *thread* that started the worker ends, which in the server is not the server's end.)"""
    import threading
    import time

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="codeteam-parent-watch", daemon=True).start()


def _warm_worker(parent: int | None = None) -> None:
    """The worker's start: die with the server ``parent`` (a server killed by a signal would
    leave it running, with its resource tracker), lower its priority
    (:data:`WORKER_NICENESS`), then import what parsing needs once."""
    if parent is not None:
        _die_with(parent)
    try:
        os.nice(WORKER_NICENESS)
    except OSError:  # not allowed here: it runs at the server's priority
        pass
    import codeteam.editor.replacement
    import codeteam.pysource.tolerant
    import codeteam.service.locate  # noqa: F401

    tune_collector()


def _ready() -> bool:
    return True


def _call(function: Callable[..., Any], *args: Any) -> tuple[str, Any, Any]:
    """``function(*args)`` in the worker; a SourceError comes back with its ``line`` (pickling
    an exception keeps only its message)."""
    from codeteam.pysource.functions import SourceError

    try:
        return "ok", function(*args), None
    except SourceError as error:
        return "source_error", str(error), error.line


def _unwrap(answer: tuple[str, Any, Any]) -> Any:
    kind, value, line = answer
    if kind == "source_error":
        from codeteam.pysource.functions import SourceError

        raise SourceError(value, line)
    return value


class ParsePool:
    """One worker process for CPU-bound parsing (see the module docstring)."""

    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None
        self._failed = os.environ.get(DISABLE_ENV) == "1"

    def _executor(self) -> ProcessPoolExecutor | None:
        if self._failed:
            return None
        if self._pool is None:
            try:
                self._pool = ProcessPoolExecutor(
                    max_workers=1,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=_warm_worker,
                    initargs=(os.getpid(),),
                )
            except (OSError, ValueError) as error:
                log.warning("no parse worker process (%s): parsing in a thread", error)
                self._failed = True
                return None
        return self._pool

    def warm(self) -> None:
        """Start the worker now (in the background), so the first run does not wait for it."""
        pool = self._executor()
        if pool is not None:
            try:
                pool.submit(_ready)
            except (BrokenProcessPool, RuntimeError):
                self._lost()

    async def run(self, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``function(*args, **kwargs)`` in the worker process (in a thread when there is
        none)."""
        if kwargs:
            function = functools.partial(function, **kwargs)
        pool = self._executor()
        if pool is not None:
            try:
                return _unwrap(await asyncio.get_running_loop().run_in_executor(
                    pool, _call, function, *args
                ))
            except (BrokenProcessPool, RuntimeError) as error:
                if isinstance(error, RuntimeError) and "shutdown" not in str(error):
                    raise
                log.warning("the parse worker is gone (%s): parsing in a thread", error)
                self._lost()
        return await asyncio.to_thread(function, *args)

    def _lost(self) -> None:
        pool, self._pool, self._failed = self._pool, None, True
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    def shutdown(self) -> None:
        """Stop the worker (server shutdown)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
