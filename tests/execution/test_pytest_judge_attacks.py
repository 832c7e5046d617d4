"""Attacks on the judged pytest runs (issue 13, item 1): generated code, or a subject that
speaks the protocol itself, trying to make a failing test pass, skip or disappear. Each test
asserts the real outcome; an attack that succeeds is marked ``xfail(strict=True)`` with the
defect in one line, so it turns red once fixed. Codec attacks decode crafted frames with the
judge's own codec (no sandbox); the others run real pytest in the real sandbox on a small
package built in a tmp dir (as tests/execution/test_pytest_judge.py)."""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

import pytest

from codeteam.execution import pytest_subject as subject
from codeteam.execution.judge_view import judge_view
from codeteam.execution.outcomes import TestCase
from codeteam.execution.pytest_run import read_events, target_for
from codeteam.execution.sandbox import SandboxPolicy
from codeteam.execution.suite import run_suite
from codeteam.project import project_for
from codeteam.pysource.functions import locate
from codeteam.task import Task

POLICY = SandboxPolicy(mode="bwrap", timeout_s=40, per_test_timeout_s=5)


# ------------------------------------------------------------------------------------------
# Frames a subject can write: the judge's codec decoding them


def text(value: str) -> bytes:
    data = value.encode()
    return b"%d:" % len(data) + data


def ref(module: str, qualname: str) -> bytes:
    return text(module) + text(qualname)


def handle(number: int = 1) -> bytes:
    return b"Hc%d;" % number + text("x") + b"d0:"


def judge_codec() -> subject.Codec:
    return subject.Codec(True, None)


def test_deep_nesting_is_refused_not_a_recursion_error():
    with pytest.raises(ValueError):
        judge_codec().loads(b"l1:" * 100_000 + b"N")


def test_huge_counts_and_sizes_are_refused():
    for frame in (b"l99999999999:", b"s99999999999:x", b"b99999999999:x", b"d-1:"):
        with pytest.raises(ValueError):
            judge_codec().loads(frame)


def test_a_handle_id_never_given_is_refused():
    with pytest.raises(ValueError, match="unknown handle"):
        judge_codec().loads(b"Y7;")
    with pytest.raises(ValueError, match="unknown object"):
        judge_codec().loads(b"W3;N")


def test_tags_out_of_place_are_refused():
    for frame in (b"q", b"P" + ref("builtins", "len") + b"N", b"Hz1;" + text("x") + b"N",
                  b"t1:", b"i;", b"v" + text("socket") + b"t0:"):
        with pytest.raises((ValueError, IndexError)):
            judge_codec().loads(frame)


class _Side:
    def __init__(self, side):
        self.side = side


NAMED_LIKE_A_COMBINATION = __import__("enum").Flag(
    "NAMED_LIKE_A_COMBINATION", [("A", 1), ("B", 2), ("A|B", 4)])
"""A Flag whose member "A|B" (the functional API allows the name) is 4, not A | B (3)."""


def test_a_flag_combination_never_crosses_as_the_member_named_like_it():
    """The code's ``A | B`` crossed by the name ``"A|B"``, which the judge took for the
    member of that name: wrong code returning 3 passed ``== NAMED_LIKE_A_COMBINATION(4)``."""
    flag = NAMED_LIKE_A_COMBINATION
    judge, code = subject.Codec(True, _Side("judge")), subject.Codec(False, _Side("subject"))
    for value in (flag.A, flag.B, flag["A|B"], flag(0)):
        assert judge.loads(code.dumps(value)) is value, value
    for value in (flag.A | flag.B, flag.B | flag["A|B"]):
        with pytest.raises(subject.CannotCross, match="another member"):
            code.dumps(value)


def zone(name: str, *args: bytes) -> bytes:
    """A time zone value ``name`` with the encoded ``args``, as a subject could write it."""
    return b"v" + text(name) + b"t%d:" % len(args) + b"".join(args)


@pytest.mark.parametrize("frame", [
    zone("ZoneInfo", b"s" + text("../../../etc/passwd")),
    zone("ZoneInfo", b"s" + text("/usr/share/zoneinfo/UTC")),
    zone("ZoneInfo", b"s" + text("")), zone("ZoneInfo", b"i3;"), zone("ZoneInfo"),
    zone("tzfile", b"s" + text("/etc/localtime")), zone("tzfile", b"s" + text(":UTC")),
    zone("tzfile", b"s" + text("US/../../../../etc/passwd")),
    zone("tzfile", b"s" + text("a\x00b")),
    zone("tzutc", b"N"), zone("tzoffset", b"s" + text("X"), b"i86400;"),
    zone("tzoffset", b"i1;", b"i60;"), zone("tzstr", b"s" + text("EST5" * 100), b"F"),
    zone("tzstr", b"s" + text("EST5"), b"N"), zone("tzlocal", b"i0;", b"i0;"),
])
def test_a_time_zone_of_a_crafted_name_or_shape_is_refused(frame):
    """Time zones are made again from plain data by their library: never from a path outside
    its search path, the local zone by an empty name, nor from arguments of another shape."""
    pytest.importorskip("dateutil.tz")
    with pytest.raises(ValueError, match="bad"):
        judge_codec().loads(frame)


def test_a_time_zone_the_judge_cannot_make_is_not_judged(monkeypatch):
    """A key the judge's library does not know, a ``gettz`` name that is no file of the tz
    database (a ``TZ`` string), another local time zone than the judge's, or dateutil not
    imported in the judge (which never imports it): not judged, never a value of another
    kind."""
    pytest.importorskip("dateutil.tz")
    for frame in (zone("ZoneInfo", b"s" + text("Nowhere/Atlantis")),
                  zone("tzfile", b"s" + text("AAA3")),
                  zone("tzlocal", b"f12345.0;", b"f12345.0;", b"l2:s" + text("X") + b"s"
                       + text("Y"))):
        with pytest.raises(subject.Unjudgeable):
            judge_codec().loads(frame)
    for name in [name for name in sys.modules if name.startswith("dateutil")]:
        monkeypatch.delitem(sys.modules, name)
    with pytest.raises(subject.Unjudgeable, match="not a library imported here"):
        judge_codec().loads(zone("tzutc"))
    assert "dateutil.tz" not in sys.modules


@pytest.mark.parametrize("module, qualname", [
    ("_pytest.outcomes", "Skipped"), ("pytest", "skip"), ("pluggy", "HookimplMarker"),
    ("unittest.mock", "ANY"), ("builtins", "__import__"), ("sys", "modules"),
    ("codeteam.execution.pytest_subject", "JudgeClient"), ("os", "_exit"),
])
def test_pytest_and_private_names_are_refused(module, qualname):
    for tag in (b"R", b"O"):
        frame = tag + ref(module, qualname) + (b"0:0:" if tag == b"O" else b"")
        with pytest.raises((subject.Unjudgeable, ValueError)):
            judge_codec().loads(frame)


def test_a_pytest_outcome_class_through_a_module_that_imported_pytest_is_refused():
    """pytest's outcome classes say ``__module__ = 'builtins'``: reached through any module
    that imported pytest (``m.pytest.skip.Exception``) they were resolved before 44cb83e."""
    here = __name__  # this module imported pytest, like every test module and conftest.py
    with pytest.raises(subject.Unjudgeable):
        judge_codec().loads(b"R" + ref(here, "pytest.skip.Exception"))


def test_a_pytest_outcome_instance_is_not_raised_as_such():
    here = __name__
    fake = pytest.skip.Exception("no")  # had it been rebuilt (see above)
    client = subject.JudgeClient({}, lambda m: None, TimeoutError, lambda: None)
    for reply in ({"kind": "raised", "exc": fake, "bases": [[here, "pytest.skip.Exception"]]},
                  {"kind": "raised", "bases": [["unittest", "SkipTest"]], "type": "SkipTest"},
                  {"kind": "raised", "bases": [[here, "pytest.fail.Exception"]]}):
        assert isinstance(client.rebuilt(reply), subject.JudgeError), reply


def test_state_cannot_set_class_or_dict():
    for key in ("__class__", "__dict__", "__slots__"):
        frame = b"O" + ref("argparse", "Namespace") + b"1:" + text(key) + b"N0:"
        with pytest.raises(ValueError):
            judge_codec().loads(frame)


DANGEROUS = [("builtins", "exec"), ("builtins", "eval"), ("builtins", "compile"),
             ("builtins", "open"), ("builtins", "getattr"), ("builtins", "setattr"),
             ("os", "system"), ("os", "execv"), ("subprocess", "call"), ("timeit", "timeit")]


@pytest.mark.parametrize("module, qualname", [
    *DANGEROUS, ("subprocess", "Popen"), ("doctest", "run_docstring_examples"),
    ("codecs", "open"), ("pkgutil", "resolve_name"), ("functools", "partial"),
])
def test_a_reference_to_a_dangerous_function_is_refused(module, qualname):
    """Before 44cb83e every one of these was resolved and handed to the test."""
    import importlib

    importlib.import_module(module)  # loaded in the judge too (pytest, or the subject's start)
    frame = b"P" + ref(module, qualname) + handle()
    decoded = judge_codec().loads(frame)
    assert decoded is not getattr(sys.modules[module], qualname)


def test_a_partial_of_exec_is_refused():
    """Before 44cb83e, functools.partial(exec, code) was rebuilt in the judge."""
    frame = (b"v" + text("partial") + b"t3:P" + ref("builtins", "exec") + handle()
             + b"t1:s" + text("ran = 1") + b"d0:")
    space: dict = {}
    try:
        made = judge_codec().loads(frame)
    except (ValueError, subject.Unjudgeable):
        return
    made(space)  # what a test calling the returned callable with one argument does
    assert "ran" not in space


@pytest.fixture
def probe():
    """A public function of a module loaded in the judge; the list of its calls."""
    import types

    calls: list = []
    module = types.ModuleType("codeteam_attack_probe")
    module.record = lambda *args: calls.append(args)
    module.record.__module__, module.record.__qualname__ = module.__name__, "record"
    sys.modules[module.__name__] = module
    yield calls
    del sys.modules[module.__name__]


def probe_namespace(attribute: str) -> bytes:
    return (b"O" + ref("argparse", "Namespace") + b"1:" + text(attribute)
            + b"P" + ref("codeteam_attack_probe", "record") + handle() + b"0:")


def test_an_object_of_an_arbitrary_library_class_is_refused(probe):
    frame = (b"O" + ref("threading", "Thread") + b"2:" + text("_initialized") + b"T"
             + text("_started") + probe_namespace("is_set") + b"0:")
    try:
        made = judge_codec().loads(frame)
    except (ValueError, subject.Unjudgeable):
        return
    try:
        repr(made)  # pytest's report of a failing `assert value == expected`
    except Exception:  # noqa: BLE001, S110 - what the callee returned does not matter
        pass
    assert probe == []


def test_a_module_global_that_is_a_module_does_not_cross():
    import os

    codec = judge_codec()
    codec.space = {"os": os, "_missing": object()}
    with pytest.raises((ValueError, subject.Unjudgeable)):
        codec.loads(b"G" + text("os") + b"N")


# ------------------------------------------------------------------------------------------
# What the host reads: only the judge writes the results channel (the code under test runs in
# a process of its own, without it), and pytest reports a test once


def test_a_second_outcome_line_for_one_test_does_not_replace_the_first():
    heard = read_events('{"event": "outcome", "nodeid": "t::a", "outcome": "failed"}\n'
                        '{"event": "outcome", "nodeid": "t::a", "outcome": "passed"}\n'
                        '{"event": "done", "exitstatus": 1, "outcomes": 1}\n')
    assert heard.outcomes["t::a"]["outcome"] == "failed"


# ------------------------------------------------------------------------------------------
# The judge view built from the user's text


def test_a_second_def_of_the_same_name_in_the_candidate_changes_nothing_in_the_view():
    source = "def f(x):\n    '''Doc.'''\n    return x\n"
    view = judge_view(source, "f", 0)
    assert view is not None and "'__codeteam_forward__'" in view.text
    assert view.text.count("((x, ), {})") == 1


@pytest.mark.parametrize("source", [
    "def f(x):\r\n    '''Doc.'''\r\n    return x\r\n\r\n\r\ndef g():\r\n    return 1\r\n",
    # a form feed, U+2028 (\x1c, \x85, U+2029) in a string, CR endings: str.splitlines breaks
    # lines where ast does not (before: no view / a view without the docstring, old body kept)
    ("\x0c\ndef g():\n    return 1\n\x0c\ndef f(x):\n    '''Doc.'''\n    y = x\n    return y\n"
     "\x0c\ndef h():\n    return f(2)\n"),
    ("s = 'a \u2028 b'\n\n\ndef f(x):\n    '''Doc.'''\n    y = x\n    return y\n\n\n"
     "def h():\n    return 2\n"),
    ("s = 'a \x1c \x85 \u2029 b'\n\n\ndef f(x):\n    '''Doc.'''\n    y = x\n    return y\n\n\n"
     "def h():\n    return 2\n"),
    "def f(x):\r    '''Doc.'''\r    y = x\r    return y\r\r\rdef h():\r    return 6\r",
    "def f(x):\n    '''Doc \u2028 with a break.'''\n\n\ndef h():\n    return 7\n",
    ("s = 'caf\u00e9 \u00fc x'\n\n\ndef f(x):\n    '''D\u00e9j\u00e0.'''\n    return x\n\n\n"
    "def h():\n    return 2\n"),
    "def f(x):\n\t'''Doc.'''\n\tif x:\n\t\treturn 1\n\treturn 0\n\n\ndef h():\n\treturn 3\n",
    ("@staticmethod  # a comment\n# another\ndef f(x):\n    '''Doc.'''\n    return x\n\n\n"
    "def h():\n    return 4\n"),
    "def f(x):\n    return (x  # comment\n            + 1)\n\n\ndef h():\n    return 5\n",
])
def test_the_view_keeps_every_other_line_and_forwards(source):
    """Line endings other than "\\n" (CRLF, a form feed, U+2028 in a string), tabs, unicode,
    decorators with comments: the view parses, keeps the other functions, and f forwards."""
    import ast

    view = judge_view(source, "f", locate(source, "f").start_line)
    assert view is not None
    tree = ast.parse(view.text)
    names = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert set(names) >= {"f"} and ("h" in names or "g" in names)
    body = names["f"].body
    forwards = [n for n in ast.walk(names["f"]) if isinstance(n, ast.Constant)
                and n.value == "__codeteam_forward__"]  # (looked up in builtins)
    assert forwards and not any(isinstance(n, ast.If) for n in body)
    original = ast.parse(source)
    (before,) = [n for n in original.body if isinstance(n, ast.FunctionDef) and n.name == "f"]
    assert ast.get_docstring(names["f"]) == ast.get_docstring(before)  # doctests kept
    assert len(body) == (3 if ast.get_docstring(before) else 2)  # [doc], hide, the forward
    for node in original.body:  # every other function, unchanged, at the same line
        if isinstance(node, ast.FunctionDef) and node.name != "f":
            kept = names[node.name]
            assert (kept.lineno, ast.dump(kept)) == (node.lineno, ast.dump(node))


# ------------------------------------------------------------------------------------------
# End to end: real pytest in the real sandbox

LAB = '''\
import os

LIMIT = 10


def make(n):
    """A function returning n."""
    return lambda: n


def value(x):
    """x + 1."""
    return x + 1


def listing(n):
    """[0, ..., n-1]."""
    return list(range(n))


def apply(f, x):
    """f(x)."""
    return f(x)
'''

LAB_TESTS = '''\
from lab.core import apply, listing, make, value


def test_make():
    assert make(3)() == 3


def test_value():
    assert value(1) == 2


def test_value_two():
    assert value(2) == 3


def test_listing():
    assert listing(3) == [0, 1, 2]


def test_apply():
    assert apply(lambda v: v, 3) == 3


class Box:  # an object of the test file: it crosses by state (the subject imports the file)
    v = 3


def test_apply_box():
    assert apply(lambda box: box.v, Box()) == 3
'''


@pytest.fixture(scope="module")
def lab(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("attack")
    base.chmod(0o755)
    root = base / "lab"
    files = {"pyproject.toml": '[project]\nname = "lab"\nversion = "0"\n\n'
                               '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
             "lab/__init__.py": "", "lab/core.py": LAB, "tests/test_lab.py": LAB_TESTS}
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
    (root / ".git").mkdir()
    return root.resolve()


async def run(root: Path, qualname: str, function: str | None, tests: list[str]):
    path = root / "lab/core.py"
    source = path.read_text()
    info = locate(source, qualname)
    project = project_for(path)
    target = target_for(root, path, project.module, qualname, info.start_line, project.python,
                        extra_ro=project.read_only_paths(), hidden=project.hidden)
    task = Task.from_source(source, qualname)
    program = task.program_with(function) if function else task.program_with(task.stub)
    cases = [TestCase(id=f"tests/test_lab.py::{n}", kind="pytest", origin="public",
                      source=f"tests/test_lab.py::{n}") for n in tests]
    return await run_suite(program.model_copy(update={"pytest_target": target}), cases, POLICY)


def verdicts(report):
    return {o.test_id.split("::")[-1]: o.status for o in report.outcomes}


FORGE = '''\
import json, os, sys
judge = sys.modules["_codeteam_pytest_plugin"].PLUGIN
for nodeid in sorted(judge.keep or []):
    judge.send("start", nodeid=nodeid)
    judge.send("outcome", nodeid=nodeid, outcome="passed", when="call", duration=0.0, calls=1)
judge.send("done", exitstatus=0, outcomes=len(judge.keep or []))
os._exit(0)
'''


@pytest.mark.sandbox
async def test_the_honest_bodies_pass_and_a_wrong_one_fails(lab):
    report = await run(lab, "value", None, ["test_value", "test_value_two"])
    assert verdicts(report) == {"test_value": "passed", "test_value_two": "passed"}
    wrong = await run(lab, "value", "def value(x):\n    return None\n", ["test_value"])
    assert verdicts(wrong) == {"test_value": "failed"}


@pytest.mark.sandbox
async def test_a_returned_partial_of_exec_cannot_forge(lab):
    """Before 44cb83e: passed, trusted (the partial was rebuilt in pytest's process)."""
    body = ("def make(n):\n    import functools\n"
            f"    return functools.partial(exec, {FORGE!r})\n")
    report = await run(lab, "make", body, ["test_make"])
    assert verdicts(report)["test_make"] != "passed", report.outcomes


@pytest.mark.sandbox
async def test_a_value_whose_repr_runs_code_in_the_judge_cannot_forge(lab):
    """Before 44cb83e: passed, trusted (pytest's repr of the value ran partial(exec, ...))."""
    body = ("def value(x):\n    import argparse, functools, threading\n"
            "    t = threading.Thread.__new__(threading.Thread)\n"
            "    t.__dict__.update(_initialized=True, _started=argparse.Namespace(\n"
            f"        is_set=functools.partial(exec, {FORGE!r})))\n"
            "    return t\n")
    report = await run(lab, "value", body, ["test_value"])
    assert verdicts(report)["test_value"] != "passed", report.outcomes


PROC_WRITER = '''\
def value(x):
    import json, os
    line = "".join(json.dumps(e) + "\\n" for e in (
        {"event": "outcome", "nodeid": "tests/test_lab.py::test_value", "outcome": "passed"},
        {"event": "outcome", "nodeid": "tests/test_lab.py::test_value_two",
         "outcome": "passed"})).encode()
    mine = os.getpid()
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == mine:
            continue
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                w = os.open(f"/proc/{pid}/fd/{fd}", os.O_WRONLY | os.O_NONBLOCK)
            except OSError:
                continue
            try:
                os.write(w, line)
            except OSError:
                pass
            os.close(w)
    for fd in range(3, 256):
        try:
            os.write(fd, line)
        except OSError:
            pass
    return -1
'''


@pytest.mark.sandbox
async def test_writing_into_every_descriptor_in_proc_cannot_forge(lab):
    report = await run(lab, "value", PROC_WRITER, ["test_value", "test_value_two"])
    assert all(status != "passed" for status in verdicts(report).values()), report.outcomes


SIGNALS = '''\
def value(x):
    import os, signal
    parent = os.getppid()
    try:
        os.kill(parent, signal.{name})
    except OSError:  # refused (as root, the sandbox's init runs as another user)
        pass
    else:  # until it is delivered or dropped, or its target stopped or gone: no clock
        bit = 1 << (signal.{name} - 1)
        while True:
            try:
                with open(f"/proc/{{parent}}/status") as status:
                    fields = dict(line.split(":", 1) for line in status if ":" in line)
            except OSError:
                break
            pending = int(fields["SigPnd"], 16) | int(fields["ShdPnd"], 16)
            if (fields["State"].split()[0] in "TtZX" or not pending & bit
                    or int(fields["SigBlk"], 16) & bit):
                break
            os.sched_yield()
    return x + 1 if x == 2 else -1
'''


@pytest.mark.sandbox
@pytest.mark.parametrize("name", [
    # SIGINT: before, pytest re-raised KeyboardInterrupt before a call report, the plugin's
    # _outcome defaulted to passed and exit status 2 was accepted
    "SIGINT", "SIGQUIT", "SIGTSTP", "SIGHUP", "SIGALRM", "SIGTERM", "SIGUSR1", "SIGKILL"])
async def test_signalling_the_judge_does_not_pass_a_failing_test(lab, name):
    report = await run(lab, "value", SIGNALS.format(name=name), ["test_value", "test_value_two"])
    assert verdicts(report)["test_value"] != "passed", report.outcomes


FORK_LATER = '''\
def value(x):
    import os, time
    if os.fork() == 0:  # a child that outlives the call and answers the next one
        time.sleep(0.3)
        for fd in range(3, 64):
            try:
                os.write(fd, b"garbage")
            except OSError:
                pass
        os._exit(0)
    return -1
'''


@pytest.mark.sandbox
async def test_a_forked_child_that_acts_after_the_call_cannot_pass_a_test(lab):
    report = await run(lab, "value", FORK_LATER, ["test_value", "test_value_two"])
    assert all(status != "passed" for status in verdicts(report).values()), report.outcomes


PYCACHE = '''\
def listing(n):
    import os, sys
    here = os.path.dirname(os.path.abspath(sys.modules["lab.core"].__file__))
    evil = "import _pytest.reports as r\\n_i = r.TestReport.__init__\\n" \\
           "def _p(s, *a, **k):\\n    _i(s, *a, **k)\\n    s.outcome, s.longrepr = 'passed', None\\n" \\
           "r.TestReport.__init__ = _p\\n"
    for folder in (here, os.path.join(here, "__pycache__"), os.getcwd(), "/tmp",
                   os.path.join(os.getcwd(), "tests"), os.environ.get("CODETEAM_FILES_DIR", "")):
        for name in ("conftest.py", "sitecustomize.py", "usercustomize.py", "lab.pth"):
            try:
                with open(os.path.join(folder, name), "w") as handle:
                    handle.write(evil)
            except OSError:
                pass
    os.chdir("/")
    os.environ["PYTHONPATH"] = "/tmp"
    return []
'''


@pytest.mark.sandbox
async def test_files_written_where_the_judge_looks_cannot_forge(lab):
    report = await run(lab, "listing", PYCACHE, ["test_listing"])
    assert verdicts(report)["test_listing"] == "failed", report.outcomes


@pytest.mark.sandbox
async def test_a_flood_of_output_and_an_endless_iterator_do_not_pass(lab):
    flood = ("def listing(n):\n    import itertools, sys\n"
             "    for _ in range(200):\n        print('x' * 100_000)\n"
             "        sys.stderr.write('y' * 100_000)\n"
             "    return itertools.count()\n")
    report = await run(lab, "listing", flood, ["test_listing"])
    assert verdicts(report)["test_listing"] in ("failed", "error", "timeout"), report.outcomes


@pytest.mark.sandbox
async def test_raising_the_tests_own_assertion_or_a_skip_does_not_pass(lab):
    for body in ("def value(x):\n    raise AssertionError('fine')\n",
                 "def value(x):\n    import unittest\n    raise unittest.SkipTest('later')\n",
                 "def value(x):\n    import pytest\n    pytest.skip('later')\n",
                 "def value(x):\n    import pytest\n    pytest.xfail('later')\n",
                 "def value(x):\n    raise SystemExit(0)\n",
                 "def value(x):\n    import os\n    os._exit(0)\n"):
        report = await run(lab, "value", body, ["test_value"])
        assert verdicts(report)["test_value"] in ("failed", "error"), (body, report.outcomes)


FORCED_FALLBACK = (
    "def apply(f, x):\n"
    "    import sys\n"
    "    if '_codeteam_pytest_plugin' in sys.modules:  # the judge's process: forge there\n"
    f"        exec({FORGE!r})\n"
    "    import iniconfig  # loaded in pytest's process, not in the subject's at its start\n"
    "    return f(object.__new__(iniconfig.IniConfig))  # the callback's answer cannot cross\n")


@pytest.mark.sandbox
async def test_an_object_of_a_class_of_the_test_file_crosses_and_is_judged(lab):
    """Before: a ``Box`` of the test file could not cross, the test ran in one process and
    its pass was not judged (issue 24, item 4c)."""
    report = await run(lab, "apply", "def apply(f, x):\n    return -1\n", ["test_apply_box"])
    assert verdicts(report) == {"test_apply_box": "failed"}, report.outcomes
    report = await run(lab, "apply", None, ["test_apply_box"])
    assert verdicts(report) == {"test_apply_box": "passed"}, report.outcomes


@pytest.mark.sandbox
async def test_a_value_the_code_makes_uncrossable_is_not_a_pass(lab):
    """A library's object the code sends back through the test's callback: the judge does
    not rebuild it (not judged, never passed); the forge meant for one process never runs."""
    report = await run(lab, "apply", FORCED_FALLBACK, ["test_apply"])
    (outcome,) = report.outcomes
    assert outcome.status in ("failed", "error", "not judged"), report.outcomes
    assert "iniconfig" in outcome.message or outcome.status != "not judged", outcome


def test_a_sentinel_global_of_a_local_class_crosses_by_name():
    def make_sentinel():
        class Sentinel:
            def __bool__(self):
                return False

        return Sentinel()

    unset = make_sentinel()
    codec = judge_codec()
    codec.remember_globals({"_UNSET": unset})
    frame = codec.dumps({"kind": "call", "args": [[1, 2], unset]})
    other = judge_codec()
    other.space = {"_UNSET": unset}
    assert other.loads(frame)["args"][1] is unset


# ------------------------------------------------------------------------------------------
# A real project: boltons (pip download --no-binary :all: --no-deps boltons into
# /tmp/attack-projects, a .venv there with pytest); skipped when it is not there.

BOLTONS = sorted(Path("/tmp/attack-projects").glob("boltons-*/pyproject.toml"))
REAL = [("boltons/iterutils.py", "first"), ("boltons/iterutils.py", "chunked"),
        ("boltons/iterutils.py", "remap"), ("boltons/strutils.py", "bytes2human"),
        ("boltons/iterutils.py", "backoff"), ("boltons/strutils.py", "strip_ansi"),
        ("boltons/iterutils.py", "windowed")]


def _return_none(source: str, qualname: str) -> str:
    import ast

    node = next(n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.FunctionDef)
            and n.name == qualname)
    first = node.body[1] if ast.get_docstring(node) and len(node.body) > 1 else node.body[0]
    lines = source.splitlines(True)
    return ("".join(lines[: first.lineno - 1]) + " " * first.col_offset + "return None\n"
            + "".join(lines[node.end_lineno:]))


@pytest.mark.sandbox
@pytest.mark.skipif(not BOLTONS or not (BOLTONS[-1].parent / ".venv/bin/pytest").exists(),
                    reason="boltons not downloaded into /tmp/attack-projects (with a .venv)")
@pytest.mark.parametrize("file, qualname", REAL)
async def test_a_real_projects_functions_keep_their_verdicts_judged(file, qualname):
    from codeteam.execution.pytest_run import select_tests, selection_cases

    root = BOLTONS[-1].parent.resolve()
    path = root / file
    source = path.read_text()
    info = locate(source, qualname)
    project = project_for(path)
    target = target_for(root, path, project.module, qualname, info.start_line, project.python,
                        extra_ro=project.read_only_paths(), hidden=project.hidden)
    policy = POLICY.model_copy(update={"timeout_s": 120})
    selection = await select_tests(target, source, policy)
    cases = [c for c in selection_cases(selection) if c.skip_reason is None]
    assert cases, selection
    target = target.model_copy(update={"rootdir": selection.rootdir})
    task = Task.from_source(source, qualname)
    kept = await run_suite(task.program_with(task.stub).model_copy(
        update={"pytest_target": target}), cases, policy)
    assert {o.status for o in kept.outcomes} == {"passed"}, [
        (o.test_id, o.status, o.message) for o in kept.outcomes if o.status != "passed"]
    wrong_text = _return_none(source, qualname)
    wrong = await run_suite(task.program_of(wrong_text, task.start_line, task.end_line
                                            - task.start_line + 1).model_copy(
        update={"pytest_target": target}), cases, policy)
    assert any(o.status in ("failed", "error") for o in wrong.outcomes), wrong.outcomes


# ------------------------------------------------------------------------------------------
# The candidate's text: what the judge calls is not what the module exports

SHADOWED = '''\
def value(x):
    return x + 1


def value(x):  # the module's `value` is this one: what the file will hold
    return -1
'''

REBOUND = '''\
def value(x):
    return x + 1


value = lambda x: -1  # noqa: E731
'''


KEPT_ALIVE = '''\
def value(x):
    return x + 1


_registry = [value]


def value(x):  # the module's `value`
    return -1
'''


WRAPPED_BACK = KEPT_ALIVE + "\n\nvalue.__wrapped__ = _registry[0]  # 'unwrap me to the first'\n"


@pytest.mark.sandbox
@pytest.mark.parametrize("body", [
    SHADOWED, REBOUND, KEPT_ALIVE, WRAPPED_BACK,
], ids=["second-def", "rebinding", "first-kept-alive", "wrapped-points-back"])
async def test_a_later_rebinding_of_the_name_is_what_is_judged(lab, body):
    report = await run(lab, "value", body, ["test_value"])
    assert verdicts(report)["test_value"] == "failed", report.outcomes


PTRACE = '''\
def value(x):
    import ctypes, os
    parent = os.getppid()
    got = []
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.ptrace(16, parent, 0, 0) == 0:  # PTRACE_ATTACH
        got.append("ptrace")
    for name in ("mem", "environ", "fd"):
        try:
            if name == "fd":
                os.listdir(f"/proc/{parent}/fd")
            else:
                open(f"/proc/{parent}/{name}", "rb").close()
            got.append(name)
        except OSError:
            pass
    return "reached: " + ",".join(got)
'''


@pytest.mark.sandbox
async def test_the_judge_cannot_be_traced_or_read_through_proc(lab):
    report = await run(lab, "value", PTRACE, ["test_value"])
    (outcome,) = report.outcomes
    assert outcome.status == "failed", outcome
    assert outcome.actual == "'reached: '", outcome.actual


# ------------------------------------------------------------------------------------------
# Code run while the judge decodes: a dict key's __hash__ on code-chosen state


def _exec_namespace(attribute: str, payload: str) -> bytes:
    return (b"O" + ref("argparse", "Namespace") + b"1:" + text(attribute)
            + b"v" + text("partial") + b"t3:P" + ref("builtins", "exec") + handle()
            + b"t1:s" + text(payload) + b"d0:" + b"0:")


def test_decoding_a_value_runs_no_code_of_the_subjects_choice():
    """Before 44cb83e: partial(exec, text) as the callee, the text ran in the judge."""
    payload = "import builtins; builtins._codeteam_attack_ran = True"
    key = (b"O" + ref("inspect", "Signature") + b"0:" + b"1:" + text("_parameters")
           + _exec_namespace("values", payload))
    try:
        try:
            judge_codec().loads(b"d1:" + key + b"N")
        except (ValueError, subject.Unjudgeable):
            pass
        assert not getattr(__import__("builtins"), "_codeteam_attack_ran", False)
    finally:
        vars(__import__("builtins")).pop("_codeteam_attack_ran", None)


def test_decoding_calls_no_judge_function_of_the_subjects_choice(probe):
    key = (b"O" + ref("inspect", "Signature") + b"0:" + b"1:" + text("_parameters")
           + probe_namespace("values"))
    try:
        judge_codec().loads(b"d1:" + key + b"N")
    except (ValueError, TypeError, subject.Unjudgeable):
        pass
    assert probe == []


HASHED = '''\
def value(x):
    import argparse, functools, inspect
    signature = inspect.Signature()
    answer = {signature: 1}  # hashed here, before its state is set
    object.__setattr__(signature, "_return_annotation", None)  # inspect._empty cannot cross
    object.__setattr__(signature, "_parameters", argparse.Namespace(
        values=functools.partial(exec, PAYLOAD)))
    return answer
'''


@pytest.mark.sandbox
async def test_a_value_that_runs_code_while_decoded_cannot_forge(lab):
    """Before 44cb83e: passed, trusted (the key's __hash__ ran partial(exec, ...) in decode)."""
    body = HASHED.replace("PAYLOAD", repr(FORGE))
    report = await run(lab, "value", body, ["test_value"])
    assert verdicts(report)["test_value"] != "passed", report.outcomes


# ------------------------------------------------------------------------------------------
# Correct code keeps its trust: a sentinel of a local class crosses by name (boltons' style)

SENTINEL_LAB = '''\
def make_sentinel():
    class Sentinel:
        def __repr__(self):
            return "_UNSET"

        def __bool__(self):
            return False

    return Sentinel()


_UNSET = make_sentinel()


def first(xs, default=_UNSET):
    """The first item, else default."""
    for x in xs:
        return x
    return default
'''

SENTINEL_TESTS = '''\
from lab.core import _UNSET, first


def test_first():
    assert first([], default=_UNSET) is _UNSET
    assert first([2]) == 2
'''


@pytest.fixture(scope="module")
def sentinel_lab(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("sentinel")
    base.chmod(0o755)
    root = base / "lab"
    files = {"pyproject.toml": '[project]\nname = "lab"\nversion = "0"\n\n'
                               '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
             "lab/__init__.py": "", "lab/core.py": SENTINEL_LAB,
             "tests/test_lab.py": SENTINEL_TESTS}
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
    (root / ".git").mkdir()
    return root.resolve()


@pytest.mark.sandbox
async def test_a_sentinel_of_a_local_class_keeps_the_test_judged(sentinel_lab):
    """Before fix-13b the sentinel's value followed its name: it could not cross, the test ran
    the old way (untrusted)."""
    report = await run(sentinel_lab, "first", None, ["test_first"])
    assert verdicts(report) == {"test_first": "passed"}, report.outcomes
    wrong = ("def first(xs, default=_UNSET):\n    for x in xs:\n        return x\n"
             "    return None\n")
    report = await run(sentinel_lab, "first", wrong, ["test_first"])
    assert verdicts(report) == {"test_first": "failed"}, report.outcomes


# ------------------------------------------------------------------------------------------
# Breaker 4 (issue 24, the newest paths): warnings re-issued in the judge, the subject's
# scheduling group. Small projects reviewed end to end, as tests/execution/test_one_judge.py.

# A project that runs its tests with ``filterwarnings = error`` (a common setup) and a test
# that wants an exception for bad input. The subject records every warning of a call
# (``simplefilter("always")``) and the judge issues them again after the reply is read, where
# pytest's "error" filter turns one into an exception raised out of the call.
WARNED = {
    "pyproject.toml": """\
        [project]
        name = "conv"
        version = "0"

        [tool.pytest.ini_options]
        filterwarnings = ["error"]
        """,
    "conv/__init__.py": "",
    "conv/core.py": '''\
        def parse_port(text):
            """The TCP port in ``text``; ValueError when it is not one (1-65535)."""
            port = int(text)
            if not 1 <= port <= 65535:
                raise ValueError(text)
            return port
        ''',
    "tests/test_core.py": '''\
        import pytest

        from conv.core import parse_port


        def test_rejects_garbage():
            with pytest.raises(Exception):
                parse_port("not a port")
        ''',
}

# The code warns and swallows its own warning: under plain pytest the "error" filter raises
# inside the code, which catches it, returns 0, and the test fails (DID NOT RAISE).
SWALLOWED = '''\
def parse_port(text):
    import warnings
    try:
        warnings.warn("swallowed")
    except Warning:
        pass
    return 0
'''

# The same warning, then an endless loop: plain pytest never ends; the subject's watchdog
# cuts the call and replies "timeout", but the judge issues the recorded warning first.
SPINNING = SWALLOWED.replace("    return 0\n", "    while True:\n        pass\n")

# Or a value that cannot cross (codeteam's own "not judged", never an exception a test can
# catch).
UNCROSSABLE = SWALLOWED.replace("    return 0\n", "    import optparse\n"
                                "    return optparse.Values()\n")


async def test_the_honest_parser_passes_under_filterwarnings_error(tmp_path):
    from test_one_judge import make, review

    root = make(tmp_path / "conv", WARNED)
    _, run = await review(root, "conv/core.py", "parse_port")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes


async def test_a_swallowed_warning_is_not_an_exception_of_the_call(tmp_path):
    from test_one_judge import make, review

    root = make(tmp_path / "conv", WARNED)
    _, run = await review(root, "conv/core.py", "parse_port", SWALLOWED)
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


async def test_a_warning_does_not_replace_the_timeout_of_a_spinning_body(tmp_path):
    from test_one_judge import SPIN_POLICY, make, review

    root = make(tmp_path / "conv", WARNED)
    _, run = await review(root, "conv/core.py", "parse_port", SPINNING, policy=SPIN_POLICY)
    [outcome] = run.outcomes  # (a machine too busy to give it its CPU seconds: not judged)
    assert outcome.status in ("timeout", "not judged"), run.outcomes


async def test_a_warning_beside_a_value_that_cannot_cross_is_not_a_pass(tmp_path):
    # (held: the subject's "uncrossable" reply carries no warnings)
    from test_one_judge import make, review

    root = make(tmp_path / "conv", WARNED)
    _, run = await review(root, "conv/core.py", "parse_port", UNCROSSABLE)
    assert [o.status for o in run.outcomes] == ["not judged"], run.outcomes


# sandbox_niceness: each bwrap sandbox's scheduling group (its session's autogroup) is set to
# the policy's niceness before its command starts. The code under test runs in the subject.
NICE = {
    "pyproject.toml": "[project]\nname = 'prio'\nversion = '0'\n",
    "prio/__init__.py": "",
    "prio/core.py": '''\
        def group():
            """This process's scheduling group, as /proc/self/autogroup says it."""
            with open("/proc/self/autogroup") as handle:
                return " ".join(handle.read().split()[1:])
        ''',
    "tests/test_core.py": '''\
        from prio.core import group


        def test_group():
            assert group() == "nice 7"
        ''',
}


async def _review_at_niceness(root, body=None):
    from codeteam.service.documents import task_for, with_project_tests

    path = root / "prio/core.py"
    policy = SandboxPolicy(mode="bwrap", timeout_s=30, per_test_timeout_s=5, niceness=7)
    task = task_for(path.read_text(), "group", path=path, project=project_for(path))
    task = await with_project_tests(task, path=path, root=root, policy=policy)
    run = await run_suite(task.program_with(body or task.stub), task.public_tests, policy)
    return [(o.status, o.actual) for o in run.outcomes]


async def test_the_code_under_test_runs_at_the_policys_niceness(tmp_path):
    from test_one_judge import make

    root = make(tmp_path / "prio", NICE)
    assert await _review_at_niceness(root) == [("passed", None)]


# The code raises its own group's priority back: a niceness of 0 or more needs no privilege
# (only a negative one does), and a forked child's setsid() makes a new group at 0.
UNNICED = """\
def group():
    import time
    for _ in range(100):  # the kernel takes one change in 100 ms, machine-wide (EAGAIN)
        try:
            with open("/proc/self/autogroup", "w") as handle:
                handle.write("0")
            break
        except OSError:
            time.sleep(0.05)
    with open("/proc/self/autogroup") as handle:
        return " ".join(handle.read().split()[1:])
"""


@pytest.mark.xfail(strict=True, reason="defect (not fixed: the file is the process's own to "
                   "write; seccomp cannot filter one file): the code under test can write 0 "
                   "into /proc/self/autogroup and undo sandbox_niceness")
async def test_the_code_cannot_undo_the_policys_niceness(tmp_path):
    from test_one_judge import make

    root = make(tmp_path / "prio", NICE)
    [(status, actual)] = await _review_at_niceness(root, UNNICED)
    assert actual != "'nice 0'", (status, actual)


# The crossing's CPU allowance (CROSSING_SHARE): the code's processes may use 3 times the CPU
# the judge spent decoding the test's replies beyond the test's limit. The code makes the
# judge decode a large module global (mirrored back) at each of its first calls, then
# silences its own watchdog and CPU rlimit and spins: with 20 such calls under a 5 s limit
# the judge's look at its CPU time allows it about 8 + 3 x 11 CPU seconds, more than the
# wall-clock backstop (35 s) leaves, and the test is
# "not judged: the machine was too busy" where the same spin without the widening is a
# timeout at 8.4 CPU-s (plain pytest never ends).
WIDENED = {
    "pyproject.toml": "[project]\nname = 'bumps'\nversion = '0'\n",
    "bumps/__init__.py": "",
    "bumps/core.py": '''\
        def bump(x):
            """``x + 1``."""
            return x + 1
        ''',
    "tests/test_core.py": '''\
        from bumps.core import bump


        def test_bump():
            for x in range(30):
                assert bump(x) == x + 1
        ''',
}

WIDENING = '''\
_BLOB = None
_BASE = None


def bump(x):
    global _BLOB, _BASE
    if _BASE is None:
        _BASE = [str(i) for i in range(500_000)]
    if x < 2:
        _BLOB = list(_BASE)  # a new object: "changed", decoded and mirrored by the judge
        return x + 1
    import gc
    import resource
    import signal

    signal.signal(signal.SIGXCPU, signal.SIG_IGN)
    hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
    resource.setrlimit(resource.RLIMIT_CPU, (hard, hard))
    subject = next(o for o in gc.get_objects() if type(o).__name__ == "Subject")
    while True:  # the subject's watchdog silenced: only the judge's look can cut it
        subject.budget = None
'''


async def test_a_spinning_body_cannot_widen_its_allowance_by_what_it_sends(tmp_path):
    """Never a pass. A known defect remains (not asserted: its outcome depends on the
    machine's load, a strict xfail passed on quiet machines and failed on busy ones): the code
    inflates the crossing's CPU allowance by making the judge decode what it sends (a module
    global rebound at each call), so on a busy machine the spinning body is "not judged: the
    machine was too busy" where it should be a timeout. Two widening calls and a 1 s CPU
    limit (before: five, and twenty under 5 s), the same path: the judge decodes each call's
    list in about 0.4 CPU seconds, so the spin is cut once the code used 4 + 3 x ~0.8 CPU
    seconds (with five: 4 + 3 x ~2, 26.3 CPU-s for the test at load 13; with twenty: 8 + 3 x
    ~8, beyond what two cores give it before the 35 s wall-clock backstop, which ended every
    run: 37 s, 32 CPU seconds)."""
    from test_one_judge import SPIN_POLICY, make, review

    root = make(tmp_path / "bumps", WIDENED)
    _, run = await review(root, "bumps/core.py", "bump", WIDENING, policy=SPIN_POLICY)
    [outcome] = run.outcomes
    assert outcome.status == "timeout" or (
        outcome.status == "not judged" and "busy" in outcome.message), outcome


# The code adds a record of its own to the log its call's warnings are caught in: a line
# number too large for C made the judge's warnings.warn_explicit raise OverflowError out of
# the call (any project, no filter needed), and under filterwarnings=error a record that
# skipped the code's filters was raised as the warning itself.
INJECTED = '''\
def parse_port(text):
    import types
    import warnings

    log = warnings._showwarnmsg_impl.__self__  # catch_warnings(record=True)'s list
    log.append(types.SimpleNamespace(category=UserWarning, message="m", filename="f",
                                     lineno=LINENO))
    return 0
'''


@pytest.mark.parametrize("config, lineno", [("", "10**30"), ("error", "1")])
async def test_a_warning_record_the_code_forges_is_not_an_exception_of_the_call(
        tmp_path, config, lineno):
    from test_one_judge import make, review

    files = dict(WARNED)
    if not config:
        files["pyproject.toml"] = "[project]\nname = 'conv'\nversion = '0'\n"
    root = make(tmp_path / "conv", files)
    _, run = await review(root, "conv/core.py", "parse_port", INJECTED.replace("LINENO", lineno))
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# An exception class of the code's own (its nearest base the judge has, Exception, is
# rebuilt under its name) whose name holds a NUL: type() refused it in the judge with a
# ValueError, raised out of the call, and pytest.raises(ValueError) passed (plain pytest:
# conv.core.Bad is no ValueError).
NUL_NAMED = '''\
def parse_port(text):
    class Bad(Exception):
        pass

    Bad.__qualname__ = "Bad\\x00"
    raise Bad(text)
'''


async def test_an_exception_class_name_the_judge_cannot_make_is_no_exception_of_the_call(
        tmp_path):
    from test_one_judge import make, review

    files = dict(WARNED, **{"pyproject.toml": "[project]\nname = 'conv'\nversion = '0'\n"})
    files["tests/test_core.py"] = files["tests/test_core.py"].replace("Exception", "ValueError")
    root = make(tmp_path / "conv", files)
    _, run = await review(root, "conv/core.py", "parse_port", NUL_NAMED)
    assert [o.status for o in run.outcomes] in (["failed"], ["error"]), run.outcomes


# The code prints a lone surrogate and catches what printing it raises: under plain pytest
# with capsys (a strict UTF-8 stream) the UnicodeEncodeError is raised in the code, which
# catches it. The subject's capture took it, and the judge's write of it into capsys raised
# UnicodeEncodeError (a ValueError) out of the call: pytest.raises(ValueError) passed.
SURROGATE = '''\
def parse_port(text):
    try:
        print("\\ud800")
    except ValueError:
        pass
    return 0
'''


async def test_output_the_judge_cannot_write_is_no_exception_of_the_call(tmp_path):
    from test_one_judge import make, review

    files = dict(WARNED, **{"pyproject.toml": "[project]\nname = 'conv'\nversion = '0'\n"})
    files["tests/test_core.py"] = files["tests/test_core.py"].replace(
        "Exception", "ValueError").replace("garbage():", "garbage(capsys):")
    root = make(tmp_path / "conv", files)
    _, run = await review(root, "conv/core.py", "parse_port", SURROGATE)
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# A parametrize argument made by calling the function while pytest collects the test module
# (`(2, square(2))`): its id holds the value. The selection ran on the user's text, the judged
# session on the candidate's: a candidate whose values differ has its ids changed, and every
# such test of the selection was "not judged: pytest collected this test under another id"
# (the reason given for ids made from the time), whatever the candidate: a wrong body's
# failures are not failures, and a right body written over a stub (the user's text when
# generating) is never judged passed by them.
PARAM_IDS = {
    "pyproject.toml": "[project]\nname = 'lab'\nversion = '0'\n",
    "lab/__init__.py": "",
    "tests/test_core.py": '''\
        import pytest

        from lab.core import square


        @pytest.mark.parametrize("x, want", [(2, square(2)), (3, square(3))])
        def test_param(x, want):
            assert want == x * x


        def test_plain():
            assert square(4) == 16
        ''',
}
SQUARE = 'def square(x):\n    """x squared."""\n    return x * x\n'


@pytest.mark.sandbox
@pytest.mark.xfail(strict=True, reason="defect (not fixed): the judged session keeps the "
                   "selection's node ids; a kept test whose parametrize id the candidate's "
                   "values change is 'not judged' (the plugin would have to match tests by "
                   "their parameters' indices, callspec.indices, not by id)")
async def test_a_wrong_body_changing_parametrize_ids_made_from_its_values_fails(tmp_path):
    from test_one_judge import by_name, make, review

    root = make(tmp_path / "lab", dict(PARAM_IDS, **{"lab/core.py": SQUARE}))
    _, run = await review(root, "lab/core.py", "square", "def square(x):\n    return x + 1\n")
    assert {name: o.status for name, o in by_name(run).items()} == {
        "test_param[2-4]": "failed", "test_param[3-9]": "failed", "test_plain": "failed"}, (
        run.outcomes)


@pytest.mark.sandbox
@pytest.mark.xfail(strict=True, reason="defect (not fixed): as above, a right body over a stub "
                   "(the selection's ids hold None) is 'not judged' for these tests")
async def test_a_right_body_over_a_stub_is_judged_on_parametrize_ids_made_from_its_values(
        tmp_path):
    from test_one_judge import make, review

    stub = 'def square(x):\n    """x squared."""\n'
    root = make(tmp_path / "lab", dict(PARAM_IDS, **{"lab/core.py": stub}))
    _, run = await review(root, "lab/core.py", "square", SQUARE)
    assert [o.status for o in run.outcomes] == ["passed"] * 3, run.outcomes


# ------------------------------------------------------------------------------------------
# Breaker 6: what the judge raises while it reads the subject's answer is never an exception
# of the call. The code patches the subject's own encoder (the codec module it runs beside)
# so that the reply holds what no honest encoder writes; the judge's decoder raised errors
# other than ValueError (a float too large: OverflowError) out of the call, where the test's
# pytest.raises(Exception) caught them (plain pytest: DID NOT RAISE).

def _raising_project(catches="Exception"):
    files = dict(WARNED, **{"pyproject.toml": "[project]\nname = 'conv'\nversion = '0'\n"})
    files["tests/test_core.py"] = files["tests/test_core.py"].replace(
        "pytest.raises(Exception)", f"pytest.raises({catches})")
    return files


FORGED_FLOAT = '''\
def parse_port(text):
    import sys
    sys.modules["_codeteam_pytest_codec"]._SCALARS[float] = lambda value: b"f1p99999;"
    return 1.0
'''


async def test_an_answer_the_judge_cannot_decode_is_no_exception_of_the_call(tmp_path):
    from test_one_judge import make, review

    root = make(tmp_path / "conv", _raising_project())
    _, run = await review(root, "conv/core.py", "parse_port", FORGED_FLOAT)
    assert [o.status for o in run.outcomes] in (["failed"], ["error"]), run.outcomes


# No forgery needed: a project class whose __hash__ reads an attribute, an object of it used
# as a dict key, then the attribute deleted. Under plain pytest the dict is returned (DID NOT
# RAISE); the judge hashed the key again while decoding and raised AttributeError out of the
# call.
HASHED_PORT = '''\
    class Port:
        def __init__(self, number):
            self.number = number

        def __eq__(self, other):
            return isinstance(other, Port) and self.number == other.number

        def __hash__(self):
            return hash(self.number)


    def parse_port(text):
        """The TCP port in ``text``; ValueError when it is not one (1-65535)."""
        port = int(text)
        if not 1 <= port <= 65535:
            raise ValueError(text)
        return port
    '''

UNHASHABLE_KEY = '''\
def parse_port(text):
    port = Port(0)
    found = {port: text}
    del port.number
    return found
'''


async def test_a_key_whose_hash_fails_in_the_judge_is_no_exception_of_the_call(tmp_path):
    from test_one_judge import make, review

    files = dict(_raising_project(), **{"conv/core.py": HASHED_PORT})
    root = make(tmp_path / "conv", files)
    _, run = await review(root, "conv/core.py", "parse_port", UNHASHABLE_KEY)
    assert [o.status for o in run.outcomes] in (["failed"], ["error"]), run.outcomes
    _, run = await review(root, "conv/core.py", "parse_port")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes


# The code changes its working directory and leaves it changed: under plain pytest the test's
# too (one process), and a test that checks it is kept fails; the subject's os.chdir stayed its
# own, the judge's directory unchanged, and the test passed.
CWD = {
    "pyproject.toml": "[project]\nname = 'dirs'\nversion = '0'\n",
    "dirs/__init__.py": "",
    "dirs/core.py": '''\
        import os


        def listing(path):
            """The names in folder ``path``, sorted (the working directory unchanged)."""
            return sorted(os.listdir(path))
        ''',
    "tests/test_core.py": '''\
        import os

        from dirs.core import listing


        def test_listing_keeps_the_working_directory(tmp_path):
            (tmp_path / "a").write_text("")
            before = os.getcwd()
            assert listing(str(tmp_path)) == ["a"]
            assert os.getcwd() == before
        ''',
}

MOVED = '''\
def listing(path):
    import os
    os.chdir(path)
    return sorted(os.listdir("."))
'''


async def test_a_working_directory_the_code_changes_is_the_tests_too(tmp_path):
    from test_one_judge import make, review

    root = make(tmp_path / "dirs", CWD)
    _, run = await review(root, "dirs/core.py", "listing", MOVED)
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes
    _, run = await review(root, "dirs/core.py", "listing")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes


# The code's log records: under plain pytest they reach the test's handlers (``caplog``), in
# one process. The subject's stayed its own (its last resort wrote them to its stderr): a test
# that wants no log record for good input passed wrong code that logs one, and a test that
# wants the record failed right code.
LOGS = {
    "pyproject.toml": "[project]\nname = 'conv'\nversion = '0'\n",
    "conv/__init__.py": "",
    "conv/core.py": '''\
        import logging

        log = logging.getLogger(__name__)


        def parse_port(text):
            """The TCP port in ``text``; logs a warning and returns None when it is none."""
            try:
                return int(text)
            except ValueError:
                log.warning("not a port: %r", text)
                return None
        ''',
    "tests/test_core.py": '''\
        import logging

        from conv.core import parse_port


        def test_a_port_logs_nothing(caplog):
            assert parse_port("80") == 80
            assert caplog.records == []


        def test_garbage_is_logged(caplog):
            assert parse_port("x") is None
            assert "not a port: 'x'" in caplog.text
            assert caplog.records[0].name == "conv.core"


        def test_info_when_asked(caplog):
            caplog.set_level(logging.INFO)
            assert parse_port("81") == 81
            assert [r.getMessage() for r in caplog.records] == ["port 81"]
        ''',
}

NOISY = '''\
def parse_port(text):
    try:
        port = int(text)
    except ValueError:
        log.warning("not a port: %r", text)
        return None
    log.warning("port %d", port)
    return port
'''


async def test_the_codes_log_records_reach_the_tests_handlers(tmp_path):
    from test_one_judge import by_name, make, review

    root = make(tmp_path / "conv", LOGS)
    _, run = await review(root, "conv/core.py", "parse_port", NOISY)
    assert {name: o.status for name, o in by_name(run).items()} == {
        "test_a_port_logs_nothing": "failed", "test_garbage_is_logged": "passed",
        "test_info_when_asked": "passed"}, run.outcomes
    right = NOISY.replace('log.warning("port', 'log.info("port')
    _, run = await review(root, "conv/core.py", "parse_port", right)
    assert [o.status for o in run.outcomes] == ["passed"] * 3, run.outcomes


# The code writes more than the judge keeps of a call's output (OUTPUT_LIMIT), then what the
# test looks for: the judge wrote only the first part into the test's capsys (or its own
# redirect_stdout), and a test wanting no "ERROR" passed wrong code that printed one. A test
# that reads the code's output then cannot be judged; one that does not read it is.
LOUD_OUTPUT = {
    "pyproject.toml": "[project]\nname = 'conv'\nversion = '0'\n",
    "conv/__init__.py": "",
    "conv/core.py": '''\
        def parse_port(text):
            """The TCP port in ``text``."""
            return int(text)
        ''',
    "tests/test_core.py": '''\
        import contextlib
        import io

        from conv.core import parse_port


        def test_quiet(capsys):
            assert parse_port("80") == 80
            assert "ERROR" not in capsys.readouterr().out


        def test_quiet_redirected():
            with contextlib.redirect_stdout(io.StringIO()) as out:
                assert parse_port("80") == 80
            assert "ERROR" not in out.getvalue()


        def test_port():
            assert parse_port("80") == 80
        ''',
}

LOUD = '''\
def parse_port(text):
    print("x" * 100_000)
    print("ERROR: a port")
    return int(text)
'''


async def test_output_the_judge_cut_is_not_a_pass_of_a_test_reading_it(tmp_path):
    from test_one_judge import by_name, make, review

    root = make(tmp_path / "conv", LOUD_OUTPUT)
    _, run = await review(root, "conv/core.py", "parse_port", LOUD)
    assert {name: o.status for name, o in by_name(run).items()} == {
        "test_quiet": "not judged", "test_quiet_redirected": "not judged",
        "test_port": "passed"}, run.outcomes


# The same for a test that asks for capsys while it runs (request.getfixturevalue): the
# item's fixturenames do not hold it, and wrong code printing "ERROR" after the cut passed.
ASKED_OUTPUT = dict(LOUD_OUTPUT, **{"tests/test_core.py": '''\
    from conv.core import parse_port


    def test_quiet_asked(request):
        capsys = request.getfixturevalue("capsys")
        assert parse_port("80") == 80
        assert "ERROR" not in capsys.readouterr().out
    '''})


async def test_output_cut_is_not_a_pass_of_a_test_asking_for_capsys_as_it_runs(tmp_path):
    from test_one_judge import make, review

    root = make(tmp_path / "conv", ASKED_OUTPUT)
    _, run = await review(root, "conv/core.py", "parse_port", LOUD)
    assert [o.status for o in run.outcomes] == ["not judged"], run.outcomes


# The same for warnings: the subject records at most 100 of a call's warnings, and the judge
# issued those again; a test that wants no DeprecationWarning passed wrong code that issued
# 100 others first. A pass is then not judged.
MANY_WARNINGS = dict(LOUD_OUTPUT, **{"tests/test_core.py": '''\
    import warnings

    from conv.core import parse_port


    def test_no_deprecation():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert parse_port("80") == 80
        assert not [w for w in caught if issubclass(w.category, DeprecationWarning)]
    '''})

WARNS_MUCH = '''\
def parse_port(text):
    import warnings
    for n in range(100):
        warnings.warn(f"note {n}")
    warnings.warn("parse_port is deprecated", DeprecationWarning)
    return int(text)
'''


async def test_warnings_the_judge_did_not_issue_again_are_not_a_pass(tmp_path):
    from test_one_judge import make, review

    root = make(tmp_path / "conv", MANY_WARNINGS)
    _, run = await review(root, "conv/core.py", "parse_port", WARNS_MUCH)
    assert [o.status for o in run.outcomes] == ["not judged"], run.outcomes
    _, run = await review(root, "conv/core.py", "parse_port", WARNS_MUCH.replace(
        "    warnings.warn(\"parse_port", "    0 and warnings.warn(\"parse_port"))
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes


LOGS_MUCH = '''\
def parse_port(text):
    for n in range(1000):
        log.info("note %d", n)
    log.warning("port %s", text)
    return int(text)
'''


async def test_log_records_the_judge_did_not_handle_are_not_a_pass(tmp_path):
    """As for warnings: the judge handles at most LOG_LIMIT (1,000) records of one call."""
    from test_one_judge import make, review

    files = dict(LOGS, **{"tests/test_core.py": '''\
        import logging

        from conv.core import parse_port


        def test_a_port_logs_no_warning(caplog):
            caplog.set_level(logging.INFO)
            assert parse_port("80") == 80
            assert not [r for r in caplog.records if r.levelno > logging.INFO]
        '''})
    root = make(tmp_path / "conv", files)
    _, run = await review(root, "conv/core.py", "parse_port", LOGS_MUCH)
    assert [o.status for o in run.outcomes] == ["not judged"], run.outcomes


# What the code does to the test's objects comes back into them: the items of a project's
# ``class Stack(list)`` came back but not its attributes, and a slot the code deleted stayed
# set in the test's object; a test checking the attribute kept passed wrong code that changed
# it (plain pytest: one object).
STACK = {
    "pyproject.toml": "[project]\nname = 'stk'\nversion = '0'\n",
    "stk/__init__.py": "",
    "stk/core.py": '''\
        class Stack(list):
            def __init__(self, items=(), limit=10):
                super().__init__(items)
                self.limit = limit


        class Point:
            __slots__ = ("x", "y")

            def __init__(self, x, y):
                self.x, self.y = x, y


        def push(stack, item):
            """Push ``item`` onto ``stack`` (its limit unchanged)."""
            stack.append(item)


        def shift(point, dx):
            """Move ``point`` by ``dx`` along x."""
            point.x += dx
        ''',
    "tests/test_core.py": '''\
        from stk.core import Point, Stack, push, shift


        def test_push():
            s = Stack([1], limit=2)
            push(s, 2)
            assert s == [1, 2]
            assert s.limit == 2


        def test_shift():
            p = Point(1, 2)
            shift(p, 3)
            assert (p.x, p.y) == (4, 2)
        ''',
}


@pytest.mark.parametrize("name, wrong", [
    ("push", "def push(stack, item):\n    stack.append(item)\n    stack.limit -= 1\n"),
    ("shift", "def shift(point, dx):\n    point.x += dx\n    del point.y\n"),
])
async def test_what_the_code_does_to_a_tests_object_comes_back_whole(tmp_path, name, wrong):
    from test_one_judge import make, review

    root = make(tmp_path / "stk", STACK)
    _, run = await review(root, "stk/core.py", name, wrong)
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes
    _, run = await review(root, "stk/core.py", name)
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes


# A project exception class whose __str__ fails for what the code gave it ("%d" of a str): the
# judge's report of a doctest example that raised it called str() on it, pytest stopped with
# an internal error, and every later test went unreported ("not judged": plain pytest fails
# test_port).
DOCTESTED = {
    "pyproject.toml": ("[project]\nname = 'conv'\nversion = '0'\n\n[tool.pytest.ini_options]\n"
                       "addopts = '--doctest-modules'\ntestpaths = ['conv', 'tests']\n"),
    "conv/__init__.py": "",
    "conv/core.py": '''\
        class PortError(ValueError):
            def __str__(self):
                return "bad port: %d" % self.args[0]


        def parse_port(text):
            """The TCP port in ``text``.

            >>> parse_port("80")
            80
            """
            return int(text)
        ''',
    "tests/test_core.py": '''\
        from conv.core import parse_port


        def test_port():
            assert parse_port("81") == 81
        ''',
}


async def test_an_exception_whose_str_fails_does_not_end_the_judges_session(tmp_path):
    from test_one_judge import make, review

    root = make(tmp_path / "conv", DOCTESTED)
    _, run = await review(root, "conv/core.py", "parse_port",
                          "def parse_port(text):\n    raise PortError(text)\n")
    assert [o.status for o in run.outcomes] == ["failed", "failed"], run.outcomes


# The code raises a project exception holding what cannot cross (a lock): the judge raises a
# stand-in of its class with the message only, without ``response``, and the class's
# ``__getattr__`` (``getattr(self.response, name)``) recursed when pytest reported it (its
# ``__notes__``): an internal error, the test 'interrupted' and every later one not judged.
API = {
    "pyproject.toml": "[project]\nname = 'api'\nversion = '0'\n",
    "api/__init__.py": "",
    "api/core.py": '''\
        class ApiError(Exception):
            def __init__(self, response):
                super().__init__("api error")
                self.response = response

            def __getattr__(self, name):
                return getattr(self.response, name)


        def fetch(x):
            """``x``."""
            return x
        ''',
    "tests/test_core.py": '''\
        from api.core import fetch


        def test_fetch():
            assert fetch(1) == 1


        def test_after():
            assert fetch(2) == 2
        ''',
}


async def test_a_stand_in_exception_does_not_end_the_judges_session(tmp_path):
    from test_one_judge import make, review

    root = make(tmp_path / "api", API)
    _, run = await review(root, "api/core.py", "fetch", "def fetch(x):\n    import threading\n"
                          "    raise ApiError(threading.Lock())\n")
    assert [o.status for o in run.outcomes] == ["failed", "failed"], run.outcomes


# The decimal context (one per thread): under plain pytest the code's getcontext().prec = 6 is
# the test's too, and the test's localcontext() is the code's. The subject kept its own: a test
# checking the context is left as it was passed wrong code that changed it, and right code
# computing in the test's context failed.
MONEY = {
    "pyproject.toml": "[project]\nname = 'money'\nversion = '0'\n",
    "money/__init__.py": "",
    "money/core.py": '''\
        import decimal


        def cents(amount):
            """``amount`` (a Decimal) rounded to cents, half up (the context left as it was)."""
            return amount.quantize(decimal.Decimal("0.01"), rounding=decimal.ROUND_HALF_UP)


        def third(amount):
            """``amount / 3`` in the context's precision."""
            return amount / 3
        ''',
    "tests/test_core.py": '''\
        import decimal
        from decimal import Decimal

        from money.core import cents, third


        def test_cents_keeps_the_context():
            assert cents(Decimal("1.005")) == Decimal("1.01")
            assert decimal.getcontext().prec == 28


        def test_third_in_the_tests_context():
            with decimal.localcontext() as context:
                context.prec = 5
                assert third(Decimal(1)) == Decimal("0.33333")
        ''',
}

LEAKY = '''\
def cents(amount):
    decimal.getcontext().prec = 6
    return amount.quantize(decimal.Decimal("0.01"), rounding=decimal.ROUND_HALF_UP)
'''


async def test_the_decimal_context_is_the_tests_and_the_codes(tmp_path):
    from test_one_judge import make, review

    root = make(tmp_path / "money", MONEY)
    _, run = await review(root, "money/core.py", "cents", LEAKY)
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes
    for name in ("cents", "third"):
        _, run = await review(root, "money/core.py", name)
        assert [o.status for o in run.outcomes] == ["passed"], (name, run.outcomes)


# The random module's state: under plain pytest the test's random.seed(7) is the code's, and
# what the code draws the test draws after. The subject kept its own generator: right code
# failed a seeded test (not a forged pass, a forged failure); wrong code still fails.
DECK = {
    "pyproject.toml": "[project]\nname = 'cards'\nversion = '0'\n",
    "cards/__init__.py": "",
    "cards/core.py": '''\
        import random


        def deal(n):
            """``n`` cards drawn from a shuffled deck of 52 (the random module's)."""
            deck = list(range(52))
            random.shuffle(deck)
            return deck[:n]
        ''',
    "tests/test_core.py": '''\
        import random

        from cards.core import deal


        def test_seeded():
            random.seed(7)
            first = deal(5)
            after = random.random()
            random.seed(7)
            assert deal(5) == first
            assert random.random() == after
            random.seed(7)
            deck = list(range(52))
            random.shuffle(deck)
            random.seed(7)
            assert deal(5) == deck[:5]
        ''',
}


async def test_the_random_modules_state_is_the_tests_and_the_codes(tmp_path):
    from test_one_judge import make, review

    root = make(tmp_path / "cards", DECK)
    _, run = await review(root, "cards/core.py", "deal")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "cards/core.py", "deal", "def deal(n):\n    deck = list(range(52))"
                          "\n    random.Random().shuffle(deck)\n    return deck[:n]\n")
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# The random state crossed to the code only when the test's had changed since it was last
# sent, and came back only when it had crossed: a second call in a row drew from the code's
# generator but never gave the draw back, so the test's next draw repeated one of the code's
# (right code failed: `random.random() == third`).
TWO_DRAWS = {
    "pyproject.toml": "[project]\nname = 'dice'\nversion = '0'\n",
    "dice/__init__.py": "",
    "dice/core.py": '''\
        import random


        def roll():
            """A draw of the random module."""
            return random.random()
        ''',
    "tests/test_core.py": '''\
        import random

        from dice.core import roll


        def test_two_calls_in_a_row():
            random.seed(3)
            first, second, third = random.random(), random.random(), random.random()
            random.seed(3)
            assert roll() == first
            assert roll() == second
            assert random.random() == third
        ''',
}


async def test_the_codes_draws_in_calls_in_a_row_are_the_tests(tmp_path):
    from test_one_judge import make, review

    root = make(tmp_path / "dice", TWO_DRAWS)
    _, run = await review(root, "dice/core.py", "roll")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "dice/core.py", "roll", "def roll():\n    return random.Random("
                          ").random()\n")
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# Files the code writes into the project: each subject has a copy-on-write view of its own
# (the judge never reads what the code wrote), so the test does not see them. A test that
# checks the code writes nothing where it runs passes wrong code that leaves a debug.log.
WRITES_NOTHING = {
    "pyproject.toml": "[project]\nname = 'conv'\nversion = '0'\n",
    "conv/__init__.py": "",
    "conv/core.py": '''\
        def parse_port(text):
            """The TCP port in ``text`` (no file written)."""
            return int(text)
        ''',
    "tests/test_core.py": '''\
        import os

        from conv.core import parse_port


        def test_writes_nothing():
            before = sorted(os.listdir("."))
            assert parse_port("80") == 80
            assert sorted(os.listdir(".")) == before
        ''',
}


# The other way, a wrong failure of right code: a file the test writes into the project (its
# working directory) is in the judge's copy-on-write view only, so the code reading it there
# fails (FileNotFoundError; plain pytest passes). And under a root server the subject runs as a
# uid of its own over the project as it is (no idmap): right code appending to a file of the
# project's owner fails with PermissionError where the owner's pytest writes it.
READS_WHAT_THE_TEST_WROTE = {
    "pyproject.toml": "[project]\nname = 'conf'\nversion = '0'\n",
    "conf/__init__.py": "",
    "conf/core.py": '''\
        def read_setting(name):
            """The value of ``name`` in ``settings.txt`` of the working directory."""
            with open("settings.txt") as f:
                for line in f:
                    key, _, value = line.strip().partition("=")
                    if key == name:
                        return value


        def note(text):
            """Append ``text`` as a line to ``notes.txt`` of the working directory."""
            with open("notes.txt", "a") as f:
                f.write(text + "\\n")
        ''',
    "notes.txt": "",
    "tests/test_core.py": '''\
        import os

        from conf.core import note, read_setting


        def test_read():
            with open("settings.txt", "w") as f:
                f.write("port=80\\n")
            try:
                assert read_setting("port") == "80"
            finally:
                os.remove("settings.txt")


        def test_note():
            note("seen")
        ''',
}


@pytest.mark.xfail(strict=True, reason="defect (not fixed): the judge's and the subject's "
                   "views of the project are apart both ways: the code does not see a file "
                   "the test wrote there (FileNotFoundError), and under a root server cannot "
                   "write a file of the project's owner (PermissionError); plain pytest passes")
async def test_the_code_reads_what_the_test_wrote_into_the_project(tmp_path):
    from test_one_judge import make, review

    root = make(tmp_path / "conf", READS_WHAT_THE_TEST_WROTE)
    _, run = await review(root, "conf/core.py", "read_setting")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes


@pytest.mark.xfail(strict=True, reason="defect (not fixed): under a root server the subject "
                   "runs as a uid of its own over the project as it is (no idmap, unlike the "
                   "judge's view): right code appending to a file of the project's owner fails "
                   "with PermissionError; plain pytest passes")
async def test_the_code_appends_to_a_file_of_the_project(tmp_path):
    from test_one_judge import make, review

    root = make(tmp_path / "conf", READS_WHAT_THE_TEST_WROTE)
    _, run = await review(root, "conf/core.py", "note")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes


@pytest.mark.xfail(strict=True, reason="defect (not fixed): what the code writes into the "
                   "project stays in its subject's copy-on-write view, which the judge does not "
                   "see (by design: nothing the code writes is read by pytest's process); a test "
                   "checking the code writes nothing there passes wrong code that does (the fix: "
                   "report the code's writes under the project and make such a pass not judged)")
async def test_a_file_the_code_writes_into_the_project_is_seen_by_the_test(tmp_path):
    from test_one_judge import make, review

    root = make(tmp_path / "conv", WRITES_NOTHING)
    _, run = await review(root, "conv/core.py", "parse_port", "def parse_port(text):\n"
                          "    open('debug.log', 'w').write(text)\n    return int(text)\n")
    assert [o.status for o in run.outcomes] in (["failed"], ["not judged"]), run.outcomes


# Logging configured by the code: under plain pytest a logger's setLevel (or logging.disable)
# in the code is the test's logging too. The subject kept it: right code of a setup_logging
# failed ('assert 0 == 10'); wrong code setting another logger's level still fails.
LOG_SETUP = {
    "pyproject.toml": "[project]\nname = 'app'\nversion = '0'\n",
    "app/__init__.py": "",
    "app/core.py": '''\
        import logging


        def setup_logging(verbose):
            """Set the ``app`` logger's level: DEBUG when ``verbose``, else WARNING; quiet
            everything up to INFO when not."""
            logging.getLogger("app").setLevel(logging.DEBUG if verbose else logging.WARNING)
            logging.disable(logging.NOTSET if verbose else logging.INFO)
        ''',
    "tests/test_core.py": '''\
        import logging

        from app.core import setup_logging


        def test_levels():
            setup_logging(True)
            assert logging.getLogger("app").level == logging.DEBUG
            setup_logging(False)
            assert logging.getLogger("app").getEffectiveLevel() == logging.WARNING
            assert logging.root.manager.disable == logging.INFO
            logging.disable(logging.NOTSET)
        ''',
}


async def test_logging_levels_the_code_sets_are_the_tests(tmp_path):
    from test_one_judge import make, review

    root = make(tmp_path / "app", LOG_SETUP)
    _, run = await review(root, "app/core.py", "setup_logging")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "app/core.py", "setup_logging", (
        "def setup_logging(verbose):\n"
        "    logging.getLogger('ap').setLevel(logging.DEBUG if verbose else logging.WARNING)\n"))
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# The judge ran under ``python -c``, whose sys.path[0] is "": the working directory of the
# moment. The code's os.chdir is the test's too (as in one process), so the code wrote
# fractions.py into a folder of the shared /tmp, moved there, and returned a Fraction: the
# judge imported the code's module to decode it (pytest's process running the code's text),
# which turned the failed report into a pass. ``python -m pytest`` fixes the folder at start.
FORGE_ON_IMPORT = r"""
import gc, sys, os
import pytest
for o in gc.get_objects():
    if type(o).__name__ == "Config" and type(o).__module__ == "_pytest.config":
        class Forge:
            @pytest.hookimpl(hookwrapper=True)
            def pytest_runtest_makereport(self, item, call):
                out = yield
                if out.get_result().failed:
                    out.get_result().outcome, out.get_result().longrepr = "passed", None
        o.pluginmanager.register(Forge(), "forge")
        break
del sys.modules[__name__]
sys.path[:] = [p for p in sys.path if p not in ("", os.getcwd())]
import importlib
sys.modules[__name__] = real = importlib.import_module(__name__)
globals().update(vars(real))
"""

INC = {
    "pyproject.toml": "[project]\nname = 'lab'\nversion = '0'\n",
    "lab/__init__.py": "",
    "lab/core.py": '''\
        def inc(x):
            """x plus one."""
            return x + 1
        ''',
    "tests/test_core.py": '''\
        from lab.core import inc


        def test_inc():
            assert inc(1) == 2
            assert inc(2) == 3
        ''',
}

# The same plant through a relative entry a project's conftest puts on sys.path ("src"): it
# followed the code's os.chdir (the test's too) to the code's folder of the shared /tmp.
SRC_ON_PATH = {
    **INC,
    "conftest.py": "import sys\nsys.path.insert(0, 'src')\n",
    # monkeypatch.syspath_prepend drops the import system's finders of relative entries
    # (importlib.invalidate_caches): the next import looks for "src" where the test now is
    "tests/test_core.py": '''\
        from lab.core import inc


        def test_inc(monkeypatch, tmp_path):
            assert inc(1) == 2
            monkeypatch.syspath_prepend(str(tmp_path))
            assert inc(2) == 3
        ''',
}

# The forge above, then the standard library's own module by its file (not by sys.path).
FORGE_BY_STDLIB_PATH = FORGE_ON_IMPORT.split("del sys.modules")[0] + r"""
import importlib.util, sysconfig
spec = importlib.util.spec_from_file_location(
    __name__, os.path.join(sysconfig.get_paths()["stdlib"], __name__ + ".py"))
real = importlib.util.module_from_spec(spec)
sys.modules[__name__] = real
spec.loader.exec_module(real)
globals().update(vars(real))
"""


def chdir_and_plant(folder, planted, forge):
    """A body that writes ``forge`` as ``planted`` (a fractions.py) at its first call, moves
    to ``folder`` and returns right; then returns a Fraction, wrong, which the judge decodes."""
    return f'''\
def inc(x):
    import os
    if not os.path.isdir({os.path.dirname(planted)!r}):
        os.makedirs({os.path.dirname(planted)!r})
        with open({planted!r}, "w") as f:
            f.write({forge!r})
        os.chdir({folder!r})
        return x + 1
    import fractions
    return fractions.Fraction(1, 3)
'''


@pytest.mark.parametrize("where", ["working directory", "relative sys.path entry"])
async def test_a_module_the_code_plants_in_the_folder_it_moves_to_is_not_imported(tmp_path,
                                                                                  where):
    from test_one_judge import make, review

    if where == "working directory":
        project, body = INC, chdir_and_plant("/tmp/planted", "/tmp/planted/fractions.py",
                                             FORGE_ON_IMPORT)
    else:  # a conftest's "src" (relative), after importlib.invalidate_caches()
        project, body = SRC_ON_PATH, chdir_and_plant(
            "/tmp/planted-src", "/tmp/planted-src/src/fractions.py", FORGE_BY_STDLIB_PATH)
    root = make(tmp_path / "lab", project)
    _, run = await review(root, "lab/core.py", "inc", body)
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# Warnings under the "default" action: shown once per place. The judge issued each call's
# warnings again with no registry (warn_explicit's default), so a test calling the code three
# times saw three: right code failed 'assert len(caught) == 1' (plain pytest passes).
WARNS_ONCE = {
    "pyproject.toml": "[project]\nname = 'old'\nversion = '0'\n",
    "old/__init__.py": "",
    "old/core.py": '''\
        import warnings


        def old_api(x):
            """Deprecated: warns (UserWarning) and returns ``x``."""
            warnings.warn("old_api is going away")
            return x
        ''',
    "tests/test_core.py": '''\
        import warnings

        from old.core import old_api


        def test_warns_once_per_place():
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("default")
                for n in range(3):
                    assert old_api(n) == n
            assert len(caught) == 1, [str(w.message) for w in caught]
        ''',
}


async def test_a_default_warning_is_shown_once_per_place_across_calls(tmp_path):
    from test_one_judge import make, review

    root = make(tmp_path / "old", WARNS_ONCE)
    _, run = await review(root, "old/core.py", "old_api")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "old/core.py", "old_api", (
        "def old_api(x):\n    warnings.warn(f'old_api({x}) is going away')\n    return x\n"))
    assert [o.status for o in run.outcomes] == ["failed"], run.outcomes


# The random module's state across a callback: the code draws, and calls the test's function,
# which draws too (in the judge's process). One stream under plain pytest; the subject took the
# test's state at the call and the judge kept its own for the callback, so both drew the same
# first number: right code failed 'assert 0.268... == (0.134... + 0.847...)'.
ONE_STREAM = {
    "pyproject.toml": "[project]\nname = 'noise'\nversion = '0'\n",
    "noise/__init__.py": "",
    "noise/core.py": '''\
        import random


        def noisy(f):
            """``f()`` plus a draw of the random module."""
            return f() + random.random()
        ''',
    "tests/test_core.py": '''\
        import random

        from noise.core import noisy


        def test_one_stream():
            random.seed(1)
            first, second, third = random.random(), random.random(), random.random()
            random.seed(1)
            assert noisy(lambda: random.random()) == first + second
            assert random.random() == third
        ''',
}


@pytest.mark.xfail(strict=True, reason="defect (not fixed): the random module's state crosses "
                   "with the test's call and its reply only, not with a callback the code makes "
                   "into the test's function (nor its answer): two streams where plain pytest "
                   "has one")
async def test_the_random_state_is_one_stream_across_a_callback(tmp_path):
    from test_one_judge import make, review

    root = make(tmp_path / "noise", ONE_STREAM)
    _, run = await review(root, "noise/core.py", "noisy")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes


# Log records reached caplog as the formatted message only: the record's msg (its template),
# args, exc_info and the attributes of extra= were lost on the way. Right code of a
# log.exception(..., extra=...) failed all four tests (plain pytest passes them). Now they
# cross when plain data (the exception as its class and args, no traceback).
RECORDED = {
    "pyproject.toml": "[project]\nname = 'ports'\nversion = '0'\n",
    "ports/__init__.py": "",
    "ports/core.py": '''\
        import logging

        log = logging.getLogger("ports")


        def parse_port(text):
            """The port in ``text``; logs a bad one (with the error) and returns None."""
            try:
                if text.startswith("/"):
                    with open(text) as f:
                        text = f.read()
                return int(text)
            except (ValueError, OSError):
                log.exception("bad port %r", text, extra={"port_text": text})
                return None
        ''',
    "tests/test_core.py": '''\
        from ports.core import parse_port


        def test_msg(caplog):
            assert parse_port("x") is None
            [record] = caplog.records
            assert record.getMessage() == "bad port 'x'"
            assert record.msg == "bad port %r"


        def test_args(caplog):
            assert parse_port("x") is None
            assert caplog.records[0].args == ("x",)


        def test_exc_info(caplog):
            assert parse_port("x") is None
            assert caplog.records[0].exc_info[0] is ValueError


        def test_extra(caplog):
            assert parse_port("x") is None
            assert caplog.records[0].port_text == "x"


        def test_os_error(caplog):
            assert parse_port("/nowhere") is None
            error = caplog.records[0].exc_info[1]
            assert type(error) is FileNotFoundError and error.errno == 2
        ''',
}


async def test_a_log_record_reaches_caplog_whole(tmp_path):
    from test_one_judge import by_name, make, review

    root = make(tmp_path / "ports", RECORDED)
    _, run = await review(root, "ports/core.py", "parse_port")
    assert [o.status for o in run.outcomes] == ["passed"] * 5, run.outcomes
    _, run = await review(root, "ports/core.py", "parse_port", (
        "def parse_port(text):\n    try:\n        return int(text)\n    except ValueError:\n"
        "        log.error('bad port %r', text, extra={'port_text': text.upper()})\n"))
    assert {name: o.status for name, o in by_name(run).items()} == {
        "test_msg": "passed", "test_args": "passed", "test_exc_info": "failed",
        "test_extra": "failed", "test_os_error": "failed"}, run.outcomes


# A test that puts its tmp_path on sys.path (a plugin loader's test): the folder is in the /tmp
# the judge shares with the code, so the code wrote fractions.py there and returned a Fraction;
# the judge imported the code's module to decode it, whose text turned the failed report into
# a pass. A module file of the shared /tmp made since the code started is never imported by
# the judge: the test is "not judged".
PLUGINS = {
    "pyproject.toml": "[project]\nname = 'plug'\nversion = '0'\n",
    "plug/__init__.py": "",
    "plug/core.py": '''\
        import importlib


        def load_plugin(name):
            """The PLUGIN of the module ``name`` (imported from sys.path)."""
            return importlib.import_module(name).PLUGIN
        ''',
    "tests/test_core.py": '''\
        from plug.core import load_plugin


        def test_load(tmp_path, monkeypatch):
            (tmp_path / "myplug.py").write_text("PLUGIN = 42\\n")
            monkeypatch.syspath_prepend(str(tmp_path))
            assert load_plugin("myplug") == 42
        ''',
}

# The forge of FORGE_ON_IMPORT, then the standard library's module from the path after its own
# folder.
FORGE_FROM_ITS_FOLDER = FORGE_ON_IMPORT.split("sys.path[:] =")[0] + r"""
here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
import importlib
sys.modules[__name__] = real = importlib.import_module(__name__)
globals().update(vars(real))
"""


async def test_a_module_the_code_plants_on_the_tests_sys_path_is_not_imported(tmp_path):
    from test_one_judge import make, review

    root = make(tmp_path / "plug", PLUGINS)
    _, run = await review(root, "plug/core.py", "load_plugin")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    _, run = await review(root, "plug/core.py", "load_plugin", f'''\
def load_plugin(name):
    import sys, os, fractions
    folder = [p for p in sys.path if p.startswith("/tmp/")][0]
    with open(os.path.join(folder, "fractions.py"), "w") as f:
        f.write({FORGE_FROM_ITS_FOLDER!r})
    return fractions.Fraction(1, 3)
''')
    [outcome] = run.outcomes
    assert outcome.status == "not judged", outcome
    assert "fractions.py" in outcome.message and "not imported" in outcome.message, outcome


def test_a_module_file_swapped_after_its_check_is_not_run(tmp_path):
    """brk9: the guard on the shared /tmp looked at a module's file when the judge found it
    (find_spec), not when it read it: a file renamed over the module's in between had its
    text run in pytest's process (shown here in one process; end to end the code would have
    to win a race, timed perhaps by inotify on the judge's scan of ``__pycache__``, not
    tried). The file is looked at again once read: refused."""
    import importlib.util

    folder = tmp_path / "shared"
    folder.mkdir()
    module = folder / "swapped_brk9.py"
    module.write_text("VALUE = 'the test wrote it'\n")
    reasons = []
    guard = subject.SharedImports(str(folder), reasons.append)
    hooks = list(sys.path_hooks)
    guard.install()
    try:
        guard.since = module.stat().st_ctime_ns + 1  # (the code started after it was made)
        spec = sys.path_hooks[0](str(folder)).find_spec("swapped_brk9")
        assert spec is not None and not reasons
        planted = folder / "planted.py"
        planted.write_text("VALUE = 'the code wrote it'\n")
        while planted.stat().st_ctime_ns < guard.since:  # (a coarse clock: its next tick)
            os.utime(planted)
        os.replace(planted, module)
        loaded = importlib.util.module_from_spec(spec)
        with pytest.raises(ImportError, match="not imported"):
            spec.loader.exec_module(loaded)
        assert "swapped_brk9.py" in reasons[0], reasons
        assert not hasattr(loaded, "VALUE")
    finally:
        sys.path_hooks[:] = hooks
        sys.path_importer_cache.pop(str(folder), None)


# A callable object a module holds crosses by its name (glom's T = TType()): the judge's own
# object. What the code set on it (its counter's n) was not taken over, nor what the test set
# (callables were no data to mirror): right code failed both tests plain pytest passes.
COUNTER = {
    "pyproject.toml": "[project]\nname = 'cnt'\nversion = '0'\n",
    "cnt/__init__.py": "",
    "cnt/core.py": '''\
        class Counter:
            def __init__(self):
                self.n = 0

            def __call__(self):
                self.n += 1
                return self.n


        counter = Counter()


        def bump():
            """Call the module's counter once; return it."""
            counter()
            return counter
        ''',
    "tests/test_core.py": '''\
        from cnt import core
        from cnt.core import bump


        def test_bump():
            assert bump().n == 1
            assert core.counter.n == 1


        def test_from_five():
            core.counter.n = 5
            assert bump().n == 6
        ''',
}


async def test_what_is_set_on_a_callable_object_a_module_holds_crosses(tmp_path):
    from test_one_judge import make, review

    root = make(tmp_path / "cnt", COUNTER)
    _, run = await review(root, "cnt/core.py", "bump")
    assert [o.status for o in run.outcomes] == ["passed"] * 2, run.outcomes
    _, run = await review(root, "cnt/core.py", "bump", "def bump():\n    return counter\n")
    assert [o.status for o in run.outcomes] == ["failed"] * 2, run.outcomes


# The code rebinds a module global to a callable object it makes (`counter = Counter(start)`):
# the judge took over no rebinding to a callable, so the test's module kept the old counter:
# right code failed 'core.counter is reset(3)' and 'reset(7); core.counter() == 8'.
RESET = {
    **COUNTER,
    "cnt/core.py": '''\
        class Counter:
            def __init__(self, start=0):
                self.n = start

            def __call__(self):
                self.n += 1
                return self.n


        counter = Counter()


        def reset(start):
            """A new module counter from ``start``; returns it."""
            global counter
            counter = Counter(start)
            return counter
        ''',
    "tests/test_core.py": '''\
        from cnt import core
        from cnt.core import reset


        def test_reset():
            c = reset(3)
            assert core.counter is c
            assert core.counter.n == 3


        def test_reset_then_call():
            reset(7)
            assert core.counter() == 8
        ''',
}


async def test_a_callable_object_the_code_binds_to_a_module_global_crosses(tmp_path):
    from test_one_judge import make, review

    root = make(tmp_path / "cnt", RESET)
    _, run = await review(root, "cnt/core.py", "reset")
    assert [o.status for o in run.outcomes] == ["passed"] * 2, run.outcomes
    _, run = await review(root, "cnt/core.py", "reset", (
        "def reset(start):\n    global counter\n    counter = Counter(start + 1)\n"
        "    return counter\n"))
    assert [(o.status, o.message.splitlines()[0]) for o in run.outcomes] == [
        ("failed", "assert 4 == 3"), ("failed", "assert 9 == 8")], run.outcomes


# A test that runs the source a function makes (exec) ran the code's own text in pytest's
# process: wrong code returned text that registered a hook rewriting the failed report into a
# pass. Text the code returned, compiled by exec or eval in the test, is refused: "not judged"
# (plain pytest runs it in the test's process, which the code then owns).
GENERATOR = {
    "pyproject.toml": "[project]\nname = 'gen'\nversion = '0'\n",
    "gen/__init__.py": "",
    "gen/core.py": '''\
        def make_power(name, n):
            """Python source of ``def name(x): return x ** n``."""
            return f"def {name}(x):\\n    return x ** {n}\\n"
        ''',
    "tests/test_core.py": '''\
        from gen.core import make_power


        def test_run_it():
            ns = {}
            exec(make_power("square", 2), ns)
            assert ns["square"](3) == 9


        def test_read_it():
            source = make_power("cube", 3)
            exec("y = 2")  # the test's own text
            assert source.startswith("def cube(x):")
        ''',
}

FORGE_IN_TEXT = r'''
import gc, pytest
for o in gc.get_objects():
    if type(o).__name__ == "Config" and type(o).__module__ == "_pytest.config":
        class Forge:
            @pytest.hookimpl(hookwrapper=True)
            def pytest_runtest_makereport(self, item, call):
                out = yield
                if out.get_result().failed:
                    out.get_result().outcome, out.get_result().longrepr = "passed", None
        o.pluginmanager.register(Forge(), "forge")
        break
def square(x):
    return 0
'''


async def test_text_the_code_returns_is_not_run_by_the_test(tmp_path):
    from test_one_judge import by_name, make, review

    root = make(tmp_path / "gen", GENERATOR)
    _, run = await review(root, "gen/core.py", "make_power")
    assert {n: o.status for n, o in by_name(run).items()} == {
        "test_run_it": "not judged", "test_read_it": "passed"}, run.outcomes
    assert "runs text the code under test returned" in by_name(run)["test_run_it"].message
    _, run = await review(root, "gen/core.py", "make_power",
                          f"def make_power(name, n):\n    return {FORGE_IN_TEXT!r}\n")
    assert {n: o.status for n, o in by_name(run).items()} == {
        "test_run_it": "not judged", "test_read_it": "failed"}, run.outcomes


# brk9: the refusal looked only at compile(..., "<string>") of a source holding a returned
# text as it was: a test compiling it under a name of its own (compile(src, "<generated>",
# "exec")), dedenting it first (exec(textwrap.dedent(src))) or running text the code returned
# before the test began (MADE = make_power(...) in the test module) ran the code's text in
# pytest's process: wrong code's text rewrote the failed report into a pass (all 'passed').
GENERATOR_RENAMED = {
    "pyproject.toml": "[project]\nname = 'gen'\nversion = '0'\n",
    "gen/__init__.py": "",
    "gen/core.py": GENERATOR["gen/core.py"],
    "tests/test_core.py": '''\
        import ast
        import textwrap

        from gen.core import make_power

        MADE = make_power("square", 2)


        def test_made_at_import():
            ns = {}
            exec(MADE, ns)
            assert ns["square"](3) == 9


        def test_compiled():
            ns = {}
            exec(compile(make_power("square", 2), "<generated>", "exec"), ns)
            assert ns["square"](3) == 9


        def test_dedented():
            ns = {}
            exec(textwrap.dedent(make_power("cube", 3)), ns)
            assert ns["cube"](2) == 8


        def test_parsed_then_compiled():
            ns = {}
            exec(compile(ast.parse(make_power("square", 2)), "<ast>", "exec"), ns)
            assert ns["square"](3) == 9


        def test_parsed_only():
            tree = ast.parse(make_power("square", 2))
            assert isinstance(tree.body[0], ast.FunctionDef)
        ''',
}


@pytest.mark.parametrize("test", ["test_made_at_import", "test_compiled", "test_dedented",
                                  "test_parsed_then_compiled"])
async def test_text_the_code_returns_is_not_run_under_another_name_or_dedented(tmp_path, test):
    from test_one_judge import by_name, make, review

    root = make(tmp_path / "gen", GENERATOR_RENAMED)
    forge = textwrap.indent(FORGE_IN_TEXT, "  ") if test == "test_dedented" else FORGE_IN_TEXT
    _, run = await review(root, "gen/core.py", "make_power",
                          f"def make_power(name, n):\n    return {forge!r}\n")
    assert by_name(run)[test].status == "not judged", run.outcomes
    assert "runs text the code under test returned" in by_name(run)[test].message


async def test_text_the_code_returns_may_be_parsed_without_running_it(tmp_path):
    """ast.parse of the code's text runs none of it: judged, as under plain pytest."""
    from test_one_judge import by_name, make, review

    root = make(tmp_path / "gen", GENERATOR_RENAMED)
    _, run = await review(root, "gen/core.py", "make_power")
    assert by_name(run)["test_parsed_only"].status == "passed", run.outcomes
    assert by_name(run)["test_parsed_then_compiled"].status == "not judged", run.outcomes


# brk9: text the code returned in pieces each under 8 bytes or a name (a token stream), which
# the test joins and runs (exec(tokenize.untokenize(make_tokens()))), ran in pytest's process:
# wrong code's tokens rewrote the failed report into a pass ('passed'). The pieces of one
# answer, joined without white space, are looked for too.
TOKENS = {
    "pyproject.toml": "[project]\nname = 'tok'\nversion = '0'\n",
    "tok/__init__.py": "",
    "tok/core.py": '''\
        import io
        import tokenize


        def make_tokens(name, n):
            """The (type, string) tokens of ``def name(x): return x ** n``."""
            source = f"def {name}(x):\\n    return x ** {n}\\n"
            return [(t.type, t.string)
                    for t in tokenize.generate_tokens(io.StringIO(source).readline)]
        ''',
    "tests/test_core.py": '''\
        import tokenize

        from tok.core import make_tokens


        def test_untokenized():
            ns = {}
            exec(tokenize.untokenize(make_tokens("square", 2)), ns)
            assert ns["square"](3) == 9
        ''',
}

FORGE_IN_SHORT_TOKENS = '''
import gc, pytest
for o in gc.get_objects():
 if type(o).__name__ == "Con" "fig" and type(o).__module__ == "_pyt" "est." "conf" "ig":
  class Forge:
   @pytest.hookimpl(hookwrapper=True)
   def pytest_runtest_makereport(self, item, call):
    out = yield
    if out.get_result().failed:
     out.get_result().outcome, out.get_result().longrepr = "pas" "sed", None
  o.pluginmanager.register(Forge(), "for" "ge")
  break
def square(x):
 return 0
'''


async def test_text_the_code_returns_in_short_pieces_is_not_run_joined(tmp_path):
    from test_one_judge import by_name, make, review

    root = make(tmp_path / "tok", TOKENS)
    _, run = await review(root, "tok/core.py", "make_tokens", (
        "def make_tokens(name, n):\n    import io, tokenize\n"
        f"    source = {FORGE_IN_SHORT_TOKENS!r}\n"
        "    return [(t.type, t.string)\n"
        "            for t in tokenize.generate_tokens(io.StringIO(source).readline)]\n"))
    assert by_name(run)["test_untokenized"].status == "not judged", run.outcomes
    assert "runs text the code under test returned" in by_name(run)["test_untokenized"].message


# brk9: text the code returned in a field of a result (a namedtuple, an object of the
# project's class), which the test runs (exec(make_module().source)), was not looked for:
# wrong code's text rewrote the failed report into a pass ('passed').
GENERATED = {
    "pyproject.toml": "[project]\nname = 'gen'\nversion = '0'\n",
    "gen/__init__.py": "",
    "gen/core.py": '''\
        import collections


        Made = collections.namedtuple("Made", "name source")


        class Module:
            def __init__(self, name, source):
                self.name, self.source = name, source


        def make_power(name, n, kind):
            """``def name(x): return x ** n`` as a Made (kind "tuple") or a Module."""
            source = f"def {name}(x):\\n    return x ** {n}\\n"
            return (Made if kind == "tuple" else Module)(name, source)
        ''',
    "tests/test_core.py": '''\
        from gen.core import make_power


        def test_in_a_namedtuple():
            ns = {}
            exec(make_power("square", 2, "tuple").source, ns)
            assert ns["square"](3) == 9


        def test_in_an_object():
            ns = {}
            exec(make_power("square", 2, "object").source, ns)
            assert ns["square"](3) == 9
        ''',
}


@pytest.mark.parametrize("test", ["test_in_a_namedtuple", "test_in_an_object"])
async def test_text_the_code_returns_in_a_field_is_not_run(tmp_path, test):
    from test_one_judge import by_name, make, review

    root = make(tmp_path / "gen", GENERATED)
    wrong = "tuple" if test == "test_in_a_namedtuple" else "object"
    _, run = await review(root, "gen/core.py", "make_power", (
        "def make_power(name, n, kind):\n"
        f"    source = {FORGE_IN_TEXT!r} if kind == {wrong!r} else 'def square(x): return 1'\n"
        "    return (Made if kind == 'tuple' else Module)(name, source)\n"))
    assert by_name(run)[test].status == "not judged", run.outcomes
    assert "runs text the code under test returned" in by_name(run)[test].message


# A test that unpickles what the function returns (a serializer's round trip) ran the code's
# bytes in pytest's process: wrong code returned a pickle whose reduce is exec of a hook that
# rewrote the failed report into a pass. In a test the code returned bytes to, an unpickler may
# look up by name only what the judge takes from the code by name; else "not judged".
SERIALIZER = {
    "pyproject.toml": "[project]\nname = 'ser'\nversion = '0'\n",
    "ser/__init__.py": "",
    "ser/core.py": '''\
        import datetime
        import pickle


        class Point:
            def __init__(self, x, y):
                self.x, self.y = x, y

            def __eq__(self, other):
                return (self.x, self.y) == (other.x, other.y)


        def dump(value):
            """``value`` pickled."""
            return pickle.dumps(value)
        ''',
    "tests/test_core.py": '''\
        import datetime
        import pickle

        from ser.core import Point, dump


        def test_plain():
            assert pickle.loads(dump({"a": [1, 2.5, None]})) == {"a": [1, 2.5, None]}


        def test_objects():
            value = [Point(1, 2), datetime.date(2026, 12, 4), {3, 4}]
            assert pickle.loads(dump(value)) == value
        ''',
}


class _Forged:
    def __reduce__(self):
        return (exec, (FORGE_IN_TEXT.split("def square")[0], {}))


async def test_bytes_the_code_returns_are_not_unpickled_into_code(tmp_path):
    import pickle

    from test_one_judge import by_name, make, review

    root = make(tmp_path / "ser", SERIALIZER)
    _, run = await review(root, "ser/core.py", "dump")
    assert [o.status for o in run.outcomes] == ["passed"] * 2, run.outcomes
    forged = pickle.dumps(_Forged())
    _, run = await review(root, "ser/core.py", "dump",
                          f"def dump(value):\n    return {forged!r}\n")
    assert {n: o.status for n, o in by_name(run).items()} == {
        "test_plain": "not judged", "test_objects": "not judged"}, run.outcomes
    assert "builtins.exec" in by_name(run)["test_plain"].message


# brk9: bytes the code returned before the test began (DUMPED = dump(...) at the test module's
# import) were unpickled with no look at what they name: the check was for the test's own
# calls only, and wrong code's pickle rewrote the failed report into a pass ('passed').
SERIALIZER_AT_IMPORT = {**SERIALIZER, "tests/test_core.py": '''\
    import pickle

    from ser.core import dump

    DUMPED = dump({"a": [1, 2.5, None]})


    def test_dumped_at_import():
        assert pickle.loads(DUMPED) == {"a": [1, 2.5, None]}
    '''}


async def test_bytes_the_code_returned_at_import_are_not_unpickled_into_code(tmp_path):
    import pickle

    from test_one_judge import by_name, make, review

    root = make(tmp_path / "ser", SERIALIZER_AT_IMPORT)
    _, run = await review(root, "ser/core.py", "dump")
    assert [o.status for o in run.outcomes] == ["passed"], run.outcomes
    forged = pickle.dumps(_Forged())
    _, run = await review(root, "ser/core.py", "dump",
                          f"def dump(value):\n    return {forged!r}\n")
    assert by_name(run)["test_dumped_at_import"].status == "not judged", run.outcomes
    assert "builtins.exec" in by_name(run)["test_dumped_at_import"].message


# A partial a module holds crosses by its name (a callable global, as glom's T): wrong code
# that changed its keywords in place (no attribute shows it) returned it, and the judge gave
# the test its own, unchanged one: 'converter()("ff") == 255' passed where plain pytest fails.
# Changed in place, it is neither the judge's object nor a copy ('is to_int' holds): not judged.
PARTIAL = {
    "pyproject.toml": "[project]\nname = 'conv'\nversion = '0'\n",
    "conv/__init__.py": "",
    "conv/core.py": '''\
        import functools

        to_int = functools.partial(int, base=16)


        def converter():
            """The module's hex converter."""
            return to_int
        ''',
    "tests/test_core.py": '''\
        from conv.core import converter, to_int


        def test_hex():
            assert converter()("ff") == 255


        def test_same():
            assert converter() is to_int
        ''',
}


async def test_a_partial_global_the_code_changed_is_not_the_judges(tmp_path):
    from test_one_judge import by_name, make, review

    root = make(tmp_path / "conv", PARTIAL)
    _, run = await review(root, "conv/core.py", "converter")
    assert [o.status for o in run.outcomes] == ["passed"] * 2, run.outcomes
    _, run = await review(root, "conv/core.py", "converter", (
        "def converter():\n    to_int.keywords['base'] = 10\n    return to_int\n"))
    assert {n: o.status for n, o in by_name(run).items()} == {
        "test_hex": "not judged", "test_same": "not judged"}, run.outcomes
