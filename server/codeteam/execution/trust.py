"""Which outcome counts how: the one place that decides, from what the judge reported, whether
a test passed, failed, was skipped or is "not judged", and that merges the reports of a run's
sessions.

The judge (:mod:`codeteam.execution.pytest_plugin`) runs every test with pytest and never runs
the code under test (the subject does), so what it reports is pytest's own outcome, decided
apart from the code. On top of pytest's word:

- a decision of the judge stands over whatever the test caught: the subject died, sent a value
  of a class the code defines, raised a pytest outcome (an error); or a value could not cross
  between judge and code (``not judged``: the judge cannot tell);
- a test cut by the wall-clock backstop while under its CPU limit, or left unfinished by a
  session the backstop ended while its processes used well under that time of CPU
  (``ProcessResult.cpu_seconds``), is ``not judged``: the machine was too busy (never
  "failed"); one that used its CPU seconds is a ``timeout``; a run ended for memory is an
  error saying so;
- a test pytest reported no outcome for is an error saying why (a collection error with
  pytest's message, a process that died during it), or skipped when it was known not to run;
  one after the end of pytest's process (a test's ``os._exit``, the judge's watchdog ending a
  test stuck in C) or of its session is ``not judged``: plain pytest would not run it either;
- a docstring example marked ``advisory`` keeps its outcome, but a failure of it is a
  disagreement between docstring and code (:attr:`RunReport.disagreements`), not a failure.
"""

from __future__ import annotations

import os

from codeteam.execution.outcomes import Program, PytestTarget, RunReport, TestCase, TestOutcome
from codeteam.execution.pytest_run import (
    Heard,
    held_up,
    output_tail,
    run_problem,
    watchdog_ended,
)
from codeteam.execution.sandbox import BACKSTOP_STRETCH, ProcessResult, SandboxPolicy
from codeteam.execution.sandbox_policy import CPU_LIMIT_FIXED, raise_run_limit

BUSY = "the machine was too busy"
"""The start of every "not judged" reason for a test the wall clock cut short."""
_STATUS = {"passed": "passed", "xpassed": "passed", "failed": "failed", "error": "error",
           "skipped": "skipped", "xfailed": "skipped"}  # fmt: skip


def outcomes(tests: list[TestCase], heard: Heard, result: ProcessResult, policy: SandboxPolicy,
             program: Program, target: PytestTarget) -> list[TestOutcome]:
    """One outcome per test of ``tests`` (in order; the session's, none with a
    ``skip_reason``: :func:`~codeteam.execution.suite.run_suite` reports those) from one
    judged session."""
    problem = run_problem(result, heard, policy)
    found = []
    for test in tests:
        event = heard.outcomes.get(test.id) if test.kind == "pytest" else heard.own.get(test.id)
        outcome = (_from_event(test, event, program, target) if event is not None
                   else _missing(test, heard, result, policy, problem))
        outcome.advisory = test.advisory
        found.append(outcome)
    return found


def _from_event(test: TestCase, event: dict, program: Program,
                target: PytestTarget) -> TestOutcome:
    status = _STATUS.get(str(event.get("outcome")), "error")
    message = str(event.get("message") or "")
    if event.get("outcome") == "xfailed":
        message = f"xfail: {message}" if message else "xfail"
    elif event.get("outcome") == "xpassed":
        message = f"XPASS {message}".strip()
    elif event.get("when") == "collect" and status == "error":
        message = f"collection error: {message}"
    exception = event.get("exception_type")
    if exception and message.startswith(f"{exception}: "):
        message = message[len(exception) + 2 :]  # the type is said once
    outcome = TestOutcome(test_id=test.id, status=status, expected=event.get("expected"),  # type: ignore[arg-type]
                          actual=event.get("actual"), exception_type=exception, message=message,
                          seconds=float(event.get("duration") or 0.0),
                          traceback=str(event.get("longrepr") or ""))
    limit = event.get("limit")
    judge = event.get("judge")
    if isinstance(judge, list) and len(judge) == 2:
        outcome.status = "not judged" if judge[1] else "error"
        outcome.message = str(judge[0])
        outcome.expected = outcome.actual = outcome.exception_type = None
    elif limit == "busy":
        outcome.status = "not judged"
        outcome.message = (f"{BUSY}: the test did not end within its wall-clock backstop "
                           "while under its CPU limit")
    elif limit == "timeout":
        outcome.status = "timeout"
        outcome.message = f"{outcome.message} ({CPU_LIMIT_FIXED})".lstrip()
    frames = [f for f in event.get("traceback") or [] if isinstance(f, list) and len(f) == 2]
    in_target = [line for path, line in frames if path == target.relative_path]
    if in_target:
        outcome.program_line = in_target[-1]
        outcome.function_line = program.function_offset(in_target[-1])
    test_file = test.file or test.id.split("::", 1)[0]
    in_test = [line for path, line in frames if path == test_file]
    if test.kind == "pytest" and in_test:
        outcome.test_file = os.path.join(target.root, test_file)
        outcome.test_line = in_test[-1] - 1
    return outcome


def _missing(test: TestCase, heard: Heard, result: ProcessResult, policy: SandboxPolicy,
             problem: str | None) -> TestOutcome:
    """The outcome of a test the session reported nothing for."""
    file = test.id.split("::", 1)[0]
    running = heard.running is not None and (heard.running == test.id
                                             or test.id in heard.running_ids)
    status, message = "error", "pytest did not report this test"
    if result.memory_exceeded:
        message = result.memory_note or "the run used more memory than its budget"
    elif problem:
        message = problem
    elif file in heard.collect_errors:
        message = f"collection error: {heard.collect_errors[file].get('message')}"
    elif result.killed and running and not held_up(result):
        status, message = "timeout", (f"the run used its {policy.timeout_s:g} s of wall-clock "
                                      "time computing (CPU-bound) during this test; "
                                      f"{raise_run_limit(policy.timeout_s)}")
    elif result.killed:
        status = "not judged"
        message = (f"{BUSY}: the run did not finish within its {policy.timeout_s:g} s "
                   "wall-clock backstop (its waits for a CPU not counted, up to "
                   f"{BACKSTOP_STRETCH:g} times that in all)"
                   + (" (during this test)" if running else " (before this test)")
                   + f"; {raise_run_limit(policy.timeout_s)}")
    elif running and watchdog_ended(result):  # stuck in C, where no limit can be raised
        stuck = ("(stuck in C code, where no limit can be raised: the judge's watchdog ended "
                 "the pytest process)")
        if held_up(result):
            status, message = "not judged", (f"{BUSY}: the test did not end within its "
                                             "wall-clock backstop while under its CPU limit "
                                             + stuck)
        else:
            status, message = "timeout", ("the test computed past its wall-clock backstop "
                                          f"{stuck}; {CPU_LIMIT_FIXED}")
    elif running:
        message = f"the pytest process died during this test (exit status {result.exit_code})"
    elif heard.done is None:  # plain pytest's process would not have run it either: no
        status = "not judged"  # outcome of the code's, never an error (a failure to the user)
        message = ("not run: " + ("the judge's watchdog ended the pytest process before this "
                                  "test (the test it ended was stuck in C code)"
                                  if watchdog_ended(result) else
                                  "the pytest process ended before this test")
                   + f" (exit status {result.exit_code})")
    elif heard.done.get("internal"):  # pytest's own error (INTERNALERROR) ended the session
        status = "not judged"
        message = ("not run: pytest stopped with an internal error before this test "
                   f"({heard.done['internal']})")
    elif heard.done.get("stopped"):  # pytest.exit() in a test, a plugin's shouldstop
        status = "not judged"
        message = f"not run: pytest stopped the session before this test ({heard.done['stopped']})"
    elif test.kind == "pytest" and test.id in heard.renamed:
        status = "not judged"
        message = ("pytest collected this test under another id in the judged session (its "
                   "parameters' ids change from one collection to the next, e.g. the time)")
    elif test.kind == "pytest":
        message = "pytest did not collect this test any more (not found in its file)"
    return TestOutcome(test_id=test.id, status=status, message=message)  # type: ignore[arg-type]


def report(found: list[TestOutcome], result: ProcessResult, policy: SandboxPolicy) -> RunReport:
    """A session's :class:`RunReport`."""
    return RunReport(outcomes=found, sandbox=policy.mode, exit_code=result.exit_code,
                     killed=result.killed, output=output_tail(result), seconds=result.seconds)


def merge(tests: list[TestCase], reports: list[RunReport], mode: str) -> RunReport:
    """One report of ``reports`` (each of a part of ``tests``), outcomes in the order of
    ``tests``; a test none of them reports is an error."""
    found = {o.test_id: o for run in reports for o in run.outcomes}
    return RunReport(
        outcomes=[found.get(t.id) or TestOutcome(test_id=t.id, status="error",
                                                 message="no outcome reported") for t in tests],
        sandbox=mode,
        exit_code=next((r.exit_code for r in reports if r.exit_code), reports[0].exit_code
                       if reports else None),
        killed=any(r.killed for r in reports),
        output="\n".join(r.output for r in reports if r.output),
        seconds=max((r.seconds for r in reports), default=0.0),
    )
