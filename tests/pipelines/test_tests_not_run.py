"""The project's tests that cannot run (pytest skips one, a fixture is missing): reported as not
run, with pytest's reason in the notes and the report; the verdict comes from the tests that
ran, and no pipeline tries to "fix" them."""

from __future__ import annotations

from pathlib import Path

import pytest
from pipeline_support import DIRECT, FIX, FLOW_CODE, GOOD, STUB, TESTER

pytestmark = pytest.mark.sandbox

TESTS = '''import pytest
from helpers import SAMPLE
from running import running_max


def test_sample():
    assert running_max(SAMPLE) == [1, 3, 3]


def test_third_party():
    lib = pytest.importorskip("codeteam_no_such_package")
    assert running_max(lib.DATA) == []


def test_needs_db(db):
    assert running_max(db) == []


def test_plain():
    assert running_max([2, 1]) == [2, 2]
'''

CORRECT = STUB + "    out = []\n    for x in xs:\n        out.append(x if not out else max(out[-1], x))\n" \
    "    return out\n"
SKIPPED = "Skipped: could not import 'codeteam_no_such_package': No module named " \
    "'codeteam_no_such_package'"


@pytest.fixture
def run_on_files(run_on_disk, tmp_path: Path):
    """``await run_on_files(pipeline, source, tests_text, **settings)``: ``running.py`` and
    ``test_running.py`` in a workspace with a ``helpers.py``, run through ``run_on_disk``
    (its pytest tests selected by running pytest; three rounds unless given)."""

    async def go(pipeline, source, tests_text, **overrides):
        (tmp_path / "running.py").write_text(source)
        (tmp_path / "helpers.py").write_text("SAMPLE = [1, 3, 2]\n")
        (tmp_path / "test_running.py").write_text(tests_text)
        return await run_on_disk(pipeline, source, "running_max", path=tmp_path / "running.py",
                                 root=tmp_path, **{"max_rounds": 3, **overrides})

    return go


async def test_review_passes_on_the_tests_that_ran_and_names_the_rest(run_on_files):
    result = await run_on_files("review", CORRECT, TESTS)
    assert result.status == "passed", result.notes
    report = result.last_report
    assert [(o.test_id.split("::")[-1], o.status) for o in report.run.outcomes] == [
        ("doctest:1", "passed"), ("doctest:2", "passed"), ("test_sample", "passed"),
        ("test_plain", "passed"), ("test_third_party", "skipped"), ("test_needs_db", "skipped")]
    assert report.counts("public") == (4, 4)
    head = report.summary.splitlines()[0]
    assert head == (f"2/2 public tests passed; 2/2 docstring examples agree with the code (ran "
                    f"4: 4 passed, 0 failed); 2 not run: 1 {SKIPPED}, 1 error in setup: "
                    "fixture 'db' not found")
    assert f"NOT RUN public test test_running.py::test_third_party: {SKIPPED}" in report.summary
    assert ("test_running.py::test_needs_db not run: error in setup: fixture 'db' not found"
            in result.notes), result.notes
    assert ("2/2 tests passed; 2/2 docstring examples agree with the code (advisory: the "
            "project does not run doctests); 2 not run") in result.summary()


async def test_review_of_buggy_code_still_fails_on_the_tests_that_ran(run_on_files):
    buggy = STUB + "    return sorted(xs)\n"
    result = await run_on_files("review", buggy, TESTS)
    assert result.status == "failed"
    failures = result.last_report.run.failures
    assert [o.test_id.split("::")[-1] for o in failures] == ["test_sample", "test_plain"]
    # the docstring's example disagrees too, beside the project's tests: reported, apart
    assert [o.test_id for o in result.last_report.run.disagreements] == ["doctest:1"]
    sample = failures[0]
    assert (sample.expected, sample.actual) == ("[1, 3, 3]", "[1, 2, 3]")
    assert len(result.last_report.run.skipped) == 2


async def test_review_with_only_tests_that_cannot_run_is_untested(run_on_files):
    source = CORRECT.replace("    >>> running_max([1, 3, 2])\n    [1, 3, 3]\n"
                             "    >>> running_max([])\n    []\n", "")
    tests = TESTS.split("\n\n\ndef test_plain")[0].replace("def test_sample", "def _sample")
    result = await run_on_files("review", source, tests + "\n")
    assert result.status == "untested", result.notes
    assert result.reports == []
    assert "no test could run in the sandbox: the code is untested" in result.notes
    assert any("test_needs_db not run" in n for n in result.notes)
    assert any("test_third_party not run" in n for n in result.notes)


async def test_a_module_importing_what_the_sandbox_lacks_is_untested_not_failed(run_on_files):
    source = "import codeteam_no_such_package\n\n\n" + CORRECT
    result = await run_on_files("review", source, "")
    assert result.status == "untested", result.notes
    note = next(n for n in result.notes if "not run" in n)
    assert note.startswith("all 2 tests not run: importing running failed: "
                           "ModuleNotFoundError: No module named 'codeteam_no_such_package'")


async def test_team_does_not_revise_for_tests_that_cannot_run(scripted, run_on_files):
    scripted.reply(DIRECT, GOOD)
    result = await run_on_files("team", STUB, TESTS, max_rounds=3)
    assert result.status == "passed" and result.rounds == 1, result.notes
    assert scripted.count(TESTER) == 0
    assert any("test_needs_db not run" in n for n in result.notes)


async def test_flow_does_not_try_to_fix_tests_that_cannot_run(scripted, run_on_files):
    scripted.reply(DIRECT, GOOD, times=None).reply(FLOW_CODE, GOOD, times=None)
    tests_text = TESTS.replace("test_plain", "test_plain_fails").replace("[2, 2]", "[0]")
    result = await run_on_files("flow", STUB, tests_text, max_calls=15)
    # test_plain_fails is a wrong user test: the flow tries to fix it, never the skipped ones.
    fix_prompts = [t for t in scripted.texts() if "You fix Python functions" in t]
    assert fix_prompts and all("test_needs_db" not in t and "test_third_party" not in t
                               for t in fix_prompts)
    assert result.status == "failed"
    assert scripted.count(FIX) == len(fix_prompts)
