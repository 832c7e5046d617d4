"""The project context builder (issue 16) on small projects in tmp dirs: what is found, why,
what stays out, and the cache."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

from codeteam.project_context import build_project_context
from codeteam.pysource.functions import locate
from codeteam.task import Task


def project(root: Path, files: dict[str, str]) -> Path:
    (root / "setup.cfg").write_text("")
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return root


def context_of(root: Path, module: str, qualname: str, **options):
    path = root / module
    text = path.read_text()
    return build_project_context(text, locate(text, qualname), path=path, **options)


def test_a_revision_body_pulls_in_module_attributes_it_calls(tmp_path):
    root = project(tmp_path, {
        "calc/__init__.py": "",
        "calc/ops.py": '''
            def double(x: int) -> int:
                """Twice x."""
                return 2 * x


            def triple(x: int) -> int:
                """Three times x, written out at length so that it is not short.

                More words here.
                """
                y = x
                y = y + x
                y = y + x
                y = y + 0
                return y
        ''',
        "calc/main.py": '''
            from . import ops


            def six_times(x: int) -> int:
                """Six times x."""
                return ops.triple(ops.double(x))
        ''',
    })
    context = context_of(root, "calc/main.py", "six_times")
    found = {d.qualname: d for d in context.definitions}
    assert found["double"].reason == "used in the body" and found["double"].pulled_by == (
        "ops.double")
    # Short and called: its body is shown; the long one only as signature and summary.
    assert "return 2 * x" in found["double"].text
    assert "y = y + x" not in found["triple"].text
    assert "Three times x" in found["triple"].text
    assert [f.path for f in context.files] == ["calc/main.py", "calc/ops.py"]


def test_a_lone_module_leaves_out_stubs_and_the_target(tmp_path):
    source = textwrap.dedent('''
        import math


        def other(xs):
            """Return xs sorted.

            >>> other([2, 1])
            [1, 2]
            """


        def helper(x):
            return math.floor(x)


        def target(xs):
            """Floor of each x, with helper."""
            return [helper(x) for x in xs]
    ''')
    task = Task.from_source(source, "target")
    text = "\n".join(f.text for f in task.project_context.files)
    assert "import math" in text and "def helper(x):\n    return math.floor(x)" in text
    assert "other" not in text  # a stub still to be written
    assert "[helper(x) for x in xs]" not in text  # the target itself
    assert task.project_context.path is None and task.project_context.files[0].path == ""


def test_results_are_cached_until_an_imported_file_changes(tmp_path):
    root = project(tmp_path, {
        "p/__init__.py": "",
        "p/a.py": 'def helper() -> int:\n    """One."""\n    return 1\n',
        "p/b.py": 'from .a import helper\n\n\ndef use() -> int:\n    """helper() + 1."""\n',
    })
    first = context_of(root, "p/b.py", "use")
    again = context_of(root, "p/b.py", "use")
    assert again == first and "One." in first.files[1].text
    helper = root / "p/a.py"
    helper.write_text('def helper() -> int:\n    """Uno."""\n    return 1\n')
    stat = helper.stat()
    os.utime(helper, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    changed = context_of(root, "p/b.py", "use")
    assert "Uno." in changed.files[1].text


def test_a_base_class_in_another_module_and_self_calls(tmp_path):
    root = project(tmp_path, {
        "z/__init__.py": "",
        "z/base.py": '''
            class Store:
                """Keeps values by key."""

                def load(self, key: str) -> bytes:
                    """The stored bytes of key."""
                    raise KeyError(key)
        ''',
        "z/cache.py": '''
            from z.base import Store


            class Cache(Store):
                def get(self, key: str) -> bytes:
                    """self.load(key), remembered."""
        ''',
    })
    context = context_of(root, "z/cache.py", "Cache.get")
    found = {d.qualname: d for d in context.definitions}
    assert found["Cache"].reason == "its own class"
    assert found["Store"].reason == "a base class of Cache"
    assert "def load(self, key: str) -> bytes:" in found["Store"].text
    assert "def get" not in found["Cache"].text


def test_the_project_root_is_found_from_the_file(tmp_path):
    root = project(tmp_path, {
        "src/pk/__init__.py": "",
        "src/pk/a.py": "def f(x):\n    return x\n",
        "src/pk/b.py": 'from pk.a import f\n\n\ndef g(x):\n    """f(x) twice."""\n',
    })
    context = context_of(root, "src/pk/b.py", "g")
    assert context.root == str(root.resolve()) and context.path == "src/pk/b.py"
    assert [d.path for d in context.definitions] == ["src/pk/a.py"]


STORE = '''
    import threading
    from pathlib import Path

    DEFAULT_MODE = "r+"
    UNRELATED_LIMIT = 99


    class Store:
        """Documents kept in one JSON file."""

        VERSION = 2

        def __init__(self, path: str, cache_size: int = 10) -> None:
            self._path = Path(path)
            self._lock = threading.Lock()
            self._query_cache: dict[str, list] = {}
            self.size, self.count = cache_size, 0

        def open(self):
            self._handle = open(self._path, DEFAULT_MODE)
            return self._handle

        def close(self) -> None:
            with self._lock:
                self._handle.close()

        def flush(self) -> None:
            """Write the cached documents to the file, under the lock."""
'''


def test_a_method_sees_the_attributes_its_class_assigns_and_the_constants_it_reads(tmp_path):
    root = project(tmp_path, {"store.py": STORE})
    context = context_of(root, "store.py", "Store.flush")
    [own] = [f for f in context.files if f.own]
    # Every instance attribute a method assigns, with its value (or annotation) and where.
    assert ("    # instance attributes:\n"
            "    #   self._path = Path(path)  (__init__)\n"
            "    #   self._lock = threading.Lock()  (__init__)\n"
            "    #   self._query_cache: dict[str, list]  (__init__)\n"
            "    #   self.size = ...  (__init__)\n"
            "    #   self.count = ...  (__init__)\n"
            "    #   self._handle = open(self._path, DEFAULT_MODE)  (open)\n") in own.text
    assert "    VERSION = 2" in own.text  # the class's constants
    # The module constant its class's methods read is pulled in, by name, with the reason.
    found = {d.qualname: d for d in context.definitions}
    assert found["DEFAULT_MODE"].reason == "read by the methods of Store"
    assert found["DEFAULT_MODE"].pulled_by == "DEFAULT_MODE"
    assert "DEFAULT_MODE = 'r+'" in own.text


def _helpers(count: int, docstring: str) -> str:
    return "".join(
        f"def helper_{i}(value: int, other: int = {i}) -> int:\n"
        f'    """Helper {i}: {docstring}"""\n'
        "    return value + other\n\n\n" for i in range(count))


def test_the_constants_a_class_reads_stay_when_the_budget_is_tight(tmp_path):
    uses = "".join(f"    helper_{i}(helper_{i}(1))\n" for i in range(40))
    text = (textwrap.dedent(STORE).lstrip("\n") + "\n\n"
            + _helpers(40, "a docstring long enough to cost something in a prompt, and more.")
            + "def main():\n" + uses)
    root = project(tmp_path, {"store.py": text})
    context = context_of(root, "store.py", "Store.flush", budget=250)
    names = {d.qualname for d in context.definitions}
    assert {"DEFAULT_MODE", "Store", "Store.open", "Store.close", "Store.__init__"} <= names
    assert context.left_out and all(not item.qualname.startswith("Store")
                                    for item in context.left_out)


def test_a_method_of_a_container_class_sees_its_class_whatever_its_size(tmp_path):
    """The class's members come before the module's much-used helpers (up to a share of the
    budget), though the module never calls them; what does not fit is named (the prompt's
    "Not shown, for space"); a class with many fields still shows its header first."""
    methods = "".join(f"    def method_{i}(self):\n        return {i}\n\n" for i in range(10))
    fields = "".join(f"    FIELD_{i} = {i}\n" for i in range(60))
    uses = "".join(f"    helper_{i}(helper_{i}(helper_{i}(1)))\n" for i in range(40))
    text = ("class Container:\n    \"\"\"A mapping with a limit.\"\"\"\n\n" + fields
            + "\n    def __init__(self, limit):\n        self._data = {}\n"
            "        self._limit = limit\n\n" + methods
            + "    def __getitem__(self, key):\n"
            '        """The value of key; KeyError when it is missing."""\n\n\n'
            + _helpers(40, "used all over the module, with a long docstring that takes room.")
            + "def main():\n" + uses)
    root = project(tmp_path, {"container.py": text})
    context = context_of(root, "container.py", "Container.__getitem__", budget=450)
    names = {d.qualname for d in context.definitions}
    assert {f"Container.method_{i}" for i in range(10)} <= names
    assert {"Container", "Container.__init__"} <= names
    [own] = [f for f in context.files if f.own]
    assert own.text.startswith("class Container:\n")
    assert "_data" in own.text and "_limit" in own.text
    # The helpers pay for it: those left out are named.
    assert context.left_out and {item.qualname for item in context.left_out} <= {
        f"helper_{i}" for i in range(40)} | {"main"}
    assert context.left_out_names.startswith("helper_")
    assert context.tokens <= 450


def test_a_tasks_context_is_read_in_its_projects_root_and_a_stub_alone(tmp_path):
    from codeteam.project import project_for
    from codeteam.project_context import project_context_for

    outer = project(tmp_path, {
        "shared/units.py": 'METRE = 1.0\n"""One metre."""\n',
        "app/setup.cfg": "",
        "app/calc.py": '''
            from shared.units import METRE


            def length(x: float) -> float:
                """x metres."""
                return x * METRE
            ''',
    })
    path = outer / "app" / "calc.py"
    text = path.read_text()
    info = locate(text, "length")
    chosen = project_for(path, outer)  # the workspace chosen as the project: the outer folder
    assert not chosen.lone and Path(chosen.root) == outer
    context = project_context_for(text, info, path=path, project=chosen)
    assert Path(context.root or "") == outer  # not app/, the nearest folder with a setup.cfg
    assert Path(build_project_context(text, info, path=path).root or "") == outer / "app"
    assert project_context_for(text, info).root is None  # no path: no project is read
