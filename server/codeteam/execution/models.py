"""Tests and their outcomes, as data (no execution here).

Lines in this module are 0-based document lines unless a name says otherwise
(``program_line`` is a 1-based line of the program file run in the sandbox).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

TestKind = Literal["doctest", "assert", "pytest"]
TestOrigin = Literal["public", "ai", "hidden"]
TestStatus = Literal["passed", "failed", "error", "timeout", "skipped"]
"""``skipped``: the test could not run in the sandbox for a reason that is not the code's
(a module the test or the module under test imports is not available there, a workspace
module the sandbox cannot see, ``pytest.skip``); it is neither a pass nor a failure."""

Verdict = Literal["passed", "failed", "error", "timeout", "skipped", "not judged"]
"""What an outcome counts as (:attr:`TestOutcome.verdict`): its ``status``, except that a pass
decided in the process that ran the code under test is "not judged": it counts neither as a
pass nor as a failure."""



class TestCase(BaseModel):
    """One test of the function under test.

    - ``doctest``: ``source`` is the example's source (``running_max([1, 2])``) and
      ``expected`` the wanted output as doctest compares it (``[1, 2]``). ``setup`` holds the
      earlier statement examples of the same docstring (``>>> xs = [1, 2]``, in doctest
      format), run before the example so it sees their names.
    - ``assert``: ``source`` is Python statements, typically one ``assert f(x) == y``;
      ``call`` and ``expected`` may repeat its parts for reports.
    - ``pytest``: a test of the project's own suite, run by pytest itself
      (:mod:`codeteam.execution.pytest_run`): ``id`` is pytest's node id
      (``tests/test_x.py::test_y[1-2]``, relative to pytest's rootdir), ``name`` the part
      after the file, ``file`` the test file relative to the project root and ``line`` its
      0-based line there. A test that could not run (collection error, missing fixture or
      package, skip, xfail) has pytest's reason in ``skip_reason``.

    ``module_aliases``, ``arguments`` and ``fixtures`` are no longer used for pytest tests
    (kept for the stdlib harness's spec format).

    ``origin`` says where it came from: the user's docstring or test files (public), the
    tester role (ai), or a benchmark's hidden tests (hidden, never shown to a model).
    ``line`` is the 0-based document line the test sits on (a docstring example or a test
    function), when there is one; ``file`` the document path it came from, if not the
    function's own file.

    ``skip_reason`` is set when it is known before running that the test cannot run in the
    sandbox (it imports a workspace module the sandbox cannot see): the runner then reports it
    as "skipped" with this reason, without running it.
    """

    __test__ = False  # not a pytest class

    id: str
    kind: TestKind
    origin: TestOrigin
    source: str
    expected: str | None = None
    call: str | None = None
    name: str | None = None
    setup: str = ""
    line: int | None = None
    file: str | None = None
    module_aliases: list[str] = Field(default_factory=list)
    skip_reason: str | None = None
    arguments: str | None = None
    fixtures: list[str] = Field(default_factory=list)

    def describe(self) -> str:
        """A one-line description for reports and prompts (``running_max([1, 2]) == [1, 2]``)."""
        if self.kind == "doctest":
            return f">>> {self.source.strip()}  # expected {self.expected!r}"
        if self.kind == "pytest":
            return f"{self.id} (pytest)"
        return " ".join(self.source.strip().split())


class TestOutcome(BaseModel):
    """The result of running one :class:`TestCase`.

    ``expected`` and ``actual`` are reprs (or doctest output text) when the test compared
    values; ``exception_type`` and ``message`` describe an error or a failed assert;
    ``traceback`` is the formatted traceback restricted to the program and test code;
    ``program_line`` the 1-based line of the program file where it failed (the innermost
    frame inside the program), and ``function_line`` that line as a 0-based offset from the
    first line of the function under test (None when it failed outside the function; the
    editor adds the function's document line).
    ``seconds`` is the test's own run time. ``import_failed`` is True when the program's
    module raised while being imported (before the test itself ran).

    ``test_file`` (absolute path) and ``test_line`` (0-based) are where a pytest test failed in
    its own file (the innermost frame there: typically the ``assert``).

    A "skipped" outcome did not run for a reason that is not the code's (see
    :data:`TestStatus`); ``message`` says why (``No module named 'foo' ...``).

    ``trusted`` is False when the verdict came from the process that ran the code under test
    (a test the harness's judge could not evaluate on its own, see
    :mod:`codeteam.execution.harness`; a pytest test run the old way, see
    :mod:`codeteam.execution.pytest_run`): such a verdict catches mistakes, but code that
    tampers with its own process could forge it. The policy, decided here and nowhere else:
    a verdict decided in the code's own process counts against the code but never for it.
    An untrusted failure, error or timeout stays one; an untrusted pass is "not judged"
    (:attr:`verdict`): :attr:`passed` is False for it, and it is not a failure either.
    ``status`` keeps what the process reported; ``untrusted_reason`` says why the verdict
    was decided in the code's own process, when the runner knows (an argument that cannot
    cross, a test the judge misjudges on the user's own code, a function that cannot be
    judged apart).
    """

    __test__ = False

    test_id: str
    status: TestStatus
    expected: str | None = None
    actual: str | None = None
    exception_type: str | None = None
    message: str = ""
    traceback: str = ""
    program_line: int | None = None
    function_line: int | None = None
    stdout: str = ""
    seconds: float = 0.0
    import_failed: bool = False
    trusted: bool = True
    untrusted_reason: str | None = None
    unjudged: bool = False
    test_file: str | None = None
    test_line: int | None = None

    @property
    def verdict(self) -> Verdict:
        """What the outcome counts as: ``status``, or "not judged" for a pass that was not
        ``trusted`` (see the class docstring) and for an ``unjudged`` error: the judge could not
        rebuild a value the test and the code exchanged once the code ran (a docstring example
        or AI test whose answer is an object of a library's class, or of a subclass of a
        builtin type such as a project ``dict`` subclass). Such an error is not the code's
        failure, and not a pass either; ``status`` stays "error" and ``message`` says why."""
        if (self.status == "passed" and not self.trusted) or self.unjudged:
            return "not judged"
        return self.status

    @property
    def passed(self) -> bool:
        """A pass that counts: the test passed and the verdict was judged (``trusted``)."""
        return self.verdict == "passed"

    @property
    def not_judged(self) -> bool:
        """It passed, but only in the code's own process: not counted (:data:`codeteam.execution.describe.NOT_JUDGED`)."""
        return self.verdict == "not judged"

    @property
    def skipped(self) -> bool:
        return self.status == "skipped"


class RunReport(BaseModel):
    """All outcomes of one sandboxed run, in the order of the tests given.

    ``sandbox`` names the isolation used ("bwrap" or "none"); ``exit_code`` is the runner
    process's exit status (negative: killed by that signal); ``killed`` is True when the
    wall-clock timeout ended the process group; ``output`` the captured stdout/stderr tail
    (capped); ``seconds`` the wall-clock time of the whole run.
    """

    outcomes: list[TestOutcome] = Field(default_factory=list)
    sandbox: str = "bwrap"
    exit_code: int | None = None
    killed: bool = False
    output: str = ""
    seconds: float = 0.0

    @property
    def passed(self) -> list[TestOutcome]:
        """The passes that count (judged; see :attr:`TestOutcome.passed`)."""
        return [o for o in self.outcomes if o.passed]

    @property
    def not_judged(self) -> list[TestOutcome]:
        """The tests that passed only in the code's own process: neither passes nor failures
        (see :attr:`TestOutcome.verdict`)."""
        return [o for o in self.outcomes if o.not_judged]

    @property
    def ran(self) -> list[TestOutcome]:
        """The outcomes of the tests that ran (all but the skipped ones)."""
        return [o for o in self.outcomes if o.status != "skipped"]

    @property
    def skipped(self) -> list[TestOutcome]:
        """The tests that could not run in the sandbox (not the code's fault)."""
        return [o for o in self.outcomes if o.status == "skipped"]

    @property
    def failures(self) -> list[TestOutcome]:
        """The tests that ran and did not pass (skipped tests are not failures, nor are "not
        judged" ones; an untrusted failure is one)."""
        return [o for o in self.outcomes
                if o.status not in ("passed", "skipped") and not o.unjudged]

    @property
    def untrusted(self) -> list[TestOutcome]:
        """The outcomes decided in the code's own process (see :attr:`TestOutcome.trusted`)."""
        return [o for o in self.outcomes if not o.trusted]

    @property
    def all_passed(self) -> bool:
        """Some test ran, and every test that ran passed judged (a "not judged" pass does not
        count for the code, so a run with one is not all passed)."""
        return bool(self.ran) and not self.failures and not self.not_judged

    def outcome(self, test_id: str) -> TestOutcome | None:
        return next((o for o in self.outcomes if o.test_id == test_id), None)


class SandboxUnavailable(RuntimeError):
    """bubblewrap is missing or does not work here and the user did not set sandbox = "none"."""
