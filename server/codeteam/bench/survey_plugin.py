"""``codeteam bench --repo``'s pytest plugin: which of the project's functions each test calls
(runs *inside* the sandbox, in the project's interpreter, with the original code).

Standard library and pytest only: this file is copied into the sandbox and registered by
:data:`LAUNCHER` (``pytest.main(args, plugins=[this module])``). While each test runs (setup,
call and teardown), a profile hook records every Python function entered whose code lives in
a file under the project root that is not a test file (``test_*.py``, ``*_test.py``,
``conftest.py``) nor inside a virtualenv or ``site-packages``: one pytest run over the whole
suite says, for every function of the project, which tests call it (selection by execution,
as the tester does for one function in :mod:`codeteam.execution.pytest_plugin`).

Lines written to the results descriptor (``$CODETEAM_RESULTS_FD``, dropped from the
environment before any project code runs): ``{"event": "collect_error", "nodeid",
"message"}``, ``{"event": "collected", "count", "rootdir"}``, one ``{"event": "test",
"nodeid", "outcome", "functions": [[file, firstlineno, name], ...]}`` per test (``outcome``:
passed, failed, error, skipped, xfailed, xpassed, timeout; ``file`` relative to the project
root, ``firstlineno`` 1-based as in ``co_firstlineno``: the first decorator's line), and
``{"event": "done", "exitstatus"}``. The spec file (``_codeteam_survey_spec.json`` in
``$CODETEAM_FILES_DIR``) gives ``test_timeout`` (seconds per test; ``SIGALRM``).
"""

from __future__ import annotations

import json
import os
import re
import signal
import sys
import threading

import pytest

SPEC_NAME = "_codeteam_survey_spec.json"
_TEST_FILE = re.compile(r"^(test_.*|.*_test|conftest)\.py$")

_state: dict = {"out": None, "root": "", "spec": {}, "called": set(), "phases": {}}
_files: dict[str, str | None] = {}
"""co_filename -> path relative to the root (a project file), or None (not one)."""


class CodeteamSurveyTimeout(BaseException):
    """A test ran past its time limit during the survey."""


def _emit(event: dict) -> None:
    out = _state["out"]
    if out is None:
        return
    try:
        out.write(json.dumps(event, default=str) + "\n")
        out.flush()
    except (OSError, ValueError):
        pass


def _project_file(filename: str) -> str | None:
    if filename in _files:
        return _files[filename]
    relative = None
    real = os.path.realpath(filename)
    root = _state["root"]
    if real.endswith(".py") and real.startswith(root + "/"):
        relative = os.path.relpath(real, root)
        parts = relative.split(os.sep)
        if (_TEST_FILE.match(parts[-1]) or "site-packages" in parts
                or any(p.startswith(".") for p in parts[:-1])
                or os.path.isfile(os.path.join(root, parts[0], "pyvenv.cfg"))):
            relative = None
    _files[filename] = relative
    return relative


def _profile(frame, event, arg):
    if event != "call":
        return
    code = frame.f_code
    relative = _project_file(code.co_filename)
    if relative is not None:
        _state["called"].add((relative, code.co_firstlineno, code.co_name))


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    """The whole suite is surveyed whatever the project's ``addopts`` say: its ``-x`` /
    ``--maxfail`` would end the survey at the first failing test, its ``--lf`` / ``--sw``
    would run only a part of it (as the judge does,
    :meth:`codeteam.execution.pytest_plugin.Judge.pytest_cmdline_main`)."""
    for name, value in (("maxfail", 0), ("lf", False), ("stepwise", False),
                        ("stepwise_skip", False)):
        if hasattr(config.option, name):
            setattr(config.option, name, value)


def pytest_configure(config):
    files = os.environ.get("CODETEAM_FILES_DIR", os.path.dirname(os.path.abspath(__file__)))
    try:
        with open(os.path.join(files, SPEC_NAME), encoding="utf-8") as handle:
            _state["spec"] = json.load(handle)
    except (OSError, ValueError):
        _state["spec"] = {}
    _state["root"] = os.path.realpath(os.environ.get("CODETEAM_PROJECT_ROOT") or os.getcwd())
    fd_text = os.environ.pop("CODETEAM_RESULTS_FD", None)
    if fd_text is not None:
        fd = int(fd_text)
        try:
            moved = os.dup(fd)
            os.close(fd)
        except OSError:
            moved = fd
        _state["out"] = os.fdopen(moved, "w", encoding="utf-8", buffering=1)


def pytest_collectreport(report):
    if report.failed:
        text = getattr(report, "longreprtext", "") or str(report.longrepr)
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        _emit({"event": "collect_error", "nodeid": report.nodeid,
               "message": (lines[-1] if lines else "collection failed")[:500]})


def pytest_collection_finish(session):
    rootdir = os.path.realpath(str(session.config.rootpath))
    root = _state["root"]
    if rootdir == root or rootdir.startswith(root + "/"):
        rootdir = os.path.relpath(rootdir, root)
    _emit({"event": "collected", "count": len(session.items), "rootdir": rootdir})


def _alarm(signum, frame):
    raise CodeteamSurveyTimeout("the test ran past its time limit")


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_protocol(item, nextitem):
    limit = float(_state["spec"].get("test_timeout") or 0)
    _state["called"] = set()
    _state["phases"] = {}
    armed = limit > 0 and threading.current_thread() is threading.main_thread()
    if armed:
        signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, limit)
    sys.setprofile(_profile)
    threading.setprofile(_profile)
    try:
        yield
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
        if armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
    _emit({"event": "test", "nodeid": item.nodeid, "outcome": _outcome(),
           "functions": sorted(_state["called"])})


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    made = yield
    report = made.get_result()
    timed_out = call.excinfo is not None and call.excinfo.errisinstance(CodeteamSurveyTimeout)
    _state["phases"][call.when] = (report, timed_out)


def _outcome() -> str:
    outcome = "passed"
    for phase in ("setup", "call", "teardown"):
        if phase not in _state["phases"]:
            continue
        report, timed_out = _state["phases"][phase]
        if timed_out:
            return "timeout"
        xfail = hasattr(report, "wasxfail")
        if report.failed:
            return "failed" if phase == "call" else "error"
        if report.skipped:
            return "xfailed" if xfail else "skipped"
        if phase == "call" and xfail:
            outcome = "xpassed"
    return outcome


def pytest_sessionfinish(session, exitstatus):
    sys.setprofile(None)
    _emit({"event": "done", "exitstatus": int(exitstatus)})
