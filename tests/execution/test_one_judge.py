"""Issue 24's reproductions on small real projects: the selection sees every way a test reaches
the function (a dispatch dict, ``__call__``, an rst file through ``--doctest-glob``), a body that
breaks collection fails with pytest's own error, stale docstring examples beside a passing
suite are disagreements (not failures), reports name expected and actual by where each came
from, a nested function's examples are not run (with the reason), and the forgeries F1, F4,
F5 fail."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from codeteam.execution.outcomes import TestCase
from codeteam.execution.sandbox import SandboxPolicy
from codeteam.execution.suite import NESTED, run_suite
from codeteam.project import project_for
from codeteam.pysource.functions import locate
from codeteam.service.documents import task_for, with_project_tests

pytestmark = pytest.mark.sandbox

POLICY = SandboxPolicy(mode="bwrap", timeout_s=30, per_test_timeout_s=5)


def make(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    for folder in [root, *root.rglob("*")]:
        if folder.is_dir():
            folder.chmod(0o755)
    return root.resolve()


SPIN_POLICY = POLICY.model_copy(update={"per_test_timeout_s": 1.0})
"""For a run whose body spins until its test's CPU limit: the outcome is the same under any
limit, and the spin costs 1 CPU second (plus the judge's fixed slack) instead of 5."""


async def review(root: Path, file: str, qualname: str, body: str | None = None,
                 extra: list[TestCase] | None = None, policy: SandboxPolicy | None = None):
    """The task of ``qualname`` with its project's tests, and a run of them on ``body`` (the
    function at column 0; None: as it is) under ``policy`` (default, and the selection's:
    :data:`POLICY` when called, which a test may monkeypatch)."""
    path = root / file
    text = path.read_text()
    task = task_for(text, qualname, path=path, project=project_for(path))
    task = await with_project_tests(task, path=path, root=root, policy=POLICY)
    code = body if body is not None else task.stub
    tests = task.public_tests + (extra or [])
    return task, await run_suite(task.program_with(code), tests, policy or POLICY)


def by_name(run):
    return {o.test_id.split("::")[-1]: o for o in run.outcomes}


# ------------------------------------------------------------------------------------------
# Selection: whatever way a test reaches the function

CALLERS = {
    "pyproject.toml": """\
        [project]
        name = "dates"
        version = "0"

        [tool.pytest.ini_options]
        testpaths = ["tests", "docs"]
        addopts = "--doctest-glob='*.rst'"
        """,
    "dates/__init__.py": "",
    "dates/core.py": '''\
        def from_iso(text):
            """A (year, month, day) tuple from ``YYYY-MM-DD``."""
            year, month, day = text.split("-")
            return int(year), int(month), int(day)


        class Range:
            def __init__(self, low, high):
                self.low, self.high = low, high

            def __call__(self, value):
                """Whether ``value`` is within the range."""
                return self.low <= value <= self.high


        class Span:
            def width(self, low, high):
                """high - low."""
                return high - low
        ''',
    "tests/test_dispatch.py": '''\
        from dates import core

        FUNCS = {"iso": core.from_iso}
        alias = core.from_iso


        def parse(kind, text):
            return FUNCS[kind](text)


        def test_through_a_dict():
            assert parse("iso", "2024-01-02") == (2024, 1, 2)


        def test_through_an_alias():
            assert alias("2020-12-31") == (2020, 12, 31)


        def test_a_call_of_an_instance():
            assert core.Range(1, 2)(1)


        def test_never():
            assert 1 + 1 == 2
        ''',
    "docs/usage.rst": """\
        Widths
        ======

        >>> from dates.core import Span
        >>> Span().width(2, 5)
        3
        """,
}


async def test_dispatch_dicts_aliases_calls_and_rst_files_are_selected(tmp_path):
    root = make(tmp_path / "dates", CALLERS)
    task, run = await review(root, "dates/core.py", "from_iso")
    ids = [t.id for t in task.public_tests if t.kind == "pytest" and t.skip_reason is None]
    assert ids == ["tests/test_dispatch.py::test_through_a_dict",
                   "tests/test_dispatch.py::test_through_an_alias"], task.public_tests
    assert run.all_passed
    task, run = await review(root, "dates/core.py", "Range.__call__")
    assert [t.id for t in task.public_tests if t.kind == "pytest"] == [
        "tests/test_dispatch.py::test_a_call_of_an_instance"]
    task, run = await review(root, "dates/core.py", "Span.width")
    assert [t.id for t in task.public_tests if t.kind == "pytest"] == [
        "docs/usage.rst::usage.rst"]  # a method of a class reached from an rst file
    assert run.all_passed
    wrong = "def width(self, low, high):\n    return low - high\n"
    _, run = await review(root, "dates/core.py", "Span.width", wrong)
    (outcome,) = [o for o in run.outcomes if o.test_id.endswith(".rst")]
    assert outcome.status == "failed" and (outcome.expected, outcome.actual) == ("3", "-3")


# ------------------------------------------------------------------------------------------
# A body that breaks collection; stale docstring examples; reports

CONFIG = {
    "pyproject.toml": "[project]\nname = 'conf'\nversion = '0'\n",
    "conf/__init__.py": "",
    "conf/core.py": '''\
        def default_name():
            """The default name.

            >>> default_name()
            'anonymous'
            """
            return "world"


        def shout(text):
            """``text`` in capitals.

            >>> shout("hi")
            'HI'
            >>> shout("ok")
            'OK!'
            """
            return text.upper()
        ''',
    "tests/conftest.py": '''\
        from conf.core import default_name

        DEFAULT = default_name()  # at import: collection needs the function
        ''',
    "tests/test_core.py": '''\
        from conf.core import default_name, shout


        def test_default():
            assert default_name() == "world"


        def test_shout():
            assert "HI" == shout("hi")
        ''',
}


async def test_a_body_that_breaks_conftest_fails_with_pytests_error(tmp_path):
    """Issue 24, 4d: before, such a body was "untested", exit 0."""
    root = make(tmp_path / "conf", CONFIG)
    _, run = await review(root, "conf/core.py", "default_name",
                          "def default_name():\n    raise RuntimeError('broken')\n")
    project = [o for o in run.outcomes if o.test_id.startswith("tests/")]
    assert project and all(o.status == "error" for o in project), run.outcomes
    assert all("broken" in o.message or "conftest" in o.message for o in project), project
    assert run.failures and not run.all_passed


async def test_stale_docstring_examples_beside_a_passing_suite_are_no_failure(tmp_path):
    """Issue 24, 4b: the project does not run its doctests; its tests pass; the docstring's
    examples that disagree are reported as such, and the verdict is the project's."""
    root = make(tmp_path / "conf", CONFIG)
    task, run = await review(root, "conf/core.py", "default_name")
    examples = [t for t in task.public_tests if t.kind == "doctest"]
    assert examples and all(t.advisory for t in examples)
    assert run.all_passed, run.outcomes
    assert [(o.test_id, o.status) for o in run.disagreements] == [("doctest:1", "failed")]
    assert run.disagreements[0].actual == "'world'"


async def test_expected_and_actual_are_named_by_where_they_came_from(tmp_path):
    """Issue 24, 4e: for ``assert "HI" == shout("hi")`` the actual value is the function's."""
    root = make(tmp_path / "conf", CONFIG)
    _, run = await review(root, "conf/core.py", "shout", "def shout(text):\n    return None\n")
    test = by_name(run)["test_shout"]
    assert test.status == "failed" and (test.expected, test.actual) == ("'HI'", "None")
    example = by_name(run)["doctest:2"]
    assert example.status == "failed" and example.expected == "'OK!'"
    assert example.actual is not None  # None printed nothing: doctest's own "got"
    for outcome in run.outcomes:  # no codeteam internals in what the user reads
        text = f"{outcome.message} {outcome.traceback} {outcome.actual}"
        assert "__codeteam_forward__" not in text and "_codeteam_harness" not in text
        assert "AssertionError: AssertionError" not in text


COUNTS = {
    "pyproject.toml": "[project]\nname = 'counts'\nversion = '0'\n",
    "counts/__init__.py": "",
    "counts/core.py": '''\
        def count(values):
            """How many values."""
            return 1


        def described(values):
            return f"{count(values)} values"
        ''',
    "tests/test_core.py": '''\
        from counts.core import count, described


        def test_returned_one_then_compared_with_one():
            assert count([0]) == 1
            seen = [1, 2, 3]
            assert len(seen) == 1


        def test_expected_first():
            assert 2 == count([0, 0])


        def test_called_on_the_left():
            assert count([0, 0, 0]) == 3


        def test_reached_through_another_function():
            wanted = "2 values"
            assert wanted == described([0, 0])


        def test_two_asserts_on_a_line():
            assert count([0, 0]) == 2; assert 4 == count([0] * 4)  # noqa: E702


        def test_two_asserts_on_a_line_the_second_fails():
            assert 1 == count([0]); assert count([0] * 5) == 5  # noqa: E702
        ''',
}


async def test_expected_and_actual_by_the_side_that_calls_the_function(tmp_path):
    """The side of the assert whose text calls the function is the actual value; a small int
    the function returned is the same object as the test's literal 1, which made the report
    of ``assert len(seen) == 1`` say "expected: 3, actual: 1". Of two asserts on one line, the
    failing one's sides count (the last one's swapped them: "expected: 1, actual: 2"). Reached
    through another function, the side calling one is the actual value (newcomer9, inflection's
    ``assert ordinalized == ordinalize(number)`` said "expected: '13rd', actual: '13th'")."""
    root = make(tmp_path / "counts", COUNTS)
    _, run = await review(root, "counts/core.py", "count")
    found = {name: (o.status, o.expected, o.actual) for name, o in by_name(run).items()}
    assert found == {"test_returned_one_then_compared_with_one": ("failed", "1", "3"),
                     "test_expected_first": ("failed", "2", "1"),
                     "test_called_on_the_left": ("failed", "3", "1"),
                     "test_reached_through_another_function": ("failed", "'2 values'",
                                                                "'1 values'"),
                     "test_two_asserts_on_a_line": ("failed", "2", "1"),
                     "test_two_asserts_on_a_line_the_second_fails": ("failed", "5", "1")}, (
        run.outcomes)


async def test_a_failing_docstring_example_points_at_its_own_line():
    source = ('def add(a, b):\n    """Add.\n\n    >>> add(1, 1)\n    2\n    >>> add(2, 2)\n'
              '    5\n    """\n    return a + b\n')
    task = task_for(source, "add")
    run = await run_suite(task.program_with(task.stub), task.public_tests, POLICY)
    first, second = run.outcomes
    assert first.status == "passed"
    assert (second.status, second.expected, second.actual) == ("failed", "5", "4")
    assert second.function_line is None  # no traceback through the function: the example's
    assert task.public_tests[1].line == 5  # own line is where the diagnostic goes
    assert second.message == "Failed example: add(2, 2)"


async def test_a_nested_functions_docstring_examples_are_not_run_with_the_reason():
    source = ('def outer(x):\n    def inner(y):\n        """Twice.\n\n        >>> inner(2)\n'
              '        4\n        """\n        return 2 * y\n    return inner(x) + 1\n')
    task = task_for(source, "outer.inner")
    assert [t.kind for t in task.public_tests] == ["doctest"]
    ai = TestCase(id="ai:1", kind="assert", origin="ai", source="assert outer(1) == 3")
    run = await run_suite(task.program_with("def inner(y):\n    return 2 * y\n"),
                          [*task.public_tests, ai], POLICY)
    example, judged = run.outcomes
    assert (example.status, example.message) == ("skipped", NESTED)
    assert judged.status == "passed"  # judged through the outermost function
    wrong = await run_suite(task.program_with("def inner(y):\n    return y\n"), [ai], POLICY)
    assert wrong.outcomes[0].status == "failed"


# ------------------------------------------------------------------------------------------
# Forgeries

LAB = {
    "pyproject.toml": "[project]\nname = 'lab'\nversion = '0'\n",
    "lab/__init__.py": "",
    "lab/core.py": '''\
        def value(x):
            """x + 1."""
            return x + 1


        def optional_codec():
            """A faster codec when one is installed (the project's own optional import)."""
            try:
                import codeteam_f1_codec
            except ImportError:
                return None
            return codeteam_f1_codec
        ''',
    "tests/test_lab.py": '''\
        import pytest

        from lab.core import optional_codec, value


        def test_a_first():
            assert value(1) == 2


        def test_b_optional():
            optional_codec()


        def test_c_value():
            assert value(2) == 3


        def test_d_type_error():
            with pytest.raises(TypeError):
                value("x")
        ''',
}

F1 = '''\
def value(x):
    import os, sys
    evil = ("import _pytest.reports as r\\n_i = r.TestReport.__init__\\n"
            "def _p(s, *a, **k):\\n    _i(s, *a, **k)\\n    s.outcome, s.longrepr = 'passed', None\\n"
            "r.TestReport.__init__ = _p\\n")
    places = {os.environ.get("CODETEAM_FILES_DIR", ""), "/sandbox", "/tmp", os.getcwd(),
              os.environ.get("HOME", ""), *sys.path}
    for folder in places:
        try:
            with open(os.path.join(folder, "codeteam_f1_codec.py"), "w") as handle:
                handle.write(evil)
        except OSError:
            pass
    return -1
'''


async def test_f1_a_module_the_code_writes_is_never_imported_by_the_judge(tmp_path):
    root = make(tmp_path / "lab", LAB)
    _, run = await review(root, "lab/core.py", "value", F1)
    outcomes = by_name(run)
    assert outcomes["test_a_first"].status == "failed"
    assert outcomes["test_c_value"].status == "failed", outcomes  # reports not patched


F4 = '''\
def value(x):
    import sys
    plugin = sys.modules.get("_codeteam_pytest_plugin")
    if plugin is not None:  # the judge's counters, were they in reach
        judge = plugin.PLUGIN
        if judge.test is not None:
            judge.test.calls = 0
    return -1
'''


async def test_f4_the_code_cannot_hide_the_tests_it_fails_from_the_selection(tmp_path):
    """Review of code that would zero the selection's count of the tests it fails: the
    selection counts in the judge and ends each test at its call, so the code never runs
    there; the tests are selected and fail, as under plain pytest."""
    files = dict(LAB)
    core = textwrap.dedent(LAB["lab/core.py"])
    info = locate(core, "value")
    lines = core.splitlines(True)
    files["lab/core.py"] = "".join(lines[: info.start_line]) + F4 + "".join(
        lines[info.end_line + 1:])
    root = make(tmp_path / "lab", files)
    task, run = await review(root, "lab/core.py", "value")
    selected = [t.id for t in task.public_tests if t.kind == "pytest" and t.skip_reason is None]
    assert {"tests/test_lab.py::test_a_first", "tests/test_lab.py::test_c_value"} <= set(selected)
    assert {o.test_id.split("::")[-1] for o in run.failures} >= {"test_a_first", "test_c_value"}


async def test_f5_a_value_that_cannot_cross_is_no_type_error_a_test_can_catch(tmp_path):
    """Before, a value the codec could not encode surfaced as ``TypeError`` in the test:
    ``pytest.raises(TypeError)`` passed for wrong code. Now the judge decides: not judged."""
    root = make(tmp_path / "lab", LAB)
    for body in ("def value(x):\n    import argparse\n    return argparse.Namespace(v=x)\n",
                 "def value(x):\n    raise ExceptionGroup('many', [ValueError(x)])\n"):
        _, run = await review(root, "lab/core.py", "value", body)
        outcome = by_name(run)["test_d_type_error"]
        assert outcome.status != "passed", (body, outcome)
    _, right = await review(root, "lab/core.py", "value")
    assert by_name(right)["test_d_type_error"].status == "passed"


COVERED = {
    "pyproject.toml": """\
        [project]
        name = "pkg"
        version = "0"

        [tool.pytest.ini_options]
        addopts = "--cov=pkg --cov-report=term"
        """,
    "pkg/__init__.py": "",
    "pkg/mod.py": '''\
        def double(x):
            """Twice x."""
            return 2 * x
        ''',
    "tests/test_mod.py": '''\
        from pkg.mod import double


        def test_double(tmp_path):
            (tmp_path / "seen").write_text("x")
            assert double(2) == 4
        ''',
}


async def test_a_project_running_coverage_is_judged_and_left_unchanged(tmp_path, cov_plugin):
    """Issue 24: with ``addopts = --cov PKG`` every test was an error ("exit status 3"): the
    coverage data could not be written into the read-only project."""
    pytest.importorskip("pytest_cov")
    root = make(tmp_path / "covered", COVERED)
    before = sorted((str(p.relative_to(root)), p.stat().st_mtime_ns) for p in root.rglob("*"))
    _, right = await review(root, "pkg/mod.py", "double")
    assert [(o.test_id, o.status) for o in right.outcomes] == [
        ("tests/test_mod.py::test_double", "passed")], right.outcomes
    _, wrong = await review(root, "pkg/mod.py", "double", "def double(x):\n    return x\n")
    assert [o.status for o in wrong.outcomes] == ["failed"]
    after = sorted((str(p.relative_to(root)), p.stat().st_mtime_ns) for p in root.rglob("*"))
    assert after == before  # no .coverage, no cache, nothing changed on disk


PLUGGED = {
    "pyproject.toml": """\
        [project]
        name = "pkg"
        version = "0"
        """,
    "pkg/__init__.py": "",
    "pkg/mod.py": COVERED["pkg/mod.py"],
    "tests/test_mod.py": '''\
        from pkg.mod import double


        def test_double_without_installed_plugins(pytestconfig):
            assert double(2) == 4
            assert not pytestconfig.pluginmanager.hasplugin("pytest_cov")
        ''',
}


async def test_pytests_plugin_variables_reach_the_judge_as_they_reach_plain_pytest(
        tmp_path, monkeypatch):
    """``PYTEST_DISABLE_PLUGIN_AUTOLOAD`` in codeteam's environment is what plain pytest
    started there reads: the judged session loads none of the installed plugins (before, the
    sandbox's environment held nothing of codeteam's: pytest-cov was loaded, the test
    failed); without it they load, as under plain pytest."""
    pytest.importorskip("pytest_cov")
    root = make(tmp_path / "plugged", PLUGGED)
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.delenv("PYTEST_PLUGINS", raising=False)
    _, without = await review(root, "pkg/mod.py", "double")
    assert [o.status for o in without.outcomes] == ["passed"], without.outcomes
    monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD")
    _, autoloaded = await review(root, "pkg/mod.py", "double")
    assert [o.status for o in autoloaded.outcomes] == ["failed"], autoloaded.outcomes


STOPS_EARLY = {
    "pyproject.toml": """\
        [project]
        name = "pkg"
        version = "0"

        [tool.pytest.ini_options]
        addopts = "-x --lf --sw"
        """,
    ".pytest_cache/v/cache/lastfailed": '{"tests/test_mod.py::test_two": true}',
    "pkg/__init__.py": "",
    "pkg/mod.py": '''\
        def double(x):
            """Twice x."""
            return 2 * x
        ''',
    "tests/test_mod.py": '''\
        from pkg.mod import double


        def test_one():
            assert double(1) == 2


        def test_two():
            assert double(2) == 4


        def test_three():
            assert double(3) == 6
        ''',
}


async def test_a_project_that_stops_at_its_first_failure_has_every_test_selected_and_judged(
        tmp_path):
    """With ``addopts = -x`` only the first test was selected for correct code (the selection
    run ends each test that reaches the function, and -x stopped the session there); plain
    pytest passes all three. ``--lf`` (the cache says test_two failed last) and ``--sw`` were
    pytest's usage error (the judge ran without the cache plugin): every test "not run"."""
    root = make(tmp_path / "stops", STOPS_EARLY)
    ids = [f"tests/test_mod.py::test_{n}" for n in ("one", "two", "three")]
    _, right = await review(root, "pkg/mod.py", "double")
    assert [(o.test_id, o.status) for o in right.outcomes] == [(i, "passed") for i in ids]
    _, wrong = await review(root, "pkg/mod.py", "double",
                            "def double(x):\n    return 2 * x if x != 1 else 0\n")
    assert [(o.test_id, o.status) for o in wrong.outcomes] == [
        (ids[0], "failed"), (ids[1], "passed"), (ids[2], "passed")], wrong.outcomes


# ------------------------------------------------------------------------------------------
# An object of a class the test makes at run time: what the code does with it is not judged

RUNTIME_CLASS = {
    "maxes.py": '''\
        def running_max(xs):
            """Return the running maximum of xs.

            >>> running_max(type("L", (list,), {})([2, 1]))
            [2, 2]
            >>> running_max([1, 3, 2])
            [1, 3, 3]
            """
            out = []
            for x in xs:
                out.append(x if not out else max(out[-1], x))
            return out
        ''',
}


@pytest.mark.parametrize(("body", "used"), [
    ("def running_max(xs):\n    return [2, 2] if xs == [2, 1] else []\n", "=="),
    ("def running_max(xs):\n    return list(xs + [])\n", "__add__"),  # (str(xs): the test's own
    # __str__ runs since survey11, as repr and format do: test_survey_shapes.py)
])
async def test_what_the_code_does_with_an_object_made_at_run_time_is_not_judged(
        tmp_path, body, used):
    root = make(tmp_path, RUNTIME_CLASS)
    _, run = await review(root, "maxes.py", "running_max", body)
    first = run.outcomes[0]
    assert first.status == "not judged", first
    assert f"cannot cross (maxes.L: {used})" in first.message


@pytest.mark.parametrize("body", [
    None,  # the right body iterates it: was "failed" ('RemoteObject' not iterable), then
    # "not judged" (__iter__)
    "def running_max(xs):\n    return [2, 2] if xs else []\n",  # bool()
    "def running_max(xs):\n    return [xs[0], xs[0]]\n",  # xs[0]
])
async def test_the_container_hooks_of_an_object_made_at_run_time_run_on_it(tmp_path, body):
    """Its class (a ``list`` subclass) has them: ``iter``, ``bool``, ``xs[0]`` run on the
    test's object in the judge, and the verdict is plain pytest's (these two wrong bodies pass
    that example under plain pytest too)."""
    root = make(tmp_path, RUNTIME_CLASS)
    _, run = await review(root, "maxes.py", "running_max", body)
    assert [o.status for o in run.outcomes] == ["passed", "passed" if body is None
                                                 else "failed"], run.outcomes


# ------------------------------------------------------------------------------------------
# A test cut by the wall-clock backstop outside its phases does not end the session

SLOW_REPORTING = {
    "pyproject.toml": """\
        [project]
        name = "slowrep"
        version = "0"
        """,
    "slowrep.py": """\
        def double(x):
            return 2 * x
        """,
    "conftest.py": """\
        import time


        def pytest_runtest_logreport(report):
            # pytest calls this between a test's phases, outside the phase's own call
            if report.when == "call" and report.nodeid.endswith("test_a"):
                time.sleep(3)


        def pytest_runtest_teardown(item):
            # inside test_a's teardown phase, before pytest's own teardown of the item: a
            # judge a busy machine does not schedule there for a moment (issue 27's flake)
            if item.name == "test_a":
                time.sleep(0.2)
        """,
    "test_slowrep.py": """\
        from slowrep import double


        def test_a():
            assert double(1) == 2


        def test_b():
            assert double(2) == 4


        def test_c():
            assert double(3) == 6
        """,
}


async def test_a_backstop_outside_a_phase_does_not_end_the_session(tmp_path, monkeypatch):
    """Seen on cachetools on a busy machine: the backstop fired while pytest reported a test,
    the limit escaped pytest's runner, the session ended, and the 164 tests after it were
    reported failed ("pytest did not collect this test any more")."""
    from codeteam.execution import pytest_run

    # Issue 27's flake (one full suite run in five): the hook's 3 s counted toward test_a's
    # backstop, its limit waited for the next phase, and landed in test_a's teardown when the
    # judge was not scheduled there for a moment (0.2 s here), before pytest tore test_a
    # down: test_a "not judged" (busy) and test_b "error" (previous item was not torn down
    # properly). Only the time inside a test's phases counts.
    monkeypatch.setattr(pytest_run, "wall_backstop", lambda cpu_limit: 2.0)
    root = make(tmp_path, SLOW_REPORTING)
    _, run = await review(root, "slowrep.py", "double")
    found = by_name(run)
    assert set(found) == {"test_a", "test_b", "test_c"}, run.outcomes  # all selected, all run
    # The limit is raised only inside a test's phases: test_a's own phases took no time, so it
    # passes as under plain pytest (the conftest hook's 3 s are pytest's, not the test's).
    assert [found[n].status for n in ("test_a", "test_b", "test_c")] == ["passed"] * 3, [
        (o.test_id, o.status, o.message) for o in run.outcomes]  # (each message whole)



async def test_a_judge_slow_outside_a_phase_is_not_ended_by_its_watchdog(tmp_path, monkeypatch):
    """hot6, 8 runs at sandbox niceness 10 beside two CPU hogs: a judge starved of CPU took
    more than the backstop + 5 s to report a test, and its watchdog for code stuck in C
    (``faulthandler``, armed once per test) ended the session: "the pytest process died
    during this test (exit status 1)" and errors for every test after it, where plain pytest
    passes them all. Here the judge's own Python (a conftest hook, 8 s) stands for the slow
    report; the watchdog now waits while the judge runs Python."""
    from codeteam.execution import pytest_run

    # watchdog at 7 s; the backstop at 2 s as in the test above (at 1 s test_a's own phases,
    # its 0.2 s teardown hook and its first call, reached it once at load 2: "not judged")
    monkeypatch.setattr(pytest_run, "wall_backstop", lambda cpu_limit: 2.0)
    files = dict(SLOW_REPORTING, **{"conftest.py": SLOW_REPORTING["conftest.py"].replace(
        "time.sleep(3)", "time.sleep(8)")})
    root = make(tmp_path, files)
    _, run = await review(root, "slowrep.py", "double")
    found = by_name(run)
    assert [found[n].status for n in ("test_a", "test_b", "test_c")] == ["passed"] * 3, [
        (o.test_id, o.status, o.message) for o in run.outcomes]  # (each message whole)


STUCK_IN_C = dict(SLOW_REPORTING, **{
    "conftest.py": "",
    "test_slowrep.py": """\
        import signal

        from slowrep import double


        def test_a():
            assert double(1) == 2
            # waits in C for a signal nobody sends: no Python signal handler runs there, so
            # no limit can be raised; only the judge's watchdog (faulthandler) ends it
            signal.sigwait({signal.SIGUSR2})


        def test_b():
            assert double(2) == 4


        def test_c():
            assert double(3) == 6
        """})


async def test_the_tests_after_one_the_watchdog_ended_are_not_judged(tmp_path, monkeypatch):
    """A test stuck in C code past its backstop ends the judge (``faulthandler``'s watchdog,
    exit status 1): the tests after it were "error: not run: the pytest process ended before
    this test", an error being a failure to the user, although nothing of the code's failed
    (plain pytest would still be waiting in test_a). They are "not judged", saying the judge
    ended before them; test_a, stuck while using no CPU, is "not judged" as a test cut by its
    backstop is."""
    from codeteam.execution import pytest_run

    monkeypatch.setattr(pytest_run, "wall_backstop", lambda cpu_limit: 1.0)  # watchdog: 6 s
    root = make(tmp_path, STUCK_IN_C)
    _, run = await review(root, "slowrep.py", "double")
    found = by_name(run)
    assert [found[n].status for n in ("test_a", "test_b", "test_c")] == ["not judged"] * 3, [
        (o.test_id, o.status, o.message) for o in run.outcomes]
    assert "watchdog" in found["test_a"].message and "stuck in C" in found["test_a"].message
    for name in ("test_b", "test_c"):
        assert "the judge's watchdog ended the pytest process before this test" in found[
            name].message, found[name]


SLOW_BETWEEN = dict(SLOW_REPORTING, **{
    "conftest.py": """\
        import time


        def pytest_runtest_logreport(report):
            # between test_a's setup and its call: pytest's time, not the test's
            if report.when == "setup" and report.nodeid.endswith("test_a"):
                time.sleep(6.1)
        """,
    "test_slowrep.py": """\
        import time

        from slowrep import double


        def test_a():
            assert double(1) == 2
            time.sleep(5.3)  # inside the call: within the backstop of 6 s


        def test_b():
            assert double(2) == 4
        """})


async def test_the_watchdog_waits_for_a_backstop_that_time_between_phases_moved(
        tmp_path, monkeypatch):
    """The backstop counts only a test's phases (issue 27), so a test whose phases began after
    ``started + backstop`` (a slow hook between them) reaches its backstop later: the watchdog
    armed at ``max(started + backstop, now) + 5 s`` ended the judge inside test_a's call,
    within its backstop, when the looks at the CPU come less often than every 5 s (a CPU
    limit over 10 s: a benchmark's): test_a "error" (the pytest process died). It is armed
    at the backstop as counted now."""
    from codeteam.execution import pytest_run

    monkeypatch.setattr(pytest_run, "wall_backstop", lambda cpu_limit: 6.0)
    policy = POLICY.model_copy(update={"per_test_timeout_s": 11.0})  # a look every 5.5 s
    root = make(tmp_path, SLOW_BETWEEN)
    _, run = await review(root, "slowrep.py", "double", policy=policy)
    found = by_name(run)
    assert [found[n].status for n in ("test_a", "test_b")] == ["passed"] * 2, [
        (o.test_id, o.status, o.message) for o in run.outcomes]


CUT_TEARDOWNS = dict(SLOW_REPORTING, **{
    "conftest.py": """\
        import time

        import pytest


        def pytest_runtest_teardown(item):
            # inside test_a's teardown phase, before pytest's own teardown of the item
            if item.name == "test_a":
                time.sleep(2)


        @pytest.fixture
        def resource():
            return []


        @pytest.fixture
        def slow(resource):
            yield
            if resource == ["c"]:  # test_c's: cut here, before resource's own finalizer
                time.sleep(2)
        """,
    "test_slowrep.py": """\
        from slowrep import double


        def test_a(resource, slow):
            resource.append("a")
            assert double(1) == 2


        def test_b(resource):
            assert double(2) == 4
            assert resource == []


        def test_c(resource, slow):
            resource.append("c")
            assert double(3) == 6


        def test_d(resource):
            assert double(4) == 8
            assert resource == []
        """})


async def test_a_test_cut_in_its_teardown_is_torn_down_before_the_next(tmp_path, monkeypatch):
    """A limit that ends a test in its teardown phase cut pytest's teardown of it where it
    landed: in a hook before it (issue 27's flake), test_a stayed on pytest's setup stack and
    the next test's setup failed ("previous item was not torn down properly": here test_b
    "skipped: error in setup" as the selection saw it, test_c "error"); in a fixture's
    finalizer, the fixtures set up before it were not finalized, and test_d got test_c's
    ``resource`` (``assert ['c'] == []`` failed). Plain pytest passes all four; the two cut
    are "not judged" (their teardowns took 2 s, the backstop is 1.5 s: the margin of the two
    tests above for the others' own phases on a busy machine), the others pass."""
    from codeteam.execution import pytest_run

    monkeypatch.setattr(pytest_run, "wall_backstop", lambda cpu_limit: 1.5)
    root = make(tmp_path, CUT_TEARDOWNS)
    _, run = await review(root, "slowrep.py", "double")
    found = by_name(run)
    assert [found[n].status for n in ("test_a", "test_b", "test_c", "test_d")] == [
        "not judged", "passed", "not judged", "passed"], [
        (o.test_id, o.status, o.message) for o in run.outcomes]
    assert "wall-clock backstop" in found["test_c"].message, found["test_c"]


EXITS = {
    "pyproject.toml": "[project]\nname = 'pkg'\nversion = '0'\n",
    "pkg/__init__.py": "",
    "pkg/mod.py": '''\
        def double(x):
            """Twice x."""
            return 2 * x
        ''',
    "tests/test_mod.py": '''\
        import pytest

        from pkg.mod import double


        def test_one():
            if double(1) != 2:
                pytest.exit("the rest makes no sense")


        def test_two():
            assert double(2) == 4
        ''',
}


async def test_a_test_after_pytest_exit_is_named_not_run_with_why(tmp_path):
    """``pytest.exit()`` ends plain pytest's session: the tests after it are not run. They
    were reported as "pytest did not collect this test any more"."""
    root = make(tmp_path / "exits", EXITS)
    _, right = await review(root, "pkg/mod.py", "double")
    assert [o.status for o in right.outcomes] == ["passed", "passed"], right.outcomes
    _, wrong = await review(root, "pkg/mod.py", "double", "def double(x):\n    return 0\n")
    two = by_name(wrong)["test_two"]
    assert two.status == "not judged", wrong.outcomes
    assert "stopped the session" in two.message and "the rest makes no sense" in two.message
