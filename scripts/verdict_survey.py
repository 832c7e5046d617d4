"""Survey: does codeteam's verdict equal plain pytest's, per test, on real projects? (issue 24's
figures; a script, not a test: it prints a table.)

For each function (``FILE::QUALNAME``, FILE relative to the project root):

- *pytest*: the project's whole suite run once by its own interpreter, outside codeteam and
  any sandbox (pytest's default arguments: ``testpaths``, ``addopts``, ``--doctest-glob``;
  ``PYTHONHASHSEED=0`` and ``setarch -R`` as in codeteam's sandbox, so that tests
  parametrized over a set have the ids codeteam's sessions give them), with
  a small tracing plugin written here that records, per test, its outcome and which of the
  surveyed functions were entered during it (``sys.setprofile``);
- *codeteam*: what "Review with tester" runs: the task
  (:func:`codeteam.service.documents.task_for`), the project's tests chosen by codeteam
  (:func:`codeteam.service.documents.with_project_tests`) and one judged run of them
  (:func:`codeteam.execution.suite.run_suite`) on the function as it is ("correct": plain
  pytest's outcome is the truth) and on the mutant whose body is
  ``return None`` (docstring kept; "caught" when codeteam's verdict is not a pass);
- *ran*: of the tests plain pytest ran that call the function, those codeteam ran; *named*:
  those codeteam reported as not run, with a reason; *missed*: the others (silently left out);
- *agree*: codeteam's outcome equals pytest's (passed = a judged pass; failed = failed, error
  or timeout); *not judged*: codeteam's "not judged" with its reason; *differ*: the rest;
- the docstring examples codeteam runs itself (outside the project's configuration) are
  counted apart (``doc``: passed/total on the correct code).

Usage::

    .venv/bin/python scripts/verdict_survey.py \\
        --project /tmp/p/semver --functions src/semver/version.py::Version.bump_major,... \\
        [--project ... --functions ...] [--sandbox bwrap] [--json out.json]

``--python`` (per project) defaults to the project's ``.venv/bin/python``.
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import inspect
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from codeteam.execution.sandbox import SandboxPolicy
from codeteam.execution.suite import run_suite
from codeteam.pysource.functions import dedent_function, function_text, locate
from codeteam.service.documents import task_for, with_project_tests

try:  # (a node id past its limit is reported as its head and a digest)
    from codeteam.execution.pytest_plugin import _short_id
except ImportError:  # an older checkout: node ids whole
    def _short_id(nodeid: str) -> str:
        return nodeid

TRUTH_PLUGIN = '''
import json, os, sys, threading
TARGETS = json.loads(os.environ["SURVEY_TARGETS"])  # [[abs file, name, firstlineno, def line], ...]
KEYS = {}
for i, (f, n, *lines) in enumerate(TARGETS):
    for l in set(lines):  # (typeguard's @typechecked compiles the function again: def's line)
        KEYS.setdefault((os.path.realpath(f), n, l), []).append(i)
NAMES = {t[1] for t in TARGETS}
hit = set()
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
    for index in KEYS.get((path, code.co_name, code.co_firstlineno), ()):
        hit.add(index)
def pytest_runtest_logstart(nodeid, location):
    hit.clear()
    sys.setprofile(profile)
    threading.setprofile(profile)
outcomes = {}
def pytest_runtest_logreport(report):
    if report.when == "call" and hasattr(report, "wasxfail"):
        outcome = "xfailed" if report.skipped else "xpassed"
    elif report.when == "setup" and report.skipped and hasattr(report, "wasxfail"):
        outcome = "xfailed"
    elif report.failed and report.when != "call":
        outcome = "error"
    else:
        outcome = report.outcome
    if report.when == "call" or outcome != "passed":
        if outcome == "failed" and outcomes.get(report.nodeid) == "passed":
            outcomes[report.nodeid] = outcome  # a failed subtest after a passing one
        outcomes.setdefault(report.nodeid, outcome)
def pytest_runtest_logfinish(nodeid, location):
    sys.setprofile(None)
    threading.setprofile(None)
    results.append([nodeid, outcomes.get(nodeid, "passed"), sorted(hit)])
def pytest_sessionfinish(session):
    with open(os.environ["SURVEY_OUT"], "w") as handle:
        json.dump(results, handle)
'''

PASSING = {"passed", "xpassed"}
NOT_RUN = {"skipped", "xfailed"}


def truth(root: Path, python: str, functions: list[list]) -> tuple[list[list], float]:
    """``[[nodeid, outcome, [indexes of the functions it called]], ...]`` for the whole suite
    as plain pytest runs it (the project's interpreter, its own configuration), and seconds."""
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "survey_truth_plugin.py").write_text(TRUTH_PLUGIN)
        out = Path(folder, "out.json")
        env = {**os.environ, "PYTHONPATH": folder, "SURVEY_OUT": str(out),
               "SURVEY_TARGETS": json.dumps(functions), "PYTHONDONTWRITEBYTECODE": "1",
               "PYTHONHASHSEED": "0"}
        # (the hash seed and, with setarch, the addresses of codeteam's sessions: a suite that
        # parametrizes over a set names its tests as codeteam's sessions do)
        setarch = shutil.which("setarch")
        prefix = [setarch, os.uname().machine, "-R"] if setarch else []
        started = time.monotonic()
        subprocess.run([*prefix, python, "-m", "pytest", "-q", "-p", "survey_truth_plugin",
                        "-p", "no:cacheprovider"],
                       cwd=root, env=env, capture_output=True, text=True, check=False)
        seconds = time.monotonic() - started
        return (json.loads(out.read_text()) if out.exists() else []), seconds


async def suite(task, program, tests, policy):
    """``run_suite`` of this checkout (its signature changed with the one judge)."""
    if "task" in inspect.signature(run_suite).parameters:
        return await run_suite(task, program, tests, policy)
    return await run_suite(program, tests, policy)


def mutant_body(function: str) -> str:
    """The function (column 0) with its body replaced by ``return None`` (docstring kept)."""
    tree = ast.parse(function)
    node = tree.body[0]
    lines = function.splitlines(keepends=True)
    first = node.body[0]
    keep_to = first.lineno - 1
    if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)):
        keep_to = first.end_lineno
    indent = " " * first.col_offset
    head = "".join(lines[:keep_to])
    if first.lineno == node.lineno:  # one-line def: `def f(x): return x`
        head = function[: function.index(":", len("".join(lines[: node.lineno - 1]))) + 1] + "\n"
        indent = "    "
    return head + f"{indent}return None\n"


def verdict(outcome) -> str:
    """codeteam's outcome in pytest's words: passed / failed / not run / not judged."""
    if outcome is None:
        return "missing"
    if outcome.status == "skipped":
        return "not run"
    if outcome.verdict == "not judged":
        return "not judged"
    return "passed" if outcome.status == "passed" else "failed"


def report_verdict(run) -> str:
    if run.all_passed:
        return "pass"
    if run.ran and not run.failures:
        return "not judged"
    return "fail" if run.ran else "untested"


async def survey_function(root: Path, python: str, spec: str, policy: SandboxPolicy,
                          calling: dict[str, str]) -> dict:
    file, qualname = spec.split("::")
    path = (root / file).resolve()
    text = path.read_text(encoding="utf-8")
    started = time.monotonic()
    task = task_for(text, qualname, path=path, workspace_root=root)
    task = await with_project_tests(task, path=path, root=root, policy=policy, python=python)
    selection_s = time.monotonic() - started
    info = locate(text, qualname)
    original = dedent_function(function_text(text, info))
    started = time.monotonic()
    good = await suite(task, task.program_with(original), task.public_tests, policy)
    correct_s = time.monotonic() - started
    started = time.monotonic()
    bad = await suite(task, task.program_with(mutant_body(original)), task.public_tests, policy)
    mutant_s = time.monotonic() - started
    by_test = {t.id: t for t in task.public_tests}
    good_by = {o.test_id: o for o in good.outcomes}
    project_ids = [t.id for t in task.public_tests if t.kind == "pytest"]
    ran, named, missed = [], {}, []
    agree, not_judged, differ, examples = 0, Counter(), [], {}
    for nodeid, outcome in calling.items():
        mine = good_by.get(nodeid)
        if outcome in NOT_RUN:
            continue  # pytest did not run it either
        if mine is None:
            missed.append(nodeid)
            continue
        seen = verdict(mine)
        if seen == "not run":
            named[nodeid] = mine.message or by_test[nodeid].skip_reason or "?"
            continue
        ran.append(nodeid)
        truth_word = "passed" if outcome in PASSING else "failed"
        if seen == truth_word:
            agree += 1
        elif seen == "not judged":
            why = (getattr(mine, "untrusted_reason", None) or mine.message or "?")[:300]
            not_judged[why] += 1
            examples.setdefault(why, nodeid)
        else:
            differ.append((nodeid, outcome, seen, (mine.message or "")[:200]))
    extra = [i for i in project_ids if i not in calling and verdict(good_by.get(i)) != "not run"]
    docs = [t for t in task.public_tests if t.kind != "pytest"]
    doc_passed = sum(1 for t in docs if verdict(good_by.get(t.id)) == "passed")
    return {
        "function": spec,
        "pytest_calling": sum(1 for o in calling.values() if o not in NOT_RUN),
        "ran": len(ran),
        "named": named,
        "missed": missed,
        "extra_ran": extra,
        "agree": agree,
        "not_judged": dict(not_judged),
        "not_judged_example": examples,  # reason -> one test given it
        "differ": differ,
        "doc": [doc_passed, len(docs)],
        "correct_verdict": report_verdict(good),
        "correct_failures": [(o.test_id, o.status, (o.message or "")[:200])
                             for o in good.failures][:10],
        "mutant_verdict": report_verdict(bad),
        "seconds": {"selection": round(selection_s, 1), "correct": round(correct_s, 1),
                    "mutant": round(mutant_s, 1)},
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", action="append", type=Path, required=True)
    parser.add_argument("--python", action="append")
    parser.add_argument("--functions", action="append", required=True)
    parser.add_argument("--sandbox", default="bwrap")
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    pythons = args.python or [str(p.resolve() / ".venv" / "bin" / "python") for p in args.project]
    policy = SandboxPolicy(mode=args.sandbox, timeout_s=args.timeout)
    rows = []
    for root, python, functions in zip(args.project, pythons, args.functions, strict=True):
        root = root.resolve()
        specs = functions.split(",")
        targets = []
        for spec in specs:
            file, qualname = spec.split("::")
            info = locate((root / file).read_text(encoding="utf-8"), qualname)
            targets.append([str((root / file).resolve()), info.name, info.start_line + 1,
                            info.def_line + 1])
        suite, suite_s = truth(root, python, targets)
        print(f"# {root.name}: plain pytest, traced: {len(suite)} tests, {suite_s:.1f} s",
              file=sys.stderr)
        for index, spec in enumerate(specs):
            calling = {_short_id(n): o for n, o, hit in suite if index in hit}
            started = time.monotonic()
            try:
                row = await survey_function(root, python, spec, policy, calling)
            except Exception as error:  # noqa: BLE001 - a survey row, not a crash
                row = {"function": spec, "crash": f"{type(error).__name__}: {error}",
                       "pytest_calling": len(calling)}
            row["project"] = root.name
            row["seconds_total"] = round(time.monotonic() - started, 1)
            rows.append(row)
            print(f"# {spec}: {row.get('correct_verdict', row.get('crash'))}, "
                  f"{row['seconds_total']} s", file=sys.stderr)
            if args.json:  # the rows so far: a long survey cut short keeps what it measured
                args.json.write_text(json.dumps(rows, indent=2))
    print_table(rows)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


def print_table(rows: list[dict]) -> None:
    header = ("project", "function", "pytest", "ran", "named", "missed", "agree",
              "not judged", "differ", "doc", "correct", "mutant", "s")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        if "crash" in row:
            print(f"| {row['project']} | {row['function'].split('::')[1]} | "
                  f"{row['pytest_calling']} | crash: {row['crash'][:100]} |")
            continue
        print("| " + " | ".join(str(v) for v in (
            row["project"], row["function"].split("::")[1], row["pytest_calling"], row["ran"],
            len(row["named"]), len(row["missed"]), row["agree"],
            sum(row["not_judged"].values()), len(row["differ"]),
            f"{row['doc'][0]}/{row['doc'][1]}", row["correct_verdict"], row["mutant_verdict"],
            row["seconds_total"])) + " |")
    ok = [r for r in rows if "crash" not in r]
    total = sum(r["pytest_calling"] for r in rows)
    ran = sum(r["ran"] for r in ok)
    named = sum(len(r["named"]) for r in ok)
    agree = sum(r["agree"] for r in ok)
    nj = sum(sum(r["not_judged"].values()) for r in ok)
    print(f"\n{len(rows)} functions; plain pytest ran {total} tests calling them; codeteam ran "
          f"{ran} ({100 * ran / max(total, 1):.1f}%), named {named} not run, missed "
          f"{sum(len(r['missed']) for r in ok)}; of those ran: agree {agree}, not judged {nj} "
          f"({100 * nj / max(ran, 1):.1f}%), differ {sum(len(r['differ']) for r in ok)}; "
          f"correct code passed {sum(r['correct_verdict'] == 'pass' for r in ok)}/{len(rows)} "
          f"(not judged {sum(r['correct_verdict'] == 'not judged' for r in ok)}); mutants "
          f"caught {sum(r['mutant_verdict'] in ('fail',) for r in ok)}/{len(rows)}; "
          f"crashed {len(rows) - len(ok)}")
    reasons = Counter()
    for r in ok:
        for nodeid, why in r["named"].items():
            reasons[why[:100]] += 1
    if reasons:
        print("\nnot run, by reason:")
        for why, n in reasons.most_common(12):
            print(f"  {n:5d}  {why}")
    nj_reasons = Counter()
    for r in ok:
        nj_reasons.update(r["not_judged"])
    if nj_reasons:
        print("\nnot judged, by reason:")
        for why, n in nj_reasons.most_common(8):
            print(f"  {n:5d}  {why}")
    for r in ok:
        for nodeid, truth_word, seen, message in r["differ"][:3]:
            print(f"differ {r['function']}: {nodeid}: pytest {truth_word}, codeteam {seen}: "
                  f"{message}")
        for nodeid in r["missed"][:3]:
            print(f"missed {r['function']}: {nodeid}")
        if r["correct_verdict"] != "pass":
            for nodeid, status, message in r["correct_failures"][:3]:
                print(f"correct code {r['function']}: {nodeid} {status}: {message}")


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
