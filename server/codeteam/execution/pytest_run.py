"""The project's own tests, run by pytest itself in the sandbox (no re-implementation of pytest).

Two steps, both one sandboxed pytest process with our reporting plugin
(:mod:`codeteam.execution.pytest_plugin`), in the project's interpreter, from the project root
(pytest finds rootdir, ini files, ``addopts`` and conftest.py files as it always does;
``-p no:cacheprovider``, so nothing is written into the project):

1. :func:`select_tests`: which collected tests call the function, decided by execution. The
   test files that name the function or one of its callers (:func:`candidate_files`) are run
   on the current text of the function's file, and pytest's tests during which the function's
   code was entered are kept (counted by the plugin with ``sys.monitoring`` on Python 3.12+,
   ``sys.setprofile`` before). The tests in those files that could not run (collection errors, missing
   fixtures or packages, skips, xfails) are "not run" with pytest's own reason. Cached per
   (project root, function, text of its file, mtimes of the test and conftest.py files).
2. :func:`run_pytest_tests`: the selected node ids, one
   :class:`~codeteam.execution.models.TestOutcome` per test in the order given; a test pytest
   did not report is an "error". *Judged* (given the judge view of the user's text,
   :mod:`codeteam.execution.judge_view`): pytest imports that view (laid over the file,
   :class:`~codeteam.execution.sandbox.ProjectMount`) and the candidate runs in a subject
   process of its own (:mod:`codeteam.execution.pytest_subject`), so the code cannot reach
   what decides its verdict (``trusted``). The tests whose arguments cannot cross, and those
   the user's own code passes in one process but not judged (:func:`_unjudgeable`), run the
   old way: the candidate laid over the file, one process (``trusted`` False).

Where the project runs its doctests itself (``--doctest-modules``), the function's doctest is
one of the pytest tests (collected from its file by pytest), so the verdict agrees with the
project's own run. A review of the function as it is reuses the selection run's outcomes
(:func:`_reuse`) instead of running the same tests twice.

For a benchmark made from a repository (``codeteam bench --repo``): :func:`target_for`,
:func:`select_tests` on the original file (the tests calling a function are its hidden tests)
and :func:`run_pytest_tests` on a generated body score it the same way.
"""

from __future__ import annotations

import ast
import asyncio
import hashlib
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from pydantic import BaseModel, Field

from codeteam.execution.judge_view import JudgeView, placement
from codeteam.execution.models import RunReport, TestCase, TestOutcome
from codeteam.execution.sandbox import (
    ProcessResult,
    ProjectMount,
    SandboxPolicy,
    python_argv,
    run_sandboxed,
)

PLUGIN_FILE = "_codeteam_pytest_plugin.py"
SPEC_FILE = "_codeteam_pytest_spec.json"
SUBJECT_FILE = "_codeteam_pytest_subject.py"
CODEC_FILE = "_codeteam_pytest_codec.py"
CANDIDATE_FILE = "_codeteam_candidate.py"
OUTPUT_TAIL = 4000
MAX_FILES = 5000
"""Files looked at when searching the project for test files."""
MAX_TEST_FILE_BYTES = 2_000_000
SKIPPED_DIRS = frozenset({"node_modules", "site-packages", "__pycache__", "build", "dist"})
"""Folder names never searched for tests (nor dot folders, nor virtualenvs: a ``pyvenv.cfg``)."""
NO_PYTEST_EXIT = 97
"""The launcher's exit status when the interpreter has no pytest."""

_TEST_FILE = re.compile(r"^(test_.*|.*_test)\.py$")


class PytestTarget(BaseModel):
    """Where the function under test lives, for pytest: ``root`` the project root (pytest runs
    there), ``path`` the function's file (absolute, under ``root``), ``module`` its dotted name,
    ``qualname``/``name`` the function's, ``first_line`` the 0-based line of its first
    decorator or ``def``, ``python`` the project's interpreter and ``extra_ro`` the folders it
    needs (prefix, site-packages), mounted read-only; ``hidden`` paths under ``root`` the tests
    must not see (``.git``, ``.env*``); ``rootdir`` pytest's rootdir as the selection found it,
    relative to ``root`` (node ids are relative to it); ``import_root`` the folder the module is
    imported from (``src`` in a src/ layout), relative to ``root``, put first on ``sys.path``
    so that the project's own file (and the candidate laid over it) is what the tests import,
    even with the package not installed, or installed as a copy."""

    root: str
    path: str
    module: str
    qualname: str
    name: str
    first_line: int
    python: str
    extra_ro: list[str] = Field(default_factory=list)
    hidden: list[str] = Field(default_factory=list)
    rootdir: str | None = None
    import_root: str | None = None

    @property
    def relative_path(self) -> str:
        return os.path.relpath(self.path, self.root)


class NotRun(BaseModel):
    """Tests that could not run, all for one ``reason`` (pytest's own words)."""

    reason: str
    node_ids: list[str]


class Selection(BaseModel):
    """What :func:`select_tests` found: ``selected`` the node ids during which the function
    was called (in pytest's order) with their ``files`` and 0-based ``lines`` (relative to the
    project root); ``doctests`` the selected ones that are the function's own doctest (pytest
    runs the project's doctests); ``not_run`` groups by reason; ``searched`` the test files run;
    ``problem`` set when pytest could not run at all (no pytest in the interpreter, an unknown
    option in ``addopts``...), with pytest's message; ``seconds`` the run's time."""

    selected: list[str] = Field(default_factory=list)
    files: dict[str, str] = Field(default_factory=dict)
    lines: dict[str, int] = Field(default_factory=dict)
    doctests: list[str] = Field(default_factory=list)
    not_run: list[NotRun] = Field(default_factory=list)
    searched: list[str] = Field(default_factory=list)
    rootdir: str | None = None
    problem: str | None = None
    seconds: float = 0.0

    def not_run_count(self) -> int:
        return sum(len(group.node_ids) for group in self.not_run)


# --------------------------------------------------------------------------------------------
# Which files


@dataclass
class Candidates:
    """Where to look for the tests of a function (see :func:`candidate_files`)."""

    tests: list[Path]
    conftests: list[Path]
    sources: list[Path]
    names: list[str]


def _python_files(root: Path):
    seen = 0
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(
            d for d in dirs
            if not d.startswith(".") and d not in SKIPPED_DIRS
            and not os.path.isfile(os.path.join(folder, d, "pyvenv.cfg"))
        )  # fmt: skip
        for file in sorted(files):
            if file.endswith(".py"):
                seen += 1
                yield Path(folder, file)
        if seen > MAX_FILES:
            return


def _words(names) -> re.Pattern[bytes]:
    return re.compile(rb"\b(?:" + b"|".join(re.escape(n.encode()) for n in sorted(names)) + rb")\b")


def _file_bytes(path: Path) -> bytes:
    try:
        if path.stat().st_size > MAX_TEST_FILE_BYTES:
            return b""
        return path.read_bytes()
    except OSError:
        return b""


def _callers(tree: ast.AST, names: set[str]) -> set[str]:
    """Names of the functions in ``tree`` whose bodies name one of ``names``."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name not in names:
            for inner in ast.walk(node):
                if (isinstance(inner, ast.Name) and inner.id in names) or (
                    isinstance(inner, ast.Attribute) and inner.attr in names
                ):
                    found.add(node.name)
                    break
    return found


def candidate_files(root: Path, name: str) -> Candidates:
    """Where the tests of function ``name`` may be, found cheaply (no code run): the project's
    functions that call it, directly or through up to :data:`CALLER_DEPTH` others (read with
    ast from the non-test ``.py`` files that name it), then the test files (``test_*.py``,
    ``*_test.py``) that name the function or one of those callers, every ``conftest.py``, and
    the source files holding a caller (their doctests may call it). Dot folders, virtualenvs
    and :data:`SKIPPED_DIRS` are not searched. Which of those tests call the function is then
    decided by running them (:func:`select_tests`)."""
    tests: list[Path] = []
    conftests: list[Path] = []
    sources: list[Path] = []
    for path in _python_files(root):
        if path.name == "conftest.py":
            conftests.append(path)
        elif _TEST_FILE.match(path.name):
            tests.append(path)
        else:
            sources.append(path)
    names = {name}
    frontier = {name}
    holding: set[Path] = set()
    trees: dict[Path, ast.AST | None] = {}
    for _ in range(CALLER_DEPTH):
        pattern = _words(frontier)
        new: set[str] = set()
        for path in sources:
            text = _file_bytes(path)
            if not pattern.search(text):
                continue
            if path not in trees:
                try:
                    trees[path] = ast.parse(text)
                except (SyntaxError, ValueError):
                    trees[path] = None
            tree = trees[path]
            if tree is None:
                continue
            callers = _callers(tree, frontier) - names
            if callers or path.stem != "__init__":
                holding.add(path)
            new |= callers
        frontier = new - names
        names |= new
        if not frontier or len(names) >= MAX_CALLER_NAMES:
            break
    pattern = _words(names)
    found = [path for path in tests if pattern.search(_file_bytes(path))]
    return Candidates(tests=sorted(found), conftests=sorted(conftests),
                      sources=sorted(holding), names=sorted(names))


CALLER_DEPTH = 3
"""How many calls away from the function a caller may be, for choosing test files."""
MAX_CALLER_NAMES = 40


_XDIST = re.compile(r"(?:^|[\s\"'=\[,])(?:-n\s*\S|--numprocesses\b|-p\s*xdist\b|--dist\b)")


def distributes_tests(root: Path) -> bool:
    """Whether an ini file of the project asks pytest-xdist to spread the tests over worker
    processes (``-n auto`` in ``addopts``): our plugin reports from pytest's own process, so
    the runs then add ``-n0`` (xdist's "no workers"), which wins over ``addopts``."""
    for name in ("pytest.ini", ".pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini"):
        try:
            text = (root / name).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if "addopts" in text and _XDIST.search(text):
            return True
    return False


def runs_doctests(root: Path) -> bool:
    """Whether an ini file of the project names ``--doctest-modules`` (pytest itself decides
    what it collects; this only says whether source files are worth giving it)."""
    for name in ("pytest.ini", ".pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini"):
        try:
            if "doctest-modules" in (root / name).read_text(encoding="utf-8", errors="replace"):
                return True
        except OSError:
            continue
    return False


def hidden_paths(root: Path, keep: list[str]) -> list[str]:
    """The dot entries of ``root`` (``.git``, ``.env``, ``.pypirc``...) that the tests must not
    see, except those holding a path of ``keep`` (the interpreter's virtualenv)."""
    hidden = []
    try:
        entries = sorted(os.scandir(root), key=lambda e: e.name)
    except OSError:
        return []
    for entry in entries:
        if not entry.name.startswith("."):
            continue
        path = os.path.join(str(root), entry.name)
        if any(k == path or k.startswith(path + "/") for k in keep):
            continue
        hidden.append(path)
    return hidden


@cache
def interpreter_dirs(python: str) -> tuple[str, ...]:
    """The prefix, base prefix and site-packages folders of ``python`` (asked once), which the
    sandbox mounts read-only; empty when it cannot be asked."""
    probe = ("import json, site, sys; print(json.dumps([sys.prefix, sys.base_prefix, "
             "sys.exec_prefix, *site.getsitepackages()]))")
    try:
        done = subprocess.run([python, "-s", "-c", probe], capture_output=True, text=True,
                              timeout=20, check=True)
        paths = json.loads(done.stdout)
    except (OSError, subprocess.SubprocessError, ValueError):
        return ()
    out: list[str] = []
    for path in paths:
        real = os.path.realpath(path)
        if os.path.isdir(real) and real not in out:
            out.append(real)
    return tuple(out)


def target_for(
    root: Path,
    path: Path,
    module: str,
    qualname: str,
    first_line: int,
    python: str | None,
    *,
    extra_ro: list[str] | None = None,
    hidden: list[str] | None = None,
    import_root: Path | str | None = None,
) -> PytestTarget:
    """A :class:`PytestTarget` (``python`` default: the one running codeteam). ``extra_ro``
    (default: the interpreter's prefix and site-packages, asked once) and ``hidden`` (default:
    the root's dot entries, :func:`hidden_paths`) come from the project layer when known."""
    python = python or sys.executable
    extra = list(extra_ro) if extra_ro is not None else list(interpreter_dirs(python))
    root_text = os.path.realpath(root)
    return PytestTarget(
        root=root_text,
        path=os.path.realpath(path),
        module=module,
        qualname=qualname,
        name=qualname.rsplit(".", 1)[-1],
        first_line=first_line,
        python=python,
        extra_ro=extra,
        hidden=hidden if hidden is not None else hidden_paths(Path(root_text), [python, *extra]),
        import_root=None if import_root is None
        else os.path.relpath(os.path.realpath(import_root), root_text),
    )


# --------------------------------------------------------------------------------------------
# Running pytest


@dataclass
class _Heard:
    """What one pytest run reported."""

    collected: bool = False
    rootdir: str | None = None
    doctest_modules: bool = False
    collect_errors: dict[str, str] = field(default_factory=dict)
    outcomes: dict[str, dict] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    running: str | None = None
    done: dict | None = None
    items: list[str] = field(default_factory=list)
    elsewhere: str | None = None
    outcome_lines: int = 0
    repeated: list[str] = field(default_factory=list)


_REPEATED = "two outcome lines for this test: the results are not trusted"
_MISJUDGED = ("your own code passes it in one process but not judged (it changes state the "
              "code's process never sees), so it runs in one process")
_FAILING = ("failed", "error", "timeout")
"""Outcomes pytest counts as failures (exit status 1); the others leave it 0."""


def _read(results: str) -> _Heard:
    heard = _Heard()
    for line in results.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if not isinstance(event, dict):
            continue
        kind = event.get("event")
        if kind == "collect_error":
            heard.collect_errors.setdefault(str(event.get("nodeid")), str(event.get("message")))
        elif kind == "collected":
            heard.collected = True
            heard.rootdir = event.get("rootdir")
            heard.doctest_modules = bool(event.get("doctest_modules"))
            if isinstance(event.get("items"), list):
                heard.items = [str(item) for item in event["items"]]
        elif kind == "start":
            heard.running = str(event.get("nodeid"))
        elif kind == "outcome":
            nodeid = str(event.get("nodeid"))
            heard.outcome_lines += 1
            if nodeid not in heard.outcomes:
                heard.outcomes[nodeid] = event
                heard.order.append(nodeid)
            else:  # pytest reports a test once: which line is pytest's cannot be told
                heard.repeated.append(nodeid)
                heard.outcomes[nodeid] = {"event": "outcome", "nodeid": nodeid,
                                          "outcome": "error", "message": _REPEATED}
            heard.running = None
        elif kind == "done":
            heard.done = event
        elif kind == "elsewhere":
            heard.elsewhere = str(event.get("file"))
    return heard


@cache
def _plugin_source() -> str:
    return Path(__file__).with_name("pytest_plugin.py").read_text(encoding="utf-8")


@cache
def _subject_source() -> str:
    return Path(__file__).with_name("pytest_subject.py").read_text(encoding="utf-8")


@cache
def _codec_source() -> str:
    return Path(__file__).with_name("pytest_codec.py").read_text(encoding="utf-8")


@cache
def _launcher() -> str:
    from codeteam.execution.pytest_plugin import LAUNCHER

    return LAUNCHER


async def _pytest(
    target: PytestTarget,
    args: list[str],
    spec: dict,
    policy: SandboxPolicy,
    overlay: str | None,
    extra_files: dict[str, str] | None = None,
) -> ProcessResult:
    files = {PLUGIN_FILE: _plugin_source(), SPEC_FILE: json.dumps(spec), **(extra_files or {})}
    extra = ["-n0"] if distributes_tests(Path(target.root)) else []
    argv = python_argv("-c", _launcher(), "-p", "no:cacheprovider",
                       "--continue-on-collection-errors", *extra, *args,
                       python=target.python, site=True)  # fmt: skip
    overlays = {} if overlay is None else {target.path: overlay}
    mount = ProjectMount(root=target.root, overlays=overlays, hidden=target.hidden,
                         python=target.python, workdir=target.root, extra_ro=target.extra_ro)
    try:
        return await run_sandboxed(files, argv, policy, project=mount)
    except OSError as error:  # the interpreter cannot be started there
        return ProcessResult(exit_code=None, stderr=f"pytest could not be started: {error}",
                             sandbox=policy.mode)


def _spec(target: PytestTarget, mode: str, policy: SandboxPolicy, **more) -> dict:
    return {
        "mode": mode,
        "target": {
            "module": target.module,
            "qualname": target.qualname,
            "file": target.relative_path,
            "firstlineno": target.first_line + 1,
            "name": target.name,
        },
        "test_timeout": min(policy.per_test_timeout_s, policy.timeout_s),
        "import_root": target.import_root,
        **more,
    }


def _run_problem(result: ProcessResult, heard: _Heard, policy: SandboxPolicy) -> str | None:
    """Why pytest did not run the tests at all (pytest's own words), or None."""
    if heard.collected:
        return None
    if result.exit_code is None and not result.killed:
        return result.stderr or "pytest could not be started"
    if result.exit_code == NO_PYTEST_EXIT:
        return result.stderr.strip().splitlines()[-1] if result.stderr.strip() else "no pytest"
    if result.killed:
        return f"pytest did not finish collecting within the {policy.timeout_s:g} s limit"
    lines = [line.strip() for line in (result.stderr + "\n" + result.stdout).splitlines()
             if line.strip()]
    errors = [line for line in lines if "error:" in line.lower() and not line.startswith("ERROR: usage")]
    errors = errors or [line for line in lines if line.startswith(("ERROR", "E ", "ImportError"))]
    detail = (errors or lines or [f"exit status {result.exit_code}"])[-1]
    return f"pytest could not run ({detail[:400]})"


# --------------------------------------------------------------------------------------------
# Selection

SELECTION_RESUMES = 3
"""Times the selection run is started again, after the tests already reported, when its
process ended during a test (that test is then "not run")."""
_selection_cache: dict[tuple, Selection] = {}
_reusable: dict[tuple, tuple[tuple, _Heard, ProcessResult]] = {}
"""The selection runs' outcomes, per (project, function, interpreter, text): a candidate run
on exactly that text (a review of the function as it is) uses them instead of running pytest
again, while the test files are unchanged."""
_CACHE_SIZE = 64


def _cache_key(target: PytestTarget, text: str, files: list[Path], conftests: list[Path]):
    stamps = []
    for path in [*files, *conftests]:
        try:
            stamps.append((str(path), path.stat().st_mtime_ns))
        except OSError:
            stamps.append((str(path), None))
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return (target.root, target.module, target.qualname, target.python, digest, tuple(stamps))


async def select_tests(target: PytestTarget, text: str, policy: SandboxPolicy) -> Selection:
    """The project's tests that call ``target``'s function, with ``text`` as its file's
    content (the document as it is; the function may be a stub: a call is counted when the
    function is entered, whatever it then does). Raises
    :class:`~codeteam.execution.models.SandboxUnavailable` when the sandbox cannot run."""
    found = await asyncio.to_thread(candidate_files, Path(target.root), target.name)
    files, conftests = found.tests, found.conftests
    key = (policy.mode, *_cache_key(target, text, files, conftests))
    if key in _selection_cache:
        return _selection_cache[key]
    started = time.monotonic()
    args = [os.path.relpath(path, target.root) for path in files]
    # The function's own file and its callers' too, when the project runs doctests
    # (--doctest-modules): pytest collects their doctests; the plugin keeps only doctests of
    # these files.
    sources = [target.relative_path]
    if await asyncio.to_thread(runs_doctests, Path(target.root)):
        sources += [os.path.relpath(p, target.root) for p in found.sources]
    sources = [p for p in dict.fromkeys(sources) if p not in args]
    args += sources
    spec = _spec(target, "select", policy, doctest_files=sources)
    result = await _pytest(target, args, spec, policy, text)
    heard = _read(result.results)
    ended: list[str] = []  # tests during which the process ended (a crash, os._exit, C code)
    for _ in range(SELECTION_RESUMES):
        if heard.done is not None or not heard.collected or result.killed:
            break
        if heard.running is not None and heard.running not in heard.outcomes:
            ended.append(heard.running)
        rest = [i for i in heard.items if i not in heard.outcomes and i not in ended]
        if not rest:
            break
        spec = _spec(target, "select", policy, doctest_files=sources, keep=rest)
        result = await _pytest(target, args, spec, policy, text)
        more = _read(result.results)
        for nodeid in more.order:
            heard.outcomes[nodeid] = more.outcomes[nodeid]
            heard.order.append(nodeid)
        heard.running, heard.done = more.running, more.done
        heard.collected = more.collected
    selection = Selection(searched=[os.path.relpath(p, target.root) for p in files],
                          rootdir=heard.rootdir, seconds=time.monotonic() - started)
    selection.problem = _run_problem(result, heard, policy)
    if heard.elsewhere and selection.problem is None:
        selection.problem = (f"the tests import {target.module} from {heard.elsewhere}, not from "
                             f"{target.relative_path}: its calls cannot be seen")
    groups: dict[str, list[str]] = {}
    for nodeid, message in heard.collect_errors.items():
        if nodeid == target.relative_path or nodeid.startswith(target.relative_path + "::"):
            reason = f"the module {target.module} cannot be collected: {message}"
        else:
            reason = f"collection error: {message}"
        groups.setdefault(reason, []).append(nodeid)
    for nodeid in heard.order:
        event = heard.outcomes[nodeid]
        outcome = event.get("outcome")
        if event.get("calls"):
            if outcome in ("skipped", "xfailed"):
                groups.setdefault(_reason(event), []).append(nodeid)
                continue
            selection.selected.append(nodeid)
            selection.files[nodeid] = str(event.get("file") or "")
            if isinstance(event.get("line"), int):
                selection.lines[nodeid] = event["line"]
            if event.get("own_doctest"):
                selection.doctests.append(nodeid)
        elif outcome != "passed" and event.get("mentions"):
            # names the function but did not reach it: not run, never dropped silently
            groups.setdefault(_reason(event, target.name), []).append(nodeid)
    if heard.running is not None and heard.running not in heard.outcomes:
        ended.append(heard.running)
    for nodeid in dict.fromkeys(ended):
        reason = "the pytest process ended during this test" + (
            f" (the {policy.timeout_s:g} s limit)" if result.killed and nodeid == heard.running
            else "")
        groups.setdefault(reason, []).append(nodeid)
    if result.killed:  # the tests never reached: not run, never dropped silently
        rest = [i for i in heard.items if i not in heard.outcomes and i not in ended]
        if rest:
            reason = f"not looked at: the selection run hit its {policy.timeout_s:g} s limit"
            groups.setdefault(reason, []).extend(rest)
    selection.not_run = [NotRun(reason=r, node_ids=ids) for r, ids in groups.items()]
    if selection.problem is None and result.killed:
        selection.problem = (f"the selection run hit its {policy.timeout_s:g} s limit; the "
                             "tests after the last one reported were not looked at")
    if len(_selection_cache) >= _CACHE_SIZE:
        _selection_cache.pop(next(iter(_selection_cache)))
    if not result.killed and result.exit_code is not None:
        _selection_cache[key] = selection
        _reusable[key[:-1]] = (key, heard, result)
        while len(_reusable) > _CACHE_SIZE:
            _reusable.pop(next(iter(_reusable)))
    return selection


def _reason(event: dict, name: str | None = None) -> str:
    outcome = event.get("outcome")
    message = " ".join(str(event.get("message") or "").split())
    if outcome == "xfailed":
        return f"xfail: {message}" if message else "xfail"
    if outcome == "skipped":
        return message or "skipped"
    if outcome == "timeout":
        return "timed out on the current code"
    if outcome in ("failed", "xpassed"):
        return f"failed before calling {name}: {message}" if message else f"failed before calling {name}"
    when = event.get("when")
    return f"error in {when}: {message}" if message else f"error in {when}"


def selection_cases(selection: Selection) -> list[TestCase]:
    """The public pytest tests of a selection: the selected ones, then the not-run ones (with
    ``skip_reason``: reported as not run, never dropped silently); or one not-run entry when
    pytest could not run at all."""
    cases = [
        TestCase(id=nodeid, kind="pytest", origin="public", source=nodeid,
                 name=nodeid.split("::", 1)[-1], file=selection.files.get(nodeid) or None,
                 line=selection.lines.get(nodeid))
        for nodeid in selection.selected
    ]
    for group in selection.not_run:
        for nodeid in group.node_ids:
            cases.append(TestCase(id=nodeid, kind="pytest", origin="public", source=nodeid,
                                  name=nodeid.split("::", 1)[-1], skip_reason=group.reason))
    if selection.problem and not selection.selected:
        cases.append(TestCase(id="pytest", kind="pytest", origin="public", source="",
                              name="pytest", skip_reason=selection.problem))
    return cases


# --------------------------------------------------------------------------------------------
# Candidate runs


async def run_pytest_tests(
    target: PytestTarget,
    text: str,
    tests: list[TestCase],
    policy: SandboxPolicy,
    *,
    function_start: int | None = None,
    function_lines: int | None = None,
    rootdir: str | None = None,
    judge: JudgeView | None = None,
) -> RunReport:
    """Run pytest tests ``tests`` (their ids are node ids) on ``text`` (the candidate version
    of the function's file). One outcome per test, in the order given: a test pytest did not
    report is an "error" saying why; ``function_start`` (0-based line of the function in
    ``text``) and ``function_lines`` map a traceback line in the file to ``function_line``; a
    test's own failing line (in its test file) is ``test_file``/``test_line``. Tests with a
    ``skip_reason`` are "skipped" without running. Raises
    :class:`~codeteam.execution.models.SandboxUnavailable` when the sandbox cannot run.

    With ``judge`` (:func:`~codeteam.execution.judge_view.judge_view` of the user's text),
    pytest imports that view and the code under test runs in a subject process of its own
    (:mod:`~codeteam.execution.pytest_subject`): those verdicts are ``trusted``. The tests
    whose arguments could not cross, and those the judge gets wrong on the user's own code
    (:func:`_unjudgeable`), are run again the old way (``text`` laid over the file, one
    process) and, like every outcome of a run without ``judge``, are not trusted."""
    runnable = [test for test in tests if test.skip_reason is None]
    if not runnable:
        return RunReport(outcomes=[_not_run(t) for t in tests], sandbox=policy.mode)
    files: list[str] = []
    moved = rootdir not in (None, "", ".")
    for test in runnable:
        file = test.id.split("::", 1)[0]
        if moved:
            file = os.path.normpath(os.path.join(rootdir, file))
        if file not in files:
            files.append(file)
    args = list(files)
    if moved:  # the same rootdir as the selection's, so that the node ids are the same
        args = ["--rootdir", os.path.join(target.root, rootdir), *args]
    reused = None  # a judged run is never replaced by the selection's one-process outcomes
    if judge is None:
        reused = await asyncio.to_thread(_reuse, target, text, runnable, policy)
    judged = False
    if reused is not None:
        heard, result = reused
    elif judge is not None:
        heard, result = await _judged(target, args, text, [t.id for t in runnable], policy,
                                      judge)
        judged = True
    else:
        spec = _spec(target, "run", policy, keep=[t.id for t in runnable])
        result = await _pytest(target, args, spec, policy, text)
        heard = _read(result.results)
    problem = _run_problem(result, heard, policy)
    ran = {t.id: _outcome(t, heard, result, policy, problem, target, function_start,
                          function_lines, trusted=judged) for t in runnable}
    _check_consistency(list(ran.values()), heard, result)
    results = [result]
    unjudged = await _unjudgeable(target, args, runnable, policy, judge) if judged else {}
    again = [t for t in runnable if judged and (
        (heard.outcomes.get(t.id) or {}).get("fallback") or t.id in unjudged)]
    if again:  # an argument could not cross, or the judge misjudges the user's own code: these
        # run the old way (the code's own process)
        why = {t.id: (heard.outcomes.get(t.id) or {}).get("fallback") or _MISJUDGED
               for t in again}
        spec = _spec(target, "run", policy, keep=[t.id for t in again])
        second = await _pytest(target, args, spec, policy, text)
        heard = _read(second.results)
        problem = _run_problem(second, heard, policy)
        rerun = {t.id: _outcome(t, heard, second, policy, problem, target, function_start,
                                function_lines, trusted=False) for t in again}
        _check_consistency(list(rerun.values()), heard, second)
        for test_id, outcome in rerun.items():
            outcome.untrusted_reason = str(why[test_id])
        ran.update(rerun)
        results.append(second)
    outcomes = [_not_run(t) if t.skip_reason is not None else ran[t.id] for t in tests]
    return RunReport(
        outcomes=outcomes,
        sandbox=policy.mode,
        exit_code=next((r.exit_code for r in results if r.exit_code), result.exit_code),
        killed=any(r.killed for r in results),
        output="\n".join(_output_tail(r) for r in results if _output_tail(r)),
        seconds=sum(r.seconds for r in results),
    )


async def _judged(target: PytestTarget, args: list[str], text: str, ids: list[str],
                  policy: SandboxPolicy, judge: JudgeView) -> tuple[_Heard, ProcessResult]:
    """One judged pytest run of ``ids`` on candidate ``text``."""
    spec = _spec(target, "run", policy, keep=ids, judge=_judge_spec(target, text, judge))
    result = await _pytest(target, args, spec, policy, judge.text,
                           {SUBJECT_FILE: _subject_source(), CODEC_FILE: _codec_source(),
                            CANDIDATE_FILE: text})
    return _read(result.results), result


_calibrations: dict[tuple, dict[str, str]] = {}


async def _unjudgeable(target: PytestTarget, args: list[str], tests: list[TestCase],
                       policy: SandboxPolicy, judge: JudgeView) -> dict[str, str]:
    """The tests the judge cannot decide faithfully for this function: those the user's own
    text passes in one process (the selection run's outcomes) but not judged, e.g. a test
    that changes the state of another module of the project (``i18n.activate("fr")``),
    which the subject process never sees. Decided on the user's text alone (the candidate
    has no say), once per text and tests; node id -> reason. Nothing for a stub (no test
    passes on it)."""
    original = judge.original
    if original is None:
        return {}
    reused = await asyncio.to_thread(_reuse, target, original, tests, policy)
    if reused is None:
        return {}
    heard, _ = reused
    passing = [t.id for t in tests if (heard.outcomes.get(t.id) or {}).get("outcome") == "passed"]
    if not passing:
        return {}
    digest = hashlib.sha256(original.encode("utf-8")).hexdigest()
    key = (policy.mode, target.root, target.module, target.qualname, target.python, digest,
           tuple(passing))
    if key not in _calibrations:
        judged, _ = await _judged(target, args, original, passing, policy, judge)
        _calibrations[key] = {
            nodeid: "the judge's verdict on the user's own code differs from pytest's in one "
                    "process (state the code's process does not see)"
            for nodeid in passing
            if (judged.outcomes.get(nodeid) or {}).get("outcome") != "passed"}
        while len(_calibrations) > _CACHE_SIZE:
            _calibrations.pop(next(iter(_calibrations)))
    return _calibrations[key]


def _judge_spec(target: PytestTarget, text: str, judge: JudgeView) -> dict:
    """The spec's ``judge`` entry (see :mod:`~codeteam.execution.pytest_plugin`)."""
    lines, shift = placement(judge, text, target.qualname)
    return {"candidate": CANDIDATE_FILE, "lines": lines, "shift": shift,
            "span": [judge.start_line + 1, judge.end_line + 1]}


def _reuse(
    target: PytestTarget, text: str, tests: list[TestCase], policy: SandboxPolicy
) -> tuple[_Heard, ProcessResult] | None:
    """The selection run's report and process result when it ran ``tests`` on this very text,
    the test and conftest.py files have not changed since, and each test stayed within this
    run's per-test limit (and all of them within its whole-run limit); else None."""
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    partial = (policy.mode, target.root, target.module, target.qualname, target.python, digest)
    found = _reusable.get(partial)
    if found is None:
        return None
    key, heard, result = found
    found = candidate_files(Path(target.root), target.name)
    current = (policy.mode, *_cache_key(target, text, found.tests, found.conftests))
    if current != key or heard.done is None:
        return None
    limit = min(policy.per_test_timeout_s, policy.timeout_s)
    events = [heard.outcomes.get(test.id) for test in tests]
    if any(event is None or float(event.get("duration") or 0) >= limit for event in events):
        return None
    if sum(float(event.get("duration") or 0) for event in events) >= policy.timeout_s:
        return None
    return heard, result


def _not_run(test: TestCase) -> TestOutcome:
    return TestOutcome(test_id=test.id, status="skipped", message=test.skip_reason or "")


_STATUS = {"passed": "passed", "xpassed": "passed", "failed": "failed", "error": "error",
           "timeout": "timeout", "skipped": "skipped", "xfailed": "skipped"}  # fmt: skip


def _outcome(
    test: TestCase,
    heard: _Heard,
    result: ProcessResult,
    policy: SandboxPolicy,
    problem: str | None,
    target: PytestTarget,
    function_start: int | None,
    function_lines: int | None,
    trusted: bool = False,
) -> TestOutcome:
    event = heard.outcomes.get(test.id)
    if event is None:
        file = test.id.split("::", 1)[0]
        if problem:
            message = problem
        elif file in heard.collect_errors:
            message = f"collection error: {heard.collect_errors[file]}"
        elif heard.running == test.id:
            message = ("the test did not end within its time limit and the run was ended"
                       if result.killed or _watchdog(result) else
                       f"the process died during this test (exit status {result.exit_code})")
            status = "timeout" if result.killed or _watchdog(result) else "error"
            return TestOutcome(test_id=test.id, status=status, message=message, trusted=trusted)
        elif heard.done is None:
            message = ("not run: the pytest process ended before this test "
                       f"(exit status {result.exit_code}{', killed at the time limit' if result.killed else ''})")
        elif heard.done.get("exitstatus") == 2:  # pytest's ExitCode.INTERRUPTED
            message = "not run: pytest was interrupted before this test (exit status 2)"
        else:
            message = "pytest did not collect this test any more (not found in its file)"
        return TestOutcome(test_id=test.id, status="error", message=message, trusted=trusted)
    status = _STATUS.get(str(event.get("outcome")), "error")
    message = str(event.get("message") or "")
    if event.get("outcome") == "xfailed":
        message = f"xfail: {message}" if message else "xfail"
    elif event.get("outcome") == "xpassed":
        message = f"XPASS {message}".strip()
    outcome = TestOutcome(
        test_id=test.id,
        status=status,  # type: ignore[arg-type]
        expected=event.get("expected"),
        actual=event.get("actual"),
        exception_type=event.get("exception_type"),
        message=message,
        seconds=float(event.get("duration") or 0.0),
    )
    outcome.trusted = trusted  # False: decided in the process that ran the code under test
    frames = [frame for frame in event.get("traceback") or []
              if isinstance(frame, list) and len(frame) == 2]
    outcome.traceback = str(event.get("longrepr") or "") or "\n".join(
        f"{path}:{line}" for path, line in frames)  # pytest's own report of the failure
    in_target = [line for path, line in frames if path == target.relative_path]
    if in_target:
        outcome.program_line = in_target[-1]
        if function_start is not None and function_lines is not None:
            offset = in_target[-1] - 1 - function_start
            if 0 <= offset < function_lines:
                outcome.function_line = offset
    test_file = test.file or test.id.split("::", 1)[0]
    in_test = [line for path, line in frames if path == test_file]
    if in_test:
        outcome.test_file = os.path.join(target.root, test_file)
        outcome.test_line = in_test[-1] - 1
    return outcome


def _watchdog(result: ProcessResult) -> bool:
    return re.search(r"^Timeout \(\d+:\d\d:\d\d(\.\d+)?\)!$", result.stderr, re.MULTILINE) is not None


def _check_consistency(outcomes: list[TestOutcome], heard: _Heard, result: ProcessResult) -> None:
    """A run whose results disagree with pytest's exit status makes every passed test an
    error: the results cannot be trusted. Passes stand only when pytest ended with a "done"
    line whose exit status is the process's, whose outcome count is the outcome lines read
    (each test reported once), and the exit status is what those outcomes give: 0 (OK) when
    none failed (skips, xfails, deselected tests included), 1 (TESTS_FAILED) when one failed
    or pytest reported a collection error; 2-5 (interrupted, internal or usage error, nothing
    collected) or any other status never hold a pass."""
    passed = [o for o in outcomes if o.status == "passed"]
    if not passed:
        return
    failing = any(str(e.get("outcome")) in _FAILING for e in heard.outcomes.values())
    reason = None
    if heard.done is None:
        reason = "pytest did not finish (no end-of-run report): the results are not trusted"
    elif heard.done.get("exitstatus") != result.exit_code:
        reason = (f"pytest's exit status ({result.exit_code}) disagrees with its end-of-run "
                  "report: the results are not trusted")
    elif heard.repeated:
        reason = (f"two outcome lines for {heard.repeated[0]}: the results are not trusted")
    elif heard.done.get("outcomes") != heard.outcome_lines:
        reason = (f"pytest's end-of-run report counts {heard.done.get('outcomes')} outcomes, "
                  f"{heard.outcome_lines} were read: the results are not trusted")
    elif result.exit_code == 0 and (failing or any(o.status in _FAILING for o in outcomes)):
        reason = "pytest exited 0 although a test failed: the results are not trusted"
    elif result.exit_code == 1 and not (failing or heard.collect_errors):
        reason = ("pytest exited 1 (a test failed) although every test passed: the results "
                  "are not trusted")
    elif result.exit_code not in (0, 1):
        reason = (f"pytest's exit status {result.exit_code} (not 0 or 1) with passed tests: "
                  "the results are not trusted")
    if reason is None:
        return
    for outcome in passed:
        outcome.status = "error"
        outcome.message = reason


def _output_tail(result: ProcessResult) -> str:
    parts = []
    for name, text in (("stdout", result.stdout), ("stderr", result.stderr)):
        if text:
            tail = text if len(text) <= OUTPUT_TAIL else "…" + text[-OUTPUT_TAIL:]
            parts.append(f"{name}:\n{tail}")
    return "\n".join(parts)
