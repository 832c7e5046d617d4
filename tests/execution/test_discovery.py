"""Public test discovery: docstring examples and workspace pytest tests (ast only)."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from codeteam.execution.discovery import doctest_cases, pytest_cases

MODULE = '''\
import math


def running_max(xs):
    """
    Running maximum.

    >>> ys = [1, 3, 2]
    >>> running_max(ys)
    [1, 3, 3]
    >>> running_max([2,
    ...              1])
    [2, 2]
    >>> running_max([])  # doctest: +ELLIPSIS
    [...]
    """
    out = []
    for x in xs:
        out.append(max(out[-1], x) if out else x)
    return out


class Box:
    def size(self):
        """>>> Box().size()
        0"""
        return 0
'''


def _function(name: str) -> ast.FunctionDef:
    for node in ast.walk(ast.parse(MODULE)):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    raise LookupError(name)


def test_doctest_cases_lines_are_exact_with_the_document():
    node = _function("running_max")
    first = node.body[0].lineno - 1
    cases = doctest_cases(
        ast.get_docstring(node), "running_max", docstring_first_line=first, source=MODULE
    )
    lines = MODULE.splitlines()
    assert [c.id for c in cases] == ["doctest:1", "doctest:2", "doctest:3", "doctest:4"]
    assert [lines[c.line].strip() for c in cases] == [
        ">>> ys = [1, 3, 2]",
        ">>> running_max(ys)",
        ">>> running_max([2,",
        ">>> running_max([])  # doctest: +ELLIPSIS",
    ]
    assert cases[1].source == "running_max(ys)"
    assert cases[1].expected == "[1, 3, 3]"
    assert cases[1].call == "running_max(ys)"
    assert cases[0].expected == "" and cases[0].call is None
    # a statement example becomes setup for the ones after it
    assert cases[1].setup == ">>> ys = [1, 3, 2]\n"
    assert cases[2].source == "running_max([2,\n             1])"
    assert all(c.kind == "doctest" and c.origin == "public" for c in cases)


def test_doctest_cases_from_the_raw_literal_without_the_document():
    node = _function("running_max")
    first = node.body[0].lineno - 1
    raw = node.body[0].value.value
    cases = doctest_cases(raw, "running_max", docstring_first_line=first)
    lines = MODULE.splitlines()
    assert lines[cases[0].line].strip() == ">>> ys = [1, 3, 2]"
    assert lines[cases[2].line].strip() == ">>> running_max([2,"


def test_doctest_on_the_opening_quote_line():
    node = _function("size")
    first = node.body[0].lineno - 1
    cases = doctest_cases(
        ast.get_docstring(node), "size", docstring_first_line=first, source=MODULE, origin="ai"
    )
    assert len(cases) == 1
    assert cases[0].line == first
    assert cases[0].expected == "0"
    assert cases[0].origin == "ai"


def test_doctest_cases_without_lines_and_unparsable_docstrings():
    assert [c.line for c in doctest_cases(">>> f(1)\n2\n", "f")] == [None]
    assert doctest_cases("no examples here", "f") == []
    assert doctest_cases(">>>f(1)\n2\n", "f") == []  # doctest rejects a prompt without space


def _workspace(tmp_path: Path) -> Path:
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "pkg" / "__init__.py").write_text("")
    (tmp_path / "src" / "pkg" / "mod.py").write_text("def f(x):\n    return x + 1\n")
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "helpers.py").write_text("THING = 1\n")
    (tests / "test_mod.py").write_text(
        textwrap.dedent(
            """\
            from __future__ import annotations
            import math
            import pytest
            from pkg.mod import f as g
            from pkg import mod
            from helpers import THING

            LIMIT = 3


            def helper(x):
                return g(x) * 2


            def test_alias():
                assert g(1) == 2


            @pytest.mark.slow
            def test_through_helper():
                assert helper(1) == LIMIT + 1


            def test_module_attribute():
                assert mod.f(2) == 3


            def test_fixture(tmp_path):
                assert g(1) == 2


            @pytest.mark.parametrize("x", [1])
            def test_parametrized(x):
                assert g(x)


            @pytest.mark.skip
            def test_skipped():
                assert g(1)


            def test_workspace_helper():
                assert g(THING) == 2


            def test_unrelated():
                assert math.pi > 3


            async def test_async():
                assert g(1)
            """
        )
    )
    (tests / "other_test.py").write_text(
        "import mod as m\n\ndef test_stem():\n    assert m.f(0) == 1\n"
    )
    (tests / "test_broken.py").write_text("def broken(:\n")
    hidden = tmp_path / ".venv" / "lib"
    hidden.mkdir(parents=True)
    (hidden / "test_hidden.py").write_text("from pkg.mod import f\n\ndef test_h():\n    f(1)\n")
    return tmp_path


def test_pytest_cases_finds_the_tests_that_use_the_function(tmp_path):
    root = _workspace(tmp_path)
    cases = pytest_cases("f", root / "src" / "pkg" / "mod.py", root)
    by_name = {c.name: c for c in cases}
    assert sorted(by_name) == [
        "test_alias",
        "test_async",  # runs in an asyncio event loop, as pytest-asyncio runs it
        "test_fixture",  # runs under pytest, which gives tmp_path
        "test_module_attribute",
        "test_parametrized",
        "test_stem",
        "test_through_helper",
    ]
    parametrized = by_name["test_parametrized"]
    assert parametrized.id == "pytest:tests/test_mod.py::test_parametrized[1]"
    assert parametrized.arguments == "x=1"
    assert parametrized.describe() == "test_parametrized[1] (pytest)"
    assert by_name["test_alias"].arguments is None
    assert by_name["test_fixture"].fixtures == ["tmp_path"]
    assert by_name["test_alias"].fixtures == []
    alias = by_name["test_alias"]
    assert alias.id == "pytest:tests/test_mod.py::test_alias"
    assert alias.kind == "pytest" and alias.origin == "public"
    assert alias.source.startswith("def test_alias():")
    assert alias.setup == "from pkg.mod import f as g\n"
    assert alias.module_aliases == ["pkg.mod"]
    assert alias.file == str(root / "tests" / "test_mod.py")
    lines = (root / "tests" / "test_mod.py").read_text().splitlines()
    assert lines[alias.line] == "def test_alias():"
    helper = by_name["test_through_helper"]
    assert lines[helper.line] == "def test_through_helper():"
    assert helper.source.startswith("def test_through_helper():")  # the mark is dropped
    assert "def helper(x):" in helper.setup and "LIMIT = 3" in helper.setup
    assert "import pytest" not in helper.setup  # only the dropped mark used it
    assert by_name["test_module_attribute"].setup == "from pkg import mod\n"
    assert by_name["test_stem"].module_aliases == ["mod"]


def test_pytest_cases_relative_import_and_max_files(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "mod.py").write_text("def f():\n    return 1\n")
    (pkg / "test_rel.py").write_text(
        "from .mod import f as h\n\ndef test_rel():\n    assert h() == 1\n"
    )
    cases = pytest_cases("f", pkg / "mod.py", tmp_path)
    assert [c.setup for c in cases] == ["from pkg.mod import f as h\n"]
    assert cases[0].module_aliases == ["pkg.mod"]
    assert pytest_cases("f", pkg / "mod.py", tmp_path, max_files=0) == []


def test_tests_importing_other_workspace_modules_come_with_a_skip_reason(tmp_path):
    root = _workspace(tmp_path)
    module = root / "src" / "pkg" / "mod.py"
    cases = pytest_cases("f", module, root, with_skipped=True)
    by_name = {c.name: c for c in cases}
    runnable = {c.name for c in pytest_cases("f", module, root)}
    assert {name for name, c in by_name.items() if c.skip_reason is None} == runnable
    skipped = by_name["test_workspace_helper"]
    assert skipped.id == "pytest:tests/test_mod.py::test_workspace_helper"
    assert skipped.skip_reason.startswith("it imports helpers from the workspace")
    assert "sandbox cannot see" in skipped.skip_reason
    assert [c.name for c in cases if c.skip_reason] == ["test_workspace_helper"]


def test_relative_imports_of_sibling_modules_are_named_in_the_skip_reason(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "mod.py").write_text("def f():\n    return 1\n")
    (pkg / "util.py").write_text("ONE = 1\n")
    (pkg / "test_rel.py").write_text(
        "from .mod import f\nfrom .util import ONE\nfrom . import util\n\n"
        "def test_one():\n    assert f() == ONE\n\n"
        "def test_module():\n    assert f() == util.ONE\n"
    )
    cases = pytest_cases("f", pkg / "mod.py", tmp_path, with_skipped=True)
    assert [(c.name, c.skip_reason.split(" from")[0]) for c in cases] == [
        ("test_one", "it imports .util"), ("test_module", "it imports .util")]
    assert pytest_cases("f", pkg / "mod.py", tmp_path) == []
