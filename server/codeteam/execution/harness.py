"""The test harness that runs *inside* the sandbox (standard library only, plus pytest for the
tests that take fixtures; no codeteam).

The runner copies this file into the sandbox next to the program module and runs::

    python -S -s -B _codeteam_harness.py _codeteam_spec.marshal

The spec (a :mod:`marshal` dump of a dict, written by the runner) holds ``module`` (the program's module name; its file ``<module>.py`` sits in
the working directory), ``tests`` (a list of objects with ``id``, ``kind``, ``source``,
``expected``, ``name``, ``setup``, ``file``, ``line``, ``module_aliases``, ``arguments``,
``fixtures``), ``test_timeout``
(seconds per test) and ``sys_path`` (directories appended to ``sys.path``).

Results go, one JSON object per line and written as soon as they are known, to the file
descriptor named in ``$CODETEAM_RESULTS_FD``: ``{"event": "start", "index": i}`` before a
test, ``{"event": "outcome", "index": i, ...}`` after it (the fields of ``TestOutcome``), and
``{"event": "done"}`` at the end. If the interpreter dies mid-run (``os._exit``, a segfault, a
kill), the runner keeps the outcomes already written and knows which test was running.

Per test: ``status`` is passed / failed (an assert or a doctest comparison failed) / error
(any other exception, including the program failing to import) / timeout (``SIGALRM`` after
``test_timeout`` seconds, repeated every 0.2 s in case the code swallows the first one) /
skipped (a pytest test whose own imports need a module the sandbox does not have, or that
called ``pytest.skip``: not the code's fault, so neither a pass nor a failure).
``program_line`` is the 1-based line of the innermost traceback frame in the program file.
Code stuck in C (``sum(itertools.repeat(1))``) never sees ``SIGALRM``; for it, faulthandler's
watchdog thread prints where it is stuck to stderr and ends the process ``WATCHDOG_GRACE``
seconds after the test's timeout (the runner reports that test as a timeout). Crashes print
their location the same way (``faulthandler.enable``).

Start-up time matters (one interpreter per run): the passing path imports nothing that pulls
in ``enum`` or ``re`` (no json, signal, ast, traceback, importlib.util modules; their C cores
``_json``, ``_signal``, ``_ast`` instead); tracebacks and reprs are loaded when a test fails.
pytest itself is loaded only when a test takes fixtures (see
:meth:`_Harness.run_under_pytest`): about 0.4 s once per run, counted against no test's
timeout, and 0.03 s a test, counted against that test's (measured with
``scripts/bench_sandbox.py --kind pytest,fixture`` and 10-test runs on two cores).
"""

import _ast
import _signal
import builtins
import io
import marshal
import os
import sys
import time
import types
from _json import encode_basestring_ascii as _json_string

FIELD_LIMIT = 2000  # characters of expected/actual/message
STDOUT_LIMIT = 4000  # characters of a test's captured stdout
TRACEBACK_LIMIT = 6000  # characters of a traceback (its end is kept)
CO_COROUTINE = 0x80  # inspect.CO_COROUTINE: the code of an ``async def``
ALARM_REPEAT = 0.2  # seconds between repeated timeout signals
WATCHDOG_GRACE = 1.0  # seconds after a test's timeout before the C-level watchdog ends the run
PYTEST_LAZY_IMPORTS = ("pdb", "unittest", "difflib", "getpass", "pwd", "xml.etree.ElementTree")
"""Standard modules pytest imports inside functions; loaded before a program that shadows a
standard module, so that pytest gets them (a program named like one of them still wins)."""

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


class _Harness:
    def __init__(self, spec):
        self.spec = spec
        self.results_fd = int(os.environ.get("CODETEAM_RESULTS_FD", "1"))
        self.module_name = spec["module"]
        # a project module (a dotted name) is imported from its place in the project
        self.program_file = spec.get("program_file") or os.path.abspath(self.module_name + ".py")
        self.test_files = set()
        self.sources = {}  # test file name -> lines, for tracebacks
        self.pytest_runs = 0
        self.armed = False
        self.alarms = 0  # TestTimeouts raised (pytest may catch one in its own code)
        self.outside_call = False  # the exception came from a fixture's setup or teardown
        self.here = os.path.dirname(os.path.abspath(__file__))  # the cwd may be the project
        self.last = None  # (assert line, left, right, op) of the last recorded comparison
        self.repr = None
        self.write = os.write  # kept: the tested code may monkeypatch os

    # -- output ------------------------------------------------------------------------------

    def emit(self, record):
        """Write ``record`` (a flat dict of str/int/float/bool/None) as one JSON line."""
        fields = []
        for key, value in record.items():
            if value is None or value is True or value is False:
                text = {None: "null", True: "true", False: "false"}[value]
            elif isinstance(value, int):
                text = int.__repr__(value)
            elif isinstance(value, float):
                text = float.__repr__(value) if value - value == 0 else "null"  # nan, inf
            else:  # no lone surrogates: the runner wants valid UTF-8
                text = _json_string(str(value).encode("utf-8", "replace").decode("utf-8"))
            fields.append(_json_string(key) + ":" + text)
        data = ("{" + ",".join(fields) + "}\n").encode("ascii")
        view = memoryview(data)
        while view:
            view = view[self.write(self.results_fd, view) :]

    # -- timeouts ----------------------------------------------------------------------------

    def _alarm(self, signum, frame):
        if self.armed:
            self.alarms += 1
            raise TestTimeout()

    def guarded(self, function, seconds):
        """Call ``function()`` under a timer: ("ok", value) / ("timeout", exc) /
        ("raised", exc)."""
        try:
            self.armed = True
            _signal.setitimer(_signal.ITIMER_REAL, seconds, ALARM_REPEAT)
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

    def is_failure(self, exc):
        """An assert of the test code failed (or pytest.fail / pytest.raises did): "failed";
        anything else, including an assert inside the program, is an error."""
        kind = type(exc)
        if kind.__name__ == "Failed" and any(
            base.__name__ == "OutcomeException" for base in kind.__mro__
        ):  # pytest.fail(), pytest.raises' DID NOT RAISE (pytest names its module "builtins")
            return True
        if not isinstance(exc, AssertionError):
            return False
        frames = self.frames(exc)
        return bool(frames) and frames[-1].filename in self.test_files

    def not_runnable(self, test, exc):
        """Why a workspace (pytest) test could not run here, when that is not the code's
        fault, else None: a module its own code imports is missing in the sandbox (the
        innermost program-or-test frame is the test's, so the program did not raise it, and it
        is an ``import`` statement naming that module), or it
        called ``pytest.skip`` / ``pytest.importorskip`` / ``pytest.xfail``."""
        if test["kind"] != "pytest":
            return None
        kind = type(exc)
        if kind.__name__ in ("Skipped", "XFailed") and any(
            base.__name__ == "OutcomeException" for base in kind.__mro__
        ):
            try:
                message = str(getattr(exc, "msg", None) or exc)
            except BaseException:  # noqa: BLE001
                message = ""
            call = "pytest.skip" if kind.__name__ == "Skipped" else "pytest.xfail"
            return f"{call}: {message}" if message else f"{call}()"
        if not isinstance(exc, ModuleNotFoundError):
            return None
        frames = self.frames(exc)
        if not frames or frames[-1].filename not in self.test_files:
            return None
        # Only an import statement of the test names a module the test needs; a module name
        # computed at run time (importlib.import_module(f(...))) may be the code's wrong answer.
        line = (frames[-1].line or "").strip()
        root = (getattr(exc, "name", None) or "").split(".")[0]
        if not line.startswith(("import ", "from ")) or not root or root not in line:
            return None
        try:
            message = str(exc)
        except BaseException:  # noqa: BLE001
            message = f"No module named {exc.name!r}"
        return f"{message} (the test imports it and the sandbox does not have it)"

    def frames(self, exc):
        """The traceback's frames in the program file and the test code."""
        import linecache
        import traceback

        for filename, lines in self.sources.items():
            linecache.cache[filename] = (sum(map(len, lines)), None, lines, filename)
        keep = []
        for frame in traceback.extract_tb(exc.__traceback__):
            if frame.filename == self.program_file:
                frame.filename = self.module_name + ".py"
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
        program_frames = [f for f in frames if f.filename == self.module_name + ".py"]
        if program_frames:
            outcome["program_line"] = program_frames[-1].lineno
        program_names = (self.program_file, self.module_name + ".py")
        if isinstance(exc, SyntaxError) and exc.filename in program_names and exc.lineno:
            outcome["program_line"] = exc.lineno
            exc.filename = self.module_name + ".py"
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

    def watchdog(self, on):
        """Arm (or disarm) faulthandler's dump-and-exit for a test stuck beyond SIGALRM."""
        import faulthandler

        if on:
            faulthandler.dump_traceback_later(self.timeout + WATCHDOG_GRACE, exit=True)
        else:
            faulthandler.cancel_dump_traceback_later()

    # -- processes ---------------------------------------------------------------------------

    def kill_strays(self):
        """SIGKILL every other process in the sandbox's private pid namespace (bwrap only:
        ``kill(-1)`` reaches exactly the caller's namespace, minus its init and the caller)."""
        if os.environ.get("CODETEAM_PRIVATE_PIDNS") == "1" and os.getppid() == 1:
            try:
                os.kill(-1, _signal.SIGKILL)
            except OSError:
                pass

    # -- the program -------------------------------------------------------------------------

    def import_program(self):
        try:  # importlib.util's functions, without importing importlib.util (slow to load)
            from _frozen_importlib import module_from_spec
            from _frozen_importlib_external import spec_from_file_location
        except ImportError:  # pragma: no cover - another interpreter
            from importlib.util import module_from_spec, spec_from_file_location

        if self.spec.get("program_file"):  # inside its package, by its dotted name
            __import__(self.module_name)
            return sys.modules[self.module_name]
        spec = spec_from_file_location(self.module_name, self.program_file)
        module = module_from_spec(spec)
        sys.modules[self.module_name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            sys.modules.pop(self.module_name, None)
            raise
        return module

    def alias(self, module, dotted):
        """Make ``import dotted`` / ``from dotted import f`` give the program module."""
        if not dotted or dotted == self.module_name:
            return
        sys.modules[dotted] = module
        parts = dotted.split(".")
        for i in range(len(parts) - 1, 0, -1):
            parent_name = ".".join(parts[:i])
            parent = sys.modules.get(parent_name)
            if parent is None:
                parent = types.ModuleType(parent_name)
                parent.__path__ = []
                sys.modules[parent_name] = parent
            child = sys.modules[".".join(parts[: i + 1])]
            try:
                setattr(parent, parts[i], child)
            except (AttributeError, TypeError):
                pass

    # -- assert rewriting --------------------------------------------------------------------

    def _compare(self, line, op, left, right):
        self.last = (line, left, right, op)
        return _OPS[op][1](left, right)

    def _value(self, line, negated, value):
        self.last = (line, value, None, "not" if negated else "truth")
        return value

    def compile_test(self, source, filename, first_line=0):
        """Compile test code with its ``assert`` statements rewritten to record the values
        they compare (evaluated once, as written). Line numbers are kept (offset by
        ``first_line``). Works on :mod:`_ast` nodes (the :mod:`ast` module is slow to load)."""
        tree = compile(source, filename, "exec", _ast.PyCF_ONLY_AST)
        for node in _walk(tree):
            if first_line and "lineno" in node._attributes:
                node.lineno += first_line
                if getattr(node, "end_lineno", None) is not None:
                    node.end_lineno += first_line
        for node in _walk(tree):
            if isinstance(node, _ast.Assert):
                node.test = _recording(node.test, node.lineno)
        self.register_source(filename, source, first_line)
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

    def run_assert(self, test, module, outcome):
        test_id = test["id"]
        filename = f"<test {test_id}>"
        namespace = dict(vars(module))
        namespace.update(self.helpers())
        if test.get("setup"):
            setup = compile(test["setup"], f"<setup {test_id}>", "exec")
            exec(setup, namespace)  # noqa: S102 - running the test is the point
        exec(self.compile_test(test["source"], filename), namespace)  # noqa: S102

    def run_pytest(self, test, module, outcome):
        test_id = test["id"]
        filename = test.get("file") or f"<test {test_id}>"
        name = test.get("name") or ""
        if test.get("fixtures"):
            return self.run_under_pytest(test, name, outcome)
        namespace = {"__name__": "codeteam_test", "__builtins__": builtins}
        namespace.update(self.helpers())
        if test.get("setup"):
            setup_file = f"<setup of {name}>"
            self.register_source(setup_file, test["setup"])
            exec(compile(test["setup"], setup_file, "exec"), namespace)  # noqa: S102
        code = self.compile_test(test["source"], filename, test.get("line") or 0)
        exec(code, namespace)  # noqa: S102 - defines the test function (or class)
        if "." in name:  # a method of a test class, on a fresh instance as pytest does
            owner, method = name.split(".", 1)
            function = getattr(namespace[owner](), method, None)
        else:
            function = namespace.get(name)
        if not callable(function):
            raise TypeError(f"test function {name!r} is not defined by its source")
        kwargs = {}
        if test.get("arguments") is not None:
            arguments_file = f"<parameters of {test_id}>"
            source = f"dict({test['arguments']})"
            self.register_source(arguments_file, source)
            kwargs = eval(compile(source, arguments_file, "eval"), namespace)  # the test file's own values
        if getattr(function, "__code__", None) and function.__code__.co_flags & CO_COROUTINE:
            import asyncio  # only for an async test: a fresh loop, as pytest-asyncio gives it

            asyncio.run(function(**kwargs))
        else:
            function(**kwargs)

    def run_under_pytest(self, test, name, outcome):
        """Run a test that takes fixtures under pytest itself (loaded by :meth:`main`), which
        gives its fixtures (``tmp_path``, ``monkeypatch``, ``capsys``, the file's own).

        ``setup`` (the test and the file's definitions it needs, on their own lines of the
        file) is the module ``test_codeteam_<n>``, compiled with the asserts
        recorded (:meth:`compile_test`, named as the workspace file so tracebacks give its
        lines) and run here first, so that an error, a skip or a hang in the file's top level
        is reported as for any test. pytest then finds that module in ``sys.modules`` (its
        ``importlib`` import mode does not import it again) and runs the one test, with no
        plugins but its own, no cache, terminal output or capture (prints go to the test's
        stdout). The exception of the test's setup, call or teardown, as pytest caught it, is
        raised again for :meth:`run_one` to report; one from a fixture's setup or teardown
        is an "error" whose message says so. A timeout that pytest's own code caught (its
        start-up or cleanup) is still a timeout; ``pytest.exit`` and ``KeyboardInterrupt`` are
        raised again too."""
        import pytest

        self.pytest_runs += 1
        stem = f"test_codeteam_{self.pytest_runs}"
        path = os.path.join(self.here, stem + ".py")  # the test may have moved the cwd
        text = test["setup"]
        code = self.compile_test(text, test.get("file") or path)
        module = types.ModuleType(stem)
        module.__file__ = path
        module.__dict__.update(self.helpers())
        with open(path, "w", encoding="utf-8") as file:
            file.write(text)  # pytest collects from a path
        sys.modules[stem] = module
        harness = self

        class Recorder:
            def __init__(self):
                self.raised = None
                self.when = "call"
                self.ran = False
                self.problems = []

            def pytest_runtest_makereport(self, item, call):
                if call.excinfo is not None and self.raised is None:
                    self.raised = call.excinfo.value
                    self.when = call.when
                    if isinstance(self.raised, TestTimeout):  # no second alarm in pytest's
                        harness.armed = False  # cleanup; the watchdog still ends a hang
                        _signal.setitimer(_signal.ITIMER_REAL, 0)

            def pytest_keyboard_interrupt(self, excinfo):  # also pytest.exit()
                if self.raised is None:
                    self.raised = excinfo.value
                    self.when = "call"

            def pytest_runtest_logreport(self, report):
                self.ran = True

            def pytest_collectreport(self, report):
                if report.failed:
                    self.problems.append(str(report.longrepr)[-FIELD_LIMIT:])

        recorder = Recorder()
        self.alarms = 0
        try:
            exec(code, module.__dict__)  # noqa: S102 - the test file's top level, as pytest would
            exit_code = pytest.main(
                [f"{path}::{name}", "-s", "-p", "no:cacheprovider", "-p", "no:faulthandler",
                 "-p", "no:terminal", "-p", "no:unraisableexception", "-c", os.devnull,
                 "--rootdir", os.path.dirname(path), "--import-mode=importlib"],
                plugins=[recorder],
            )  # fmt: skip
        finally:
            sys.modules.pop(stem, None)
            os.remove(path)
            sys.last_type = sys.last_value = sys.last_traceback = None  # set by pytest
        if recorder.raised is None and self.alarms:
            raise TestTimeout()  # caught by pytest itself, outside the test
        if recorder.raised is not None:
            if recorder.when != "call":
                self.outside_call = True
                phase = "setup" if recorder.when == "setup" else "teardown"
                outcome["message"] = f"in the {phase} of a fixture"
            raise recorder.raised
        if not recorder.ran or exit_code != 0:
            why = "; ".join(recorder.problems) or f"pytest exit code {int(exit_code)}"
            raise RuntimeError(f"pytest did not run the test: {why}")

    def run_doctest(self, test, module, outcome, seconds):
        import doctest

        harness = self

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
                if example is target:
                    self.result = ("raised", exc_info[1])
                elif self.setup_problem is None:
                    exc = exc_info[1]
                    self.setup_problem = f"raised {type(exc).__name__}: {exc}"
                    self.setup_example = example

        parser = doctest.DocTestParser()
        examples = parser.get_examples(test.get("setup") or "") if test.get("setup") else []
        target_examples = parser.get_examples(_doctest_text(test["source"], test.get("expected")))
        if len(target_examples) != 1:
            raise ValueError("a doctest case must hold exactly one example")
        target = target_examples[0]
        globs = dict(vars(module))
        case = doctest.DocTest(examples + [target], globs, test["id"], None, 0, None)
        runner = Runner(verbose=False, optionflags=0)

        def run():
            runner.run(case, out=lambda text: None, clear_globs=False)

        status, exc = harness.guarded(run, seconds)
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

    # -- one test ----------------------------------------------------------------------------

    def run_one(self, index, test, module, import_error):
        outcome = {"event": "outcome", "index": index, "test_id": test["id"], "status": "passed"}
        captured = _Capture(STDOUT_LIMIT)
        started = time.perf_counter()
        self.last = None
        self.outside_call = False
        saved_stdout = sys.stdout
        sys.stdout = captured
        self.watchdog(True)
        try:
            if import_error is not None:
                status, exc = import_error
            elif test["kind"] == "doctest":
                status, exc = self.run_doctest(test, module, outcome, self.timeout)
            elif test["kind"] == "pytest":
                status, exc = self.guarded(
                    lambda: self.run_pytest(test, module, outcome), self.timeout
                )
            else:
                status, exc = self.guarded(
                    lambda: self.run_assert(test, module, outcome), self.timeout
                )
        finally:
            self.watchdog(False)
            sys.stdout = saved_stdout
        outcome["seconds"] = time.perf_counter() - started
        if status == "timeout":
            self.kill_strays()  # e.g. a fork bomb's children, which would starve what follows
            outcome["status"] = "timeout"
            if import_error is not None:
                outcome["message"] = (
                    f"importing {self.module_name} took longer than {self.timeout:g} s"
                )
                outcome["import_failed"] = True
            else:
                outcome["message"] = f"the test took longer than {self.timeout:g} s"
            outcome["exception_type"] = "TimeoutError"
            import traceback

            frames = self.frames(exc)
            program = [f for f in frames if f.filename == self.module_name + ".py"]
            if program:
                outcome["program_line"] = program[-1].lineno
            if frames:
                outcome["traceback"] = "".join(traceback.format_list(frames))[-TRACEBACK_LIMIT:]
        elif status == "raised":
            failed = import_error is None and not self.outside_call and self.is_failure(exc)
            outcome["status"] = "failed" if failed else "error"
            prefix = outcome.get("message", "")
            self.describe(exc, outcome)
            skip = None if import_error is not None else self.not_runnable(test, exc)
            if skip is not None:
                outcome["status"] = "skipped"
                outcome["message"] = skip[:FIELD_LIMIT]
            elif import_error is not None:
                outcome["message"] = f"importing {self.module_name} failed: {outcome['message']}"
                outcome["import_failed"] = True
            elif prefix:
                outcome["message"] = prefix + ": " + outcome["message"]
            if failed:
                self.compared(exc, outcome)
        outcome["stdout"] = captured.getvalue()
        return outcome

    def main(self):
        tests = self.spec["tests"]
        self.timeout = float(self.spec.get("test_timeout") or 5.0)
        _signal.signal(_signal.SIGALRM, self._alarm)
        # The program is loaded from its file (and found in sys.modules by the tests), so the
        # working directory goes last: a program called inspect.py must not shadow the
        # standard module for the harness (or for the libraries it uses).
        here = os.path.dirname(os.path.abspath(__file__))
        sys.path[:] = [path for path in sys.path if os.path.abspath(path or ".") != here]
        for path in [*(self.spec.get("sys_path") or []), here]:
            if path not in sys.path:
                sys.path.append(path)
        if self.spec.get("program_file"):  # the project's import root first (its modules win)
            sys.path.insert(0, self.spec["sys_path"][0])
        self.emit({"event": "start", "index": -1})
        names = {self.module_name}
        for test in tests:
            names.update(name.split(".")[0] for name in test.get("module_aliases") or [])
        if names & set(getattr(sys, "stdlib_module_names", ())):
            # The program will shadow a standard module in sys.modules: load what the harness
            # itself needs first, so its later imports do not pick up the program instead.
            import linecache  # noqa: F401
            import reprlib  # noqa: F401
            import traceback  # noqa: F401

            if any(test["kind"] == "doctest" for test in tests):
                import doctest  # noqa: F401
        if any(test.get("fixtures") for test in tests):
            # pytest runs the tests that take fixtures: loaded once, with its plugins, before
            # the program (which may shadow a module pytest needs) and outside any test's time.
            os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
            os.environ.pop("PYTEST_ADDOPTS", None)
            import pytest  # noqa: F401
            from _pytest.config import default_plugins

            later = PYTEST_LAZY_IMPORTS if names & set(getattr(sys, "stdlib_module_names", ())) else ()
            for plugin in [*(f"_pytest.{name}" for name in default_plugins), *later]:
                try:
                    __import__(plugin)
                except ImportError:
                    pass
        captured = _Capture(STDOUT_LIMIT)
        saved_stdout = sys.stdout
        sys.stdout = captured
        self.watchdog(True)
        try:
            status, value = self.guarded(self.import_program, self.timeout)
        finally:
            self.watchdog(False)
            sys.stdout = saved_stdout
        import_error = None
        module = None
        if status == "ok":
            module = value
            for test in tests:
                for dotted in test.get("module_aliases") or []:
                    self.alias(module, dotted)
        else:
            import_error = (status, value)
        self.emit({"event": "imported", "ok": import_error is None, "stdout": captured.getvalue()})
        for index, test in enumerate(tests):
            self.emit({"event": "start", "index": index})
            try:
                outcome = self.run_one(index, test, module, import_error)
            except BaseException as exc:  # noqa: BLE001 - a harness bug must not lose the run
                outcome = {
                    "event": "outcome",
                    "index": index,
                    "test_id": test["id"],
                    "status": "error",
                    "exception_type": type(exc).__name__,
                    "message": f"harness error: {exc}",
                }
            self.emit(outcome)
        self.emit({"event": "done"})


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


def main(argv):
    import faulthandler

    if os.environ.get("CODETEAM_PRIVATE_PIDNS") == "root":
        _guard_forks(int(os.environ.get("CODETEAM_MAX_PROCESSES") or 64))

    faulthandler.enable()  # a crash prints where it happened to stderr; the runner reads it
    with open(argv[1], "rb") as handle:
        spec = marshal.load(handle)
    _install_exit_builtins()
    _Harness(spec).main()
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
