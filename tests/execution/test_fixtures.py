"""Workspace tests that take pytest fixtures: found by discovery (built-in fixtures and the test
file's own) and run under pytest itself in the sandbox."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from codeteam.execution.discovery import pytest_cases
from codeteam.execution.runner import run_tests

MODULE = textwrap.dedent(
    """\
    import os


    def save(path, x):
        path.write_text(str(x * 2 if x != 3 else 7))
        print("saved", x)
        return os.environ.get("CALC_MODE", "plain")
    """
)

TESTS = textwrap.dedent(
    """\
    import pytest
    from calc import save

    START = 5


    @pytest.fixture
    def base():
        return START


    @pytest.fixture(name="folder")
    def make_folder(tmp_path, base):
        made = tmp_path / str(base)
        made.mkdir()
        yield made
        assert made.exists()  # teardown runs after the test


    @pytest.fixture
    def needs_conftest(db):
        return db


    def test_tmp_path(tmp_path):
        save(tmp_path / "a", 2)
        assert (tmp_path / "a").read_text() == "4"


    def test_own_fixtures(folder, base, capsys):
        save(folder / "b", base)
        assert capsys.readouterr().out == "saved 5\\n"
        assert (folder / "b").read_text() == "10"


    def test_monkeypatch(tmp_path, monkeypatch):
        monkeypatch.setenv("CALC_MODE", "fancy")
        assert save(tmp_path / "c", 1) == "fancy"


    def test_wrong(tmp_path):
        save(tmp_path / "d", 3)
        assert (tmp_path / "d").read_text() == "6"


    def test_from_conftest(db):
        assert save(db, 1)


    def test_through_conftest_fixture(needs_conftest):
        assert save(needs_conftest, 1)


    @pytest.mark.parametrize("x", [1])
    def test_parametrized_with_fixture(x, tmp_path):
        assert save(tmp_path / "e", x)


    def test_hangs(tmp_path):
        save(tmp_path / "f", 1)
        while True:
            pass
    """
)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "calc.py").write_text(MODULE)
    (tmp_path / "test_calc.py").write_text(TESTS)
    return tmp_path


def cases_of(workspace: Path, name: str = "test_calc.py") -> list:
    return [c for c in pytest_cases("save", workspace / "calc.py", workspace)
            if c.file.endswith(name)]


def test_tests_taking_fixtures_the_sandbox_can_give_are_cases(workspace):
    cases = {c.name: c for c in cases_of(workspace)}
    # db comes from a conftest.py (or a plugin) the sandbox does not have; fixtures together
    # with parametrize are not run by the harness.
    assert sorted(cases) == ["test_hangs", "test_monkeypatch", "test_own_fixtures",
                             "test_tmp_path", "test_wrong"]
    own = cases["test_own_fixtures"]
    assert own.fixtures == ["folder", "base", "capsys"]
    # the file's fixtures come along, with their decorators and what they use
    assert '@pytest.fixture(name="folder")\ndef make_folder(tmp_path, base):' in own.setup
    assert "def base():" in own.setup and "START = 5" in own.setup
    assert "import pytest" in own.setup
    assert "needs_conftest" not in own.setup
    assert cases["test_tmp_path"].fixtures == ["tmp_path"]
    assert "def base" not in cases["test_tmp_path"].setup


def test_autouse_fixtures_apply_to_every_test_of_their_file(workspace):
    (workspace / "test_auto.py").write_text(textwrap.dedent(
        """\
        import pytest
        from calc import save


        @pytest.fixture(autouse=True)
        def fancy(monkeypatch):
            monkeypatch.setenv("CALC_MODE", "fancy")


        def test_plain(tmp_path):
            assert save(tmp_path / "a", 1) == "fancy"


        @pytest.mark.parametrize("x", [1])
        def test_parametrized(x):
            assert save(x)


        class TestSaving:
            def test_method(self):
                assert save
        """))
    cases = cases_of(workspace, "test_auto.py")
    # the harness runs parametrized cases and methods without pytest: it would skip the
    # autouse fixture, so they are not run at all
    assert [(c.name, c.fixtures) for c in cases] == [("test_plain", ["fancy", "tmp_path"])]
    assert "def fancy(monkeypatch):" in cases[0].setup


def test_a_file_whose_autouse_fixture_needs_a_conftest_gives_no_cases(workspace):
    (workspace / "test_auto.py").write_text(
        "import pytest\nfrom calc import save\n\n@pytest.fixture(autouse=True)\n"
        "def with_db(db):\n    pass\n\ndef test_plain():\n    assert save\n")
    assert cases_of(workspace, "test_auto.py") == []


@pytest.mark.sandbox
async def test_fixture_tests_run_under_pytest_in_the_sandbox(workspace, policy):
    cases = cases_of(workspace)
    report = await run_tests(MODULE, cases, module_name="calc", policy=policy)
    by_name = {o.test_id.split("py::")[1]: o for o in report.outcomes}
    assert {name: o.status for name, o in by_name.items()} == {
        "test_tmp_path": "passed", "test_own_fixtures": "passed",
        "test_monkeypatch": "passed", "test_wrong": "failed", "test_hangs": "timeout"}
    wrong = by_name["test_wrong"]
    assert wrong.exception_type == "AssertionError"
    assert (wrong.expected, wrong.actual) == ("'6'", "'7'")  # recorded as for any test
    # the traceback names the workspace file and the assert's line in it
    line = TESTS.splitlines().index('    assert (tmp_path / "d").read_text() == "6"') + 1
    assert str(workspace / "test_calc.py") in wrong.traceback
    assert f"line {line}" in wrong.traceback
    assert by_name["test_tmp_path"].stdout == "saved 2\n"  # prints reach the test's stdout


@pytest.mark.sandbox
async def test_fixture_errors_skips_and_program_errors_are_told_apart(workspace, policy):
    (workspace / "test_other.py").write_text(textwrap.dedent(
        """\
        import pytest
        from calc import save


        @pytest.fixture
        def broken():
            raise KeyError("setup went wrong")


        @pytest.fixture
        def unavailable():
            pytest.skip("no device here")


        def test_broken_fixture(broken):
            assert save(broken, 1)


        def test_skipped(unavailable):
            assert save(unavailable, 1)


        def test_program_raises(tmp_path):
            save(tmp_path / "missing" / "x", 1)
        """))
    cases = cases_of(workspace, "test_other.py")
    report = await run_tests(MODULE, cases, module_name="calc", policy=policy)
    by_name = {o.test_id.split("py::")[1]: o for o in report.outcomes}
    assert {name: o.status for name, o in by_name.items()} == {
        "test_broken_fixture": "error", "test_skipped": "skipped",
        "test_program_raises": "error"}
    assert by_name["test_broken_fixture"].exception_type == "KeyError"
    assert by_name["test_skipped"].message == "pytest.skip: no device here"
    raised = by_name["test_program_raises"]
    assert raised.exception_type == "FileNotFoundError"
    assert raised.program_line == 5  # save's write_text line in calc.py


@pytest.mark.sandbox
async def test_the_file_s_top_level_runs_as_for_any_test(workspace, policy):
    # a fixture named test_*, a fixture raising deep in the file (its line is the file's), an
    # aliased fixture decorator, string annotations, xfail; and the file's top level calling
    # the code, which fails
    (workspace / "test_more.py").write_text(textwrap.dedent(
        """\
        from __future__ import annotations

        from typing import TYPE_CHECKING

        import pytest
        from pytest import fixture as fx
        from calc import save

        if TYPE_CHECKING:
            from pathlib import Path


        @pytest.fixture
        def test_data():
            return 4


        @fx
        def broken(tmp_path: Path):
            save(tmp_path / "x", 1)
            raise KeyError("setup went wrong")


        def test_named_like_a_test(test_data, tmp_path: Path):
            save(tmp_path / "a", test_data)
            assert (tmp_path / "a").read_text() == "8"


        def test_broken(broken):
            assert broken


        def test_known_bug(tmp_path):
            save(tmp_path / "k", 1)
            pytest.xfail("not done yet")
        """))
    cases = cases_of(workspace, "test_more.py")
    assert [(c.name, c.fixtures) for c in cases] == [
        ("test_named_like_a_test", ["test_data", "tmp_path"]), ("test_broken", ["broken"]),
        ("test_known_bug", ["tmp_path"])]
    report = await run_tests(MODULE, cases, module_name="calc", policy=policy)
    named, broken, known = report.outcomes
    assert named.status == "passed", named
    assert broken.status == "error" and broken.exception_type == "KeyError"
    assert 'line 21, in broken\n    raise KeyError("setup went wrong")' in broken.traceback
    assert known.status == "skipped" and known.message == "pytest.xfail: not done yet"

    (workspace / "test_more.py").write_text(
        "from calc import save\n\nFIRST = save(None, 1)\n\n\ndef test_x(tmp_path):\n"
        "    assert FIRST\n")
    cases = cases_of(workspace, "test_more.py")
    (outcome,) = (await run_tests(MODULE, cases, module_name="calc", policy=policy)).outcomes
    assert outcome.status == "error" and outcome.exception_type == "AttributeError"
    assert outcome.program_line == 5  # save's write_text: the code failed, as pytest would say


def test_fixtures_the_sandbox_cannot_give_keep_their_tests_out(workspace):
    (workspace / "test_async.py").write_text(
        "import pytest\nfrom calc import save\n\n@pytest.fixture(autouse=True)\n"
        "async def connect():\n    pass\n\ndef test_plain(tmp_path):\n    assert save\n")
    (workspace / "test_kw.py").write_text(
        "import pytest\nfrom calc import save\n\n@pytest.fixture\n"
        "def needs_db(*, db):\n    return db\n\ndef test_db(needs_db):\n    assert save\n")
    assert cases_of(workspace, "test_async.py") == []
    assert cases_of(workspace, "test_kw.py") == []


@pytest.mark.sandbox
@pytest.mark.parametrize("name", ["copy", "cmd", "heapq"])
async def test_a_program_named_like_a_standard_module_pytest_uses(tmp_path, policy, name):
    (tmp_path / f"{name}.py").write_text(MODULE)
    (tmp_path / "test_it.py").write_text(
        f"from {name} import save\n\n\ndef test_it(tmp_path):\n"
        "    assert save(tmp_path / 'a', 3) and (tmp_path / 'a').read_text() == '6'\n")
    cases = pytest_cases("save", tmp_path / f"{name}.py", tmp_path)
    (outcome,) = (await run_tests(MODULE, cases, module_name=name, policy=policy)).outcomes
    assert outcome.status == "failed", outcome  # 7, not 6: and no pytest internal error


MARKS = textwrap.dedent(
    """\
    import os
    import warnings

    import pytest
    from calc import save

    pytestmark = pytest.mark.filterwarnings("error::UserWarning")
    A = 1; B = 2


    def noisy(path, kind=DeprecationWarning):
        warnings.warn("old", kind)
        return save(path, A + B)


    @pytest.fixture(params=[1, 2])
    def each(request):
        return request.param


    @pytest.fixture
    def leaves_a_mess(tmp_path):
        yield tmp_path
        assert not list(tmp_path.iterdir()), "files left behind"


    def test_plain_moves_the_cwd():
        os.chdir("/")
        assert save


    @pytest.mark.filterwarnings("error::DeprecationWarning")
    def test_warning_is_an_error(tmp_path):
        assert noisy(tmp_path / "a") == "plain"


    def test_warning_ignored(tmp_path):
        assert noisy(tmp_path / "b") == "plain"


    def test_user_warning(tmp_path):
        assert noisy(tmp_path / "b", UserWarning) == "plain"


    def test_teardown_fails(leaves_a_mess):
        save(leaves_a_mess / "c", 1)


    def test_per_param(each, tmp_path):
        assert save(tmp_path / "d", each)


    def test_exits(tmp_path):
        save(tmp_path / "e", 1)
        pytest.exit("stop now")
    """
)


@pytest.mark.sandbox
async def test_marks_teardowns_and_exits_under_pytest(workspace, policy):
    (workspace / "test_marks.py").write_text(MARKS)
    cases = cases_of(workspace, "test_marks.py")
    # a fixture with params= makes one test per parameter: not run as one case
    assert [c.name for c in cases] == ["test_plain_moves_the_cwd", "test_warning_is_an_error",
                                       "test_warning_ignored", "test_user_warning",
                                       "test_teardown_fails", "test_exits"]
    report = await run_tests(MODULE, cases, module_name="calc", policy=policy)
    moved, warned, ignored, user, teardown, exits = report.outcomes
    assert moved.status == "passed"  # and the fixture tests after it still run
    # the test's mark and the file's pytestmark apply, as in pytest
    assert warned.status == "error" and warned.exception_type == "DeprecationWarning"
    assert ignored.status == "passed", ignored
    assert user.status == "error" and user.exception_type == "UserWarning"
    # the test passed; its fixture's teardown failed: an error, said to be the teardown's
    assert teardown.status == "error" and teardown.exception_type == "AssertionError"
    assert teardown.message.startswith("in the teardown of a fixture: files left behind")
    assert exits.status == "error" and "stop now" in exits.message


def test_tests_taking_fixtures_the_sandbox_cannot_give_are_reported_with_the_reason(workspace):
    cases = [c for c in pytest_cases("save", workspace / "calc.py", workspace, with_skipped=True)
             if c.skip_reason]
    assert {c.name: c.skip_reason for c in cases} == {
        "test_from_conftest": "it takes the fixture db, which the sandbox cannot give (from a "
                              "conftest.py or a plugin, or with params= or async)",
        "test_through_conftest_fixture": "it takes the fixture needs_conftest, which the "
                                         "sandbox cannot give (from a conftest.py or a plugin, "
                                         "or with params= or async)",
    }
    assert all(c.fixtures == [] for c in cases)  # never run
