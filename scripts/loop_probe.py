"""A probe of the event loop's own work, for benchmarks (``scripts/bench_code_action.py
--loop-probe FILE``): every callback the loop runs is timed by the main thread's CPU clock
(``time.thread_time``) and by the wall clock. The CPU time is what the callback itself cost,
whatever the machine's load (time spent runnable but not scheduled, or waiting for the GIL,
is not in it); the wall time includes those waits.

The thread's time runnable but waiting for a CPU (``/proc/thread-self/schedstat``) is
read around each callback too: wall minus CPU minus that is time blocked (the GIL, a
blocking call).

Callbacks that took at least ``THRESHOLD_MS`` of CPU or wall time are appended to FILE, one
line each: ``wall_ms cpu_ms queued_ms @seconds where`` (seconds since the probe was
installed), where ``where`` is the task's coroutine stack at the point it
suspended after that step (the code that ran is just before it), or the callback's repr.
The totals are written on exit and every ``FLUSH_S`` seconds (``# total ...``), and the
garbage collector's collections in the server process by generation (``# gc ...``: counts; a
collection runs inside whatever allocated, so in the loop's thread it is in that callback's
CPU time).

Use: ``python -c "import loop_probe; loop_probe.install(FILE); ..."`` before the server
starts its loop. Not part of codeteam: a measuring tool.
"""

from __future__ import annotations

import asyncio
import atexit
import gc
import os
import time

THRESHOLD_MS = 5.0
FLUSH_S = 5.0


def _where(handle: asyncio.Handle) -> str:
    callback = getattr(handle, "_callback", None)
    task = getattr(callback, "__self__", None)
    if isinstance(task, asyncio.Task):
        frames = []
        coro = task.get_coro()
        while coro is not None and len(frames) < 12:
            frame = getattr(coro, "cr_frame", None) or getattr(coro, "gi_frame", None)
            if frame is None:
                break
            code = frame.f_code
            frames.append(f"{code.co_name}({code.co_filename.rsplit('/', 1)[-1]}:"
                          f"{frame.f_lineno})")
            coro = getattr(coro, "cr_await", None) or getattr(coro, "gi_yieldfrom", None)
        if frames:
            return "task " + " > ".join(frames)
        return f"task {getattr(task.get_coro(), '__qualname__', task.get_name())} (done)"
    text = repr(handle)
    return text[:300]


def install(path: str) -> None:
    """Time every callback of every loop of this process from now on (see the module)."""
    out = open(path, "a", buffering=1)  # noqa: SIM115 - kept open until exit
    totals = {"callbacks": 0, "cpu_ms": 0.0, "wall_ms": 0.0, "queued_ms": 0.0, "slow": 0}
    original = asyncio.events.Handle._run
    started = time.monotonic()
    last_flush = [started]

    # Counted, not timed: a gc callback runs Python code inside every collection, which lets
    # another thread take the GIL in the middle of an ast.parse (CPython gh-106905 then fails
    # one of them); the collections' time is in their callbacks' CPU time anyway.
    collected_before = [stats["collections"] for stats in gc.get_stats()]

    def flush() -> None:
        out.write(f"# total {totals['callbacks']} callbacks, cpu {totals['cpu_ms']:.0f} ms, "
                  f"waiting for a CPU {totals['queued_ms']:.0f} ms, wall "
                  f"{totals['wall_ms']:.0f} ms, {totals['slow']} over {THRESHOLD_MS} ms\n")
        out.write("# gc " + ", ".join(
            f"gen{n} {stats['collections'] - before}"
            for n, (stats, before) in enumerate(zip(gc.get_stats(), collected_before))) + "\n")

    schedstat: list[int | None] = [None]

    def waited_ns() -> int:
        """Nanoseconds the loop's thread has spent runnable but waiting for a CPU (its
        ``schedstat``; opened by the loop's thread at its first callback)."""
        if schedstat[0] is None:
            try:
                schedstat[0] = os.open("/proc/thread-self/schedstat", os.O_RDONLY)
            except OSError:
                schedstat[0] = -1
        if schedstat[0] < 0:
            return 0
        return int(os.pread(schedstat[0], 200, 0).split()[1])

    def timed(handle: asyncio.Handle) -> None:
        wall, cpu, queued = time.perf_counter(), time.thread_time(), waited_ns()
        try:
            original(handle)
        finally:
            cpu_ms = (time.thread_time() - cpu) * 1000
            wall_ms = (time.perf_counter() - wall) * 1000
            queued_ms = (waited_ns() - queued) / 1e6
            totals["callbacks"] += 1
            totals["cpu_ms"] += cpu_ms
            totals["wall_ms"] += wall_ms
            totals["queued_ms"] += queued_ms
            if cpu_ms >= THRESHOLD_MS or wall_ms >= THRESHOLD_MS:
                totals["slow"] += 1
                out.write(f"{wall_ms:.1f} {cpu_ms:.1f} {queued_ms:.1f} "
                          f"@{time.monotonic() - started:.1f}s {_where(handle)}\n")
            if time.monotonic() - last_flush[0] > FLUSH_S:
                last_flush[0] = time.monotonic()
                flush()

    asyncio.events.Handle._run = timed
    atexit.register(flush)
