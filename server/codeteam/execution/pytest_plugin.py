"""codeteam's pytest plugin, the *judge* (runs inside the sandbox; standard library and pytest
only): one object whose hooks are methods and which reports through one channel, as
pytest-xdist's ``WorkerInteractor``.

The launcher (:data:`codeteam.execution.pytest_launch.LAUNCHER`) loads this file by path from
``$CODETEAM_FILES_DIR`` and runs ``pytest.main(args, plugins=[PLUGIN])`` in the project's
interpreter, working directory, ini files and conftest.py files; nothing of the files folder
is put on ``sys.path``. The spec (a JSON file there, written by
:mod:`codeteam.execution.pytest_run`) says:

- ``mode``: ``"select"`` (which tests reach the function: every test pytest collects runs,
  and one that calls the judged function ends there, :class:`ReachedTarget`, before any code
  under test runs for it; calls during collection and imports go to the subject for real) or
  ``"run"`` (the tests in ``keep`` and codeteam's own tests below; the others deselected, but
  for the tests of a class that come before one kept: plain pytest runs them first, and a
  test may depend on what they set on the class, ``self.__class__.no_symlink = ...``);
- ``target``: ``module``, ``qualname`` (the target), ``judged`` (the function the view
  forwards: the target, or the outermost function around a nested one), ``file`` (relative
  to the project root), ``name``;
- ``judge``: ``candidate`` (the file holding the candidate text), ``lines`` (1-based lines its
  ``def`` may start at), ``span`` (the judged function's lines in the view), ``shift``;
- ``docstring``: the test ids of the target's docstring examples in order (run by pytest's
  own doctest runner and output checker as one ``DoctestItem``, each example reported
  apart); ``examples``: AI tests written as doctest examples (one ``DoctestItem`` each);
  ``asserts``: generated test modules (``setup`` at module level, ``source`` the body of one
  test function, asserts rewritten by pytest), each seeing the target module's namespace;
- ``shared_tmp``: the folder the judge shares with the code under test (``/tmp`` under bwrap;
  a judged run's module files made there once the code started are never imported here:
  :class:`~codeteam.execution.pytest_subject.SharedImports`);
- ``cpu_limit``: CPU seconds a test may use in this process and, apart, in the subject
  (all of the subjects' processes, as the server measures them) and in the processes the
  test's own code started (ended when it is cut) (both looked at every
  ``max(1, cpu_limit / 2)`` s: beyond ``ceil(cpu_limit) + 3`` the test is cut); ``wall_limit``: the wall-clock backstop per test, less the time
  its judge and subjects waited for a CPU (a test cut by it while under its CPU limit is
  reported ``busy``); ``judge_cpu_limit``: CPU seconds of the test's own code in this
  process, and apart of the crossing of its calls (:meth:`Judge._judge_cpu_look`).

The target's file is the judge view (:mod:`codeteam.execution.judge_view`): its forwarding
call goes to :class:`~codeteam.execution.pytest_subject.JudgeClient`, started at
``pytest_configure`` after this process made itself non-dumpable. Every comparison,
``pytest.raises``, doctest output check and report is made here. Lines written to the results
descriptor (``$CODETEAM_RESULTS_FD``, moved and dropped from the environment first): JSON
objects with ``event`` ``collect_error``, ``collected``, ``start``, ``outcome``, ``done``
(see :meth:`Judge.outcome` for an outcome's fields; ``done`` has ``exitstatus``, ``outcomes``,
``stopped``, and ``internal``: pytest's own error that ended the session, if any).
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import faulthandler
import fnmatch
import functools
import importlib
import importlib.util
import inspect
import itertools
import json
import math
import os
import re
import signal
import sys
import textwrap
import threading
import time
import types

import pytest

SPEC_NAME = "_codeteam_pytest_spec.json"
SUBJECT_FILE = "_codeteam_pytest_subject.py"
ELSEWHERE = ".codeteam-called-elsewhere"
"""The file a process the test started makes in the judge's folder when the judge view it
imported called the function (``python -m pkg.mod``: judge_view.ELSEWHERE)."""
ELSEWHERE_REASON = ("the test runs the module under test in a process of its own (python -m, "
                    "a script, a program of the project), which called the function: it runs "
                    "there as the judge's view, which cannot call the code under test")
REPR_LIMIT = 2000
"""Characters kept of each compared value's repr and of messages."""
TRACEBACK_ENTRIES = 40
LONGREPR_LIMIT = 3000
"""Characters kept of the end of pytest's own report of a failure."""
_INSTALLED = tuple(
    {os.path.join(os.path.realpath(p), "") for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
)
"""Prefixes of the interpreter's own files (standard library, pytest): left out of tracebacks."""


_PYTEST_MAJOR = int(re.match(r"\d+", pytest.__version__).group())

_MIRRORED = {"==": "==", "!=": "!=", "is": "is", "is not": "is not", "<": ">", ">": "<",
             "<=": ">=", ">=": "<="}
"""Comparisons whose sides can be swapped (the operator mirrored) to put the function's value
first."""


_READS_OUTPUT = frozenset({"capsys", "capfd", "capsysbinary", "capfdbinary", "capteesys"})
"""pytest's fixtures through which a test reads the output written during it."""


class CodeteamTestTimeout(BaseException):
    """The test used its CPU time (a BaseException: ``except Exception`` does not catch it)."""


class CodeteamBusy(BaseException):
    """The test reached the wall-clock backstop while under its CPU limit."""


_LIMITS = (CodeteamTestTimeout, CodeteamBusy)  # (a tuple: the project's Python may be older)


class ReachedTarget(pytest.fail.Exception):
    """Selection: the test called the judged function; it ends here. A ``pytest.fail`` without
    its traceback (a BaseException, as ``pytest.fail``'s: ``except Exception`` does not catch
    it): pytest's report of it is its message, where the report of a traceback parsed each
    test's file again (packaging's ``--showlocals``: a quarter of a selection's time)."""

    def __init__(self, message: str):
        super().__init__(message, pytrace=False)


NODE_ID_LIMIT = 1000
"""Characters of a test's node id kept in what the judge reports (:func:`_short_id`)."""


def _short_id(nodeid: str) -> str:
    """``nodeid``, or past :data:`NODE_ID_LIMIT` characters its head and a digest of the whole:
    the test's name for codeteam (python-multipart names test methods after their 10 MB
    parameters: each event holding one whole took the results file past the run's file size
    limit, and the rest of the session went unreported)."""
    if len(nodeid) <= NODE_ID_LIMIT:
        return nodeid
    import hashlib

    digest = hashlib.sha256(nodeid.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{nodeid[:NODE_ID_LIMIT]}...{digest}"


def _cap(text: str, limit: int = REPR_LIMIT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _safe_repr(value: object) -> str:
    try:
        return _cap(repr(value))
    except BaseException as error:  # noqa: BLE001 - a broken __repr__
        return f"<repr failed: {type(error).__name__}>"


def _non_dumpable() -> bool:
    """``prctl(PR_SET_DUMPABLE, 0)``: processes of the same uid (the subject) can no longer
    ptrace this one or open its ``/proc/<pid>/fd``, ``mem``, ``environ``."""
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


class _Test:
    """What the judge knows of the running test."""

    def __init__(self, item):
        self.item = item
        self.calls = 0
        self.compare = None
        self.phases: dict = {}
        self.last_call = None  # the newest call-phase (report, excinfo, compare): a subtest's too
        self.failed_subtest = None  # the first failed subtest's (report, excinfo, compare)
        self.decision = None  # (message, not judged) of the judge
        self.subject_cpu = None  # the server's account of the subjects' CPU at the start
        self.counted = 0.0  # seconds of its ended phases that count toward its backstop
        self.inside = 0.0  # wall-clock seconds of its ended phases (CPU waits included)
        self.entered = (0.0, 0.0)  # (time.monotonic(), Judge._waited()) at its phase's start
        self.limited = None  # the time limit that ended the test (even if the test caught it)
        self.limited_in = None  # the phase (Judge.phase) it was raised in
        self.limited_at = 0.0  # and when (time.monotonic())
        self.started = time.monotonic()
        self.cpu = time.process_time()
        self.since = _boot_ticks()  # processes the test starts in this judge: after this
        self.earlier = set()  # those started in its phases before the running one
        self.reads_output = False  # a capturing fixture (capsys...) was set up for it, also
        # one asked for while it ran (request.getfixturevalue), which fixturenames lacks
        self.clock = (0, 0, 0, "")  # its reads of a clock until its call ended (Judge._clocks)
        self.clock_at = set()  # (code, line) of the tests' frames on the stack at those reads


_TICKS = os.sysconf("SC_CLK_TCK")


def _boot_ticks():
    """Clock ticks since boot now (a process's start time in ``/proc/PID/stat`` counts them)."""
    return int(time.clock_gettime(time.CLOCK_BOOTTIME) * _TICKS)


def _started_by_test(since):
    """``{pid: CPU seconds}`` of this judge's descendants started at ``since`` (clock ticks
    since boot) or later: what the running test's own code forked or spawned (a test may fork,
    and the processes it forks are not the code under test's, whose CPU the server counts)."""
    parents, usage = {}, {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        parents[int(name)] = int(fields[1])
        if int(fields[19]) >= since:
            usage[int(name)] = (int(fields[11]) + int(fields[12])) / _TICKS
    found, mine = {}, {os.getpid()}
    grew = True
    while grew:
        grew = False
        for pid, parent in parents.items():
            if parent in mine and pid not in mine:
                mine.add(pid)
                grew = True
                if pid in usage:
                    found[pid] = usage[pid]
    return found


def _import_root(found):
    """The top folder of a test module (``(file, name)``): its top package's (``tests`` for
    ``tests.test_core``, ``pkg`` for ``pkg.sub.test_x``) or, for a module of no package, the
    folder it is imported from (``tests`` for ``test_core`` of tests/test_core.py). When it
    does not hold the target's file it is the tests' own: its other modules (a
    ``helpers.py``) are the tests' helpers, never the code's."""
    path, name = found
    folder = os.path.dirname(os.path.realpath(path))
    levels = name.count(".") if os.path.basename(path) == "__init__.py" else max(
        name.count(".") - 1, 0)
    for _ in range(levels):
        folder = os.path.dirname(folder)
    return os.path.join(folder, "")


WATCHDOG_GRACE = 5.0
"""Seconds after a test's wall-clock backstop (and after the judge last ran its own Python,
:meth:`Judge._feed_watchdog`) before ``faulthandler``'s watchdog ends the judge: a test stuck
in C, where no Python signal handler runs and no limit can be raised."""
CLEANUP_GRACE = 2.0
"""Seconds a limited test's cleanup (``finally``, ``__exit__``) may run before the limit is
raised again in it."""
CROSSING_SHARE = 3.0
"""The code's process may use this many times the CPU the judge spent on its side of a test's
calls (:meth:`~codeteam.execution.pytest_subject.JudgeClient.leaving`: the test's state and
arguments gathered and encoded, the answers decoded and taken over, the test's callbacks not
counted) beyond the test's CPU limit: the code's process does about as much for each call
(decoding, the module state compared before and after), the crossing's cost, not the code's
(sortedcontainers' test_irange: hundreds of calls on a large list were "timeout" at 6-9 CPU
seconds; plain pytest runs them in under a second). Measured (judge8): the code's process
spent 1.9 times the judge's side on a project with 10,000 loggers, 1.15 times on
Python-Markdown's 10,000 calls of ``toc.slugify``, 1.7 times on a project of one module;
counting only the encoding and decoding (one tenth to one fifth of the judge's side) cut
right code as a "timeout"."""


CROSSING = ("the crossing's cost: the judge spent {crossing:.1f} CPU seconds on its side of "
            "the test's {calls} call(s) to the code (the test's state and the values encoded "
            "and decoded), its limit for that, work plain pytest does not do; the test's own "
            "code used {own:.1f} of its {limit:g}")
"""The "not judged" reason of a test cut by the CPU its calls' crossing cost the judge."""


def _handling(error):
    """Whether ``error`` is on its way out of the interrupted code (an ``except`` or
    ``finally`` clause or an ``__exit__`` runs for it, or for an exception raised there),
    not swallowed."""
    found, seen = sys.exc_info()[1], 0
    while found is not None and seen < 100:
        if found is error:
            return True
        found, seen = found.__context__, seen + 1
    return False


def _teardown_finalizers(item, nextitem) -> list:
    """The finalizer lists (innermost node's first) that pytest's teardown of ``item`` before
    ``nextitem`` pops and runs (``SetupState.stack``'s, of the nodes after the part of the
    stack ``nextitem`` shares; the lists themselves, which that teardown empties as it
    goes). [] when pytest keeps no such stack (before pytest 7)."""
    stack = getattr(getattr(item.session, "_setupstate", None), "stack", None)
    if not isinstance(stack, dict):
        return []
    nodes, chain = list(stack), nextitem.listchain() if nextitem is not None else []
    shared = 0
    while shared < min(len(nodes), len(chain)) and nodes[shared] is chain[shared]:
        shared += 1
    return [entry[0] for entry in (stack[node] for node in reversed(nodes[shared:]))
            if isinstance(entry, tuple) and entry and isinstance(entry[0], list)]


def _has_children():
    """Whether this judge has child processes (else it has no descendants: no need to look
    through ``/proc``, which is long outside a PID namespace of the run's own)."""
    try:
        for tid in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{tid}/children", "rb") as handle:
                if handle.read().strip():
                    return True
    except OSError:
        return True
    return False


class Judge:
    """The plugin object: pytest's hooks as methods, one results channel (:meth:`send`)."""

    def __init__(self, spec: dict, files: str):
        self.spec = spec
        self.files = files
        self.mode = spec.get("mode")
        self.target = spec.get("target") or {}
        self.root = os.path.realpath(os.environ.get("CODETEAM_PROJECT_ROOT") or os.getcwd())
        self.keep = None if spec.get("keep") is None else set(spec["keep"])
        self.cpu_limit = float(spec.get("cpu_limit") or 0)
        self.judge_cpu_limit = float(spec.get("judge_cpu_limit") or 0) or (
            max(4 * self.cpu_limit, 20.0) if self.cpu_limit else 0.0)
        """CPU seconds of the test's own code here, and apart of the crossing of its calls
        (:meth:`_judge_cpu_look`)."""
        self.wall_limit = float(spec.get("wall_limit") or 0)
        self.watchdog_at = 0.0  # when faulthandler's watchdog ends this judge (monotonic)
        try:  # where it says so: stderr as it is now, before pytest's capture replaces fd 2
            self.watchdog_file = os.dup(2)  # (its tmpfile's text is lost when it ends us)
        except OSError:
            self.watchdog_file = None
        try:  # this (the main) thread's run delay, for _waited
            self.schedstat = os.open("/proc/thread-self/schedstat", os.O_RDONLY)
        except OSError:
            self.schedstat = None
        self.relative: dict = {}  # path -> _relative(path)
        self.in_phase = False  # inside a test's setup, call or teardown (see _alarm)
        self.phase = 0  # the number of the phase last begun
        self.interrupted = None  # why the session was interrupted (pytest.exit's message)
        self.internal = None  # pytest's own error that ended the session (INTERNALERROR)
        self.test: _Test | None = None
        self.collecting = None  # the node id of the collector pytest is collecting
        self.collect_calls: set = set()
        self.rootpath = None
        """Node ids of the collectors (a test module, a directory's conftest.py; "" before
        collection) during whose collection the judged function was called: every test
        under one reaches it (``NINE = square(3)`` at module level, a parametrize argument)."""
        self.collected: list = []  # the items pytest collected, before any was deselected
        self.outcomes = 0
        self.pid = os.getpid()  # (a process the test forks has another)
        self.client = None
        self.out = None
        self._open_channel()
        self._install()

    # -- the channel -------------------------------------------------------------------------

    def _open_channel(self) -> None:
        fd_text = os.environ.pop("CODETEAM_RESULTS_FD", None)
        if fd_text is None:
            return
        fd = int(fd_text)
        try:
            moved = os.dup(fd)
            os.close(fd)
        except OSError:
            moved = fd
        self.out = os.fdopen(moved, "w", encoding="utf-8", buffering=1)

    def send(self, event: str, **fields) -> None:
        if self.out is None:
            return
        try:
            self.out.write(json.dumps({"event": event, **fields}, default=str) + "\n")
            self.out.flush()
        except (OSError, ValueError):
            pass

    # -- the subject -------------------------------------------------------------------------

    def _install(self) -> None:
        """The builtins the judge view calls and the client that starts the subject (now:
        conftest files may import the view before ``pytest_configure``)."""
        judge = self.spec.get("judge")
        if not isinstance(judge, dict):
            return
        for name in ("_codeteam_pytest_codec", "_codeteam_pytest_subject"):  # before test code
            loaded = importlib.util.spec_from_file_location(
                name, os.path.join(self.files, name + ".py"))
            module = importlib.util.module_from_spec(loaded)
            sys.modules[name] = module
            loaded.loader.exec_module(module)
        subject = sys.modules["_codeteam_pytest_subject"]
        self.errors = (subject.JudgeError,)
        if not _non_dumpable():
            def refuse(args, kwargs):
                self.decide(subject.JudgeError("the judge could not make itself non-dumpable"))
                raise subject.JudgeError("the judge could not make itself non-dumpable")

            builtins.__codeteam_forward__ = refuse
            builtins.__codeteam_imported__ = lambda space: None
            return
        config = {"kind": "config", "module": self.target.get("module"),
                  "qualname": self.target.get("judged"),
                  "file": os.path.join(self.root, self.target.get("file") or ""),
                  "candidate": os.path.join(self.files, judge.get("candidate") or ""),
                  "lines": [int(n) for n in judge.get("lines") or []], "root": self.root,
                  "import_limit": float(self.spec.get("import_limit") or 60.0),
                  "shared_tmp": self.spec.get("shared_tmp") if self.mode == "run" else None}
        sys.modules["_codeteam_pytest_codec"].guard_forks(lambda: {os.getsid(0)})
        self.client = subject.JudgeClient(config, self.decide, self._code_timeout,
                                          self.code_cpu_left)
        self.client.elsewhere = self._elsewhere  # (a handle called in a forked process)
        builtins.__codeteam_forward__ = self.forward
        builtins.__codeteam_imported__ = self.client.imported
        self._clocks()

    def _clocks(self) -> None:
        """``time``'s clocks count the running test's reads of them (``test.clock``: reads,
        calls of the function at the first and at the last, the clock's name): reads made in
        this process by the tests' files (the codec's ``of_tests``: the test modules, their
        helpers, conftest.py) or a ``timeit`` run here, in the test's setup or call, not in a
        callback of the code's (the code's process has its own ``time``; it cannot add one).
        For :data:`CLOCK`; this plugin's reads and the project's modules' are not the test's."""
        tests = {"<timeit-src>": True}  # a code's file: whether it is the tests'

        def of_tests(frame):
            path = frame.f_code.co_filename
            if path not in tests:
                module = frame.f_globals.get("__name__")
                tests[path] = type(module) is str and self.client.codec.of_tests(module)
            return tests[path]

        def counting(original, name):
            @functools.wraps(original)
            def clock():
                test = self.test
                if test is not None and self.in_phase and "call" not in test.phases and not (
                        self.client.depth):
                    frame = sys._getframe(1)
                    if of_tests(frame):
                        test.clock = (test.clock[0] + 1, test.clock[1] if test.clock[0] else
                                      test.calls, test.calls, name)
                        for _ in range(40):  # the statements under way that read it (a
                            if frame is None or len(test.clock_at) > 10000:  # helper's,
                                break  # a fixture's method called in an assert)
                            if of_tests(frame):
                                test.clock_at.add((frame.f_code, frame.f_lineno))
                            frame = frame.f_back
                return original()
            return clock

        try:  # time-machine's C module takes `time`'s builtins as it is imported and patches
            import _time_machine  # noqa: F401 - them in C: a function there crashed the judge
        except ImportError:  # (not installed)
            pass
        for name in ("perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns", "time",
                     "time_ns"):
            setattr(time, name, counting(getattr(time, name), name))

    def decide(self, error) -> None:
        """The judge's decision for the running test (the first one stands)."""
        if self.test is not None and self.test.decision is None:
            self.test.decision = (str(error), bool(getattr(error, "not_judged", False)))

    def forward(self, args, kwargs):
        """The judge view's call of the judged function (in a process the test forked, a
        multiprocessing pool's: :meth:`_elsewhere`)."""
        __tracebackhide__ = True
        if os.getpid() != self.pid:  # (the channel to the code's process is pytest's own)
            self._elsewhere()
        if self.test is not None:
            self.test.calls += 1
            if self.mode == "select":
                raise ReachedTarget("the test reached the function (selection run)")
        else:
            self.collect_calls.add(self.collecting or "")
            self.collect_calls.update(self._importing())
        awaited = bool(sys._getframe(1).f_code.co_flags & inspect.CO_COROUTINE)  # (the view's
        return self.client.forward(args, kwargs, awaited,  # stub: the user's async def)
                                   sys._getframe(2))  # (its caller)

    def _importing(self):
        """The files under the root whose import runs (``<module>`` frames): a test module
        that another imports (``from .test_core import helper``) is imported while that one is
        collected, and what it calls at its import is its own collection's too."""
        found = []
        frame = sys._getframe(2)
        while frame is not None:
            if frame.f_code.co_name == "<module>" and self.rootpath:
                path = os.path.relpath(frame.f_code.co_filename, self.rootpath)
                if not path.startswith(".."):
                    found.append(path.replace(os.sep, "/"))
            frame = frame.f_back
        return found

    def code_cpu_left(self):
        """CPU seconds the code may still use in the running test (None: no limit)."""
        if not self.cpu_limit or self.test is None:
            return None
        return self.cpu_limit - self.client.cpu

    # -- configuration and collection ----------------------------------------------------

    @pytest.hookimpl(tryfirst=True)
    def pytest_cmdline_main(self, config):
        """Every test is selected and judged whatever the project's ``addopts`` say: its
        ``-x`` / ``--maxfail`` would end the selection at the first test that reaches the
        function (each ends there) and a judged run at its first failure; ``--lf`` and
        ``--sw`` would run only a part of the tests (from the project's ``.pytest_cache``).
        Off before any plugin configures (``--ff`` / ``--nf`` only reorder: kept)."""
        for name, value in (("maxfail", 0), ("lf", False), ("stepwise", False),
                            ("stepwise_skip", False)):
            if hasattr(config.option, name):
                setattr(config.option, name, value)

    def pytest_configure(self, config):
        self.rootpath = str(config.rootpath)  # (node ids are relative to it)
        if self.client is not None:
            try:
                self.client.ensure()  # before any test runs; a failure is each test's error
            except self.errors:
                pass

    @pytest.hookimpl(hookwrapper=True)
    def pytest_make_collect_report(self, collector):
        outer, self.collecting = self.collecting, collector.nodeid
        try:
            yield
        finally:
            self.collecting = outer

    def _collected_calling(self, nodeid: str) -> bool:
        """Whether the collection of a node above ``nodeid`` called the judged function."""
        return any(prefix == "" or nodeid == prefix or nodeid.startswith((prefix + "::",
                                                                          prefix + "/"))
                   for prefix in self.collect_calls)

    def pytest_collectreport(self, report):
        if report.failed:
            text = getattr(report, "longreprtext", "") or str(report.longrepr)
            errors = [line[4:].strip() for line in text.splitlines() if line.startswith("E   ")]
            lines = [line.strip() for line in text.splitlines() if line.strip()]
            message = " ".join(e for e in errors if e) if errors else (
                lines[-1] if lines else "collection failed")
            self.send("collect_error", nodeid=report.nodeid, message=_cap(message),
                      longrepr=text[-LONGREPR_LIMIT:])

    def pytest_collection_modifyitems(self, session, config, items):
        self.collected = list(items)  # (the test modules of the deselected tests too)
        if self.keep is not None:
            last = {}  # a test class -> the index of its last test kept
            for index, item in enumerate(items):
                if _short_id(item.nodeid) in self.keep and isinstance(item.parent, pytest.Class):
                    last[id(item.parent)] = index
            chosen = [item for index, item in enumerate(items) if _short_id(item.nodeid) in self.keep
                      or index < last.get(id(item.parent), -1)]  # what they may depend on
            found = {_short_id(item.nodeid) for item in items}
            bases = {i.partition("[")[0] for i in found if "[" in i}
            renamed = [i for i in self.keep if i not in found and "[" in i
                       and i.partition("[")[0] in bases]
            if renamed:  # ids made at collection from values that change (the time)
                self.send("renamed", ids=renamed[:1000])
            taken = {id(item) for item in chosen}
            dropped = [item for item in items if id(item) not in taken]
            if dropped:
                config.hook.pytest_deselected(items=dropped)
            items[:] = chosen
        items.extend(self._own_items(session))

    def pytest_collection_finish(self, session):
        if self.client is not None:
            modules = [getattr(item, "module", None) for item in self.collected] + [
                plugin for plugin in session.config.pluginmanager.get_plugins()
                if str(getattr(plugin, "__name__", "")).rpartition(".")[2] == "conftest"]
            found = [(getattr(m, "__file__", None), getattr(m, "__name__", None)) for m in modules]
            found = [(path, name) for path, name in found if type(path) is str and type(
                name) is str]
            files = frozenset(path for path, _ in found)
            target = os.path.realpath(os.path.join(self.root, self.target.get("file") or ""))
            dirs = tuple(sorted({d for d in map(_import_root, found)
                                 if not target.startswith(d)}))
            patterns = tuple(p for p in session.config.getini("python_files") if type(
                p) is str and not fnmatch.fnmatch(os.path.basename(target), p))
            for holder in (self.client, self.client.codec):
                holder.test_files, holder.test_dirs, holder.test_patterns = files, dirs, patterns
            self.client.watch_modules()  # the project's modules as the tests found them
            self.client.doctest_sources = frozenset(  # (collected before the code runs)
                _doctest_sources(session.items))
        selecting = self.mode == "select"
        self.send("collected", count=len(session.items),
                  rootdir=self._relative(str(session.config.rootpath)),
                  items=[_short_id(item.nodeid) for item in session.items] if selecting else None,
                  files=sorted({self._relative(str(item.path)) for item in session.items})
                  if selecting else None)

    def _own_items(self, session) -> list:
        """codeteam's own tests of the function: its docstring's examples and the AI ones
        (``DoctestItem``s with pytest's doctest runner and checker), the generated test
        modules (their ``test`` function, asserts rewritten)."""
        items: list = []
        try:
            module = importlib.import_module(self.target["module"]) if (
                self.spec.get("docstring") or self.spec.get("examples")
                or self.spec.get("asserts")) else None
        except BaseException as error:  # noqa: BLE001 - the view does not import: each test's
            # not run when the user's own module lacks a module where the tests run; an error
            # otherwise (the code under test raised it: a call at import; the module raises)
            code = hasattr(error, "__codeteam_frames__") or isinstance(
                error, self.errors) or not isinstance(error, ImportError)
            for test_id in self._own_ids():
                self.send("collect_error", nodeid=test_id, ids=[test_id],
                          outcome="error" if code else "skipped",
                          exception_type=type(error).__name__,
                          message=_cap(f"importing {self.target['module']} failed: "
                                       f"{type(error).__name__}: {error}"))
            return items
        if self.spec.get("docstring"):
            items += _docstring_items(session, module, self.target, self.spec["docstring"])
        for example in self.spec.get("examples") or []:
            items += _example_items(session, module, example)
        for test in self.spec.get("asserts") or []:
            collector = _Generated.from_parent(
                session, path=session.config.rootpath / f"_codeteam_{len(items)}.py",
                nodeid=f"codeteam::{test['id']}")
            collector.codeteam = (module, test)
            try:
                item = pytest.Function.from_parent(collector, name="test",
                                                   callobj=collector.obj.test)
            except BaseException as error:  # noqa: BLE001 - setup or source that fails
                self.send("collect_error", nodeid=test["id"], ids=[test["id"]],
                          exception_type=type(error).__name__, message=_cap(_text_of(error)),
                          longrepr=_remote_traceback(error))
                continue
            item.codeteam_ids = [test["id"]]
            items.append(item)
        return items

    def _own_ids(self) -> list[str]:
        return [*(self.spec.get("docstring") or []),
                *(e["id"] for e in self.spec.get("examples") or []),
                *(t["id"] for t in self.spec.get("asserts") or [])]

    def _relative(self, path: str) -> str:
        known = self.relative.get(path)
        if known is None:
            real = os.path.realpath(path)
            known = self.relative[path] = os.path.relpath(real, self.root) if (
                real == self.root or real.startswith(self.root.rstrip("/") + "/")) else real
        return known

    # -- one test ----------------------------------------------------------------------------

    def pytest_assertrepr_compare(self, config, op, left, right):
        """Keep the failing comparison's values, each named by where it came from: the side
        the judged function returned is the actual value (pytest's output is left as is)."""
        if self.test is None:
            return
        side = _calling_side(self.target.get("name"))
        if side is None:  # neither side calls it in the assert's text: a value it returned
            returned = [id(v) for v in (self.client.returned if self.client else [])]
            side = "right" if id(right) in returned and id(left) not in returned and type(
                right) not in _SHARED else None  # (a small int is the same object anywhere)
        if side is None:  # reached through another function (`want == ordinalize(n)`): the
            side = _calling_side(None)  # side that calls one, the other calling none
        if side == "right" and op in _MIRRORED:
            left, right, op = right, left, _MIRRORED[op]  # `expected == f(x)`: f's is actual
        self.test.compare = (op, _safe_repr(left), _safe_repr(right))
        return

    def _check_interval(self) -> float:
        """Wall-clock seconds between two looks at the subjects' CPU time during a test."""
        return max(1.0, self.cpu_limit / 2)

    def _waited(self) -> float:
        """Seconds this judge's main thread and the run's subjects (at the server's last
        account, :attr:`JudgeClient.server_wait`) spent runnable but waiting for a CPU
        (schedstat's run delay); the judge's part is 0 where the kernel does not keep it."""
        try:  # (read again through the descriptor opened once: an open and a close of it
            # were 50 us of each of a test's seven looks on a busy machine, 4 us so)
            own = int(os.pread(self.schedstat, 256, 0).split()[1]) / 1e9
        except (OSError, ValueError, IndexError, TypeError):
            own = 0.0
        return own + (self.client.server_wait if self.client is not None else 0.0)

    def _elapsed(self) -> float:
        """Seconds of the running test that count toward its wall-clock backstop: the wall
        clock of its phases (setup, call, teardown) less the time its judge and subjects
        waited for a CPU meanwhile. Between its phases pytest itself runs (reports, hooks of
        conftest.py files and plugins), as under plain pytest: a limit cannot be raised there,
        and a ``pytest_runtest_logreport`` hook sleeping 3 s made a test of no time reach a
        backstop of 2 s in its teardown (issue 27: "not judged", and the next test an error
        when the limit landed before pytest had torn the test down). The backstop is for code
        that waits (sleeps, blocks); a machine busy with other work, or a sandbox given a
        lower weight (``sandbox_niceness``), makes a test that computes take longer by the
        time it waits for a CPU, and cutting it for that was "not judged" where it passes
        (hot6: 3-8 of 8 tests of 2 CPU seconds, 8 runs at niceness 10 beside two CPU hogs).
        Waiting for a CPU needs a runnable thread, so code cannot stretch its backstop
        without using CPU time, which its limit bounds."""
        test = self.test
        if not self.in_phase:
            return test.counted
        return test.counted + time.monotonic() - test.entered[0] - (
            self._waited() - test.entered[1])

    def _arm_wall_clock(self) -> None:
        """SIGALRM at the next look at the CPU time of the subjects (when the server can tell
        it) and of the processes the test started, at the latest at the wall-clock backstop
        (:meth:`_elapsed`)."""
        left = min(self.wall_limit - self._elapsed(), self._check_interval())
        signal.setitimer(signal.ITIMER_REAL, max(left, 0.01))

    def _feed_watchdog(self) -> None:
        """(Re)arm ``faulthandler``'s watchdog for the running test: it ends the judge
        :data:`WATCHDOG_GRACE` s after the test's wall-clock backstop (the time between its
        phases not counted, as in :meth:`_elapsed`; its waits for a CPU counted), or after
        now when that is later. Called when the test starts and from every SIGALRM this judge
        handles (its Python runs, so it is not stuck in C): a judge that a busy machine (or a
        niced sandbox, ``sandbox_niceness``) gives little CPU takes long to report a test, and
        ending it then was an error for that test and every later one, where plain pytest
        passes them. Re-armed only when the deadline moves by a second or more (each arm
        starts the watchdog's thread)."""
        if self.test is None or not self.wall_limit:
            return
        now, test = time.monotonic(), self.test
        inside = test.inside + (now - test.entered[0] if self.in_phase else 0.0)
        deadline = now + max(self.wall_limit - inside, 0.0) + WATCHDOG_GRACE
        if deadline - self.watchdog_at >= 1.0:
            try:
                faulthandler.dump_traceback_later(deadline - time.monotonic(), exit=True,
                                                  **({} if self.watchdog_file is None
                                                     else {"file": self.watchdog_file}))
                self.watchdog_at = deadline
            except RuntimeError:  # no thread can start (a fork bomb used the process
                self.watchdog_at = 0.0  # limit): try again at the next signal; raised
                # from a signal handler it was the test's failure (hot6)

    def _alarm(self, signum, frame):
        self._feed_watchdog()
        limited = self.test.limited if self.test is not None else None
        if limited is not None:  # a limit was raised: again while its phase goes on (the
            # test caught it: ``except BaseException: pass`` in a loop), never in a later one
            if self.in_phase and self.test.limited_in == self.phase:
                self._cut()
                if _handling(limited) and time.monotonic() - self.test.limited_at < (
                        CLEANUP_GRACE):  # on its way out: the test's ``finally`` clauses and
                    return  # context managers' exits run to their end, as for one raise
                raise limited
            if signum == signal.SIGALRM:  # the test's end is being reported: keep feeding
                signal.setitimer(signal.ITIMER_REAL, 1.0)  # the watchdog until it is over
            return
        if not self.in_phase:
            # Between a test's phases pytest itself runs (reports, hooks of conftest.py and
            # plugins): a limit raised there escapes its runner and ends the session, and every
            # later test goes unreported. Try again shortly: in the next phase (teardown) the
            # limit ends this test only; once the test is over the timers are disarmed.
            signal.setitimer(signal.ITIMER_PROF if signum == signal.SIGPROF
                             else signal.ITIMER_REAL, 0.05)
            return
        if signum == signal.SIGPROF:
            return self._judge_cpu_look()
        # The subjects' CPU time, all their processes' (what the code forked or spawned, or a
        # process whose own CPU limit the code silenced), as the server measures it: looked
        # at every few seconds, so that such code is cut once it used its CPU time, whatever
        # the machine's load, and the backstop is reached only by code that waits.
        # Before the backstop, the subject's own limits (its CPU timer, then its CPU rlimit a
        # second later and SIGKILL one more second later) have the time to act first: their
        # messages say more.
        start = self.test.subject_cpu if self.test is not None else None
        now = self.client.server_cpu() if self.client is not None and start is not None else None
        within = self.test is not None and self._elapsed() < self.wall_limit
        over = math.ceil(self.cpu_limit) + 3.0 if within else self.cpu_limit + 1.0
        # What the code's process spends decoding this test's calls and encoding its answers
        # is not the code's: about what the judge spends on its side of them (CROSSING_SHARE
        # times it, for the subject's state bookkeeping too), measured here, out of its reach.
        over += CROSSING_SHARE * (self.client.crossing if self.client is not None else 0.0)
        forked = sum(_started_by_test(self.test.since).values()) if self.test else 0.0
        if forked > over:  # the test's own processes (its code forks: a fork bomb)
            raise self.limit(CodeteamTestTimeout,
                             f"the processes this test started used {forked:.1f} CPU seconds, "
                             f"over its limit of {self.cpu_limit:g}")
        if now is not None and now - start > over:
            raise self.limit(CodeteamTestTimeout,
                             f"the code used {now - start:.1f} CPU seconds in this test "
                             f"(measured outside its process), over its limit of "
                             f"{self.cpu_limit:g}")
        if self.judge_cpu_limit and time.process_time() - self.test.cpu >= (
                self.judge_cpu_limit):  # (SIGPROF came late: at 28-29 CPU seconds of a
            self._judge_cpu_look()  # limit of 20 beside busy helpers, on main too)
        if within:
            self._arm_wall_clock()  # a look within its limits: the test goes on
            return
        if now is not None and self.client.awaiting and self.client.server_off_cpu:
            raise self.limit(CodeteamTestTimeout, "the code under test waited off the CPU "
                             f"until the test's wall-clock backstop ({self.wall_limit:g} s): "
                             "its process slept or was stopped, neither running nor waiting "
                             "for a CPU or for I/O (as the server sees it), while the test "
                             "waited for its answer")  # (no busy machine does that: its own
            # watchdog, which says "slept", was silenced, or stuck: SIGSTOP, a sleep in C)
        raise self.limit(CodeteamBusy, f"the test did not end within {self.wall_limit:g} s of "
                         "wall-clock time (not counting its waits for a CPU) while under its "
                         "CPU limit")

    def _judge_cpu_look(self):
        """At a SIGPROF: the test's own code in this process, its CPU here less what the judge
        spent on its side of the test's calls (:attr:`JudgeClient.crossing`), may use
        :attr:`judge_cpu_limit` (a ``timeout``, as under a plain pytest with that limit); the
        crossing, apart, as much again: a test cut by that is "not judged" (:data:`CROSSING`),
        the judge's work, which plain pytest does not do. Counted together, tenacity's
        ``test_wait_random_exponential_statistically`` (40,000 calls; under 2 s in plain
        pytest) was a "timeout" of right code. Else the timer is armed for the next look."""
        used = time.process_time() - self.test.cpu
        crossing = self.client.crossing if self.client is not None else 0.0
        own = used - crossing
        if own >= self.judge_cpu_limit - 0.01:
            raise self.limit(CodeteamTestTimeout, f"the test used {self.judge_cpu_limit:g} CPU "
                             "seconds in the judge (its own code, not the crossing of its "
                             "calls to the code)")
        if crossing >= self.judge_cpu_limit - 0.01:
            if self.test.decision is None:
                self.test.decision = (CROSSING.format(crossing=crossing, calls=self.test.calls,
                                                      own=own, limit=self.judge_cpu_limit),
                                      True)
            raise self.limit(CodeteamTestTimeout, f"the crossing of the test's calls used "
                             f"{crossing:.1f} CPU seconds in the judge")
        signal.setitimer(signal.ITIMER_PROF, max(self.judge_cpu_limit - max(own, crossing),
                                                 0.05))

    def limit(self, kind, message):
        """A limit's exception (``kind``), kept as the running test's end: a test that catches
        it (``pytest.raises(BaseException)``, ``except BaseException``) is still cut by it."""
        error = kind(message)
        if self.test is not None and self.test.limited is None:
            self.test.limited = error
            self.test.limited_in = self.phase
            self.test.limited_at = time.monotonic()
            self._cut()
        return error

    def _cut(self):
        """End the processes the limited test started in the phase it was cut in (a fork
        bomb's copies of this judge would spin on; what its setup started, a session
        fixture's server, serves the later tests as under plain pytest), and look again in
        50 ms: the limit is raised again while the test's phase goes on (see :meth:`_alarm`).
        A limit raised while a fork bomb forks is often lost: :func:`os.fork` runs Python
        callbacks (``logging``'s) whose exceptions it swallows."""
        for pid in set(_started_by_test(self.test.since)) - self.test.earlier:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        if threading.current_thread() is threading.main_thread():
            signal.setitimer(signal.ITIMER_REAL, 0.05)

    def _code_timeout(self, message):
        return self.limit(CodeteamTestTimeout, message)

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_runtest_protocol(self, item, nextitem):
        self.test = _Test(item)
        idle = self.mode == "select" and not self.collect_calls  # (the code's process does
        # nothing in this test: a call of the function ends it, and no call before gave a
        # handle of the code's; asking the server each test was a round trip to its process
        # that a busy machine made cost milliseconds: packaging's 64,207 tests, issue 24)
        if self.wall_limit and self.cpu_limit and self.client is not None and not idle:
            self.test.subject_cpu = self.client.server_cpu()  # what the code's process says
            # of its CPU time is in its reach: the busy backstop asks the server
        if self.mode == "select" and self._collected_calling(item.nodeid):
            self.test.calls += 1  # its module (or a conftest.py above it) called the function
        self._called_elsewhere()  # (by a process an earlier test started)
        if self.client is not None:
            self.client.new_test()
            if not idle:
                self.client.watch_modules()  # modules imported since, as they are now
        self.send("start", nodeid=_short_id(item.nodeid), ids=getattr(item, "codeteam_ids", None))
        armed = threading.current_thread() is threading.main_thread()
        if armed:
            if self.judge_cpu_limit:
                signal.signal(signal.SIGPROF, self._alarm)
                signal.setitimer(signal.ITIMER_PROF, self.judge_cpu_limit)
            if self.wall_limit:
                signal.signal(signal.SIGALRM, self._alarm)
                self._arm_wall_clock()
                self._feed_watchdog()  # (armed past this test's backstop: see below)
        try:
            yield
        finally:
            if armed:
                signal.setitimer(signal.ITIMER_PROF, 0)
                signal.setitimer(signal.ITIMER_REAL, 0)
                if nextitem is None or self.watchdog_at - time.monotonic() < self.wall_limit:
                    self._cancel_watchdog()  # else it stays armed for the next test (a
                    # cancel joins its thread and an arm starts one: each test waited for
                    # the scheduler twice; the backstop at least is left for pytest's work
                    # until the next test feeds it)
        self.outcomes += 1
        self.send("outcome", **self.outcome(item))
        self.test = None

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_runtest_setup(self, item):
        yield from self._phase()

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_runtest_call(self, item):
        yield from self._phase()

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_runtest_teardown(self, item, nextitem):
        pending = _teardown_finalizers(item, nextitem)
        yield from self._phase(lambda: self._tear_down_rest(pending, item, nextitem))

    def _tear_down_rest(self, pending, item, nextitem) -> None:
        """After a limit ended the running test in its teardown phase: the rest of pytest's
        teardown of it (``SetupState.teardown_exact``, which the limit cut where it landed),
        so that the next test starts as under plain pytest. Cut in a hook before it, the test
        stayed on pytest's stack and the next one's setup failed ("previous item was not torn
        down properly", issue 27); cut in a fixture's finalizer, the later finalizers were
        skipped and the next test got this test's fixture value. ``pending``: the finalizer
        lists of :func:`_teardown_finalizers`, each finalizer run once, in pytest's order;
        the limit is raised again in one that goes on (:meth:`_alarm`), and their errors are
        not reported (the test's end is its limit)."""
        test = self.test
        if test is None or test.limited is None or test.limited_in != self.phase:
            return
        while True:
            try:
                for finalizers in pending:
                    while finalizers:
                        try:
                            finalizers.pop()()
                        except (KeyboardInterrupt, *_LIMITS):
                            raise
                        except BaseException:  # noqa: BLE001, S110 - its error (pytest's
                            pass  # outcomes too): the test's end is its limit
                item.session._setupstate.teardown_exact(nextitem)  # (the nodes, now bare)
                return
            except _LIMITS:
                continue
            except KeyboardInterrupt:
                raise
            except BaseException:  # noqa: BLE001 - the finalizers' errors, raised once
                return  # it went through them all

    def _phase(self, after=None):
        """Around a phase of a test (inside pytest's ``CallInfo``, where an exception is the
        test's): only there may a time limit be raised (:meth:`_alarm`). ``after``: called
        at its end, still inside it."""
        if self.test is not None and self.test.phases and _has_children():  # (none before
            self.test.earlier = set(_started_by_test(self.test.since))  # its setup)
        if self.test is not None and self.wall_limit:
            self.test.entered = (time.monotonic(), self._waited())
        self.in_phase = True
        self.phase += 1
        try:
            yield
            if after is not None:
                after()
        finally:
            if self.test is not None and self.wall_limit:
                self.test.counted = self._elapsed()
                self.test.inside += time.monotonic() - self.test.entered[0]
            self.in_phase = False

    @pytest.hookimpl(hookwrapper=True)
    def pytest_fixture_setup(self, fixturedef, request):
        """Selection: a fixture whose setup reached the function keeps that as its error, as
        pytest keeps an ``Exception`` of a fixture's (:class:`ReachedTarget` is a
        ``BaseException``, which it does not): every later test using it is ended by it too,
        and counted, instead of failing on pytest's own state ("AssertionError" in
        ``FixtureDef.execute``: humanize's session fixture ``_warmup_i18n``). A capturing
        fixture set up for the running test marks it as one reading the code's output."""
        if fixturedef.argname in _READS_OUTPUT and self.test is not None:
            self.test.reads_output = True
        outcome = yield
        error = (outcome.excinfo or (None, None))[1]
        if self.mode == "select" and isinstance(error, ReachedTarget) and getattr(
                fixturedef, "cached_result", ()) is None:
            kept = (error, error.__traceback__) if _PYTEST_MAJOR >= 8 else (
                type(error), error, error.__traceback__)  # (pytest 7 kept sys.exc_info())
            with contextlib.suppress(Exception):  # (a pytest without this state)
                fixturedef.cached_result = (None, fixturedef.cache_key(request), kept)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        made = yield
        if self.test is not None:
            excinfo = call.excinfo
            if excinfo is not None and isinstance(excinfo.value, ReachedTarget):
                self.test.calls += 1  # a cached fixture error: it reached the function too
            self.test.phases[call.when] = (made.get_result(), excinfo, self.test.compare)
            if call.when == "call":
                self.test.last_call = self.test.phases["call"]

    def pytest_runtest_logreport(self, report):
        """A failed subtest (``unittest``'s ``subTest``, pytest's ``subtests`` fixture) fails
        its test as plain pytest counts it (the test's own call report says "passed")."""
        test = self.test
        if (test is not None and test.failed_subtest is None and report.failed
                and hasattr(report, "context") and test.last_call is not None
                and test.last_call[0] is not report):
            test.failed_subtest = (report, *test.last_call[1:])

    def outcome(self, item) -> dict:
        """The test's ``outcome`` event: ``outcome`` as pytest decides it (passed / failed /
        error / skipped / xfailed / xpassed; an error in setup or teardown is "error"),
        ``when``, ``message``, ``exception_type``, ``expected``/``actual``, ``traceback``
        (``[[path, line]]``, paths relative to the project root), ``longrepr``, ``duration``,
        ``cpu``/``code_cpu`` (CPU seconds here and in the subject), ``calls`` (of the judged
        function), ``mentions`` (the test's source names the target), ``judge`` (the judge's
        decision: ``[message, not judged]``), ``limit`` ("timeout" or "busy"), ``ids``
        (codeteam's own tests) and, for the docstring's examples, ``examples`` (test id ->
        the same fields)."""
        test = self.test
        if self._called_elsewhere():
            test.calls += 1  # (selection: it reaches the function)
            if test.decision is None:
                test.decision = (ELSEWHERE_REASON, True)
        phases = test.phases
        outcome, when = "passed", "call"
        for phase in ("setup", "call", "teardown"):
            if phase not in phases:
                continue
            report = phases[phase][0]
            xfail = hasattr(report, "wasxfail")
            if phase != "teardown" and report.skipped:
                outcome, when = ("xfailed" if xfail else "skipped"), phase
                break
            if phase == "setup" and report.failed:
                outcome, when = "error", phase
                break
            if phase == "call" and test.failed_subtest is not None and not report.failed:
                phases["call"] = test.failed_subtest
                report = test.failed_subtest[0]
            if phase == "call" and (report.failed or xfail):
                outcome, when = ("failed" if report.failed else "xpassed"), phase
            elif phase == "teardown" and report.failed and outcome in ("passed", "xpassed"):
                outcome, when = "error", phase
        event = {"nodeid": _short_id(item.nodeid), "outcome": outcome, "when": when,
                 "duration": round(time.monotonic() - test.started, 6),
                 "cpu": round(time.process_time() - test.cpu, 6),
                 "code_cpu": round(self.client.cpu, 6) if self.client else 0.0,
                 "calls": test.calls, "file": self._relative(str(item.path)),
                 "line": item.location[1], "ids": getattr(item, "codeteam_ids", None),
                 "own_doctest": type(item).__name__ == "DoctestItem" and item.name == (
                     f"{self.target.get('module')}.{self.target.get('qualname')}")}
        if outcome in ("passed", "xpassed") and any(p not in phases for p in ("setup", "call",
                                                                            "teardown")):
            event.update(outcome="error", message="the test was interrupted before its end")
        elif when in phases:
            report, excinfo, compare = phases[when]
            try:  # (the exception's own hooks run: a project class's __getattr__ that recurses
                # on the state the code left; never an error of pytest's session)
                event.update(self._details(report, excinfo, compare))
                examples = getattr(item, "codeteam_examples", None)
                if examples is not None and when == "call":
                    event["examples"] = self._examples(examples, excinfo)
            except Exception as error:  # noqa: BLE001
                event["message"] = _cap(f"{_message(report)} (the judge could not report more: "
                                        f"{type(error).__name__})")
        limited = test.limited
        if limited is not None and "limit" not in event and getattr(
                item, "codeteam_examples", None) is None:  # the test caught its limit
            event.update(outcome="failed", message=str(limited), exception_type=None,
                         limit=_limit_name(limited))
        failed, passed = event["outcome"] == "failed", event["outcome"] in ("passed", "xpassed")
        error = phases[when][1] if failed and when in phases else None
        reads, first, last, clock = test.clock
        cut = getattr(self.client, "output_cut", None) or (None, False)
        refused = getattr(self.client, "environ_refused", None)
        for applies, reason in (  # the first that applies makes the test "not judged" (the
                # deadline, the clock: the judge's time, a busy machine's, never the code's)
                (test.calls and _deadline_exceeded(error.value if error else None), DEADLINE),
                (last > first and when == "call" and "limit" not in event and _asserted(error)
                 and _checks_a_clock(error.tb, self.client.codec.of_tests, test.clock_at),
                 CLOCK.format(reads, clock, last - first)),
                (failed and "limit" not in event, getattr(self.client, "fail_not_judged", None)),
                (failed and "limit" not in event and _looks_at_environ(
                    error, self.client.codec.of_tests, (refused or ("", ()))[1]),
                 (refused or (None,))[0]),
                (passed, getattr(self.client, "pass_not_judged", None)),
                (passed and (cut[1] or test.reads_output or _READS_OUTPUT & set(getattr(
                    item, "fixturenames", ()))), cut[0])):  # (the output cut: the test's stream,
                # doctest's, a redirect_stdout, or a capturing fixture's took what was kept)
            if applies and reason and test.decision is None:
                test.decision = (reason, True)
        if test.failed_subtest is not None and when == "call":
            context = test.failed_subtest[0].context
            name = " ".join([f"[{context.msg}]"] * (context.msg is not None) + [
                ", ".join(f"{k}={v}" for k, v in context.kwargs.items())] * bool(
                    context.kwargs))
            event["message"] = _cap(f"{event.get('message') or ''} (subtest {name})".strip())
        if test.decision is not None and not any(
                "judge" in e for e in (event.get("examples") or {}).values()):
            event["judge"] = list(test.decision)
        if outcome not in ("passed", "xpassed") and test.calls == 0:
            event["mentions"] = _mentions(item, self.target.get("name"))
        return event

    def _elsewhere(self):
        """A process the test forked called the function (or a handle of the code's:
        JudgeClient.ask): it has no channel of its own to the code's process, so it leaves :data:`ELSEWHERE` (the test is "not judged", as for
        one that imported the judge view) and raises."""
        with contextlib.suppress(OSError):
            os.close(os.open(os.path.join(self.files, ELSEWHERE), os.O_CREAT | os.O_WRONLY,
                             0o600))
        raise RuntimeError("codeteam: the function under test cannot be called in a process "
                           "the test starts (it is judged in a process of its own)")

    def _called_elsewhere(self) -> bool:
        """Whether a process the test started called the function through the judge view it
        imported (it left :data:`ELSEWHERE` in the judge's folder, removed now)."""
        try:
            os.unlink(os.path.join(self.files, ELSEWHERE))
        except OSError:
            return False
        return True

    def _details(self, report, excinfo, compare) -> dict:
        details: dict = {"message": _message(report)}
        if report.failed:
            details["longrepr"] = (getattr(report, "longreprtext", "") or "")[-LONGREPR_LIMIT:]
        if excinfo is None:
            return details
        value = excinfo.value
        details["exception_type"] = type(value).__name__
        remote = _remote_traceback(value)
        if remote:
            details["longrepr"] = (details.get("longrepr", "") + "\n" + remote)[-LONGREPR_LIMIT:]
        if isinstance(value, _LIMITS):
            details["limit"] = _limit_name(value)
            details["message"], details["exception_type"] = str(value), None
        entries = []
        try:
            entries = [[self._relative(str(e.path)), e.lineno + 1] for e in excinfo.traceback
                       if not _installed(str(e.path))]
        except BaseException:  # noqa: BLE001, S110 - a traceback pytest cannot walk
            pass
        details["traceback"] = self._judged_frames(entries, value)[-TRACEBACK_ENTRIES:]
        if compare is not None and type(value).__name__ == "AssertionError":
            op, actual, other = compare
            details["actual"] = actual
            details["expected"] = other if op == "==" else f"{op} {other}"
        failures = _doctest_failures(value)
        if failures:  # a doctest (the project's): its first failing example
            first = failures[0]
            example, test = first.example, first.test
            details.update(message=_cap(f"Failed example: {example.source.strip()}"),
                           expected=_cap(example.want or "").removesuffix("\n"),
                           exception_type=None)
            if hasattr(first, "exc_info"):
                inner = first.exc_info[1]
                details.update(exception_type=type(inner).__name__, message=_cap(_text_of(inner)))
            else:
                details["actual"] = _cap(first.got or "").removesuffix("\n")
            if test.filename and test.lineno is not None:
                details["traceback"].append([self._relative(test.filename),
                                             test.lineno + example.lineno + 1])
        return details

    def _examples(self, examples, excinfo) -> dict:
        """Each docstring example's own outcome from pytest's doctest failures (all run:
        continue on failure); a NameError of an example reading a name that an example "not
        judged" would have bound is "not judged" too (``ns = make(1)`` could not cross, then
        ``ns.x``); any other outcome after one stays its own (wrong code cannot hide later
        failures behind an example it made "not judged")."""
        failures = {}
        value = excinfo.value if excinfo is not None else None
        for failure in _doctest_failures(value):
            failures[id(failure.example)] = failure
        found, names = {}, {}
        for test_id, example, line in examples:
            failure = failures.get(id(example))
            if failure is None:
                found[test_id] = {"outcome": "passed"} if value is None or failures else {
                    "outcome": "error", "exception_type": type(value).__name__,
                    "message": _cap(_text_of(value))}
                continue
            entry = {"outcome": "failed", "line": line,
                     "message": _cap(f"Failed example: {example.source.strip()}"),
                     "expected": _cap(example.want or "").removesuffix("\n")}
            if type(failure).__name__ == "UnexpectedException":
                inner = failure.exc_info[1]
                if isinstance(inner, getattr(self, "errors", ())):
                    entry["judge"] = [str(inner), bool(getattr(inner, "not_judged", False))]
                names[test_id] = getattr(inner, "name", None)  # (a NameError's)
                entry.update(exception_type=type(inner).__name__,
                             message=_cap(_text_of(inner)),
                             traceback=self._judged_frames(_frames(failure.exc_info[2], self),
                                                           inner))
                entry["longrepr"] = _remote_traceback(inner)
                if isinstance(inner, _LIMITS):
                    entry["limit"] = _limit_name(inner)
            else:
                entry["actual"] = _cap(failure.got or "").removesuffix("\n")
            found[test_id] = entry
        bound = {}  # name: the example "not judged" that would have bound it
        for test_id, example, _ in examples:
            entry = found[test_id]
            name = names.get(test_id)
            if entry.get("exception_type") == "NameError" and "judge" not in entry and (
                    name in bound):
                entry["judge"] = [(f"it reads {name}, which {bound[name]} would have bound but "
                                   "was not judged"), True]
            if (entry.get("judge") or [None, False])[1]:
                bound.update(dict.fromkeys(_bound_names(example.source), test_id))
        return found

    def _judged_frames(self, entries: list, exc) -> list:
        """Traceback lines as lines of the candidate: the view's forwarding lines dropped,
        its lines after the judged function shifted, the subject's frames of the call added,
        codeteam's own files left out."""
        judge = self.spec.get("judge") or {}
        start, end = judge.get("span") or [0, -1]
        shift = int(judge.get("shift") or 0)
        out = []
        for path, line in entries:
            if os.path.basename(path).startswith("_codeteam_"):
                continue
            if path == self.target.get("file"):
                if start <= line <= end:
                    continue
                if line > end:
                    line += shift
            out.append([path, line])
        remote = getattr(exc, "__codeteam_frames__", None)
        for path, line in remote if isinstance(remote, list) else []:
            if not _installed(os.path.realpath(path)):
                out.append([self._relative(path), line])
        return out

    def _cancel_watchdog(self) -> None:
        faulthandler.cancel_dump_traceback_later()
        self.watchdog_at = 0.0

    def pytest_sessionfinish(self, session, exitstatus):
        self._cancel_watchdog()
        if self.client is not None:
            self.client.close()
        stopped = session.shouldstop or session.shouldfail or self.interrupted
        self.send("done", exitstatus=int(exitstatus), outcomes=self.outcomes,
                  stopped=str(stopped) if stopped else None, internal=self.internal)

    def pytest_internalerror(self, excrepr, excinfo):
        """pytest's own error (``INTERNALERROR``: a hook raised, pytest's report of a test
        ran out of memory): the session ends there, and its ``done`` says with what (the
        tests after it were not run: never taken as the session's end)."""
        try:
            self.internal = _cap(_text_of(excinfo.value), 300)
        except BaseException:  # noqa: BLE001 - out of memory still
            self.internal = "pytest's internal error"

    def pytest_keyboard_interrupt(self, excinfo):
        """``pytest.exit()`` in a test or a hook (or an interrupt): the tests after it are
        not run, as under plain pytest; the session's ``done`` says why."""
        self.interrupted = f"{excinfo.typename}: {excinfo.value}"


# --------------------------------------------------------------------------------------------
# codeteam's own tests: collectors


class _Generated(pytest.Module):
    """A generated test module (``setup``, then ``def test():`` holding ``source``) whose
    globals start as the target module's: compiled here with pytest's assertion rewriting,
    never written to disk or imported from a path."""

    codeteam = None

    def _getobj(self):
        from _pytest.assertion.rewrite import rewrite_asserts

        module, test = self.codeteam
        source = (test.get("setup") or "") + "\n\ndef test():\n" + "".join(
            "    " + line + "\n" for line in (test.get("source") or "pass").splitlines())
        filename = test.get("filename") or f"<test {test['id']}>"
        import linecache

        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        tree = ast.parse(source, filename)
        rewrite_asserts(tree, source.encode("utf-8"), filename, self.config)
        made = types.ModuleType(f"_codeteam_test_{abs(hash(test['id']))}")
        made.__dict__.update({k: v for k, v in vars(module).items()
                              if not (k.startswith("__") and k.endswith("__"))})
        made.__file__ = filename
        exec(compile(tree, filename, "exec", dont_inherit=True), made.__dict__)  # noqa: S102
        return made


def _docstring_items(session, module, target: dict, ids: list[str]) -> list:
    """The target's docstring as pytest's ``DoctestItem`` (its examples mapped to ``ids``)."""
    import doctest

    found = module
    for part in target["qualname"].split("."):
        holder = isinstance(found, (type, types.ModuleType))  # a tuple: older Pythons too
        found = vars(found).get(part) if holder else None
    found = getattr(found, "__func__", None) or getattr(found, "fget", None) or found
    name = f"{target['module']}.{target['qualname']}"
    tests = doctest.DocTestFinder(recurse=False).find(found, name, module=module,
                                                      globs=vars(module).copy())
    dtest = next((t for t in tests if t.examples), None)
    if dtest is None:
        return []
    item = _doctest_item(session, module, name, dtest)
    first, wanted = dtest.lineno or 0, set(ids)
    item.codeteam_examples = [(f"doctest:{n}", example, first + example.lineno)
                              for n, example in enumerate(dtest.examples, 1)
                              if f"doctest:{n}" in wanted]
    item.codeteam_ids = [test_id for test_id, _, _ in item.codeteam_examples]
    return [item]


def _example_items(session, module, example: dict) -> list:
    """A doctest example of its own (an AI test; ``setup``: earlier examples, in doctest
    format, run first), as pytest's ``DoctestItem``; its last example is the test."""
    import doctest

    text = (example.get("setup") or "") + "".join(
        (">>> " if i == 0 else "... ") + line + "\n"
        for i, line in enumerate(example["source"].splitlines()))
    text += (example.get("want") or "") + "\n"
    dtest = doctest.DocTestParser().get_doctest(text, vars(module).copy(), example["id"],
                                                None, 0)
    item = _doctest_item(session, module, example["id"], dtest)
    item.codeteam_examples = [(example["id"], e, None) for e in dtest.examples[-1:]]
    item.codeteam_ids = [example["id"]]
    return [item]


def _doctest_item(session, module, name, dtest):
    from _pytest import doctest as pytest_doctest

    config = session.config
    try:
        flags = pytest_doctest.get_optionflags(config)
    except (AttributeError, TypeError):  # pytest < 8.1 takes the node
        flags = pytest_doctest.get_optionflags(session)
    runner = pytest_doctest._get_runner(checker=pytest_doctest._get_checker(), verbose=False,
                                        optionflags=flags, continue_on_failure=True)
    parent = _Examples.from_parent(session, path=config.rootpath / "_codeteam_examples.py",
                                   nodeid=f"codeteam::{name}")
    parent.codeteam = module
    return pytest_doctest.DoctestItem.from_parent(parent, name=name, runner=runner, dtest=dtest)


class _Examples(pytest.Module):
    """The parent of codeteam's ``DoctestItem``s (the view module is its object)."""

    codeteam = None

    def _getobj(self):
        return self.codeteam


# --------------------------------------------------------------------------------------------
# Reports


def _installed(path: str) -> bool:
    return path.startswith(_INSTALLED) or "/site-packages/" in path


def _text_of(value) -> str:
    """``Type: message`` of an exception; its ``__str__`` (the project's class's, on the state
    the code left) may fail: then as the traceback module says it, never an error of the
    judge's report (it ended the session, and every later test went unreported)."""
    try:
        text = str(value)
    except BaseException:  # noqa: BLE001
        text = "<exception str() failed>"
    return f"{type(value).__name__}: {text}".rstrip(": ")


DEADLINE = ("the test's own wall-clock deadline was exceeded (hypothesis's DeadlineExceeded, "
            "per example): in the judge each call of the code crosses to the code's own "
            "process, time plain pytest's run does not spend, and the machine may be busy; "
            "whether the code is that slow cannot be told (settings(deadline=None) in the "
            "test, or a larger one, makes it judged)")
"""The "not judged" reason for a failure of hypothesis's deadline (natsort's property tests:
200 ms of wall-clock time per example, exceeded by right code in the judge)."""


CLOCK = ("the test measures its own run time ({} reads of time.{}) and each of the {} call(s) "
         "to the code between them crossed to the code's own process, time plain pytest's run does "
         "not spend, and the machine may be busy: whether the code is that slow cannot be told")
"""The "not judged" reason for a failed assertion of a test that read a clock before and after
calls of the function (mistune's ``assertLess(perf_counter() - start, 2.0)``)."""


def _bound_names(source: str) -> set[str]:
    """The names a doctest example's ``source`` binds (assignments, imports, defs); none when
    it does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set()
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
    return names


def _asserted(excinfo) -> bool:
    """Whether the test's failure is its own assertion (``assert``, unittest's, ``pytest.fail``),
    not one that crossed from the code (with its frames)."""
    value = excinfo.value if excinfo is not None else None
    return isinstance(value, (AssertionError, pytest.fail.Exception)) and (
        "__codeteam_frames__" not in vars(value))


_CLOCKS = frozenset({"perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns", "time",
                     "time_ns", "default_timer", "timeit", "repeat"})
"""Names of calls that read a clock (``time``'s, ``timeit``'s) in a test's source."""


def _tests_frames(tb, of_tests):
    """(frame, line) of each entry of traceback ``tb`` in a module of the tests' files."""
    while tb is not None:
        name = tb.tb_frame.f_globals.get("__name__")
        if type(name) is str and of_tests(name):
            yield tb.tb_frame, tb.tb_lineno
        tb = tb.tb_next


def _looks_at_environ(excinfo, of_tests, names) -> bool:
    """Whether a test function of the tests' files on ``excinfo``'s traceback names one of
    the environment variables ``names``, ``environ``, ``getenv`` or ``subprocess`` in its
    source (or its source cannot be read): its failure may come from a variable the code set
    and the judge did not take over."""
    words = ("environ", "getenv", "subprocess", *names)
    for frame, _ in _tests_frames(excinfo.tb if excinfo is not None else None, of_tests):
        try:
            source = "".join(inspect.getsourcelines(frame.f_code)[0])
        except Exception:  # noqa: BLE001 - (no source: it may)
            return True
        if any(word in source for word in words):
            return True
    return False


def _checks_a_clock(tb, of_tests, read_at=frozenset()) -> bool:
    """Whether a failed assertion may depend on the test's clock reads (:data:`CLOCK`): a
    statement on its traceback, in a test module's function, read a clock as it ran (one of
    ``read_at``: (code, line) of the tests' frames at each read: ``timer.elapsed()`` of a
    fixture's object), calls one or uses a name or attribute that function set from one (at
    any remove: ``elapsed = perf_counter() - start``), or an attribute the function did not set
    (``self.elapsed``), or its source cannot be read.
    A check of values no clock read reaches (``assert result == 3`` after the timed call: wrong
    code's value) fails as under plain pytest, busy machine or not."""
    seen = False
    for frame, line in _tests_frames(tb, of_tests):
        seen = True
        try:
            lines, first = inspect.getsourcelines(frame.f_code)
            tree = ast.parse(textwrap.dedent("".join(lines)))
            line -= max(first, 1) - 1
            around = [n for n in ast.walk(tree) if isinstance(n, ast.stmt) and not isinstance(
                n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and (
                    n.lineno <= line <= (n.end_lineno or n.lineno))]  # (and the if, for,
            parts = [p for n in around for p in ([n] if not hasattr(n, "body") else [  # with
                getattr(n, f, None) for f in ("test", "iter", "items")])]  # around it)
            tainted, known = _clock_names(tree), _set_names(tree)
            if any((frame.f_code, at + max(first, 1) - 1) in read_at for n in around if not (
                    hasattr(n, "body")) for at in range(n.lineno, (n.end_lineno or n.lineno) + 1)):
                return True
            if all(hasattr(n, "body") for n in around) or any(
                    _reads_clock(p, tainted, known) for p in parts if p is not None):
                return True
        except Exception:  # noqa: BLE001 - (no source, a strange frame: it may)
            return True
    return not seen


def _dotted(node):
    """``a.b.c`` of a Name or Attribute chain, else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        root = _dotted(node.value)
        return None if root is None else f"{root}.{node.attr}"
    return None


def _assignments(tree):
    """(target, value) of each assignment, ``for`` and ``with ... as`` of ``tree``."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.NamedExpr)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for part in ast.walk(target):
                    yield part, node.value
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            for part in ast.walk(node.target):
                yield part, node.iter
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                for part in ast.walk(item.optional_vars or ast.Pass()):
                    yield part, item.context_expr


def _set_names(tree) -> set:
    return {_dotted(target) for target, _ in _assignments(tree)} - {None}


def _clock_names(tree) -> set:
    """The names and attributes ``tree`` sets, at any remove, from a clock read."""
    tainted: set = set()
    while True:
        more = {_dotted(t) for t, value in _assignments(tree) if value is not None
                and _reads_clock(value, tainted, None)} - {None} - tainted
        if not more:
            return tainted
        tainted |= more


def _reads_clock(node, tainted, known) -> bool:
    """Whether ``node`` (or a list of them) calls a clock or reads a name of ``tainted`` (with
    ``known``, the names its function sets: also an attribute it does not set, which cannot be
    followed)."""
    if isinstance(node, list):
        return any(_reads_clock(n, tainted, known) for n in node)
    for part in ast.walk(node):
        if isinstance(part, ast.Call) and (
                getattr(part.func, "attr", None) or getattr(part.func, "id", None)) in _CLOCKS:
            return True
        name = _dotted(part) if isinstance(part, (ast.Name, ast.Attribute)) else None
        if name is not None and isinstance(getattr(part, "ctx", None), ast.Load) and (
                name in tainted or (known is not None and "." in name and not any(
                    name == k or name.startswith(k + ".") for k in known)
                    and not _called(node, part))):
            return True
    return False


def _called(tree, node) -> bool:
    """Whether ``node`` is the function of a call in ``tree`` (a method looked up)."""
    return any(isinstance(c, ast.Call) and c.func is node for c in ast.walk(tree))


def _deadline_exceeded(value, depth: int = 0) -> bool:
    """Whether ``value`` (the test's failure) is hypothesis's ``DeadlineExceeded``, or an
    exception group of those only (its ``FlakyFailure``: "Unreliable test timings"; with
    another failure beside it, the test failed), raised here by hypothesis (one that crossed
    from the code, with its frames, is the code's, and so is every exception in a group that
    did: ``ExceptionGroup("", [DeadlineExceeded(...)])`` raised by wrong code is its failure)."""
    if value is None or depth > 3 or "__codeteam_frames__" in vars(value):
        return False
    kind = type(value)
    if kind.__name__ == "DeadlineExceeded" and kind.__module__ == "hypothesis.errors":
        return True
    groups = tuple(getattr(module, "BaseExceptionGroup", None) for module in (
        builtins, sys.modules.get("exceptiongroup")) if module is not None)
    if not isinstance(value, tuple(g for g in groups if isinstance(g, type))):
        return False
    inner = value.exceptions
    return bool(inner) and all(_deadline_exceeded(e, depth + 1) for e in inner)


def _limit_name(error) -> str:
    """A time limit's name in an outcome's ``limit``: "timeout" (CPU) or "busy" (wall clock)."""
    return "timeout" if isinstance(error, CodeteamTestTimeout) else "busy"


def _doctest_sources(items):
    """The sources (UTF-8) of the examples of the ``DoctestItem``s among ``items``: what
    doctest compiles for them (the docstrings' and text files' examples, the user's text,
    and codeteam's own of the target's docstring and AI tests, parsed at collection)."""
    for item in items:
        dtest = getattr(item, "dtest", None) if type(item).__name__ == "DoctestItem" else None
        for example in getattr(dtest, "examples", None) or ():
            if type(getattr(example, "source", None)) is str:
                yield example.source.encode("utf-8", "surrogatepass")


def _doctest_failures(value) -> list:
    """The doctest failures an exception stands for: a ``MultipleDoctestFailure``'s, or
    itself (one ``DocTestFailure`` / ``UnexpectedException``); none for any other. Their
    fields are looked up without running an exception's ``__getattr__`` (a project class's,
    or the stand-in's for one that crossed by its name only, whose fields the test reads)."""
    import inspect

    missing = object()
    failures = inspect.getattr_static(value, "failures", missing)
    if failures is not missing and failures:
        return failures
    return [value] if inspect.getattr_static(value, "example", missing) is not missing else []


def _remote_traceback(value) -> str:
    """The code's own traceback of an exception the subject raised (its frames only)."""
    text = getattr(value, "__codeteam_traceback__", None)
    return f"In the code under test's process:\n{text}"[-LONGREPR_LIMIT:] if text else ""


def _frames(tb, judge: Judge) -> list:
    entries = []
    while tb is not None:
        path = os.path.realpath(tb.tb_frame.f_code.co_filename)
        if not _installed(path):
            entries.append([judge._relative(path), tb.tb_lineno])
        tb = tb.tb_next
    return entries[-TRACEBACK_ENTRIES:]


def _message(report) -> str:
    """pytest's one-line account of the report: a skip's reason, a failure's message (its
    exception type named once), a fixture lookup error's first line."""
    longrepr = report.longrepr
    if longrepr is None:
        return _cap(getattr(report, "wasxfail", "") or "")
    if isinstance(longrepr, tuple) and len(longrepr) == 3:  # a skip: (path, line, reason)
        return _cap(str(longrepr[2]))
    crash = getattr(longrepr, "reprcrash", None)
    if crash is not None and getattr(crash, "message", None):
        message = crash.message
        if getattr(report, "wasxfail", None):
            message = f"{report.wasxfail}: {message}"
        return _cap(message)
    errorstring = getattr(longrepr, "errorstring", None)  # a fixture lookup error
    if errorstring:
        return _cap(str(errorstring).strip().splitlines()[0])
    text = str(longrepr)
    errors = [line[1:].strip() for line in text.splitlines() if line.startswith("E ")]
    lines = errors or [line.strip() for line in text.splitlines() if line.strip()]
    return _cap(" ".join(lines[:3]) if errors else (lines[-1] if lines else ""))


_SHARED = (int, float, str, bytes, bool, type(None))
"""Values whose identity says nothing of where they came from (small ints, interned text)."""
_ASSERTS: dict[str, list] = {}  # a test file -> its assert statements (parsed once)


def _calling_side(name):
    """``"left"`` or ``"right"``: the side of the failing assert's comparison (the test's
    frame, the first outside pytest, pluggy and this plugin) whose text calls ``name``
    (``f(x)``, ``obj.f(x)``; any function when ``name`` is None); None when both, neither, or
    the text cannot be read (of several asserts on the line, the running one's)."""
    try:
        frame = sys._getframe(1)
        while frame is not None and (frame.f_code.co_filename == __file__ or str(
                frame.f_globals.get("__name__", "")).startswith(("_pytest", "pluggy"))):
            frame = frame.f_back
        if frame is None:
            return None
        path, line = frame.f_code.co_filename, frame.f_lineno
        if path not in _ASSERTS:
            import linecache

            tree = ast.parse("".join(linecache.getlines(path)))
            _ASSERTS[path] = [n for n in ast.walk(tree) if isinstance(n, ast.Assert)]
        found = [n for n in _ASSERTS[path] if n.lineno <= line <= (n.end_lineno or n.lineno)]
        if len(found) > 1:  # `assert f(1) == 2; assert 5 == f(4)`: the one running, by the
            # start its instructions carry (pytest's rewrite keeps the assert's)
            where = next(itertools.islice(frame.f_code.co_positions(), frame.f_lasti // 2,
                                          None), None)
            found = [n for n in found if where is not None and (n.lineno, n.col_offset) == (
                where[0], where[2])]
    except (SyntaxError, ValueError, RecursionError, OSError, MemoryError, AttributeError):
        return None  # (co_positions: Python 3.11)
    test = found[0].test if len(found) == 1 else None
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return None

    def calls(node):
        return any(isinstance(n, ast.Call) and (
            name is None or isinstance(n.func, ast.Name) and n.func.id == name
            or isinstance(n.func, ast.Attribute) and n.func.attr == name)
            for n in ast.walk(node))

    left, right = calls(test.left), calls(test.comparators[0])
    return None if left == right else "left" if left else "right"


def _mentions(item, name) -> bool:
    function = getattr(item, "function", None)
    if not name or function is None:
        return False
    try:
        import inspect

        source = inspect.getsource(function)
    except (OSError, TypeError):
        return False
    return re.search(r"\b" + re.escape(name) + r"\b", source) is not None


if __name__ == "_codeteam_pytest_plugin":  # in the sandbox (not when codeteam imports it)
    _files = os.environ.get("CODETEAM_FILES_DIR", os.path.dirname(os.path.abspath(__file__)))
    try:
        with open(os.path.join(_files, SPEC_NAME), encoding="utf-8") as _handle:
            _spec = json.load(_handle)
        os.unlink(os.path.join(_files, SPEC_NAME))  # the tests (hidden ones) are not left there
    except (OSError, ValueError):
        _spec = {}
    PLUGIN = Judge(_spec if isinstance(_spec, dict) else {}, _files)
