"""The scoring ceiling of ``codeteam bench --repo``: the same run with an "oracle" model that
answers every request for a function's code with the project's original function.

A scripted OpenAI-compatible server on 127.0.0.1 (tests/scripted_llm.py) answers each request
whose prompt shows a task's stub (the ```python block of the coder's prompts) with the original
function, and every other request (analyst, tester, planner) with a short plan and no tests.
Every pipeline should then score 100% of the tasks whose original passes its tests; anything
less is a scoring problem (a test that depends on state, a flaky test, a function the body
cut breaks), not a model's.

    .venv/bin/python scripts/bench_repo_oracle.py --repo PATH --out DIR \\
        [--functions PATTERNS] [--limit N] [--pipelines direct,team]
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from codeteam.bench.bench_run import BenchConfig, run_bench
from codeteam.bench.repo import find_candidates, stub_module
from codeteam.pysource.functions import dedent_function, function_text
from codeteam.settings import load_settings
from scripted_llm import ScriptedLLM

PLAN = "1. Read the input.\n2. Return the result."


def _normal(text: str) -> str:
    return re.sub(r"\s+", "", text)


def null_body(stub: str) -> str:
    """The stub with ``return None`` as its body (indented like the docstring)."""
    found = re.search(r"\n([ \t]+)[rRuUbB]*(\"\"\"|\'\'\'|\"|\')", stub)
    indent = found.group(1) if found else "    "
    return stub.rstrip() + f"\n{indent}return None\n"


def script_oracle(scripted: ScriptedLLM, root: Path, patterns: list[str] | None,
                  null: bool = False) -> int:
    """One rule per candidate function (its stub in a code block -> the original function,
    or with ``null`` the stub with ``return None``); returns how many."""
    candidates, _, _ = find_candidates(root, patterns)
    for candidate in candidates:
        try:
            stub_text, stub_info = stub_module(candidate.text, candidate.info)
        except LookupError:
            continue
        stub = dedent_function(function_text(stub_text, stub_info))
        original = dedent_function(function_text(candidate.text, candidate.info))
        needle = _normal("```python\n" + stub + "\n```")

        def match(body: dict, needle: str = needle) -> bool:
            text = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
            return needle in _normal(text)

        answer = null_body(stub) if null else original
        scripted.reply(match, f"```python\n{answer.rstrip()}\n```", times=None)
    scripted.reply(None, PLAN, times=None)
    return len(candidates)


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--functions", default=None)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--pipelines", default="direct,team")
    parser.add_argument("--null", action="store_true",
                        help="answer with 'return None' bodies instead: how many tasks the "
                        "project's tests cannot tell from a function that does nothing")
    args = parser.parse_args()
    patterns = [p for p in (args.functions or "").split(",") if p] or None
    started = time.monotonic()
    with ScriptedLLM() as scripted:
        rules = script_oracle(scripted, args.repo.resolve(), patterns, null=args.null)
        settings, problems = load_settings(
            {"base_url": scripted.base_url, "model": "null" if args.null else "oracle",
             "max_retries": 0}, env=False)
        assert not problems, problems
        summary = await run_bench(
            BenchConfig(repo=args.repo, functions=patterns, limit=args.limit,
                        pipelines=args.pipelines.split(","), out=args.out, progress=False),
            settings=settings,
        )
        print(f"oracle: {rules} scripted functions, {len(scripted.requests)} requests, "
              f"{len(scripted.unmatched)} unmatched, {time.monotonic() - started:.0f} s",
              file=sys.stderr)
    return 0 if summary else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
