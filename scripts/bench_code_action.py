#!/usr/bin/env python
"""Benchmark: ``textDocument/codeAction`` answer times while 8 runs are in flight.

One ``codeteam serve`` over stdio (the minimal JSON-RPC client of scripts/bench_editor.py, so
client overhead stays out of the numbers), a 2,000-line module open, and the scripted
OpenAI-compatible model (tests/scripted_llm.py) answering slowly, so that every run stays in
flight. codeAction requests are sent one after another at random lines for the whole
measurement, with a didChange edit every ``--edit-every`` requests, while ``--runs``
"Generate with team" runs are started one every ``--stagger`` seconds on different
functions. Prints p50 / p99 / max for the whole measurement, for the windows in which a run
was starting (the first ``--start-window`` seconds after each start) and for the rest.

Usage::

    .venv/bin/python scripts/bench_code_action.py [--runs 8] [--requests-s 12] [--lines 2000]

Target (issue 13): p99 < 20 ms with 8 runs in flight. A benchmark, not a test: it prints
numbers and never fails on them.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT.parent / "tests"))

from bench_editor import Client, big_module, env_for, percentile

from scripted_llm import ScriptedLLM

CODER = r"You complete Python functions"
"""The coder's first call (the direct prompt), which every team run makes."""


def summary(name: str, times: list[float]) -> str:
    if not times:
        return f"{name}: no requests"
    return (f"{name}: {len(times)} requests, p50 {percentile(times, 0.5):.2f} ms, "
            f"p99 {percentile(times, 0.99):.2f} ms, max {max(times):.2f} ms")


async def bench(args: argparse.Namespace, folder: Path) -> None:
    with ScriptedLLM() as llm:
        # Slow replies: every run waits on its coder for the whole measurement.
        llm.hang(CODER, seconds=args.seconds + 60, times=None)
        client, _ = await Client.start(env_for(
            base_url=llm.base_url, ai_tests=0, max_rounds=1, timeout_s=600, max_retries=0,
        ))
        await client.initialize(folder)
        await asyncio.sleep(args.settle)  # the server's background imports end
        text = big_module(args.lines, args.seed)
        lines = text.split("\n")
        path = folder / "big_module.py"
        path.write_text(text)
        uri = path.as_uri()
        version = 1
        client.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "python", "version": version, "text": text}})
        defs = [line for line in lines if line.startswith("def function")]
        targets = defs[:: max(1, len(defs) // args.runs)][: args.runs]

        started_at: list[float] = []
        commands: list[asyncio.Future] = []

        async def start_runs() -> None:
            for target_def in targets:
                await asyncio.sleep(args.stagger)
                target = lines.index(target_def)  # where it is now, after the edits
                started_at.append(time.perf_counter())
                commands.append(client.request("workspace/executeCommand", {
                    "command": "codeteam.generate",
                    "arguments": [{"uri": uri, "position": {"line": target, "character": 4}}],
                }))

        starter = asyncio.ensure_future(start_runs())
        rng = random.Random(args.seed)
        samples: list[tuple[float, float]] = []
        edits = 0
        began = time.perf_counter()
        number = 0
        while time.perf_counter() - began < args.seconds:
            number += 1
            if number % args.edit_every == 0:
                line = rng.randrange(len(lines))
                lines.insert(line, "# typed")
                version += 1
                edits += 1
                client.notify("textDocument/didChange", {
                    "textDocument": {"uri": uri, "version": version},
                    "contentChanges": [{"range": {"start": {"line": line, "character": 0},
                                                  "end": {"line": line, "character": 0}},
                                        "text": "# typed\n"}],
                })
            line = rng.randrange(len(lines))
            sent = time.perf_counter()
            answer = await client.request("textDocument/codeAction", {
                "textDocument": {"uri": uri},
                "range": {"start": {"line": line, "character": 4},
                          "end": {"line": line, "character": 5}},
                "context": {"diagnostics": []},
            })
            samples.append((sent, (time.perf_counter() - sent) * 1000))
            assert "error" not in answer, answer
            await asyncio.sleep(1 / args.requests_s)
        await starter
        in_flight = args.runs - sum(command.done() for command in commands)
        requests_seen = len(llm.requests)

        def starting(moment: float) -> bool:
            return any(0 <= moment - start <= args.start_window for start in started_at)

        all_times = [ms for _, ms in samples]
        print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}")
        print(f"{len(lines)}-line module, {args.runs} runs started {args.stagger} s apart, "
              f"{in_flight} still in flight at the end ({requests_seen} model requests "
              f"waiting), {edits} didChange edits")
        print(summary("codeAction, whole measurement", all_times))
        print(summary(f"codeAction within {args.start_window} s of a run start",
                      [ms for moment, ms in samples if starting(moment)]))
        print(summary("codeAction otherwise", [ms for moment, ms in samples
                                               if not starting(moment)]))
        for command in commands:
            if command.done():
                print("a run ended early:", str(command.result())[:300])
        slowest = sorted(samples, key=lambda s: -s[1])[:5]
        print("slowest: " + ", ".join(f"{ms:.1f} ms at +{moment - began:.2f} s"
                                      for moment, ms in slowest))
        client.request("workspace/executeCommand", {"command": "codeteam.cancel",
                                                     "arguments": []})
        await asyncio.wait_for(asyncio.gather(*commands, return_exceptions=True), 30)
        await client.shutdown()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=20.0,
                        help="how long codeAction requests are sent")
    parser.add_argument("--requests-s", type=float, default=50.0,
                        help="codeAction requests per second (at most; one at a time)")
    parser.add_argument("--stagger", type=float, default=1.0,
                        help="seconds between run starts")
    parser.add_argument("--start-window", type=float, default=1.0)
    parser.add_argument("--edit-every", type=int, default=10)
    parser.add_argument("--settle", type=float, default=4.0,
                        help="seconds between initialize and the first request")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="codeteam-bench-") as folder:
        await bench(args, Path(folder))


if __name__ == "__main__":
    asyncio.run(main())
