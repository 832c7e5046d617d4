"""The editor's parse worker process (codeteam.editor.parsing): results and errors come back
as if the function ran here; without a worker the work runs in a thread."""

import os

import pytest

from codeteam.editor.parsing import ParsePool
from codeteam.pysource.functions import SourceError, find_functions
from codeteam.pysource.tolerant import parseable_module

MODULE = "def f(x):\n    return x\n\n\nclass C:\n    def m(self):\n        pass\n"


async def test_the_worker_returns_results_and_raises_errors():
    pool = ParsePool()
    try:
        functions = await pool.run(find_functions, MODULE)
        assert [f.qualname for f in functions] == ["f", "C.m"]
        assert functions == find_functions(MODULE)
        pid = await pool.run(os.getpid)
        assert pid != os.getpid()  # it ran in another process
        with pytest.raises(SourceError, match="does not parse at line 1") as error:
            await pool.run(find_functions, "def f(:\n")
        assert error.value.line == 0
        readable = await pool.run(parseable_module, MODULE)
        assert readable.text == MODULE
    finally:
        pool.shutdown()


async def test_the_coder_extracts_its_code_in_the_worker():
    """The coder's extraction parses the whole module (a GIL-holding ast.parse that stalled
    the loop from a thread): it runs through the conversation's offload, the parse worker in
    the editor; its result and its CodeExtractionError come back as they are."""
    from codeteam.roles.code_extraction import CodeExtractionError, extract_function
    from codeteam.roles.coder import ask_for_code
    from codeteam.task import Task

    task = Task.from_source(MODULE, "f")
    reply = "```python\ndef f(x):\n    return 2 * x\n```"
    pool = ParsePool()
    calls = []

    async def offload(function, *args):
        calls.append(function)
        return await pool.run(function, *args)

    class Asked:  # a conversation that always gives ``reply``
        def __init__(self, offload):
            self.offload = offload

        async def ask(self, *args, **kwargs):
            return reply

    try:
        code = await ask_for_code(Asked(offload), task, role="coder", stage="s", prompt="coder",
                                  retries=0)  # fmt: skip
        assert code == extract_function(reply, task) and calls == [extract_function]
        with pytest.raises(CodeExtractionError, match="no usable code"):
            await pool.run(extract_function, "no code here", task)
    finally:
        pool.shutdown()


async def test_without_a_worker_the_work_runs_in_a_thread(monkeypatch):
    monkeypatch.setenv("CODETEAM_PARSE_IN_THREAD", "1")
    pool = ParsePool()
    assert await pool.run(os.getpid) == os.getpid()


async def test_the_worker_runs_below_the_servers_priority():
    """On a busy machine the event loop that answers the editor gets the CPU first."""
    from codeteam.editor.parsing import WORKER_NICENESS

    pool = ParsePool()
    try:
        assert await pool.run(os.nice, 0) == min(19, os.nice(0) + WORKER_NICENESS)
    finally:
        pool.shutdown()


SERVER = """
import asyncio, os, sys
from codeteam.editor.parsing import ParsePool

async def main():
    pool = ParsePool()
    print(await pool.run(os.getpid), flush=True)
    sys.stdin.readline()  # killed here

asyncio.run(main())
"""


def test_the_worker_ends_when_its_server_is_killed():
    """Found after a suite run: 13 workers (and their resource trackers) of servers the tests
    had killed were still running, with parent 1."""
    import signal
    import subprocess
    import sys
    import time

    server = subprocess.Popen([sys.executable, "-c", SERVER], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        worker = int(server.stdout.readline())
        assert os.path.exists(f"/proc/{worker}")
        server.send_signal(signal.SIGKILL)
        server.wait(timeout=30)
        deadline = time.monotonic() + 30
        while _alive(worker) and time.monotonic() < deadline:
            time.sleep(0.05)  # the worker's own exit is the event; nothing to wait on but it
        assert not _alive(worker), f"worker {worker} outlived its server"
    finally:
        server.kill()


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def _full_collections_while_parsing(text: str, times: int) -> tuple[int, int]:
    """In the worker: how many full (generation 2) and how many collections of any kind ran
    while ``text`` was parsed ``times`` times."""
    import ast
    import gc

    seen: list[int] = []

    def count(phase: str, info: dict) -> None:
        if phase == "start":
            seen.append(info["generation"])

    gc.callbacks.append(count)
    try:
        trees = []
        for _ in range(times):
            trees.append(ast.parse(text))  # alive until the end, as a run's view and placement
            trees.pop()
    finally:
        gc.callbacks.remove(count)
    return seen.count(2), len(seen)


async def test_the_workers_parses_run_no_full_collection():
    """A parse of a large module builds tens of thousands of objects that live until it ends;
    at Python's default thresholds the worker collected during every parse and ran a full
    collection of its whole heap (150-215 ms of CPU beside jedi's trees) every second parse or
    so. The worker collects when that many objects are alive, not during a parse."""
    import gc

    from codeteam.editor.parsing import YOUNG_THRESHOLD

    lines = []
    for n in range(400):  # ~2,000 lines, as the editor benchmark's module
        lines += [f"def function{n}(a, b=2):", f'    """Function {n}."""', "    total = 0",
                  "    for i in range(a):", "        total += i * b if i % 2 else -i"]
    text = "\n".join(lines) + "\n"
    pool = ParsePool()
    try:
        assert (await pool.run(gc.get_threshold))[0] == YOUNG_THRESHOLD
        assert await pool.run(gc.get_freeze_count) > 0  # the imports: out of every collection
        full, collections = await pool.run(_full_collections_while_parsing, text, 6)
        assert (full, collections) == (0, 0)
    finally:
        pool.shutdown()
