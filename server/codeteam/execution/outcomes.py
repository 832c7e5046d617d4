"""Tests, programs and their outcomes, as data (no execution and no policy here: which
outcome counts how is :mod:`codeteam.execution.trust`'s decision, recorded in ``status``).

Lines in this module are 0-based document lines unless a name says otherwise
(``program_line`` is a 1-based line of the candidate's file).
"""

from __future__ import annotations

import os
from typing import Literal

from pydantic import BaseModel, Field

from codeteam.project import Project

TestKind = Literal["doctest", "assert", "pytest"]
TestOrigin = Literal["public", "ai", "hidden"]
TestStatus = Literal["passed", "failed", "error", "timeout", "skipped", "not judged"]
"""``skipped``: the test could not run for a reason that is not the code's (pytest's skip, a
missing fixture or package, a collection error before the function, the selection's time
ran out); ``not judged``: it ran, but the judge cannot say whether the code passed it (a value
that could not cross between judge and code, a machine too busy to finish within the time
limits, a test the judge gets wrong on the user's own code); ``message`` says why. Neither is
a pass nor a failure."""


class TestCase(BaseModel):
    """One test of the function under test.

    - ``doctest``: an example of the function's docstring (``id`` ``doctest:<n>``, 1-based
      over the docstring's examples) or an AI test written as one: ``source`` the example's
      code, ``expected`` the wanted output as doctest compares it; ``setup`` the earlier
      examples of the same docstring (for reports).
    - ``assert``: ``source`` is Python statements (``assert f(x) == y``), ``setup`` statements
      run before at module level (``from solution import *``); ``call`` and ``expected`` may
      repeat its parts for reports.
    - ``pytest``: a test of the project's own suite: ``id`` pytest's node id (relative to
      pytest's rootdir), ``name`` the part after the file, ``file`` the test file relative to
      the project root and ``line`` its 0-based line there.

    ``origin``: the user's docstring or test files (public), the tester role (ai), or a
    benchmark's hidden tests (never shown to a model). ``line`` is the 0-based document line
    of a docstring example or test function; ``file`` the document it came from when not the
    function's own file. ``skip_reason``: known before running that the test will not run
    (then "skipped" with it). ``advisory``: a docstring example beside the project's own
    tests, which the project's configuration does not run: its failure is a disagreement
    between docstring and code, reported but not a failure of the verdict.
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
    skip_reason: str | None = None
    advisory: bool = False

    def describe(self) -> str:
        """A one-line description for reports and prompts (``running_max([1, 2]) == [1, 2]``)."""
        if self.kind == "doctest":
            return f">>> {self.source.strip()}  # expected {self.expected!r}"
        if self.kind == "pytest":
            return f"{self.id} (pytest)"
        return " ".join(self.source.strip().split())


class TestOutcome(BaseModel):
    """The result of running one :class:`TestCase`.

    ``expected`` and ``actual`` are reprs (or doctest output text) when the test compared a
    value that came back from the function with another (``actual`` is the function's side);
    ``exception_type`` and ``message`` describe an error, a failed assert, or why the test was
    skipped or not judged; ``traceback`` is pytest's report of the failure, frames of the
    user's and the test's files only; ``program_line`` the 1-based line of the candidate's
    file where it failed (the innermost frame there), ``function_line`` that line as a 0-based
    offset from the function's first line (None outside the function). ``test_file``
    (absolute) and ``test_line`` (0-based): where a pytest test failed in its own file.
    ``seconds``: the test's run time (wall clock). ``advisory``: copied from the test.
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
    test_file: str | None = None
    test_line: int | None = None
    advisory: bool = False

    @property
    def verdict(self) -> TestStatus:
        return self.status

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    @property
    def not_judged(self) -> bool:
        return self.status == "not judged"

    @property
    def skipped(self) -> bool:
        return self.status == "skipped"

    @property
    def failing(self) -> bool:
        """It ran and did not pass (failed, error, timeout), advisory or not."""
        return self.status in ("failed", "error", "timeout")


class RunReport(BaseModel):
    """All outcomes of one run, in the order of the tests given.

    ``sandbox`` names the isolation used ("bwrap" or "none"); ``exit_code`` is pytest's exit
    status (negative: killed by that signal); ``killed`` is True when the wall-clock backstop
    ended the run; ``output`` the captured stdout/stderr tail; ``seconds`` its wall-clock time.
    """

    outcomes: list[TestOutcome] = Field(default_factory=list)
    sandbox: str = "bwrap"
    exit_code: int | None = None
    killed: bool = False
    output: str = ""
    seconds: float = 0.0

    @property
    def passed(self) -> list[TestOutcome]:
        return [o for o in self.outcomes if o.passed]

    @property
    def not_judged(self) -> list[TestOutcome]:
        """Tests that ran but could not be judged: neither passes nor failures."""
        return [o for o in self.outcomes if o.not_judged]

    @property
    def ran(self) -> list[TestOutcome]:
        """The outcomes of the tests that ran (all but the skipped ones)."""
        return [o for o in self.outcomes if not o.skipped]

    @property
    def skipped(self) -> list[TestOutcome]:
        return [o for o in self.outcomes if o.skipped]

    @property
    def failures(self) -> list[TestOutcome]:
        """The tests that ran and did not pass, advisory docstring examples left out."""
        return [o for o in self.outcomes if o.failing and not o.advisory]

    @property
    def disagreements(self) -> list[TestOutcome]:
        """Advisory docstring examples that failed: the docstring disagrees with the code."""
        return [o for o in self.outcomes if o.failing and o.advisory]

    @property
    def deciding(self) -> list[TestOutcome]:
        """The outcomes of the tests that ran and decide the verdict: not the advisory
        docstring examples (beside the project's own tests, which then all were skipped)."""
        return [o for o in self.ran if not o.advisory]

    @property
    def all_passed(self) -> bool:
        """Some test that decides the verdict ran (:attr:`deciding`), none failed and none
        is "not judged" (advisory examples aside: their disagreements are no failure, their
        agreement no pass)."""
        return bool(self.deciding) and not self.failures and not self.not_judged

    def outcome(self, test_id: str) -> TestOutcome | None:
        return next((o for o in self.outcomes if o.test_id == test_id), None)


class PytestTarget(BaseModel):
    """Where the function under test lives, for pytest: ``root`` the project root (pytest runs
    there), ``path`` the function's file (absolute, under ``root``), ``module`` its dotted name,
    ``qualname``/``name`` the function's, ``first_line`` the 0-based line of its first
    decorator or ``def``, ``python`` the project's interpreter and ``extra_ro`` the folders it
    needs (prefix, site-packages), mounted read-only; ``hidden`` paths under ``root`` the tests
    must not see; ``rootdir`` pytest's rootdir as the selection found it, relative to ``root``
    (node ids are relative to it); ``import_root`` the folder the module is imported from,
    relative to ``root``, put first on ``sys.path``; ``lone``: a module with no project around
    it, tested as a project of one file in a temporary folder; ``ignore`` folders relative to
    ``root`` that pytest does not collect (``--ignore``: a lone module's folder's subfolders that
    are projects of their own, :func:`codeteam.project.nested_projects`); ``pytest_path`` folders put
    last on ``sys.path`` for an interpreter without pytest of its own (codeteam's, the same
    Python version)."""

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
    lone: bool = False
    ignore: list[str] = Field(default_factory=list)
    pytest_path: list[str] = Field(default_factory=list)

    @property
    def relative_path(self) -> str:
        return os.path.relpath(self.path, self.root)


class Program(BaseModel):
    """A module's text with the function under test replaced by candidate code, and where it
    is judged.

    ``function_start`` is the 0-based line where the function starts in ``text`` and
    ``function_lines`` how many lines it has (:meth:`function_offset`). ``original`` is the
    module as the user wrote it, ``qualname`` the function's qualified name and
    ``original_start`` its 0-based first line there: the judge imports the judge view of
    ``original`` (:mod:`codeteam.execution.judge_view`), never ``text``. ``module_name`` is the
    module's importable name; ``project`` where it lives (None or lone: a module alone);
    ``pytest_target`` where pytest runs the project's tests (set once they were selected)."""

    text: str
    function_start: int
    function_lines: int
    original: str
    qualname: str
    original_start: int | None = None
    module_name: str = "solution"
    project: Project | None = None
    pytest_target: PytestTarget | None = None

    def function_offset(self, program_line: int) -> int | None:
        """0-based line within the function for 1-based ``program_line``; None outside it."""
        offset = program_line - 1 - self.function_start
        return offset if 0 <= offset < self.function_lines else None


class SandboxUnavailable(RuntimeError):
    """bubblewrap is missing or does not work here and the user did not set sandbox = "none"."""
