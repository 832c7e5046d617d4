"""Running tests on a program in the sandbox and turning what happened into a RunReport.

One run = one sandboxed process tree: the program module, the harness (``harness.py``, standard
library only, shipped compiled as ``_codeteam_harness.pyc``) and a spec are copied into the
sandbox. The harness's *judge* starts a *subject* process that imports the program; the judge
evaluates each docstring example and AI test itself, calling the module's functions in the
subject with plain data, compares the results itself, and streams one JSON line per test
back on a results descriptor only the judge holds (see :mod:`codeteam.execution.harness` for
who can reach what). Outcomes come back in the order of the tests given, always one per test:
when the judge dies mid-run (the wall-clock timeout, a crash), the finished tests keep their
outcomes, the running one gets the reason and the rest are marked as not run; a run that ends
without every expected outcome is an error for the missing ones, never a pass.

For a :class:`~codeteam.task.Program` that knows the user's text (``original``), the judge
imports the *judge view* of that text (:mod:`codeteam.execution.judge_view`: the user's own
module, the target's body one forwarding call; laid over the file, the candidate in a file
of its own) and evaluates every test there, classes, constants, lambdas and imports
included; only the target's calls go to the subject, through pytest_codec (the harness's
judged mode).

Residuals, marked on each outcome (``TestOutcome.trusted`` False, counted in the summary): in
the judged mode, a test whose own arguments cannot cross to the subject runs inside it.
Without a view (a program given as text alone; an ``async def``, nested or one-line target;
a module named like a standard module; a view that does not import in the sandbox) the judge
evaluates only tests that call the module's functions with plain data; the others run
inside the subject, and a return value that is not plain data is judged by its repr as the
subject reports it.
"""

from __future__ import annotations

import importlib.util
import json
import keyword
import marshal
import re
import signal
import sys
from functools import cache
from pathlib import Path

from pydantic import ValidationError

from codeteam.execution.judge_view import judge_view, placement
from codeteam.execution.models import RunReport, TestCase, TestOutcome
from codeteam.execution.sandbox import (
    ProcessResult,
    ProjectMount,
    SandboxPolicy,
    python_argv,
    run_sandboxed,
    sandbox_site_packages,
)
from codeteam.project import Project
from codeteam.task import Program

HARNESS_FILE = "_codeteam_harness.py"
HARNESS_PYC = "_codeteam_harness.pyc"
SPEC_FILE = "_codeteam_spec.marshal"
CODEC_NAME = "_codeteam_pytest_codec"
SUBJECT_NAME = "_codeteam_pytest_subject"
CANDIDATE_FILE = "_codeteam_candidate.py"
OUTPUT_TAIL = 4000
"""Characters of stdout and of stderr kept in :attr:`RunReport.output` (their ends)."""

_TEST_FIELDS = {"id", "kind", "source", "expected", "name", "setup", "file", "line",
                "module_aliases", "arguments", "fixtures"}  # fmt: skip


@cache
def harness_source() -> str:
    """The text of the harness script copied into each sandbox."""
    return Path(__file__).with_name("harness.py").read_text(encoding="utf-8")


@cache
def harness_bytecode() -> bytes:
    """The harness compiled by this interpreter, as a ``.pyc`` file the sandbox's interpreter
    (the same one, :func:`~codeteam.execution.sandbox.sandbox_python`) runs directly: the
    harness is large, and compiling it in every run would cost more than the rest of its
    start-up (about 10 ms on a loaded machine)."""
    return _bytecode(harness_source(), HARNESS_FILE)


@cache
def _sibling_source(name: str) -> str:
    """The text of ``pytest_codec.py`` / ``pytest_subject.py``, which the harness loads from
    beside itself (``_codeteam_pytest_codec``, ``_codeteam_pytest_subject``)."""
    return Path(__file__).with_name(name.removeprefix("_codeteam_") + ".py").read_text(
        encoding="utf-8")


@cache
def _sibling_bytecode(name: str) -> bytes:
    return _bytecode(_sibling_source(name), name + ".py")


def _bytecode(source: str, filename: str) -> bytes:
    code = compile(source, filename, "exec", dont_inherit=True)
    return importlib.util.MAGIC_NUMBER + bytes(12) + marshal.dumps(code)


def _judge_entry(program: Program | str, module_name: str,
                 root: str | None) -> dict | None:
    """The spec's ``judge`` entry when the harness can judge with the judge view of the
    user's text (``program`` a :class:`~codeteam.task.Program` that knows its original, a
    view that can be built, a module name no standard module has), else None."""
    if not isinstance(program, Program) or program.original is None or not program.qualname:
        return None
    if module_name.split(".")[0] in sys.stdlib_module_names:
        return None  # the judge's own imports would find the user's module
    view = judge_view(program.original, program.qualname, program.original_start)
    if view is None:
        return None
    lines, shift = placement(view, program.text, program.qualname)
    return {"view": view.text, "qualname": program.qualname, "lines": lines, "shift": shift,
            "span": [view.start_line + 1, view.end_line + 1], "root": root}


async def run_tests(
    program: Program | str,
    tests: list[TestCase],
    *,
    module_name: str = "solution",
    policy: SandboxPolicy,
    project: Project | None = None,
) -> RunReport:
    """Run ``tests`` against ``program`` (see :func:`_run_in_one_sandbox` for everything but
    this): AI tests (``origin`` "ai") run in a sandboxed process of their own, after the
    others, when there are both. In the judged mode a test's own code runs in the judge, and
    an AI test is model-written code: apart, it cannot touch how the user's tests (and the
    benchmark's hidden ones) are judged. Outcomes come back in the order of ``tests``;
    ``exit_code`` is the first non-zero one, ``killed`` whether either run was killed,
    ``seconds`` the sum. Raises what :func:`_run_in_one_sandbox` raises."""
    ai = [test for test in tests if test.origin == "ai"]
    others = [test for test in tests if test.origin != "ai"]
    if not ai or not others:
        return await _run_in_one_sandbox(program, tests, module_name=module_name,
                                         policy=policy, project=project)
    first = await _run_in_one_sandbox(program, others, module_name=module_name, policy=policy,
                                      project=project)
    second = await _run_in_one_sandbox(program, ai, module_name=module_name, policy=policy,
                                       project=project)
    by_id = {id(test): outcome for test, outcome in
             [*zip(others, first.outcomes), *zip(ai, second.outcomes)]}
    return RunReport(
        outcomes=[by_id[id(test)] for test in tests],
        sandbox=policy.mode,
        exit_code=first.exit_code or second.exit_code,
        killed=first.killed or second.killed,
        output="\n".join(part for part in (first.output, second.output) if part),
        seconds=first.seconds + second.seconds,
    )


async def _run_in_one_sandbox(
    program: Program | str,
    tests: list[TestCase],
    *,
    module_name: str = "solution",
    policy: SandboxPolicy,
    project: Project | None = None,
) -> RunReport:
    """Run ``tests`` against ``program`` in one sandboxed process.

    ``program`` is the module text (a :class:`~codeteam.task.Program`, whose
    ``function_offset`` maps failures to ``function_line``, or plain text). Without
    ``project`` (or for a lone module, :attr:`~codeteam.project.Project.lone`) it is the file
    ``<module_name>.py`` in the sandbox, importable as ``module_name`` (and under each test's
    ``module_aliases``). With a ``project``, the function is tested where it lives
    (:func:`project_mount`): the project is mounted read-only with ``program`` laid over
    ``project.file``, the project's interpreter runs the harness, and the module is imported
    by its dotted name ``project.module`` from ``project.import_root`` (relative imports and
    the package's ``__init__`` work); ``module_name`` is then ignored. Each test gets
    ``policy.per_test_timeout_s`` seconds (at most ``policy.timeout_s``); the whole run
    ``policy.timeout_s``.

    Returns a :class:`RunReport` with one :class:`TestOutcome` per test, in the order of
    ``tests``; the program failing to import is an "error" outcome for every test, except when
    ``program`` is a :class:`~codeteam.task.Program` and the import that failed is a missing
    module imported outside the function under test (the user's module needs something the
    sandbox does not have): then every test is "skipped". Tests with a ``skip_reason`` are not
    run and are "skipped" with that reason. With no tests, an empty report and no process (nor
    when every test has a ``skip_reason``). Raises
    :class:`~codeteam.execution.models.SandboxUnavailable` (message from
    :func:`~codeteam.execution.sandbox.sandbox_problem`) when ``policy.mode`` is "bwrap" and
    bwrap cannot run here; ``ValueError`` when ``module_name`` (or a part of the project's
    dotted name) is not a plain identifier.
    Cancellation kills the process (see :func:`~codeteam.execution.sandbox.run_sandboxed`).
    """
    in_project = project is not None and not project.lone
    if in_project:
        module_name = project.module
    if not all(_plain(part) for part in module_name.split(".")):
        raise ValueError(f"module_name must be a plain identifier, not {module_name!r}")
    if not tests:
        return RunReport(sandbox=policy.mode)
    runnable = [test for test in tests if test.skip_reason is None]
    if not runnable:  # nothing to start a process for
        return RunReport(outcomes=[_skipped(test) for test in tests], sandbox=policy.mode)
    text = program.text if isinstance(program, Program) else program
    spec = {
        "function_span": (
            [program.function_start + 1, program.function_start + program.function_lines]
            if isinstance(program, Program)
            else None
        ),
        "module": module_name,
        "tests": [test.model_dump(include=_TEST_FIELDS) for test in runnable],
        "test_timeout": min(policy.per_test_timeout_s, policy.timeout_s),
        "sys_path": sandbox_site_packages(),
    }
    judge = _judge_entry(program, module_name, project.root if in_project else None)
    judged = ["--judged"] if judge is not None else []
    if judge is not None:  # the judge imports the view; the subject loads the candidate
        spec["judge"] = judge
        spec["candidate"] = CANDIDATE_FILE
    if in_project:
        mount = project_mount(project, judge["view"] if judge is not None else text)
        spec["program_file"] = project.file

        def project_spec(root_here: str) -> bytes:
            # mode "none" runs in a copy of the project: its paths, not the project's
            moved = {**spec, "program_file": _moved(project.file, project.root, root_here),
                     "sys_path": [_moved(path, project.root, root_here)
                                  for path in project.sys_path()]}  # fmt: skip
            if judge is not None:
                moved["judge"] = {**judge, "root": root_here}
            return marshal.dumps(moved)

        # The source, not the .pyc: the project's interpreter may be another Python version.
        files = {HARNESS_FILE: harness_source(), SPEC_FILE: project_spec,
                 CODEC_NAME + ".py": _sibling_source(CODEC_NAME),
                 SUBJECT_NAME + ".py": _sibling_source(SUBJECT_NAME)}  # fmt: skip
        if judge is not None:
            files[CANDIDATE_FILE] = text
        argv = python_argv(HARNESS_FILE, SPEC_FILE, *judged, python=project.python)
        result = await run_sandboxed(files, argv, policy, project=mount)
        program_name = project.file
    else:
        files = {
            f"{module_name}.py": judge["view"] if judge is not None else text,
            HARNESS_PYC: harness_bytecode(),
            CODEC_NAME + ".pyc": _sibling_bytecode(CODEC_NAME),
            SUBJECT_NAME + ".pyc": _sibling_bytecode(SUBJECT_NAME),
            SPEC_FILE: marshal.dumps(spec),  # trusted data to the harness; loads without imports
        }
        if judge is not None:
            files[CANDIDATE_FILE] = text
        result = await run_sandboxed(files, python_argv(HARNESS_PYC, SPEC_FILE, *judged), policy)
        program_name = f"{module_name}.py"
    ran = iter(_outcomes(runnable, result, policy, module_name, program_name))
    outcomes = [_skipped(test) if test.skip_reason is not None else next(ran) for test in tests]
    if isinstance(program, Program):
        for outcome in outcomes:
            if outcome.program_line is not None:
                outcome.function_line = program.function_offset(outcome.program_line)
            if _missing_module_of_the_module(outcome):
                outcome.status = "skipped"
                outcome.message += (
                    f" (line {outcome.program_line} of {Path(program_name).name}, outside the "
                    "function: the sandbox does not have that module)"
                )
    return RunReport(
        outcomes=outcomes,
        sandbox=policy.mode,
        exit_code=result.exit_code,
        killed=result.killed,
        output=_output_tail(result),
        seconds=result.seconds,
    )


def _plain(name: str) -> bool:
    return name.isidentifier() and not keyword.iskeyword(name) and not name.startswith("_codeteam")


def project_mount(project: Project, text: str) -> ProjectMount:
    """The :class:`~codeteam.execution.sandbox.ProjectMount` that tests ``text`` (the
    candidate module) where ``project.file`` lives: the project root read-only with ``text``
    laid over the file, its hidden paths hidden, the project's interpreter and its folders
    read-only, the root as working directory."""
    return ProjectMount(
        root=project.root,
        overlays={project.file: text},
        hidden=project.hidden,
        python=project.python,
        workdir=project.root,
        extra_ro=project.read_only_paths(),
    )


def _moved(path: str, old_root: str, new_root: str) -> str:
    """``path`` with ``old_root``'s parent replaced by ``new_root``'s: the same place in a
    copy of the project (an import root may be the root's parent, for a package at the top)."""
    old_parent, new_parent = Path(old_root).parent, Path(new_root).parent
    try:
        return str(new_parent / Path(path).relative_to(old_parent))
    except ValueError:
        return path


def _skipped(test: TestCase) -> TestOutcome:
    return TestOutcome(test_id=test.id, status="skipped", message=test.skip_reason or "")


def _missing_module_of_the_module(outcome: TestOutcome) -> bool:
    """The program failed to import because a module that the rest of its module (not the
    function under test) imports is missing in the sandbox: an environment problem (a
    third-party or sibling module the sandbox cannot see), not the code's."""
    return (
        outcome.status == "error"
        and outcome.exception_type == "ModuleNotFoundError"
        and outcome.import_failed
        and outcome.program_line is not None
        and outcome.function_line is None
    )


def _outcomes(
    tests: list[TestCase],
    result: ProcessResult,
    policy: SandboxPolicy,
    module_name: str,
    program_name: str | None = None,
) -> list[TestOutcome]:
    found: dict[int, TestOutcome] = {}
    running: int | None = None  # index of a started test without outcome; -1: the import
    heard = False
    finished = False
    for line in result.results.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue  # a line cut by a crash
        if not isinstance(event, dict):
            continue
        heard = True
        kind = event.get("event")
        index = event.get("index")
        if kind == "start" and isinstance(index, int):
            running = index
        elif kind == "imported":
            running = None
        elif kind == "outcome" and isinstance(index, int) and 0 <= index < len(tests):
            if index not in found:
                found[index] = _parse_outcome(tests[index], event)
            running = None
        elif kind == "done":
            finished = True
            running = None
    stuck = _WATCHDOG.search(result.stderr) is not None
    reason = _death_reason(result, policy, stuck)
    where = _dumped_line(result.stderr, program_name or f"{module_name}.py")
    outcomes = []
    for index, test in enumerate(tests):
        if index in found:
            outcomes.append(found[index])
            continue
        if not heard:
            message = f"the test harness did not run: {reason}"
        elif running == -1:
            message = f"the process died while importing {module_name}: {reason}"
        elif index == running and stuck:
            limit = min(policy.per_test_timeout_s, policy.timeout_s)
            message = (
                f"the test did not stop at its {limit:g} s limit (stuck outside the "
                "interpreter loop, e.g. in C code) and the run was ended"
            )
        elif index == running:
            message = f"the process died during this test: {reason}"
        elif finished:
            message = "the harness reported no outcome for this test"
        else:
            message = f"not run: the process died before this test: {reason}"
        timed_out = result.killed or stuck
        status = "timeout" if timed_out and (index == running or running == -1) else "error"
        outcome = TestOutcome(test_id=test.id, status=status, message=message)
        if index == running:
            outcome.program_line = where
        outcomes.append(outcome)
    return outcomes


HARNESS_RESIDUAL = ("the sandbox's judge does not run this test itself (a value the test "
                    "passes cannot cross to the code's process, such as an object of a class "
                    "the test defines; or, for a function the judge cannot import apart, the "
                    "test uses more of the module than its functions, an import or builtin it "
                    "does not run), so it ran in the code's own process")


def _parse_outcome(test: TestCase, event: dict) -> TestOutcome:
    fields = {key: value for key, value in event.items() if key in TestOutcome.model_fields}
    fields["test_id"] = test.id
    fields.pop("function_line", None)
    fields.pop("untrusted_reason", None)  # ours to say, never the code's
    try:
        outcome = TestOutcome.model_validate(fields)
        if not outcome.trusted:
            outcome.untrusted_reason = HARNESS_RESIDUAL
        return outcome
    except ValidationError as error:
        return TestOutcome(
            test_id=test.id, status="error", message=f"malformed result from the harness: {error}"
        )


_WATCHDOG = re.compile(r"^Timeout \(\d+:\d\d:\d\d(\.\d+)?\)!$", re.MULTILINE)
"""The header of faulthandler's dump when the harness's watchdog ended a stuck test."""


def _dumped_line(stderr: str, program_name: str) -> int | None:
    """The 1-based program line of the innermost frame in a faulthandler dump (a crash, or the
    watchdog's): frames are listed most recent first. ``program_name``: the program's file
    name (``mod.py``, any folder) or absolute path."""
    folder = "" if program_name.startswith("/") else r'(?:[^"\n]*/)?'
    frame = re.search(
        r'^\s+File "' + folder + re.escape(program_name) + r'", line (\d+)',
        stderr,
        re.MULTILINE,
    )
    return int(frame.group(1)) if frame else None


def _death_reason(result: ProcessResult, policy: SandboxPolicy, stuck: bool) -> str:
    """Why the process ended, for outcomes it did not report."""
    if stuck:
        return "a test was stuck past its time limit and the run was ended"
    if result.killed:
        reason = f"the run exceeded its {policy.timeout_s:g} s wall-clock limit and was killed"
    elif result.exit_code is None:
        reason = "the process did not start"
    elif result.exit_code < 0:
        number = -result.exit_code
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        reason = f"killed by {name}"
        if number == signal.SIGXCPU:
            reason += f" (CPU time limit of {policy.cpu_s} s)"
        elif number == signal.SIGKILL:
            reason += " (the CPU time limit, or out of memory)"
        elif number == signal.SIGSEGV:
            reason += " (a crash, e.g. a C stack overflow)"
    else:
        reason = f"it exited with status {result.exit_code}"
    lines = [line.strip() for line in result.stderr.splitlines() if line.strip()]
    fatal = [line for line in lines if line.startswith("Fatal Python error")]
    plain = [line for line in lines if not line.startswith(("File ", "Current thread", "Thread "))]
    if (fatal or plain) and not result.killed:
        reason += f"; stderr: {(fatal or plain)[-1][:300]}"
    return reason


def _output_tail(result: ProcessResult) -> str:
    parts = []
    for name, text in (("stdout", result.stdout), ("stderr", result.stderr)):
        if text:
            tail = text if len(text) <= OUTPUT_TAIL else "…" + text[-OUTPUT_TAIL:]
            parts.append(f"{name}:\n{tail}")
    return "\n".join(parts)
