"""A test run's time limits say how to raise them: the run's wall clock (the sandbox policy's
``timeout_s``) is the setting ``test_timeout_s``; a test's CPU limit is fixed and says so.
(Before, "the run used its 70 s of wall-clock time" left the user guessing which of
``timeout_s`` and ``test_timeout_s`` to raise.)"""

from __future__ import annotations

from codeteam.execution.outcomes import TestCase
from codeteam.execution.pytest_run import Heard
from codeteam.execution.sandbox import ProcessResult, SandboxPolicy
from codeteam.execution.trust import outcomes

TEST = TestCase(id="pytest:tests/test_m.py::test_slow", kind="pytest", origin="public",
                source="")
POLICY = SandboxPolicy(timeout_s=70)


def outcome_of(heard: Heard, result: ProcessResult):
    (found,) = outcomes([TEST], heard, result, POLICY, program=None, target=None)  # type: ignore[arg-type]
    return found


def test_a_run_cut_by_its_wall_clock_names_test_timeout_s():
    running = Heard(collected=True, running=TEST.id)
    spent = outcome_of(running, ProcessResult(killed=True, seconds=70, cpu_seconds=69))
    assert spent.status == "timeout"
    assert spent.message.endswith("; the setting test_timeout_s raises it (set it above 70)")
    busy = outcome_of(running, ProcessResult(killed=True, seconds=70, cpu_seconds=3))
    assert busy.status == "not judged"
    assert busy.message.endswith("; the setting test_timeout_s raises it (set it above 70)")


def test_collection_cut_by_the_wall_clock_names_test_timeout_s():
    cut = outcome_of(Heard(), ProcessResult(exit_code=-9, killed=True, seconds=70))
    assert cut.message == ("pytest did not finish collecting within the 70 s limit; "
                           "the setting test_timeout_s raises it (set it above 70)")
