"""codeteam's pytest plugin: each test's outcome as one JSON line (runs *inside* the sandbox).

Standard library and pytest only: this file is copied into the sandbox and registered by the
launcher (:data:`LAUNCHER`, ``pytest.main(args, plugins=[this module])``), in the project's
own interpreter, with the project's working directory, ini files and conftest.py files. The
spec (a JSON file in the run's files folder, ``$CODETEAM_FILES_DIR``) says:

- ``mode``: ``"select"`` (count, per test, the calls of the target function: which tests call
  it) or ``"run"`` (run the tests in ``keep`` only; the others are deselected);
- ``target``: ``module`` (dotted), ``qualname``, ``file`` (path relative to the project root),
  ``firstlineno`` (1-based line of its first decorator or ``def``), ``name``;
- ``keep``: node ids to run (``"run"``); ``doctest_files``: source files (relative to the
  project root) added to the arguments by codeteam: only their doctests are kept;
- ``test_timeout``: seconds per test (setup, call and teardown together): ``SIGALRM`` raises
  :class:`CodeteamTestTimeout` in the test; a test stuck in C code is ended by faulthandler's
  watchdog 2 s later (the whole run ends; the runner reports it).

Lines written to the results descriptor (``$CODETEAM_RESULTS_FD``; dropped from the
environment and moved to another descriptor number before any project code runs):
``{"event": "collect_error", "nodeid", "message"}``, ``{"event": "collected", "count",
"doctest_modules"}``, ``{"event": "start", "nodeid"}``, ``{"event": "outcome", "nodeid",
"outcome", "when", "message", "exception_type", "expected", "actual", "traceback": [[path,
line]], "longrepr", "duration", "calls", "mentions"}`` and finally ``{"event": "done", "exitstatus",
"outcomes"}``. ``outcome`` is passed / failed / error / skipped / xfailed / xpassed / timeout,
as pytest decides it (an error in setup or teardown is "error"; a failing call whose teardown
also fails stays "failed"). Paths in ``traceback`` are relative to the project root when under
it; lines are 1-based. ``calls`` (mode "select") is 1 when the target was called during the
test's setup, call or teardown, else 0 (counting stops at the first call of each test, so a
test calling it a million times costs no more than one call); ``mentions`` says whether the test function's source names the
target (for tests that did not run).

Judged runs (mode ``"run"`` with a ``judge`` entry in the spec: ``candidate`` the file of
the run's files folder holding the candidate text, ``file`` the target's path relative to the
project root, ``lines`` the 1-based lines the candidate's ``def`` may start at, ``span`` the
function's 1-based lines in the judge view, ``shift`` how many lines longer the candidate's
function is): this process never imports or runs the code under test. The target's file is
a *judge view* (:mod:`codeteam.execution.judge_view`: the user's own text, the function's body
one call of ``__codeteam_forward__``), and each call goes to a *subject* process
(:mod:`codeteam.execution.pytest_subject`, speaking :mod:`codeteam.execution.pytest_codec`)
started at ``pytest_configure``, after this process
made itself non-dumpable (same uid, yet no ptrace, no ``/proc/<pid>/fd`` or ``mem``) and
moved the results descriptor (the subject inherits only its two pipes). Values cross as data;
every comparison, ``pytest.raises``, doctest output check and report is made here. The
outcome line of such a test also says ``"fallback": reason`` when an argument could not cross
(the runner runs that test again the old way, in one process) and becomes an error when the
judge decided one (the subject died, sent a value of a class the code defines, "raised" a
pytest outcome); traceback lines are the candidate's (the subject's frames of the call, the
view's other lines shifted by ``shift``).

Otherwise (mode "select", or no view) this process also runs the code under test, so nothing
in it is secret from that code: the runner checks what it reads (every expected outcome
present, the "done" line, the exit status agreeing with the outcomes), which stops accidents
and casual forging, not a determined attacker with the same process; those verdicts are
reported as not trusted.
"""

from __future__ import annotations

import builtins
import faulthandler
import importlib
import importlib.util
import json
import os
import re
import signal
import sys
import threading
import time

import pytest

SPEC_NAME = "_codeteam_pytest_spec.json"
REPR_LIMIT = 2000
"""Characters kept of each compared value's repr and of messages."""
TRACEBACK_ENTRIES = 40
LONGREPR_LIMIT = 3000
"""Characters kept of the end of pytest's own report of a failure (what ``pytest`` prints)."""

_state = {
    "out": None,
    "spec": {},
    "root": "",
    "target_abs": "",
    "calls": 0,
    "compare": None,
    "phases": {},
    "outcomes": 0,
    "code": None,
    "keep": None,
    "rearm": None,
    "client": None,
    "fallback": None,
    "forced": None,
}
SUBJECT_FILE = "_codeteam_pytest_subject.py"


_INSTALLED = tuple(
    {os.path.join(os.path.realpath(p), "") for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
)
"""Prefixes of the interpreter's own files (standard library, pytest): left out of tracebacks."""


class CodeteamTestTimeout(BaseException):
    """The test ran past its time limit (a BaseException: ``except Exception`` in the code
    under test does not swallow it)."""


def _open_channel() -> None:
    fd_text = os.environ.pop("CODETEAM_RESULTS_FD", None)
    if fd_text is None:
        _state["out"] = None
        return
    fd = int(fd_text)
    try:
        moved = os.dup(fd)
        os.close(fd)
    except OSError:
        moved = fd
    _state["out"] = os.fdopen(moved, "w", encoding="utf-8", buffering=1)


def _emit(event: dict) -> None:
    out = _state["out"]
    if out is None:
        return
    try:
        out.write(json.dumps(event, default=str) + "\n")
        out.flush()
    except (OSError, ValueError):
        pass


def _cap(text: str, limit: int = REPR_LIMIT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _safe_repr(value: object) -> str:
    try:
        return _cap(repr(value))
    except BaseException as error:  # noqa: BLE001 - a broken __repr__ is the code's
        return f"<repr failed: {type(error).__name__}>"


def _relative(path: str) -> str:
    root = _state["root"]
    if root and (path == root or path.startswith(root.rstrip("/") + "/")):
        return os.path.relpath(path, root)
    return path


# --------------------------------------------------------------------------------------------
# Configuration and collection


def _files_dir() -> str:
    return os.environ.get("CODETEAM_FILES_DIR", os.path.dirname(os.path.abspath(__file__)))


def _read_spec() -> dict:
    try:
        with open(os.path.join(_files_dir(), SPEC_NAME), encoding="utf-8") as handle:
            spec = json.load(handle)
    except (OSError, ValueError):
        spec = {}
    return spec if isinstance(spec, dict) else {}


def _non_dumpable() -> bool:
    """``prctl(PR_SET_DUMPABLE, 0)``: processes of the same uid (the subject) can no longer
    ptrace this one or open its ``/proc/<pid>/fd``, ``mem``, ``environ``."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(4, 0, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def client_errors() -> tuple:
    subject = sys.modules["_codeteam_pytest_subject"]
    return (subject.JudgeError, subject.OneProcess)


def _judge_error(message: str) -> None:
    if _state["forced"] is None:
        _state["forced"] = message


def _judge_fallback(reason: str) -> None:
    if _state["fallback"] is None:
        _state["fallback"] = reason


SHIELDED = ("SIGINT", "SIGQUIT", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGHUP", "SIGTERM",
            "SIGUSR1", "SIGUSR2")
"""Signals a judge catches (the running test becomes an error, the run goes on): the subject
(same uid) can ``kill`` its parent by pid; SIGINT would end the running test before its call
report (pytest re-raises KeyboardInterrupt) and the session with exit status 2, SIGTSTP stop
it. The sandbox ends a run with SIGKILL only."""


def _signalled(signum, frame) -> None:
    name = signal.Signals(signum).name
    _judge_error(f"the judge received {name} during this test (the code under test signals "
                 "its parent?): not judged")


def _shield_from_subject() -> None:
    """A Python-level handler (not SIG_IGN: a handler is reset by ``exec``, so the subject
    starts with Python's own) for each of :data:`SHIELDED`: the signal makes the test running
    at the time an error, and nothing else happens."""
    for name in SHIELDED:
        number = getattr(signal, name, None)
        if number is not None:
            try:
                signal.signal(number, _signalled)
            except (OSError, ValueError):  # not the main thread: pytest runs there
                pass


def _install_judge(spec: dict) -> None:
    """Judged runs: the builtins the judge view calls, and the client that starts the
    subject (done when this plugin is imported: conftest files may import the view before
    ``pytest_configure``)."""
    judge = spec.get("judge")
    target = spec.get("target") or {}
    if spec.get("mode") != "run" or not isinstance(judge, dict):
        return
    files = _files_dir()
    root = os.path.realpath(os.environ.get("CODETEAM_PROJECT_ROOT") or os.getcwd())
    for name in ("_codeteam_pytest_codec", "_codeteam_pytest_subject"):  # before any test code
        loaded = importlib.util.spec_from_file_location(name, os.path.join(files, name + ".py"))
        module = importlib.util.module_from_spec(loaded)
        sys.modules[name] = module
        loaded.loader.exec_module(module)
    subject = sys.modules["_codeteam_pytest_subject"]
    path = os.path.join(files, SUBJECT_FILE)
    if not _non_dumpable():
        def refuse(args, kwargs):
            _judge_error("the judge could not make itself non-dumpable: not judged")
            raise subject.JudgeError("the judge could not make itself non-dumpable")

        builtins.__codeteam_forward__ = refuse
        builtins.__codeteam_imported__ = lambda space: None
        return
    config = {"kind": "config", "module": target.get("module"), "qualname": target.get("qualname"),
              "file": os.path.join(root, target.get("file") or ""),
              "candidate": os.path.join(files, judge.get("candidate") or ""),
              "lines": [int(n) for n in judge.get("lines") or []], "root": root}
    _shield_from_subject()  # before the subject can start (a conftest importing the view)
    client = subject.JudgeClient(config, path, _judge_error, _judge_fallback,
                                 CodeteamTestTimeout, float(spec.get("test_timeout") or 0))
    _state["client"] = client
    builtins.__codeteam_forward__ = client.forward
    builtins.__codeteam_imported__ = client.imported


def pytest_configure(config):
    spec = _read_spec()
    _state["spec"] = spec
    _state["root"] = os.path.realpath(os.environ.get("CODETEAM_PROJECT_ROOT") or os.getcwd())
    target = spec.get("target") or {}
    if target.get("file"):
        _state["target_abs"] = os.path.join(_state["root"], target["file"])
    keep = spec.get("keep")
    _state["keep"] = None if keep is None else set(keep)
    _open_channel()
    client = _state["client"]
    if client is not None:
        try:
            client.ensure()  # before any test runs; a failure is each test's error
        except client_errors():
            pass


def pytest_collectreport(report):
    if report.failed:
        _emit({"event": "collect_error", "nodeid": report.nodeid,
               "message": _collect_message(report)})


def _collect_message(report) -> str:
    text = getattr(report, "longreprtext", "") or str(report.longrepr)
    errors = [line[4:].strip() for line in text.splitlines() if line.startswith("E   ")]
    if errors:
        return _cap(" ".join(e for e in errors if e)[:REPR_LIMIT])
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return _cap(lines[-1] if lines else "collection failed")


def _is_doctest(item) -> bool:
    return type(item).__name__ == "DoctestItem"


def pytest_collection_modifyitems(session, config, items):
    spec = _state["spec"]
    keep = _state["keep"]
    root = _state["root"]
    doctest_only = {os.path.join(root, path) for path in spec.get("doctest_files") or []}
    chosen, dropped = [], []
    for item in items:
        ok = True
        if doctest_only and os.path.realpath(str(item.path)) in doctest_only:
            ok = _is_doctest(item)  # a source file: only its doctests
        if ok and keep is not None:
            ok = item.nodeid in keep
        (chosen if ok else dropped).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = chosen


def pytest_collection_finish(session):
    _emit({"event": "collected", "count": len(session.items),
           "rootdir": _relative(os.path.realpath(str(session.config.rootpath))),
           "doctest_modules": bool(session.config.getoption("doctestmodules", False)),
           "items": [item.nodeid for item in session.items]
           if _state["spec"].get("mode") == "select" else None})
    if _state["spec"].get("mode") == "select":
        _start_counting()


# --------------------------------------------------------------------------------------------
# Counting the target's calls (mode "select")


def _target_code():
    """The target's code object, imported now (after collection), or None."""
    target = _state["spec"].get("target") or {}
    try:
        obj = importlib.import_module(target["module"])
        for part in target["qualname"].split("."):
            holder = obj
            if isinstance(holder, type) and part in vars(holder):
                obj = vars(holder)[part]  # staticmethod/classmethod objects as defined
            else:
                obj = getattr(holder, part)
        obj = getattr(obj, "__func__", None) or getattr(obj, "fget", None) or obj
        for _ in range(20):  # through decorators' wrappers (functools.wraps)
            code = getattr(obj, "__code__", None)
            if (code is not None and code.co_name == target.get("name")
                    and os.path.realpath(code.co_filename) == _state["target_abs"]):
                return code
            obj = getattr(obj, "__wrapped__", None)
            if obj is None:
                return None
        return None
    except BaseException:  # noqa: BLE001 - import errors are the tests' to report
        return None


def _start_counting() -> None:
    target = _state["spec"].get("target") or {}
    code = _target_code()
    _state["code"] = code
    module = sys.modules.get(target.get("module") or "")
    where = getattr(module, "__file__", None)
    if where and os.path.realpath(where) != _state["target_abs"]:
        _emit({"event": "elsewhere", "module": target.get("module"), "file": where})
    monitoring = getattr(sys, "monitoring", None)
    if code is not None and monitoring is not None:
        for tool in range(5, 0, -1):
            try:
                monitoring.use_tool_id(tool, "codeteam")
            except ValueError:
                continue

            def started(code_, offset):
                _state["calls"] += 1
                return monitoring.DISABLE  # one call per test is enough: off until the next

            monitoring.register_callback(tool, monitoring.events.PY_START, started)
            monitoring.set_local_events(tool, code, monitoring.events.PY_START)
            _state["rearm"] = monitoring.restart_events
            return
    name = target.get("name")
    firstlineno = target.get("firstlineno")
    target_abs = _state["target_abs"]
    real = {}

    def matches(frame_code) -> bool:
        if code is not None:
            return frame_code is code
        if frame_code.co_name != name or frame_code.co_firstlineno != firstlineno:
            return False
        filename = frame_code.co_filename
        if filename not in real:
            real[filename] = os.path.realpath(filename) == target_abs
        return real[filename]

    def profile(frame, event, arg):
        if event == "call" and matches(frame.f_code):
            _state["calls"] += 1
            sys.setprofile(None)  # one call per test is enough: no cost until the next test

    def rearm():
        sys.setprofile(profile)

    _state["rearm"] = rearm
    sys.setprofile(profile)
    threading.setprofile(profile)


def pytest_assertrepr_compare(config, op, left, right):
    """Keep the compared values of the test's failing comparison (pytest's output is left as it
    is: returns None)."""
    _state["compare"] = (op, _safe_repr(left), _safe_repr(right))


# --------------------------------------------------------------------------------------------
# Running one test


def _alarm(signum, frame):
    raise CodeteamTestTimeout(f"the test ran past its {_state['spec'].get('test_timeout')} s limit")


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_protocol(item, nextitem):
    limit = float(_state["spec"].get("test_timeout") or 0)
    _state["calls"] = 0
    _state["compare"] = None
    _state["phases"] = {}
    _state["fallback"] = None
    _state["forced"] = None
    if _state.get("client") is not None:
        _state["client"].new_test()
    if _state.get("rearm") is not None:
        _state["rearm"]()
    _emit({"event": "start", "nodeid": item.nodeid})
    armed = limit > 0 and threading.current_thread() is threading.main_thread()
    if armed:
        signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, limit)
        faulthandler.dump_traceback_later(limit + 2, exit=True)
    started = time.monotonic()
    try:
        yield
    finally:
        if armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            faulthandler.cancel_dump_traceback_later()
    _emit(_outcome(item, time.monotonic() - started))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    made = yield
    report = made.get_result()
    _state["phases"][call.when] = (report, call.excinfo, _state["compare"])


def _outcome(item, duration: float) -> dict:
    phases = _state["phases"]
    outcome, when = "passed", "call"
    for phase in ("setup", "call", "teardown"):
        if phase not in phases:
            continue
        report = phases[phase][0]
        wasxfail = hasattr(report, "wasxfail")
        if phase == "setup":
            if report.failed:
                outcome, when = "error", phase
                break
            if report.skipped:
                outcome, when = ("xfailed" if wasxfail else "skipped"), phase
                break
        elif phase == "call":
            if report.failed:
                outcome, when = "failed", phase
            elif report.skipped:
                outcome, when = ("xfailed" if wasxfail else "skipped"), phase
            elif wasxfail:
                outcome, when = "xpassed", phase
        elif report.failed and outcome in ("passed", "xpassed"):
            outcome, when = "error", phase
    interrupted = outcome in ("passed", "xpassed") and any(
        phase not in phases for phase in ("setup", "call", "teardown"))
    if interrupted:  # KeyboardInterrupt or Exit: pytest re-raised it before a report
        outcome = "error"
    event = {"event": "outcome", "nodeid": item.nodeid, "outcome": outcome, "when": when,
             "duration": round(duration, 6), "calls": _state["calls"],
             "file": _relative(os.path.realpath(str(item.path))), "line": item.location[1],
             "doctest": _is_doctest(item), "own_doctest": _is_doctest(item) and item.name == (
                 f"{(_state['spec'].get('target') or {}).get('module')}."
                 f"{(_state['spec'].get('target') or {}).get('qualname')}")}
    if when in phases:
        report, excinfo, compare = phases[when]
        event.update(_details(report, excinfo, compare, outcome))
    if interrupted:
        event["message"] = "the test was interrupted before pytest reported its end"
    if _state["fallback"] is not None:
        event["fallback"] = _state["fallback"]
    if _state["forced"] is not None and event["outcome"] != "timeout":
        event["outcome"] = "error"  # the judge's decision, whatever the test caught
        event["message"] = _cap(_state["forced"])
    if outcome != "passed" and _state["calls"] == 0:
        event["mentions"] = _mentions(item)
    _state["outcomes"] += 1
    return event


def _details(report, excinfo, compare, outcome) -> dict:
    details: dict = {"message": _message(report, outcome)}
    if report.failed:
        text = getattr(report, "longreprtext", "") or ""
        details["longrepr"] = text[-LONGREPR_LIMIT:]
    if excinfo is not None:
        value = excinfo.value
        details["exception_type"] = type(value).__name__
        if isinstance(value, CodeteamTestTimeout):
            details["outcome"] = "timeout"
        entries = []
        try:
            for entry in excinfo.traceback:
                path = str(entry.path)
                if not path.startswith(_INSTALLED) and "/site-packages/" not in path:
                    entries.append([_relative(path), entry.lineno + 1])
        except BaseException:  # noqa: BLE001 - a traceback pytest cannot walk
            entries = []
        details["traceback"] = _judged_frames(entries, value)[-TRACEBACK_ENTRIES:]
        if type(value).__name__ == "DocTestFailure":
            example = getattr(value, "example", None)
            details["message"] = _cap(f"Failed example: {getattr(example, 'source', '').strip()}")
            details["expected"] = _cap(getattr(example, "want", "") or "").removesuffix("\n")
            details["actual"] = _cap(getattr(value, "got", "") or "").removesuffix("\n")
            details["traceback"] += _doctest_line(value)
        elif type(value).__name__ == "UnexpectedException":  # a doctest example raised
            inner = value.exc_info[1]
            details["exception_type"] = type(inner).__name__
            details["message"] = _cap(f"{type(inner).__name__}: {inner}")
            details["traceback"] = _doctest_line(value) + _judged_frames(
                _frames(value.exc_info[2]), inner)
        elif compare is not None and compare[0] == "==":
            details["actual"], details["expected"] = compare[1], compare[2]
    return details


def _judged_frames(entries: list, exc) -> list:
    """A judged run's traceback lines as lines of the candidate: the view's forwarding lines
    dropped, its lines after the function shifted, the subject's frames of the call added."""
    judge = _state["spec"].get("judge")
    if not isinstance(judge, dict):
        return entries
    target = (_state["spec"].get("target") or {}).get("file")
    start, end = judge.get("span") or [0, -1]
    shift = int(judge.get("shift") or 0)
    out = []
    for path, line in entries:
        if path == target:
            if start <= line <= end:
                continue
            if line > end:
                line += shift
        out.append([path, line])
    remote = getattr(exc, "__codeteam_frames__", None)
    for path, line in remote if isinstance(remote, list) else []:
        real = os.path.realpath(path)
        if not real.startswith(_INSTALLED) and "/site-packages/" not in real:
            out.append([_relative(real), line])
    return out


def _frames(tb) -> list:
    entries = []
    while tb is not None:
        path = os.path.realpath(tb.tb_frame.f_code.co_filename)
        if not path.startswith(_INSTALLED) and "/site-packages/" not in path:
            entries.append([_relative(path), tb.tb_lineno])
        tb = tb.tb_next
    return entries[-TRACEBACK_ENTRIES:]


def _doctest_line(failure) -> list:
    test = getattr(failure, "test", None)
    example = getattr(failure, "example", None)
    if test is None or example is None or test.lineno is None or not test.filename:
        return []
    return [[_relative(os.path.realpath(test.filename)), test.lineno + example.lineno + 1]]


def _message(report, outcome: str) -> str:
    longrepr = report.longrepr
    if longrepr is None:
        return _cap(getattr(report, "wasxfail", "") or "")
    if isinstance(longrepr, tuple) and len(longrepr) == 3:  # a skip: (path, line, reason)
        return _cap(str(longrepr[2]))
    crash = getattr(longrepr, "reprcrash", None)
    if crash is not None and getattr(crash, "message", None):
        message = crash.message
        if hasattr(report, "wasxfail") and report.wasxfail:
            message = f"{report.wasxfail}: {message}"
        return _cap(message)
    errorstring = getattr(longrepr, "errorstring", None)  # a fixture lookup error
    if errorstring:
        return _cap(str(errorstring).strip().splitlines()[0])
    text = str(longrepr)
    errors = [line[1:].strip() for line in text.splitlines() if line.startswith("E ")]
    lines = errors or [line.strip() for line in text.splitlines() if line.strip()]
    return _cap(" ".join(lines[:3]) if errors else (lines[-1] if lines else outcome))


def _mentions(item) -> bool:
    name = (_state["spec"].get("target") or {}).get("name")
    function = getattr(item, "function", None)
    if not name or function is None:
        return False
    try:
        import inspect

        source = inspect.getsource(function)
    except (OSError, TypeError):
        return False
    return re.search(r"\b" + re.escape(name) + r"\b", source) is not None


def pytest_sessionfinish(session, exitstatus):
    if _state["client"] is not None:
        _state["client"].close()
    if _state["spec"].get("mode") == "select":
        sys.setprofile(None)
        threading.setprofile(None)
    _emit({"event": "done", "exitstatus": int(exitstatus), "outcomes": _state["outcomes"]})


def launcher(plugin: str, prelude: str = "") -> str:
    """The ``python -c`` program that starts pytest (argv: pytest's arguments) with the plugin
    module ``plugin``, whose file ``<plugin>.py`` the run copied into ``$CODETEAM_FILES_DIR``;
    ``prelude`` runs first (``os``, ``sys``, ``json`` and ``files`` are defined). Without
    pytest in the interpreter it exits 97 with a line saying so. Shared by this plugin and
    ``codeteam bench --repo``'s survey plugin."""
    return (
        "import json, os, sys\n"
        'files = os.environ["CODETEAM_FILES_DIR"]\n'
        + prelude
        + "import importlib.util\n"
        "spec = importlib.util.spec_from_file_location(\n"
        f'    "{plugin}", os.path.join(files, "{plugin}.py"))\n'
        "plugin = importlib.util.module_from_spec(spec)\n"
        f'sys.modules["{plugin}"] = plugin\n'
        "try:\n"
        "    import pytest\n"
        "except ImportError as error:\n"
        '    print("codeteam: no pytest in this interpreter (" + sys.executable + "): " + str(error),\n'
        "          file=sys.stderr)\n"
        "    sys.exit(97)\n"
        "spec.loader.exec_module(plugin)\n"
        "sys.exit(pytest.main(sys.argv[1:], plugins=[plugin]))\n"
    )


_IMPORT_ROOT_FIRST = """\
sys.path.append(files)
try:
    with open(os.path.join(files, "_codeteam_pytest_spec.json"), encoding="utf-8") as handle:
        import_root = json.load(handle).get("import_root")
except (OSError, ValueError):
    import_root = None
if import_root:  # the project's own source first (a src/ layout; over an installed copy)
    root = os.environ.get("CODETEAM_PROJECT_ROOT") or os.getcwd()
    sys.path.insert(0, os.path.normpath(os.path.join(root, import_root)))
"""


LAUNCHER = launcher("_codeteam_pytest_plugin", _IMPORT_ROOT_FIRST)
"""The ``python -c`` program that starts pytest with this plugin (argv: pytest's arguments)."""


if __name__ == "_codeteam_pytest_plugin":  # in the sandbox (not when codeteam imports LAUNCHER)
    _install_judge(_read_spec())
