"""The ``codeteam`` command: ``serve`` (the language server), ``run`` (one pipeline on one
function of a file), ``bench`` (benchmarks). Exit codes of ``run``: 0 the code passed its
tests or there were none to run; 1 no usable code, or tests still fail (the best code is still
printed and, with --write, written); 2 usage, settings or input errors."""

from __future__ import annotations

import argparse
import asyncio
import difflib
import logging
import sys
import time
from pathlib import Path

log = logging.getLogger("codeteam")

GENERATION_PIPELINES = ("direct", "plan", "team", "flow")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="codeteam",
        description="An analyst, a coder and a tester (LLM roles) plus real test execution, "
        "for Python functions: as a language server or from the command line.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log to stderr")
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="start the language server (stdio by default)")
    serve.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio")
    serve.add_argument("--log-file", metavar="PATH", help="also write the log to PATH")

    run = sub.add_parser("run", help="run a pipeline on one function of a file")
    run.add_argument("file", type=Path)
    run.add_argument("--function", required=True, metavar="NAME",
                     help="function name, or Class.method")
    run.add_argument("--pipeline", default="team",
                     choices=[*GENERATION_PIPELINES, "review", "plan-docstring"])
    run.add_argument("--write", action="store_true", help="apply the new function to FILE")
    run.add_argument("--diff", action="store_true", help="print a unified diff, not the function")
    run.add_argument("--json", action="store_true", help="print the whole result as JSON")
    run.add_argument("--workspace", type=Path, default=None,
                     help="folder searched for pytest tests (default: the file's folder)")
    run.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                     help="override a setting, e.g. --set max_rounds=2 (repeatable)")

    from codeteam.bench.cli import add_bench_parser

    add_bench_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    if args.command == "serve":
        from codeteam.editor.app import serve

        return serve(tcp=args.tcp, log_file=args.log_file)
    if args.command == "run":
        code = asyncio.run(_run(args))
    elif args.command == "bench":
        from codeteam.bench.cli import run_bench_command

        code = run_bench_command(args)
    else:
        return 2
    from codeteam.llm.embedded import exit_now_if_stop_stuck

    exit_now_if_stop_stuck(code)
    return code


def _progress(stage: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {stage}", file=sys.stderr, flush=True)


BOM = "\ufeff"


async def _run(args: argparse.Namespace) -> int:
    from codeteam.service import runs as service
    from codeteam.service.clients import OneClient
    from codeteam.settings import load_settings, parse_overrides

    try:
        overrides = parse_overrides(args.set)
    except ValueError as error:
        print(f"codeteam: {error}", file=sys.stderr)
        return 2
    settings, problems = load_settings(overrides)
    if problems:
        for problem in problems:
            print(f"codeteam: setting {problem}", file=sys.stderr)
        print("codeteam: nothing was run; fix the settings above (--set, CODETEAM_* variables) "
              "and run again", file=sys.stderr)
        return 2
    path: Path = args.file
    try:
        raw = path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        print(f"codeteam: cannot read {path}: {error}", file=sys.stderr)
        return 2
    bom = BOM if raw.startswith(BOM) else ""
    text = raw[len(bom):]
    pipeline = {"plan-docstring": "plan_docstring"}.get(args.pipeline, args.pipeline)
    request = service.RunRequest(
        text=text, settings=settings, pipeline=pipeline, qualname=args.function,
        path=path.resolve(), workspace_root=args.workspace or path.resolve().parent,
        project_root=args.workspace,
    )
    clients = OneClient()
    try:
        readable, task = await service.build_task(request)
        for note in task.project.notes if task.project else []:
            print(f"codeteam: {note}", file=sys.stderr)  # python setting unusable, no pytest
        project = task.project
        if project is not None and not project.lone:
            _progress(f"testing {project.module} in the project {project.root} "
                      f"with {project.python}")
        _progress(f"{args.pipeline} on {task.qualname} ({len(task.public_tests)} public tests); "
                  f"model: {settings.base_url or 'embedded SmolLM2-135M-Instruct'}")
        outcome = await service.run(request, clients, progress=_progress, task=task,
                                    readable=readable)
    except service.TargetError as error:
        print(f"codeteam: {path}: {error}", file=sys.stderr)
        return 2
    except service.ModelUnavailable as error:
        print(f"codeteam: {error}", file=sys.stderr)
        return 2
    except service.ServiceError as error:
        print(f"codeteam: {error}", file=sys.stderr)
        return 1
    finally:
        await clients.close()

    result, new_text = outcome.result, outcome.new_text
    if args.json:
        print(result.model_dump_json(indent=2))
    elif new_text is not None and args.diff:
        sys.stdout.writelines(difflib.unified_diff(
            text.splitlines(keepends=True), new_text.splitlines(keepends=True),
            fromfile=str(path), tofile=str(path),
        ))
    elif new_text is not None or (result.code is not None and pipeline == "review"):
        print(result.code, end="" if result.code.endswith("\n") else "\n")
    print(file=sys.stderr)
    print(f"# {result.summary()}", file=sys.stderr)
    if result.plan:
        print("# plan:", file=sys.stderr)
        for i, step in enumerate(result.plan, 1):
            print(f"#   {i}. {step}", file=sys.stderr)
    if result.last_report:
        for line in result.last_report.summary.splitlines():
            print(f"# {line}", file=sys.stderr)
    for note in result.notes:
        print(f"# note: {note}", file=sys.stderr)

    if args.write and new_text is not None:
        if path.read_bytes().decode("utf-8", errors="replace") != raw:
            print(f"codeteam: {path} changed while the pipeline ran; not written", file=sys.stderr)
            return 1
        path.write_bytes((bom + new_text).encode("utf-8"))
        print(f"# wrote {path}", file=sys.stderr)
    return 1 if result.status in ("error", "failed") else 0
