"""The *subject*: the process that runs the code under test, apart from the judge (standard
library only; runs inside the sandbox), and the judge's end of their channel.

codeteam's pytest plugin (:mod:`codeteam.execution.pytest_plugin`, the *judge*) imports the
project's tests and the *judge view* of the target's module (the user's text, the judged
function's body one call of ``__codeteam_forward__``). That call goes to this process::

    python <interpreter flags> -c SUBJECT_LAUNCHER _codeteam_pytest_subject.py CHANNEL_FD

(:data:`codeteam.execution.pytest_launch.SUBJECT_LAUNCHER`: this file run as a script would
run, from its pyc) in a sandbox of its own, started by codeteam's server when the judge asks for one (the
protocol on ``$CODETEAM_SUBJECT_FD``: :mod:`codeteam.execution.sandbox`). It loads the
*candidate* text of the module under its dotted name (a ``sys.meta_path`` loader: compiled with
the original file's path as filename, ``__package__``/``__path__`` as the original's, so
relative imports and ``pkg/__init__.py`` work), finds the judged function
(:meth:`Subject.find_target`) and serves calls on its channel, which it alone holds. Each call
carries the CPU seconds the code may still use in the current test: a watchdog thread ends a
call that uses them up (or sleeps that long off the CPU, while not waiting for it), first by a
signal (the traceback says where the code was), then, stuck in C, by answering for it and
exiting. Each answer says the CPU seconds the call used.

The encoding and the channel are :mod:`codeteam.execution.pytest_codec`'s.
"""

import builtins
import errno
import os
import sys
import threading
import types
from time import monotonic as _monotonic  # (taken now: a test's patch of the time module,
from time import process_time as _process_time  # which the code under test is given too,
from time import sleep as _sleep  # is never the watchdog's or the channel's)
from time import thread_time as _thread_time
from time import time_ns as _time_ns

TRACEBACK_LIMIT = 3000  # characters of the code's own traceback shown with its exception
WATCH_PERIOD = 0.05  # seconds between the watchdog's looks at the call's CPU time
STUCK_GRACE = 0.5  # seconds after its signal before the watchdog answers for a stuck call

try:  # in the sandbox: the copy beside this file
    import _codeteam_pytest_codec as _codec
except ImportError:  # in codeteam itself
    from codeteam.execution import pytest_codec as _codec

FRAMES_LIMIT = _codec.FRAMES_LIMIT
OUTPUT_LIMIT = _codec.OUTPUT_LIMIT
ARGUMENTS = "the test's arguments could not cross to the code under test"  # (describe's)
CannotCross = _codec.CannotCross
Channel = _codec.Channel
Codec = _codec.Codec
Unjudgeable = _codec.Unjudgeable
_is_dunder = _codec._is_dunder
_raisable = _codec._raisable
_update = _codec._update
exception_info = _codec.exception_info
forbidden = _codec.forbidden
guard_forks = _codec.guard_forks
receive_frame = _codec.receive_frame
send_frame = _codec.send_frame


class _Stream:
    """What :class:`_Capture` and :class:`_RemoteStdin` answer as the streams they replace:
    no terminal, no descriptor."""

    encoding = "utf-8"

    def isatty(self):
        return False

    def fileno(self):
        import io

        raise io.UnsupportedOperation("redirected stdin is pseudofile, has no fileno()")


class _Capture(_Stream):
    """A text stream keeping what is written (bounded); bytes written to its ``buffer`` (as
    ``sys.stdout.buffer.write`` does) are kept as bytes, in order."""

    errors = "replace"

    def __init__(self):
        self.parts = []
        self.size = 0
        self.cut = False  # more was written than is kept
        self.buffer = _BytesSink(self)

    def _keep(self, data):
        room = OUTPUT_LIMIT - self.size
        if len(data) > room:
            self.cut = True
        if room > 0:
            self.parts.append(data[:room])
            self.size += len(self.parts[-1])

    def write(self, text):
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self._keep(text)
        return len(text)

    def flush(self):
        pass

    def writable(self):
        return True

    def getvalue(self):
        """The text written; a list of ``str`` and ``bytes`` parts when bytes were written."""
        if all(type(part) is str for part in self.parts):
            return "".join(self.parts)
        merged = []
        for part in self.parts:
            if merged and type(merged[-1]) is type(part):
                merged[-1] += part
            else:
                merged.append(part)
        return merged


class _BytesSink:
    """``_Capture.buffer``: a binary stream writing into its capture."""

    def __init__(self, capture):
        self.capture = capture

    def write(self, data):
        data = bytes(data)
        self.capture._keep(data)
        return len(data)

    def flush(self):
        pass

    def writable(self):
        return True


class _RemoteStdin(_Stream):
    """``sys.stdin`` during a call when the test gave its own (``monkeypatch.setattr(sys,
    "stdin", io.StringIO(...))``): its ``read``, ``readline``, ``readlines`` called in the
    judge (handles)."""

    errors = "strict"

    def __init__(self, read, readline, readlines):
        self._read, self._readline, self._readlines = read, readline, readlines

    def read(self, size=-1):
        return self._read(size) if self._read is not None else ""

    def readline(self, size=-1):
        return self._readline(size) if self._readline is not None else ""

    def readlines(self, hint=-1):
        return self._readlines(hint) if self._readlines is not None else []

    def __iter__(self):
        return self

    def __next__(self):
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    def readable(self):
        return True


class _Loader:
    """Loads the candidate text as the module under test."""

    def __init__(self, name, path, text, package):
        self.name = name
        self.path = path
        self.text = text
        self.package = package
        self.code = None

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.name:
            return None
        from importlib.util import spec_from_loader

        spec = spec_from_loader(fullname, self, origin=self.path, is_package=self.package)
        spec.has_location = True
        if self.package:
            spec.submodule_search_locations = [os.path.dirname(self.path)]
        return spec

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        import linecache

        linecache.cache[self.path] = (len(self.text), None, self.text.splitlines(True), self.path)
        module.__file__ = self.path
        self.code = compile(self.text, self.path, "exec", dont_inherit=True)
        exec(self.code, module.__dict__)  # noqa: S102 - running the code under test is the point

    def get_source(self, name):
        return self.text

    def is_package(self, name):
        return self.package


class CallTimeout(BaseException):
    """The call used up the CPU seconds (or the time off the CPU) it had."""


def _schedstat():
    """(CPU seconds, seconds waiting for a CPU) so far of this process's threads and of every
    process it started that is still in its session (a fork bomb's children too), from
    ``/proc/*/task/*/schedstat``; without schedstat, this process's CPU time and no wait."""
    cpu = wait = 0.0
    session = os.getsid(0)
    try:
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        pids = []
    for pid in pids:
        try:
            if pid != str(os.getpid()) and _session_of(pid) != session:
                continue
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/schedstat") as handle:
                    ran, waited = handle.read().split()[:2]
                cpu, wait = cpu + int(ran) / 1e9, wait + int(waited) / 1e9
        except (OSError, ValueError):
            continue
    return (cpu, wait) if cpu else (_process_time(), 0.0)


def _session_of(pid):
    with open(f"/proc/{pid}/stat") as handle:
        return int(handle.read().rsplit(")", 1)[1].split()[3])


class Subject(Channel):
    side = "subject"

    def __init__(self, rfd, wfd):
        super().__init__(rfd, wfd, strict=False)
        self.target = None
        self.targets = {}  # plain -> (the function to call, or None; the problem, or None)
        self.plain = False
        self.module = None
        self.problem = None
        self.environ = None
        self.filters = []  # the judge's warning filters (see _judge_filters)
        self.here = os.path.abspath(__file__)
        self.budget = None  # (CPU start, CPU limit, wall start, wait start) of the running call
        self.misused = None  # what the call did with an object of the test's it could not use
        self.made_by = {}  # handle id of an object of the code's that crossed in a request's
        # answer (a generator, a closure, a coroutine) -> (that request's numbering, its
        # "after"): each later request running it goes on with them (see serve)
        self.synced = None  # (a made_by "after", its encoding) as the last request left it
        self.inner_cpu = 0.0  # CPU seconds of the calls nested in the running one
        self.lock = threading.Lock()

    def start(self, config):
        names = config.get("globals")
        self.codec.peer = {n for n in names if type(n) is str} if type(names) is list else set()
        root = config.get("root")
        self.codec.roots = (str(root),) if type(root) is str else None
        sys.path[:] = [str(p) for p in config.get("sys_path") or []]
        os.chdir(config.get("cwd") or "/")
        with open(config["candidate"], encoding="utf-8") as handle:
            text = handle.read()
        path = config["file"]
        self.loader = _Loader(config["module"], path, text, os.path.basename(path) == "__init__.py")
        sys.meta_path.insert(0, self.loader)
        saved = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = _Capture(), _Capture()
        try:
            import importlib

            self.module = importlib.import_module(config["module"])
            self.plain = bool(config.get("plain"))
            for plain in (False, True):  # which one is called: the judge says (see apply)
                self.targets[plain] = self.lookup(config, plain)
        except BaseException as exc:  # noqa: BLE001 - the candidate does not import
            self.problem = exception_info(exc, self.codec, self.frames(exc))
            self.problem["import_failed"] = True
        finally:
            sys.stdout, sys.stderr = saved
        if self.module is not None:
            self.codec.remember_globals(self.module.__dict__)
        threading.Thread(target=self.watch, daemon=True).start()
        self.send({"kind": "ready", "modules": sorted(k for k in list(sys.modules)
                                                      if type(k) is str)})

    def lookup(self, config, plain):
        """``(target, problem)``: :meth:`find_target`'s function, or the ``raised`` reply
        every call gets instead."""
        def problem(message):
            return None, {"kind": "raised", "type": "LookupError", "module": "builtins",
                          "bases": [["builtins", "LookupError"]], "message": message,
                          "frames": []}

        try:
            found = self.find_target(dict(config, plain=plain))
        except LookupError as error:
            return problem(str(error))
        if found is None:
            return problem("the code under test defines no function {} at line {}".format(
                config["qualname"], config.get("lines")))
        return found, None

    def find_target(self, config):
        """The function to call: what the module's name ``qualname`` is bound to after the
        import (looked up statically, no ``__getattr__`` runs); when the user's own ``def``
        has no decorator (``plain``, decided by the judge from its view), that object itself;
        else unwrapped (``__wrapped__``, ``__func__``, a property's ``fget``, ``func``) down to
        the function of the ``def`` at the target's line, or to the plain function it is bound
        to. A wrapper that cannot be unwrapped is looked into (closure cells, ``__dict__``)
        for a function whose code is that ``def``'s. None when the name is not bound;
        :class:`LookupError` when it is bound to something else."""
        import inspect
        import types

        name = config["qualname"].rsplit(".", 1)[-1]
        lines = set(config.get("lines") or [])
        stack = [self.loader.code] if self.loader.code is not None else []
        codes = set()
        while stack:
            code = stack.pop()
            for const in code.co_consts:
                if isinstance(const, types.CodeType):
                    if const.co_name == name and const.co_firstlineno in lines and getattr(
                            const, "co_qualname", config["qualname"]) == config["qualname"]:
                        codes.add(const)
                    stack.append(const)
        found = self.module
        try:
            for part in config["qualname"].split("."):
                found = inspect.getattr_static(found, part)
        except AttributeError:
            return None
        bound = found
        if config.get("plain") and callable(bound) and not isinstance(bound, type):
            return bound  # the user's def has no decorator: the very object the name calls
        plain = None
        for _ in range(50):
            if isinstance(found, types.FunctionType):
                if found.__code__ in codes:
                    return found
                inner = getattr(found, "__wrapped__", None)
                if inner is None:
                    plain = found
                    break
                found = inner
                continue
            inner = None
            for attribute in ("__func__", "__wrapped__", "fget", "func"):
                try:  # the candidate's own objects, in its own process
                    inner = getattr(found, attribute, None)
                except Exception:  # noqa: BLE001
                    inner = None
                if inner is not None and (callable(inner) or isinstance(
                        inner, (staticmethod, classmethod, property))):
                    break
                inner = None
            if inner is None:
                break
            found = inner
        inside = self.reachable(bound, codes)
        if inside is not None:
            return inside
        if plain is not None:
            return plain
        raise LookupError(
            "the code under test's module binds {} to {!r}, which is not (and does not wrap) "
            "the function defined at line {}".format(
                config["qualname"], type(bound).__name__, min(lines) if lines else "?"))

    @staticmethod
    def reachable(bound, codes, limit=500):
        """A function whose code is one of ``codes`` reachable from ``bound`` through
        unwrapping attributes, closure cells and instance ``__dict__`` values, or None."""
        import types

        seen = set()
        queue = [bound]
        while queue and len(seen) < limit:
            item = queue.pop(0)
            if id(item) in seen or isinstance(item, (types.ModuleType, type)):
                continue
            seen.add(id(item))
            if isinstance(item, types.FunctionType):
                if item.__code__ in codes:
                    return item
                for cell in item.__closure__ or ():
                    try:
                        queue.append(cell.cell_contents)
                    except ValueError:  # an empty cell
                        pass
            try:
                space = _codec._own_dict(item)
            except AttributeError:
                space = {}
            if type(space) is dict:
                queue.extend(space.values())
            for attribute in ("__func__", "fget", "func"):
                try:
                    queue.append(object.__getattribute__(item, attribute))
                except AttributeError:
                    pass
        return None

    def frames(self, exc):
        import traceback

        out = []
        try:
            out = [[f.f_code.co_filename, line] for f, line in traceback.walk_tb(
                exc.__traceback__) if f.f_code.co_filename != self.here and type(
                f.f_globals) is not _codec.StackGlobals]
        except Exception:  # noqa: S110, BLE001
            pass
        if isinstance(exc, SyntaxError) and exc.filename and exc.lineno:
            out.append([exc.filename, exc.lineno])
        return out[-FRAMES_LIMIT:]

    def raised(self, exc):
        reply = exception_info(exc, self.codec, self.frames(exc))
        try:
            import traceback

            lines = traceback.format_exception(type(exc), exc, exc.__traceback__)
            reply["traceback"] = "".join(x for x in lines if self.here not in x)[-TRACEBACK_LIMIT:]
        except Exception:  # noqa: S110, BLE001 - no text, the frames still say where
            pass
        if isinstance(exc, CallTimeout):
            reply = {"kind": "timeout", "message": str(exc), "frames": reply.get("frames", [])}
        return reply

    def context(self, request):
        """The judge's environment, working directory, sys.path, ``sys.argv`` and view (before
        the call's values are decoded: they may import modules found there)."""
        env = request.get("env")
        if type(env) is dict and env != self.environ:
            zone = os.environ.get("TZ")
            os.environ.clear()
            os.environ.update({str(k): str(v) for k, v in env.items()})
            self.environ = env
            if os.environ.get("TZ") != zone:  # the test's `os.environ["TZ"] = ...;
                import time  # time.tzset()`: the code's local time too

                time.tzset()
        cwd = request.get("cwd")
        if type(cwd) is str:
            try:
                os.chdir(cwd)
            except OSError:
                pass
        path = request.get("path")
        if type(path) is list:
            sys.path[:] = [str(p) for p in path]
        argv = request.get("argv")
        if type(argv) is list:
            sys.argv = [str(a) for a in argv]
        filters = request.get("filters")
        if type(filters) is list:
            self.filters = _judge_filters(filters)
        view = request.get("view")
        if type(view) is dict:  # the judge's view, once imported (after this process started)
            self.plain = view.get("plain") is True
            names = view.get("globals")
            if type(names) is list:
                self.codec.peer = {n for n in names if type(n) is str}

    def apply(self, request):
        """The module globals the test changed, of the module under test (``globals``) and of
        the project's other modules and their classes (``states``: ``[module, class or None,
        name, value]``); returns what to restore."""
        saved = []
        names = request.get("globals")
        if type(names) is dict and self.module is not None:
            for name, value in names.items():
                if type(name) is str and (not _is_dunder(name) or (
                        name == "__spec__" and value is None)):
                    if issubclass(type(value), type):  # freezegun's FakeDatetime as the
                        # `datetime` the module holds: its objects cross as datetimes
                        _codec.patched_value_type(self.module, name, value)
                    saved.append(_set(self.module, name, value))
        for name in request.get("deleted") or [] if self.module is not None else []:
            space = vars(self.module)
            if type(name) is str and (not _is_dunder(name) or name == "__spec__") and (
                    name in space):
                saved.append((self.module, name, space.pop(name)))
        for entry in request.get("states") or []:
            try:
                module, cls, name, value = entry
                import importlib

                owner = importlib.import_module(str(module))
                if type(name) is not str or _is_dunder(name):
                    continue
                if cls == ":items":  # a dict the test changed in place: its items over ours
                    current = vars(owner).get(name)
                    if type(current) is dict and type(value) is list and len(value) == 2 and (
                            type(value[0]) is dict and type(value[1]) is list):
                        merged = dict(current)
                        merged.update(value[0])
                        for key in value[1]:
                            merged.pop(key, None)
                        saved.append(_set(owner, name, merged))
                    continue
                if cls == ":over":  # a test's class over datetime in place of it: a class
                    made = _stand_in(*value)  # over the real one calling its class methods
                    _codec.patched_value_type(owner, name, made)
                    saved.append(_set(owner, name, made))
                    continue
                if cls == ":attrs":  # an object's attributes the test set
                    holder = vars(owner).get(name)
                    if type(value) is dict and _instance_attrs(holder) is not None:
                        for key, item in value.items():
                            if type(key) is str and not _is_dunder(key):
                                saved.append(_set(holder, key, item))
                    continue
                if cls is not None:
                    owner = vars(owner)[str(cls)]
                elif issubclass(type(value), type):  # (never asks a proxy for its __class__)
                    # freezegun's FakeDatetime as datetime.datetime:
                    _codec.patched_value_type(owner, name, value)  # its objects cross as such
                saved.append(_set(owner, name, value))
            except Exception:  # noqa: S112, BLE001 - a module this process cannot import
                continue
        return saved

    def restore(self, saved, keep=()):
        """Undo :meth:`apply` but for ``keep`` (``(id(owner), name)``: the call changed them,
        the code's version stands, as the judge now has it too)."""
        for owner, name, old in reversed(saved):
            if (id(owner), name) in keep:
                continue
            try:
                if old is _UNSET:
                    delattr(owner, name)
                else:
                    setattr(owner, name, old)
            except Exception:  # noqa: S112, BLE001
                continue

    def owned_modules(self):
        """``(name, module)`` whose data the test may read: the module under test and the
        project's other modules (not test files or conftest.py files); looked for again only
        when ``sys.modules`` grew."""
        known = getattr(self, "_owned", None)
        if known is not None and known[0] == len(sys.modules):
            return known[1]
        found = []
        for name, module in list(sys.modules.items()):
            if type(name) is not str or module is None or (
                    module is not self.module and not self.codec.own(name)):
                continue
            path = getattr(module, "__file__", None)
            base = os.path.basename(path) if type(path) is str else ""
            if base.startswith("test_") or base == "conftest.py":
                continue
            found.append((name, module))
        self._owned = (len(sys.modules), found)
        return found

    def module_state(self):
        """The data (:func:`_data_global`) of :meth:`owned_modules` and of the classes each
        defines, as it is now: ``(module, class or None, name)`` -> (value, a shallow copy of
        a list, dict or set of at most 4096 items or None, the module or class, a copy of the
        attributes of a module's object (:func:`_instance_attrs`: a ``threading.local``) or
        None)."""
        found = {}
        for module, owner in self.owned_modules():
            for name, value in list(vars(owner).items()):
                if issubclass(type(value), type):  # (never a proxy's __class__: "misused")
                    if vars(value).get("__module__") == module:
                        for key, item in list(vars(value).items()):
                            if _data_global(key, item):
                                found[(module, name, key)] = (item, _small_contents(item), value,
                                                              None)
                elif _data_global(name, value):
                    contents = _small_contents(value)
                    found[(module, None, name)] = (value, contents, owner, None if (
                        contents is not None) else _instance_attrs(value))
        return found

    def changed_state(self, before):
        """``[module, class or None, name, value, owner]`` of the data the call rebound, added
        or (a small list, dict or set) changed in place since ``before``
        (:meth:`module_state`), and ``[module, ":attrs", name, {attribute: value}, object]``
        of the attributes it set on an object a module holds (``_CURRENT.locale = ...``);
        what can cross: the judge makes its own the same, as one process would show it to
        the test."""
        changed = []
        for key, (value, contents, owner, attrs) in self.module_state().items():
            old = before.get(key)
            moved = old is None or old[0] is not value or (
                old[1] is not None and _differ(contents, old[1]))
            if moved:
                if self.codec._sendable(value):
                    changed.append([*key, value, owner])
                continue
            if attrs is None or old[3] is None:
                continue
            fresh = {k: v for k, v in attrs.items() if not _is_dunder(k) and (
                old[3].get(k, _UNSET) is not v)}
            if fresh and self.codec._sendable(fresh):
                changed.append([key[0], ":attrs", key[2], fresh, value])
        return changed

    # -- the CPU budget of a call ------------------------------------------------------------

    def watch(self):
        """The watchdog: ends the running call when its code used its CPU seconds, or slept
        (off the CPU, not waiting for one) as long; answers for a call stuck in C."""
        import signal

        signalled = None
        while True:
            _sleep(WATCH_PERIOD)
            with self.lock:
                budget = self.budget
            if budget is None:
                signalled = None
                continue
            cpu, wait = _schedstat()
            used = cpu - budget[0]
            asleep = (_monotonic() - budget[2]) - used - (wait - budget[3])
            why = (f"the code used its {budget[1]:g} CPU seconds" if used > budget[1] else
                   f"the code slept {asleep:.1f} s off the CPU" if asleep > budget[1] else None)
            if why is None:
                continue
            if signalled is None:
                signalled = _monotonic()
                self.why = why
                signal.pthread_kill(threading.main_thread().ident, signal.SIGUSR2)
            elif _monotonic() - signalled > STUCK_GRACE:  # stuck in C: answer and exit
                import traceback

                frame = sys._current_frames().get(threading.main_thread().ident)
                where = [[f.filename, f.lineno] for f in traceback.extract_stack(frame)
                         if f.filename != self.here][-FRAMES_LIMIT:]
                with self.lock:
                    if self.budget is budget:  # the call still runs: it cannot answer itself
                        try:
                            send_frame(self.wfd, Codec(False).dumps({
                                "kind": "timeout", "message": why + " (stuck outside Python)",
                                "frames": where, "cpu": used}))
                        finally:
                            os._exit(3)

    def environ_now(self):
        """``os.environ`` as a dict (:func:`_environ_look`: the same object while it did not
        change)."""
        self.environ_looked = _environ_look(getattr(self, "environ_looked", None))
        return self.environ_looked[1]

    def _interrupted(self, signum, frame):
        with self.lock:
            if self.budget is not None:
                raise CallTimeout(getattr(self, "why", "the call ran out of time"))

    def call(self, request, made=None):
        """Run ``request`` (a call of the function, a call or ``next`` of one of this side's
        handles); ``made``: the handle's entry of :attr:`made_by`. The reply's ``after`` is
        the request's arguments, keywords and the exception handled, as the code left them,
        followed, for a handle, by its making request's ``after``: written back where the
        judge has them (the test's own objects, numbered as in that request)."""
        saved = self.apply(request)
        handled = self.codec.handled  # (a call nested in one made in the test's except block)
        if request["kind"] == "call" and request.get("handle") is None:
            self.target, problem = self.targets.get(self.plain, (None, self.problem))
            problem = self.problem or problem
            if problem:
                self.restore(saved)
                return dict(problem, out="", err="")
        before = self.module_state()
        handles = len(self.codec.exported)
        changed = []
        environ = self.environ_now()
        streams = sys.stdout, sys.stderr
        reading = sys.stdin, builtins.input
        redirected = request.get("input")
        if type(redirected) is dict:  # the test's own sys.stdin or input(): read from there
            methods = redirected.get("stdin")
            if type(methods) is list and len(methods) == 3:
                sys.stdin = _RemoteStdin(*methods)
            if callable(redirected.get("input")):
                builtins.input = redirected["input"]
        out, err = _Capture(), _Capture()
        sys.stdout, sys.stderr = out, err
        here = _cwd()
        logs = _logs_begin(request.get("logging"))
        levels = _logging_levels()  # (the judge's, just set): what the code sets is the test's
        shared = {}  # the test's random state, decimal context and locale, for the call
        for name, (read, write) in SHARED_STATES.items():
            try:
                if request.get(name) is not None:
                    write(request[name])
                elif name not in KEPT_STATES:  # (not sent: the judge does not have it)
                    continue
                shared[name] = read()
            except Exception:  # noqa: S112, BLE001 - (the judge's: never malformed)
                continue
        travel = _travel(request.get("travel"))  # the test's time_machine.travel, for the call
        context = _enter_context(request.get("context"))  # and its context variables
        import contextvars

        running = contextvars.copy_context()
        args = request.get("args") or []
        kwargs = request.get("kwargs") or {}
        synced, self.synced = self.synced, None
        made_state = None if made is None else synced[1] if (
            synced is not None and synced[0] is made[1] and "refresh" not in request) else (
            _encoded(self.codec, made[1]))  # (as the test has them: sent again, refresh, or
        # as the last request, a run of a handle made with them too, left them)
        limit = request.get("cpu_left")
        started, outer, self.inner_cpu = _process_time(), self.inner_cpu, 0.0
        rlimit = None
        if type(limit) in (int, float) and limit > 0:
            cpu, wait = _schedstat()
            with self.lock:
                self.budget = (cpu, float(limit), _monotonic(), wait)
            rlimit = _cpu_rlimit(started + limit + 1)  # stuck in C: SIGXCPU at the next second
        try:
            import warnings

            with warnings.catch_warnings(record=True) as caught:  # a call, a next() of the
                # code's generator, a call of its handle: what the code warns goes to the test
                warnings.simplefilter("always")
                for action, message, category, module, lineno in reversed(self.filters):
                    # the judge's filters first: an "error" is raised in the code (which
                    # may catch it), as under plain pytest
                    warnings.filterwarnings(action, message, category, module, lineno)
                handling = request.get("handling")
                if isinstance(handling, BaseException):  # the call is made in the test's
                    try:  # except block: sys.exc_info() is its exception (backoff's handlers)
                        raise handling
                    except BaseException:  # noqa: BLE001 - (it is raised here to be handled)
                        self.codec.handled = handling.__traceback__  # (its traceback here:
                        # the test's own when it goes back)
                        reply = self.dispatch(request, args, kwargs)
                else:
                    reply = self.dispatch(request, args, kwargs)
            reply["warnings"] = [
                [[getattr(w.category, "__module__", "builtins"),
                  getattr(w.category, "__qualname__", "Warning")], str(w.message)[:10000],
                 str(w.filename), int(w.lineno or 0)] for w in caught[:100]]
            if len(caught) > 100 or any(len(entry[1]) == 10000
                                        for entry in reply["warnings"]):
                reply["warnings_cut"] = True  # a test that reads them cannot be judged
        except CallTimeout as exc:  # between the call's end and the reply
            reply = self.raised(exc)
        finally:
            ended = _process_time()  # the call's; what follows is the judge's bookkeeping
            with self.lock:
                self.budget = None
            if rlimit is not None:
                _cpu_rlimit(rlimit)
            if travel is not None:
                travel.stop()
            moved = self.context_changed(running)  # what the code set there: the test's
            for var, token, _ in reversed(context):  # too (one context, one process)
                var.reset(token)
            sys.stdout, sys.stderr = streams
            sys.stdin, builtins.input = reading
            _logs_end(logs)
            try:
                changed = self.changed_state(before)
            except Exception:  # noqa: S110, BLE001 - a global that cannot be looked at
                pass
            now_levels = _logging_levels()  # (before the restore: a logger a module holds
            # gets back the subject's own level there, which the code did not set)
            self.restore(saved, keep={(id(e[4]), n) for e in changed for n in (
                e[3] if e[1] == ":attrs" else [e[2]])})
        if changed:
            reply["changed"] = [e[:4] for e in changed]
        if moved:
            reply["context"] = moved
        now = self.environ_now()
        if now is not environ and now != environ:  # what the code set or removed: the judge's to
            # take over, or not
            reply["environ"] = [{k: v for k, v in now.items() if environ.get(k) != v},
                                [k for k in environ if k not in now]]
            self.environ = now
        for name, before in shared.items():  # what the code drew, its getcontext().prec =
            now = SHARED_STATES[name][0]()  # ..., its setlocale: the test's too (one process)
            if now != before:
                reply[name] = now
        now = now_levels
        if now != levels:  # the code's setLevel, logging.disable: the test's too (one process)
            reply["levels"] = [now[0], {name: level for name, level in now[1].items()
                                        if levels[1].get(name) != level}]
        if logs:
            reply["logs"] = list(logs[:LOG_LIMIT])
        if logs.cut:  # a test that reads them cannot be judged
            reply["logs_cut"] = True
        now = _cwd()
        if now != here:  # the code's os.chdir: the test's working directory too (one process)
            reply["cwd"] = now
        cut = [name for name, kept in (("out", out), ("err", err)) if kept.cut]
        if cut:  # the judge writes what was kept: a test that reads it cannot be judged
            reply["cut"] = cut
        reply["out"] = out.getvalue()
        reply["err"] = err.getvalue()
        used = ended - started  # the calls nested in it are counted by theirs
        reply["cpu"], self.inner_cpu = used - self.inner_cpu, outer + used
        if self.misused is not None:  # it used an object of the test's it could not have
            reply["misused"], self.misused = self.misused, None
            reply["misused_handle"] = getattr(self, "misused_handle", None)
        after = [list(args), dict(kwargs), request.get("handling")]
        if made is not None:  # what a later run of the code's generator, closure or
            after.extend(made[1])  # coroutine changed in its making request's arguments
            # (and in those of the request that made that handle, if one did: flat), sent
            # back when it changed them (their encoding differs: each value, at any depth)
        if made is not None and _keepable(args, kwargs) and len(made[1]) < KEPT_LIMIT:
            made[1].extend(after[:2])  # what the handle may keep of this run's arguments
            # (g.send(bucket), filled by its later runs): its later runs' too (JudgeClient.ask)
        now = _encoded(self.codec, made[1]) if made is not None else None
        sent = after if now is None or now != made_state else after[:3]
        if now is not None:
            self.synced = (made[1], now)  # (the judge's too, written back or unchanged)
        if request["kind"] == "call" or args or len(sent) > 3:  # (a generator's
            # send(value) too; and the exception being handled: add_note on it)
            reply["after"] = sent
        try:
            self.encoded = (reply, self.codec.dumps(reply))  # sent as is (see send)
            if len(self.encoded[1]) > _codec.FRAME_LIMIT and reply["kind"] == "value" and type(
                    reply.get("value")) in _codec._CONTAINERS:  # (the value as a handle)
                reply["value"] = _codec.Opaque(reply["value"])
                self.encoded = (reply, self.codec.dumps(reply))
        except CannotCross as error:
            reply = {"kind": "uncrossable", "message": str(error), "cpu": reply["cpu"]}
        for handle in range(handles + 1, len(self.codec.exported) + 1):  # (exported as it
            # was encoded, or given to a callback of the test's during the call)
            self.made_by.setdefault(handle, (self.codec.tables(), after))
        self.codec.handled = handled
        return reply

    def context_changed(self, before):
        """``[module, name, key or None, variable's name, value]`` of each context variable of
        the project's modules (a global, or an item of a global dict; or a stand-in of the
        test's, :func:`_enter_context`) that the call set in this thread's context since
        ``before`` (a copy of it): the judge sets them in the test's context (structlog's
        ``bind_contextvars``)."""
        import contextvars

        after = contextvars.copy_context()
        moved = {id(var): (var.name, value) for var, value in after.items()
                 if before.get(var, _UNSET) is not value}
        if not moved:
            return []
        held = {id(var): list(where) for where, var in _CONTEXT_STAND_INS.items()}
        for name, module in list(sys.modules.items()):
            if module is None or not self.codec.own(name):
                continue
            for key, value in list(vars(module).items()):
                if type(value) is contextvars.ContextVar:
                    held[id(value)] = [name, key, None]
                elif type(value) is dict:
                    held.update((id(v), [name, key, k]) for k, v in list(value.items())
                                if type(v) is contextvars.ContextVar and type(k) is str)
        return [[*held[var], *named] for var, named in moved.items() if var in held]

    def dispatch(self, request, args, kwargs):
        """The reply to a call of the function, a ``next`` or a call of one of this side's
        handles (:meth:`call`'s)."""
        if request["kind"] == "next":  # (a coroutine's step: its CancelledError too)
            try:
                with _codec.stepping(self, self.codec.exported.get(request.get("handle"))):
                    return Channel.serve(self, request)
            except BaseException as exc:  # noqa: BLE001
                return self.raised(exc)
        if request.get("handle") is not None:
            try:
                return Channel.serve(self, request)
            except BaseException as exc:  # noqa: BLE001
                return self.raised(exc)
        try:
            stack = request.get("stack")  # (called from frames standing for the test's)
            value = (_codec.mirrored(stack, self.target, self) if type(stack) is str else (
                self.target))(*args, **kwargs)
            import inspect

            if request.get("awaited") is not False and type(type(value)) is not (
                    _codec._RemoteObjectType) and type(value) is not (
                    _codec.RemoteCoroutine) and inspect.isawaitable(value):  # an async def
                # (the view's): run to completion here (the test's own object or coroutine
                # returned is none: isinstance() would ask the object for its class, "not
                # judged"); a plain def's coroutine (asyncio.sleep(0, result=x)) is a value
                import asyncio

                value = asyncio.run(_awaited(value))
        except BaseException as exc:  # noqa: BLE001 - SystemExit too: judged there
            return self.raised(_codec.unmirrored(exc))
        return {"kind": "value", "value": value}

    def call_handle(self, proxy, args, kwargs, hook=None):
        """A callback into the judge (a function of the test given as an argument; with
        ``hook``, that hook of :data:`HOOK_CALLS` run on the test's object ``proxy``)."""
        message = {"kind": "call", "handle": proxy._handle[1], "args": list(args),
                   "kwargs": dict(kwargs)}
        if hook is not None:
            message["hook"] = hook
        return self.answered(self.callback(message))

    def next_handle(self, proxy, *sent, step=None):
        """``next`` of the test's iterator, or its ``send(*sent)`` (a generator's, a
        coroutine's), or the coroutine's ``step`` (``{"throw": error}``, ``{"close": True}``)."""
        message = {"kind": "next", "handle": proxy._handle[1], **(step or {})}
        if sent:
            message["args"] = list(sent)
        return self.answered(self.callback(message))

    def callback(self, message):
        """A request to the judge; the time it takes there is not the code's."""
        with self.lock:
            budget, self.budget = self.budget, None
        paused = _monotonic()
        try:
            return self.request(message)
        finally:
            if budget is not None:
                with self.lock:  # the call's clock goes on from where it stopped
                    self.budget = (budget[0], budget[1], budget[2] + _monotonic() - paused,
                                   budget[3])

    def answered(self, reply):
        if reply["kind"] == "stop":
            raise StopIteration(reply.get("value"))
        if reply["kind"] == "value":
            return reply.get("value")
        exc = reply.get("exc")
        if not isinstance(exc, BaseException):
            base = Exception
            for module, qualname in reply.get("bases") or []:
                found = sys.modules.get(str(module))
                try:
                    for part in str(qualname).split("."):
                        found = getattr(found, part)
                except AttributeError:
                    continue
                if isinstance(found, type) and issubclass(found, Exception):
                    base = found
                    break
            kind = type(str(reply.get("type") or "Error").rsplit(".", 1)[-1], (base,),
                        {"__module__": str(reply.get("module") or "builtins")})
            try:
                exc = kind(str(reply.get("message", "")))
            except Exception:  # noqa: BLE001 - a base taking other arguments
                exc = Exception(str(reply.get("message", "")))
        if type(reply.get("origin")) is int:
            try:
                exc._codeteam_origin = reply["origin"]
            except Exception:  # noqa: S110, BLE001
                pass
        raise exc

    encoded = None

    def send(self, message):
        """Send ``message``; the reply :meth:`call` encoded already is not encoded again (the
        same bytes: within a call's session the numbering is kept)."""
        ready, self.encoded = self.encoded, None
        if ready is not None and ready[0] is message:
            send_frame(self.wfd, ready[1])
            return
        super().send(message)

    def serve(self, request):
        """A request of the judge while this side waits for a callback's answer: the call of
        one of this side's handles, or of the judged function again (the test's callback
        calls it: a validator holding another), each as a call of its own; also the judge's
        own requests (:meth:`main`). A later run of a handle the code gave in an earlier
        request (:attr:`made_by`: a ``next`` of its generator, a call of its closure, a step
        of its coroutine) goes on with that request's numbering (:meth:`Codec.use`: the
        copies it holds cross back as the test's objects, updated in place; the judge sends
        that request's arguments again, ``refresh``, with what the test changed since), the
        numbering in use before back after it."""
        handle = request.get("handle")
        made = self.made_by.get(handle) if request["kind"] in ("call", "next") and (
            "hook" not in request or _codec._stream(self.codec.exported.get(handle))
            is not None) else None  # (a hook of the code's object, a RemoteObject there:
        # numbered afresh, as the judge asks; a stream's method, a RemoteIterator there: as
        # its making request, as a generator's next)
        outer = self.codec.tables()
        if made is not None:
            self.codec.use(made[0])
        try:
            try:
                if type(request.get("payload")) is bytes:
                    payload = self.codec.loads(request.pop("payload"))
                    request.update(payload if type(payload) is dict else {})
            except (ValueError, ImportError) as error:  # what this side cannot rebuild
                return {"kind": "uncrossable", "message": f"the arguments: {error}"}
            if request["kind"] not in ("call", "next"):
                return {"kind": "uncrossable", "message": "an unknown request"}
            return self.call(request, made)
        finally:
            self.codec.use(outer)

    def main(self):
        import signal

        signal.signal(signal.SIGUSR2, self._interrupted)
        self.start(self.receive())
        while True:
            self.codec.session()
            try:
                request = self.receive()
                self.context(request)
            except (ValueError, ImportError) as error:
                self.send({"kind": "uncrossable", "message": f"the arguments: {error}"})
                continue
            except (EOFError, OSError):
                return
            if request["kind"] == "quit":
                return
            self.send(self.serve(request))


def _given_traceback(values):
    """Why a failure of the test is "not judged" when an exception with a traceback is among
    the arguments of its call of the function (or an item of one: structlog's event dict's
    ``exc_info``): frames never cross, so the code's copy has no ``__traceback__``; else None.
    ``values``: the call request's ``args`` and ``kwargs``."""
    given = [*(values.get("args") or ()), *(values.get("kwargs") or {}).values()]
    for value in list(given):
        if type(value) in (list, tuple):
            given.extend(value[:100])
        elif type(value) is dict:
            given.extend(list(value.values())[:100])
    for value in given:
        if issubclass(type(value), BaseException) and BaseException.__traceback__.__get__(
                value) is not None:
            return (f"the test's exception {type(value).__name__} crossed to the code under "
                    "test without its traceback (frames cannot cross): a failure may come "
                    "from its absence")
    return None


KEPT_LIMIT = 67
"""Length of a handle's making arguments (``[args, kwargs, handling]`` and those of the
request that made it) beyond which a later run's are no longer added (32 runs' arguments)."""

_SCALARS = frozenset({int, float, bool, complex, str, bytes, type(None)})


def _keepable(args, kwargs) -> bool:
    """Whether a later run of a handle was given what the handle can keep and change in a run
    after (a list, an object: not a number, a text, None)."""
    return any(type(v) not in _SCALARS for v in [*args, *kwargs.values()])


def _encoded(codec, value):
    """``value`` as ``codec`` sends it now (what it holds, at any depth, and which of the
    other side's objects it is), or None when it cannot be sent."""
    try:
        return codec.dumps(value)
    except Exception:  # noqa: BLE001 - (CannotCross: the reply then says so)
        return None


def _made_by_code(reason):
    """Whether a value the judge does not rebuild is of a class the code made (defined in a
    function, or at run time: ``exec``, ``type()``): the code's error, not the judge's doubt."""
    return "<locals>" in reason or "made at run time" in reason


_UNSET = object()


def _set(owner, name, value):
    """``owner.name = value`` (a module or a class); what :meth:`Subject.restore` undoes."""
    old = vars(owner).get(name, _UNSET)
    setattr(owner, name, value)
    return owner, name, old


def _cpu_rlimit(seconds):
    """Set this process's soft CPU limit to ``seconds`` (a process CPU time, capped at the
    hard limit); returns the soft limit it had, or None when it cannot be set."""
    import math
    import resource

    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
        wanted = seconds if type(seconds) is int or seconds == resource.RLIM_INFINITY else (
            math.ceil(seconds))
        if hard != resource.RLIM_INFINITY:
            wanted = min(wanted, hard)
        resource.setrlimit(resource.RLIMIT_CPU, (wanted, hard))
        return soft
    except (ValueError, OSError):
        return None


async def _awaited(value):
    return await value


# The judge's side of the call.


class SharedImports:
    """The judge's guard on what it imports from the ``/tmp`` it shares with the code under
    test (``folder``), where the code can write (a test's ``tmp_path`` on ``sys.path``, as
    ``monkeypatch.syspath_prepend`` puts it): a module file there that changed since the
    code's first process started, or whose bytecode in ``__pycache__`` did (its ctime, which
    no process can set back), is never imported by the judge. The import raises
    ``ImportError`` and ``refuse(reason)`` is told (the running test is "not judged"). A hook
    first on ``sys.path_hooks`` gives each folder of that file system a finder that checks the
    specs it finds, those pytest's assertion rewriter asks for too, and its loaders look at a
    module's file again once they read it (the code renaming its file over it after the
    finder looked); a file a test executes by its path (``runpy``, ``spec_from_file_location``,
    ``exec`` of its text) is :meth:`JudgeClient.audit`'s (:meth:`changed`).

    Every other folder gets such a finder too, against the processes a test starts (they run
    in the judge's sandbox, where the project and a virtualenv in it are writable: a script
    the code gave, on an interpreter's input, could plant a module pytest's process imports
    next): a module file made or changed since :meth:`install` that pytest's process did not
    write (:meth:`wrote`) is not imported; such bytecode is not read (the source is compiled
    again, as for a stale ``.pyc``: a ``python -m pkg`` the test ran writes the project's)."""

    def __init__(self, folder, refuse):
        self.folder = folder
        self.device = os.stat(folder).st_dev
        self.since = None  # the ctime of a file made as the code's first process started
        self.installed = None  # the same, as the guard was installed
        self.written = set()  # the files pytest's process wrote since (absolute paths)
        self.refuse = refuse

    def started(self):
        """The code's first process starts now: from here a new file of the folder may be
        its. Before it, what the judge imports is its own."""
        if self.since is None:
            self.since = self._now()

    def _now(self):
        """The ctime of a file made now (0 where none can be made: a full /tmp)."""
        marker = os.path.join(self.folder, f".codeteam-started-{os.getpid()}")
        try:
            fd = os.open(marker, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)
        except OSError:
            return 0
        try:
            return os.fstat(fd).st_ctime_ns
        finally:
            os.close(fd)
            os.unlink(marker)

    def wrote(self, path, mode=None, flags=None):
        """:meth:`JudgeClient.audit` of an ``open`` (or ``os.rename``'s target: ``mode``
        "w") in pytest's process: one that may write ``path`` makes it pytest's own. The
        path of a regular file out of the shared folder that is :meth:`planted`, read, else
        None (a test that reads what a process it started wrote there, rather than in its
        ``tmp_path``: the process may have run the code's text, given on its input)."""
        if type(path) not in (str, bytes):
            return None
        if type(mode) is str:
            writes = any(c in mode for c in "wax+")
        else:
            writes = type(flags) is int and flags & (os.O_ACCMODE | os.O_CREAT | os.O_TRUNC)
        name = os.path.abspath(os.fsdecode(path))
        if writes:
            if len(self.written) < 100000:
                self.written.add(name)
            return None
        try:
            if not os.path.isfile(name) or name.startswith(("/proc/", "/sys/", "/dev/")):
                return None
            if os.lstat(name).st_dev != self.device:  # (a link out of the shared folder to a
                return name if self.planted(name) else None  # file of it is out of it)
            # a file of the shared folder reached through a folder's link planted since (the
            # project's tests/data swapped for a link to a folder of the /tmp)
            return name if any(os.path.islink(head) and self.planted(head)
                               for head in _heads(name)) else None
        except (OSError, ValueError):
            return None

    def planted(self, path):
        """Whether ``path``, a file of a folder not shared with the code, was made or changed
        since :meth:`install` by a process other than pytest's (one a test started); a
        symbolic link, or the file it names."""
        try:
            newest = max(os.lstat(path).st_ctime_ns, os.stat(path).st_ctime_ns)
            return newest >= self.installed and os.path.abspath(path) not in self.written
        except (OSError, TypeError, ValueError):
            return False

    def install(self):
        from importlib import machinery

        guard = self

        class Source(machinery.SourceFileLoader):
            def get_data(self, path):  # (looked at again once read: the code could have
                data = super().get_data(path)  # renamed its file over it since find_spec)
                guard.check(self.path)
                return data

        class Sourceless(machinery.SourcelessFileLoader):
            def get_data(self, path):
                data = super().get_data(path)
                guard.check(self.path)
                return data

        details = [(machinery.ExtensionFileLoader, machinery.EXTENSION_SUFFIXES),
                   (Source, machinery.SOURCE_SUFFIXES),
                   (Sourceless, machinery.BYTECODE_SUFFIXES)]

        class Finder(machinery.FileFinder):
            def find_spec(self, fullname, target=None):
                spec = super().find_spec(fullname, target)
                if spec is not None and spec.has_location and type(spec.origin) is str:
                    guard.check(spec.origin)
                return spec

        def hook(path):
            if os.path.isdir(path or "."):
                return Finder(path, *details)
            raise ImportError("not a folder")  # (a zip archive: zipimport's own hook, whose
            # open of an archive of the shared /tmp changed since the code started the audit
            # refuses: JudgeClient.opened)

        self.installed = self._now()
        sys.path_hooks.insert(0, hook)
        sys.path_importer_cache.clear()

    def shared(self, path):
        try:
            return type(path) is str and os.stat(path or ".").st_dev == self.device
        except (OSError, ValueError):
            return False

    def check(self, origin):
        """Raise ``ImportError`` when ``origin`` (or its bytecode) changed since
        :meth:`started`, or, out of the shared folder, was :meth:`planted`."""
        if not self.shared(origin):
            if self.planted(origin):
                reason = (f"pytest's process was to import {origin[:300]}, made or changed "
                          "since the judge started by a process the test started (it may run "
                          "what the code under test gave): not imported")
                self.refuse(reason)
                raise ImportError(reason)
        elif self.changed(origin):
            reason = (f"pytest's process was to import {origin[:300]}, a file of the /tmp "
                      "it shares with the code under test, made or changed since the code "
                      "started (the code could have written it): not imported")
            self.refuse(reason)
            raise ImportError(reason)

    def changed(self, origin):
        """Whether ``origin`` (a path), or its bytecode, changed since :meth:`started`
        (False before it)."""
        if self.since is None:
            return False
        newest = 0
        try:
            newest = os.stat(origin).st_ctime_ns
            cache = os.path.join(os.path.dirname(origin), "__pycache__")
            stem = os.path.basename(origin).partition(".")[0] + "."
            with os.scandir(cache) as entries:
                for entry in entries:
                    if entry.name.startswith(stem):
                        newest = max(newest, entry.stat().st_ctime_ns)
        except (OSError, TypeError, ValueError):
            pass
        return newest >= self.since


def _heads(path):
    """The folders ``path`` (absolute) lies in, innermost first."""
    head = os.path.dirname(path)
    while head != os.path.dirname(head):
        yield head
        head = os.path.dirname(head)


class JudgeError(BaseException):
    """The judge's decision for the running test (the subject died, sent what cannot be
    judged, raised a pytest outcome...): a BaseException, so the test's own ``except
    Exception`` or ``pytest.raises(Exception)`` does not catch it. ``not_judged``: the
    judge cannot tell whether the code passed (a value that could not cross), rather than
    an error of the code."""

    def __init__(self, message, not_judged=False):
        super().__init__(message)
        self.not_judged = not_judged


class JudgeClient(Channel):
    """The judge's end: starts the subject, forwards calls, rebuilds answers. ``on_error``
    is told each decision (the :class:`JudgeError` it raises) even when the test catches it;
    ``timeout_error`` is raised for a call that used up its time; ``cpu_left()`` gives the
    CPU seconds the code may still use in the running test."""

    side = "judge"
    stepping = None  # the code's handle the next request runs (see ask)
    synced = None  # (a handle's _made_by, its encoding) when the last request ran a handle
    # made with them that left them as they were (see ask)

    def __init__(self, config, on_error, timeout_error, cpu_left):
        self.config = config
        self.on_error = on_error
        self.timeout_error = timeout_error
        self.cpu_left = cpu_left
        self.made_by = {}  # (see new_test)
        self.process = None  # the subject's channel (a socket)
        self.server = None  # the socket to the server that starts subjects
        self.starting = False  # a start request is under way on it
        self.server_wait = 0.0  # seconds the subjects waited for a CPU, at the last b"C"
        self.server_off_cpu = False  # no thread of theirs ran or waited then (see b"C")
        self.awaiting = False  # waiting for the code's process's answer (not serving it)
        self.globals = None
        self.snapshot = {}
        self.contents = {}
        self.sent_env = self.sent_path = self.sent_view = self.sent_logging = None
        self.sent_states = {}  # SHARED_STATES as the subject has them (KEPT_STATES: as sent)
        self.sent_filters = None  # the warning filters as the subject has them
        self.looked = (None, None)  # (_environ_look's, sys.path and cwd) at the last call
        self.generation = 0
        self.codec = Codec(True, self)
        self.codec.heard = self.heard
        self.pid = os.getpid()  # (a process the test forks has another: see ask)
        self.elsewhere = None  # what ask calls there (it raises)
        self.rfd = self.wfd = None
        self.depth = 0
        self.broken = None
        self.calls = threading.RLock()
        self.known_modules = 0
        self.stack_texts = {}  # (code, line) -> its frame's text in stack_of ("": codeteam's)
        self.watched = {}  # module name -> (module, its globals, its classes' attributes)
        self.libraries = set()  # the names of those that are library modules the others hold
        self.held = {}  # project module name -> its data globals' contents (see _held_data)
        self.test_modules = set()  # the names of the project's test modules and helpers
        self.test_files = frozenset()  # see Codec.test_files
        self.test_dirs = ()  # see Codec.test_dirs
        self.test_patterns = ()  # see Codec.test_patterns
        self.cpu = 0.0  # CPU seconds the code used in the running test
        self.crossing = 0.0  # CPU seconds this thread spent on its side of the test's calls
        self.served = 0.0  # CPU seconds of the test's callbacks served in the running call
        self.returned = []  # values the function returned in the running test (kept alive)
        self.pass_not_judged = None  # why a pass of the running test is "not judged": the
        # first of what the judge could not follow (an environment or working directory it did
        # not take over, warnings or log records beyond what it keeps)
        self.fail_not_judged = None  # why a failure of the running test is "not judged":
        # what crossed to the code with less than the test has (an exception's traceback)
        self.environ_refused = None  # see take_environ
        self.output_cut = None  # (why, whether the test's own stream took it) when the code
        # wrote more than the judge keeps of a call's output (this test)
        self.warning_registries = {}  # file -> the registry of the warnings the code issued
        # there (its module's __warningregistry__ in one process: "default" shows each once)
        self.imports = None  # the guard on the judge's imports from the shared /tmp
        shared = config.get("shared_tmp")
        if type(shared) is str and os.path.isdir(shared):
            self.imports = SharedImports(shared, lambda reason: self.on_error(
                JudgeError(reason, not_judged=True)))
            self.imports.install()
            sys.addaudithook(self.audit)  # (for good: the judge's process is codeteam's)
        self.code_texts = set()  # text the code returned in this run (as UTF-8)
        self.doctest_sources = frozenset()  # the doctest examples pytest collected (UTF-8):
        # the user's text, read before the code ran
        self.code_bytes = False  # whether it returned bytes in this run (pickled data, say)
        self.code_parsed = False  # whether a test parsed its text (ast.parse) in this run
        self.code_files = {}  # path -> ctime of a file of the shared /tmp the code could
        # have written that a test opened to read (its text is among code_texts)
        self.began = _time_ns()  # files changed since hold what this run wrote
        self.auditing = False  # (the audit hook's own reads are not audited)

    def new_test(self):
        self.cpu = self.crossing = 0.0
        self.returned = []  # (code_texts and code_bytes stay: text or bytes returned at an
        # import or in a module fixture are run or unpickled by a later test)
        self.pass_not_judged = self.output_cut = self.fail_not_judged = None
        self.environ_refused = None  # (why, the variables) the call changed and the judge
        # did not take over: a failure of a test that looks at them is "not judged"
        self.made_by = {}  # id(a coroutine of the test's the code called) -> (it, the
        # call's arguments): written back at each of its steps (serve_judge)

    def heard(self, value):
        """Remember a text or bytes value the judge decoded from the code's process (each
        one, at any depth, in any value that holds it: a deque, an exception's args, an
        object's state) that could be Python source (:func:`_source_like`), for
        :meth:`audit`: the code gave it. Not one the judge sent it, given back unchanged
        (munch's README example ``b.update({'ponies': 'are pretty!'})`` then runs the
        test's own text)."""
        if value in self.codec.said:
            return
        try:
            data = value.encode("utf-8", "surrogatepass") if type(value) is str else value
        except UnicodeError:
            return
        self.remember_text(data)
        if type(value) is bytes and len(data) >= 8:
            self.code_bytes = True

    def note_texts(self, value, depth=0, budget=None, pieces=None):
        """Remember the text and bytes in ``value`` (the code's answer: in lists, tuples,
        sets and dicts) joined without white space (:func:`_squeezed`: the pieces a test
        joins before running them, ``tokenize.untokenize(tokens)``, each under 8 bytes or a
        name; each text alone is remembered as decoded, :meth:`heard`). :meth:`ask` gives it
        the rest of each frame of the code's too (at ``depth`` -2: what the call wrote into
        its arguments, bound to module globals, set in the environment, printed or logged,
        and the arguments of the test's callbacks it calls)."""
        top = pieces is None
        budget = budget if budget is not None else [10000]
        pieces = [] if top else pieces
        budget[0] -= 1
        if budget[0] < 0 or depth > 4 or type(value) in _ATOMS:
            return
        if isinstance(value, (str, bytes, bytearray)):
            try:  # (the builtins' own methods: a project subclass's encode() is never run)
                data = str.encode(value, "utf-8") if isinstance(value, str) else bytes(
                    memoryview(value))
            except (UnicodeError, TypeError, ValueError):
                return
            pieces.append(data)
        else:
            for item in _parts_of(value):
                if type(item) not in _ATOMS:
                    self.note_texts(item, depth + 1, budget, pieces)
                elif budget[0] > 0:  # (counted, no call: one per int of a long list)
                    budget[0] -= 1
                else:
                    break
        if top and len(pieces) > 1:
            self.remember_text(_squeezed(b"".join(pieces)))

    def remember_text(self, data):
        """Add ``data`` to the texts :meth:`audit` looks for when it could be source."""
        if _source_like(data):
            if len(self.code_texts) >= TEXTS_KEPT:  # (any made source is refused then)
                self.code_texts = {b""}
            elif b"" not in self.code_texts:
                self.code_texts.add(data)

    def audit(self, event, args):
        """An audit hook: what the code made, compiled here by ``exec``, ``eval``,
        ``compile``, ``runpy`` or an import (not pytest's own, :func:`_by_pytest`) would run
        the code's own text in pytest's process, where it could change the verdict: it is
        refused, and the test is "not judged" (as under plain pytest it would run in the
        test's process). What the code made is

        - text it returned in this run (in the test, or at an import or in a fixture before
          it), as it was, with its white space changed (:func:`_squeezed`:
          ``textwrap.dedent``) or a piece of it (a fenced block sliced out), compiled under a name that is no file, or under the name of a
          file this run wrote (the test wrote the text into a file and runs or imports that)
          or that does not hold it (:meth:`_made_here`); or parsed by ``ast.parse`` and a tree
          then compiled (once the code's text was parsed, any tree the test compiles);
        - a file of the ``/tmp`` it shares with the judge, made or changed since the code
          started (:meth:`SharedImports.changed`: the code could have written it), compiled
          under its name (``runpy.run_path``), or read by the test (its text is then taken as
          text the code returned: ``exec(path.read_text())``; changed again after the test
          read it, any source the test makes is refused), or its bytecode read (a loader
          made by the file's path reads ``__pycache__``, where the code can write too)."""
        if self.auditing:
            return
        read = None
        if event in ("open", "os.rename", "os.symlink") and self.imports is not None:
            read = self.imports.wrote(args[0] if event == "open" else args[1],
                                      *(args[1:3] if event == "open" else ("w",)))
        if read is not None:
            why = (f"the test reads {read[:300]}, made or changed since the judge started by a "
                   "process the test started (it may run what the code under test gave)")
            if read.endswith((".pyc", ".pyo")):  # (an import's or pytest's assertion
                # rewriter's: both compile the source again, as for a stale .pyc)
                raise OSError(errno.EACCES, "bytecode a test's process wrote is not read", read)
            if read.endswith(_SCRIPT_SUFFIXES[:4]):  # (a module a loader of importlib's
                # reads, found by a finder not the judge's: an editable install's): refused
                self.fail(why + ": pytest's process does not run it", not_judged=True)
            self.not_judged_if_passed(why)
        if event == "pickle.find_class" and self.code_bytes and len(args) == 2:
            return self.unpickled(*args)
        if event == "open" and self.imports is not None and self.imports.since is not None:
            look, given = self.opened, args[:3]
        elif event in _PROCESS_EVENTS and (self.code_texts or self.imports is not None):
            look, given = self.starts, (event, args)
        elif event == "marshal.load" and self.code_files and not _by_pytest(_LOADERS):
            return self.ran_text()  # (from a file, unseen: the test read one the code may
            # have written)
        elif event in _CODE_EVENTS and self.code_texts and args and type(args[0]) is bytes:
            look, given = self.made_code, (args[0],)
        elif event == "compile" and len(args) >= 2 and not _by_pytest(_OWN_COMPILERS):
            look, given = self.compiled, args[:2]
        else:
            return None
        self.auditing = True  # (what the look itself opens or compiles is not looked at)
        try:
            return look(*given)
        finally:
            self.auditing = False

    def compiled(self, source, filename):
        """:meth:`audit` of a ``compile`` of ``source`` (bytes, or a tree) as ``filename``."""
        name = os.fsdecode(filename) if type(filename) in (str, bytes) else None
        if (self.imports is not None and name is not None and not _made_source(name)
                and self.imports.shared(name) and self.imports.changed(name)):
            self.fail(f"the test runs {name[:300]}, a file of the /tmp it "
                      "shares with the code under test, made or changed since the code "
                      "started: pytest's process does not run what the code could have "
                      "written", not_judged=True)
        if not self.code_texts:
            return
        if not isinstance(source, bytes):  # a tree compiled, after one of the code's text
            if self.code_parsed:  # (pytest's rewriting of test modules is not audited)
                self.ran_text()
            return
        if source in self.doctest_sources:  # a docstring's example: the user's text
            return
        texts = list(self.code_texts)
        squeezed = _squeezed(source)
        part = _source_like(squeezed)  # (a piece of a text: a fenced block cut out of it)
        if any(text in source or part and source in text for text in texts) or any(
                text in squeezed or part and squeezed in text
                for text in map(_squeezed, texts) if _source_like(text)):
            if not self._made_here(source, filename):
                return
        elif not (self.code_files and _made_source(filename) and any(
                _ctime(path) != ctime for path, ctime in self.code_files.items())):
            return  # (else a file it read changed since: its text may be this source)
        if _parsing():  # ast.parse's: a tree runs nothing until compiled (hypothesis's
            self.code_parsed = True  # printer parses a repr, after its database's
            return  # temporary file in /tmp was read and replaced)
        self.ran_text()

    def made_code(self, data):
        """:meth:`audit` of a code object made from bytes (``marshal.loads`` of them, the
        bytecode of a ``types.CodeType`` or ``code.replace``), not by an import: bytes the code
        gave are code it made, which would run in pytest's process (``exec``, ``FunctionType``
        of it) though no source was compiled: refused, as :meth:`ran_text`."""
        if any(text in data or len(data) >= 8 and data in text for text in self.code_texts) and (
                not _by_pytest(_LOADERS)):  # (or a piece of one: a .pyc's code after its header)
            self.ran_text()

    def starts(self, event, args):
        """:meth:`audit` of a process the test starts (``subprocess``, ``os.system``, an
        ``exec`` or ``spawn``): one whose command holds text the code gave (``python -c``
        of a script a function made) or names a file of the shared ``/tmp`` changed since the
        code started that it may run (:meth:`_script`: a script it wrote) would run the
        code's text beside pytest's process, in the judge's sandbox, where it can write what
        pytest's process reads or imports next: refused. Not looked at: its environment, a
        returned text that is the path of a file (a data file a program reads, ``tar tf``),
        a file given to a program that runs it under another name or by its input."""
        parts = _command_parts(args[:2] if event == "os.exec" or event == "os.posix_spawn"
                               else args[1:3] if event == "os.spawn" else args[:1] if
                               event == "os.system" else args[:2])
        texts = list(self.code_texts)
        words = [w for part in parts if len(part.split()) > 1 for w in part.split()[:100]]
        for index, part in enumerate(parts + words):  # (a shell's command line in words)
            if texts and any(text in part and not os.path.exists(text) and _runs_as_code(text)
                             for text in texts):
                break  # (a path the code gave, to a file a program reads: the file's look)
            if self.imports is not None and self._script(os.fsdecode(part), index == 0):
                break
        else:
            return
        self.fail("the test runs text the code under test returned in a process of its own "
                  "(a command holding it, or a file the code could have written): that process "
                  "would run beside pytest's, in the judge's sandbox", not_judged=True)

    def _script(self, name, program):
        """Whether ``name``, a part of a command, is a file of the shared ``/tmp`` changed
        since the code started that the process may run: the ``program`` itself, an
        executable file, or one named as a script (``.py``, ``.sh``: ``python path``)."""
        import stat

        try:
            if not os.path.isabs(name) or not self.imports.shared(name):
                return False
            info = os.stat(name)
        except (OSError, ValueError):
            return False
        runs = program or info.st_mode & 0o111 or name.endswith(_SCRIPT_SUFFIXES)
        return bool(runs) and stat.S_ISREG(info.st_mode) and self.imports.changed(name)

    def _made_here(self, source, filename):
        """Whether ``source`` compiled as ``filename`` was made in this run: a name that is
        no file (``"<string>"``, ``"<generated>"``), or a file changed since the judge
        started (the test wrote it) or that does not hold ``source``, whole or as a piece
        (a python block of a README.md the test runs, compiled under the README's name, is
        that file's text; in a file over :data:`FILE_LOOKED_AT` bytes only its whole text)."""
        if _made_source(filename):
            return True
        try:
            if os.stat(filename).st_ctime_ns >= self.began:
                return True
            with open(filename, "rb") as file:
                data = file.read(FILE_LOOKED_AT + 1)
        except (OSError, ValueError):
            return True
        if len(data) > FILE_LOOKED_AT:
            return data[: len(source) + 1] != source
        return source not in data

    def opened(self, path, mode=None, flags=None):
        """:meth:`audit` of an ``open`` of ``path``: a regular file of the shared ``/tmp``
        changed since the code started, opened to read, has its text remembered as text
        the code returned (one over :data:`FILE_LOOKED_AT` bytes: any source the test makes
        from then on is refused, as past :data:`TEXTS_KEPT` texts); its bytecode (a ``.pyc`` a loader made by its
        path reads, ``spec_from_file_location``) or an archive ``zipimport`` reads is
        refused."""
        if type(path) not in (str, bytes) or (type(mode) is str and "r" not in mode
                                               and "+" not in mode):
            return
        if type(mode) is not str and type(flags) is int and flags & os.O_ACCMODE == os.O_WRONLY:
            return
        name = os.fsdecode(path)
        if not self.imports.shared(name) or not self.imports.changed(name):
            return
        if name.endswith((".pyc", ".pyo")) or _by_pytest(("zipimport",)) and _zip(name):
            # (a loader made by its path, a zipimporter of an archive: no compile, or under
            # a name that is no file)
            self.fail(f"the test loads {name[:300]}, bytecode or an archive in the /tmp it "
                      "shares with the code under test, made or changed since the code "
                      "started: pytest's process does not run what the code could have "
                      "written", not_judged=True)
        import stat

        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            return
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                return
            data = os.read(fd, FILE_LOOKED_AT + 1)
        except OSError:
            return
        finally:
            os.close(fd)
        self.code_files[name] = info.st_ctime_ns
        self.code_bytes = True  # (a pickle the code wrote: what it names is looked at)
        if len(data) > FILE_LOOKED_AT:  # too large to look for: any source made is refused
            self.code_texts = {b""}
        else:
            self.remember_text(data)

    def ran_text(self):
        """The running test compiled text the code returned (:meth:`audit`): not judged."""
        self.fail("the test runs text the code under test returned (exec or eval of it): "
                  "pytest's process does not run the code's own text", not_judged=True)

    def unpickled(self, module, name):
        """Once the code returned bytes in the run (``pickle.loads(dump(x))``, or bytes a test
        module made at its import), what an unpickler
        looks up by name (``pickle.find_class``) must be what the judge takes from the code by
        name (:meth:`~codeteam.execution.pytest_codec.Codec.safe_reference`: the project's
        own, harmless builtins, pure standard modules), already imported: anything else (a
        ``builtins.exec``, ``operator.attrgetter``) would let the code's bytes run code in
        pytest's process; the test is "not judged"."""
        found = sys.modules.get(module) if type(module) is str else None
        parts = name.split(".") if type(name) is str else [""]
        for part in parts:
            if found is None or not part or part.startswith("_"):
                found = None
                break
            found = vars(found).get(part) if isinstance(found, (type, type(sys))) else None
        if found is None or not self.codec.safe_reference(found):
            self.fail(f"the test unpickles data of the code under test that names "
                      f"{str(module)[:100]}.{str(name)[:100]}, which the judge does not take "
                      "from the code: pytest's process does not run it", not_judged=True)

    # -- the subject's life ------------------------------------------------------------------

    def start(self):
        """A fresh subject, asked of the server (``$CODETEAM_SUBJECT_FD``: ``b"S"`` answered
        with ``b"S"`` and the channel's descriptor, or ``b"E"`` and one line saying why)."""
        import socket

        self.generation += 1
        if self.imports is not None:
            self.imports.started()  # (before the code can write)
        frames = self.codec.stack_frames  # (those of the call starting it: see forward)
        self.codec = Codec(True, self)
        self.codec.stack_frames = frames
        self.codec.heard = self.heard
        self.codec.generation = self.generation
        root = self.config.get("root")
        self.codec.roots = (str(root),) if type(root) is str else None
        self.codec.test_files, self.codec.test_dirs = self.test_files, self.test_dirs
        self.codec.test_patterns = self.test_patterns
        if self.globals is not None:
            self.codec.remember_globals(self.globals)
        if self.server is None:
            self.server = socket.socket(fileno=int(os.environ.pop("CODETEAM_SUBJECT_FD")))
        self.starting = True  # (a signal handler's server_cpu does not interleave)
        try:
            self.server.sendall(b"S")
            answer, fds, _, _ = socket.recv_fds(self.server, 1, 1)
            if answer != b"S" or len(fds) != 1:
                for fd in fds:
                    os.close(fd)
                line = answer
                while line and not line.endswith(b"\n"):
                    more = self.server.recv(1)
                    line += more
                    if not more:
                        break
                raise OSError("the server started no process for the code under test: "
                              + line[1:].decode("utf-8", "replace").strip())
        finally:
            self.starting = False
        self.process = socket.socket(fileno=fds[0])
        self.rfd = self.wfd = self.process.fileno()
        self.sent_env = self.sent_path = self.sent_logging = self.sent_filters = None
        self.sent_states = {}
        self.sent_view = (self.plain(), tuple(self.codec.global_names()))
        config = dict(self.config, sys_path=[os.path.abspath(p or ".") for p in sys.path],
                      cwd=os.getcwd(), globals=self.codec.global_names(), plain=self.plain())
        send_frame(self.wfd, self.codec.dumps(config))
        ready = self.codec.loads(receive_frame(self.rfd, _monotonic() + self.import_limit()))
        if type(ready) is not dict or ready.get("kind") != "ready":
            raise ValueError("a malformed first answer")
        self.share(ready.get("modules"))

    def import_limit(self):
        """Wall-clock seconds a subject's import of the code under test may take (the
        policy's ``import_timeout_s``)."""
        limit = self.config.get("import_limit")
        return float(limit) if type(limit) in (int, float) and limit > 0 else 60.0

    def server_cpu(self):
        """CPU seconds this run's subjects used so far, as the server measures them (``b"C"``
        on ``$CODETEAM_SUBJECT_FD``), or None: no server yet, a start in progress on that
        socket (a signal handler asks), or no answer. The seconds they waited for a CPU, in
        the same answer, are kept in :attr:`server_wait`."""
        if self.server is None or self.starting:
            return None
        try:
            self.server.settimeout(5.0)
            self.server.sendall(b"C")
            line = b""
            while not line.endswith(b"\n") and len(line) < 64:
                more = self.server.recv(1)
                if not more:
                    return None
                line += more
            if not line.startswith(b"C"):
                return None
            cpu, wait, *off = line[1:].split()
            self.server_wait = float(wait)
            self.server_off_cpu = off == [b"1"]
            return float(cpu)
        except (OSError, ValueError):
            return None
        finally:
            try:
                self.server.settimeout(None)
            except OSError:
                pass

    def plain(self):
        """Whether the view binds the judged name to a plain function of that name (the
        user's ``def`` has no decorator): the subject then calls exactly what the candidate
        binds the name to."""
        import inspect
        import types

        found = self.globals
        if found is None or type(self.config.get("qualname")) is not str:
            return False
        try:
            found = found[self.config["qualname"].split(".")[0]]
            for part in self.config["qualname"].split(".")[1:]:
                found = inspect.getattr_static(found, part)
        except (KeyError, AttributeError, TypeError):
            return False
        return isinstance(found, types.FunctionType) and "__wrapped__" not in vars(found) and (
            found.__name__ == self.config["qualname"].rsplit(".", 1)[-1])

    def share(self, modules):
        """The modules whose classes and functions the judge sends by name or state: those it
        knows the subject can import by name (:func:`importable_modules`, the judge's own
        decision) and ``modules``, the subject's list (which can add, never take away)."""
        listed = {m for m in modules if type(m) is str} if type(modules) is list else set()
        self.codec.shared = listed | importable_modules()

    def end(self, quit=False):
        """End the subject (closing its channel ends its sandbox); how it ended (text)."""
        channel, self.process = self.process, None
        if channel is None:
            return "it was not running"
        if quit:
            try:
                send_frame(self.wfd, self.codec.dumps({"kind": "quit"}))
            except Exception:  # noqa: S110, BLE001
                pass
        channel.close()
        self.rfd = self.wfd = None
        return "its process ended"

    def close(self):
        if self.process is not None:
            self.end(quit=True)

    # -- calls -------------------------------------------------------------------------------

    def imported(self, space):
        """The judge view's module namespace, right after its import."""
        self.globals = space
        self.snapshot = dict(space)
        self.codec.remember_globals(space)
        self.contents = {}  # small list/dict/set globals: their encoding, to see setitem
        for name, value in self.snapshot.items():
            if type(value) in (list, dict, set) and not _is_dunder(name):
                found = _contents(value)
                if found is not None:
                    self.contents[name] = found

    def found_globals(self, name):
        """The globals of the project's module ``name`` as :meth:`watch_modules` found them
        (a dict), or None when it did not look at that module."""
        known = self.watched.get(name)
        return known[1] if type(known) is tuple and type(known[1]) is dict else None

    def watch_modules(self):
        """Remember the globals (and class attributes) of the project's modules imported so
        far, and the globals of the library modules they hold, as they are now: what a test
        rebinds later (``config.FACTOR = 5``, ``monkeypatch.setattr(other_module, ...)``,
        ``mock.patch("time.sleep")``) is sent with each call (:meth:`states`)."""
        for name, module in list(sys.modules.items()):
            if name in self.watched or module is None or forbidden(name):
                continue
            if self.globals is not None and vars(module) is self.globals:  # the view: its
                self.watched[name] = (module, None, {  # classes (its globals: changed_globals)
                    key: dict(vars(value)) for key, value in list(self.globals.items())
                    if isinstance(value, type) and vars(value).get("__module__") == name})
                self.held[name] = {key: found for key, found in _held_data(  # and the
                    self.globals).items() if type(found[0]) not in (list, dict, set)}  # objects
                # it holds, whose attributes the test sets (its containers: changed_globals)
                continue
            path = getattr(module, "__file__", None)
            base = os.path.basename(path) if type(path) is str else ""
            if not self.codec.own(name) or base.startswith("test_") or base == "conftest.py" or (
                    self.codec.of_tests(name)):  # (a test module, a helper of the tests)
                self.watched[name] = None
                if self.codec.own(name) or self.codec.of_tests(name):  # (tests/ beside src/)
                    self.test_modules.add(name)
                continue
            space = vars(module)
            self.watched[name] = (module, dict(space), {
                key: dict(vars(value)) for key, value in list(space.items())
                if isinstance(value, type) and getattr(value, "__module__", None) == name})
            self.held[name] = _held_data(space)
        for name, known in list(self.watched.items()):  # the library modules they hold
            # (`import time`): what the test patches there (mock.patch("time.sleep")) the
            # code sees too
            held = [] if known is None or name in self.libraries else list(vars(known[0]).values())
            for module in held:
                other = getattr(module, "__name__", None) if isinstance(module, type(sys)) else None
                if type(other) is str and self.watched.get(other) is None and not forbidden(
                        other) and sys.modules.get(other) is module:
                    self.watched[other] = (module, dict(vars(module)), {})
                    self.libraries.add(other)
        for name in list(self.test_modules):  # the libraries the tests take their tools
            # from (`from freezegun import freeze_time`): the state their patches consult
            # (freezegun's `freeze_factories`, read by the `FakeDatetime.now` it puts into
            # `datetime`) is sent too, changes in place included (changed_in_place)
            module = sys.modules.get(name)
            for value in list(vars(module).values()) if module is not None else ():
                held = getattr(value, "__name__", None) if isinstance(value, type(sys)) else None
                if type(held) is str and self.watched.get(held) is None and not forbidden(
                        held) and not _tooling(held) and (
                        sys.modules.get(held) is value) and not self.codec.own(held):
                    # a module the tests hold (`import datetime`): what they patch there
                    # (freezegun's FakeDatetime) the code sees too, as in the project's
                    self.watched[held] = (value, dict(vars(value)), {})
                    self.libraries.add(held)
                other = _library_of(value)
                if other is None or self.watched.get(other) is not None or forbidden(
                        other) or self.codec.own(other) or _tooling(other):
                    continue
                library = sys.modules.get(other)
                if library is None or not getattr(library, "__file__", None):
                    continue
                self.watched[other] = (library, dict(vars(library)), {})
                self.libraries.add(other)
                self.held[other] = _held_data(vars(library))

    def states(self):
        """``[module, class or None, name, value]`` of what the test rebound since
        :meth:`watch_modules` in the project's other modules and their classes, and in the
        library modules they hold."""
        found = []
        for name, known in list(self.watched.items()):
            if known is None:
                continue
            module, before, classes = known
            space = vars(module)
            for key, value in list(space.items()) if before is not None and not _same(
                    space, before) else ():
                if before.get(key, _UNSET) is value or key in _RUNNERS.get(name, ()):
                    continue
                if not _is_dunder(key):
                    found.append([name, None, key, value])
                elif name == "builtins":  # (`__import__`: the code's process imports with
                    self.fail(f"the test rebound builtins.{key}; the code's process has its "
                              "own", not_judged=True)  # its own; a callback there would
                    # serve the subject's own imports)
            for cls, attrs in classes.items():
                owner = space.get(cls)
                for key, value in (list(vars(owner).items()) if isinstance(owner, type) and (
                        not _same(vars(owner), attrs)) else []):
                    if attrs.get(key, _UNSET) is not value and not _is_dunder(key):
                        found.append([name, cls, key, value])
            found.extend(self.changed_in_place(name, module))
        # what cannot cross stays the judge's: the code's process keeps its own, but for a
        # library module's global (schedule's tests: `datetime.datetime = MockDate`, a class
        # made in a test's function), which the code would read as the library's own
        sent = []
        for entry in found:
            if self.codec._sendable(entry[3]):
                sent.append(entry)
                continue
            over = _over_date(entry[3]) if entry[0] in self.libraries else None
            if over is not None and self.codec._sendable(over[2]):
                sent.append([entry[0], ":over", entry[2], over])
            elif entry[0] in self.libraries and entry[1] is None:
                what = (f"the class {_codec._name(entry[3])}" if isinstance(entry[3], type)
                        else f"an object of {_codec._name(type(entry[3]))}")
                self.fail(f"the test rebound {entry[0]}.{entry[2]} to what cannot cross to the "
                          f"code under test ({what}); the code's process has the library's own",
                          not_judged=True)
        return sent

    def context_vars(self):
        """``[module, name, key or None, variable's name, value]`` of the context variables
        the project's modules hold (a global, or an item of a global dict: structlog's
        ``_CONTEXT_VARS``) that the test's context sets (``contextvars``: the code's process
        has a context of its own); None when it sets none. A value that cannot cross makes
        the test "not judged"."""
        import contextvars

        context = contextvars.copy_context()
        if not len(context):
            return None
        held = {}
        spaces = [(self.config.get("module"), self.globals or {})] + [
            (name, vars(known[0])) for name, known in list(self.watched.items())
            if known is not None and known[1] is not None and name not in self.libraries]
        for module, space in spaces:
            for key, value in list(space.items()):
                if type(value) is contextvars.ContextVar:
                    held[id(value)] = [module, key, None]
                elif type(value) is dict:
                    for item, var in list(value.items()):
                        if type(var) is contextvars.ContextVar and type(item) is str:
                            held[id(var)] = [module, key, item]
        found = []
        for var, value in context.items():
            where = held.get(id(var))
            if where is None:
                continue
            if not self.codec._sendable(value):
                self.fail(f"the test's context variable {var.name!r} holds what cannot cross "
                          f"to the code under test (an object of {_codec._name(type(value))})",
                          not_judged=True)
            found.append([*where, var.name, value])
        return found or None

    def changed_in_place(self, name, module):
        """What the test changed in place, since :meth:`watch_modules`, in the data a project
        module ``name`` holds (``_TRANSLATIONS[locale] = ...``, ``_CURRENT.locale = ...`` on a
        ``threading.local``): a dict's changed items (``[name, ":items", key, [{key: value},
        [removed keys]]]``, so what the code reads of the others is its own), a list's or set's
        new value (as a rebinding), an object's changed attributes (``[name, ":attrs", key,
        {attribute: value}]``). An item the judge cannot send as a value crosses as the test's
        object: the code's use of it makes the test "not judged", never a silent difference."""
        found = []
        space = vars(module)
        for key, (value, before) in list(self.held.get(name, {}).items()):
            if space.get(key, _UNSET) is not value:
                continue  # rebound: sent as such (states)
            if type(value) is dict:
                try:
                    now = dict(value)
                    changed = {k: v for k, v in now.items()
                               if k not in before or before[k] is not v}
                    removed = [k for k in before if k not in now]
                except Exception:  # noqa: S112, BLE001 - a key whose hash or == fails
                    continue
                if changed or removed:
                    found.append([name, ":items", key, [changed, removed]])
            elif type(value) in (list, set):
                if _differ(_small_contents(value), before):
                    found.append([name, None, key, value])
            else:
                attrs = _instance_attrs(value)
                if attrs is None:
                    continue
                changed = {k: v for k, v in attrs.items() if not _is_dunder(k) and (
                    before.get(k, _UNSET) is not v or type(v) in (list, dict, set) and (
                        _differ(_small_contents(v), before.get((":contents", k)))))}
                if changed:
                    found.append([name, ":attrs", key, changed])
        return found

    def changed_globals(self):
        """The module's globals the test rebound (``monkeypatch.setattr``) or whose small
        list/dict/set it changed in place (``monkeypatch.setitem``) since the import."""
        if self.globals is None:
            return {}
        found = {name: value for name, value in list(self.globals.items())
                 if not _is_dunder(name) and (
                     name not in self.snapshot or self.snapshot[name] is not value
                     or name in self.contents and _contents(value) != self.contents[name])}
        if self.globals.get("__spec__", _UNSET) is None and self.snapshot.get(
                "__spec__") is not None:  # (humanize: `monkeypatch.setattr(i18n, "__spec__",
            found["__spec__"] = None  # None)`, read by the code to find its package's files)
        return found

    def deleted_globals(self):
        """The module's globals the test deleted (``monkeypatch.delattr``), ``__spec__``
        included: the code's own lookups then fail as they would in one process."""
        if self.globals is None:
            return []
        return [name for name in self.snapshot if name not in self.globals and (
            not _is_dunder(name) or name == "__spec__")]

    def mirror(self, changed):
        """The data the call changed in the code's process (``changed``: ``[module, class or
        None, name, value]``), made the same here, in the view's namespace, the project's
        other modules :meth:`watch_modules` watches and their classes (never the library
        modules it watches for the test's patches: the code cannot change the judge's
        ``re`` cache or ``warnings`` filters): a list, dict or set
        held there is updated in place (names the tests imported see it), anything else
        rebound; it is then the state both processes share (not sent back as the test's)."""
        import types

        if self.globals is None or type(changed) is not list:
            return
        view = self.config.get("module")
        judged = str(self.config.get("qualname") or "").split(".")[0]
        for entry in changed:
            if type(entry) is not list or len(entry) != 4:
                continue
            module, cls, name, fresh = entry
            if type(module) is not str or type(name) is not str or _is_dunder(name) or (
                    cls is not None and type(cls) is not str) or isinstance(
                    fresh, types.ModuleType) or callable(fresh) and (not _data_global(
                    name, fresh) or getattr(type(fresh), "__module__", None) == _codec.__name__):
                # (a function, class or method, a handle of the code's: the judge's stay; a
                # callable object the code made, `counter = Counter()`, is data)
                continue
            known = self.watched.get(module)
            if module == view:
                space = self.globals
                if cls is None and name == judged:
                    continue
            elif known is None or known[1] is None or module in self.libraries:
                continue  # not a project module (a library's are the test's to patch)
            else:
                space = vars(known[0])
            if cls == ":attrs":  # attributes the call set on an object the module holds
                self._set_attributes(module, space.get(name), name, fresh)
                continue
            if cls is None:
                old = space.get(name, _UNSET)
                if old is not fresh:
                    if type(old) is type(fresh) and type(old) in (list, dict, set):
                        _update(old, fresh)
                    else:
                        space[name] = fresh
                value = space[name]
                if module == view:
                    self.snapshot[name] = value
                    found = _contents(value) if type(value) in (list, dict, set) else None
                    if found is None:
                        self.contents.pop(name, None)
                    else:
                        self.contents[name] = found
                else:
                    known[1][name] = value
                    held = self.held.get(module)
                    if held is not None and name in held:
                        held.update(_held_data({name: value}))
                continue
            owner = space.get(cls)
            if not isinstance(owner, type) or vars(owner).get("__module__") != module:
                continue
            try:
                setattr(owner, name, fresh)
            except (AttributeError, TypeError):
                continue
            if known is not None and cls in known[2]:
                known[2][cls][name] = fresh

    def _set_attributes(self, module, holder, name, fresh):
        """:meth:`mirror` of ``[module, ":attrs", name, fresh]``: the attributes the call set
        on the object ``holder`` that ``module`` holds as ``name`` (a ``threading.local``, a
        settings object), set on the judge's; then what both processes share (not sent back
        as the test's change)."""
        if type(fresh) is not dict or _instance_attrs(holder) is None:
            return
        for key, item in fresh.items():
            if type(key) is str and not _is_dunder(key):
                try:
                    setattr(holder, key, item)
                except Exception:  # noqa: S112, BLE001 - a slot or property that refuses
                    continue
        held = self.held.get(module)
        if held is not None and name in held and held[name][0] is holder:
            held.update(_held_data({name: holder}))

    def take_environ(self, changed, removed):
        """The environment variables the call set (``changed``) or removed, set here too, as
        one process would show them to the test; one that makes the programs a test may
        start run other code (:func:`_runs_code`) is not taken over: the test is then "not
        judged" when it passes, and when it fails in a test whose source names the variable,
        ``environ``, ``getenv`` or ``subprocess`` (:attr:`environ_refused`; python-dotenv's test
        reads the ``PYTHON_DOTENV_DISABLED`` its ``.env`` sets: a failure there is the judge's
        doing; a failure of a test that never looks is the code's)."""
        if type(changed) is not dict or type(removed) is not list:
            return
        names = [*changed, *removed]
        refused = sorted(str(n) for n in names if type(n) is not str or _runs_code(n))
        if refused:
            why = (f"the code under test changed the environment variable "
                   f"{', '.join(refused)[:200]}, which the judge does not take over (the "
                   "programs a test starts would run what it names)")
            self.not_judged_if_passed(why)
            self.environ_refused = self.environ_refused or (why, refused)
        try:
            for name, value in changed.items():
                if type(name) is str and not _runs_code(name):
                    os.environ[name] = str(value)
            for name in removed:
                if type(name) is str and not _runs_code(name):
                    os.environ.pop(name, None)
        except (ValueError, OSError) as error:  # a name with "=" or a NUL
            self.fail(f"the code under test set an environment variable the judge cannot "
                      f"({error})", not_judged=True)
        self.sent_env = dict(os.environ)
        self.looked = (None, self.looked[1])  # (the look before the take-over is no more
        # what the code's process holds: a test that puts os.environ back as it was then,
        # byte for byte, must have it sent)

    def take_cwd(self, path):
        """The working directory the call changed to (``os.chdir`` in the code), made the
        judge's too, as one process would have it for the rest of the test (a test that checks
        the code restores it); one the judge cannot enter (a folder of the subject's own, or
        removed: None) is not taken over: a pass of this test is then "not judged". The
        judge's relative ``sys.path`` entries (a conftest's ``"src"``) keep the folders they
        named: the code's folder of the shared ``/tmp`` is never where the judge imports from."""
        try:
            if type(path) is not str:
                raise FileNotFoundError("the code removed it")
            here = os.getcwd()
            sys.path[:] = [os.path.join(here, entry) if type(entry) is str and not
                           os.path.isabs(entry) else entry for entry in sys.path]
            os.chdir(path)
        except (OSError, ValueError) as error:
            self.not_judged_if_passed("the code under test changed its working directory to "
                                      f"one the judge cannot enter ({_described(error)})")

    def take_context(self, entries):
        """Set in the test's context the context variables the code set in its process
        (:meth:`Subject.context_changed`'s ``[module, name, key, label, value]``), as one process
        would have them: the project's modules' own (a global, or an item of a global dict),
        the ones :meth:`context_vars` looks at; another, the judge cannot set: "not judged"."""
        import contextvars

        spaces = {self.config.get("module"): self.globals or {}}
        spaces.update((name, vars(known[0])) for name, known in list(self.watched.items())
                      if known is not None and known[1] is not None
                      and name not in self.libraries)
        for entry in entries:
            module, name, key, label, value = entry if type(entry) is list and len(
                entry) == 5 else (None, None, None, None, None)
            holder = spaces.get(module, {}).get(name) if type(name) is str else None
            if type(holder) is dict:
                holder = holder.get(key) if type(key) is str else None
            if type(holder) is not contextvars.ContextVar:
                self.fail(f"the code under test set the context variable {label!r} "
                          "(contextvars), which the test's modules do not hold: the judge "
                          "cannot set it in the test's context", not_judged=True)
            holder.set(value)

    def not_judged_if_passed(self, reason):
        """A pass of the running test is "not judged" for ``reason`` (what the judge could not
        follow of the code's doing); a failure stays one. The first reason of a test is kept."""
        if self.pass_not_judged is None:
            self.pass_not_judged = reason

    def forward(self, args, kwargs, awaited=None, caller=None):
        """The view's call of the judged function; ``awaited``: whether the view's function
        is an ``async def`` (the subject then runs the code's coroutine to completion; a
        plain ``def``'s coroutine crosses as a handle, as any value it returns); ``caller``:
        the frame that called the view's function (the code is called from frames standing
        for its stack: :func:`_codec.mirrored`)."""
        __tracebackhide__ = True
        outer, self.codec.stack_frames = self.codec.stack_frames, {}
        try:
            stack = self.stack_of(caller) if caller is not None and not awaited else None
            value = self.call_handle(None, args, kwargs, awaited, stack)
        finally:
            self.codec.stack_frames = outer  # (a frame of this call's no longer resolves)
        self.returned.append(value)
        return value

    def stack_of(self, frame):
        """The text :func:`_codec.mirrored` reads of the frames from ``frame`` outward,
        outermost first (codeteam's own left out: plain pytest has none): each frame's
        module name, function name, qualified name, file, first line and line, numbered by
        their place (from 1) in :attr:`Codec.stack_frames` for the call (a frame of them the
        code returns is the test's own)."""
        found, texts, cache = [], [], self.stack_texts
        while frame is not None and len(found) < 1000:
            code = frame.f_code
            key = (code, frame.f_lineno)
            text = cache.get(key)
            if text is None:
                module = frame.f_globals.get("__name__")
                text = "" if type(module) is str and module.startswith((
                    "_codeteam", "codeteam.")) else "\0".join([
                        module if type(module) is str else "", code.co_name,
                        getattr(code, "co_qualname", code.co_name), code.co_filename,
                        str(code.co_firstlineno), str(frame.f_lineno or code.co_firstlineno)])
                if len(cache) > 10_000:
                    cache.clear()
                cache[key] = text
            if text:
                found.append(frame)
                texts.append(text)
            frame = frame.f_back
        found.reverse()
        self.codec.stack_frames.update(enumerate(found, 1))
        return "\1".join(reversed(texts))

    def call_handle(self, proxy, args, kwargs, awaited=None, stack=None, hook=None):
        """A call of the code's function (``proxy`` None) or handle; ``hook``: that hook of
        :data:`~codeteam.execution.pytest_codec.HOOK_CALLS` run on the code's object
        ``proxy`` (a :class:`~codeteam.execution.pytest_codec.RemoteObject`: its ``repr``; a
        stream's method, run on the code's stream: ``_stream``)."""
        __tracebackhide__ = True
        if proxy is not None:
            self.check_handle(proxy)
        entered = self.entering()
        request = {"kind": "call", "handle": None if proxy is None else proxy._handle[1],
                   "args": list(args), "kwargs": dict(kwargs)}
        if hook is not None:
            request["hook"] = hook
        if stack:
            request["stack"] = stack
        if awaited is not None:
            request["awaited"] = awaited
        try:
            with self.calls:  # one call at a time on the channel, whatever thread the test runs
                self.stepping = proxy  # (see ask)
                value = self.ask(request)
        finally:
            self.leaving(entered)
        self.note_texts(value)
        return value

    def next_handle(self, proxy, *sent, step=None):
        """``next`` of the code's iterator, or its ``send(*sent)`` (a generator's, a
        coroutine's), or the coroutine's ``step`` (``{"throw": error}``, ``{"close": True}``).
        What the code's coroutine yields to the test's event loop is None or the loop's own
        future it awaits (a handle there, itself here); anything else is not judged."""
        __tracebackhide__ = True
        self.check_handle(proxy)
        entered = self.entering()
        message = {"kind": "next", "handle": proxy._handle[1], **(step or {})}
        if sent:
            message["args"] = list(sent)
        try:
            with self.calls:
                self.stepping = proxy  # (see ask)
                value = self.ask(message)
        except StopIteration as stop:  # (a coroutine's end: the value it returned)
            self.note_texts(stop.value)
            raise
        finally:
            self.leaving(entered)
        self.note_texts(value)
        if type(proxy) is _codec.RemoteCoroutine and value is not None and self.codec.exported.get(
                self.codec.export_ids.get(id(value))) is not value:
            self.fail("the code under test's coroutine yielded to the test's event loop what "
                      "is none of its futures", not_judged=True)
        return value

    def entering(self):
        """This thread's CPU time and :attr:`crossing` as a call of the test's begins, or
        None for a call made while another is under way (from a callback of the test's the
        judge serves for it: its CPU is that callback's, not counted, see :meth:`leaving`)."""
        if self.depth:
            return None
        self.served = 0.0
        return _thread_time(), self.crossing

    def leaving(self, entered):
        """Count what the judge spent on its side of the call that began at ``entered``
        (:meth:`entering`) as :attr:`crossing`: this thread's CPU time during it -- the test's
        state gathered and sent, the values encoded, the answer decoded and taken over (its
        output, warnings, log records, changed globals written into this process) -- but the
        test's own callbacks served for it (:attr:`served`). It is measured here, out of the
        code's reach; the code's process does about as much bookkeeping for each call (its
        decoding, the module state it compares before and after), which the judge allows for
        as ``CROSSING_SHARE`` times this (a project with 10,000 loggers: the code's process
        spent 7.3 CPU seconds on 1,000 calls of ``str.lower``, the judge 3.9, of which 0.19
        encoding and decoding: counting those alone, right code was a "timeout")."""
        if entered is not None:  # (the encoding and decoding in it, counted as they were
            # done, are part of it)
            started, before = entered
            self.crossing = max(self.crossing, before + _thread_time() - started - self.served)

    def check_handle(self, proxy):
        if self.process is None or proxy._handle[0] != self.generation:
            self.fail("the object came from a process of the code under test that has ended "
                      "(made before it ended: at a test module's import, in an earlier test)",
                      not_judged=True)  # (tenacity's module-level @retry functions)

    def ensure(self):
        """A running subject: started now if needed. An import of the code under test that
        hangs or kills its process is an error for every later call too (``broken``)."""
        __tracebackhide__ = True
        if self.broken is not None:
            self.fail(self.broken)
        if self.process is not None:
            return
        try:
            self.start()
        except TimeoutError:
            self.end()
            self.broken = ("importing the code under test did not end within "
                           f"{self.import_limit():g} s")
            self.fail(self.broken)
        except EOFError:
            self.broken = ("the process of the code under test died while importing it: "
                           + self.end())
            self.fail(self.broken)
        except (OSError, ValueError) as error:
            reason = self.end()
            self.fail(f"the process for the code under test could not start: {error} ({reason})")
        except BaseException:  # the test's own time limit
            self.end()
            raise

    def fail(self, message, not_judged=False):
        __tracebackhide__ = True
        error = JudgeError(message, not_judged)
        self.on_error(error)
        raise error

    def misuse(self, reason, handle):
        """The "not judged" reason for what the code's process says the code did with an
        object of the test's (``reason``, its text): it says the test's arguments could not
        cross (:data:`ARGUMENTS`: no candidate could be judged, so no sampling is spent on
        the task) only when ``handle`` is an object the judge sent it; else it is the code's
        doing, whatever the code's process says (it can write any reply)."""
        reason = reason[:10000]
        if reason.startswith(ARGUMENTS) and not (type(handle) in (list, tuple) and len(
                handle) == 2 and type(handle[1]) is int and handle[1] in self.codec.exported):
            reason = "the code under test did what the judge cannot follow" + reason[len(
                ARGUMENTS):]
        return reason

    def not_crossing(self, error, arguments=False):
        __tracebackhide__ = True
        what = ARGUMENTS if arguments else (
            "a value could not cross between the test and the code under test")
        self.fail(f"{what} ({error})", not_judged=True)

    def ask(self, request):
        __tracebackhide__ = True
        if os.getpid() != self.pid and self.elsewhere is not None:  # a process the test
            self.elsewhere()  # forked: the channel to the code's process is pytest's own
        stepping, self.stepping = self.stepping, None  # (the code's handle it runs, or None)
        session = _codec._slot(stepping, "_session") if stepping is not None else None
        making = _codec._slot(stepping, "_made_by") if session is not None else None
        synced, self.synced = self.synced, None
        if self.depth == 0:
            self.ensure()
            environ = _environ_look(self.looked[0])
            if (environ is not self.looked[0] or self.sent_env is None) and (
                    environ[1] != self.sent_env):
                request["env"] = self.sent_env = environ[1]
            request["cwd"] = os.getcwd()
            filters = _warning_filters()
            if filters != self.sent_filters:  # (the subject keeps them: a fifth of a
                request["filters"] = self.sent_filters = filters  # small call's encoding)
            levels = _logging_levels()
            if levels != self.sent_logging:
                request["logging"] = self.sent_logging = levels
            for name, (read, _) in SHARED_STATES.items():  # (the test's random state, its
                state = read()  # thread's decimal context: localcontext(), prec = ...; its
                if name not in KEPT_STATES or state != self.sent_states.get(name):  # locale)
                    request[name] = self.sent_states[name] = state
            request["travel"] = _travelled()
            request["context"] = self.context_vars()
            key = (tuple(sys.path), request["cwd"])
            if key != self.looked[1] or self.sent_path is None:
                path = [os.path.abspath(p or ".") for p in sys.path]
                if path != self.sent_path:
                    request["path"] = self.sent_path = path
            self.looked = (environ, key)  # (what they were made from: looked at again when
            # changed)
            argv = getattr(sys, "argv", None)  # the test's (``sys.argv = ...``, mock.patch):
            if type(argv) is list and all(type(a) is str for a in argv):  # what the code
                request["argv"] = list(argv)  # reads as its command line (docopt-ng)
            if len(sys.modules) != self.known_modules:  # test modules imported since (before
                # the states: a class of a library the tests imported crosses by its name)
                self.known_modules = len(sys.modules)
                self.codec.shared = (self.codec.shared or set()) | importable_modules()
            request["globals"] = self.changed_globals()
            request["deleted"] = self.deleted_globals()
            request["states"] = self.states()
            redirected = _redirected_input()
            if redirected:
                request["input"] = redirected
            view = (self.plain(), tuple(self.codec.global_names()))
            if view != self.sent_view:  # the view was imported after the subject started
                request["view"] = {"plain": view[0], "globals": list(view[1])}
                self.sent_view = view
            for value in request["globals"].values():  # a new value crosses as itself
                self.codec.globals.pop(id(value), None)
            self.codec.session()
        left = self.cpu_left()
        if left is not None and left <= 0:
            raise self.timeout_error("the code used its CPU time for this test")
        request["cpu_left"] = left
        handling = sys.exc_info()[1]  # the test calls it in an except block: the code's
        if handling is not None and request["kind"] == "call":  # sys.exc_info() too, when
            try:  # the exception can cross
                self.codec.dumps(handling)
                request["handling"] = handling
                if handling.__traceback__ is not None:  # (what the code's sys.exc_info()
                    self.codec.stack_frames[0] = handling.__traceback__  # gives back: k0)
            except Exception:  # noqa: S110, BLE001 - (CannotCross, a strange exception)
                pass
        values = {key: request.pop(key) for key in ("args", "kwargs", "globals", "states",
                                                    "input", "handling") if key in request}
        outer = self.codec.tables(), self.codec.making  # (a run nested in a call: that
        # call's numbering, back after it)
        state = None
        if session is not None:  # a later run of a handle the code gave in an earlier
            # request (a next() of its generator, a call of its closure, a step of its
            # coroutine): numbered as that request (Codec.use), whose arguments are sent
            # again (what the test changed in them since; not when the last request was a
            # run with them that left them as they are now) and written back (Subject.serve)
            self.codec.use(session)
            state = _encoded(self.codec, making)
            if state is None or synced is None or synced[0] is not making or (
                    synced[1] != state):
                values["refresh"] = making
        self.codec.making = [values.get("args", []), values.get("kwargs", {}),
                             values.get("handling"), *(making or [])]  # (as the subject's
        # "after" of it holds them: see Codec.making)
        if self.depth == 0 and self.fail_not_judged is None:
            self.fail_not_judged = _given_traceback(values)
        mark = _thread_time()
        try:  # the values apart: the subject decodes them once it has the context
            request["payload"] = self.codec.dumps(values)
            tables = self.codec.tables()
            if session is not None:  # (the request around them: the numbering the subject
                self.codec.use(outer[0])  # reads it in, not the handle's)
            data = self.codec.dumps(request)
            self.codec.use(tables)
        except CannotCross as error:
            self.codec.use(outer[0])
            self.codec.making = outer[1]
            self.not_crossing(error, arguments=self.depth == 0 and not self.returned)
        self.crossing += _thread_time() - mark  # (counted now: a look during a long call)
        self.depth += 1
        asked = _monotonic()
        try:
            send_frame(self.wfd, data)
            while True:
                self.awaiting = True
                try:
                    frame = receive_frame(self.rfd)
                finally:
                    self.awaiting = False
                mark = _thread_time()
                try:
                    reply = self.codec.loads(frame)
                    if type(reply) is not dict or type(reply.get("kind")) is not str:
                        raise ValueError("a malformed answer")
                except Unjudgeable as error:  # the frame was read whole: the subject runs on,
                    # unless the frame was a request of a callback (a generator of the code
                    # calling the test's function with a value the judge does not rebuild):
                    # the subject waits for its answer and would take the next test's request
                    # for it. Ended then (only then: a run starts at most 64); a fresh one runs on.
                    reply = {"kind": "unjudgeable", "class": str(error)}
                    if self.codec.kind_of(frame) in ("call", "next"):
                        self.end()
                    break
                except Exception as error:  # noqa: BLE001 - what no honest subject writes
                    raise _refused(error) from None  # (a float too large: OverflowError; a
                    # project key whose __hash__ fails on the state sent): never the call's
                finally:
                    self.crossing += _thread_time() - mark
                self.note_texts({k: v for k, v in reply.items() if k != "value"}, -2)
                if reply["kind"] in ("value", "raised", "stop", "timeout", "uncrossable"):
                    break
                serving = _thread_time()
                try:  # (the test's callable runs in it: what it raises is answered there)
                    answer = self.serve_judge(reply)
                except Exception as error:  # noqa: BLE001 - a request the judge cannot take
                    raise _refused(error) from None
                finally:
                    if self.depth == 1:  # (the test's own code: not the crossing's)
                        self.served += _thread_time() - serving
                mark = _thread_time()  # (the subject decodes it: see CROSSING_SHARE)
                try:
                    data = self.codec.dumps(answer)
                except Exception as error:  # noqa: BLE001
                    raise _refused(error) from None
                self.crossing += _thread_time() - mark
                send_frame(self.wfd, data)
        except (EOFError, OSError, ValueError) as error:
            reason = self.end()
            if left is not None and _monotonic() - asked >= left:  # SIGXCPU, stuck in C
                raise self.timeout_error("the code used its CPU seconds for this test (its "
                                         "process ended outside Python)") from None
            if isinstance(error, ValueError):
                reason = f"it sent a malformed answer ({error})"
            self.fail(f"the process running the code under test died during this call: {reason}")
        except BaseException:  # a JudgeError, the test's time, KeyboardInterrupt: channel lost
            if self.process is not None:
                self.end()
            raise
        finally:
            self.depth -= 1
            if self.depth:  # (a run nested in a call: that call's numbering again)
                self.codec.use(outer[0])
            self.codec.making = outer[1]
        try:  # what the judge runs on the reply is never an exception of the call's
            ending = self.taken(reply)
        except Exception as error:  # noqa: BLE001 - (a key of the reply whose __eq__ fails, a
            # message whose __str__ does: only a subject that forges its reply sends those)
            self.end()
            self.fail("the process running the code under test sent an answer the judge "
                      f"cannot take ({_described(error)})")
        if state is not None and reply["kind"] in ("value", "raised", "stop") and len(
                reply.get("after") or ()) <= 3:  # the run left them as they were (the
            self.synced = (making, state)  # subject's copies: as the test's were at its start)
        if making is not None and _keepable(values.get("args") or [], values.get(
                "kwargs") or {}) and len(making) < KEPT_LIMIT:  # this run's arguments, which
            making.extend([values.get("args") or [], values.get("kwargs") or {}])  # the
            self.synced = None  # handle may keep (g.send(bucket)), go on with its later runs
            # as its making request's do (Subject.call does the same on its side)
        if ending is StopIteration:
            raise StopIteration(reply.get("value"))
        if ending is not None:
            raise ending
        return reply.get("value")  # the arguments, changed in place, came back in "after"

    def taken(self, reply):
        """Take the ``reply`` to a call (its CPU time, changed globals, environment, output,
        warnings) and return the exception the call raises here (:class:`StopIteration` for
        an iterator's end), or None: it returned ``reply["value"]``."""
        if reply["kind"] == "unjudgeable":  # a class the function itself defines (<locals>)
            # is the code's doing: an error; a library's class is not: not judged
            self.fail("the code under test sent what the judge does not rebuild "
                      f"({reply['class']}: only the project's own classes cross by state)",
                      not_judged=not _made_by_code(reply["class"]))
        if type(reply.get("cpu")) is float:
            self.cpu += max(reply["cpu"], 0.0)
        if type(reply.get("changed")) is list:
            self.mirror(reply["changed"])
        if type(reply.get("environ")) is list and len(reply["environ"]) == 2:
            self.take_environ(*reply["environ"])
        if "cwd" in reply:
            self.take_cwd(reply["cwd"])
        if type(reply.get("context")) is list:
            self.take_context(reply["context"])
        for name, (_, write) in SHARED_STATES.items():
            if name in reply:
                write(reply[name])
                self.sent_states[name] = reply[name]
        cut = reply.get("cut")
        for key, stream in (("out", sys.stdout), ("err", sys.stderr)):
            if type(cut) is list and key in cut and (
                    self.output_cut is None or not self.output_cut[1]):
                self.output_cut = (
                    (f"the code under test wrote more than {OUTPUT_LIMIT:,} characters to "
                     f"std{key} in one call; the judge keeps only those (a test that reads its "
                     "output cannot be judged)"),
                    stream is not sys.__stdout__ and stream is not sys.__stderr__ and not str(
                        getattr(type(stream), "__module__", "")).startswith("_pytest"))
            text = reply.get(key)
            for part in (text if type(text) is list else [text]):
                try:
                    self.write(stream, part)
                except Exception as error:  # noqa: BLE001 - the test's stream refuses it
                    # (closed): under plain pytest the code's print raised, and the code
                    # may have caught that
                    self.fail("the test's output stream refused what the code under test "
                              f"wrote ({_described(error)})", not_judged=True)
        self.warn(reply.get("warnings"))
        if reply.get("warnings_cut") is True:
            self.not_judged_if_passed(
                "the code under test issued more than 100 warnings in one call (or one of more "
                "than 10,000 characters); the judge issues only those again (a test that reads "
                "them cannot be judged)")
        if "levels" in reply:
            self.take_levels(reply["levels"])
        self.log(reply.get("logs"))
        if reply.get("logs_cut") is True:
            self.not_judged_if_passed(
                f"the code under test logged more than {LOG_LIMIT:,} records in one call (or "
                "one of more than 10,000 characters); the judge handles only those (a test "
                "that reads them cannot be judged)")
        if reply["kind"] == "timeout":
            self.end()
            exc = self.timeout_error(str(reply.get("message") or "out of time"))
            exc.__codeteam_frames__ = [f for f in reply.get("frames") or [] if type(f) is list]
            return exc
        if reply["kind"] == "uncrossable":
            self.not_crossing(reply.get("message"))
        if type(reply.get("misused")) is str:
            self.fail(self.misuse(reply["misused"], reply.get("misused_handle")),
                      not_judged=True)
        if reply["kind"] == "stop":
            return StopIteration
        if reply["kind"] == "raised":
            return self.rebuilt(reply)
        return None

    @staticmethod
    def write(stream, part):
        """Write ``part`` (the code's output: text, or bytes written to ``sys.stdout.buffer``)
        into the test's ``stream``."""
        if type(part) is str and part:
            try:
                stream.write(part)
            except UnicodeError:  # a lone surrogate, where the test's stream is
                # strict (capsys, -s): never an exception of the call's
                stream.write(part.encode("utf-8", "backslashreplace").decode())
        elif type(part) is bytes and part:  # the code wrote to sys.stdout.buffer
            binary = getattr(stream, "buffer", None)
            if binary is not None:
                stream.flush()
                binary.write(part)
            else:
                stream.write(part.decode(getattr(stream, "encoding", None) or "utf-8",
                                         "replace"))

    def serve_judge(self, request):
        """A callback or ``next`` the subject asks for while the judge waits."""
        if request["kind"] not in ("call", "next"):
            raise ValueError("an unknown request")
        found = self.codec.exported.get(request.get("handle"), self)
        if found is self:
            raise ValueError("an unknown handle")
        if request.get("hook") == _codec.ATTRIBUTE_READ and request["kind"] == "call":
            return self.read_attribute(request)
        if "hook" in request:  # the container protocol of the test's object (checked here)
            if request["kind"] != "call":
                raise ValueError("a malformed hook call")
            found = self.codec.hook_call(request["handle"], request["hook"],
                                         request.get("args"), request.get("kwargs"))
        after = None  # a callback's arguments, as it left them: the code's copies are
        # updated in place (backoff: the test's function appends to the list it is given,
        # then raises, and the code's retry loop reads the list's length)
        if "throw" in request and not isinstance(request["throw"], Exception):  # (its
            # CancelledError, KeyboardInterrupt: never raised by the test's own code here)
            self.fail("the code under test threw what is no Exception into a coroutine of the "
                      "test's", not_judged=True)
        made = self.made_by.get(id(found))
        if request["kind"] == "next" and made is not None and made[0] is found:
            after = made[1]  # a step of the test's coroutine: its call's arguments, as it
            # leaves them (backoff: the test's async target appends to the list it is given)
        try:
            if request["kind"] == "next":
                try:
                    value = _codec.resume(found, request)
                except StopIteration as stop:  # (a coroutine's: the value it returned)
                    reply = {"kind": "stop", "value": self.crossing_back(stop.value)}
                    if after is not None:
                        reply["after"] = self.crossing_back(after)
                    return reply
            else:
                args, kwargs = request.get("args"), request.get("kwargs")
                if type(args) is not list or type(kwargs) is not dict:
                    raise ValueError("a malformed call")
                if "hook" not in request:
                    after = [args, kwargs]
                value = found() if "hook" in request else found(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - raised in the subject, as in one process
            handle = len(self.codec.exported) + 1
            self.codec.exported[handle] = exc
            info = exception_info(exc, self.codec)
            info["origin"] = handle
            if after is not None:
                info["after"] = self.crossing_back(after)
            return info
        try:
            self.codec.dumps(value)
        except CannotCross as error:
            self.not_crossing(error)
        reply = {"kind": "value", "value": value}
        if after is not None:
            reply["after"] = self.crossing_back(after)
            if type(value) is types.CoroutineType and request["kind"] == "call":
                self.made_by[id(value)] = (value, after)
        return reply

    def crossing_back(self, value):
        """``value``, when it can cross (else the test is "not judged")."""
        __tracebackhide__ = True
        try:
            self.codec.dumps(value)
        except CannotCross as error:
            self.not_crossing(error)
        return value

    def read_attribute(self, request):
        """The code read an attribute of the test's object or iterator (a handle's
        :data:`~codeteam.execution.pytest_codec.ATTRIBUTE_READ`): the judge reads it on its own
        object when :meth:`~codeteam.execution.pytest_codec.Codec.attribute_read` says the read
        runs no Python code, and answers its value when it is data nothing changes in place
        (:meth:`~codeteam.execution.pytest_codec.Codec.read_value`); what the read raises is
        the code's, as under plain pytest. Any other read is what the judge cannot follow: the
        test is "not judged", as for any other use of the object."""
        __tracebackhide__ = True
        reason = None
        try:  # (a request no proxy makes, ValueError, is the subject's malformed answer)
            found, name = self.codec.attribute_read(
                request.get("handle"), request.get("args"), request.get("kwargs"))
        except CannotCross as error:
            reason = str(error)
        try:
            value = None if reason else self.codec.read_value(found, name)
        except _codec.AttributeRead as error:
            reason = str(error)
        except Exception as exc:  # noqa: BLE001 - raised by the read, as in one process
            origin = len(self.codec.exported) + 1
            self.codec.exported[origin] = exc
            info = exception_info(exc, self.codec)
            info["origin"] = origin
            return info
        if reason is not None:
            self.fail("the test's arguments could not cross to the code under test: the code "
                      f"used an object of the test's that cannot cross ({reason})",
                      not_judged=True)
        return {"kind": "value", "value": value}

    def warn(self, found):
        """The warnings the call issued, issued again here (``pytest.warns`` sees them), each
        file's into one registry, as its module's in one process (the "default" action shows a
        warning once per place across calls, not once per call)."""
        import warnings

        for entry in found if type(found) is list else []:
            try:
                (module, qualname), message, filename, lineno = entry
                category = self.codec.resolve(str(module), str(qualname))
            except (Unjudgeable, ValueError, TypeError):
                continue
            if isinstance(category, type) and issubclass(category, Warning) and not any(
                    forbidden(getattr(b, "__module__", "builtins")) for b in category.__mro__):
                try:  # what it raises here is never the call's: an "error" filter acted in
                    # the code already (_judge_filters); a line number too large for C
                    # (OverflowError) is the code's forgery
                    warnings.warn_explicit(
                        str(message), category, str(filename), int(lineno),
                        registry=self.warning_registries.setdefault(str(filename), {}))
                except Exception:  # noqa: S112, BLE001
                    continue

    def record_rest(self, logging, record, rest):
        """Give ``record`` what else of the code's crossed (:func:`_record_rest`): its
        template and args (when they make the same message), its exception (the class the
        judge resolves, made by its ``__new__`` alone, with its args; no traceback)
        and its ``extra=`` attributes, as the test's handlers (``caplog.records``) would have
        them in one process."""
        if "msg" in rest and _plain(rest["msg"]) and _plain(rest.get("args")) and type(
                rest.get("args")) in (tuple, dict, type(None)):
            message = record.msg
            record.msg, record.args = rest["msg"], rest["args"]
            try:
                same = record.getMessage() == message
            except Exception:  # noqa: BLE001 - formatting differs here
                same = False
            if not same:
                record.msg, record.args = message, None
        exc = rest.get("exc")
        if type(exc) is list and len(exc) == 3 and type(exc[2]) is list and _plain(exc[2]):
            try:
                kind = self.codec.resolve(str(exc[0]), str(exc[1]))
            except (Unjudgeable, ValueError, TypeError):
                kind = None
            if isinstance(kind, type) and issubclass(kind, BaseException) and not any(
                    forbidden(getattr(b, "__module__", "builtins")) for b in kind.__mro__):
                try:  # (its class's __new__, never its __init__: OSError's own makes
                    error = kind.__new__(kind, *exc[2])  # FileNotFoundError's errno)
                    error.args = tuple(exc[2])
                except Exception:  # noqa: BLE001 - a class its args do not make: no
                    error = None  # exc_info, the record kept
                if isinstance(error, kind):
                    record.exc_info = (kind, error, None)
        extra = rest.get("extra")
        if type(extra) is dict and len(extra) <= 100:
            names = _record_names(logging)
            for key, value in extra.items():
                if type(key) is str and key not in names and not key.startswith(
                        "__") and _plain(value):
                    setattr(record, key, value)

    def take_levels(self, levels):
        """The ``logging`` levels the call set (a logger's ``setLevel``, ``logging.disable``:
        the code configuring logging), made the test's too, as in one process."""
        import logging

        disable, changed = levels
        if type(disable) is not int or type(changed) is not dict or len(
                changed) > LOG_LIMIT or any(type(name) is not str or type(level) is not int
                                            for name, level in changed.items()):
            raise ValueError("malformed logging levels")
        if logging.root.manager.disable != disable:
            logging.disable(disable)
        for name, level in changed.items():
            (logging.getLogger(name) if name else logging.root).setLevel(level)
        self.sent_logging = _logging_levels()

    def log(self, found):
        """The log records the call made (:func:`_logs_begin`), handled here by the logger
        they were logged to: the test's handlers (``caplog``, pytest's report sections, its
        own) see them as in one process."""
        logging = sys.modules.get("logging")
        if logging is None or type(found) is not list:
            return
        for entry in found[:LOG_LIMIT]:
            try:
                name, level, path, line, func, message, exc_text, stack, *more = entry
                if type(name) is not str or type(level) is not int or type(line) is not int:
                    continue
                logger = logging.getLogger(name) if name else logging.root
                record = logger.makeRecord(
                    logger.name, level, str(path), line, str(message), None, None,
                    str(func), None, stack if type(stack) is str else None)
                if type(exc_text) is str:
                    record.exc_text = exc_text
                if more and type(more[0]) is dict:
                    self.record_rest(logging, record, more[0])
                logger.handle(record)
            except Exception:  # noqa: S112, BLE001 - a handler or filter of the test's that
                continue  # fails: as logging's own handleError, never the call's exception

    def rebuilt(self, reply, inner=False):
        """The judge-side exception for a ``raised`` reply (``inner``: of an exception group's,
        None when the judge cannot make it)."""
        frames = [f for f in reply.get("frames") or [] if type(f) is list and len(f) == 2
                  and type(f[0]) is str and type(f[1]) is int]
        origin = reply.get("origin")
        exc = None
        if type(origin) is int and _raisable(type(self.codec.exported.get(origin)),
                                                       self.codec.own):
            exc = self.codec.exported[origin]  # the test's own exception, back through the code
        candidate = reply.get("exc")
        name = "{}.{}".format(reply.get("module"), reply.get("type"))
        message = str(reply.get("message", ""))
        if exc is None and _raisable(type(candidate), self.codec.own) and not reply.get("import_failed"):
            exc = candidate
        if exc is None and not reply.get("import_failed"):
            for base in reply.get("bases") or []:
                if type(base) is not list or len(base) != 2:
                    continue
                try:
                    cls = self.codec.resolve(str(base[0]), str(base[1]))
                except Unjudgeable:
                    continue
                if _raisable(cls, self.codec.own) and base == ["builtins", reply.get(
                        "type")] and issubclass(cls, _GROUP):
                    exc = self.group(cls, reply.get("group"))  # (made of its exceptions)
                elif _raisable(cls, self.codec.own) and base == ["builtins", reply.get("type")]:
                    exc = _codec._builtin_base(cls).__new__(cls)  # a builtin's own (its
                    exc.args = (message,)  # arguments could not cross: their text)
                elif _raisable(cls, self.codec.own):  # a class the judge lacks: its nearest
                    # base the judge has
                    try:  # (a name type() refuses, "Bad\x00", raised ValueError here: never
                        # an exception of the call's; the error below says what it raised)
                        kind = type(str(reply.get("type") or "Error").rsplit(".", 1)[-1],
                                    (cls,), {"__module__": str(reply.get("module") or "builtins"),
                                             "__getattr__": _stand_in_attribute,
                                             "_codeteam_judge": self})
                        kind.__qualname__ = str(reply.get("type") or kind.__name__)
                        base = _codec._builtin_base(kind)
                        if issubclass(base, _GROUP):  # (hypothesis's FlakyFailure)
                            exc = self.group(kind, reply.get("group"))
                        else:
                            exc = base.__new__(kind)
                            exc.args = (message,)
                    except Exception:  # noqa: BLE001
                        exc = None
                    break
                break  # a BaseException (SystemExit, pytest's outcomes): a plain error
        if exc is None and inner:
            return None
        if exc is None:
            if reply.get("import_failed"):
                text = f"importing the code under test failed: {name}: {message}"
            else:
                text = f"the code under test raised {name}: {message}"
            exc = JudgeError(text)
            self.on_error(exc)
        try:  # where it happened, for the judge's report (not a note: doctest compares those)
            exc.__codeteam_frames__ = frames
            text = reply.get("traceback")
            if type(text) is str and text:
                exc.__codeteam_traceback__ = text.rstrip("\n")
        except Exception:  # noqa: S110, BLE001
            pass
        return exc


    def group(self, cls, group):
        """An exception group of class ``cls`` (a builtin) made again from the subject's
        ``group`` (:func:`~codeteam.execution.pytest_codec.exception_info`): its message and
        its exceptions, each as :meth:`rebuilt` makes it; None when one cannot be made."""
        if type(group) is not list or len(group) != 2 or type(group[0]) is not str or type(
                group[1]) is not list or not group[1]:
            return None
        inner = [self.rebuilt(r, inner=True) if type(r) is dict else None for r in group[1]]
        if any(e is None for e in inner):
            return None
        try:  # (its class's __new__, as for other builtins; a BaseException in an
            return _GROUP.__new__(cls, group[0], inner)  # ExceptionGroup: TypeError)
        except (TypeError, ValueError):
            return None


_GROUP = getattr(builtins, "BaseExceptionGroup", ())  # (Python 3.11; () matches no class)

LOG_LIMIT = 1000
"""Log records of one call sent to the judge."""
_LOG_SINKS = []  # the records of the calls under way in the subject (nested: the innermost)


def _logging_levels():
    """The judge's ``logging`` levels (``caplog.set_level``, a test's ``setLevel``): the
    level ``logging.disable`` set and each logger's (the root's as ""), or None when logging
    is not imported."""
    logging = sys.modules.get("logging")
    if logging is None:
        return None
    levels = {"": logging.root.level}
    for name, logger in list(logging.root.manager.loggerDict.items()):
        if type(name) is str and isinstance(logger, logging.Logger):
            levels[name] = logger.level
    return [logging.root.manager.disable, levels]


def _logs_begin(levels):
    """The list the log records of a call starting now are kept in (the subject's): the
    judge's levels ``levels`` (:func:`_logging_levels`) set first, so that the code logs what
    it would in the test's process. Each record the code's loggers handle is kept there as
    plain data, for the judge to handle (:meth:`JudgeClient.log`), instead of the subject's
    handlers (whose last resort writes it to stderr, where pytest's handlers take it)."""
    import logging

    if type(levels) is list and len(levels) == 2 and type(levels[1]) is dict:
        try:
            logging.disable(int(levels[0]))
            for name, level in levels[1].items():
                if type(name) is str and type(level) is int:
                    (logging.getLogger(name) if name else logging.root).setLevel(level)
        except Exception:  # noqa: S110, BLE001 - a level this logging refuses
            pass
    if getattr(logging.Logger.handle, "_codeteam", False) is False:
        logging.Logger.handle = _kept_handle(logging)
    sink = _LogSink()
    _LOG_SINKS.append(sink)
    return sink


class _LogSink(list):
    """The records of one call; ``cut``: more were made than :data:`LOG_LIMIT`, or a message
    was cut."""

    cut = False


def _logs_end(sink):
    if sink in _LOG_SINKS:
        del _LOG_SINKS[len(_LOG_SINKS) - 1 - _LOG_SINKS[::-1].index(sink)]


def _kept_handle(logging):
    handle = logging.Logger.handle

    def kept(self, record):
        if not _LOG_SINKS:
            return handle(self, record)
        if self.disabled or not self.filter(record):
            return None
        sink = _LOG_SINKS[-1]
        if len(sink) >= LOG_LIMIT:
            sink.cut = True
            return None
        try:
            text = record.exc_text
            if record.exc_info and not text:
                text = logging.Formatter().formatException(record.exc_info)
            message = str(record.getMessage())
            sink.cut = sink.cut or len(message) > 10000
            sink.append(["" if self is logging.root else str(self.name), int(record.levelno),
                         str(record.pathname), int(record.lineno or 0), str(record.funcName),
                         message[:10000], text if type(text) is str else None,
                         record.stack_info if type(record.stack_info) is str else None,
                         _record_rest(logging, record)])
        except Exception:  # noqa: BLE001 - a message whose formatting fails: logging's own
            return handle(self, record)  # handling (its handleError says so)
        return None

    kept._codeteam = True
    return kept


def _plain(value, depth=0):
    """Whether ``value`` is plain data (None, bool, int, float, str, bytes, and tuples, lists
    and dicts of them, of at most 100 items, 3 deep): what a log record's args, template and
    extra attributes cross as."""
    kind = type(value)
    if kind in (type(None), bool, int, float, str, bytes):
        return True
    if depth >= 3 or kind not in (tuple, list, dict) or len(value) > 100:
        return False
    if kind is dict:
        return all(_plain(k, depth + 1) and _plain(v, depth + 1) for k, v in value.items())
    return all(_plain(item, depth + 1) for item in value)


def _record_names(logging, kept=[]):  # noqa: B006 - made once per process
    """The attribute names every ``LogRecord`` has (those ``extra=`` may not set)."""
    if not kept:
        kept.append(frozenset(vars(logging.makeLogRecord({}))) | {"message", "asctime"})
    return kept[0]


def _record_rest(logging, record):
    """What else of a log ``record`` crosses, when plain (:func:`_plain`): its template
    (``msg``) and ``args``, its exception's class and args, the attributes ``extra=`` set."""
    rest = {}
    if _plain(record.msg) and (record.args is None or _plain(record.args)):
        rest["msg"], rest["args"] = record.msg, record.args
    error = (record.exc_info or (None, None))[1] if type(record.exc_info) is tuple else None
    if isinstance(error, BaseException):
        kind = type(error)
        rest["exc"] = [str(kind.__module__), str(kind.__qualname__),
                       list(error.args) if _plain(error.args) else []]
    names = _record_names(logging)
    extra = {k: v for k, v in vars(record).items()
             if type(k) is str and k not in names and _plain(v)}
    if extra and len(extra) <= 100:
        rest["extra"] = extra
    return rest


def _random():
    """The ``random`` module's state as plain data (``getstate()`` as a list); None while no one
    imported ``random``."""
    random = sys.modules.get("random")
    return None if random is None else list(random.getstate())


def _set_random(sent):
    """Make the ``random`` module's state ``sent`` (:func:`_random`; :func:`_random_state`
    refuses another shape)."""
    import random

    random.setstate(_random_state(sent))


def _random_state(sent):
    """``random.getstate()``'s tuple from what crossed (a list: its version, the generator's
    625 numbers, the gauss value); :class:`ValueError` for another shape."""
    if type(sent) is not list or len(sent) != 3 or type(sent[0]) is not int or type(
            sent[1]) is not tuple or len(sent[1]) != 625 or any(
            type(n) is not int for n in sent[1]) or type(sent[2]) not in (float, type(None)):
        raise ValueError("a malformed random state")
    return (sent[0], sent[1], sent[2])


_ROUNDINGS = frozenset({"ROUND_DOWN", "ROUND_HALF_UP", "ROUND_HALF_EVEN", "ROUND_CEILING",
                        "ROUND_FLOOR", "ROUND_UP", "ROUND_HALF_DOWN", "ROUND_05UP"})
_SIGNALS = ("Clamped", "DivisionByZero", "Inexact", "Overflow", "Rounded", "Subnormal",
            "Underflow", "InvalidOperation", "FloatOperation")


def _over_date(cls):
    """``[base name, class name, {name: the bound class or static method}]`` when ``cls`` is
    a class over ``datetime.datetime`` or ``date`` that defines nothing but class and static
    methods (schedule's tests' ``MockDate`` with ``now`` and ``today``); else None."""
    if not isinstance(cls, type) or len(cls.__bases__) != 1 or (
            cls.__bases__[0] not in _codec._DATES[:2]):
        return None
    methods = {}
    for name, value in vars(cls).items():
        if isinstance(value, (classmethod, staticmethod)):
            methods[name] = getattr(cls, name)
        elif name not in ("__module__", "__qualname__", "__doc__", "__dict__", "__weakref__",
                          "__firstlineno__", "__static_attributes__"):
            return None
    return [cls.__bases__[0].__name__, str(cls.__name__), methods]


def _stand_in(base, name, methods):
    """The code's stand-in for the test's class over ``base`` (:func:`_over_date`): a class
    over the real ``datetime.base`` whose class and static methods call the test's."""
    kinds = {kind.__name__: kind for kind in _codec._DATES[:2]}
    if base not in kinds or type(name) is not str or type(methods) is not dict or not all(
            type(k) is str and not _is_dunder(k) and callable(v) for k, v in methods.items()):
        raise ValueError("a malformed class over a date")

    def calling(method):
        return classmethod(lambda cls, *args, **kwargs: method(*args, **kwargs))

    return _StandIn(name, (kinds[base],), {key: calling(method) for key, method in (
        methods.items())})


class _StandIn(type):
    """The class of :func:`_stand_in`'s classes: the real type's objects are theirs too (the
    arguments of the call were made before it stood in; the test's were of its class), as
    freezegun's ``FakeDatetime`` says."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, cls.__bases__[0])


_CONTEXT_STAND_INS = {}
"""(module, name, key) -> the code's process's stand-in for a context variable of the test's."""


def _enter_context(entries):
    """Set the test's context variables (:meth:`JudgeClient.context_vars`) on this process's
    own variables of the same modules, or on a stand-in of the same name where the module
    holds none (a dict the judge's module data came into: the item is the test's handle):
    ``[(variable, token, value)]``, undone after the call."""
    import contextvars
    import importlib

    done = []
    for entry in entries if type(entries) is list else ():
        try:
            module, name, key, label, value = entry
            holder = vars(importlib.import_module(str(module))).get(str(name))
            if key is not None:
                holder = holder.get(key) if type(holder) is dict else None
            if type(holder) is not contextvars.ContextVar:
                holder = _CONTEXT_STAND_INS.setdefault((str(module), str(name), key if type(
                    key) is str else None), contextvars.ContextVar(str(label)))
            done.append((holder, holder.set(value), value))
        except Exception:  # noqa: S112, BLE001 - a module this process cannot import
            continue
    return done


def _travelled():
    """``[now in ns, tick]`` while the test travels in time with ``time_machine`` (its
    ``travel()`` patches this process's clocks in C: ``time.time``, ``datetime.now``...; the
    code's process must travel too); else None."""
    machine = sys.modules.get("time_machine")  # (its stack: traveller_stack since 3.0)
    stack = getattr(machine, "traveller_stack", getattr(machine, "coordinates_stack", None))
    if type(stack) is not list or not stack:
        return None
    import time

    top = stack[-1]
    fresh = getattr(top, "_requested", None) is False
    now = time.time_ns()
    if fresh:  # a ticking travel starts at its first read: this one is the judge's, not the
        top._requested = False  # test's (the code's first read in the call is its start)
    return [now, bool(getattr(top, "_tick", True))]


def _travel(state):
    """A started ``time_machine.travel`` to ``state`` (:func:`_travelled`), stopped after the
    call; None when the test does not travel (or this process has no ``time_machine``)."""
    if type(state) is not list or len(state) != 2 or type(state[0]) is not int or type(
            state[1]) is not bool:
        return None
    try:
        import datetime

        import time_machine

        moment = datetime.datetime.fromtimestamp(state[0] // 1000 / 1e6, datetime.UTC)
        travel = time_machine.travel(moment, tick=state[1])
        travel.start()
        return travel
    except Exception:  # noqa: BLE001 - not installed here, a moment out of range
        return None


def _decimal_context():
    """The running thread's ``decimal`` context as plain data: ``[prec, rounding, Emin,
    Emax, capitals, clamp, flags set, traps set]``; None while no one imported ``decimal``."""
    if "decimal" not in sys.modules:
        return None
    import decimal

    context = decimal.getcontext()
    return [context.prec, context.rounding, context.Emin, context.Emax, context.capitals,
            context.clamp, [n for n in _SIGNALS if context.flags[getattr(decimal, n)]],
            [n for n in _SIGNALS if context.traps[getattr(decimal, n)]]]


def _set_decimal_context(state):
    """Make the running thread's ``decimal`` context ``state`` (:func:`_decimal_context`);
    a malformed state is :class:`ValueError` (or what ``decimal`` refuses)."""
    if type(state) is not list or len(state) != 8:
        raise ValueError("a malformed decimal context")
    import decimal

    prec, rounding, emin, emax, capitals, clamp, flags, traps = state
    if rounding not in _ROUNDINGS or type(flags) is not list or type(traps) is not list or any(
            type(n) is not str or n not in _SIGNALS for n in [*flags, *traps]):
        raise ValueError("a malformed decimal context")
    context = decimal.getcontext()
    context.prec, context.rounding, context.Emin, context.Emax = prec, rounding, emin, emax
    context.capitals, context.clamp = capitals, clamp
    for name in _SIGNALS:
        context.flags[getattr(decimal, name)] = name in flags
        context.traps[getattr(decimal, name)] = name in traps


_LOCALE_CHARACTERS = frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.@=;+-")


def _locale():
    """This process's locale, all its categories: ``setlocale(LC_ALL)``'s name (one, or
    ``LC_CTYPE=...;LC_NUMERIC=...;...`` when they differ)."""
    import locale

    return locale.setlocale(locale.LC_ALL)


def _set_locale(name):
    """Make this process's locale ``name`` (:func:`_locale`'s), the system's locale files read
    (never a path: a name with ``/`` is :class:`ValueError`, as one glibc refuses;
    ``locale.Error``: one this system does not have)."""
    if type(name) is not str or not 0 < len(name) <= 2000 or not set(name) <= _LOCALE_CHARACTERS:
        raise ValueError("a malformed locale name")
    import locale

    if locale.setlocale(locale.LC_ALL) != name:
        locale.setlocale(locale.LC_ALL, name)


SHARED_STATES = {"random": (_random, _set_random),
                 "decimal": (_decimal_context, _set_decimal_context),
                 "locale": (_locale, _set_locale)}
"""What one process shares between the test and the code, as plain data read and set again
(``name: (read, write)``): sent with each call from the test's process (None: not sent), set in
the code's for the call, and sent back when the call changed it, set in the test's then (the
test's ``random.seed(7)`` is the code's, and the test draws after what the code drew; the
test's ``decimal.localcontext()`` is the code's, and the code's ``getcontext().prec = 6`` the
test's; natsort's tests set the locale in a fixture, the code sorts by it)."""
KEPT_STATES = frozenset({"random"})
"""Of :data:`SHARED_STATES`, those the code's process keeps between calls as they were last
made the same (process-wide): sent only when the test's changed since, and sent back whenever
the call changed them (the random state: 625 numbers)."""


def _cwd():
    """This process's working directory, or None (removed)."""
    try:
        return os.getcwd()
    except OSError:
        return None


def _stand_in_attribute(self, name):
    """``__getattr__`` of the judge's stand-in for an exception that crossed by its name and
    message only (:meth:`JudgeClient.rebuilt`): none of its attributes is there, and its
    class's own ``__getattr__`` (``getattr(self.response, name)``) would recurse without them
    when pytest reports it (an internal error: every later test unreported). A field the
    test reads (``exc_info.value.original_error``; not a dunder, which pytest's and
    traceback's reporting look for) makes the test "not judged": under plain pytest it was
    there."""
    __tracebackhide__ = True
    why = (f"{name!r}: the code's exception reached the test by its class's name and its "
           "message only")
    judge = type(self).__dict__.get("_codeteam_judge")
    if judge is not None and type(name) is str and not _is_dunder(name) and not (
            name.startswith("_codeteam")):
        judge.on_error(JudgeError(f"{why} (the exception could not cross)", True))
    raise AttributeError(why)


def _described(error):
    """``error`` in a few words, for the judge's message (its ``str`` may fail: the code's
    object's ``__str__`` ran)."""
    try:
        return f"{type(error).__name__}: {str(error)[:200]}".rstrip(": ")
    except Exception:  # noqa: BLE001
        return "an exception"


def _refused(error):
    """The :class:`ValueError` (a malformed answer) for what the judge raised reading the
    subject's answer or serving its request."""
    return ValueError(f"the judge could not read it: {_described(error)}")


_CODE_VARIABLES = frozenset({
    "PATH", "HOME", "TMPDIR", "SHELL", "BASH_ENV", "ENV", "PAGER", "EDITOR", "VISUAL",
    "BROWSER", "PS4", "PROMPT_COMMAND", "PERL5OPT", "PERL5LIB", "RUBYOPT", "RUBYLIB",
    "NODE_OPTIONS", "NODE_PATH", "TERMINFO", "GCONV_PATH", "LOCPATH", "HOSTALIASES"})
_CODE_PREFIXES = ("LD_", "PYTHON", "PYTEST", "CODETEAM", "GIT_", "DYLD_", "MALLOC_", "GLIBC_", "PIP_",
                  "VIRTUAL_ENV", "CONDA")


def _runs_code(name):
    """Whether environment variable ``name`` can make a program a test starts (python, a
    shell, git, the dynamic loader) run code or files of the code under test's choosing."""
    upper = name.upper()
    return upper in _CODE_VARIABLES or upper.startswith(_CODE_PREFIXES) or upper.endswith(
        ("_COMMAND", "_CMD", "_PATH", "_HOOK", "_OPTIONS", "_OPTS", "_ASKPASS", "_PROGRAM",
         "_PRELOAD", "_LIBRARY", "_PLUGINS", "_PLUGIN", "_EXE", "_BIN", "_SHELL", "RC", "_FILE",
         "_CONFIG")) or not name.isidentifier()


def _redirected_input():
    """What the test made the code read (sent with each call): ``stdin`` the ``read``,
    ``readline`` and ``readlines`` of the ``sys.stdin`` it set (not pytest's own, which
    refuses to be read), ``input`` the ``input`` it put into builtins."""
    found = {}
    stdin = sys.stdin
    if stdin is not None and stdin is not sys.__stdin__ and (
            type(stdin).__name__ != "DontReadFromInput"):
        found["stdin"] = [getattr(stdin, name, None) for name in ("read", "readline",
                                                                  "readlines")]
    if builtins.input is not _INPUT:
        found["input"] = builtins.input
    return found


_INPUT = builtins.input


def importable_modules():
    """Modules of this process the subject imports by name too (same ``sys.path``): a module
    with a file (test modules and conftest.py files included: an object of a class a test
    file defines crosses by state, the subject importing that module) that is not one of
    :func:`forbidden`'s and is known under its own name."""
    found = set()
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if type(name) is not str or type(path) is not str or forbidden(name):
            continue
        if getattr(getattr(module, "__spec__", None), "name", None) != name:
            continue  # a module under another name (pytest's importlib mode, exec'd files)
        found.add(name)
    return found


_WORDS = None


TEXTS_KEPT = 5000
"""The texts the code returned that :meth:`JudgeClient.audit` looks for in the source a test
compiles; beyond, it refuses any made source (the empty text is in every source)."""
FILE_LOOKED_AT = 1 << 20
"""Bytes of a file of the shared ``/tmp`` the code may have written that the judge reads when
a test opens it (:meth:`JudgeClient.opened`); a larger one makes any source refused."""


_ATOMS = frozenset({int, float, bool, complex, type(None)})
"""Types whose objects hold no text (:meth:`JudgeClient.note_texts` looks no further: a list of
10,000 ints the code wrote back cost 9 ms of the judge's CPU a call in :func:`_parts_of`)."""


def _environ_look(last):
    """(os.environ's bytes, os.environ as a dict): ``last`` (an earlier look, or None) itself
    while the bytes did not change (a copy of them is made in C, where a dict of os.environ
    decodes every item: two a call were a fifth of the code's process's CPU for a call of
    ``add(i, 1)``)."""
    raw = getattr(os.environ, "_data", None)
    raw = dict(raw) if type(raw) is dict else None
    if raw is None or last is None or last[0] != raw:
        return raw, dict(os.environ)
    return last


def _same(now, before):
    """Whether the mapping ``now`` holds the very keys and values of ``before``, in its order
    (looked at in C: :meth:`JudgeClient.states` went through each global of each watched
    module item by item before every call, half of the judge's CPU for tenacity's)."""
    import operator

    return len(now) == len(before) and all(map(operator.is_, now, before)) and all(
        map(operator.is_, now.values(), before.values()))


def _parts_of(value):
    """The items of ``value``, an answer of the code the judge took (its lists, tuples, sets
    and dicts, their subclasses' as theirs: a namedtuple's fields), or the values of its own
    ``__dict__`` (an object of the project's class: ``Module(name, source)``), read without
    running any of its class's code; nothing for a class, module or function."""
    import itertools
    import types

    for kind, items in ((dict, dict.items), (list, list.__iter__), (tuple, tuple.__iter__),
                        (set, set.__iter__), (frozenset, frozenset.__iter__)):
        if issubclass(type(value), kind):  # (at most note_texts's budget of them; never
            # a RemoteObject's __class__, the class of a library's object it stands for)
            found = itertools.islice(items(value), 10000)
            return [part for pair in found for part in pair] if kind is dict else list(found)
    if isinstance(value, (type, types.ModuleType, types.FunctionType, types.MethodType,
                          types.BuiltinFunctionType)):
        return []
    try:
        space = _codec._own_dict(value)
    except Exception:  # noqa: BLE001 - no __dict__ (slots, a proxy): nothing to look at
        return []
    return list(itertools.islice(dict.values(space), 10000)) if type(space) is dict else []


def _by_pytest(packages=("_pytest", "pluggy")):
    """Whether the ``compile`` being audited is pytest's own (its traceback's
    ``ast.parse(content, "source")`` of the test's file, its assertion rewriting): the first
    caller outside ``ast`` and this module is in ``_pytest`` or ``pluggy`` (or another of
    ``packages``: that module's own globals, not a namespace so named that a test runs
    a line in). A test's failure report parses the test file, which holds the expected
    text the code's wrong answer is often part of ("3 seconds" of "3 seconds ago")."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_globals.get("__name__") in ("ast", __name__):
        frame = frame.f_back
    name = frame.f_globals.get("__name__") if frame is not None else None
    module = sys.modules.get(name) if type(name) is str else None  # (its own globals: not a
    return (name.partition(".")[0] in packages and module is not None  # namespace the code
            and getattr(module, "__dict__", None) is frame.f_globals)  # named "_pytest")


def _parsing():
    """Whether the ``compile`` being audited is ``ast.parse``'s (its caller's code is that
    function's: a tree comes back, which runs nothing), whatever the file name it gives."""
    frame = sys._getframe(3)  # (_parsing <- compiled <- audit <- the caller of compile)
    parse = getattr(sys.modules.get("ast"), "parse", None)
    return frame is not None and frame.f_code is getattr(parse, "__code__", None)


def _made_source(filename):
    """Whether a ``compile`` audit event's ``filename`` names no file on disk (``"<string>"``
    of exec and eval, ``"<unknown>"`` of ast.parse, a test's own ``"<generated>"``): source
    made in the process, not a module's file that an import compiles."""
    if type(filename) is not str:
        return isinstance(filename, bytes) and not os.path.isfile(filename)
    return filename.startswith("<") or not os.path.isfile(filename)


_OWN_COMPILERS = ("_pytest", "pluggy", "collections", "dataclasses")
"""The packages whose ``compile`` runs none of the code's text (:meth:`JudgeClient.audit`):
pytest's, and the standard library's that compile methods from names only (a namedtuple's,
a dataclass's, whose field names are identifiers)."""
_CODE_EVENTS = frozenset({"marshal.loads", "code.__new__"})
"""The audit events of a code object made from bytes (:meth:`JudgeClient.made_code`)."""
_LOADERS = ("_pytest", "pluggy", "importlib", "zipimport")
"""The packages whose ``marshal.loads`` is an import's, of a module's bytecode."""
_PROCESS_EVENTS = frozenset({"subprocess.Popen", "os.system", "os.exec", "os.posix_spawn",
                             "os.spawn"})
"""The audit events of a process being started (:meth:`JudgeClient.starts`)."""
_SCRIPT_SUFFIXES = (".py", ".pyc", ".pyw", ".pyz", ".sh", ".bash", ".pl", ".rb", ".js")
"""Files a process started on them is taken to run (``python path``, ``bash path``)."""


def _command_parts(values, depth=0):
    """The texts (as bytes) of a process start's command ``values``: strings, bytes and
    paths, in lists and tuples (at most 1,000)."""
    found = []
    for value in values:
        if len(found) >= 1000 or depth > 2:
            break
        if isinstance(value, (list, tuple)):
            found += _command_parts(value, depth + 1)
            continue
        try:
            text = os.fsencode(value)
        except (TypeError, ValueError):
            continue
        found.append(text)
    return found[:1000]


def _zip(path):
    """Whether ``path`` is a zip archive, a regular file (``zipfile.is_zipfile``)."""
    import zipfile

    return os.path.isfile(path) and zipfile.is_zipfile(path)


def _ctime(path):
    """``path``'s ctime in nanoseconds, None when it cannot be read."""
    try:
        return os.stat(path).st_ctime_ns
    except (OSError, ValueError):
        return None


def _runs_as_code(data):
    """Whether ``data``, a text the code gave found in a command, could be code a program
    runs (``python -c``, ``sh -c``): not one word of letters, digits and ``.-/:=+@%,`` (an
    option, ``--verbose``, ``--width=80``: no call, no space, no quote, no bracket)."""
    global _ARGUMENT
    if _ARGUMENT is None:
        import re

        _ARGUMENT = re.compile(rb"[\w.\-/:=+@%,]*")
    return _ARGUMENT.fullmatch(data) is None


_ARGUMENT = None


def _squeezed(data):
    """``data`` (bytes) without its ASCII whitespace: a text the code returned is found again
    in the source a test compiles after dedenting, stripping or re-indenting it."""
    return b"".join(data.split())


def _source_like(data):
    """Whether ``data`` (UTF-8) could be Python source that does something: 8 bytes or more,
    and not a name or dotted name alone (a field name a namedtuple or dataclass compiles)."""
    global _WORDS
    if _WORDS is None:
        import re

        _WORDS = re.compile(rb"[\w.]*")
    return len(data) >= 8 and _WORDS.fullmatch(data) is None


def _data_global(name, value):
    """Whether a module global is data the test may read (mirrored between the processes):
    not a dunder, not a function, class, method or module; a callable object is (glom's
    ``T = TType()``, a counter with ``__call__``: it crosses by its name,
    :func:`~codeteam.execution.pytest_codec._sentinel_like`, so what the code or the test sets
    on it must reach the other side)."""
    import types

    return type(name) is str and not _is_dunder(name) and not (
        callable(value) and not _codec._sentinel_like(value)) and not (
        isinstance(value, types.ModuleType))


def _library_of(value):
    """The module a value a test module holds comes from (a module's own name, a class's or
    function's ``__module__``), when that is a library's: not the standard library's."""
    import types

    if isinstance(value, types.ModuleType):
        name = getattr(value, "__name__", None)
    elif isinstance(value, (type, types.FunctionType)):
        name = getattr(value, "__module__", None)
    else:
        return None
    if type(name) is not str or name.split(".")[0] in sys.stdlib_module_names:
        return None
    return name


_RUNNERS = {"sys": frozenset(("stdin", "stdout", "stderr", "displayhook", "excepthook",
                               "unraisablehook", "breakpointhook", "last_type", "last_value",
                               "last_traceback", "last_exc", "path", "argv", "modules",
                               "meta_path", "path_hooks", "path_importer_cache")),
            "builtins": frozenset(("_",))}
"""What the test runner (pytest's capture, its reports, doctest's display hook) and the judge
itself set in ``sys`` and ``builtins``, per test or per failure: never the test's to send
(``sys.argv`` and ``sys.path`` cross as the test's context)."""

_TOOLING = ("pytest", "_pytest", "pluggy", "py", "hypothesis", "_hypothesis_pytestplugin",
            "codeteam", "doctest")


def _tooling(name):
    """Whether module ``name`` is the test runner's own (pytest, its plugins' machinery,
    hypothesis's engine, doctest's ``master`` that ``testfile`` sets): its state is the
    judge's, never the code's."""
    top = name.split(".")[0]
    return top in _TOOLING or top.startswith(("pytest_", "_pytest"))


def _instance_attrs(value):
    """A copy of the attributes of an object a module holds as data (a ``threading.local``,
    a settings object: not a class, module, function or builtin value), or None."""
    import types

    kind = type(value)  # (never isinstance: a proxy of the other side's object would be used)
    if getattr(kind, "__module__", None) == _codec.__name__ or issubclass(
            kind, (type, types.ModuleType)) or (callable(value) and not _codec._sentinel_like(
                value)) or kind in (
            list, dict, set, tuple, str, bytes, int, float, bool, type(None)):
        return None
    try:
        attrs = vars(value)
    except TypeError:
        return None
    if type(attrs) is not dict or len(attrs) > 4096:
        return None
    return dict(attrs)


def _held_data(space):
    """``name -> (value, a shallow copy of it)`` of a module's data globals that can change in
    place: a list, dict or set (:func:`_small_contents`) or an object's attributes
    (:func:`_instance_attrs`)."""
    found = {}
    for key, value in list(space.items()):
        if not _data_global(key, value):
            continue
        copy = _small_contents(value) if type(value) in (list, dict, set) else (
            _instance_attrs(value))
        if copy is not None and type(value) not in (list, dict, set):  # (and what its
            copy.update({(":contents", k): _small_contents(v) for k, v in list(  # lists hold:
                copy.items()) if type(v) in (list, dict, set)})  # schedule's jobs.append)
        if copy is not None:
            found[key] = (value, copy)
    return found


def _small_contents(value):
    """A shallow copy of a list, dict or set of at most 4096 items (what it holds, in place
    changes of its items aside), else None."""
    if type(value) not in (list, dict, set) or len(value) > 4096:
        return None
    return type(value)(value)


def _differ(now, before):
    """Whether two :func:`_small_contents` differ (items compared by identity first, as the
    builtin comparisons do: equal objects that are not the same run their ``__eq__``, here in
    the code's own process)."""
    if now is None or type(now) is not type(before) or len(now) != len(before):
        return True
    try:
        return bool(now != before)
    except Exception:  # noqa: BLE001 - an item whose comparison fails: taken as changed
        return True


def _contents(value):
    """The plain-data encoding of ``value`` (at most 64 KB), or None."""
    try:
        data = Codec(True).dumps(value)
    except (CannotCross, RecursionError):
        return None
    return data if len(data) <= 65536 else None


def _warning_filters():
    """The judge's warning filters as plain data: ``[action, message pattern or None,
    [category's module, qualname], module pattern or None, lineno]``."""
    import warnings

    return [[str(action), getattr(message, "pattern", None),
             [str(getattr(category, "__module__", "builtins")),
              str(getattr(category, "__qualname__", "Warning"))],
             getattr(module, "pattern", None), lineno if type(lineno) is int else 0]
            for action, message, category, module, lineno in list(warnings.filters)]


def _judge_filters(found):
    """The judge's warning filters (:func:`_warning_filters`) for a call here: an "error"
    stays one, raised in the code, which may catch it (pytest's ``filterwarnings = error``);
    any other action records the warning ("always"), issued again in the judge, whose
    filters decide. A filter of a category this process does not hold is left out (its code
    cannot issue one)."""
    import re

    made = []
    for entry in found:
        try:
            action, message, (module_name, qualname), module, lineno = entry
            category = sys.modules[str(module_name)]
            for part in str(qualname).split("."):
                category = getattr(category, part)
            if not (isinstance(category, type) and issubclass(category, Warning)):
                continue
            message = message if type(message) is str else ""
            module = module if type(module) is str else ""
            re.compile(message)
            re.compile(module)
            made.append(("error" if action == "error" else "always", message, category,
                         module, lineno if type(lineno) is int and lineno >= 0 else 0))
        except (KeyError, AttributeError, TypeError, ValueError, re.error):
            continue
    return made


def _own_session():
    """A session of its own (its CPU is its session's, see :func:`_schedstat`), in a
    scheduling group at the niceness its sandbox's had (``sandbox_niceness``): a new session
    is a new autogroup, at niceness 0."""
    try:
        with open("/proc/self/autogroup") as handle:
            niceness = int(handle.read().split()[-1])
    except (OSError, ValueError, IndexError):  # a kernel without autogroups
        niceness = 0
    try:
        os.setsid()
    except OSError:  # a session leader already (bwrap's new session)
        return
    for _ in range(30) if niceness > 0 else ():
        try:
            with open("/proc/self/autogroup", "w") as handle:
                handle.write(str(niceness))
            return
        except OSError as error:  # EAGAIN: one change in 100 ms, machine-wide, unprivileged
            if error.errno != errno.EAGAIN:
                return
            _sleep(0.1)


def main(argv):
    _own_session()
    guard_forks(lambda: {os.getsid(0)})
    subject = Subject(int(argv[1]), int(argv[1]))  # the channel: one socket, both ways
    subject.main()
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv)
