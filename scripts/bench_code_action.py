#!/usr/bin/env python
"""Benchmark: ``textDocument/codeAction`` answer times while 8 "Generate with team" runs
progress through every stage.

One ``codeteam serve`` over stdio (the minimal JSON-RPC client of scripts/bench_editor.py, so
client overhead stays out of the numbers), a 2,000-line module open, and the scripted
OpenAI-compatible model (tests/scripted_llm.py) answering every role after ``--reply-s``
seconds. ``--runs`` workers, one function each, start one every ``--stagger`` seconds and
loop for the whole measurement: "Generate with team" (the tester's AI tests, the direct
answer, which fails the docstring's example in the sandbox, the analyst's plan, the planned
candidate and samples, run in the sandbox and chosen, the edit applied by this client, which
answers workspace/applyEdit like an editor: it applies the versioned edit to its copy and
sends the didChange), then "Review with tester" (the tests run again, diagnostics
published). Meanwhile codeAction requests are sent one after another at random lines, with a
didChange edit (a typed line) every ``--edit-every`` requests. Prints p50 / p99 / max of the
codeAction answers for the whole measurement and for the windows in which a run was starting
or an edit was being applied, the stages the runs went through, and the slowest answers.

Usage::

    .venv/bin/python scripts/bench_code_action.py [--runs 8] [--seconds 30] [--reply-s 0.3]
    .venv/bin/python scripts/bench_code_action.py --runs 0               # the idle server
    .venv/bin/python scripts/bench_code_action.py --py-spy profile.txt   # where the loop waits
    .venv/bin/python scripts/bench_code_action.py --loop-probe probe.txt # what the loop did

``--py-spy FILE`` records the server's main thread with py-spy (``pip install py-spy``) for the
whole measurement, as collapsed stacks (flamegraph input), and prints its heaviest frames;
``--asyncio-debug`` runs the server in asyncio's debug mode and prints the callbacks it logged
as slow (longer than its 100 ms). ``--loop-probe FILE`` times every callback of the
server's loop by the CPU clock of its thread, its wait for a CPU (schedstat) and the wall
clock (scripts/loop_probe.py), and prints where the heavy and the blocked ones were: on a
busy machine it tells the loop's own work from waiting for the machine. ``--server-env
KEY=VALUE`` passes a variable to the server (``CODETEAM_STDIN_THREAD=1``: pygls's reader).

The client types a line every ``--edit-every`` requests, so a server that answers faster is
typed at more often: at load 15 the apply's locate takes about 0.5 s in the parse worker, and
more applies end "the document kept changing"; compare "edits applied" only at equal rates.

Target (issue 26): p99 < 20 ms and max < 100 ms with 8 progressing runs. A benchmark, not a
test: it prints numbers and never fails on them. The machine is shared: the load average at
the start and the end is printed; measure on a quiet machine.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT.parent / "tests"))

from bench_editor import Client, big_module, env_for, percentile

from scripted_llm import ScriptedLLM
from scripted_replies import ANALYST, CODER, DIRECT, REVISE, TESTER

_TARGET = re.compile(r"\ndef (function\d+)\(")


def target_of(body: dict[str, Any]) -> str | None:
    """The function a request is about: the last ``def functionN(`` of its last message (the
    stub, after the project context, which names other functions too)."""
    messages = body.get("messages") or [{}]
    found = _TARGET.findall("\n" + str(messages[-1].get("content", "")))
    return found[-1] if found else None


def right(name: str) -> str:
    return (f"```python\ndef {name}(a, b=2, *args, **kw):\n"
            f'    """Function {name[8:]}: the sum of the odd numbers below a, plus b."""\n'
            "    return sum(i for i in range(a) if i % 2) + b\n```")


def script_model(llm: ScriptedLLM, names: list[str], reply_s: float) -> None:
    """Every role of every target: the direct answer is wrong (``a * b``: 8 for the
    docstring's ``f(4) == 6``), everything else right."""
    def rule(pattern: str, name: str, *, sampled: bool | None = None):
        regex = re.compile(pattern)

        def match(body: dict[str, Any]) -> bool:
            text = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
            if target_of(body) != name or not regex.search(text):
                return False
            return sampled is None or (body.get("temperature") == 0.5) == sampled
        return match

    for name in names:
        llm.reply(rule(TESTER, name), f"```python\nassert {name}(4) == 6\nassert {name}(1) == 2\n"
                  f"assert {name}(6, 0) == 9\n```", times=None, latency_s=reply_s)
        llm.reply(rule(ANALYST, name), "1. Sum the odd numbers below a.\n2. Add b.",
                  times=None, latency_s=reply_s)
        llm.reply(rule(DIRECT, name, sampled=False),
                  f"```python\ndef {name}(a, b=2, *args, **kw):\n    return a * b\n```",
                  times=None, latency_s=reply_s)
        for pattern in (DIRECT, CODER, REVISE):
            llm.reply(rule(pattern, name), right(name), times=None, latency_s=reply_s)


class Document:
    """The client's copy of the open document (ASCII text: UTF-16 columns are characters)."""

    def __init__(self, uri: str, text: str) -> None:
        self.uri = uri
        self.text = text
        self.version = 1

    def offset(self, line: int, character: int) -> int:
        lines = self.text.split("\n")
        if line >= len(lines):
            return len(self.text)
        return sum(len(item) + 1 for item in lines[:line]) + min(character, len(lines[line]))

    def line_count(self) -> int:
        return self.text.count("\n")

    def change(self, client: Client, start: tuple[int, int], end: tuple[int, int],
               new_text: str) -> None:
        """Replace the range and send the incremental didChange."""
        a, b = self.offset(*start), self.offset(*end)
        self.text = self.text[:a] + new_text + self.text[b:]
        self.version += 1
        client.notify("textDocument/didChange", {
            "textDocument": {"uri": self.uri, "version": self.version},
            "contentChanges": [{"range": {"start": {"line": start[0], "character": start[1]},
                                          "end": {"line": end[0], "character": end[1]}},
                                "text": new_text}],
        })


class EditingClient(Client):
    """The benchmark's client: answers workspace/applyEdit like an editor (a versioned edit
    for another version is refused; else applied to its copy, then the didChange), and
    records when each edit arrived."""

    document: Document | None = None
    applied: list[float]
    refused: int = 0

    def _answer(self, request: dict[str, Any]) -> None:
        if request["method"] != "workspace/applyEdit" or self.document is None:
            super()._answer(request)
            return
        self.applied = getattr(self, "applied", [])
        document = self.document
        result: dict[str, Any] = {"applied": True}
        for change in request["params"]["edit"].get("documentChanges") or []:
            if change["textDocument"].get("version") not in (None, document.version):
                self.refused += 1
                result = {"applied": False, "failureReason": "stale version"}
                break
            for edit in sorted(change["edits"], key=lambda e: (
                    -e["range"]["start"]["line"], -e["range"]["start"]["character"])):
                r = edit["range"]
                document.change(self, (r["start"]["line"], r["start"]["character"]),
                                (r["end"]["line"], r["end"]["character"]), edit["newText"])
            self.applied.append(time.perf_counter())
        self._send({"jsonrpc": "2.0", "id": request["id"], "result": result})

    @property
    def server_pid(self) -> int:
        return self.process.pid

    async def initialize(self, root: Path) -> dict[str, Any]:
        """An editor that applies edits (``workspace.applyEdit``, versioned
        ``documentChanges``) and shows work-done progress."""
        answer = await self.request("initialize", {
            "processId": os.getpid(),
            "rootUri": root.as_uri(),
            "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
            "capabilities": {
                "window": {"workDoneProgress": True},
                "workspace": {"applyEdit": True, "workspaceEdit": {"documentChanges": True}},
                "textDocument": {"codeAction": {"codeActionLiteralSupport": {
                    "codeActionKind": {"valueSet": ["quickfix", "refactor.rewrite"]}}}},
            },
        })
        self.notify("initialized", {})
        return answer


def function_span(text: str, name: str) -> tuple[int, int, str]:
    """The 0-based first line, the line after the last, and the text of top-level function
    ``name`` (decorators included; up to the next top-level statement)."""
    lines = text.split("\n")
    start = next(n for n, line in enumerate(lines) if line.startswith(f"def {name}("))
    while start > 0 and lines[start - 1].startswith("@"):
        start -= 1
    end = start + 1
    while end < len(lines) and not (lines[end][:1].strip() and not lines[end].startswith("#")):
        end += 1
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    return start, end, "".join(line + "\n" for line in lines[start:end])


def cpu_snapshot(server: int) -> dict[str, Any]:
    """CPU seconds so far: the server's own (all its threads), its reaped descendants' (the
    sandboxes that ended), each live child's (the parse worker; sandboxes still running), this
    process's (the client and the scripted model) and the machine's busy time."""
    tick = os.sysconf("SC_CLK_TCK")

    def stat(pid: int) -> list[str] | None:
        try:
            with open(f"/proc/{pid}/stat") as handle:
                head, _, rest = handle.read().rpartition(")")
        except OSError:
            return None
        return [head.partition("(")[2], *rest.split()]

    fields = stat(server) or ["", *["0"] * 20]
    children: dict[int, tuple[str, int, float]] = {}
    try:
        for task in os.listdir(f"/proc/{server}/task"):
            with open(f"/proc/{server}/task/{task}/children") as handle:
                for pid in map(int, handle.read().split()):
                    child = stat(pid)
                    if child is not None:
                        children[pid] = (child[0], int(child[17]),
                                         (int(child[12]) + int(child[13])) / tick)
    except OSError:
        pass
    with open("/proc/stat") as handle:
        ticks = [int(x) for x in handle.readline().split()[1:]]
    return {
        "server": (int(fields[12]) + int(fields[13])) / tick,
        "reaped": (int(fields[14]) + int(fields[15])) / tick,
        "children": children,
        "client": sum(os.times()[:2]),
        "machine": (sum(ticks) - ticks[3] - ticks[4]) / tick,
    }


def cpu_report(before: dict[str, Any], after: dict[str, Any], seconds: float) -> str:
    """Where the CPU went during the measurement (see :func:`cpu_snapshot`)."""
    worker = sandboxes = 0.0
    for pid, (name, nice, used) in after["children"].items():
        used -= before["children"].get(pid, ("", 0, 0.0))[2]
        if name == "bwrap":
            sandboxes += used  # a sandbox still running (bwrap's own children are its)
        elif nice > 0:
            worker += used  # the parse worker (niceness 10)
        else:
            sandboxes += used
    # the bwrap processes still alive have not reported their children's time: counted
    # only when they end (reaped), so the sandboxes' figure is a lower bound
    sandboxes += after["reaped"] - before["reaped"]
    return (f"CPU in the measurement ({seconds:.0f} s, {os.cpu_count()} cores): machine "
            f"{after['machine'] - before['machine']:.1f} s, server "
            f"{after['server'] - before['server']:.1f} s, parse worker {worker:.1f} s, "
            f"sandboxes and other children {sandboxes:.1f} s, client and scripted model "
            f"{after['client'] - before['client']:.1f} s")


def summary(name: str, times: list[float]) -> str:
    if not times:
        return f"{name}: no requests"
    return (f"{name}: {len(times)} requests, p50 {percentile(times, 0.5):.2f} ms, "
            f"p99 {percentile(times, 0.99):.2f} ms, max {max(times):.2f} ms")


def stage_kind(message: str) -> str:
    """A progress message as a stage kind ("tester: running 3 tests" -> "tester: running
    tests")."""
    message = re.sub(r"function\d+", "F", message)
    message = re.sub(r"\d+", "N", message)
    return re.sub(r"\(temperature .*\)", "(sampling)", message)


async def bench(args: argparse.Namespace, folder: Path) -> None:
    print(f"machine: {os.cpu_count()} cores, load average at the start "
          f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    text = big_module(args.lines, args.seed)
    path = folder / "big_module.py"
    path.write_text(text)
    (folder / "pyproject.toml").write_text("[project]\nname = 'bench'\n")
    defs = [n for n, line in enumerate(text.split("\n")) if line.startswith("def function")]
    chosen = defs[:: max(1, len(defs) // max(1, args.runs))][: args.runs]  # --runs 0: idle
    names = [_TARGET.findall("\n" + text.split("\n")[n])[0] for n in chosen]
    with ScriptedLLM() as llm:
        script_model(llm, names, args.reply_s)
        env = env_for(base_url=llm.base_url, ai_tests=3, candidates=2, max_rounds=2,
                      timeout_s=600, max_retries=0, preview="never", sandbox="bwrap")
        if args.asyncio_debug:
            env["PYTHONASYNCIODEBUG"] = "1"
        env.update(item.split("=", 1) for item in args.server_env)
        log_path = folder / "server.log"
        start = ["-m", "codeteam"]
        if args.loop_probe:
            args.loop_probe.unlink(missing_ok=True)
            start = ["-c", (f"import sys; sys.path.insert(0, {str(ROOT)!r}); import loop_probe; "
                            f"loop_probe.install({str(args.loop_probe)!r}); import runpy; "
                            "sys.argv[0] = 'codeteam'; runpy.run_module('codeteam', "
                            "run_name='__main__', alter_sys=True)")]
        process = await asyncio.create_subprocess_exec(
            sys.executable, *start, "serve", "--log-file", str(log_path),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL, env=env,
        )
        client = EditingClient(process)
        client.applied = []
        try:  # a server that dies at its start would leave the benchmark waiting for ever
            await asyncio.wait_for(client.initialize(folder), 120)
        except TimeoutError:
            sys.exit(f"the server did not answer initialize in 120 s; its log: "
                     f"{log_path.read_text(errors='replace')[-2000:] if log_path.exists() else ''}")
        await asyncio.sleep(args.settle)  # the server's background imports end
        document = Document(path.as_uri(), text)
        client.document = document
        client.notify("textDocument/didOpen", {"textDocument": {
            "uri": document.uri, "languageId": "python", "version": 1, "text": text}})

        spy = None
        if args.py_spy:
            py_spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
            spy = subprocess.Popen(  # noqa: ASYNC220 - py-spy runs beside the benchmark
                [py_spy, "record", "--pid", str(client.server_pid), "--format", "raw",
                 "--output", str(args.py_spy), "--rate", "200", "--nonblocking", "--threads"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        started_at: list[float] = []
        finished: collections.Counter[str] = collections.Counter()
        outcomes: collections.Counter[str] = collections.Counter()
        stop = asyncio.Event()

        stubs = {name: function_span(text, name)[2] for name in names}

        def reset(name: str) -> None:
            """The user deletes the generated body again: the function back to its stub (so
            that the next Generate has an edit to apply)."""
            start, end, current = function_span(document.text, name)
            if current != stubs[name]:
                document.change(client, (start, 0), (end, 0), stubs[name])

        async def worker(index: int, name: str) -> None:
            await asyncio.sleep(index * args.stagger)
            while not stop.is_set():
                reset(name)
                for command in ("codeteam.generate", "codeteam.review"):
                    line = next(n for n, item in enumerate(document.text.split("\n"))
                                if item.startswith(f"def {name}("))
                    started_at.append(time.perf_counter())
                    answer = await client.request("workspace/executeCommand", {
                        "command": command,
                        "arguments": [{"uri": document.uri,
                                       "position": {"line": line, "character": 4}}],
                    })
                    result = answer.get("result") or {}
                    finished[f"{command}: {result.get('status', answer.get('error'))}"
                             + (", applied" if result.get("applied") else "")] += 1
                    lines = str(result.get("message", answer.get("error", ""))).split("\n")
                    outcomes[re.sub(r"\d+", "N", lines[1] if len(lines) > 1 else lines[0])[:90]] += 1
                    if stop.is_set():
                        return

        workers = [asyncio.ensure_future(worker(i, name)) for i, name in enumerate(names)]
        rng = random.Random(args.seed)
        samples: list[tuple[float, float]] = []
        edits = 0
        began = time.perf_counter()
        cpu_before = cpu_snapshot(client.server_pid)
        progress_before = len(client.notifications)
        requests_before = len(llm.requests)
        number = 0
        while time.perf_counter() - began < args.seconds:
            number += 1
            if number % args.edit_every == 0:
                line = rng.randrange(document.line_count())
                document.change(client, (line, 0), (line, 0), "# typed\n")
                edits += 1
            line = rng.randrange(document.line_count())
            sent = time.perf_counter()
            answer = await client.request("textDocument/codeAction", {
                "textDocument": {"uri": document.uri},
                "range": {"start": {"line": line, "character": 4},
                          "end": {"line": line, "character": 5}},
                "context": {"diagnostics": []},
            })
            samples.append((sent, (time.perf_counter() - sent) * 1000))
            assert "error" not in answer, answer
            await asyncio.sleep(1 / args.requests_s)
        stop.set()
        measured = time.perf_counter() - began
        cpu_after = cpu_snapshot(client.server_pid)
        stages_in = sum(1 for n in client.notifications[progress_before:]
                        if n["method"] == "$/progress")
        requests_in = len(llm.requests) - requests_before
        if spy is not None:
            spy.send_signal(signal.SIGINT)  # py-spy writes its file on SIGINT
            spy.wait(60)
        client.request("workspace/executeCommand", {"command": "codeteam.cancel",
                                                     "arguments": []})
        await asyncio.wait_for(asyncio.gather(*workers, return_exceptions=True), 120)

        def near(moment: float, events: list[float]) -> bool:
            return any(0 <= moment - event <= args.start_window for event in events)

        all_times = [ms for _, ms in samples]
        stages = collections.Counter(
            stage_kind(str(n["params"]["value"].get("message", "")))
            for n in client.notifications if n["method"] == "$/progress")
        diagnostics = sum(1 for n in client.notifications
                          if n["method"] == "textDocument/publishDiagnostics")
        print(f"{document.line_count()}-line module, {args.runs} runs, a model reply every "
              f"{args.reply_s} s, {len(llm.requests)} model requests, {edits} typed lines, "
              f"{len(client.applied)} edits applied ({client.refused} refused as stale), "
              f"{diagnostics} publishDiagnostics")
        print("commands finished: " + ", ".join(f"{k} x{v}" for k, v in sorted(finished.items())))
        print("outcomes: " + "; ".join(f"{k} x{v}" for k, v in outcomes.most_common(8)))
        print("stages seen: " + ", ".join(f"{k} x{v}" for k, v in stages.most_common(14)))
        print(f"progress in the measurement: {stages_in} progress messages "
              f"({stages_in / measured * 60:.0f}/min), {requests_in} model requests "
              f"({requests_in / measured * 60:.0f}/min)")
        print(cpu_report(cpu_before, cpu_after, measured))
        print(summary("codeAction, whole measurement", all_times))
        print(summary(f"codeAction within {args.start_window} s of a command start",
                      [ms for moment, ms in samples if near(moment, started_at)]))
        print(summary(f"codeAction within {args.start_window} s of an applied edit",
                      [ms for moment, ms in samples if near(moment, client.applied)]))
        slowest = sorted(samples, key=lambda s: -s[1])[:8]
        print("slowest: " + ", ".join(f"{ms:.1f} ms at +{moment - began:.2f} s"
                                      for moment, ms in slowest))
        print(f"load average at the end {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
        await client.shutdown()
        warnings = [line for line in log_path.read_text(errors="replace").splitlines()
                    if " WARNING " in line or " ERROR " in line]
        print(f"server log: {len(warnings)} warnings and errors")
        for line in warnings[:5]:
            print("  " + line[:300])
        if args.asyncio_debug:
            slow = [line for line in log_path.read_text(errors="replace").splitlines()
                    if "Executing" in line and "took" in line]
            print(f"asyncio debug: {len(slow)} slow callbacks logged")
            for line in slow[:20]:
                print("  " + line[:300])
        if args.py_spy:
            heaviest(Path(args.py_spy))
        if args.loop_probe:
            loop_report(args.loop_probe, began)


def loop_report(path: Path, began: float, shown: int = 20) -> None:
    """What ``scripts/loop_probe.py`` saw: the loop's callbacks that took 5 ms or more of the
    main thread's CPU time (their own work, whatever the load) or of wall time, grouped by
    where their task suspended next."""
    if not path.exists():
        print(f"the loop probe wrote nothing to {path}")
        return
    slow: list[tuple[float, float, float, str]] = []
    totals = collections_line = ""
    for line in path.read_text().splitlines():
        if line.startswith("# total"):
            totals = line[2:]
            continue
        if line.startswith("# gc"):
            collections_line = line[2:]
            continue
        wall, cpu, queued, _, where = line.split(" ", 4)
        slow.append((float(wall), float(cpu), float(queued), where))
    print(f"loop probe: {totals}")
    print(f"  the garbage collector's collections in the server process: {collections_line[3:]}")
    for bound in (5, 10, 20, 50, 100):
        print(f"  callbacks with >= {bound} ms of CPU: "
              f"{sum(1 for _, c, _, _ in slow if c >= bound)}, of wall time: "
              f"{sum(1 for w, _, _, _ in slow if w >= bound)}, of wall time less the wait for "
              f"a CPU: {sum(1 for w, _, q, _ in slow if w - q >= bound)}, blocked (wall less "
              f"CPU and that wait): {sum(1 for w, c, q, _ in slow if w - c - q >= bound)}")
    print(f"  in the callbacks of >= 5 ms: wall {sum(s[0] for s in slow):.0f} ms, CPU "
          f"{sum(s[1] for s in slow):.0f} ms, waiting for a CPU {sum(s[2] for s in slow):.0f} ms")
    by_place: dict[str, list[float]] = collections.defaultdict(list)
    for _, cpu, _, where in slow:
        if cpu >= 5:
            by_place[re.sub(r"function\d+", "F", where)[-240:]].append(cpu)
    print("  where the CPU-heavy callbacks suspended next (count, sum, max ms):")
    for where, cpus in sorted(by_place.items(), key=lambda item: -sum(item[1]))[:shown]:
        print(f"    {len(cpus):4d} {sum(cpus):7.0f} {max(cpus):6.0f}  {where}")
    blocked: dict[str, list[float]] = collections.defaultdict(list)
    for wall, cpu, queued, where in slow:
        if wall - cpu - queued >= 5:
            blocked[re.sub(r"function\d+", "F", where)[-160:]].append(wall - cpu - queued)
    print("  where the callbacks blocked 5 ms or more (not on the CPU, not waiting for one: "
          "the GIL, a blocking call) suspended next (count, sum, max ms):")
    for where, times in sorted(blocked.items(), key=lambda item: -sum(item[1]))[:shown]:
        print(f"    {len(times):4d} {sum(times):7.0f} {max(times):6.0f}  {where}")


def heaviest(path: Path, shown: int = 25) -> None:
    """The frames of the server's main thread that py-spy saw most (self and total), from
    its collapsed stacks."""
    if not path.exists():
        print(f"py-spy wrote nothing to {path} (is py-spy installed, may it ptrace?)")
        return
    total: collections.Counter[str] = collections.Counter()
    leaf: collections.Counter[str] = collections.Counter()
    samples = 0
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit() or "MainThread" not in stack.split(";", 1)[0]:
            continue
        frames = stack.split(";")[1:]
        samples += int(count)
        for frame in set(frames):
            total[frame] += int(count)
        if frames:
            leaf[frames[-1]] += int(count)
    print(f"py-spy: {samples} samples of the main thread busy (not waiting for I/O)")
    for frame, count in total.most_common(shown):
        print(f"  {count / max(1, samples):6.1%} total  {leaf[frame] / max(1, samples):6.1%} "
              f"self  {frame[:160]}")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=30.0,
                        help="how long codeAction requests are sent")
    parser.add_argument("--reply-s", type=float, default=0.3,
                        help="seconds the scripted model takes for each reply")
    parser.add_argument("--requests-s", type=float, default=50.0,
                        help="codeAction requests per second (at most; one at a time)")
    parser.add_argument("--stagger", type=float, default=0.5,
                        help="seconds between the workers' first runs")
    parser.add_argument("--start-window", type=float, default=1.0)
    parser.add_argument("--edit-every", type=int, default=10)
    parser.add_argument("--settle", type=float, default=4.0,
                        help="seconds between initialize and the first request")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--py-spy", type=Path, metavar="FILE",
                        help="record the server with py-spy into FILE (collapsed stacks)")
    parser.add_argument("--loop-probe", type=Path, metavar="FILE",
                        help="time every callback of the server's loop by its CPU and wall "
                             "time (scripts/loop_probe.py) into FILE; print the heaviest")
    parser.add_argument("--server-env", action="append", default=[], metavar="KEY=VALUE",
                        help="an environment variable for the server (repeatable), e.g. "
                             "CODETEAM_STDIN_THREAD=1 to compare with pygls's reader")
    parser.add_argument("--asyncio-debug", action="store_true",
                        help="run the server in asyncio debug mode; print its slow callbacks")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="codeteam-bench-") as folder:
        os.chmod(folder, 0o755)  # the sandbox's uid reads the project
        await bench(args, Path(folder))


if __name__ == "__main__":
    asyncio.run(main())
