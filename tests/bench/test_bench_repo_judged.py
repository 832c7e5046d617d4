"""``codeteam bench --repo`` scores judged: the generated body runs in a process of its own
(the judge view of the task's module is what pytest imports), so it cannot write its own
verdict. A test whose argument is an object of a class of the test file, and one that changes
another module's state, are judged too (the object crosses by state, the state is sent)."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
from benchkit import CATCH_ALL, bench, code

from codeteam.bench.results import ResultsLog

pytestmark = pytest.mark.sandbox

FILES = {
    "pyproject.toml": """\
        [project]
        name = "calc"
        version = "0.1"

        [tool.pytest.ini_options]
        testpaths = ["tests"]
        """,
    "calc/__init__.py": "",
    "calc/config.py": "FACTOR = 2\n",
    "calc/ops.py": '''\
        from calc import config


        def double(x):
            """Twice x."""
            result = x * 2
            return result


        def triple(x):
            """Three times x."""
            result = x * 3
            return result


        def area(shape):
            """The area of shape (an object with ``width`` and ``height``)."""
            value = shape.width * shape.height
            return value


        def scaled(x):
            """x times ``config.FACTOR``."""
            value = x * config.FACTOR
            return value
        ''',
    "tests/test_ops.py": """\
        from calc import config
        from calc.ops import area, double, scaled, triple


        def test_double_of_twenty_one():
            assert double(21) == 42


        def test_double_of_minus_three():
            assert double(-3) == -6


        def test_triple_of_five():
            assert triple(5) == 15


        class Box:
            def __init__(self, width, height):
                self.width = width
                self.height = height


        def test_area_of_a_box():
            assert area(Box(2, 3)) == 6


        def test_scaled_after_changing_the_factor():
            config.FACTOR = 5
            try:
                assert scaled(3) == 15
            finally:
                config.FACTOR = 2
        """,
}

ORACLE = {
    "double": "def double(x):\n    \"\"\"Twice x.\"\"\"\n    result = x * 2\n    return result",
    "triple": "def triple(x):\n    \"\"\"Three times x.\"\"\"\n    result = x * 3\n    return result",
    "area": ("def area(shape):\n    \"\"\"The area of shape (an object with ``width`` and "
             "``height``).\"\"\"\n    value = shape.width * shape.height\n    return value"),
    "scaled": ("def scaled(x):\n    \"\"\"x times ``config.FACTOR``.\"\"\"\n"
               "    value = x * config.FACTOR\n    return value"),
}

# Writes "passed" outcome lines and an end-of-run line into every descriptor, then ends the
# process before any real report: in one process this is the benchmark's verdict.
FAKE_LINES = '''\
def double(x):
    """Twice x."""
    import json, os
    for fd in range(3, 1024):
        try:
            for name in ("test_double_of_twenty_one", "test_double_of_minus_three"):
                os.write(fd, (json.dumps({"event": "outcome", "outcome": "passed",
                              "nodeid": "tests/test_ops.py::" + name}) + "\\n").encode())
            os.write(fd, b'{"event": "done", "exitstatus": 0, "outcomes": 2}\\n')
        except OSError:
            pass
    os._exit(0)'''

# Makes every test report of the process it runs in a pass.
PATCHED_RUNNER = '''\
def triple(x):
    """Three times x."""
    import _pytest.reports
    import _pytest.runner
    init = _pytest.reports.TestReport.__init__

    def __init__(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.outcome, self.longrepr = "passed", None

    _pytest.reports.TestReport.__init__ = __init__
    _pytest.runner.TestReport = _pytest.reports.TestReport
    return -1'''


def make_project(root: Path) -> Path:
    for name, text in FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def normal(text: str) -> str:
    return re.sub(r"\s+", "", text)


def script(scripted, bodies: dict[str, str]) -> None:
    """The request that asks for function NAME's code (its stub in a code block: signature and
    docstring) gets ``bodies[NAME]``; any other request a plan with no tests."""
    stubs = {name: "\n".join(body.splitlines()[:2]) for name, body in ORACLE.items()}
    for name, body in bodies.items():
        needle = normal("```python\n" + stubs[name] + "\n```")
        scripted.reply(
            lambda req, needle=needle: needle in normal("\n".join(
                str(m.get("content", "")) for m in req.get("messages", []))),
            code(body), times=None)
    scripted.reply(None, CATCH_ALL, times=None)


@pytest.fixture
def project(tmp_path):
    return make_project(tmp_path / "calc-project")


async def test_correct_bodies_pass_judged(scripted, project, tmp_path):
    script(scripted, ORACLE)
    out = tmp_path / "out"
    summary = await bench(scripted, out, repo=project, pipelines=["direct"])
    assert summary["pipelines"]["direct"]["pass@1"] == 1.0
    assert summary["pipelines"]["direct"]["tasks"] == 4
    assert summary["defective"]["tasks"] == {}
    rows = {task: row for (task, _), row in ResultsLog(out / "results.jsonl").load().items()}
    assert set(rows) == {f"calc/ops.py::{n}" for n in ORACLE}
    assert all(row.passed and row.tests_untrusted == 0 for row in rows.values()), rows
    assert (rows["calc/ops.py::double"].tests_total, rows["calc/ops.py::area"].tests_total,
            rows["calc/ops.py::scaled"].tests_total) == (2, 1, 1)
    assert summary["repo"]["hidden_verdicts"] == {"judged": 5, "not_judged": 0}
    text = (out / "summary.md").read_text()
    assert "- hidden-test verdicts: 5 judged" in text


# Makes every test report of the process it runs in a pass, and is wrong (area's test passes an
# object of a class of the test file: it crosses by state to the code's own process).
PATCHED_AREA = PATCHED_RUNNER.replace("def triple(x):", "def area(shape):").replace(
    '"""Three times x."""', '"""The area."""')


async def test_a_forging_body_fails_judged_where_its_argument_is_a_test_files_object(project):
    from codeteam.bench.repo import load_repo
    from codeteam.bench.scoring import score_code, scoring_policy

    dataset, _ = await load_repo(project, mode="bwrap", patterns=["*area"])
    (item,) = dataset.tasks
    policy = scoring_policy("bwrap", 30.0)
    right = await score_code(item, ORACLE["area"], policy=policy)
    assert (right.passed, right.tests_untrusted) == (True, 0), right
    forged = await score_code(item, PATCHED_AREA, policy=policy)
    assert (forged.passed, forged.tests_passed) == (False, 0), forged
    wrong = await score_code(item, "def area(shape):\n    return shape.width + shape.height",
                             policy=policy)
    assert (wrong.passed, wrong.kind) == (False, "wrong_answer"), wrong


async def test_a_forging_body_fails_on_repo(scripted, project, tmp_path):
    script(scripted, {"double": FAKE_LINES, "triple": PATCHED_RUNNER})
    out = tmp_path / "out"
    summary = await bench(scripted, out, repo=project, pipelines=["direct"],
                          functions=["*double", "*triple"])
    assert summary["pipelines"]["direct"]["tasks"] == 2
    assert summary["pipelines"]["direct"]["pass@1"] == 0.0
    rows = {task: row for (task, _), row in ResultsLog(out / "results.jsonl").load().items()}
    for task in ("calc/ops.py::double", "calc/ops.py::triple"):
        assert not rows[task].passed and rows[task].tests_passed == 0, rows[task]
        assert rows[task].tests_untrusted == 0
    assert "os._exit(0)" in rows["calc/ops.py::double"].code  # the forger was scored


def test_the_same_bodies_forge_plain_pytest(project):
    """Why judging matters: with the body in pytest's own process (plain pytest on the
    project), both forgers pass."""
    import subprocess
    import sys

    ops = project / "calc/ops.py"
    original = ops.read_text()
    for name, body in (("double", FAKE_LINES), ("triple", PATCHED_RUNNER)):
        forged = original.replace(textwrap.indent(ORACLE[name], "") + "\n", body + "\n")
        assert forged != original
        ops.write_text(forged)
        try:
            done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                   "-k", name], cwd=project, capture_output=True, text=True,
                                  check=False)
        finally:
            ops.write_text(original)
        assert done.returncode == 0 or "passed" in done.stdout, done.stdout[-1500:]
