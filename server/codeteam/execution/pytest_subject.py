"""The pytest run's *subject*: the process that runs the code under test, apart from pytest
(standard library only; runs *inside* the sandbox; issue 13: the code must not be able to
forge its verdict).

codeteam's pytest plugin (:mod:`codeteam.execution.pytest_plugin`, the *judge*) imports the
project's tests and a *judge view* of the target's module: the user's own text with the
target function's body replaced by one call of ``__codeteam_forward__`` (a builtin the plugin
installs). That call goes to this process, started by the judge before any test runs::

    python <interpreter flags> _codeteam_pytest_subject.py REQUEST_FD REPLY_FD

It loads the *candidate* text of the module under its dotted name (a ``sys.meta_path``
finder: compiled with the original file's path as filename, ``__package__``/``__path__`` as
the original's, so relative imports and ``pkg/__init__.py`` work), finds the target function
(what the module's name is bound to after the import, undecorated: :meth:`Subject.find_target`)
and serves calls. It has nothing but its two pipes (no results descriptor, no pytest objects).

The encoding and the channel are :mod:`codeteam.execution.pytest_codec`'s.
"""

import os
import sys
import time

TRACEBACK_LIMIT = 3000  # characters of the code's own traceback shown with its exception

try:  # in the sandbox: the copy beside this file
    from _codeteam_pytest_codec import (
        FRAMES_LIMIT,
        HEAPTYPE,
        OUTPUT_LIMIT,
        CannotCross,
        Channel,
        Codec,
        Unjudgeable,
        _is_dunder,
        _raisable,
        exception_info,
        forbidden,
        receive_frame,
        send_frame,
    )
except ImportError:  # in codeteam itself
    from codeteam.execution.pytest_codec import (
        FRAMES_LIMIT,
        HEAPTYPE,
        OUTPUT_LIMIT,
        CannotCross,
        Channel,
        Codec,
        Unjudgeable,
        _is_dunder,
        _raisable,
        exception_info,
        forbidden,
        receive_frame,
        send_frame,
    )


class _Capture:
    """A text stream keeping what is written (bounded)."""

    encoding = "utf-8"
    errors = "replace"

    def __init__(self):
        self.parts = []
        self.size = 0

    def write(self, text):
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        if self.size < OUTPUT_LIMIT:
            self.parts.append(text[: OUTPUT_LIMIT - self.size])
            self.size += len(self.parts[-1])
        return len(text)

    def flush(self):
        pass

    def isatty(self):
        return False

    def writable(self):
        return True

    def getvalue(self):
        return "".join(self.parts)


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

        lines = self.text.splitlines(True)
        linecache.cache[self.path] = (len(self.text), None, lines, self.path)
        module.__file__ = self.path
        self.code = compile(self.text, self.path, "exec", dont_inherit=True)
        exec(self.code, module.__dict__)  # noqa: S102 - running the code under test is the point

    def get_source(self, name):
        return self.text

    def is_package(self, name):
        return self.package


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
        self.here = os.path.abspath(__file__)

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
        self.loader = _Loader(config["module"], path, text,
                              os.path.basename(path) == "__init__.py")
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
        has no decorator (``plain``, decided by the judge from its view), that object itself
        (a ``__wrapped__`` the code sets cannot point elsewhere); else unwrapped (``__wrapped__``,
        a static/class method's or bound method's ``__func__``, a property's ``fget``,
        ``partial``/``cached_property``/``singledispatchmethod``'s ``func``) down to the
        function of the ``def`` at the target's line, or to the plain function it is bound to
        (``value = lambda x: ...``: that one). A wrapper that cannot be unwrapped (a closure
        without ``__wrapped__``, an object) is looked into (closure cells, ``__dict__``) for
        a function whose code is that ``def``'s: a function of that code elsewhere (a first
        ``def`` kept in a registry, then rebound) is never the one judged. None when the name
        is not bound; :class:`LookupError` when it is bound to something else."""
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
        unwrapping attributes, closure cells and instance ``__dict__`` values (not through
        modules), or None."""
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
                space = object.__getattribute__(item, "__dict__")
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
            for frame in traceback.extract_tb(exc.__traceback__):
                if frame.filename != self.here:
                    out.append([frame.filename, frame.lineno])
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
            text = "".join(line for line in lines if self.here not in line)
            reply["traceback"] = text[-TRACEBACK_LIMIT:]
        except Exception:  # noqa: S110, BLE001 - no text, the frames still say where
            pass
        return reply

    def apply(self, request):
        """The judge's environment, working directory, sys.path and changed module globals;
        returns what to restore."""
        env = request.get("env")
        if type(env) is dict and env != self.environ:
            os.environ.clear()
            os.environ.update({str(k): str(v) for k, v in env.items()})
            self.environ = env
        cwd = request.get("cwd")
        if type(cwd) is str:
            try:
                os.chdir(cwd)
            except OSError:
                pass
        path = request.get("path")
        if type(path) is list:
            sys.path[:] = [str(p) for p in path]
        view = request.get("view")
        if type(view) is dict:  # the judge's view, once imported (after this process started)
            self.plain = view.get("plain") is True
            names = view.get("globals")
            if type(names) is list:
                self.codec.peer = {n for n in names if type(n) is str}
        saved = {}
        names = request.get("globals")
        if type(names) is dict and self.module is not None:
            space = self.module.__dict__
            for name, value in names.items():
                if type(name) is str and not _is_dunder(name):
                    saved[name] = space.get(name, saved)
                    space[name] = value
        return saved

    def restore(self, saved):
        space = self.module.__dict__ if self.module is not None else {}
        for name, value in saved.items():
            if value is saved:
                space.pop(name, None)
            else:
                space[name] = value

    def serve(self, request):
        if request["kind"] in ("call", "next"):
            return self.call(request)
        return {"kind": "raised", "type": "TypeError", "module": "builtins",
                "message": "an unknown request"}

    def call_handle(self, proxy, args, kwargs):
        """A callback into the judge (a function of the test given as an argument)."""
        return self.answered(self.request({"kind": "call", "handle": proxy._handle[1],
                                           "args": list(args), "kwargs": dict(kwargs)}))

    def next_handle(self, proxy):
        return self.answered(self.request({"kind": "next", "handle": proxy._handle[1]}))

    def answered(self, reply):
        if reply["kind"] == "stop":
            raise StopIteration
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
        origin = reply.get("origin")
        if type(origin) is int:
            try:
                exc._codeteam_origin = origin
            except Exception:  # noqa: S110, BLE001
                pass
        raise exc

    def call(self, request):
        saved = self.apply(request)
        if request["kind"] == "call" and request.get("handle") is None:
            self.target, problem = self.targets.get(self.plain, (None, self.problem))
            problem = self.problem or problem
            if problem:
                self.restore(saved)
                return dict(problem, out="", err="")
        streams = sys.stdout, sys.stderr
        out, err = _Capture(), _Capture()
        sys.stdout, sys.stderr = out, err
        args = request.get("args") or []
        kwargs = request.get("kwargs") or {}
        try:
            if request["kind"] == "next":
                reply = Channel.serve(self, request)
            elif request.get("handle") is None:
                import warnings

                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    try:
                        value = self.target(*args, **kwargs)
                    except BaseException as exc:  # noqa: BLE001 - SystemExit too: judged there
                        reply = self.raised(exc)
                    else:
                        reply = {"kind": "value", "value": value}
                reply["warnings"] = [
                    [[getattr(w.category, "__module__", "builtins"),
                      getattr(w.category, "__qualname__", "Warning")], str(w.message)[:10000],
                     str(w.filename), int(w.lineno or 0)] for w in caught[:100]]
            else:
                try:
                    reply = Channel.serve(self, request)
                except BaseException as exc:  # noqa: BLE001
                    reply = self.raised(exc)
        finally:
            sys.stdout, sys.stderr = streams
            self.restore(saved)
        reply["out"] = out.getvalue()
        reply["err"] = err.getvalue()
        if request["kind"] == "call":
            reply["after"] = [list(args), dict(kwargs)]
        try:
            self.encoded = (reply, self.codec.dumps(reply))  # sent as is (see send)
        except CannotCross as error:
            reply = {"kind": "raised", "type": "TypeError", "module": "builtins",
                     "bases": [["builtins", "TypeError"]], "message": str(error), "frames": []}
        return reply

    encoded = None

    def send(self, message):
        """Send ``message``; the reply :meth:`call` encoded already is not encoded again (the
        same bytes: within a call's session the numbering is kept)."""
        ready, self.encoded = self.encoded, None
        if ready is not None and ready[0] is message:
            send_frame(self.wfd, ready[1])
            return
        super().send(message)

    def main(self):
        config = self.receive()
        self.start(config)
        while True:
            self.codec.session()
            try:
                request = self.receive()
            except (ValueError, ImportError) as error:  # what this side cannot rebuild
                self.send({"kind": "raised", "type": "TypeError", "module": "builtins",
                           "bases": [["builtins", "TypeError"]], "frames": [],
                           "message": "the arguments could not be rebuilt for the code under "
                           f"test: {error}"})
                continue
            except (EOFError, OSError):
                return
            if request["kind"] == "quit":
                return
            self.send(self.serve(request))


# The judge's side of the call: see codeteam's pytest plugin (JudgeClient lives there too).


class JudgeError(BaseException):
    """A plain error in the test, decided by the judge (the subject died, sent something that
    cannot be judged, raised a pytest outcome...): a BaseException, so the test's own
    ``except Exception`` or ``pytest.raises(Exception)`` does not catch it."""


class OneProcess(BaseException):
    """An argument the protocol cannot carry: the test is run again the old way."""


class JudgeClient(Channel):
    """The judge's end: starts the subject, forwards calls, rebuilds answers."""

    side = "judge"

    def __init__(self, config, subject_file, on_error, on_fallback, timeout_error, limit):
        self.config = config
        self.subject_file = subject_file
        self.on_error = on_error
        self.on_fallback = on_fallback
        self.timeout_error = timeout_error
        self.limit = limit
        self.process = None
        self.globals = None
        self.snapshot = {}
        self.sent_env = None
        self.sent_path = None
        self.sent_view = None
        self.generation = 0
        self.codec = Codec(True, self)
        self.rfd = self.wfd = None
        self.depth = 0
        self.broken = None
        self.ran = False  # the candidate has run for the current test (see new_test)
        self.unjudged = False  # the current test's error is "cannot be judged" (see new_test)

    def new_test(self):
        """A test starts: until its first call reaches the subject, an argument that cannot
        cross makes it run the old way (:class:`OneProcess`); after that, nothing does.
        ``unjudged`` says whether the test's error was that a value could not cross once the
        code ran ("cannot be judged": not the code's failure, nor a pass)."""
        self.ran = False
        self.unjudged = False

    def deadline(self):
        return time.monotonic() + self.limit + 2.0 if self.limit else None

    # -- the subject's life ------------------------------------------------------------------

    def start(self):
        import subprocess

        self.generation += 1
        self.codec = Codec(True, self)
        self.codec.generation = self.generation
        root = self.config.get("root")
        self.codec.roots = (str(root),) if type(root) is str else None
        if self.globals is not None:
            self.codec.remember_globals(self.globals)
        to_subject = os.pipe()
        from_subject = os.pipe()
        flags = subprocess._args_from_interpreter_flags()
        quiet = None  # its crashes and C-level writes show in the run's stderr
        try:
            self.process = subprocess.Popen(
                [sys.executable, *flags, self.subject_file, str(to_subject[0]),
                 str(from_subject[1])], pass_fds=(to_subject[0], from_subject[1]),
                close_fds=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=quiet)
        finally:
            os.close(to_subject[0])
            os.close(from_subject[1])
        self.wfd, self.rfd = to_subject[1], from_subject[0]
        self.sent_env = self.sent_path = None
        self.sent_view = (self.plain(), tuple(self.codec.global_names()))
        config = dict(self.config, sys_path=[os.path.abspath(p or ".") for p in sys.path],
                      cwd=os.getcwd(), globals=self.codec.global_names(), plain=self.plain())
        send_frame(self.wfd, self.codec.dumps(config))
        ready = self.codec.loads(receive_frame(
            self.rfd, time.monotonic() + (self.limit + 2.0 if self.limit else 60.0)))
        if type(ready) is not dict or ready.get("kind") != "ready":
            raise ValueError("a malformed first answer")
        self.share(ready.get("modules"))
        # codec.peer stays None: the judge sends each sentinel of its view by name, whatever
        # the subject says it has (a name the code removed fails there, never sends the test
        # the old way); the subject sends by name only what the judge has (its own list)

    def plain(self):
        """Whether the view binds the target's name to a plain function of that name (the
        user's ``def`` has no decorator): the subject then calls exactly what the candidate
        binds the name to (:meth:`Subject.find_target`)."""
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
        decision: the subject's list, sent after the candidate ran, can add to it, never take
        away, so the code cannot make an argument fail to cross and send its test the old
        way), and ``modules``, the subject's."""
        listed = {m for m in modules if type(m) is str} if type(modules) is list else set()
        self.codec.shared = listed | importable_modules()

    def end(self, quit=False):
        """End the subject; how it ended (text)."""
        process, self.process = self.process, None
        if process is None:
            return "it was not running"
        if quit:
            try:
                send_frame(self.wfd, self.codec.dumps({"kind": "quit"}))
                process.wait(timeout=1.0)
            except Exception:  # noqa: S110, BLE001
                pass
        if process.poll() is None:
            process.kill()
        code = process.wait()
        for fd in (self.rfd, self.wfd):
            try:
                os.close(fd)
            except (OSError, TypeError):
                pass
        self.rfd = self.wfd = None
        if code < 0:
            import signal

            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return f"killed by {name}"
        return f"it exited with status {code}"

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

    def changed_globals(self):
        """The module's globals the test rebound (``monkeypatch.setattr``) or whose small
        list/dict/set it changed in place (``monkeypatch.setitem``) since the import."""
        if self.globals is None:
            return {}
        changed = {}
        for name, value in list(self.globals.items()):
            if _is_dunder(name):
                continue
            if name not in self.snapshot or self.snapshot[name] is not value or name in self.contents and _contents(value) != self.contents[name]:
                changed[name] = value
        return changed

    def forward(self, args, kwargs):
        return self.ask({"kind": "call", "handle": None, "args": list(args),
                         "kwargs": dict(kwargs)}, args, kwargs)

    def call_handle(self, proxy, args, kwargs):
        self.check_handle(proxy)
        return self.ask({"kind": "call", "handle": proxy._handle[1], "args": list(args),
                         "kwargs": dict(kwargs)}, args, kwargs)

    def next_handle(self, proxy):
        self.check_handle(proxy)
        return self.ask({"kind": "next", "handle": proxy._handle[1]}, None, None)

    def check_handle(self, proxy):
        if self.process is None or proxy._handle[0] != self.generation:
            self.fail("the object came from a process of the code under test that has ended")

    def ensure(self):
        """A running subject: started now if needed. An import of the code under test that
        hangs or kills its process is an error for every later call too (``broken``)."""
        if self.broken is not None:
            self.fail(self.broken)
        if self.process is not None:
            return
        try:
            self.start()
        except TimeoutError:
            self.end()
            self.broken = (f"importing the code under test did not end within "
                           f"{self.limit + 2.0:g} s")
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

    def fail(self, message):
        self.on_error(message)
        raise JudgeError(message)

    def ask(self, request, args, kwargs):
        if self.depth == 0:
            self.ensure()
            env = dict(os.environ)
            if env != self.sent_env:
                request["env"] = env
                self.sent_env = env
            request["cwd"] = os.getcwd()
            path = [os.path.abspath(p or ".") for p in sys.path]
            if path != self.sent_path:
                request["path"] = path
                self.sent_path = path
            request["globals"] = self.changed_globals()
            view = (self.plain(), tuple(self.codec.global_names()))
            if view != self.sent_view:  # the view was imported after the subject started
                request["view"] = {"plain": view[0], "globals": list(view[1])}
                self.sent_view = view
            for value in request["globals"].values():  # a new value crosses as itself
                self.codec.globals.pop(id(value), None)
        if self.depth == 0:
            self.codec.session()
        try:
            data = self.codec.dumps(request)
        except CannotCross as error:
            if self.depth == 0 and request.get("handle") is None and not self.ran:
                # the test's own arguments, before the candidate ran for it: the old way
                reason = f"an argument cannot be sent to the code under test ({error})"
                self.on_fallback(reason)
                raise OneProcess(reason) from None
            self.unjudged = True
            self.fail(f"a value for the code under test could not cross ({error}) once it "
                      "ran for this test: cannot be judged")
        self.ran = True
        self.depth += 1
        try:
            send_frame(self.wfd, data)
            while True:
                frame = receive_frame(self.rfd, self.deadline())
                try:
                    reply = self.codec.loads(frame)
                except Unjudgeable as error:
                    self.end()
                    # a class the function itself defines (its qualname has <locals>) is
                    # the code's doing: an error; a library's class is not: not judged
                    self.unjudged = "<locals>" not in str(error)
                    self.fail("the code under test sent what the judge does not rebuild "
                              f"({error}: only the project's own classes cross by state); it "
                              "cannot be judged")
                if type(reply) is not dict or type(reply.get("kind")) is not str:
                    raise ValueError("a malformed answer")
                if reply["kind"] in ("value", "raised", "stop"):
                    break
                answer = self.serve_judge(reply)
                send_frame(self.wfd, self.codec.dumps(answer))
        except TimeoutError:
            self.end()
            raise self.timeout_error(f"the test ran past its {self.limit} s limit") from None
        except (EOFError, OSError, ValueError) as error:
            reason = self.end()
            if isinstance(error, ValueError):
                reason = f"it sent a malformed answer ({error})"
            self.fail(f"the process running the code under test died during this call: {reason}")
        except (JudgeError, OneProcess):
            if self.process is not None:
                self.end()
            raise
        except BaseException:  # the test's timeout, KeyboardInterrupt: the channel is lost
            if self.process is not None:
                self.end()
            raise
        finally:
            self.depth -= 1
        for key, stream in (("out", sys.stdout), ("err", sys.stderr)):
            text = reply.get(key)
            if type(text) is str and text:
                stream.write(text)
        self.warn(reply.get("warnings"))
        if reply["kind"] == "stop":
            raise StopIteration
        if reply["kind"] == "raised":
            raise self.rebuilt(reply)
        return reply.get("value")  # the arguments, changed in place, came back in "after"

    def serve_judge(self, request):
        """A callback or ``next`` the subject asks for while the judge waits."""
        if request["kind"] not in ("call", "next"):
            raise ValueError("an unknown request")
        found = self.codec.exported.get(request.get("handle"), self)
        if found is self:
            raise ValueError("an unknown handle")
        try:
            if request["kind"] == "next":
                try:
                    value = next(found)
                except StopIteration:
                    return {"kind": "stop"}
            else:
                args, kwargs = request.get("args"), request.get("kwargs")
                if type(args) is not list or type(kwargs) is not dict:
                    raise ValueError("a malformed call")
                value = found(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - raised in the subject, as in one process
            handle = len(self.codec.exported) + 1
            self.codec.exported[handle] = exc
            info = exception_info(exc, self.codec)
            info["origin"] = handle
            return info
        try:
            self.codec.dumps(value)
        except CannotCross as error:  # the candidate is running: never the old way
            self.unjudged = True
            self.fail(f"the answer of a callback for the code under test could not cross "
                      f"({error}): cannot be judged")
        return {"kind": "value", "value": value}

    def warn(self, found):
        """The warnings the call issued, issued again here (``pytest.warns`` sees them)."""
        import warnings

        for entry in found if type(found) is list else []:
            try:
                (module, qualname), message, filename, lineno = entry
                category = self.codec.resolve(str(module), str(qualname))
            except (Unjudgeable, ValueError, TypeError):
                continue
            if issubclass(category, Warning) and not any(
                    forbidden(getattr(b, "__module__", "builtins")) for b in category.__mro__):
                warnings.warn_explicit(str(message), category, str(filename), int(lineno))

    def rebuilt(self, reply):
        """The judge-side exception for a ``raised`` reply."""
        frames = [f for f in reply.get("frames") or [] if type(f) is list and len(f) == 2
                  and type(f[0]) is str and type(f[1]) is int]
        origin = reply.get("origin")
        exc = None
        if type(origin) is int and _raisable(type(self.codec.exported.get(origin))):
            exc = self.codec.exported[origin]  # the test's own exception, back through the code
        candidate = reply.get("exc")
        name = "{}.{}".format(reply.get("module"), reply.get("type"))
        message = str(reply.get("message", ""))
        if exc is None and _raisable(type(candidate)) and not reply.get("import_failed"):
            exc = candidate
        if exc is None and not reply.get("import_failed"):
            for base in reply.get("bases") or []:
                if type(base) is not list or len(base) != 2:
                    continue
                try:
                    cls = self.codec.resolve(str(base[0]), str(base[1]))
                except Unjudgeable:
                    continue
                if _raisable(cls):  # a class the judge lacks: its nearest base the judge has
                    kind = type(str(reply.get("type") or "Error").rsplit(".", 1)[-1], (cls,),
                                {"__module__": str(reply.get("module") or "builtins")})
                    kind.__qualname__ = str(reply.get("type") or kind.__name__)
                    base = next(b for b in kind.__mro__ if not b.__flags__ & HEAPTYPE)
                    exc = base.__new__(kind)
                    exc.args = (message,)
                    break
                break  # a BaseException (SystemExit, pytest's outcomes): a plain error
        if exc is None:
            if reply.get("import_failed"):
                text = f"importing the code under test failed: {name}: {message}"
            else:
                text = f"the code under test raised {name}: {message}"
            self.on_error(text)
            exc = JudgeError(text)
        try:
            exc.__codeteam_frames__ = frames
            text = reply.get("traceback")
            if type(text) is str and text and hasattr(exc, "add_note"):
                exc.add_note("In the code under test's process:\n" + text.rstrip("\n"))
        except Exception:  # noqa: S110, BLE001
            pass
        return exc


def importable_modules():
    """Modules of this process the subject imports by name too (same ``sys.path``): a module
    with a file that is not a test file (``test_*.py``, ``*_test.py``, ``conftest.py``: pytest's
    own imports, never the subject's) nor one of :func:`forbidden`'s."""
    found = set()
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if type(name) is not str or type(path) is not str or forbidden(name):
            continue
        base = os.path.basename(path)
        if base.startswith("test_") or base.endswith("_test.py") or base == "conftest.py":
            continue
        if getattr(getattr(module, "__spec__", None), "name", None) != name:
            continue  # a module under another name (pytest's importlib mode, exec'd files)
        found.add(name)
    return found


def _contents(value):
    """The plain-data encoding of ``value`` (at most 64 KB), or None."""
    try:
        data = Codec(True).dumps(value)
    except (CannotCross, RecursionError):
        return None
    return data if len(data) <= 65536 else None


def main(argv):
    requests, replies = int(argv[1]), int(argv[2])
    subject = Subject(requests, replies)
    subject.main()
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv)
