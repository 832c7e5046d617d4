"""The project's pytest tests judged outside the code under test's process (issue 13, item 1):
pytest imports the judge view of the user's text, the candidate runs in a subject process,
values cross as data (codeteam.execution.judge_view, pytest_subject, pytest_plugin). Real
pytest in the real sandbox, on a small package built in a tmp dir."""

from __future__ import annotations

import textwrap
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

CORE = '''\
import os

from .errors import PriceError
from .util import curry

RATE = 2
NAMES = {"en": "hello"}


def total(prices):
    """Sum of prices times RATE; a negative price is a PriceError."""
    for price in prices:
        if price < 0:
            raise PriceError(f"negative price: {price}")
    return sum(prices) * RATE


def tag_all(items, counts):
    """Append '!' to each item and count the items into ``counts`` (both in place)."""
    for item in items:
        counts[item] = counts.get(item, 0) + 1
    items[:] = [item + "!" for item in items]


def shout(text):
    """Print text in capitals and return its length."""
    print(text.upper())
    return len(text)


def read_setting(name):
    """$SHOP_<name>, else the text of <name>.txt in the working directory."""
    value = os.environ.get("SHOP_" + name)
    if value is None:
        with open(name + ".txt") as handle:
            value = handle.read().strip()
    return value


def scaled(x):
    """x times RATE."""
    return x * RATE


def hello(language):
    """The greeting of NAMES for language."""
    return NAMES[language]


def best(items, key):
    """The item with the largest key(item)."""
    return max(items, key=key)


def take(n, iterable):
    """The first n items of iterable, as a list."""
    out = []
    for item in iterable:
        if len(out) >= n:
            break
        out.append(item)
    return out


def evens(limit):
    """The even numbers below limit (a generator)."""
    yield from range(0, limit, 2)


@curry
def add3(a, b, c):
    """a + b + c, curried."""
    return a + b + c


class Cart:
    def __init__(self):
        self.items = []

    def add(self, name, price):
        """Add an item; return the cart."""
        self.items.append((name, price))
        return self


def apply_all(items, transform):
    """transform.apply(item) for each item."""
    return [transform.apply(item) for item in items]


def old_name(x):
    """Deprecated: x itself, with a warning."""
    import warnings

    warnings.warn("old_name is deprecated", DeprecationWarning)
    return x
'''

FILES = {
    "pyproject.toml": '[project]\nname = "shop"\nversion = "0"\n\n'
                      '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
    "shop/__init__.py": 'from .core import total\n\n\ndef greet(name):\n'
                        '    """A greeting."""\n    return "hi " + name\n',
    "shop/errors.py": "class PriceError(ValueError):\n    pass\n",
    "shop/util.py": textwrap.dedent('''\
        import functools
        import inspect


        def curry(func):
            """Call with fewer arguments: a function waiting for the rest."""
            count = len(inspect.signature(func).parameters)

            @functools.wraps(func)
            def curried(*args):
                if len(args) >= count:
                    return func(*args)
                return lambda *more: curried(*args, *more)

            return curried
        '''),
    "shop/core.py": CORE,
    "tests/conftest.py": "import pytest\n\n\n@pytest.fixture\ndef prices():\n"
                         "    return [1, 2, 3]\n",
    "tests/test_shop.py": textwrap.dedent('''\
        import itertools

        import pytest

        from shop import core, greet
        from shop.core import (Cart, add3, apply_all, best, evens, read_setting, scaled,
                               shout, tag_all, take, total)
        from shop.errors import PriceError


        def test_total(prices):
            assert total(prices) == 12


        def test_total_negative():
            with pytest.raises(PriceError, match="negative price: -1"):
                total([1, -1])


        def test_total_two():
            assert total([2, 3]) == 10


        def test_tag_all():
            items, counts = ["a", "b", "a"], {"z": 1}
            assert tag_all(items, counts) is None
            assert items == ["a!", "b!", "a!"]
            assert counts == {"z": 1, "a": 2, "b": 1}


        def test_shout(capsys):
            assert shout("hey") == 3
            assert capsys.readouterr().out == "HEY\\n"


        def test_read_setting_from_env(monkeypatch):
            monkeypatch.setenv("SHOP_color", "red")
            assert read_setting("color") == "red"


        def test_read_setting_from_file(monkeypatch, tmp_path):
            (tmp_path / "size.txt").write_text("XL\\n")
            monkeypatch.chdir(tmp_path)
            assert read_setting("size") == "XL"


        def test_scaled_with_patched_rate(monkeypatch):
            monkeypatch.setattr(core, "RATE", 10)
            assert scaled(3) == 30


        def test_scaled():
            assert scaled(3) == 6


        def test_hello_with_a_patched_table(monkeypatch):
            monkeypatch.setitem(core.NAMES, "fr", "bonjour")
            assert core.hello("fr") == "bonjour"


        def test_best():
            assert best(["aa", "b", "cccc"], key=len) == "cccc"
            assert best([3, -7, 5], key=lambda x: x * x) == -7


        def test_take():
            assert take(3, itertools.count()) == [0, 1, 2]
            assert take(2, (c for c in "xyz")) == ["x", "y"]


        def test_evens():
            numbers = evens(7)
            assert next(numbers) == 0
            assert list(numbers) == [2, 4, 6]


        def test_add3():
            assert add3(1)(2)(3) == 6
            assert add3(1, 2)(3) == 6


        def test_cart():
            cart = Cart()
            assert cart.add("pen", 2) is cart
            cart.add("ink", 5)
            assert cart.items == [("pen", 2), ("ink", 5)]


        class Doubler:
            def apply(self, x):
                return 2 * x


        def test_apply_all():
            assert apply_all([1, 2], Doubler()) == [2, 4]


        def test_greet():
            assert greet("ann") == "hi ann"


        def test_old_name_warns():
            with pytest.warns(DeprecationWarning, match="deprecated"):
                assert core.old_name(3) == 3
        '''),
}

TESTS = {  # function -> the tests calling it
    "total": ["test_total", "test_total_negative", "test_total_two"],
    "tag_all": ["test_tag_all"],
    "shout": ["test_shout"],
    "read_setting": ["test_read_setting_from_env", "test_read_setting_from_file"],
    "scaled": ["test_scaled_with_patched_rate", "test_scaled"],
    "hello": ["test_hello_with_a_patched_table"],
    "best": ["test_best"],
    "take": ["test_take"],
    "evens": ["test_evens"],
    "add3": ["test_add3"],
    "Cart.add": ["test_cart"],
    "apply_all": ["test_apply_all"],
    "old_name": ["test_old_name_warns"],
}


@pytest.fixture(scope="module")
def shop(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("judge")
    base.chmod(0o755)
    root = base / "shop"
    for name, text in FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (root / ".git").mkdir()
    return root.resolve()


async def judged(root: Path, qualname: str, function: str | None = None, *,
                 file: str = "shop/core.py", tests: list[str] | None = None,
                 policy: SandboxPolicy = POLICY):
    """Run the tests of ``qualname`` on the module with the function replaced by
    ``function`` (column 0; None: the original), through the one judge."""
    path = root / file
    source = path.read_text()
    info = locate(source, qualname)
    project = project_for(path)
    target = target_for(root, path, project.module, qualname, info.start_line, project.python,
                        extra_ro=project.read_only_paths(), hidden=project.hidden)
    task = Task.from_source(source, qualname)
    program = task.program_with(function) if function else task.program_with(
        task.stub)
    names = tests if tests is not None else TESTS[qualname]
    cases = [TestCase(id=f"tests/test_shop.py::{n}", kind="pytest", origin="public",
                      source=f"tests/test_shop.py::{n}") for n in names]
    return await run_suite(program.model_copy(update={"pytest_target": target}), cases, policy)


def statuses(report):
    return {o.test_id.split("::")[-1]: o.status for o in report.outcomes}


# ------------------------------------------------------------------------------------------
# Real semantics kept


@pytest.mark.parametrize("qualname", list(TESTS))
async def test_the_original_passes_judged(shop, qualname):
    report = await judged(shop, qualname)
    expected = {name: "passed" for name in TESTS[qualname]}
    assert statuses(report) == expected, [(o.test_id, o.message) for o in report.outcomes]


async def test_a_function_of_the_package_init(shop):
    report = await judged(shop, "greet", file="shop/__init__.py", tests=["test_greet"])
    assert [o.status for o in report.outcomes] == ["passed"]
    wrong = await judged(shop, "greet", 'def greet(name):\n    return "hello " + name\n',
                         file="shop/__init__.py", tests=["test_greet"])
    (outcome,) = wrong.outcomes
    assert outcome.status == "failed"
    assert (outcome.expected, outcome.actual) == ("'hi ann'", "'hello ann'")


WRONG = {
    "total": "def total(prices):\n    return sum(prices)\n",
    "tag_all": "def tag_all(items, counts):\n    items.append('!')\n",
    "shout": "def shout(text):\n    print(text)\n    return len(text)\n",
    "read_setting": "def read_setting(name):\n    return 'red'\n",
    "scaled": "def scaled(x):\n    return x * 2\n",
    "best": "def best(items, key):\n    return min(items, key=key)\n",
    "take": "def take(n, iterable):\n    return list(range(n))\n",
    "evens": "def evens(limit):\n    yield from range(1, limit, 2)\n",
    "add3": "def add3(a, b, c):\n    return a + b - c\n",
    "Cart.add": "def add(self, name, price):\n    self.items.append(name)\n    return self\n",
}


@pytest.mark.parametrize("qualname", list(WRONG))
async def test_a_wrong_body_fails_judged(shop, qualname):
    report = await judged(shop, qualname, WRONG[qualname])
    assert "failed" in statuses(report).values(), report.outcomes


async def test_the_failure_points_at_the_candidates_line(shop):
    body = ("def total(prices):\n    '''Sum.'''\n    extra = 1\n\n"
            "    raise KeyError(prices[0])\n")
    report = await judged(shop, "total", body, tests=["test_total"])
    (outcome,) = report.outcomes
    assert (outcome.status, outcome.exception_type) == ("failed", "KeyError")
    assert outcome.function_line == 4  # `raise`, 0-based in the candidate function
    assert outcome.test_line is not None
    assert "raise KeyError(prices[0])" in outcome.traceback  # the code's own traceback


async def test_an_object_of_a_class_of_the_test_file_crosses_by_state(shop):
    """A ``Doubler`` defined in the test file is an argument: the subject imports the test
    module and gets the object by its state (issue 24, item 4c); the verdict is judged."""
    wrong = "def apply_all(items, transform):\n    return [transform.apply(i) + 1 for i in items]\n"
    report = await judged(shop, "apply_all", wrong)
    (outcome,) = report.outcomes
    assert outcome.status == "failed", outcome
    assert (outcome.expected, outcome.actual) == ("[2, 4]", "[3, 5]")


async def test_a_timeout_and_a_crash_are_errors_and_the_next_test_runs(shop):
    crash = ("def total(prices):\n    import os, signal\n    if -1 in prices:\n"
             "        os.kill(os.getpid(), signal.SIGKILL)\n    return sum(prices) * RATE\n")
    report = await judged(shop, "total", crash)
    assert statuses(report) == {"test_total": "passed", "test_total_negative": "error",
                                "test_total_two": "passed"}, report.outcomes
    died = report.outcomes[1]
    assert "died during this call" in died.message, died.message
    loop = "def scaled(x):\n    while RATE == 10:\n        pass\n    return x * RATE\n"
    fast = POLICY.model_copy(update={"per_test_timeout_s": 1.0})
    report = await judged(shop, "scaled", loop, policy=fast)
    assert statuses(report) == {"test_scaled_with_patched_rate": "timeout",
                                "test_scaled": "passed"}, report.outcomes


# ------------------------------------------------------------------------------------------
# Forging bodies: each made a failing function "pass" (or skip) in one process; judged, they
# fail or are errors, and the verdict is the judge's.

FAKE_LINES = '''\
def total(prices):
    import json, os
    for fd in range(3, 1024):
        try:
            for name in ("test_total", "test_total_negative", "test_total_two"):
                os.write(fd, (json.dumps({"event": "outcome", "outcome": "passed",
                              "nodeid": "tests/test_shop.py::" + name}) + "\\n").encode())
            os.write(fd, b'{"event": "done", "exitstatus": 0, "outcomes": 3}\\n')
        except OSError:
            pass
    os._exit(0)
'''

PATCHED_REPORTS = '''\
def _forge():
    import sys
    import _pytest.reports
    import _pytest.runner
    init = _pytest.reports.TestReport.__init__

    def __init__(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.outcome, self.longrepr = "passed", None

    _pytest.reports.TestReport.__init__ = __init__
    _pytest.runner.TestReport = _pytest.reports.TestReport
    import importlib.util
    import os
    files = os.environ.get("CODETEAM_FILES_DIR", "")
    spec = importlib.util.spec_from_file_location(
        "_codeteam_pytest_plugin", os.path.join(files, "_codeteam_pytest_plugin.py"))
    plugin = sys.modules.get("_codeteam_pytest_plugin")
    if plugin is None and spec is not None:
        plugin = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(plugin)
    for fd in range(3, 64):
        os.environ["CODETEAM_RESULTS_FD"] = str(fd)
        try:
            plugin._open_channel()
            for name in ("test_total", "test_total_negative", "test_total_two"):
                plugin._emit({"event": "outcome", "outcome": "passed",
                              "nodeid": "tests/test_shop.py::" + name})
            plugin._emit({"event": "done", "exitstatus": 0, "outcomes": 3})
        except Exception:
            pass


def total(prices):
    _forge()
    return -1
'''

MODULE_LEVEL = '''\
def total(prices):
    return -1


import _pytest.reports

_init = _pytest.reports.TestReport.__init__


def _passed(self, *args, **kwargs):
    _init(self, *args, **kwargs)
    self.outcome, self.longrepr = "passed", None


_pytest.reports.TestReport.__init__ = _passed
'''

DEFAULT_ARGUMENT = '''\
def _forge():
    import _pytest.reports
    init = _pytest.reports.TestReport.__init__

    def __init__(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.outcome, self.longrepr = "passed", None

    _pytest.reports.TestReport.__init__ = __init__


def total(prices, _unused=_forge()):
    return -1
'''

CHAMELEON = '''\
def total(prices):
    class Chameleon:
        def __eq__(self, other):
            return True

        def __repr__(self):
            return "12"

        __hash__ = object.__hash__

    return Chameleon()
'''

SKIP = '''\
def total(prices):
    import pytest
    pytest.skip("not today")
'''

XFAIL = '''\
def total(prices):
    import pytest
    pytest.xfail("known")
'''

KILL_PARENT = '''\
def total(prices):
    import os, signal
    os.kill(os.getppid(), signal.SIGKILL)
    return sum(prices) * RATE
'''

THROUGH_PROC = '''\
def total(prices):
    import json, os
    line = json.dumps({"event": "done", "exitstatus": 0, "outcomes": 3}) + "\\n"
    for pid in [p for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()]:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                with open(f"/proc/{pid}/fd/{fd}", "w") as handle:
                    handle.write(line)
            except OSError:
                pass
    return -1
'''

EXIT = '''\
def total(prices):
    import pytest
    pytest.exit("done", returncode=0)
'''

SYSTEM_EXIT = '''\
def total(prices):
    raise SystemExit(0)
'''

INTERRUPT = '''\
def total(prices):
    raise KeyboardInterrupt
'''

SKIP_TEST = '''\
def total(prices):
    import unittest
    raise unittest.SkipTest("not today")
'''

FORGING = {"exit": EXIT, "unittest-skip": SKIP_TEST, "system-exit": SYSTEM_EXIT, "interrupt": INTERRUPT,
           "fake-lines": FAKE_LINES, "through-proc": THROUGH_PROC, "patched-reports": PATCHED_REPORTS,
           "module-level": MODULE_LEVEL, "default-argument": DEFAULT_ARGUMENT,
           "chameleon": CHAMELEON, "skip": SKIP, "xfail": XFAIL, "kill-parent": KILL_PARENT}


@pytest.mark.parametrize("body", list(FORGING.values()), ids=list(FORGING))
async def test_a_forging_body_does_not_pass(shop, body):
    report = await judged(shop, "total", body)
    found = statuses(report)
    assert set(found.values()) <= {"failed", "error"}, report.outcomes
    assert "passed" not in found.values() and "skipped" not in found.values()


@pytest.mark.parametrize("name", ["module-level", "default-argument", "chameleon", "skip",
                                  "xfail", "unittest-skip"])
def test_the_same_bodies_forge_plain_pytest(shop, tmp_path, name):
    """Why the judge is needed: with the body in pytest's own process (plain pytest on a
    copy of the project) these bodies make the failing tests pass (or skip)."""
    import shutil
    import subprocess
    import sys

    copy = tmp_path / "shop"
    shutil.copytree(shop, copy)
    core = copy / "shop" / "core.py"
    source = core.read_text()
    info = locate(source, "total")
    lines = source.splitlines(keepends=True)
    core.write_text("".join(lines[: info.start_line]) + FORGING[name]
                    + "".join(lines[info.end_line + 1 :]))
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "tests/test_shop.py::test_total", "tests/test_shop.py::test_total_two"],
                          cwd=copy, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout[-2000:]


async def test_the_chameleon_and_a_pytest_outcome_are_named(shop):
    report = await judged(shop, "total", CHAMELEON, tests=["test_total"])
    (outcome,) = report.outcomes
    assert outcome.status == "error" and "does not rebuild" in outcome.message, outcome
    report = await judged(shop, "total", SKIP, tests=["test_total"])
    (outcome,) = report.outcomes
    assert outcome.status == "error" and "Skipped" in outcome.message, outcome


@pytest.mark.parametrize("tail", ["import os\nos._exit(0)\n", "while True:\n    pass\n",
                                  "def broken(:\n    pass\n", "raise ImportError('no')\n"],
                         ids=["exits", "hangs", "syntax-error", "raises"])
async def test_a_candidate_whose_import_exits_or_hangs_errs_every_test(shop, tail):
    body = "def total(prices):\n    return sum(prices) * RATE\n\n\n" + tail
    # The hang is cut by the import's limit (60 s by default; a short one here: the cut is
    # what is tested, not its length).
    fast = POLICY.model_copy(update={"per_test_timeout_s": 1.0, "import_timeout_s": 2.0})
    report = await judged(shop, "total", body, policy=fast)
    assert set(statuses(report).values()) == {"error"}, report.outcomes
    assert all("importing" in o.message for o in report.outcomes), report.outcomes
    if "while True" in tail:
        assert all("did not end within 2 s" in o.message for o in report.outcomes), \
            report.outcomes
