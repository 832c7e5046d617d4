"""Benchmark: does codeteam run every project test that calls a function, and do its verdicts
agree with pytest? (issue 12's figures; not a test: it prints a table.)

For each function (``FILE::QUALNAME``, FILE relative to the project root):

- *pytest's count*: the tests during which the function was called, measured independently of
  codeteam: the project's whole suite (pytest's default arguments: ``testpaths``, ``addopts``)
  run once per project, trusted and unsandboxed, with a small tracing plugin written here;
- *selected / ran*: the pytest tests codeteam chose (``with_project_tests``: only the test
  files naming the function are run, in the sandbox) and how many of them ran;
- the verdict on the original code (every test that ran must pass) and on a deliberately
  wrong body (``raise NotImplementedError`` after the docstring: some test must fail);
- *judged*: how many of the original's pytest verdicts were decided outside the code's process
  (``TestOutcome.trusted``; the others ran the old way, in the code's own process);
- seconds: selection and each candidate run (wall clock).

Usage::

    .venv/bin/python scripts/bench_project_tests.py \\
        --project /tmp/projects/inflection-0.5.1 --python /tmp/venvs/inflection/bin/python \\
        --functions inflection/__init__.py::pluralize,inflection/__init__.py::underscore \\
        [--project ... --python ... --functions ...] [--sandbox bwrap] [--json out.json]
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from codeteam.documents import task_for, with_project_tests
from codeteam.execution.sandbox import SandboxPolicy
from codeteam.execution.suite import run_suite as run_all
from codeteam.pysource.functions import dedent_function, function_text, locate

TRUTH_PLUGIN = '''
import json, os, sys, threading
TARGETS = json.loads(os.environ["BENCH_TARGETS"])  # [[abs file, name, firstlineno], ...]
KEYS = {(os.path.realpath(f), n, l): i for i, (f, n, l) in enumerate(TARGETS)}
NAMES = {n for _, n, _ in TARGETS}
calls = [0] * len(TARGETS)
real = {}
results = []
def profile(frame, event, arg):
    if event != "call":
        return
    code = frame.f_code
    if code.co_name not in NAMES:
        return
    path = real.get(code.co_filename)
    if path is None:
        path = real[code.co_filename] = os.path.realpath(code.co_filename)
    index = KEYS.get((path, code.co_name, code.co_firstlineno))
    if index is not None:
        calls[index] += 1
def pytest_runtest_logstart(nodeid, location):
    for i in range(len(calls)):
        calls[i] = 0
    sys.setprofile(profile)
    threading.setprofile(profile)
outcomes = {}
def pytest_runtest_logreport(report):
    if report.when == "call" or report.outcome != "passed":
        outcomes.setdefault(report.nodeid, report.outcome)
def pytest_runtest_logfinish(nodeid, location):
    sys.setprofile(None)
    results.append([nodeid, outcomes.get(nodeid, "passed"), [i for i, c in enumerate(calls) if c]])
def pytest_sessionfinish(session):
    with open(os.environ["BENCH_OUT"], "w") as handle:
        json.dump(results, handle)
'''


def truth(root: Path, python: str, functions: list[tuple[str, str, int]]) -> list[list]:
    """[[nodeid, outcome, [indexes of the functions it called]], ...] for the whole suite."""
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "bench_truth_plugin.py").write_text(TRUTH_PLUGIN)
        out = Path(folder, "out.json")
        env = {**os.environ, "PYTHONPATH": folder, "BENCH_OUT": str(out),
               "BENCH_TARGETS": json.dumps(functions), "PYTHONDONTWRITEBYTECODE": "1"}
        subprocess.run([python, "-m", "pytest", "-q", "-p", "bench_truth_plugin",
                        "-p", "no:cacheprovider", "--continue-on-collection-errors"],
                       cwd=root, env=env, capture_output=True, text=True, check=False)
        return json.loads(out.read_text()) if out.exists() else []


def wrong_body(stub: str) -> str:
    """The function (column 0) with its body replaced by ``raise NotImplementedError`` (the
    docstring kept)."""
    tree = ast.parse(stub)
    node = tree.body[0]
    lines = stub.splitlines(keepends=True)
    first = node.body[0]
    keep_to = first.lineno - 1
    if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)):
        keep_to = first.end_lineno
    indent = " " * first.col_offset
    head = "".join(lines[:keep_to])
    if first.lineno == node.lineno:  # one-line def: `def f(x): return x`
        head = stub[: stub.index(":", len("".join(lines[: node.lineno - 1]))) + 1] + "\n"
        indent = "    "
    return head + f"{indent}raise NotImplementedError\n"


async def bench_function(root: Path, python: str, spec: str, policy: SandboxPolicy) -> dict:
    file, qualname = spec.split("::")
    path = (root / file).resolve()
    text = path.read_text(encoding="utf-8")
    started = time.monotonic()
    task = task_for(text, qualname, path=path, workspace_root=root)
    task = await with_project_tests(task, path=path, root=root, policy=policy, python=python)
    selection_s = time.monotonic() - started
    pytest_tests = [t for t in task.public_tests if t.kind == "pytest"]
    selected = [t for t in pytest_tests if t.skip_reason is None]
    info = locate(text, qualname)
    original = dedent_function(function_text(text, info))
    started = time.monotonic()
    good = await run_all(task, task.program_with(original), task.public_tests, policy)
    original_s = time.monotonic() - started
    started = time.monotonic()
    bad = await run_all(task, task.program_with(wrong_body(original)), task.public_tests, policy)
    wrong_s = time.monotonic() - started
    by_id = {o.test_id: o for o in good.outcomes}
    ran = [t for t in selected if by_id[t.id].status != "skipped"]
    return {
        "function": spec,
        "first_line": info.start_line + 1,
        "name": info.name,
        "selected": [t.id for t in selected],
        "not_run": {t.id: t.skip_reason for t in pytest_tests if t.skip_reason is not None},
        "ran": len(ran),
        "original_passed": sum(by_id[t.id].status == "passed" for t in ran),
        "original_failures": [(o.test_id, o.status, o.message[:200]) for o in good.failures],
        "original_verdict": "pass" if good.all_passed else "fail",
        "wrong_failed": len(bad.failures),
        "wrong_verdict": "pass" if bad.all_passed else "fail",
        # pytest verdicts decided outside the code's process (judged) / in it (one process)
        "original_trusted": sum(by_id[t.id].trusted for t in ran),
        "wrong_trusted": sum(o.trusted for o in bad.outcomes
                             if o.test_id in {t.id for t in ran}),
        "stdlib_doctests": sum(t.kind == "doctest" for t in task.public_tests),
        "seconds": {"selection": round(selection_s, 2), "original": round(original_s, 2),
                    "wrong": round(wrong_s, 2)},
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", action="append", type=Path, required=True)
    parser.add_argument("--python", action="append", required=True)
    parser.add_argument("--functions", action="append", required=True)
    parser.add_argument("--sandbox", default="bwrap")
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    policy = SandboxPolicy(mode=args.sandbox, timeout_s=args.timeout, cpu_s=int(args.timeout),
                           per_test_timeout_s=10)
    rows = []
    for root, python, functions in zip(args.project, args.python, args.functions, strict=True):
        root = root.resolve()
        specs = functions.split(",")
        targets = []
        for spec in specs:
            file, qualname = spec.split("::")
            info = locate((root / file).read_text(encoding="utf-8"), qualname)
            targets.append([str((root / file).resolve()), info.name, info.start_line + 1])
        started = time.monotonic()
        suite = truth(root, python, targets)
        suite_s = time.monotonic() - started
        print(f"# {root.name}: the whole suite, traced: {len(suite)} tests, {suite_s:.1f} s",
              file=sys.stderr)
        for index, spec in enumerate(specs):
            row = await bench_function(root, python, spec, policy)
            calling = [(n, o) for n, o, hit in suite if index in hit]
            row["project"] = root.name
            row["pytest_calling"] = len(calling)
            row["pytest_calling_ran"] = sum(o != "skipped" for _, o in calling)
            row["missed"] = sorted({n for n, _ in calling} - set(row["selected"])
                                   - set(row["not_run"]))
            rows.append(row)
            print(f"# {spec}: done", file=sys.stderr)
    header = ("project", "function", "pytest calls", "selected", "ran", "orig passed",
              "orig verdict", "wrong failed", "wrong verdict", "judged", "not run", "missed",
              "sel s", "run s", "wrong s")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(str(v) for v in (
            row["project"], row["function"].split("::")[1], row["pytest_calling_ran"],
            len(row["selected"]), row["ran"], row["original_passed"], row["original_verdict"],
            row["wrong_failed"], row["wrong_verdict"], row["original_trusted"],
            len(row["not_run"]), len(row["missed"]), row["seconds"]["selection"],
            row["seconds"]["original"], row["seconds"]["wrong"])) + " |")
    total = sum(r["pytest_calling_ran"] for r in rows)
    ran = sum(r["ran"] for r in rows)
    print(f"\ntotal: pytest {total} tests calling the functions, codeteam ran {ran} "
          f"({100 * ran / max(total, 1):.1f}%); originals passing: "
          f"{sum(r['original_verdict'] == 'pass' for r in rows)}/{len(rows)}; wrong bodies "
          f"failing: {sum(r['wrong_verdict'] == 'fail' for r in rows)}/{len(rows)}; pytest "
          f"verdicts judged outside the code's process: originals "
          f"{sum(r['original_trusted'] for r in rows)}/{ran}, wrong bodies "
          f"{sum(r['wrong_trusted'] for r in rows)}/{ran}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
