"""A test whose subtests fail fails (issue 24's survey: tomli's ``unittest.TestCase`` tests run
hundreds of data files as ``self.subTest``; a body returning None passed every one of them,
because the judge read only the test's own call report, which pytest makes "passed" while it
counts each failed subtest as failed). Real pytest in the real sandbox, on a tmp package."""

from __future__ import annotations

from pathlib import Path

import pytest

from codeteam.execution.outcomes import TestCase
from codeteam.execution.pytest_run import target_for
from codeteam.execution.sandbox import SandboxPolicy
from codeteam.execution.suite import run_suite
from codeteam.project import project_for
from codeteam.pysource.functions import locate
from codeteam.task import Task

pytestmark = pytest.mark.sandbox

POLICY = SandboxPolicy(mode="bwrap", timeout_s=40, per_test_timeout_s=5)
FILES = {
    "pyproject.toml": "[project]\nname = 'calc'\nversion = '0'\n",
    "src/calc/__init__.py": "",
    "src/calc/ops.py": "def double(x):\n    return 2 * x\n",
    "tests/__init__.py": "",
    "tests/test_ops.py": (
        "import unittest\n\nfrom calc.ops import double\n\n\n"
        "class TestDouble(unittest.TestCase):\n"
        "    def test_cases(self):\n"
        "        for x, want in [(1, 2), (2, 4), (5, 10)]:\n"
        "            with self.subTest(x=x):\n"
        "                self.assertEqual(double(x), want)\n\n\n"
        "def test_with_the_fixture(subtests):\n"
        "    for x in (0, 3):\n"
        "        with subtests.test(msg=f'x={x}'):\n"
        "            assert double(x) == x + x\n"),
}
TESTS = ["tests/test_ops.py::TestDouble::test_cases", "tests/test_ops.py::test_with_the_fixture"]


@pytest.fixture(scope="module")
def calc(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("subtests")
    base.chmod(0o755)
    root = base / "calc"
    for name, text in FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root.resolve()


async def judged(root: Path, body: str):
    path = root / "src/calc/ops.py"
    source = path.read_text()
    project = project_for(path)
    target = target_for(root, path, project.module, "double", locate(source, "double").start_line,
                        project.python, extra_ro=project.read_only_paths(),
                        hidden=project.hidden, import_root=project.import_root)
    program = Task.from_source(source, "double").program_with(body)
    cases = [TestCase(id=t, kind="pytest", origin="public", source=t) for t in TESTS]
    return await run_suite(program.model_copy(update={"pytest_target": target}), cases, POLICY)


async def test_correct_code_passes_its_subtests(calc):
    report = await judged(calc, "def double(x):\n    return 2 * x\n")
    assert [o.status for o in report.outcomes] == ["passed", "passed"], report.outcomes
    assert report.all_passed


async def test_a_failed_subtest_fails_its_test_with_the_subtests_name(calc):
    report = await judged(calc, "def double(x):\n    return None if x == 2 else 2 * x\n")
    unittest_case, fixture_case = report.outcomes
    assert unittest_case.status == "failed", unittest_case
    assert unittest_case.message == "None != 4 (subtest x=2)", unittest_case.message
    assert fixture_case.status == "passed"  # x=2 is not one of its subtests
    assert not report.all_passed and report.failures == [unittest_case]


async def test_a_body_returning_none_fails_every_subtest_test(calc):
    report = await judged(calc, "def double(x):\n    return None\n")
    assert [o.status for o in report.outcomes] == ["failed", "failed"], report.outcomes
    assert report.outcomes[1].message.endswith(" (subtest [x=0])"), report.outcomes[1].message
