"""Finding a function's public tests without running anything of the user's.

- :func:`doctest_cases`: the examples in the function's docstring (stdlib
  :class:`doctest.DocTestParser`), one test per example.
- :func:`pytest_cases`: test functions in the workspace's test files that import the function
  (or its module) and call it, read with :mod:`ast`.

Nothing here imports or executes user code. Lines are 0-based document lines.
"""

from __future__ import annotations

import ast
import doctest
import inspect
import os
import re
from collections import Counter, defaultdict
from pathlib import Path

from codeteam.execution.models import TestCase, TestOrigin
from codeteam.pysource.functions import split_lines

SKIPPED_DIRS = frozenset(
    {".git", ".hg", ".svn", ".venv", "venv", "node_modules", "site-packages", "__pycache__",
     ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache"}
)  # fmt: skip
"""Directory names :func:`pytest_cases` never enters (nor any name starting with a dot)."""

MAX_TEST_FILE_BYTES = 1_000_000

_PROMPT = re.compile(r"^[ ]*>>>")
_OPENING_QUOTE = re.compile(r"[rRuU]*('{3}|\"{3}|'|\")")
_UNRUNNABLE_MARKS = frozenset({"skip", "skipif", "xfail", "usefixtures"})


# ----------------------------------------------------------------------------------------------
# Doctests


def doctest_cases(
    docstring: str,
    function_name: str,
    *,
    docstring_first_line: int | None = None,
    origin: TestOrigin = "public",
    source: str | None = None,
) -> list[TestCase]:
    """One ``doctest`` :class:`TestCase` per example in ``docstring``, in order.

    The examples are read from the cleaned docstring (:func:`inspect.cleandoc`, as
    :func:`ast.get_docstring` gives it; ``docstring`` may be raw or cleaned), so that an
    example on the opening-quote line compares its output as written. Each case has
    ``source`` (the example's code, without prompts), ``expected`` (its wanted output,
    without the final newline; "" when it prints nothing), ``id`` ``"doctest:<n>"``
    (1-based), ``call`` (the source, when it calls ``function_name``) and ``setup`` (all the
    earlier examples of the docstring, in doctest format with their outputs, replayed before
    this one as doctest would run them, so that an example using ``xs`` from
    ``>>> xs = [1, 2]`` or the state left by ``>>> c.incr()`` runs on its own).

    ``line`` is the 0-based document line of the example's ``>>>`` when
    ``docstring_first_line`` (the 0-based line of the docstring's opening quotes) is given.
    It is exact when ``source`` (the document text) is given too: the ``>>>`` lines are then
    found in the document's string literal itself. Without ``source`` it is exact for the
    literal's raw value (``node.body[0].value.value``); for a cleaned docstring it is off by
    the number of blank lines right after the opening quotes, which cleaning dropped.

    Examples that doctest cannot parse (e.g. ``>>>`` without a following space) make the whole
    docstring yield no cases; nothing is raised.
    """
    prompt_lines: list[int] | None = None
    if source is not None and docstring_first_line is not None:
        prompt_lines = _prompt_lines(source, docstring_first_line)
    cleaned = inspect.cleandoc(docstring)
    examples = _examples(cleaned)
    if not examples:
        return []
    if prompt_lines is not None and len(prompt_lines) != len(examples):
        prompt_lines = None
    # cleandoc drops the blank lines after the opening quotes: count them back in
    blank = 0
    for text in docstring.split("\n"):
        if text.strip():
            break
        blank += 1
    cases: list[TestCase] = []
    setup: list[str] = []
    for number, example in enumerate(examples, start=1):
        code = example.source.rstrip("\n")
        line = None
        if prompt_lines is not None:
            line = prompt_lines[number - 1]
        elif docstring_first_line is not None:
            line = docstring_first_line + blank + example.lineno
        cases.append(
            TestCase(
                id=f"doctest:{number}",
                kind="doctest",
                origin=origin,
                source=code,
                expected=example.want.removesuffix("\n"),
                call=code if _calls(code, function_name) else None,
                setup="".join(setup),
                line=line,
            )
        )
        # Every earlier example is replayed before the next one, with its expected output (its
        # own failure is reported only as context), as doctest runs a docstring: state built
        # by `>>> c.incr()` examples carries over.
        setup.append(_prompted(code) + example.want)
    return cases


def _examples(text: str) -> list[doctest.Example] | None:
    try:
        return doctest.DocTestParser().get_examples(text)
    except ValueError:
        return None


def _prompted(code: str) -> str:
    lines = code.split("\n")
    return ">>> " + lines[0] + "\n" + "".join(f"... {line}\n" for line in lines[1:])


def _calls(code: str, function_name: str) -> bool:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return function_name + "(" in code
    return any(
        isinstance(node, ast.Call) and _dotted(node.func).split(".")[-1] == function_name
        for node in ast.walk(tree)
    )


def _prompt_lines(source: str, first_line: int) -> list[int] | None:
    """The 0-based document lines that start with a ``>>>`` prompt inside the string literal
    that starts on 0-based ``first_line`` of ``source`` (None when there is no such literal)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
            and node.lineno - 1 == first_line
        ):
            lines = [line.rstrip("\r\n") for line in split_lines(source)]
            end = min((node.end_lineno or node.lineno) - 1, len(lines) - 1)
            first = lines[first_line][node.col_offset :]
            quote = _OPENING_QUOTE.match(first)
            first = first[quote.end() :] if quote else first
            prompts = []
            for number in range(first_line, end + 1):
                text = first if number == first_line else lines[number]
                if _PROMPT.match(text.expandtabs()):
                    prompts.append(number)
            return prompts
    return None


# ----------------------------------------------------------------------------------------------
# pytest tests


def pytest_cases(
    function_name: str,
    module_path: Path,
    workspace_root: Path,
    *,
    max_files: int = 200,
    origin: TestOrigin = "public",
    with_skipped: bool = False,
) -> list[TestCase]:
    """The workspace's pytest tests of ``function_name`` (defined in file ``module_path``).

    Looks at up to ``max_files`` test files (``test_*.py``, ``*_test.py``) under
    ``workspace_root`` (skipping :data:`SKIPPED_DIRS` and hidden directories, and files that
    do not parse or exceed 1 MB), in sorted path order. A top-level ``def test*()`` is kept
    when its file imports the module of ``module_path`` (``import pkg.mod``,
    ``import mod as m``, ``from pkg.mod import f as g``, ``from pkg import mod``, relative
    imports) and its body, or a module-level helper it uses, refers to the function through
    that import.

    A test parametrized with literal ``@pytest.mark.parametrize`` marks gives one case per
    parameter set (see :func:`_parametrizations`), with pytest's id (``test_x[1-2]``). The
    ``test*`` methods of a plain test class (see :func:`_is_test_class`) are cases too, named
    ``Class.method``, with the class as their source.

    A test function that takes fixtures (pytest's built-in ones, :data:`BUILTIN_FIXTURES`, or
    ``@pytest.fixture`` functions of its own file), or whose file has ``autouse`` fixtures, has
    ``fixtures``, their names: the harness runs it under pytest itself. Its ``setup`` is then the
    module it runs in: the test (marks included), the fixtures and what they use, each on its
    own lines of the file.

    Not collected, because running them needs pytest's machinery, which the sandbox harness does
    not reimplement: tests with fixtures the sandbox cannot give (from a ``conftest.py`` or a
    plugin, or with ``params=`` or ``async``), fixtures together with ``parametrize`` or in an
    ``async`` test or a test class,
    ``async`` tests marked ``anyio`` or ``trio`` (other ``async`` tests run in a fresh
    ``asyncio`` event loop, as pytest-asyncio runs them), test classes with base classes,
    ``__init__``, setup/teardown methods or fixtures, tests decorated with anything but
    ``pytest.mark.*`` (and those marked skip/skipif/xfail/usefixtures), and tests that use names
    imported from other workspace modules (the workspace is not visible in the sandbox). With
    ``with_skipped``, the latter are returned too, with a ``skip_reason`` naming the module, and
    so are the plain test functions that take fixtures the sandbox cannot give, with a
    ``skip_reason`` naming them (the runner reports them as skipped, so the user sees why they
    did not run, instead of losing them silently).

    Each case: ``kind="pytest"``, ``id`` ``"pytest:<relative path>::<name>"`` (``::Class::method``
    for a method), ``source`` the function (from ``def``, marks dropped; a method's whole class
    from ``class``), ``name``, ``setup`` the file's imports and
    module-level definitions the test uses (transitively; relative imports of the module
    made absolute), ``file`` the test file's path, ``line`` the 0-based line ``source``
    starts on,
    ``module_aliases`` the dotted names the file imports the module by, and for a parametrized
    case ``arguments`` (keyword arguments as source: ``a=1, b=[2]``) and an id ending in
    pytest's ``[...]``.
    """
    root = workspace_root.resolve()
    target = module_path.resolve()
    candidates = _module_names(target, root)
    cases: list[TestCase] = []
    for path in _test_files(root, max_files):
        if path.resolve() == target:
            continue
        try:
            if path.stat().st_size > MAX_TEST_FILE_BYTES:
                continue
            text = path.read_text(encoding="utf-8")
            tree = ast.parse(text, str(path))
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
            continue
        cases.extend(
            case
            for case in _file_cases(
                text, tree, path, root, target, candidates, function_name, origin
            )
            if with_skipped or case.skip_reason is None
        )
    return cases


def _test_files(root: Path, max_files: int) -> list[Path]:
    found: list[Path] = []
    if max_files <= 0:
        return found
    for directory, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(
            d for d in dirnames
            if d not in SKIPPED_DIRS and not d.startswith(".") and not d.endswith(".egg-info")
        )  # fmt: skip
        for name in sorted(filenames):
            if name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py")):
                found.append(Path(directory, name))
                if len(found) >= max_files:
                    return found
    return found


def _module_names(target: Path, root: Path) -> list[str]:
    """Dotted names the module file may be imported by, longest first: every suffix of its
    path under ``root`` (``src.pkg.mod``, ``pkg.mod``, ``mod``)."""
    try:
        parts = list(target.relative_to(root).with_suffix("").parts)
    except ValueError:
        parts = [target.stem]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1] or [target.parent.name]
    return [".".join(parts[i:]) for i in range(len(parts))]


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else ""
    if isinstance(node, ast.Call):
        return _dotted(node.func)
    return ""


def _resolve_relative(path: Path, level: int, module: str | None) -> Path:
    base = path.parent
    for _ in range(level - 1):
        base = base.parent
    return base.joinpath(*module.split(".")) if module else base


def _is_file_of(candidate: Path, target: Path) -> bool:
    return candidate.with_suffix(".py") == target or candidate / "__init__.py" == target


def _workspace_module(dotted: str, path: Path, root: Path) -> bool:
    """True when ``dotted`` names a module file in the workspace (not visible in the
    sandbox)."""
    parts = dotted.split(".")
    for base in (root, root / "src", path.parent):
        candidate = base.joinpath(*parts)
        if candidate.with_suffix(".py").is_file() or (candidate / "__init__.py").is_file():
            return True
    return False


class _Imports:
    """What one test file imports: the names bound to the function and to its module, the
    dotted names of the module, and names bound by imports of other workspace modules (each
    with the module it comes from, as written)."""

    def __init__(self) -> None:
        self.function_names: set[str] = set()
        self.module_chains: set[str] = set()
        self.aliases: list[str] = []
        self.workspace_names: dict[str, str] = {}  # bound name -> workspace module
        self.rewritten: dict[int, str] = {}  # id(node) -> absolute import text

    def add_alias(self, dotted: str) -> None:
        if dotted not in self.aliases:
            self.aliases.append(dotted)


def _read_imports(
    tree: ast.Module, path: Path, root: Path, target: Path, candidates: list[str],
    function_name: str,
) -> _Imports:  # fmt: skip
    found = _Imports()
    for node in _top_level(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in candidates:
                    found.add_alias(alias.name)
                    found.module_chains.add(alias.asname or alias.name)
                elif _workspace_module(alias.name, path, root):
                    found.workspace_names[alias.asname or alias.name.split(".")[0]] = alias.name
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            relative = node.level > 0
            if relative:
                base = _resolve_relative(path, node.level, node.module)
                dotted_here = candidates[0] if _is_file_of(base, target) else None
            else:
                dotted_here = module if module in candidates else None
            if dotted_here is not None:
                found.add_alias(dotted_here)
                names = []
                for alias in node.names:
                    if alias.name in (function_name, "*"):
                        found.function_names.add(alias.asname or function_name)
                    names.append(alias)
                if relative:
                    found.rewritten[id(node)] = ast.unparse(
                        ast.ImportFrom(module=dotted_here, names=names, level=0)
                    )
                continue
            for alias in node.names:
                if relative:
                    sub = _resolve_relative(path, node.level, node.module) / alias.name
                    is_target = _is_file_of(sub, target)
                    full = candidates[0]
                else:
                    full = f"{module}.{alias.name}" if module else alias.name
                    is_target = full in candidates
                if is_target:
                    found.add_alias(full)
                    found.module_chains.add(alias.asname or alias.name)
                    if relative:
                        found.rewritten[id(node)] = _absolute_import(full, alias)
                elif relative or _workspace_module(module, path, root):
                    written = "." * node.level + (module or alias.name)
                    found.workspace_names[alias.asname or alias.name] = written
    return found


def _absolute_import(full: str, alias: ast.alias) -> str:
    """``from pkg import mod [as m]``: a relative import of the module under test, made
    absolute (the sandbox aliases ``full`` to the program)."""
    parent, _, name = full.rpartition(".")
    bound = alias.asname or alias.name
    suffix = "" if bound == name else f" as {bound}"
    return f"from {parent} import {name}{suffix}" if parent else f"import {name}{suffix}"


def _top_level(tree: ast.Module):
    """Top-level statements, looking into ``try``/``if`` blocks (optional imports)."""
    for node in tree.body:
        yield node
        if isinstance(node, (ast.Try, ast.If)) and not _is_main_guard(node):
            for child in ast.walk(node):
                if isinstance(child, (ast.Import, ast.ImportFrom)):
                    yield child


def _is_main_guard(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.If)
        and isinstance(node.test, ast.Compare)
        and _dotted(node.test.left) == "__name__"
    )


def _bound_names(node: ast.stmt) -> set[str]:
    """Names a top-level statement binds in the module namespace."""
    names: set[str] = set()

    def visit(current: ast.AST) -> None:
        if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(current.name)
            return
        if isinstance(current, (ast.Import, ast.ImportFrom)):
            for alias in current.names:
                names.add(alias.asname or alias.name.split(".")[0])
            return
        if isinstance(current, ast.Name) and isinstance(current.ctx, ast.Store):
            names.add(current.id)
        for child in ast.iter_child_nodes(current):
            visit(child)

    visit(node)
    return names


def _used_names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _uses_function(tree: ast.AST, imports: _Imports, function_name: str) -> bool:
    """Whether ``tree`` refers to the function (by an imported name or through its module)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in imports.function_names:
            return True
        if (
            isinstance(node, ast.Attribute)
            and node.attr == function_name
            and _dotted(node.value) in imports.module_chains
        ):
            return True
    return False


MAX_PARAMETRIZED_CASES = 50
"""At most this many cases are made of one ``@pytest.mark.parametrize`` test; a test with more
is not collected."""


def _parametrizations(
    function: ast.AST, *, method: bool = False, fixtures: frozenset[str] = frozenset()
) -> list[tuple[str, str | None]] | None:
    """How to call a test function, one ``(id suffix, arguments)`` per case, or None when the
    sandbox harness cannot run it. A plain test (no parameters without defaults, only harmless
    ``pytest.mark`` decorators) is ``[("", None)]``; an ``async`` one runs in a fresh event
    loop, as pytest-asyncio runs it (not when marked ``anyio`` or ``trio``). A test whose
    parameters all come from ``@pytest.mark.parametrize(argnames, argvalues)`` marks with
    literal argnames and a literal list or tuple of argvalues (``pytest.param(...)`` without
    ``marks`` included) gets one case per combination, in pytest's order (stacked marks
    multiply, the mark nearest the ``def`` varying slowest), with pytest's id (``[1-2]``:
    constants as written, other values as the argument's name and index) and ``arguments``, the
    source of keyword arguments (``a=1, b=[2]``) the harness evaluates in the test's namespace.
    With ``method``, the first parameter (``self``) is the test class's instance. A plain
    (not ``async``, not parametrized) test function whose other parameters are all in
    ``fixtures`` (the fixtures the sandbox can give, see :func:`_available_fixtures`) is
    ``[("", None)]`` too: the harness runs it under pytest, which gives them."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    if isinstance(function, ast.AsyncFunctionDef) and any(
            _dotted(d).split(".")[2:3] in (["anyio"], ["trio"]) for d in function.decorator_list):
        return None  # pytest runs it once per backend: not reimplemented
    args = function.args
    if args.vararg or args.kwarg:
        return None
    positional = args.posonlyargs + args.args
    if method:
        if not positional:
            return None
        positional = positional[1:]
    marks: list[list[tuple[str, dict[str, str]]]] = []
    for decorator in function.decorator_list:
        dotted = _dotted(decorator)
        if not dotted.startswith("pytest.mark."):
            return None
        mark = dotted.split(".")[2]
        if mark == "parametrize":
            cases = _parametrize_cases(decorator)
            if cases is None:
                return None
            marks.append(cases)
        elif mark in _UNRUNNABLE_MARKS:
            return None
    given = {name for cases in marks for _, values in cases for name in values}
    required = _required_parameters(function)[1 if method else 0 :]
    missing = [name for name in required if name not in given]
    if missing and (marks or method or isinstance(function, ast.AsyncFunctionDef)
                    or any(name not in fixtures for name in missing)):
        return None
    if any(a.arg in given for a in args.posonlyargs):
        return None
    every = {a.arg for a in positional + args.kwonlyargs}
    if not given <= every:
        return None
    combos: list[tuple[str, dict[str, str]]] = [("", {})]
    for cases in reversed(marks):  # the mark nearest the def is the outer loop
        combos = [(f"{ida}-{idb}" if ida else idb, {**va, **vb})
                  for ida, va in combos for idb, vb in cases]
        if len(combos) > MAX_PARAMETRIZED_CASES:
            return None
    if not marks:
        return [("", None)]
    idents = _unique_ids([ident for ident, _ in combos])
    return [(f"[{ident}]", ", ".join(f"{k}={v}" for k, v in values.items()))
            for ident, (_, values) in zip(idents, combos)]


BUILTIN_FIXTURES = frozenset({
    "tmp_path", "tmp_path_factory", "tmpdir", "tmpdir_factory", "monkeypatch", "capsys",
    "capsysbinary", "capfd", "capfdbinary", "caplog", "recwarn", "request", "pytestconfig",
})  # fmt: skip
"""pytest's built-in fixtures a test may take: the sandbox runs such a test under pytest (with
its cache provider off, so ``cache`` is not among them)."""


def _file_fixtures(
    tree: ast.Module,
) -> tuple[dict[str, ast.FunctionDef], list[str], list[ast.AsyncFunctionDef]]:
    """The test file's own fixtures, the module-level ``def``s decorated with pytest's
    ``fixture`` (``@pytest.fixture``, ``@fixture``, ``@fx`` after ``from pytest import fixture
    as fx``, ``@pt.fixture`` after ``import pytest as pt``; with or without arguments):
    ``{fixture name: def}`` (``name=`` renames it, as in pytest), the names of the
    ``autouse=True`` ones in file order, and the fixtures the sandbox does not give: ``async
    def`` ones (they need an async plugin) and those with ``params=`` (pytest makes one test
    per parameter; the harness runs one test per case). Those are never available, so an
    autouse one keeps the file's tests out."""
    decorators = {"pytest.fixture", "fixture"}
    for node in tree.body:
        if isinstance(node, ast.Import):
            decorators |= {f"{a.asname}.fixture" for a in node.names
                           if a.name == "pytest" and a.asname}
        elif isinstance(node, ast.ImportFrom) and node.module == "pytest" and not node.level:
            decorators |= {a.asname or a.name for a in node.names if a.name == "fixture"}
    found: dict[str, ast.FunctionDef] = {}
    autouse: list[str] = []
    unavailable: list[ast.AsyncFunctionDef] = []
    for node in tree.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for decorator in node.decorator_list:
            if _dotted(decorator) not in decorators:
                continue
            name, auto = node.name, False
            for keyword in decorator.keywords if isinstance(decorator, ast.Call) else []:
                if not isinstance(keyword.value, ast.Constant):
                    continue
                if keyword.arg == "name" and isinstance(keyword.value.value, str):
                    name = keyword.value.value
                elif keyword.arg == "autouse":
                    auto = bool(keyword.value.value)
            parametrized = isinstance(decorator, ast.Call) and any(
                keyword.arg == "params" for keyword in decorator.keywords)
            if isinstance(node, ast.AsyncFunctionDef) or parametrized:
                unavailable.append(node)
            else:
                found[name] = node
            if auto:
                autouse.append(name)
    return found, autouse, unavailable


def _available_fixtures(own: dict[str, ast.FunctionDef]) -> frozenset[str]:
    """The fixture names a test of this file can take in the sandbox: pytest's built-in ones
    (:data:`BUILTIN_FIXTURES`) and the file's own fixtures whose parameters are, in turn, all
    available (a fixture that needs one from a ``conftest.py`` is not: the sandbox has no
    conftest)."""
    available = set(BUILTIN_FIXTURES)
    changed = True
    while changed:
        changed = False
        for name, node in own.items():
            if name not in available and all(
                    arg in available for arg in _required_parameters(node)):
                available.add(name)
                changed = True
    return frozenset(available)


def _required_parameters(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """The parameters without a default value, in order: those pytest fills (with
    ``parametrize`` values or fixtures)."""
    args = function.args
    positional = args.posonlyargs + args.args
    return [a.arg for a in positional[: len(positional) - len(args.defaults)]] + [
        a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is None]


def _unique_ids(ids: list[str]) -> list[str]:
    """pytest's suffixes for ids that occur more than once (``1_0``, ``1_1``; ``a0``, ``a1``),
    as ``IdMaker.make_unique_parameterset_ids`` adds them."""
    counts = Counter(ids)
    if all(count == 1 for count in counts.values()):
        return ids
    taken = set(ids)
    suffixes: dict[str, int] = defaultdict(int)
    out = list(ids)
    for index, ident in enumerate(ids):
        if counts[ident] > 1:
            joint = "_" if ident and ident[-1].isdigit() else ""
            new = f"{ident}{joint}{suffixes[ident]}"
            while new in taken:
                suffixes[ident] += 1
                new = f"{ident}{joint}{suffixes[ident]}"
            out[index] = new
            suffixes[ident] += 1
    return out


def _parametrize_cases(mark: ast.expr) -> list[tuple[str, dict[str, str]]] | None:
    """One ``@pytest.mark.parametrize``'s cases: ``(pytest's id, {argname: value source})``,
    or None when it is not literal enough to expand without running the test file."""
    if not isinstance(mark, ast.Call) or len(mark.args) != 2:
        return None
    if any(k.arg not in ("ids", "scope") for k in mark.keywords):
        return None  # indirect=...: fixtures
    names_node, values_node = mark.args
    # As pytest reads them: one name in a string takes each value whole; names in a list
    # take each value as a sequence, even one name.
    if isinstance(names_node, ast.Constant) and isinstance(names_node.value, str):
        names = [n.strip() for n in names_node.value.split(",") if n.strip()]
        whole = len(names) == 1
    elif isinstance(names_node, (ast.List, ast.Tuple)) and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in names_node.elts):
        names = [e.value for e in names_node.elts]
        whole = False
    else:
        return None
    if not names or not all(n.isidentifier() for n in names):
        return None
    if not isinstance(values_node, (ast.List, ast.Tuple)):
        return None
    ids: list[str | None] = [None] * len(values_node.elts)
    for keyword in mark.keywords:
        if keyword.arg == "ids":
            if not isinstance(keyword.value, (ast.List, ast.Tuple)) or len(
                    keyword.value.elts) != len(ids):
                return None
            ids = [_escaped(e.value) if isinstance(e, ast.Constant) and isinstance(e.value, str)
                   else None for e in keyword.value.elts]
    cases = []
    for index, element in enumerate(values_node.elts):
        dotted = _dotted(element.func) if isinstance(element, ast.Call) else ""
        if dotted == "param" or dotted.endswith(".param") and dotted != "pytest.param":
            return None  # a pytest.param under another name, or something else: not guessed
        if isinstance(element, ast.Call) and dotted == "pytest.param":
            if any(k.arg == "marks" for k in element.keywords):
                return None
            own = next((k.value.value for k in element.keywords if k.arg == "id"
                        and isinstance(k.value, ast.Constant)), None)
            ids[index] = _escaped(own) if isinstance(own, str) else ids[index]
            values = list(element.args)
        elif whole:
            values = [element]
        elif isinstance(element, (ast.List, ast.Tuple)):
            values = list(element.elts)
        else:
            return None
        if len(values) != len(names) or any(isinstance(v, ast.Starred) for v in values):
            return None
        ident = ids[index] or "-".join(_pytest_id(v, name, index) for v, name in
                                       zip(values, names))
        cases.append((ident, {name: ast.unparse(v) for name, v in zip(names, values)}))
    return cases


def _pytest_id(value: ast.expr, name: str, index: int) -> str:
    """pytest's id of one parametrized value: a number, bool, None, string or bytes literal as
    pytest shows it (strings and bytes ASCII-escaped), else name + index. Also name + index
    for a name (in the value or in ``ids=``) bound to a constant, whose value pytest would
    show: ids are made without running the test file."""
    try:
        constant = ast.literal_eval(value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return f"{name}{index}"
    if isinstance(constant, str):
        return _escaped(constant)
    if isinstance(constant, bytes):
        return constant.decode("ascii", "backslashreplace")
    if constant is None or isinstance(constant, (bool, int, float, complex)):
        return str(constant)
    return f"{name}{index}"


def _escaped(text: str) -> str:
    """A string id as pytest shows it: non-ASCII and control characters escaped."""
    return text.encode("unicode_escape").decode("ascii")


_CLASS_SETUP = frozenset({
    "__init__", "__new__", "setup_method", "teardown_method", "setup_class", "teardown_class",
    "setup", "teardown", "setUp", "tearDown",
})
"""Members of a test class that need pytest's machinery to run (or that pytest refuses)."""


def _is_test_class(node: ast.AST) -> bool:
    """A test class the harness runs as pytest would: ``class Test...:`` with no base classes,
    only harmless ``pytest.mark`` decorators, and no ``__init__``, setup/teardown methods or
    fixtures; each ``test*`` method runs on a fresh instance."""
    if not isinstance(node, ast.ClassDef) or not node.name.startswith("Test"):
        return False
    if node.bases or node.keywords:
        return False
    for decorator in node.decorator_list:
        dotted = _dotted(decorator)
        if not dotted.startswith("pytest.mark.") or dotted.split(".")[2] in (
                _UNRUNNABLE_MARKS | {"parametrize"}):
            return False
    for member in node.body:
        if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
            member.name in _CLASS_SETUP
            or any("fixture" in _dotted(d) for d in member.decorator_list)
        ):
            return False
    return True


def _segment(lines: list[str], node: ast.stmt) -> str:
    """The statement's text, decorators included (top-level, so no dedent is needed)."""
    start = min([d.lineno for d in getattr(node, "decorator_list", [])] + [node.lineno]) - 1
    return "\n".join(lines[start : node.end_lineno])


def _laid_out(lines: list[str], nodes: list[ast.stmt], rewritten: dict[int, str]) -> str:
    """The top-level ``nodes`` (in file order) on their own lines of the file, blank lines
    elsewhere, so that a file made of them has the file's line numbers (a rewritten import
    on its first line)."""
    out: list[str] = []
    for node in nodes:
        start = min([d.lineno for d in getattr(node, "decorator_list", [])] + [node.lineno]) - 1
        if start < len(out):
            continue  # on the line of the statement before (``A = 1; B = 2``): written already
        span = (node.end_lineno or node.lineno) - start
        text = rewritten.get(id(node))
        chunk = _segment(lines, node).split("\n") if text is None else [text.replace("\n", "; ")]
        out += [""] * (start - len(out)) + chunk + [""] * (span - len(chunk))
    return "\n".join(out)


def _file_cases(
    text: str, tree: ast.Module, path: Path, root: Path, target: Path, candidates: list[str],
    function_name: str, origin: TestOrigin,
) -> list[TestCase]:  # fmt: skip
    imports = _read_imports(tree, path, root, target, candidates, function_name)
    if not imports.aliases:
        return []
    lines = [line.rstrip("\r\n") for line in split_lines(text)]
    units: list[tuple[ast.ClassDef | None, ast.FunctionDef | ast.AsyncFunctionDef]] = []
    test_ids: set[int] = set()
    own_fixtures, autouse, unavailable = _file_fixtures(tree)
    fixture_defs = {id(node) for node in [*own_fixtures.values(), *unavailable]}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith(
                "test") and id(node) not in fixture_defs:  # pytest does not run a fixture
            units.append((None, node))
            test_ids.add(id(node))
        elif _is_test_class(node):
            assert isinstance(node, ast.ClassDef)
            units.extend((node, m) for m in node.body if isinstance(
                m, (ast.FunctionDef, ast.AsyncFunctionDef)) and m.name.startswith("test"))
            test_ids.add(id(node))
    definitions = [
        node
        for node in tree.body
        if id(node) not in test_ids
        and not _is_main_guard(node)
        and not (isinstance(node, ast.ImportFrom) and node.module == "__future__")
    ]
    bound = {id(node): _bound_names(node) for node in definitions}
    used = {id(node): _used_names(node) for node in definitions}
    fixtures = _available_fixtures(own_fixtures)
    for node in own_fixtures.values():  # a fixture uses the fixtures it takes
        used[id(node)] |= {own_fixtures[a].name if a in own_fixtures else a
                           for a in _required_parameters(node)}
    if any(name not in fixtures for name in autouse):
        return []  # an autouse fixture the sandbox cannot give: no test runs as pytest would
    try:
        relative = path.resolve().relative_to(root).as_posix()
    except ValueError:
        relative = path.name
    cases = []
    for owner, function in units:
        calls = _parametrizations(function, method=owner is not None, fixtures=fixtures)
        missing: list[str] = []  # fixtures the sandbox cannot give: reported, not run
        if calls is None and owner is None:
            missing = [name for name in _required_parameters(function) if name not in fixtures]
            if missing and _parametrizations(
                    function, fixtures=fixtures | frozenset(missing)) == [("", None)]:
                calls = [("", None)]
        if calls is None:
            continue
        taken = (_required_parameters(function) if owner is None and calls == [("", None)]
                 and not missing else None)
        if autouse:
            if taken is None:
                continue  # methods and parametrized cases run without pytest: no autouse
            taken = list(dict.fromkeys([*autouse, *taken]))
        # The parametrize marks' values are evaluated in the test's namespace, not the marks.
        values = [node for d in function.decorator_list if calls[0][1] is not None
                  and isinstance(d, ast.Call) for node in [*d.args, *d.keywords]]
        # A method also needs what its class body runs: the other members (helpers,
        # attributes), and every test method's decorators and defaults.
        members: list[ast.AST] = []
        if owner is not None:
            for member in owner.body:
                if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
                        member.name.startswith("test")):
                    members += [*member.decorator_list, member.args]
                else:
                    members.append(member)
        needed = set().union(
            *(_used_names(n) for n in [function.args, *function.body, *values, *members]))
        if taken:  # under pytest: the test's marks and the file's pytestmark apply
            needed |= {own_fixtures[name].name for name in taken if name in own_fixtures}
            needed |= {"pytestmark"}.union(*(_used_names(d) for d in function.decorator_list))
        chosen: set[int] = set()
        changed = True
        while changed:
            changed = False
            for node in definitions:
                if id(node) not in chosen and bound[id(node)] & needed:
                    chosen.add(id(node))
                    needed |= used[id(node)]
                    changed = True
        setup_nodes = [node for node in definitions if id(node) in chosen]
        helpers = [n for n in setup_nodes if not isinstance(n, (ast.Import, ast.ImportFrom))]
        if not any(_uses_function(n, imports, function_name)
                   for n in [function, *members, *helpers]):
            continue
        names_from_workspace = set().union(
            *(bound[id(n)] for n in setup_nodes if isinstance(n, (ast.Import, ast.ImportFrom)))
        ) & set(imports.workspace_names)
        skip_reason = None
        if missing:
            skip_reason = (
                f"it takes the fixture{'s' if len(missing) > 1 else ''} {', '.join(missing)}, "
                "which the sandbox cannot give (from a conftest.py or a plugin, or with "
                "params= or async)"
            )
        elif names_from_workspace:
            modules = sorted({imports.workspace_names[name] for name in names_from_workspace})
            skip_reason = (
                f"it imports {', '.join(modules)} from the workspace, which the sandbox cannot "
                "see (only the module under test is copied in)"
            )
        if taken:  # run under pytest from a file: the test and what it needs, on their lines
            future = [n for n in tree.body
                      if isinstance(n, ast.ImportFrom) and n.module == "__future__"]
            setup = _laid_out(lines, sorted([*future, *setup_nodes, function],
                                            key=lambda n: n.lineno), imports.rewritten)
        else:
            setup = "\n".join(
                imports.rewritten.get(id(node)) or _segment(lines, node) for node in setup_nodes
            )
        unit = owner or function
        start = unit.lineno - 1
        body = "\n".join(lines[start : unit.end_lineno])
        name = function.name if owner is None else f"{owner.name}.{function.name}"
        cases.extend(
            TestCase(
                id=f"pytest:{relative}::{name.replace('.', '::')}{suffix}",
                kind="pytest",
                origin=origin,
                source=body + "\n",
                name=name,
                arguments=arguments,
                setup=setup + "\n" if setup else "",
                file=str(path),
                line=start,
                module_aliases=list(imports.aliases),
                skip_reason=skip_reason,
                fixtures=taken or [],
            )
            for suffix, arguments in calls
        )
    return cases
