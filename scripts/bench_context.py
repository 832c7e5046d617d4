"""Project context recall and prompt size on real multi-module projects (issue 16).

    .venv/bin/python scripts/bench_context.py PROJECT_ROOT [PROJECT_ROOT ...] \\
        [--per-project 25] [--budget 1500] [--out results.jsonl]

For each project (an unpacked sdist, e.g. ``pip download --no-binary :all: --no-deps
humanize boltons``), the functions and methods whose body uses at least one definition of
the project are found; up to ``--per-project`` of them, spread over the modules, are taken.
Each one's body is blanked (signature and docstring kept, the rest of the module as it is),
and ``direct`` is run on it the way ``codeteam run FILE --function NAME --pipeline direct``
does (``task_for`` with the file's path, then ``run_pipeline``), against the scripted
OpenAI-compatible model of the test suite (it answers with the original function), without
the docstring's examples as public tests (no sandbox run: only the prompt matters here).

Measured per function, on the request the scripted model received:

- *context recall*: the fraction of the project definitions the original body uses (found
  with jedi, searching the project's own folders: each name and attribute of the body,
  ``goto(follow_imports=True)``, kept when it leads to a function, class, method,
  module-level constant, or an instance attribute a method of a class assigns
  (``self._path = ...``), of a project file, not inside the function itself nor local to an
  enclosing function) whose signature (``def name(``, ``class name``, ``name =``/``name:``;
  an attribute: ``self.name``, its name in a class's ``# instance attributes`` line, or a
  class field of that name)
  appears in the request, in the section of that definition's file; split same-module /
  cross-module, and instance attributes counted apart too; cross-module also without the names the body imports itself (``from .core
  import X`` inside the function: nothing outside the body says it needs them);
- the prompt tokens (characters / 4 over all messages, as the budget counts them);
- the milliseconds ``task_for`` takes (the project context is nearly all of it), its result
  cache cleared before each function; parsed modules and jedi's caches stay warm, as in an
  editor session, and the first function of each project is reported apart (jedi's cold
  start); then ``build_project_context`` again on the same text (the cached context);
- the same recall and tokens for the whole-module context sent before (``Task.context()``).

A benchmark, not a test: nothing here asserts.
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import json
import re
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "server"))
sys.path.insert(0, str(REPO / "tests"))

import jedi

from codeteam.llm.provider import client_for
from codeteam.pipelines.registry import run_pipeline
from codeteam.project import project_for
from codeteam.project_context import build as context_build
from codeteam.project_context import build_project_context, estimate_tokens
from codeteam.project_context.sources import import_root, in_project, relative
from codeteam.pysource.functions import (
    char_column,
    find_functions,
    function_text,
    is_placeholder_body,
    locate,
    replace_span,
)
from codeteam.service.documents import task_for
from codeteam.settings import load_settings
from scripted_llm import ScriptedLLM

SKIP_PARTS = {"tests", "test", "docs", "doc", "examples", "benchmarks", "misc", "scripts"}


@dataclass
class Used:
    name: str
    kind: str
    path: str
    same_module: bool
    body_import: bool = False
    """The body imports it itself (``from .core import X`` inside the function)."""


@dataclass
class Sample:
    project: str
    path: Path
    qualname: str
    used: list[Used]
    found: list[bool] = field(default_factory=list)
    found_before: list[bool] = field(default_factory=list)
    prompt_tokens: int = 0
    context_tokens: int = 0
    before_tokens: int = 0
    build_ms: float = 0.0
    cached_ms: float = 0.0
    left_out: int = 0


def project_modules(root: Path) -> list[Path]:
    files = []
    for path in sorted(root.rglob("*.py")):
        parts = set(path.relative_to(root).parts[:-1])
        if parts & SKIP_PARTS or path.name.startswith(("test_", "_version", "setup", "conf")):
            continue
        if in_project(path, root):
            files.append(path)
    return files


def body_nodes(tree: ast.Module, def_line: int) -> tuple[ast.AST, list[ast.stmt]] | None:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.lineno - 1 == def_line:
            body = list(node.body)
            if (body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                    and isinstance(body[0].value.value, str)):
                body = body[1:]
            return node, body
    return None


def used_definitions(root: Path, path: Path, text: str, project, info) -> list[Used]:
    """What the original body uses of the project, by jedi."""
    tree = ast.parse(text)
    found = body_nodes(tree, info.def_line)
    if found is None:
        return []
    _, body = found
    if is_placeholder_body(body):
        return []
    lines = text.split("\n")
    script = jedi.Script(text, path=path, project=project)
    imported_here = {(alias.asname or alias.name).split(".")[0]
                     for stmt in body for node in ast.walk(stmt)
                     if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names}
    seen: dict[tuple[str, int], Used] = {}
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                line, column = node.lineno, char_column(lines[node.lineno - 1], node.col_offset)
                local = node.id in imported_here
            elif isinstance(node, ast.Attribute) and node.end_lineno is not None:
                end = char_column(lines[node.end_lineno - 1], node.end_col_offset or 0)
                line, column = node.end_lineno, end - len(node.attr)
                local = isinstance(node.value, ast.Name) and node.value.id in imported_here
            else:
                continue
            try:
                names = script.goto(line, column, follow_imports=True)
            except Exception:  # noqa: BLE001, S112 - jedi's failure: the name does not count
                continue
            for name in names:
                where = name.module_path
                if where is None or name.line is None or not in_project(Path(where), root):
                    continue
                if Path(where).resolve() == path.resolve() and (
                        info.start_line <= name.line - 1 <= info.end_line):
                    continue  # a local name of the function itself (or its recursion)
                if name.type not in ("function", "class", "statement"):
                    continue
                parent = name.parent()
                if parent is None:
                    continue
                if instance_attribute(name, parent):
                    kind = "attribute"
                elif parent.type not in ("module", "class") or (
                        name.type == "statement" and parent.type != "module"):
                    continue  # locals of an enclosing function: not definitions
                else:
                    kind = {"function": "def", "class": "class"}.get(name.type, "constant")
                key = (str(where), name.line)
                seen.setdefault(key, Used(name.name, kind, relative(Path(where), root),
                                          Path(where).resolve() == path.resolve(), local))
    return list(seen.values())


def instance_attribute(name, parent) -> bool:
    """Whether jedi's ``name`` is an instance attribute a method assigns (``self.x = ...``
    in a method of a class)."""
    if name.type != "statement" or parent.type != "function":
        return False
    owner = parent.parent()
    code = name.get_line_code() or ""
    return owner is not None and owner.type == "class" and re.search(
        rf"\bself\.{re.escape(name.name)}\b", code) is not None


def blanked(text: str, info) -> str:
    """The module with the function's body removed (decorators, header, docstring kept)."""
    lines = function_text(text, info).split("\n")
    head = lines[: info.body_start_line - info.start_line]
    if not info.docstring_lines:
        head.append(info.indent + "    ...")
    return replace_span(text, info.start_line, info.end_line, "\n".join(head) + "\n")


def sections(prompt: str) -> dict[str, str]:
    """The context block's text per file path (the file's ``# path`` header)."""
    out: dict[str, str] = {}
    for match in re.finditer(r"```python\n# (\S+)[^\n]*\n(.*?)```", prompt, re.DOTALL):
        out[match.group(1)] = out.get(match.group(1), "") + match.group(2)
    return out


def shown(text: str, used: Used) -> bool:
    name = re.escape(used.name)
    if used.kind == "attribute":  # assigned by a method, or a class field of that name
        return re.search(rf"\bself\.{name}\b", text) is not None or re.search(
            rf"^\s*# instance attributes:.*\b{name}\b", text, re.MULTILINE) is not None or (
            re.search(rf"^\s+{name}\s*(?::|=)", text, re.MULTILINE) is not None)
    if used.kind == "def":
        return re.search(rf"\bdef {name}\(", text) is not None
    if used.kind == "class":
        return re.search(rf"\bclass {name}\b", text) is not None
    return re.search(rf"^\s*{name}\s*(?::|=)", text, re.MULTILINE) is not None


def choose(root: Path, per_project: int) -> list[tuple[Path, object, list[Used], str]]:
    """Up to ``per_project`` functions whose body uses the project, round-robin over the
    modules (from the middle of each module outwards); jedi is asked only until enough are
    found."""
    queues = []
    for path in project_modules(root):
        text = path.read_text(encoding="utf-8")
        try:
            every = find_functions(text)
            names = [f.qualname for f in every]
            functions = [f for f in every  # by name: a name defined twice cannot be asked for
                         if f.end_line - f.body_start_line >= 2 and f.body_start_line > f.def_line
                         and names.count(f.qualname) == 1]
        except Exception:  # noqa: BLE001, S112 - a module that does not parse is not sampled
            continue
        project = jedi.Project(root, sys_path=[str(import_root(path)), str(root)],
                               smart_sys_path=False, load_unsafe_extensions=False)
        middle = len(functions) // 2
        ordered = sorted(functions, key=lambda f: abs(functions.index(f) - middle))
        queues.append((path, text, ordered, project))
    chosen = []
    while len(chosen) < per_project and any(q[2] for q in queues):
        for path, text, functions, project in queues:
            while functions and len(chosen) < per_project:
                info = functions.pop(0)
                used = used_definitions(root, path, text, project, info)
                if used:
                    chosen.append((path, info, used, text))
                    break
    return chosen


async def measure(root: Path, per_project: int, budget: int) -> list[Sample]:
    samples = []
    chosen = choose(root, per_project)
    with ScriptedLLM() as llm:
        settings, problems = load_settings(
            {"base_url": llm.base_url, "max_retries": 0, "timeout_s": 10,
             "context_tokens": budget}, env=False)
        assert not problems, problems
        client = await client_for(settings)
        try:
            for path, info, used, text in chosen:
                original = function_text(text, info)
                source = blanked(text, info)
                context_build._RESULTS.clear()
                started = time.perf_counter()
                task = task_for(source, info.qualname, path=path,
                                project=project_for(path, root), context_tokens=budget)
                build_ms = (time.perf_counter() - started) * 1000
                stub_info = locate(source, info.qualname)
                started = time.perf_counter()  # the same text again: the cached context
                build_project_context(source, stub_info, path=path, project_root=root,
                                      budget=budget)
                cached_ms = (time.perf_counter() - started) * 1000
                task = task.model_copy(update={"public_tests": []})
                llm.reply(None, "```python\n" + original.strip("\n") + "\n```")
                before = len(llm.requests)
                await run_pipeline("direct", task, settings=settings, client=client)
                request = llm.requests[before]
                messages = [str(m.get("content", "")) for m in request["messages"]]
                prompt = "\n".join(messages)
                parts = sections(prompt)
                own = relative(path, root)
                sample = Sample(root.name, path, info.qualname, used, build_ms=build_ms,
                                cached_ms=cached_ms)
                sample.found = [shown(parts.get(u.path, ""), u) for u in used]
                sample.prompt_tokens = sum(estimate_tokens(m) for m in messages)
                sample.context_tokens = task.project_context.tokens
                sample.left_out = len(task.project_context.left_out)
                old = task.context()
                sample.found_before = [u.path == own and shown(old, u) for u in used]
                stub = task.stub
                sample.before_tokens = estimate_tokens(messages[0]) + estimate_tokens(
                    f"The function lives in this module:\n```python\n{old}\n```\n\n"
                    f"Complete this function:\n```python\n{stub}\n```")
                samples.append(sample)
        finally:
            await client.close()
    return samples


def recall(samples: list[Sample], same: bool | None, before: bool = False,
           body_imports: bool = True, kind: str | None = None) -> tuple[int, int]:
    """(found, used) over the samples: same-module (``same``), cross-module (not), or both
    (None); of one ``kind`` only ("attribute", "constant", ...) when given."""
    hits = total = 0
    for sample in samples:
        marks = sample.found_before if before else sample.found
        for used, mark in zip(sample.used, marks):
            if used.body_import and not body_imports:
                continue
            if kind is not None and used.kind != kind:
                continue
            if same is None or used.same_module == same:
                total += 1
                hits += mark
    return hits, total


def table(samples_by_project: dict[str, list[Sample]]) -> str:
    rows = [("| project | functions | same-module recall | cross-module recall | cross-module, "
             "without names the body imports itself | instance attributes | module constants | "
             "mean prompt tokens (max) | mean context "
             "tokens | build ms: first, mean of rest (max) | cached ms | before: "
             "same / cross recall, mean prompt tokens |"),
            "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    every: list[Sample] = []
    for name, samples in list(samples_by_project.items()) + [("all", None)]:
        if samples is None:
            samples = every
        else:
            every += samples
        if not samples:
            continue
        same, cross = recall(samples, True), recall(samples, False)
        same_b, cross_b = recall(samples, True, True), recall(samples, False, True)
        tokens = [s.prompt_tokens for s in samples]
        rest = [s.build_ms for s in samples[1:]] or [samples[0].build_ms]
        first = f"{samples[0].build_ms:.0f}" if name != "all" else "-"

        def pct(pair):
            return f"{pair[0]}/{pair[1]} = {pair[0] / pair[1]:.0%}" if pair[1] else "-"

        own = recall(samples, False, body_imports=False)
        attributes = recall(samples, None, kind="attribute")
        constants = recall(samples, None, kind="constant")
        rows.append(
            f"| {name} | {len(samples)} | {pct(same)} | {pct(cross)} | {pct(own)} | "
            f"{pct(attributes)} | {pct(constants)} | "
            f"{statistics.mean(tokens):.0f} ({max(tokens)}) | "
            f"{statistics.mean(s.context_tokens for s in samples):.0f} | "
            f"{first}, {statistics.mean(rest):.0f} ({max(rest):.0f}) | "
            f"{statistics.mean(s.cached_ms for s in samples):.1f} | "
            f"{pct(same_b)} / {pct(cross_b)}, "
            f"{statistics.mean(s.before_tokens for s in samples):.0f} |")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("roots", nargs="+", type=Path)
    parser.add_argument("--per-project", type=int, default=25)
    parser.add_argument("--budget", type=int, default=1500)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--misses", action="store_true", help="list what was not found")
    args = parser.parse_args()
    results: dict[str, list[Sample]] = {}
    for root in args.roots:
        results[root.resolve().name] = asyncio.run(
            measure(root.resolve(), args.per_project, args.budget))
    print(table(results))
    if args.misses:
        for samples in results.values():
            for s in samples:
                for used, mark in zip(s.used, s.found):
                    if not mark:
                        print(f"miss: {s.project} {s.path.name} "
                              f"{s.qualname}: {used.kind} {used.name} ({used.path})"
                              + (" imported by the body itself" if used.body_import else ""))
    if args.out:
        with args.out.open("w") as handle:
            for samples in results.values():
                for s in samples:
                    handle.write(json.dumps({
                        "project": s.project, "file": str(s.path), "function": s.qualname,
                        "used": [u.__dict__ for u in s.used], "found": s.found,
                        "found_before": s.found_before, "prompt_tokens": s.prompt_tokens,
                        "context_tokens": s.context_tokens, "before_tokens": s.before_tokens,
                        "build_ms": round(s.build_ms, 1), "cached_ms": round(s.cached_ms, 1),
                        "left_out": s.left_out}) + "\n")


if __name__ == "__main__":
    main()
