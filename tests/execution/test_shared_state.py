"""State the code under test changes in its own process (a module's registry, cache or counter,
a class attribute, another module of the project) is what the test then reads, as under plain
pytest: the judge's view is made the same after each call (break24: before, correct code
failed ``assert 5 in REGISTRY`` and code that filled a cache the test checks empty passed)."""

from __future__ import annotations

import pytest
from test_one_judge import by_name, make, review

pytestmark = pytest.mark.sandbox

PROJECT = {
    "pyproject.toml": """\
        [project]
        name = "lab"
        version = "0"

        [tool.pytest.ini_options]
        testpaths = ["tests"]
        """,
    "lab/__init__.py": "",
    "lab/other.py": "SEEN = []\n",
    "lab/core.py": '''\
        from lab import other

        REGISTRY = []
        CACHE = {}
        LAST = None


        class Counter:
            made = 0


        def register(x):
            """Add x to REGISTRY, count it, note it in other.SEEN; the number registered."""
            global LAST
            REGISTRY.append(x)
            Counter.made += 1
            other.SEEN.append(x)
            LAST = x
            return len(REGISTRY)
        ''',
    "tests/conftest.py": '''\
        import pytest

        from lab import core, other


        @pytest.fixture(autouse=True)
        def empty():
            yield
            core.REGISTRY.clear()
            other.SEEN.clear()
        ''',
    "tests/test_core.py": '''\
        from lab import core, other
        from lab.core import CACHE, REGISTRY, Counter, register


        def test_a_register():
            before = Counter.made
            assert register(5) == 1
            assert 5 in REGISTRY
            assert Counter.made == before + 1
            assert other.SEEN == [5]
            assert core.LAST == 5


        def test_b_register_again():
            assert register(6) == 1
            assert REGISTRY == [6]


        def test_c_no_cache():
            register(7)
            assert CACHE == {}
        ''',
}

POLLUTER = '''\
def register(x):
    global LAST
    REGISTRY.append(x)
    Counter.made += 1
    other.SEEN.append(x)
    LAST = x
    CACHE["seen"] = x
    return len(REGISTRY)
'''


async def test_what_the_code_changes_is_what_the_test_reads(tmp_path):
    root = make(tmp_path / "lab", PROJECT)
    _, right = await review(root, "lab/core.py", "register")
    assert {name: o.status for name, o in by_name(right).items()} == {
        "test_a_register": "passed", "test_b_register_again": "passed",
        "test_c_no_cache": "passed"}, right.outcomes
    _, wrong = await review(root, "lab/core.py", "register", POLLUTER)
    assert {name: o.status for name, o in by_name(wrong).items()} == {
        "test_a_register": "passed", "test_b_register_again": "passed",
        "test_c_no_cache": "failed"}, wrong.outcomes


ENVIRONMENT = {
    "pyproject.toml": PROJECT["pyproject.toml"],
    "lab/__init__.py": "",
    "lab/config.py": '''\
        import os


        def configure(mode):
            """Set LAB_MODE to mode (for the programs this process starts); mode back."""
            os.environ["LAB_MODE"] = mode
            return mode
        ''',
    "tests/test_config.py": '''\
        import os

        from lab.config import configure


        def test_configure(monkeypatch):
            monkeypatch.delenv("LAB_MODE", raising=False)
            assert configure("fast") == "fast"
            assert os.environ["LAB_MODE"] == "fast"
        ''',
}

PRELOADER = '''\
def configure(mode):
    import os
    os.environ["LAB_MODE"] = mode
    os.environ["LD_PRELOAD"] = "/tmp/forge.so"
    return mode
'''


async def test_environment_variables_the_code_sets_are_the_tests_too(tmp_path):
    """break24: before, ``os.environ["LAB_MODE"]`` set by correct code was not there for the
    test (failed); one that would make the test's own programs load the code's files
    (``LD_PRELOAD``) is not taken over: not judged, never passed."""
    root = make(tmp_path / "lab", ENVIRONMENT)
    _, right = await review(root, "lab/config.py", "configure")
    assert [o.status for o in right.outcomes] == ["passed"], right.outcomes
    _, wrong = await review(root, "lab/config.py", "configure", PRELOADER)
    (outcome,) = wrong.outcomes
    assert outcome.status == "not judged" and "LD_PRELOAD" in outcome.message, outcome
