"""The test harness that runs *inside* the sandbox (standard library only; no codeteam): a
*judge* that decides every verdict and a *subject* that runs the code under test.

The runner copies this file into the sandbox, with ``_codeteam_pytest_codec`` and
``_codeteam_pytest_subject`` (:mod:`codeteam.execution.pytest_codec` and
:mod:`codeteam.execution.pytest_subject`, loaded from beside it by path), and starts the
judge::

    python -S -s -B _codeteam_harness.py _codeteam_spec.marshal [--judged]

The spec (a :mod:`marshal` dump of a dict, written by the runner) holds ``module`` (the dotted
name the program is imported by: ``solution`` for a lone file, ``pkg.sub.mod`` in a project),
``sys_path`` (folders put first on the subject's ``sys.path``), ``program_file`` (the absolute
path of the program file, whose lines ``program_line`` counts; default
``<working dir>/<module>.py``), ``function_span`` (``[first, last]``, 1-based lines of the
function under test in that file, or None: then the whole file is the code under test),
``tests`` (objects with ``id``, ``kind`` -- ``doctest`` or ``assert`` --, ``source``,
``expected``, ``setup``) and ``test_timeout`` (seconds per test). With ``--judged`` it also
holds ``candidate`` (the file beside this one holding the candidate text) and ``judge``:
``view`` (the judge view's text, :mod:`codeteam.execution.judge_view`), ``qualname``,
``lines`` (1-based lines the candidate's ``def`` may start at), ``span`` (the function's
1-based lines in the view), ``shift`` (how many lines longer the candidate's function is) and
``root`` (the project root: its classes cross by state).

**The judged mode** (``--judged``; 7. below): the judge imports the judge view under the
module's name -- the user's own text of the module with the target's body one call of
``__codeteam_forward__`` -- so the module's classes, constants, helpers and imports are the
user's code running in the judge, and evaluates every test itself in (a copy of) that
module's namespace with the full builtins: a test of a method, of a constant, with a lambda,
importing any module is decided here. Only the target's calls go to the subject, speaking
pytest_codec (pytest_subject's ``JudgeClient`` here, its ``Subject`` there, as in a judged
pytest run). Without it (a program given as text alone, a view that cannot be built or does
not import in the judge) the plain-data judge below (3.-5.) decides.

Who can reach what (issue 13: the code under test must not be able to forge its verdict):

1. The judge makes itself non-dumpable (``prctl(PR_SET_DUMPABLE, 0)``): a process of the same
   uid can then neither ptrace it nor open its ``/proc/<pid>/fd``, ``mem`` or ``environ``.
   It opens the spec, unlinks the file and forks the subject *before* reading it, so the
   subject's memory never holds the tests (their expected values, hidden tests included).
2. The subject closes every descriptor but its own pipes (request, reply, crash dump) and the
   standard streams before any code of the project is imported; only the judge holds the
   results descriptor (``$CODETEAM_RESULTS_FD``). The judge's ``sys.path`` is the standard
   library alone (nothing of the writable ``/sandbox`` or ``/tmp``, nothing of the project).
3. Values cross as plain data, in pytest_codec's frames and encoding restricted to plain
   data both ways (no pickle or marshal of what the subject sends): None, bool, int, float,
   complex, str, bytes and list, tuple, dict, set, frozenset of those, exact types only (no
   subclasses). The judge evaluates each
   test itself -- a doctest example's source, an AI test's statements -- in a namespace of
   its own where the module's functions are *proxies*: a call sends its arguments to the
   subject, which calls the real function and answers with the return value (plus the
   arguments after the call, so in-place changes of a list, dict or set argument are seen),
   the exception it raised (type, message, traceback lines mapped to the program file) or a
   timeout, and the stdout printed during the call. Every comparison (``==`` of an assert,
   doctest's output check of the judge's own repr of the value) happens in the judge.
   Whatever the subject answers, the code could as well have returned: lying through the
   channel gains it nothing it could not get by returning a value, and it never sees the
   expected values. Values are copies: ``f(xs) is xs`` is False in the judge.
4. A return value that is not plain data arrives as its repr with, for each non-plain type in
   it, whether its ``__repr__``/``__eq__`` is code of the function under test (defined in the
   ``function_span`` lines, or patched at run time with such code, or code that is not a file
   of a read-only place: ``exec``'d text, a file written to /tmp). Then the test is an error
   ("the value's repr comes from the code under test"); otherwise (a class of the module
   outside the function, or of a library) the repr stands for the value in a doctest, and
   any other use of it (``==``, attributes) sends the whole test to the subject (5.). That
   repr is the subject's word: a subject that patches our own code could claim another one.
5. A test the judge cannot evaluate on its own (it uses other names of the module than its
   functions, imports other than a few pure standard modules, ``open``, ``eval``..., or
   passes a non-plain value such as a lambda) runs inside the subject as a whole, and its
   outcome carries ``"trusted": false``: that verdict comes from the code's own process.
6. A subject that dies (``os._exit``, a segfault, a kill, a fork bomb's aftermath, stuck in
   C code past the watchdog) is an error (or a timeout) for the running test; the judge
   kills what is left of it and starts a fresh subject (a new interpreter, so no copy of the
   judge's memory) for the rest.
7. The judged mode: the judge reads the spec before any subject exists; its subject is a
   new interpreter (this file with two descriptor numbers) holding its two pipes alone, the
   results descriptor's number dropped from its environment. The judge's ``sys.path`` is
   the standard library, then the spec's folders (the project's import root and the
   interpreter's site-packages, read-only), never ``/sandbox`` or ``/tmp``. Values cross in pytest_codec's
   encoding (plain data; allow-listed references; objects of the project's own classes by
   state, never by a constructor; callbacks for the test's lambdas and iterators; handles for
   the code's generators and closures; in-place changes written back, ``self`` included):
   a value of a class the code defines (a ``__repr__`` that prints what a doctest expects, an
   ``int`` subclass equal to anything) cannot be rebuilt in the judge and makes the test an
   error. Each call carries what is left of the test's time; the subject's own timer ends
   the code there (the timeout says where), the judge ends a subject that has not answered
   0.5 s later (and, under bwrap, every other process of the sandbox), and a fresh one serves
   the rest. Signals the subject sends the judge (SIGINT, SIGTERM, SIGHUP, SIGUSR1...) make
   the running test an error. A test whose own arguments cannot cross (an object of a class
   the test defines) runs as a whole in the subject, ``"trusted": false``.

Results go, one JSON object per line and written as soon as they are known, to the results
descriptor: ``{"event": "start", "index": i}`` before a test, ``{"event": "outcome", "index":
i, ...}`` after it (the fields of ``TestOutcome``), ``{"event": "done"}`` at the end. If the
judge dies, the runner keeps the outcomes already written; a run that ends without every
expected outcome is an error for the missing ones.

Per test: ``status`` is passed / failed (an assert of the test or a doctest comparison
failed) / error (any other exception, the program failing to import included) / timeout
(``SIGALRM`` in the subject after ``test_timeout`` seconds, repeated every 0.2 s in case the
code swallows the first one). ``program_line`` is the 1-based line of the innermost traceback
frame in the program file. Code stuck in C (``sum(itertools.repeat(1))``) never sees
``SIGALRM``: faulthandler's watchdog in the subject writes where it is stuck to the dump pipe
and ends the subject ``WATCHDOG_GRACE`` seconds after the timeout. Crashes dump the same way.

Start-up time matters (one run per review): the passing path imports nothing that pulls in
``enum`` or ``re``; tracebacks, reprs and doctest are loaded when needed. The subject is
forked from the judge (no second interpreter start) except when one is restarted.
"""

import _ast
import _signal
import builtins
import io
import marshal
import os
import sys
import time
from _json import encode_basestring_ascii as _json_string

FIELD_LIMIT = 2000  # characters of expected/actual/message
STDOUT_LIMIT = 4000  # characters of a test's captured stdout
TRACEBACK_LIMIT = 6000  # characters of a traceback (its end is kept)
ALARM_REPEAT = 0.2  # seconds between repeated timeout signals
WATCHDOG_GRACE = 1.0  # seconds after a test's timeout before the C-level watchdog ends it
REPLY_GRACE = 1.5  # seconds after the watchdog before the judge kills a silent subject
FRAME_LIMIT = 16 * 1024 * 1024  # bytes of one message between judge and subject
DEPTH_LIMIT = 200  # nesting of plain data
PR_SET_DUMPABLE = 4
VIEW_REPLY_GRACE = 0.5  # seconds after a test's time the judged mode waits for the subject

SAFE_MODULES = frozenset({
    "math", "cmath", "string", "itertools", "functools", "operator", "collections", "heapq",
    "bisect", "fractions", "decimal", "statistics", "copy", "re", "textwrap", "unicodedata",
    "random",
})  # fmt: skip
"""Standard modules a test evaluated by the judge may import (pure computation, no I/O)."""

JUDGE_BUILTINS_LEFT_OUT = frozenset({
    "open", "eval", "exec", "compile", "globals", "locals", "vars", "input", "breakpoint",
    "help", "exit", "quit", "__build_class__", "__loader__", "__spec__", "__builtins__",
})  # fmt: skip
"""Builtins a test using them is run in the subject instead (they reach files, the module's
own namespace or code given as text)."""

_OPS = {
    "Eq": ("==", lambda a, b: a == b),
    "NotEq": ("!=", lambda a, b: a != b),
    "Lt": ("<", lambda a, b: a < b),
    "LtE": ("<=", lambda a, b: a <= b),
    "Gt": (">", lambda a, b: a > b),
    "GtE": (">=", lambda a, b: a >= b),
    "Is": ("is", lambda a, b: a is b),
    "IsNot": ("is not", lambda a, b: a is not b),
    "In": ("in", lambda a, b: a in b),
    "NotIn": ("not in", lambda a, b: a not in b),
}


class TestTimeout(BaseException):
    """Raised by the SIGALRM handler: a BaseException, so ``except Exception`` in the tested
    code does not swallow it."""


class _RemoteTimeout(TestTimeout):
    """The subject reported a timeout, or was stuck and ended (judge side)."""

    def __init__(self, info):
        super().__init__()
        self.info = info


class _SubjectDied(BaseException):
    """The subject died during a call (judge side)."""

    def __init__(self, info):
        super().__init__(info.get("message", ""))
        self.info = info


class _Rerun(BaseException):
    """The judge cannot evaluate this test on its own: run it in the subject."""


class _Untrusted(BaseException):
    """A value whose repr/eq is code under test (judge side)."""


# ------------------------------------------------------------------------------------------
# Plain data between the two processes: the frames and encoding of pytest_codec (copied beside
# this file as ``_codeteam_pytest_codec``; the judge never unpickles or unmarshals what the
# subject sends), restricted here to plain data both ways.

_SCALARS = (type(None), bool, int, float, complex, str, bytes)
_PLAIN_CONTAINERS = (list, tuple, set, frozenset)
_SIBLINGS = {}


def _load_sibling(name):
    """The module ``name`` from the file beside this script (``.pyc``, else ``.py``), loaded
    by path: the judge's ``sys.path`` holds nothing writable."""
    found = sys.modules.get(name)
    if found is not None:
        return found
    from _frozen_importlib import module_from_spec
    from _frozen_importlib_external import (
        SourceFileLoader,
        SourcelessFileLoader,
        spec_from_file_location,
    )

    here = os.path.dirname(os.path.abspath(sys.argv[0]))
    for suffix, loader in ((".pyc", SourcelessFileLoader), (".py", SourceFileLoader)):
        path = os.path.join(here, name + suffix)
        if os.path.exists(path):
            spec = spec_from_file_location(name, path, loader=loader(name, path))
            module = module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
            return module
    raise ImportError(f"{name} is not beside the harness")


def _codec():
    return _load_sibling("_codeteam_pytest_codec")


def is_plain(value, depth=0):
    """Whether ``value`` is plain data: None, bool, int, float, complex, str, bytes and list,
    tuple, dict, set, frozenset of those, exact types only (no subclasses)."""
    kind = type(value)
    if kind in _SCALARS:
        return True
    if depth > DEPTH_LIMIT:
        return False
    if kind in _PLAIN_CONTAINERS:
        return all(is_plain(item, depth + 1) for item in list(value))
    if kind is dict:
        return all(is_plain(k, depth + 1) and is_plain(v, depth + 1)
                   for k, v in list(dict.items(value)))  # fmt: skip
    return False


def _encoded(value):
    """The codec's bytes for plain ``value``; ``TypeError`` when it is not plain data."""
    if not is_plain(value):
        raise TypeError("not plain data")
    codec = _codec()
    try:
        return codec.Codec(True).dumps(value)
    except (codec.CannotCross, RecursionError) as error:
        raise TypeError(str(error)) from None


def _send(fd, value):
    _codec().send_frame(fd, _encoded(value))


def _receive(fd, deadline=None):
    """One message from ``fd`` (plain data); ``EOFError``, ``TimeoutError`` or
    ``ValueError`` when there is none."""
    codec = _codec()
    data = codec.receive_frame(fd, deadline)
    if len(data) > FRAME_LIMIT:
        raise ValueError("message too large")
    try:
        value = codec.Codec(True).loads(data)
    except Exception as error:  # noqa: BLE001 - anything malformed
        raise ValueError(f"malformed message ({type(error).__name__})") from None
    if not is_plain(value):
        raise ValueError("a message that is not plain data")
    return value


# ------------------------------------------------------------------------------------------
# What judge and subject share: timers, reprs, tracebacks, assert rewriting, doctest.


class _Base:
    def __init__(self, config):
        self.module_name = config["module"]
        self.here = os.getcwd()
        self.program_file = os.path.abspath(
            config.get("program_file") or os.path.join(self.here, self.module_name + ".py")
        )
        shown = os.path.relpath(self.program_file, self.here)
        self.program_shown = shown if not shown.startswith("..") else self.program_file
        self.timeout = float(config.get("test_timeout") or 5.0)
        self.test_files = set()
        self.sources = {}  # test file name -> lines, for tracebacks
        self.armed = False
        self.waiting = False  # judge: waiting for the subject (its own timer decides)
        self.last = None  # (assert line, left, right, op) of the last recorded comparison
        self.repr = None

    # -- timeouts ----------------------------------------------------------------------------

    def _alarm(self, signum, frame):
        if self.armed and not self.waiting:
            raise TestTimeout()

    def guarded(self, function, seconds):
        """Call ``function()`` under a timer: ("ok", value) / ("timeout", exc) /
        ("raised", exc)."""
        try:
            self.armed = True
            _signal.setitimer(_signal.ITIMER_REAL, max(seconds, 0.001), ALARM_REPEAT)
            try:
                return "ok", function()
            finally:
                self.armed = False
                _signal.setitimer(_signal.ITIMER_REAL, 0)
        except TestTimeout as exc:
            return "timeout", exc
        except BaseException as exc:  # noqa: BLE001 - SystemExit, KeyboardInterrupt, anything
            return "raised", exc

    # -- reprs and tracebacks ----------------------------------------------------------------

    def safe_repr(self, value):
        """``repr(value)``, bounded in size (reprlib) and time (1 s)."""
        if self.repr is None:
            import reprlib

            self.repr = reprlib.Repr()
            self.repr.maxlevel = 8
            self.repr.maxstring = self.repr.maxother = self.repr.maxlong = FIELD_LIMIT
            for name in ("maxtuple", "maxlist", "maxarray", "maxdict", "maxset"):
                setattr(self.repr, name, 200)
            self.repr.maxfrozenset = self.repr.maxdeque = 200
        status, text = self.guarded(lambda: self.repr.repr(value), 1.0)
        if status != "ok":
            return f"<repr failed: {type(text).__name__}>"
        return text

    def frames(self, exc):
        """The traceback's frames in the program file and the test code."""
        import linecache
        import traceback

        for filename, lines in self.sources.items():
            linecache.cache[filename] = (sum(map(len, lines)), None, lines, filename)
        keep = []
        for frame in traceback.extract_tb(exc.__traceback__):
            if frame.filename == self.program_file:
                frame.filename = self.program_shown
                keep.append(frame)
            elif frame.filename in self.test_files or frame.filename.startswith("<doctest "):
                keep.append(frame)
        return keep

    def describe(self, exc, outcome):
        """Fill ``exception_type``, ``message``, ``traceback`` and ``program_line``."""
        import traceback

        kind = type(exc)
        module = getattr(kind, "__module__", "builtins")
        name = (
            kind.__qualname__ if module in ("builtins", None) else module + "." + kind.__qualname__
        )
        outcome["exception_type"] = name
        try:
            message = str(exc)
        except BaseException:  # noqa: BLE001
            message = "<str() failed>"
        frames = self.frames(exc)
        program_frames = [f for f in frames if f.filename == self.program_shown]
        if program_frames:
            outcome["program_line"] = program_frames[-1].lineno
        if isinstance(exc, SyntaxError) and exc.lineno and exc.filename in (
            self.program_file,
            self.program_shown,
        ):
            outcome["program_line"] = exc.lineno
            exc.filename = self.program_shown
        if not message and isinstance(exc, AssertionError) and frames:
            message = (frames[-1].line or "").strip()
        outcome["message"] = message[:FIELD_LIMIT]
        text = "".join(traceback.format_list(frames))
        text = ("Traceback (most recent call last):\n" + text if frames else "") + "".join(
            traceback.format_exception_only(kind, exc)
        )
        if len(text) > TRACEBACK_LIMIT:
            text = "...\n" + text[-TRACEBACK_LIMIT:]
        outcome["traceback"] = text

    def register_source(self, filename, source, first_line=0):
        """Make ``source`` (starting at 0-based ``first_line`` of ``filename``) visible to
        tracebacks."""
        lines = source.replace("\r\n", "\n").replace("\r", "\n").split("\n")  # as compile()
        if lines and not lines[-1]:
            lines.pop()
        self.sources[filename] = ["\n"] * first_line + [f"{line}\n" for line in lines]
        self.test_files.add(filename)

    def is_failure(self, exc):
        """An assert of the test code failed: "failed"; anything else, an assert inside the
        program included, is an error."""
        if not isinstance(exc, AssertionError):
            return False
        frames = self.frames(exc)
        return bool(frames) and frames[-1].filename in self.test_files

    # -- assert rewriting --------------------------------------------------------------------

    def _compare(self, line, op, left, right):
        self.last = (line, left, right, op)
        return _OPS[op][1](left, right)

    def _value(self, line, negated, value):
        self.last = (line, value, None, "not" if negated else "truth")
        return value

    def compile_test(self, source, filename):
        """Compile test code with its ``assert`` statements rewritten to record the values
        they compare (evaluated once, as written). Works on :mod:`_ast` nodes (the :mod:`ast`
        module is slow to load)."""
        tree = compile(source, filename, "exec", _ast.PyCF_ONLY_AST)
        for node in _walk(tree):
            if isinstance(node, _ast.Assert):
                node.test = _recording(node.test, node.lineno)
        self.register_source(filename, source)
        return compile(tree, filename, "exec")

    def helpers(self):
        return {"__codeteam_compare__": self._compare, "__codeteam_value__": self._value}

    def compared(self, exc, outcome):
        """expected/actual of the failing assert, from its recorded comparison."""
        frames = self.frames(exc)
        if self.last is None or not frames:
            return
        line, left, right, op = self.last
        if frames[-1].lineno != line:
            return
        if op == "truth":
            outcome["expected"] = "a true value"
            outcome["actual"] = self.safe_repr(left)
        elif op == "not":
            outcome["expected"] = "a false value"
            outcome["actual"] = self.safe_repr(left)
        elif op == "Eq":
            outcome["expected"] = self.safe_repr(right)
            outcome["actual"] = self.safe_repr(left)
        else:
            outcome["expected"] = f"{_OPS[op][0]} {self.safe_repr(right)}"
            outcome["actual"] = self.safe_repr(left)

    # -- test kinds --------------------------------------------------------------------------

    def run_assert(self, test, namespace):
        test_id = test["id"]
        namespace.update(self.helpers())
        if test.get("setup"):
            setup = compile(test["setup"], f"<setup {test_id}>", "exec")
            exec(setup, namespace)  # noqa: S102 - running the test is the point
        exec(self.compile_test(test["source"], f"<test {test_id}>"), namespace)  # noqa: S102

    def run_doctest(self, test, globs, outcome, seconds):
        import doctest

        class Spoof(doctest._SpoofOut):
            """doctest's captured output, capped."""

            def write(self, text):
                if self.tell() < 4 * STDOUT_LIMIT:
                    return super().write(text)
                return len(text)

        class Runner(doctest.DocTestRunner):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, **kwargs)
                self._fakeout = Spoof()
                self.result = None
                self.setup_problem = None
                self.setup_example = None

            def report_start(self, out, test, example):
                pass

            def report_success(self, out, test, example, got):
                if example is target:
                    self.result = ("passed", got)

            def report_failure(self, out, test, example, got):
                if example is target:
                    self.result = ("failed", got)
                elif self.setup_problem is None:
                    self.setup_problem = f"printed {got[:200]!r}"
                    self.setup_example = example

            def report_unexpected_exception(self, out, test, example, exc_info):
                exc = exc_info[1]
                if isinstance(exc, (_Rerun, _Untrusted, _SubjectDied, TestTimeout,
                                    *passthrough)):  # fmt: skip
                    raise exc  # decided outside doctest
                if example is target:
                    self.result = ("raised", exc)
                elif self.setup_problem is None:
                    self.setup_problem = f"raised {type(exc).__name__}: {exc}"
                    self.setup_example = example

        passthrough = getattr(self, "passthrough", ())
        examples, target = _doctest_examples(test)
        case = doctest.DocTest(examples + [target], globs, test["id"], None, 0, None)
        runner = Runner(verbose=False, optionflags=0)

        def run():
            runner.run(case, out=lambda text: None, clear_globs=False)

        status, exc = self.guarded(run, seconds)
        if status != "ok":
            return status, exc
        if runner.result is None:
            return "raised", RuntimeError("the doctest did not run")
        kind, value = runner.result
        outcome["expected"] = target.want.rstrip("\n")[:FIELD_LIMIT]
        if runner.setup_problem is not None and kind != "passed":
            earlier = runner.setup_example.source.strip()[:200]
            outcome["message"] = (
                f"an earlier example of the docstring, >>> {earlier}, {runner.setup_problem}"
            )
        if kind == "passed":
            outcome["actual"] = value.rstrip("\n")[:FIELD_LIMIT]
            return "ok", None
        if kind == "failed":
            got = value.rstrip("\n")
            outcome["actual"] = got[:FIELD_LIMIT]
            outcome["status"] = "failed"
            want = self.safe_repr(target.want.rstrip("\n"))
            mismatch = f"expected {want}, got {self.safe_repr(got)}"
            outcome["message"] = (outcome.get("message", "") + "; " + mismatch).lstrip("; ")
            return "done", None
        if isinstance(value, TestTimeout):
            return "timeout", value
        return "raised", value

    def finish(self, outcome, status, exc, import_error=False):
        """Fill ``outcome`` from how the test ended (``status`` and ``exc`` of
        :meth:`guarded`)."""
        if status == "timeout":
            outcome["status"] = "timeout"
            if import_error:
                outcome["message"] = f"importing {self.module_name} took longer than {self.timeout:g} s"
                outcome["import_failed"] = True
            else:
                outcome["message"] = f"the test took longer than {self.timeout:g} s"
            outcome["exception_type"] = "TimeoutError"
            import traceback

            frames = self.frames(exc)
            program = [f for f in frames if f.filename == self.program_shown]
            if program:
                outcome["program_line"] = program[-1].lineno
            if frames:
                outcome["traceback"] = "".join(traceback.format_list(frames))[-TRACEBACK_LIMIT:]
        elif status == "raised":
            failed = not import_error and self.is_failure(exc)
            outcome["status"] = "failed" if failed else "error"
            prefix = outcome.get("message", "")
            self.describe(exc, outcome)
            if import_error:
                outcome["message"] = f"importing {self.module_name} failed: {outcome['message']}"
                outcome["import_failed"] = True
            elif prefix:
                outcome["message"] = prefix + ": " + outcome["message"]
            if failed:
                self.compared(exc, outcome)


# ------------------------------------------------------------------------------------------
# The subject: imports the program and runs what the judge asks for.


class _Subject(_Base):
    def __init__(self, config, requests, replies):
        super().__init__(config)
        self.config = config
        self.requests = requests
        self.replies = replies
        span = config.get("function_span")
        self.span = (int(span[0]), int(span[1])) if span else None
        self.module = None

    def reply(self, message):
        try:
            _send(self.replies, message)
        except TypeError:  # a field that is not plain data (a bug of ours): say so
            _send(self.replies, {"kind": "broken", "message": "unencodable reply"})

    def watchdog(self, seconds):
        import faulthandler

        if seconds is None:
            faulthandler.cancel_dump_traceback_later()
        else:
            faulthandler.dump_traceback_later(seconds + WATCHDOG_GRACE, exit=True,
                                              file=self.dump_fd)  # fmt: skip

    def captured_call(self, function, seconds):
        captured = _Capture(STDOUT_LIMIT)
        saved = sys.stdout
        sys.stdout = captured
        self.watchdog(seconds)
        started = time.perf_counter()
        try:
            status, value = self.guarded(function, seconds)
        finally:
            self.watchdog(None)
            sys.stdout = saved
        return status, value, captured.getvalue(), time.perf_counter() - started

    def import_program(self):
        name = self.module_name
        candidate = self.config.get("candidate")
        if candidate:  # the file at program_file is the judge view: the candidate is here
            import importlib

            with open(candidate, encoding="utf-8") as handle:
                text = handle.read()
            loader = _load_sibling("_codeteam_pytest_subject")._Loader(
                name, self.program_file, text, os.path.basename(self.program_file) == "__init__.py")
            sys.meta_path.insert(0, loader)
            return importlib.import_module(name)
        lone = os.path.join(self.here, name + ".py")
        if "." not in name and self.program_file == lone:
            # A lone file: loaded from its path, so that a program called inspect.py is the
            # program, not the standard module of that name.
            from _frozen_importlib import module_from_spec
            from _frozen_importlib_external import spec_from_file_location

            spec = spec_from_file_location(name, self.program_file)
            module = module_from_spec(spec)
            sys.modules[name] = module
            try:
                spec.loader.exec_module(module)
            except BaseException:
                sys.modules.pop(name, None)
                raise
            return module
        import importlib

        return importlib.import_module(name)

    def functions(self):
        """Names of the module's plain Python functions (the judge proxies them)."""
        function = type(_walk)
        return [
            name
            for name, value in list(vars(self.module).items())
            if type(name) is str and type(value) is function and not name.startswith("__")
        ]

    def start(self):
        here = self.here
        sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
        for path in reversed(self.config.get("sys_path") or []):
            if path not in sys.path:
                sys.path.insert(0, path)
        if here not in sys.path:
            sys.path.append(here)
        _signal.signal(_signal.SIGALRM, self._alarm)
        if self.module_name.split(".")[0] in getattr(sys, "stdlib_module_names", ()):
            # The program will shadow a standard module in sys.modules: load what the harness
            # needs first, so its later imports do not pick up the program instead.
            import doctest  # noqa: F401
            import linecache  # noqa: F401
            import reprlib  # noqa: F401
            import traceback  # noqa: F401
        status, value, stdout, _ = self.captured_call(self.import_program, self.timeout)
        if status == "ok":
            self.module = value
            self.reply({"kind": "imported", "stdout": stdout, "functions": self.functions()})
            return
        outcome = {}
        self.finish(outcome, status, value, import_error=True)
        self.reply({"kind": "import_failed", "stdout": stdout, "outcome": outcome})

    def serve(self):
        while True:
            try:
                request = _receive(self.requests)
            except (EOFError, ValueError, OSError):
                return
            kind = request.get("kind")
            if kind == "call":
                self.reply(self.call(request))
            elif kind == "run":
                self.reply({"kind": "outcome", "outcome": self.run(request)})
            else:
                return

    # -- a call from the judge ---------------------------------------------------------------

    def call(self, request):
        function = getattr(self.module, request["name"], None)
        args = list(request["args"])
        kwargs = dict(request["kwargs"])
        if not callable(function):
            return {"kind": "raised", "type": "AttributeError", "module": "builtins",
                    "bases": ["AttributeError"], "message": f"module {self.module_name!r} has "
                    f"no function {request['name']!r}", "traceback": "", "stdout": ""}  # fmt: skip
        status, value, stdout, seconds = self.captured_call(
            lambda: function(*args, **kwargs), float(request["seconds"])
        )
        reply = {"stdout": stdout, "seconds": seconds}
        if status == "ok":
            if _fits(value, FRAME_LIMIT // 2):
                reply.update(kind="value", value=value)
            else:
                reply.update(self.opaque(value), kind="opaque")
            if _fits([args, kwargs], FRAME_LIMIT // 4):
                reply.update(args=args, kwargs=kwargs)
            return reply
        outcome = {}
        self.finish(outcome, "timeout" if status == "timeout" else "raised", value)
        reply.update(kind="timeout" if status == "timeout" else "raised")
        for key in ("message", "traceback", "program_line"):
            if key in outcome:
                reply[key] = outcome[key]
        if status == "raised":
            kind = type(value)
            reply["type"] = str(getattr(kind, "__qualname__", "Exception"))
            reply["module"] = str(getattr(kind, "__module__", "builtins"))
            reply["bases"] = [
                base.__name__
                for base in kind.__mro__
                if getattr(builtins, base.__name__, None) is base
            ]
            if is_plain(value.args):
                reply["args"] = value.args
        return reply

    def in_span(self, function, depth=0):
        """Whether ``function`` (a ``__repr__``/``__eq__``) may be code under test: defined in
        the function's lines of the program file (anywhere in it without a span), or in code
        that is not a file of a read-only place (``exec``'d text, a file the code wrote into
        /sandbox or /tmp). A callable wrapping another (``functools.partial``, a bound or
        decorated method) is judged by what it wraps, a few levels deep."""
        if function is None or depth > 4:
            return depth > 4
        code = getattr(function, "__code__", None)
        if code is None:
            inner = [getattr(function, name, None) for name in ("__func__", "__wrapped__", "func")]
            partial = getattr(function, "_partialmethod", None)
            if partial is not None:
                inner.append(getattr(partial, "func", None))
            return any(self.in_span(f, depth + 1) for f in inner if f is not None)
        name = code.co_filename
        if name == self.program_file:
            if self.span is None:
                return True
            return self.span[0] <= code.co_firstlineno <= self.span[1]
        if not os.path.isabs(name) or not os.path.isfile(name):
            return True
        real = os.path.realpath(name)
        for place in (self.here, "/sandbox", "/tmp", "/dev/shm", os.environ.get("TMPDIR")):
            if place and (real == place or real.startswith(place.rstrip("/") + "/")):
                return real != os.path.realpath(self.program_file)
        return False

    def opaque(self, value):
        """A value that is not plain data: its repr, and for each type in it that is not
        plain, its name and whether its repr/eq is code under test."""
        seen = {}
        stack = [(value, 0)]
        while stack and len(seen) < 50:
            item, depth = stack.pop()
            kind = type(item)
            if kind in _SCALARS:
                continue
            if kind in (list, tuple, set, frozenset) and depth < 8:
                stack.extend((x, depth + 1) for x in list(item)[:1000])
                continue
            if kind is dict and depth < 8:
                for key, x in list(item.items())[:1000]:
                    stack.extend(((key, depth + 1), (x, depth + 1)))
                continue
            if kind in seen:
                continue
            suspect = False
            try:
                for attr in ("__repr__", "__eq__", "__str__"):
                    method = getattr(kind, attr, None)
                    if self.in_span(method):
                        suspect = True
                name = str(kind.__module__) + "." + str(kind.__qualname__)
            except Exception:  # noqa: BLE001 - a strange metaclass
                suspect, name = True, "?"
            seen[kind] = [name, suspect]
        return {"repr": self.safe_repr(value), "types": list(seen.values())}

    # -- a whole test from the judge ---------------------------------------------------------

    def run(self, request):
        test = request["test"]
        outcome = {"status": "passed"}
        seconds = float(request["seconds"])
        self.last = None
        namespace = dict(vars(self.module)) if self.module is not None else {}
        if test["kind"] == "doctest":
            captured = _Capture(STDOUT_LIMIT)
            saved = sys.stdout
            sys.stdout = captured
            self.watchdog(seconds)
            started = time.perf_counter()
            try:
                status, exc = self.run_doctest(test, namespace, outcome, seconds)
            finally:
                self.watchdog(None)
                sys.stdout = saved
            stdout, took = captured.getvalue(), time.perf_counter() - started
        else:
            status, exc, stdout, took = self.captured_call(
                lambda: self.run_assert(test, namespace), seconds
            )
        self.finish(outcome, status, exc)
        outcome["stdout"] = stdout
        outcome["seconds"] = took
        return outcome


def _subject_main(config, requests, replies, dump_fd):
    """The subject's life: its descriptors are already reduced to its pipes."""
    import faulthandler

    os.environ.pop("CODETEAM_RESULTS_FD", None)
    if os.environ.get("CODETEAM_PRIVATE_PIDNS") == "root":
        _guard_forks(int(os.environ.get("CODETEAM_MAX_PROCESSES") or 64))
    faulthandler.enable(file=dump_fd)  # a crash dumps where it happened to the judge
    _install_exit_builtins()
    subject = _Subject(config, requests, replies)
    subject.dump_fd = dump_fd
    subject.start()
    subject.serve()
    os._exit(0)


def _close_other_fds(keep):
    """Close every descriptor but 0-2 and ``keep``."""
    low = 3
    for fd in sorted(keep):
        if fd >= low:
            os.closerange(low, fd)
            low = fd + 1
    os.closerange(low, 1 << 20)


# ------------------------------------------------------------------------------------------
# The judge.


class _Proxy:
    """A function of the module, called in the subject with plain arguments."""

    def __init__(self, judge, name):
        self._judge = judge
        self._name = name
        self.__name__ = name
        self.__qualname__ = name

    def __repr__(self):
        return f"<function {self._name}>"

    def __call__(self, *args, **kwargs):
        return self._judge.call(self._name, args, kwargs)


class _Opaque:
    """A return value that is not plain data: its repr (as the subject gave it) stands for it
    in doctest output; anything else sends the test to the subject."""

    __slots__ = ("_text",)

    def __init__(self, text):
        object.__setattr__(self, "_text", text)

    def __repr__(self):
        return self._text

    def _rerun(self, *args, **kwargs):
        _FLAGS["rerun"] = True
        raise _Rerun("the value is not plain data")

    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __hash__ = __bool__ = __len__ = _rerun
    __iter__ = __contains__ = __getitem__ = __call__ = __str__ = __add__ = __sub__ = _rerun
    __mul__ = __radd__ = __rsub__ = __rmul__ = __truediv__ = __int__ = __float__ = _rerun

    def __getattr__(self, name):
        _FLAGS["rerun"] = True
        raise _Rerun("the value is not plain data")


_FLAGS = {"rerun": False}
"""Set when a test needed the subject (a test may catch the exception that said so)."""


def _plain_exception(info):
    """A judge-side exception standing for one the subject reported: same qualified name and
    message (doctest compares those), a subclass of the nearest builtin exception class, so
    ``except ValueError`` in a test catches it."""
    base = Exception
    for name in info.get("bases") or []:
        candidate = getattr(builtins, str(name), None)
        if isinstance(candidate, type) and issubclass(candidate, Exception):
            base = candidate
            break
    message = str(info.get("message", ""))
    try:
        kind = type(str(info.get("type") or "Exception").rsplit(".", 1)[-1], (base,), {
            "__str__": lambda self: message,
            "__module__": str(info.get("module") or "builtins"),
        })  # fmt: skip
    except TypeError:
        kind = type("RemoteError", (Exception,), {"__str__": lambda self: message})
    kind.__qualname__ = str(info.get("type") or "Exception")
    args = info.get("args")
    try:
        exc = kind(*args) if type(args) is tuple else kind(message)
    except BaseException:  # noqa: BLE001 - e.g. an OSError subclass taking other arguments
        exc = kind(message)
    exc._codeteam_remote = info
    return exc


class _Judge(_Base):
    def __init__(self, spec):
        super().__init__(spec)
        self.spec = spec
        self.results_fd = int(os.environ.get("CODETEAM_RESULTS_FD", "1"))
        self.write = os.write
        self.subject = None  # (pid, requests fd, replies fd, dump fd)
        self.functions = []
        self.import_outcome = None
        self.untrusted_reason = None
        self.deadline = None  # monotonic time the running test's budget ends
        self.death = None  # how the subject ended during the running test (a dict)

    # -- output ------------------------------------------------------------------------------

    def emit(self, record):
        """Write ``record`` (a flat dict of str/int/float/bool/None) as one JSON line."""
        fields = []
        for key, value in record.items():
            if value is None or value is True or value is False:
                text = {None: "null", True: "true", False: "false"}[value]
            elif type(value) is int:
                text = int.__repr__(value)
            elif type(value) is float:
                text = float.__repr__(value) if value - value == 0 else "null"  # nan, inf
            else:  # no lone surrogates: the runner wants valid UTF-8
                text = _json_string(str(value).encode("utf-8", "replace").decode("utf-8"))
            fields.append(_json_string(key) + ":" + text)
        data = ("{" + ",".join(fields) + "}\n").encode("ascii")
        view = memoryview(data)
        while view:
            view = view[self.write(self.results_fd, view) :]

    # -- the subject's life ------------------------------------------------------------------

    def config(self):
        return {
            "module": self.spec["module"],
            "sys_path": list(self.spec.get("sys_path") or []),
            "program_file": self.program_file,
            "function_span": list(self.spec["function_span"])
            if self.spec.get("function_span")
            else None,
            "test_timeout": self.timeout,
            "candidate": self.spec.get("candidate"),
        }

    def spawn(self):
        """A fresh subject: a new interpreter (not a fork of the judge, whose memory holds the
        tests) given its pipes and the configuration."""
        to_subject = os.pipe()
        from_subject = os.pipe()
        dump = os.pipe()
        keep = (to_subject[0], from_subject[1], dump[1])
        pid = _fork_when_possible()
        if pid == 0:
            try:
                _close_other_fds(keep)
                for fd in keep:
                    os.set_inheritable(fd, True)
                os.execv(sys.executable, [sys.executable, "-S", "-s", "-B",
                                          os.path.abspath(sys.argv[0]), "--subject",
                                          *map(str, keep)])  # fmt: skip
            finally:
                os._exit(127)
        self.adopt(pid, to_subject, from_subject, dump)
        _send(to_subject[1], self.config())

    def adopt(self, pid, to_subject, from_subject, dump):
        os.close(to_subject[0])
        os.close(from_subject[1])
        os.close(dump[1])
        os.set_blocking(dump[0], False)
        self.subject = (pid, to_subject[1], from_subject[0], dump[0])

    def receive_start(self):
        """The subject's first answer: the import's outcome."""
        _, _, replies, _ = self.subject
        deadline = time.monotonic() + self.timeout + WATCHDOG_GRACE + REPLY_GRACE
        try:
            reply = _receive(replies, deadline)
        except (EOFError, ValueError, TimeoutError, OSError):
            info = self.bury()
            outcome = {"status": "timeout" if info.get("timeout") else "error",
                       "message": f"the process died while importing {self.module_name}: "
                       f"{info['reason']}", "import_failed": True}  # fmt: skip
            if info.get("program_line"):
                outcome["program_line"] = info["program_line"]
            return outcome, ""
        stdout = str(reply.get("stdout", ""))
        if reply.get("kind") == "imported":
            self.functions = [str(n) for n in reply.get("functions") or [] if type(n) is str]
            return None, stdout
        outcome = self.checked(reply.get("outcome"))
        outcome["import_failed"] = True
        if outcome.get("status") not in ("error", "timeout"):
            outcome["status"] = "error"
        return outcome, stdout

    def bury(self):
        """End the subject (and everything it started) and say how it ended."""
        pid, requests, replies, dump = self.subject
        self.subject = None
        self.kill_strays(pid)
        code = None
        try:
            _, code = os.waitpid(pid, 0)
        except ChildProcessError:
            pass
        text = b""
        try:
            while len(text) < 65536:
                chunk = os.read(dump, 65536)
                if not chunk:
                    break
                text += chunk
        except (BlockingIOError, OSError):
            pass
        for fd in (requests, replies, dump):
            try:
                os.close(fd)
            except OSError:
                pass
        dumped = text.decode("utf-8", "replace")
        if dumped:
            sys.stderr.write(dumped)  # the run's output shows it, as before
            sys.stderr.flush()
        info = {"reason": _exit_reason(code), "dump": dumped}
        if dumped.startswith("Timeout ("):
            info["timeout"] = True
        prefix = f'File "{self.program_file}", line '
        for line in dumped.splitlines():  # most recent frame first
            line = line.strip()
            if line.startswith(prefix):
                number = line[len(prefix) :].split(" ", 1)[0]
                if number.isdigit():
                    info["program_line"] = int(number)
                    break
        return info

    def kill_strays(self, pid):
        """SIGKILL the subject and what it started: under bwrap every other process of the
        sandbox's private pid namespace (``kill(-1)`` spares the caller and the namespace's
        init), else the subject's process group."""
        if os.environ.get("CODETEAM_PRIVATE_PIDNS") == "1" and os.getppid() == 1:
            targets = [-1]
        else:  # "none": the subject shares the run's process group, which the runner ends
            targets = [pid]
        for target in targets:
            try:
                os.kill(target, _signal.SIGKILL)
            except OSError:
                pass

    def ensure_subject(self):
        """A live subject, imported; the import's failure outcome (dict) or None."""
        if self.subject is None:
            self.spawn()
            outcome, _ = self.receive_start()
            if outcome is not None:
                if self.subject is not None:
                    self.bury()
                return outcome
        return None

    def ask(self, request, seconds):
        """Send ``request`` to the subject and wait for its answer (at most ``seconds``
        plus the watchdog's grace); a dead or silent subject is buried: ``_SubjectDied`` or
        ``_RemoteTimeout``."""
        _, requests, replies, _ = self.subject
        self.waiting = True
        try:
            try:
                _send(requests, request)
                reply = _receive(replies, time.monotonic() + seconds + WATCHDOG_GRACE
                                 + REPLY_GRACE)  # fmt: skip
            except TimeoutError:
                info = self.bury()
                info["timeout"] = True
                self.death = info
                raise _RemoteTimeout(info) from None
            except (EOFError, ValueError, OSError) as error:
                info = self.bury()
                if isinstance(error, ValueError):
                    info["reason"] = f"it sent a malformed answer ({error})"
                self.death = info
                if info.get("timeout"):
                    raise _RemoteTimeout(info) from None
                raise _SubjectDied(info) from None
        finally:
            self.waiting = False
        if type(reply) is not dict:
            self.death = self.bury()
            self.death["reason"] = "it sent a malformed answer"
            raise _SubjectDied(self.death)
        return reply

    # -- calls through proxies ---------------------------------------------------------------

    def call(self, name, args, kwargs):
        if self.death is not None:  # the test caught _SubjectDied and called again
            raise _SubjectDied(self.death)
        if not is_plain([list(args), dict(kwargs)]):
            _FLAGS["rerun"] = True
            raise _Rerun("an argument is not plain data")
        left = self.deadline - time.monotonic() if self.deadline else self.timeout
        if left <= 0:
            raise TestTimeout()
        reply = self.ask({"kind": "call", "name": name, "args": list(args),
                          "kwargs": dict(kwargs), "seconds": left}, left)  # fmt: skip
        stdout = reply.get("stdout")
        if type(stdout) is str and stdout:
            sys.stdout.write(stdout)
        kind = reply.get("kind")
        if kind == "value":
            self.write_back(args, kwargs, reply)
            return reply.get("value")
        if kind == "opaque":
            self.write_back(args, kwargs, reply)
            types = reply.get("types") or []
            suspects = [str(t[0]) for t in types if type(t) is list and len(t) == 2 and t[1]]
            if suspects:
                self.untrusted_reason = (
                    f"the value's repr/eq comes from the code under test ({suspects[0]} "
                    "defines it in the function's own lines): not trusted as a result"
                )
                raise _Untrusted(self.untrusted_reason)
            return _Opaque(str(reply.get("repr", "")))
        if kind == "timeout":
            raise _RemoteTimeout(reply)
        if kind == "raised":
            raise _plain_exception(reply)
        self.death = self.bury()
        self.death["reason"] = "it sent a malformed answer"
        raise _SubjectDied(self.death)

    def write_back(self, args, kwargs, reply):
        """In-place changes the call made to list, dict and set arguments."""
        new_args, new_kwargs = reply.get("args"), reply.get("kwargs")
        if type(new_args) is not list or len(new_args) != len(args):
            return
        pairs = list(zip(args, new_args))
        if type(new_kwargs) is dict:
            pairs += [(kwargs[k], new_kwargs[k]) for k in kwargs if k in new_kwargs]
        for old, new in pairs:
            if type(old) is list and type(new) is list and old != new:
                old[:] = new
            elif type(old) is dict and type(new) is dict and old != new or type(old) is set and type(new) is set and old != new:
                old.clear()
                old.update(new)

    # -- which tests the judge evaluates -----------------------------------------------------

    def judge_names(self):
        names = {name: value for name, value in vars(builtins).items()
                 if name not in JUDGE_BUILTINS_LEFT_OUT}  # fmt: skip
        names["__import__"] = self.judge_import
        return names

    def judgeable(self, test, sources):
        """Whether the judge can evaluate ``sources`` (the test's code) on its own: every
        name it reads is a builtin (not :data:`JUDGE_BUILTINS_LEFT_OUT`), a function of the
        module, or bound by the test itself; it imports only :data:`SAFE_MODULES` (or
        functions from the module under test)."""
        own = self.module_name.split(".")[0]
        allowed = set(self.judge_names()) | set(self.functions)
        loads = set()
        for source in sources:
            try:
                tree = compile(source, "<test>", "exec", _ast.PyCF_ONLY_AST)
            except SyntaxError:
                return True  # the judge reports the syntax error of the test itself
            for node in _walk(tree):
                if isinstance(node, _ast.Name):
                    (loads if isinstance(node.ctx, _ast.Load) else allowed).add(node.id)
                elif isinstance(node, (_ast.FunctionDef, _ast.AsyncFunctionDef)):
                    allowed.add(node.name)
                    for arg in _walk(node.args):
                        if isinstance(arg, _ast.arg):
                            allowed.add(arg.arg)
                elif isinstance(node, _ast.Lambda):
                    for arg in _walk(node.args):
                        if isinstance(arg, _ast.arg):
                            allowed.add(arg.arg)
                elif isinstance(node, _ast.ExceptHandler) and node.name:
                    allowed.add(node.name)
                elif isinstance(node, (_ast.ClassDef, _ast.Global, _ast.Nonlocal)):
                    return False
                elif isinstance(node, _ast.Import):
                    for alias in node.names:
                        root = alias.name.split(".")[0]
                        if alias.name == self.module_name and "." not in alias.name:
                            allowed.add(alias.asname or root)  # its functions, as proxies
                            continue
                        if root not in SAFE_MODULES or root == own:
                            return False
                        allowed.add(alias.asname or root)
                elif isinstance(node, _ast.ImportFrom):
                    if node.level or not node.module:
                        return False
                    if node.module == self.module_name:
                        for alias in node.names:
                            if alias.name == "*":  # the functions, already allowed
                                continue
                            if alias.name not in self.functions:
                                return False
                            allowed.add(alias.asname or alias.name)
                    elif node.module.split(".")[0] not in SAFE_MODULES or (
                        node.module.split(".")[0] == own
                    ):
                        return False
                    else:
                        for alias in node.names:
                            if alias.name == "*":
                                return False
                            allowed.add(alias.asname or alias.name)
                elif isinstance(node, _ast.MatchAs) and node.name or isinstance(node, _ast.MatchStar) and node.name:
                    allowed.add(node.name)
        return loads <= allowed

    def namespace(self):
        names = {name: _Proxy(self, name) for name in self.functions}
        names["__builtins__"] = self.judge_names()
        names["__name__"] = "codeteam_test"
        return names

    def judge_import(self, name, globals=None, locals=None, fromlist=(), level=0):
        """``__import__`` for tests evaluated here: the module under test gives its proxies,
        :data:`SAFE_MODULES` are imported, nothing else (:meth:`judgeable` checked)."""
        if level == 0 and name == self.module_name:
            import types

            module = types.ModuleType(name)
            for function in self.functions:
                setattr(module, function, _Proxy(self, function))
            module.__all__ = [f for f in self.functions if not f.startswith("_")]
            return module
        if level == 0 and name.split(".")[0] in SAFE_MODULES:
            return __import__(name, globals, locals, fromlist, level)
        raise ImportError(f"{name} cannot be imported here")

    def sources_of(self, test):
        if test["kind"] == "doctest":
            examples, target = _doctest_examples(test)
            return [example.source for example in [*examples, target]]
        return [test.get("setup") or "", test["source"]]

    # -- one test ----------------------------------------------------------------------------

    def run_in_judge(self, test, outcome):
        namespace = self.namespace()
        captured = _Capture(STDOUT_LIMIT)
        saved = sys.stdout
        sys.stdout = captured
        self.deadline = time.monotonic() + self.timeout
        self.watchdog(True)
        try:
            if test["kind"] == "doctest":
                status, exc = self.run_doctest(test, namespace, outcome, self.timeout)
            else:
                status, exc = self.guarded(
                    lambda: self.run_own_assert(test, namespace), self.timeout
                )
        finally:
            self.watchdog(False)
            self.deadline = None
            sys.stdout = saved
        outcome["stdout"] = captured.getvalue()
        return status, exc

    def run_own_assert(self, test, namespace):
        if test.get("setup"):
            exec(compile(test["setup"], f"<setup {test['id']}>", "exec"), namespace)  # noqa: S102
        namespace.update(self.helpers())
        code = self.compile_test(test["source"], f"<test {test['id']}>")
        exec(code, namespace)  # noqa: S102 - the test's own code, with proxies for the module

    def watchdog(self, on):
        """The judge's own stuck-in-C guard (a test's code, not the program, loops in C)."""
        import faulthandler

        if on:
            give_up = time.monotonic() + 1.0
            while True:
                try:
                    faulthandler.dump_traceback_later(
                        self.timeout + 2 * WATCHDOG_GRACE + REPLY_GRACE, exit=True
                    )
                    return
                except RuntimeError:  # no thread yet (a killed fork bomb not reaped yet)
                    if time.monotonic() > give_up:
                        return  # the run's wall-clock limit is the backstop
                    time.sleep(0.01)
        else:
            faulthandler.cancel_dump_traceback_later()

    def run_one(self, index, test):
        started = time.perf_counter()
        self.untrusted_reason = None
        self.death = None
        _FLAGS["rerun"] = False
        outcome, decided = self.begin(index, test)
        if decided:
            return outcome
        problem = self.ensure_subject()
        if problem is not None:  # a restarted subject failed to import
            outcome.update(problem)
            return outcome
        if self.judgeable(test, self.sources_of(test)):
            status, exc = self.run_in_judge(test, outcome)
            if self.death is not None:
                died = _RemoteTimeout if self.death.get("timeout") else _SubjectDied
                if not isinstance(exc, (_RemoteTimeout, _SubjectDied)):
                    status, exc = "raised", died(self.death)
            elif isinstance(exc, _Rerun) or _FLAGS["rerun"]:
                status = "rerun"
            if self.untrusted_reason is not None or isinstance(exc, _Untrusted):
                status, exc = "untrusted", None
            if isinstance(exc, _RemoteTimeout) and self.subject is not None:
                self.bury()  # a fresh subject for the rest (and no stray children of this one)
        else:
            status, exc = "rerun", None
        if status == "rerun":
            return self.run_in_subject(index, test, started)
        if status == "untrusted":
            outcome.update(status="error", exception_type="UntrustedValue",
                           message=self.untrusted_reason or "the value comes from the code "
                           "under test")  # fmt: skip
        elif isinstance(exc, (_RemoteTimeout, _SubjectDied)):
            self.remote_end(exc, outcome)
        elif status == "raised" and getattr(exc, "_codeteam_remote", None) is not None:
            self.remote_error(exc, outcome)
        else:
            self.finish(outcome, status, exc)
        outcome["seconds"] = time.perf_counter() - started
        return outcome

    def remote_end(self, exc, outcome):
        info = exc.info
        if isinstance(exc, _RemoteTimeout) or info.get("timeout"):
            outcome["status"] = "timeout"
            outcome["exception_type"] = "TimeoutError"
            if info.get("dump", "").startswith("Timeout ("):
                outcome["message"] = (
                    f"the test did not stop at its {self.timeout:g} s limit (stuck outside the "
                    "interpreter loop, e.g. in C code) and its process was ended"
                )
            else:
                outcome["message"] = f"the test took longer than {self.timeout:g} s"
        else:
            outcome["status"] = "error"
            outcome["message"] = f"the process died during this test: {info.get('reason')}"
        for key in ("traceback", "program_line"):
            if type(info.get(key)) in (str, int):
                outcome[key] = info[key]

    def remote_error(self, exc, outcome):
        """An exception the function raised in the subject (not caught by the test)."""
        import traceback

        info = exc._codeteam_remote
        outcome["status"] = "error"
        kind = str(info.get("type") or "Exception")
        module = str(info.get("module") or "builtins")
        outcome["exception_type"] = kind if module == "builtins" else f"{module}.{kind}"
        outcome["message"] = str(info.get("message", ""))[:FIELD_LIMIT]
        if type(info.get("program_line")) is int:
            outcome["program_line"] = info["program_line"]
        remote = str(info.get("traceback") or "")
        frames = self.frames(exc)
        text = "".join(traceback.format_list(frames))
        remote = remote.removeprefix("Traceback (most recent call last):\n")
        outcome["traceback"] = ("Traceback (most recent call last):\n" + text + remote)[
            -TRACEBACK_LIMIT:
        ]

    def run_in_subject(self, index, test, started):
        """The whole test in the subject: its verdict comes from the code's own process."""
        outcome = {"event": "outcome", "index": index, "test_id": test["id"], "status": "error",
                   "trusted": False}  # fmt: skip
        problem = self.ensure_subject()
        if problem is not None:
            outcome.update(problem)
            return outcome
        try:
            reply = self.ask({"kind": "run", "test": _plain_test(test), "seconds": self.timeout},
                             self.timeout)  # fmt: skip
        except (_RemoteTimeout, _SubjectDied) as exc:
            self.remote_end(exc, outcome)
            outcome["seconds"] = time.perf_counter() - started
            return outcome
        outcome.update(self.checked(reply.get("outcome")))
        outcome["trusted"] = False
        if outcome["status"] == "timeout" and self.subject is not None:
            self.bury()  # a fresh subject for the rest (and no stray children of this one)
        return outcome

    def checked(self, fields):
        """The fields of an outcome the subject reported, checked for their types."""
        kept = {}
        if type(fields) is not dict:
            return {"status": "error", "message": "malformed outcome from the subject"}
        for key, kinds in (("status", (str,)), ("expected", (str,)), ("actual", (str,)),
                           ("exception_type", (str,)), ("message", (str,)),
                           ("traceback", (str,)), ("stdout", (str,)),
                           ("program_line", (int,)), ("seconds", (float, int)),
                           ("import_failed", (bool,))):  # fmt: skip
            value = fields.get(key)
            if type(value) in kinds:
                kept[key] = value
        if kept.get("status") not in ("passed", "failed", "error", "timeout"):
            kept["status"] = "error"
        return kept

    def begin(self, index, test):
        """A test's outcome so far, and whether it is already decided (a kind this harness
        does not run, or the program did not import)."""
        outcome = {"event": "outcome", "index": index, "test_id": test["id"], "status": "passed"}
        self.last = None
        if test.get("kind") not in ("doctest", "assert"):
            outcome.update(status="error", message=f"this harness does not run {test.get('kind')!r} tests")
            return outcome, True
        if self.import_outcome is not None:
            outcome.update(self.import_outcome)
            outcome["seconds"] = 0.0
            return outcome, True
        return outcome, False

    def run_all(self, tests):
        """Each test's start and outcome lines, then the "done" line."""
        for index, test in enumerate(tests):
            self.emit({"event": "start", "index": index})
            try:
                outcome = self.run_one(index, test)
            except BaseException as exc:  # noqa: BLE001 - a harness bug must not lose the run
                outcome = {"event": "outcome", "index": index, "test_id": test["id"],
                           "status": "error", "exception_type": type(exc).__name__,
                           "message": f"harness error: {exc}"}  # fmt: skip
            self.emit(outcome)
        self.emit({"event": "done"})

    def main(self):
        tests = self.spec["tests"]
        _signal.signal(_signal.SIGALRM, self._alarm)
        self.emit({"event": "start", "index": -1})
        problem, stdout = self.receive_start()
        if problem is not None:
            self.import_outcome = problem
            if self.subject is not None:
                self.bury()
        self.emit({"event": "imported", "ok": problem is None, "stdout": stdout})
        self.run_all(tests)
        if self.subject is not None:
            _, requests, _, _ = self.subject
            try:
                _send(requests, {"kind": "quit"})
            except OSError:
                pass
            self.bury()


# ------------------------------------------------------------------------------------------
# The judged mode: the judge imports the judge view of the module (the user's own text, the
# target's body one call of ``__codeteam_forward__``) and evaluates every test itself; each
# call of the target goes to a subject speaking pytest_codec (pytest_subject's Subject and
# JudgeClient, copied beside this file).

SHIELDED = ("SIGINT", "SIGQUIT", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGHUP", "SIGTERM",
            "SIGUSR1", "SIGUSR2")  # fmt: skip
"""Signals the judge catches in the judged mode: the subject (same uid) can ``kill`` it by
pid; the signal makes the running test an error and nothing else happens."""


def _kill_namespace():
    """Under bwrap, SIGKILL every other process of the sandbox's pid namespace (what the
    subject left behind; ``kill(-1)`` spares the caller and the namespace's init)."""
    if os.environ.get("CODETEAM_PRIVATE_PIDNS") == "1" and os.getppid() == 1:
        try:
            os.kill(-1, _signal.SIGKILL)
        except OSError:
            pass


def _client_class(subject_mod):
    """pytest_subject's JudgeClient with the harness's care for its subject: each call carries
    what is left of the test's time (the subject's own timer ends the code there, so a
    timeout says where it was), the judge's timer waits while the subject works (it has the
    receive deadline), a start is retried while a fork bomb's processes are still counted,
    and an end that no timer interrupts takes what the subject started along."""

    class Client(subject_mod.JudgeClient):
        judge = None

        def forward(self, args, kwargs):
            request = {"kind": "call", "handle": None, "args": list(args), "kwargs": dict(kwargs)}
            if self.judge.deadline is not None:
                request["seconds"] = max(self.judge.deadline - time.monotonic(), 0.001)
            return self.ask(request, args, kwargs)

        def ask(self, request, args, kwargs):
            outer, self.judge.waiting = self.judge.waiting, True
            try:
                return super().ask(request, args, kwargs)
            finally:
                self.judge.waiting = outer

        def serve_judge(self, request):  # the test's callback runs under the judge's timer
            outer, self.judge.waiting = self.judge.waiting, False
            try:
                return super().serve_judge(request)
            finally:
                self.judge.waiting = outer

        def deadline(self):
            if self.judge.deadline is not None:  # the subject's own timer answers by then
                return self.judge.deadline + VIEW_REPLY_GRACE
            return super().deadline()

        def rebuilt(self, reply):
            """The exception, without the note pytest shows (doctest would compare it); the
            subject's timer as a timeout where the code was."""
            if reply.get("type") == "TestTimeout":
                exc = TestTimeout()
                exc.__codeteam_frames__ = [f for f in reply.get("frames") or []
                                           if type(f) is list]  # fmt: skip
                return exc
            exc = super().rebuilt(reply)
            try:
                del exc.__notes__
            except (AttributeError, TypeError):
                pass
            return exc

        def start(self):
            give_up = time.monotonic() + 2.0
            while True:
                try:
                    return super().start()
                except BlockingIOError:
                    if time.monotonic() > give_up:
                        raise
                    time.sleep(0.01)

        def end(self, quit=False):
            blocked = _signal.pthread_sigmask(_signal.SIG_BLOCK, {_signal.SIGALRM})
            try:
                reason = super().end(quit)
                _kill_namespace()
                return reason
            finally:
                _signal.pthread_sigmask(_signal.SIG_SETMASK, blocked)

    return Client


def _view_subject_class(subject_mod):
    """pytest_subject's Subject answering two more requests of the harness: ``status`` (how
    the candidate's import went, as an outcome) and ``run`` (a whole test in this process,
    for a test whose arguments cannot cross: its verdict is not trusted)."""

    class ViewSubject(subject_mod.Subject):
        armed = False

        def start(self, config):
            self.harness_config = config
            super().start(config)
            for plain, (target, problem) in list(self.targets.items()):
                if target is not None:
                    self.targets[plain] = (self.timed(target), problem)

        def timed(self, target):
            def timed(*args, **kwargs):
                self.armed = True
                try:
                    return target(*args, **kwargs)
                finally:
                    self.armed = False

            return timed

        def alarm(self, signum, frame):
            if self.armed:
                raise TestTimeout()

        def call(self, request):
            seconds = request.get("seconds")
            if type(seconds) not in (int, float) or request.get("handle") is not None:
                return super().call(request)
            _signal.signal(_signal.SIGALRM, self.alarm)
            _signal.setitimer(_signal.ITIMER_REAL, max(seconds, 0.001), ALARM_REPEAT)
            try:
                return super().call(request)
            finally:
                _signal.setitimer(_signal.ITIMER_REAL, 0)
                self.armed = False

        def serve(self, request):
            kind = request.get("kind")
            if kind == "status":
                return {"kind": "value", "value": self.status()}
            if kind == "run":
                return {"kind": "value", "value": self.run_test(request)}
            return super().serve(request)

        def status(self):
            problem = self.problem
            if problem is None:
                return None
            config = self.harness_config
            kind, module = str(problem.get("type") or "?"), str(problem.get("module") or "")
            name = kind if module in ("builtins", "") else module + "." + kind
            frames = [f for f in problem.get("frames") or [] if type(f) is list and len(f) == 2]
            own = [line for path, line in frames if path == config["file"]]
            outcome = {"status": "error", "import_failed": True, "exception_type": name,
                       "message": f"importing {config['module']} failed: "
                       f"{str(problem.get('message', ''))[:FIELD_LIMIT]}",
                       "traceback": _frames_text(frames, config["file"], os.getcwd())
                       + f"{name}: {problem.get('message', '')}"}  # fmt: skip
            if own:
                outcome["program_line"] = own[-1]
            return outcome

        def run_test(self, request):
            config = self.harness_config
            if self.module is None:
                return {"status": "error", "message": "the module did not import"}
            helper = _Subject({"module": config["module"], "program_file": config["file"],
                               "test_timeout": request.get("seconds")}, None, None)  # fmt: skip
            helper.module = self.module
            helper.dump_fd = 2
            _signal.signal(_signal.SIGALRM, helper._alarm)
            return helper.run(request)

    return ViewSubject


def _frames_text(frames, program_file, here):
    """Traceback lines for the subject's frames ``[[path, line]]`` (the interpreter's own
    files left out; the program file shown relative to ``here``)."""
    prefixes = tuple({os.path.join(os.path.realpath(p), "") for p in
                      (sys.prefix, sys.base_prefix, sys.exec_prefix)})  # fmt: skip
    lines = []
    for path, line in frames:
        if type(path) is not str or type(line) is not int:
            continue
        if path != program_file and (os.path.realpath(path).startswith(prefixes)
                                     or os.path.basename(path).startswith("_codeteam_")):
            continue
        shown = os.path.relpath(path, here) if path.startswith(here.rstrip("/") + "/") else path
        lines.append(f'  File "{shown}", line {line}\n')
    return "Traceback (most recent call last):\n" + "".join(lines) if lines else ""


class _ViewJudge(_Judge):
    """The judge of the judged mode (see the module docstring, 7.)."""

    def __init__(self, spec):
        super().__init__(spec)
        self.view = spec["judge"]
        self.subject_mod = _load_sibling("_codeteam_pytest_subject")
        self.passthrough = (self.subject_mod.JudgeError, self.subject_mod.OneProcess)
        self.forced = None
        self.fallback = None
        self.module = None
        here = os.path.dirname(os.path.abspath(sys.argv[0]))
        config = {"kind": "config", "module": self.module_name,
                  "qualname": self.view["qualname"], "file": self.program_file,
                  "candidate": os.path.join(here, spec["candidate"]),
                  "lines": [int(n) for n in self.view.get("lines") or []],
                  "root": self.view.get("root") or self.here}  # fmt: skip
        self.client = _client_class(self.subject_mod)(
            config, os.path.abspath(sys.argv[0]), self.on_error, self.on_fallback,
            TestTimeout, self.timeout)
        self.client.judge = self

    def on_error(self, message):
        if self.forced is None:
            self.forced = str(message)

    def on_fallback(self, reason):
        if self.fallback is None:
            self.fallback = str(reason)

    def signalled(self, signum, frame):
        self.on_error(f"the judge received signal {signum} during this test (the code under "
                      "test signals its parent?): not judged")

    def shield(self):
        for name in SHIELDED:
            number = getattr(_signal, name, None)
            if number is not None:
                try:
                    _signal.signal(number, self.signalled)
                except (OSError, ValueError):
                    pass

    # -- the view ----------------------------------------------------------------------------

    def import_view(self):
        """Import the judge view under the module's name (the judge's own code: the user's
        text): ("ok", module) or the failure of :meth:`guarded`."""
        import importlib

        builtins.__codeteam_forward__ = self.client.forward
        builtins.__codeteam_imported__ = self.client.imported
        package = os.path.basename(self.program_file) == "__init__.py"
        loader = self.subject_mod._Loader(self.module_name, self.program_file,
                                          self.view["view"], package)  # fmt: skip
        sys.meta_path.insert(0, loader)
        status, value = self.guarded(lambda: importlib.import_module(self.module_name),
                                     self.timeout)  # fmt: skip
        if status != "ok":
            sys.meta_path.remove(loader)
            for name in [n for n in sys.modules if n == self.module_name
                         or n.startswith(self.module_name + ".")]:  # fmt: skip
                sys.modules.pop(name, None)
        return status, value

    def start_subject(self):
        """Start the subject (it imports the candidate); the import's failure outcome or None."""
        try:
            self.client.ensure()
        except self.passthrough:
            pass
        broken = self.client.broken or (self.forced if self.client.process is None else None)
        if broken:
            return {"status": "timeout" if "did not end" in broken else "error",
                    "message": broken, "import_failed": True}  # fmt: skip
        self.forced = None
        status, value = self.guarded(
            lambda: self.client.ask({"kind": "status", "handle": None}, None, None),
            self.timeout + WATCHDOG_GRACE + REPLY_GRACE)
        if status != "ok":
            return {"status": "timeout" if status == "timeout" else "error",
                    "message": self.forced or f"the subject did not answer: {value}",
                    "import_failed": True}  # fmt: skip
        return None if value is None else self.checked(value)

    # -- one test ----------------------------------------------------------------------------

    def namespace(self):
        names = dict(vars(self.module))
        names["__builtins__"] = builtins
        return names

    def frames(self, exc):
        """The traceback's frames in the test code and the module (the view's lines: those
        of the target's body dropped, those after it shifted to the candidate's lines)."""
        start, end = self.view.get("span") or (0, -1)
        shift = int(self.view.get("shift") or 0)
        keep = []
        for frame in super().frames(exc):
            if frame.filename == self.program_shown:
                if start <= frame.lineno <= end:
                    continue
                if frame.lineno > end:
                    frame.lineno += shift
            keep.append(frame)
        return keep

    def remote_frames(self, exc):
        try:
            found = object.__getattribute__(exc, "__codeteam_frames__")
        except AttributeError:
            return None
        return [f for f in found if type(f) is list and len(f) == 2] if type(found) is list else None

    def describe(self, exc, outcome):
        super().describe(exc, outcome)
        remote = self.remote_frames(exc)
        if remote is None:
            return
        own = [line for path, line in remote if path == self.program_file]
        if own:
            outcome["program_line"] = own[-1]
        import traceback

        text = _frames_text(remote, self.program_file, self.here)
        local = "".join(traceback.format_list(self.frames(exc)))
        if text:
            text = text.replace("Traceback (most recent call last):\n", "Traceback (most "
                                "recent call last):\n" + local, 1)  # fmt: skip
        else:
            text = "Traceback (most recent call last):\n" + local if local else ""
        text += "".join(traceback.format_exception_only(type(exc), exc))
        outcome["traceback"] = text[-TRACEBACK_LIMIT:]

    def is_failure(self, exc):
        return self.remote_frames(exc) is None and super().is_failure(exc)

    def finish(self, outcome, status, exc, import_error=False):
        super().finish(outcome, status, exc, import_error)
        remote = self.remote_frames(exc) if status == "timeout" else None
        if remote:
            own = [line for path, line in remote if path == self.program_file]
            if own:
                outcome["program_line"] = own[-1]
            outcome["traceback"] = _frames_text(remote, self.program_file, self.here)

    def run_one(self, index, test):
        started = time.perf_counter()
        self.forced = None
        self.fallback = None
        outcome, decided = self.begin(index, test)
        if decided:
            return outcome
        if self.client.process is None:  # a fresh subject, started outside the test's time
            try:
                self.client.ensure()
            except self.passthrough:
                pass
            if self.client.process is None:
                broken = self.client.broken
                outcome.update(status="timeout" if broken and "did not end" in broken else "error",
                               message=broken or self.forced or "the subject did not start",
                               import_failed=bool(broken))  # fmt: skip
                return outcome
            self.forced = None
        self.client.new_test()
        status, exc = self.run_in_judge(test, outcome)
        if status == "timeout" and self.client.process is not None:
            self.client.end()  # a fresh subject for the rest (and no stray children of this one)
        if self.fallback is not None and self.forced is None:
            return self.run_in_subject(index, test, started)
        if self.forced is not None and status != "timeout":
            outcome = {key: value for key, value in outcome.items()
                       if key in ("event", "index", "test_id", "stdout")}  # fmt: skip
            outcome.update(status="error", message=self.forced[:FIELD_LIMIT])
            if " died " not in self.forced:  # a death has no exception (as in the plain mode)
                outcome["exception_type"] = "JudgeError"
            if self.client.unjudged:  # a value the judge cannot rebuild: neither way
                outcome["unjudged"] = True
        else:
            self.finish(outcome, status, exc)
        outcome["seconds"] = time.perf_counter() - started
        return outcome

    def run_in_subject(self, index, test, started):
        """The whole test in the subject (an argument could not cross): its verdict comes
        from the code's own process."""
        outcome = {"event": "outcome", "index": index, "test_id": test["id"], "status": "error",
                   "trusted": False}  # fmt: skip
        self.forced = None
        request = {"kind": "run", "handle": None, "test": _plain_test(test),
                   "seconds": self.timeout}  # fmt: skip
        status, value = self.guarded(lambda: self.client.ask(request, None, None),
                                     self.timeout + WATCHDOG_GRACE + REPLY_GRACE)  # fmt: skip
        if status == "ok":
            outcome.update(self.checked(value))
            if outcome["status"] == "timeout":
                self.client.end()  # a fresh subject for the rest
        elif status == "timeout":
            outcome.update(status="timeout", exception_type="TimeoutError",
                           message=f"the test took longer than {self.timeout:g} s")  # fmt: skip
        else:
            outcome["message"] = self.forced or f"the subject failed: {value}"
        outcome["trusted"] = False
        outcome["seconds"] = time.perf_counter() - started
        return outcome

    def main(self):
        tests = self.spec["tests"]
        _signal.signal(_signal.SIGALRM, self._alarm)
        self.emit({"event": "start", "index": -1})
        captured = _Capture(STDOUT_LIMIT)
        saved = sys.stdout
        sys.stdout = captured
        try:
            self.import_outcome = self.start_subject()
        finally:
            sys.stdout = saved
        self.emit({"event": "imported", "ok": self.import_outcome is None,
                   "stdout": captured.getvalue()})  # fmt: skip
        self.run_all(tests)
        self.client.close()


def _judged_main(spec):
    """The judged mode's judge (already non-dumpable, the spec read and unlinked): import the
    view, then run the tests. A view that does not import in the judge (a module the judge
    cannot import) sends the run to the plain-data judge and its subject."""
    here = os.path.dirname(os.path.abspath(sys.argv[0]))
    stdlib = list(sys.path)
    sys.path[:] = stdlib + [p for p in spec.get("sys_path") or []
                            if os.path.abspath(p) not in (here, "/tmp") and p not in stdlib]
    judge = _ViewJudge(spec)  # reads $CODETEAM_RESULTS_FD
    os.environ.pop("CODETEAM_RESULTS_FD", None)  # the subject gets the rest of the environment
    judge.shield()
    _signal.signal(_signal.SIGALRM, judge._alarm)
    saved = sys.stdout
    sys.stdout = _Capture(STDOUT_LIMIT)
    try:
        status, value = judge.import_view()
    finally:
        sys.stdout = saved
    if status == "ok":
        judge.module = value
        judge.main()
        return
    sys.stderr.write(f"codeteam harness: the judge view of {judge.module_name} did not import "
                     f"({type(value).__name__}: {value}): the judge evaluates plain calls only\n")
    sys.path[:] = stdlib
    spec = {**spec, "candidate": os.path.join(here, spec["candidate"])}
    legacy = _Judge(spec)
    legacy.results_fd = judge.results_fd
    legacy.spawn()
    legacy.main()


def _view_subject_main(argv):
    """A judged mode's subject (started by the judge's client: ``harness REQUESTS REPLIES``)."""
    import faulthandler

    os.environ.pop("CODETEAM_RESULTS_FD", None)
    if os.environ.get("CODETEAM_PRIVATE_PIDNS") == "root":
        _guard_forks(int(os.environ.get("CODETEAM_MAX_PROCESSES") or 64))
    faulthandler.enable()
    _install_exit_builtins()
    _codec()
    subject_mod = _load_sibling("_codeteam_pytest_subject")
    subject = _view_subject_class(subject_mod)(int(argv[1]), int(argv[2]))
    subject.main()
    sys.stdout.flush()
    os._exit(0)


def _fork_when_possible(patience=2.0):
    """``os.fork()``, retried for up to ``patience`` seconds while the process limit refuses
    it (the processes of a fork bomb just killed count until bwrap's init has reaped them)."""
    give_up = time.monotonic() + patience
    while True:
        try:
            return os.fork()
        except BlockingIOError:
            if time.monotonic() > give_up:
                raise
            time.sleep(0.01)


def _fits(value, limit):
    """Whether ``value`` is plain data whose encoding is under ``limit`` bytes."""
    try:
        return len(_encoded(value)) < limit
    except TypeError:
        return False


def _plain_test(test):
    return {key: test[key] for key in ("id", "kind", "source", "expected", "setup")
            if key in test and type(test[key]) in (str, type(None))}  # fmt: skip


def _doctest_examples(test):
    import doctest

    parser = doctest.DocTestParser()
    examples = parser.get_examples(test.get("setup") or "") if test.get("setup") else []
    target_examples = parser.get_examples(_doctest_text(test["source"], test.get("expected")))
    if len(target_examples) != 1:
        raise ValueError("a doctest case must hold exactly one example")
    return examples, target_examples[0]


def _exit_reason(code):
    if code is None:
        return "it vanished"
    if os.WIFSIGNALED(code):
        number = os.WTERMSIG(code)
        names = {9: "SIGKILL", 11: "SIGSEGV", 6: "SIGABRT", 24: "SIGXCPU", 7: "SIGBUS",
                 8: "SIGFPE", 15: "SIGTERM"}  # fmt: skip
        reason = f"killed by {names.get(number, f'signal {number}')}"
        if number == 9:
            reason += " (the CPU time limit, or out of memory)"
        elif number == 11:
            reason += " (a crash, e.g. a C stack overflow)"
        elif number == 24:
            reason += " (CPU time limit)"
        return reason
    return f"it exited with status {os.WEXITSTATUS(code)}"


def _walk(tree):
    """Every node of an :mod:`_ast` tree (like ``ast.walk``)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, list):
                stack.extend(item for item in value if isinstance(item, _ast.AST))
            elif isinstance(value, _ast.AST):
                stack.append(value)


def _located(node, where):
    """``node`` and its new children with the source position of ``where``."""
    for child in _walk(node):
        for name in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
            if name in child._attributes and getattr(child, name, None) is None:
                setattr(child, name, getattr(where, name, None))
    return node


def _call(name, *args):
    return _ast.Call(func=_ast.Name(id=name, ctx=_ast.Load()), args=list(args), keywords=[])


def _recording(test, line):
    """The assert condition ``test`` rewritten to record the values it checks:
    ``a <op> b`` -> ``__codeteam_compare__(line, "<Op>", a, b)``, ``not x`` ->
    ``not __codeteam_value__(line, True, x)``, anything else ``__codeteam_value__(...)``."""
    if isinstance(test, _ast.Compare) and len(test.ops) == 1:
        op = type(test.ops[0]).__name__
        new = _call(
            "__codeteam_compare__",
            _ast.Constant(value=line),
            _ast.Constant(value=op),
            test.left,
            test.comparators[0],
        )
    elif isinstance(test, _ast.UnaryOp) and isinstance(test.op, _ast.Not):
        inner = _call(
            "__codeteam_value__", _ast.Constant(value=line), _ast.Constant(value=True), test.operand
        )
        new = _ast.UnaryOp(op=_ast.Not(), operand=inner)
    else:
        new = _call(
            "__codeteam_value__", _ast.Constant(value=line), _ast.Constant(value=False), test
        )
    return _located(new, test)


class _Capture(io.TextIOBase):
    """A stdout replacement that keeps the first ``limit`` characters written."""

    def __init__(self, limit):
        super().__init__()
        self.limit = limit
        self.parts = []
        self.kept = 0
        self.total = 0

    @property
    def encoding(self):
        return "utf-8"

    def writable(self):
        return True

    def write(self, text):
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self.total += len(text)
        room = self.limit - self.kept
        if room > 0:
            piece = text[:room]
            self.parts.append(piece)
            self.kept += len(piece)
        return len(text)

    def getvalue(self):
        text = "".join(self.parts)
        if self.total > self.kept:
            text += (
                f"\n[output truncated: {self.total} characters written, the first {self.kept} kept]"
            )
        return text


def _doctest_text(source, want):
    """Doctest text for one example: ``source`` behind ``>>>``/``...`` prompts, then
    ``want``."""
    lines = source.rstrip("\n").split("\n")
    text = ">>> " + lines[0] + "\n" + "".join("... " + line + "\n" for line in lines[1:])
    if want:
        text += want.rstrip("\n") + "\n"
    return text


def _install_exit_builtins():
    """``exit()``/``quit()`` as in a normal interpreter (``-S`` skips ``site``, which adds
    them)."""
    try:
        import _sitebuiltins

        builtins.exit = _sitebuiltins.Quitter("exit", "Ctrl-D (i.e. EOF)")
        builtins.quit = _sitebuiltins.Quitter("quit", "Ctrl-D (i.e. EOF)")
    except ImportError:  # pragma: no cover
        pass


def _guard_forks(limit):
    """Last resort for "none" as root, where RLIMIT_NPROC does not apply: refuse os.fork and
    friends (EAGAIN, like the rlimit) once this process group has ``limit`` tasks. Code that
    forks from C bypasses it."""
    import errno

    group = os.getpgid(0)

    def members():
        count = 0
        for name in os.listdir("/proc"):
            if name.isdigit():
                try:
                    with open(f"/proc/{name}/stat", "rb") as handle:
                        fields = handle.read().rsplit(b")", 1)[1].split()
                except (OSError, IndexError):
                    continue
                if int(fields[2]) == group:
                    count += int(fields[17])  # threads
        return count

    def guarded(function):
        def wrapper(*args, **kwargs):
            if members() >= limit:
                raise BlockingIOError(errno.EAGAIN, f"process limit reached ({limit})")
            return function(*args, **kwargs)

        return wrapper

    for name in ("fork", "forkpty", "posix_spawn", "posix_spawnp"):
        if hasattr(os, name):
            setattr(os, name, guarded(getattr(os, name)))
    try:
        import _posixsubprocess

        _posixsubprocess.fork_exec = guarded(_posixsubprocess.fork_exec)
    except ImportError:  # pragma: no cover
        pass


def _dumpable(on):
    """``prctl(PR_SET_DUMPABLE, on)``. Off: processes of the same uid can no longer ptrace
    this one or open its ``/proc/<pid>/fd``, ``mem``, ``environ`` (and its ``/proc/<pid>``
    files belong to root). False when it failed. Through ``_ctypes`` itself (0.4 ms; the
    ``ctypes`` package costs 2-25 ms on a busy machine)."""
    global _PRCTL
    try:
        if _PRCTL is None:
            import _ctypes

            class CInt(_ctypes._SimpleCData):
                _type_ = "i"

            class Function(_ctypes.CFuncPtr):
                _flags_ = _ctypes.FUNCFLAG_CDECL | _ctypes.FUNCFLAG_USE_ERRNO
                _restype_ = CInt

            _PRCTL = Function(_ctypes.dlsym(_ctypes.dlopen(None), "prctl"))
        return _PRCTL(PR_SET_DUMPABLE, 1 if on else 0, 0, 0, 0) == 0
    except (OSError, AttributeError, ImportError, TypeError):
        return False


_PRCTL = None


def _judge_path():
    """The judge's ``sys.path``: the standard library alone (the script's folder, the working
    directory and anything writable or of the project left out)."""
    here = os.path.dirname(os.path.abspath(sys.argv[0]))
    cwd = os.getcwd()
    sys.path[:] = [
        path
        for path in sys.path
        if path and os.path.abspath(path) not in (here, cwd)
    ]


def main(argv):
    import faulthandler

    if len(argv) > 1 and argv[1] == "--subject":  # a restarted subject (see _Judge.spawn)
        requests, replies, dump_fd = map(int, argv[2:5])
        config = _receive(requests)
        _subject_main(config, requests, replies, dump_fd)
        return 0
    if len(argv) == 3 and argv[1].isdigit() and argv[2].isdigit():  # see _ViewJudge
        _view_subject_main(argv)
        return 0
    if not _dumpable(False):
        sys.stderr.write("codeteam harness: could not make the judge non-dumpable\n")
        return 70
    faulthandler.enable()  # a crash of the judge prints where it happened to stderr
    spec_fd = os.open(argv[1], os.O_RDONLY)
    os.unlink(argv[1])  # nobody but the judge reads the tests
    _codec()  # loaded before any code of the project runs (and inherited by a forked subject)
    if len(argv) > 2 and argv[2] == "--judged":  # the subject starts after the view's import
        _judge_path()
        with os.fdopen(spec_fd, "rb") as handle:
            spec = marshal.load(handle)
        _judged_main(spec)
        sys.stdout.flush()
        return 0
    to_subject = os.pipe()
    from_subject = os.pipe()
    dump = os.pipe()
    pid = os.fork()
    if pid == 0:  # the subject: nothing of the spec is in this memory
        keep = (to_subject[0], from_subject[1], dump[1])
        try:
            _dumpable(True)  # its own /proc files are its own again (the judge stays closed)
            _close_other_fds(keep)
            config = _receive(to_subject[0])
            _subject_main(config, *keep)
        finally:
            os._exit(1)
    _judge_path()
    with os.fdopen(spec_fd, "rb") as handle:
        spec = marshal.load(handle)
    judge = _Judge(spec)
    judge.adopt(pid, to_subject, from_subject, dump)
    _send(to_subject[1], judge.config())
    judge.main()
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
