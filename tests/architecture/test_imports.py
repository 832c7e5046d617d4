"""The layering of server/codeteam, checked on its import graph (read with ast; imports inside
functions and ``TYPE_CHECKING`` blocks count)."""

from __future__ import annotations

import ast

from imports import PACKAGE_DIR, cycles, graph, modules


def test_the_graph_sees_imports_inside_functions():
    # codeteam.cli imports the editor only inside main(): the walker must still see it.
    assert any(target.startswith("codeteam.editor") for target in graph()["codeteam.cli"])


def test_no_import_cycles():
    assert cycles(graph()) == []


def test_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_lsp_types_below_the_editor():
    offenders = []
    for name, path in modules().items():
        if name.startswith("codeteam.editor"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            roots = []
            if isinstance(node, ast.Import):
                roots = [alias.name.split(".")[0] for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                roots = [node.module.split(".")[0]]
            if {"pygls", "lsprotocol"} & set(roots):
                offenders.append(f"{path.relative_to(PACKAGE_DIR)}:{node.lineno}")
    assert offenders == []


RUNS_CODE = {"codeteam.execution.sandbox",
             "codeteam.execution.sandbox_command", "codeteam.execution.sandbox_subjects",
             "codeteam.execution.sandbox_mounts", "codeteam.execution.run_budget",
             "codeteam.execution.pytest_run",
             "codeteam.execution.suite"}


def test_roles_render_and_parse_and_never_run_code():
    # The tester builds its report from a run the pipeline obtained from execution.
    edges = graph()
    offenders = {name: sorted(edges[name] & RUNS_CODE)
                 for name in edges if name.startswith("codeteam.roles")}
    assert {name: found for name, found in offenders.items() if found} == {}


def test_the_editor_imports_neither_the_model_client_nor_the_sandbox():
    edges = graph()
    banned = RUNS_CODE | {name for name in edges if name.startswith("codeteam.llm")}
    offenders = {name: sorted(edges[name] & banned)
                 for name in edges if name.startswith("codeteam.editor")}
    assert {name: found for name, found in offenders.items() if found} == {}


def _callers(edges: dict[str, set[str]]) -> list[str]:
    """The modules that translate a request (the CLI, the editor) or drive runs (bench)."""
    return [name for name in edges
            if name == "codeteam.cli" or name.startswith(("codeteam.bench", "codeteam.editor"))]


def test_the_cli_and_bench_reach_the_model_only_through_the_service():
    edges = graph()
    banned = {name for name in edges if name.startswith("codeteam.llm")}
    offenders = {name: sorted(edges[name] & banned) for name in _callers(edges)
                 if not name.startswith("codeteam.editor")}  # the editor: the test above
    assert {name: found for name, found in offenders.items() if found} == {}


def test_bench_the_editor_and_the_cli_run_pipelines_only_through_the_service():
    # They call codeteam.service.runs (run, run_task); none imports the pipeline registry or a
    # pipeline. The result's data type (pipelines.result) is theirs to read.
    edges = graph()
    banned = {name for name in edges if name.startswith("codeteam.pipelines")}
    banned -= {"codeteam.pipelines", "codeteam.pipelines.result"}
    offenders = {name: sorted(edges[name] & banned) for name in _callers(edges)}
    assert {name: found for name, found in offenders.items() if found} == {}
    for caller in ("codeteam.cli", "codeteam.bench.bench_run", "codeteam.editor.workflow"):
        assert "codeteam.service.runs" in edges[caller], caller
