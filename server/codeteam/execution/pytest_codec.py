"""The encoding judge and subject speak in a judged pytest run (standard library only; copied
into the sandbox as ``_codeteam_pytest_codec.py``, beside
:mod:`codeteam.execution.pytest_subject`).

The protocol (:class:`Codec`): length-prefixed frames of a strict tagged encoding of our own
(no pickle/marshal):

- plain data, exact types: None, bool, int, float, complex, str, bytes, list, tuple, dict,
  set, frozenset (shared and cyclic lists/dicts/sets/objects kept: back-references); a
  container of 16 or more items that are all exact floats and 64-bit ints holds them as one
  run of machine numbers (``A``: a million floats cross in milliseconds, not seconds);
- references to classes and functions by ``module`` + ``qualname`` (the judge looks them up
  in ``sys.modules`` only, never imports, and takes no name starting with ``_``). From the
  subject the judge takes by name only an allow-list (:meth:`Codec.safe_reference`): the
  project's own functions and classes (:func:`own_file`), builtins of :data:`SAFE_BUILTINS`,
  functions and classes of :data:`PURE_MODULES`; anything else arrives as a handle;
- objects of the project's own classes by state (``__dict__``, ``__slots__``; created with
  ``object.__new__``, no class code runs; the judge rebuilds no other class's object from the
  subject's state, so no library ``__repr__``/``__hash__`` runs on it), namedtuples, enum
  members by name, exceptions (args and ``__dict__``; a library's only when it defines none of
  :data:`HOOKS`), and a few standard value types (datetime, date, time, timedelta, timezone,
  Decimal, Fraction, pathlib paths, range, bytearray, OrderedDict, defaultdict, deque,
  Counter), the only constructors called;
- a module global both sides have that is no plain data, module or callable (a sentinel) by
  its name alone (tag ``G``): the receiver uses its own;
- *handles*: a callable or iterator of one side that the protocol cannot copy crosses as an
  id; the other side gets a :class:`RemoteCallable` / :class:`RemoteIterator` that asks for
  each call or ``next`` (nested calls both ways work: each side serves the other's requests
  while it waits). Their ``==``, ``hash`` and ``repr`` are the holder's own (identity).

Nothing of ``_pytest``, ``pytest``, ``pluggy``, ``unittest.mock`` or codeteam ever crosses
(neither as reference nor as handle); modules, frames and code objects never cross; no
attribute is ever set, deleted or read through a handle.
"""

import os
import sys
import time

FRAME_LIMIT = 64 * 1024 * 1024  # bytes of one message
DEPTH_LIMIT = 150  # nesting of encoded values
OUTPUT_LIMIT = 100_000  # characters of stdout/stderr sent back per call
FRAMES_LIMIT = 40
HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class defined in Python
FORBIDDEN = ("_pytest", "pytest", "pluggy", "py", "unittest.mock", "codeteam",
             "_codeteam_pytest_plugin", "_codeteam_pytest_subject", "_codeteam_pytest_codec",
             "__main__")


def forbidden(module):
    """Whether objects of ``module`` (a dotted name) may never cross."""
    if type(module) is not str:
        return True
    return any(module == name or module.startswith(name + ".") for name in FORBIDDEN)


class CannotCross(Exception):
    """A value the protocol cannot carry."""


class Unjudgeable(ValueError):
    """A value of a class the receiving side cannot resolve (defined by the code under test)."""


def _is_dunder(name):
    return name.startswith("__") and name.endswith("__")


_PYTHON_CLASSES = {}


def _python_class(cls):
    """Whether every class of ``cls``'s MRO but ``object`` is defined in Python (its
    instances' state is their ``__dict__`` and slots; ``object.__new__`` makes one)."""
    known = _PYTHON_CLASSES.get(cls)
    if known is None:
        try:
            known = all(base.__flags__ & HEAPTYPE for base in cls.__mro__[:-1])
            if known:
                object.__new__(cls)  # "not safe" for a C type (itemgetter, partial...)
        except (AttributeError, TypeError):
            known = False
        _PYTHON_CLASSES[cls] = known
    return known


def _slot_names(cls):
    names = []
    for base in cls.__mro__:
        slots = base.__dict__.get("__slots__", ())
        if isinstance(slots, str):
            slots = (slots,)
        for name in slots:
            if name in ("__dict__", "__weakref__"):
                continue
            if name.startswith("__") and not name.endswith("__"):
                name = "_" + base.__name__.lstrip("_") + name
            if name not in names:
                names.append(name)
    return names


SAFE_BUILTINS = frozenset({
    "abs", "all", "any", "ascii", "bin", "bool", "bytes", "bytearray", "callable", "chr",
    "complex", "dict", "divmod", "enumerate", "filter", "float", "format", "frozenset", "hash",
    "hex", "id", "int", "isinstance", "issubclass", "iter", "len", "list", "map", "max", "min",
    "next", "object", "oct", "ord", "pow", "range", "repr", "reversed", "round", "set", "slice",
    "sorted", "str", "sum", "tuple", "zip"})
"""Builtins the judge takes from the subject by name (:meth:`Codec.safe_reference`): none runs
code given as data, reaches attributes by name, files, the system or the interpreter (not
``exec``, ``eval``, ``compile``, ``open``, ``getattr``, ``__import__``, ``type``, ``print``...);
their methods too but ``str.format``/``format_map`` (which read attributes)."""
SAFE_OPERATORS = frozenset({
    "abs", "add", "and_", "concat", "contains", "countOf", "eq", "floordiv", "ge", "gt",
    "index", "indexOf", "inv", "invert", "is_", "is_not", "le", "lshift", "lt", "matmul",
    "mod", "mul", "ne", "neg", "not_", "or_", "pos", "pow", "rshift", "sub", "truediv",
    "truth", "xor"})
PURE_MODULES = {
    "math": None, "cmath": None, "itertools": None, "statistics": None, "numbers": None,
    "datetime": None, "heapq": None, "bisect": None, "textwrap": None, "unicodedata": None,
    "struct": None, "difflib": None, "keyword": None, "fractions": None, "re": None,
    "collections": None, "collections.abc": None, "string": {"capwords", "Template"},
    "decimal": {"Decimal"}, "pathlib": {"PurePath", "PurePosixPath", "PureWindowsPath"}}
"""Standard modules whose functions and classes the judge takes from the subject by name
(``None``: all but :data:`PURE_EXCLUDED`; a set: only those); a leading ``_`` of the defining
module is ignored (``_heapq.heappush``). ``operator``: :data:`SAFE_OPERATORS` only. Anything
else of the subject (``timeit.timeit``, ``functools.partial``, ``subprocess.Popen``...) crosses
as a handle (its calls run in the subject) or, for a class, not at all."""
PURE_EXCLUDED = {"collections": {"namedtuple"}, "re": {"purge"}}


def _env_dirs():
    """Directories of the interpreter and its installed packages (never the project's own)."""
    import sysconfig

    dirs = set()
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        try:
            dirs.add(sysconfig.get_paths()[key])
        except Exception:  # noqa: S110, BLE001
            pass
    try:
        import site

        dirs.update(site.getsitepackages())
        dirs.add(site.getusersitepackages())
    except Exception:  # noqa: S110, BLE001
        pass
    return tuple(os.path.join(os.path.realpath(d), "") for d in dirs if type(d) is str and d)


_ENV_DIRS = []
_OWN_FILES = {}


def own_file(path, roots=None):
    """Whether ``path`` (a module's ``__file__``) is one of the project's own files: under one
    of ``roots`` (all directories when None) and not under the interpreter's library or any
    ``site-packages``/``dist-packages`` (a virtualenv inside the project included)."""
    key = (path, roots)
    known = _OWN_FILES.get(key)
    if known is None:
        if not _ENV_DIRS:
            _ENV_DIRS.append(_env_dirs())
        real = os.path.realpath(path)
        parts = real.split(os.sep)
        known = not any(real.startswith(d) for d in _ENV_DIRS[0]) and not (
            "site-packages" in parts or "dist-packages" in parts) and (
            roots is None or any(real.startswith(os.path.join(r, "")) for r in roots))
        _OWN_FILES[key] = known
    return known


def _sentinel_like(value):
    """Whether a module global may cross by its name (tag ``G``): not a module, class,
    function or any callable, not plain data (which crosses as itself)."""
    import types

    return not isinstance(value, (
        str, bytes, int, float, complex, type(None), tuple, frozenset, type, list, dict, set,
        types.ModuleType, types.FunctionType, types.BuiltinFunctionType)) and not callable(value)


HOOKS = ("__repr__", "__str__", "__format__", "__hash__", "__eq__", "__ne__", "__lt__",
         "__le__", "__gt__", "__ge__", "__bool__", "__len__", "__iter__", "__contains__",
         "__getattr__", "__getattribute__", "__getitem__", "__del__", "__reduce__",
         "__reduce_ex__", "__copy__", "__deepcopy__", "__setattr__", "__instancecheck__")
"""Methods the judge (or pytest) calls on a value without the test asking: a class of a
library rebuilt from the subject's state must define none of them in Python
(:func:`_no_hooks`)."""


def _no_hooks(cls, stop):
    """Whether no class of ``cls``'s MRO before ``stop`` defines a method of :data:`HOOKS`
    (a namedtuple's generated ``__repr__`` aside)."""
    for base in cls.__mro__:
        if base is stop:
            return True
        for name in HOOKS:
            found = vars(base).get(name)
            if found is None:
                continue
            if name == "__repr__" and getattr(found, "__qualname__", "") == (
                    "namedtuple.<locals>.__repr__"):
                continue
            return False
    return True


_VALUE_MODULES = {"datetime": "datetime", "date": "datetime", "time": "datetime",
                  "timedelta": "datetime", "timezone": "datetime", "Decimal": "decimal",
                  "Fraction": "fractions", "OrderedDict": "collections",
                  "defaultdict": "collections", "deque": "collections",
                  "Counter": "collections", "partial": "functools"}
_PATHS = ("PurePath", "PurePosixPath", "PureWindowsPath", "Path", "PosixPath", "WindowsPath")


class RemoteCallable:
    """A callable of the other process: each call is a request to it. Its ``__name__``,
    ``__doc__``, ``__signature__``, ``__wrapped__``... are copies made when it crossed
    (never looked up in the other process)."""

    def __init__(self, channel, handle, name):
        self._channel = channel
        self._handle = handle
        self._name = name

    def __call__(self, *args, **kwargs):
        return self._channel.call_handle(self, args, kwargs)

    def __repr__(self):
        return f"<remote callable {self._name}>"

    def __reduce__(self):
        raise TypeError("a callable of the code under test's process cannot be pickled")


class RemoteIterator:
    """An iterator of the other process: each ``next`` is a request to it."""

    def __init__(self, channel, handle, name):
        self._channel = channel
        self._handle = handle
        self._name = name

    def __iter__(self):
        return self

    def __next__(self):
        return self._channel.next_handle(self)

    def __repr__(self):
        return f"<remote iterator {self._name}>"

    def __reduce__(self):
        raise TypeError("an iterator of the code under test's process cannot be pickled")


_META_DUNDERS = ("__name__", "__qualname__", "__doc__", "__module__", "__wrapped__",
                 "__annotations__")


class Codec:
    """One side's encoder and decoder. ``strict`` (the judge): references are looked up in
    ``sys.modules`` only and no name part may start with ``_``; classes it cannot resolve
    make the value :class:`Unjudgeable`. ``shared``: module names the other side has
    imported (references to other modules' functions cross as handles instead)."""

    def __init__(self, strict, channel=None):
        self.strict = strict
        self.channel = channel
        self.exported = {}  # handle id -> own object
        self.export_ids = {}  # id(own object) -> handle id
        self.proxies = {}  # handle id of the other side -> proxy
        self.shared = None
        self.generation = 0
        self.session()
        self.globals = {}  # id(a module global's value) -> (name, value): sentinels
        self.space = None  # that module's namespace
        self.peer = None  # names of the other side's such globals (None: unknown, all)
        self.roots = None  # the project's directories (None: any outside the interpreter's)

    def own(self, module):
        """Whether ``module`` (a name in ``sys.modules``) is one of the project's own modules
        (see :func:`own_file`): the judge rebuilds objects of its classes from the subject's
        state and takes its functions and classes by name."""
        if forbidden(module):
            return False
        found = sys.modules.get(module)
        path = getattr(found, "__file__", None) if found is not None else None
        return type(path) is str and own_file(path, self.roots)

    def safe_reference(self, found):
        """Whether the judge takes ``found`` (a function or class the subject named) as its
        own object: defined in a project module, a builtin of :data:`SAFE_BUILTINS` (any
        builtin exception class), or of :data:`PURE_MODULES`; its own ``__module__`` is what
        counts (``from os import system`` in a project module does not make it the project's)."""
        module = getattr(found, "__module__", None)
        if module is None and hasattr(found, "__objclass__"):  # str.lower
            module = getattr(found.__objclass__, "__module__", None)
        qualname = getattr(found, "__qualname__", None)
        if type(module) is not str or type(qualname) is not str or forbidden(module):
            return False
        if self.own(module):
            return True
        head, _, tail = qualname.partition(".")
        if module == "builtins":
            if isinstance(found, type) and issubclass(found, BaseException):
                return not tail
            return head in SAFE_BUILTINS and tail not in ("format", "format_map")
        base = module[1:] if module.startswith("_") else module  # noqa: FURB188 - Python 3.8 too
        if base == "operator":
            return qualname in SAFE_OPERATORS
        if base not in PURE_MODULES:
            return False
        allowed = PURE_MODULES[base]
        return qualname in allowed if allowed is not None else (
            qualname not in PURE_EXCLUDED.get(base, ()))

    def rebuildable(self, cls, stop=object):
        """Whether the judge rebuilds an object of ``cls`` from the other side's state: a
        class of a project module, ``object`` itself, or (``stop`` given: exceptions,
        namedtuples) a class that defines none of :data:`HOOKS` above ``stop``."""
        if cls is object:
            return True
        module = getattr(cls, "__module__", None)
        if type(module) is not str or forbidden(module):
            return False
        if self.own(module):
            return True
        return stop is not object and (module == "builtins" or _no_hooks(cls, stop))

    # -- encoding ----------------------------------------------------------------------------

    def dumps(self, value):
        out = []
        self._enc(value, out, {}, 0)
        return b"".join(out)

    def session(self):
        """A new call: numbering of the objects that cross restarts. Within one call (with
        its nested callbacks) an object keeps its number both ways, so what crosses back is
        the sender's own object (identity kept), updated in place with what the other side
        made of it."""
        self.sent = []  # own objects sent, by number
        self.sent_ids = {}  # id(own object) -> number
        self.got = {}  # the other side's number -> local copy
        self.got_ids = {}  # id(local copy) -> the other side's number

    def remember_globals(self, space):
        """The module's globals that may be sentinels (not plain scalars, functions, classes)."""
        self.space = space
        self.globals = {}
        for name, value in list(space.items()):
            if type(name) is str and not _is_dunder(name) and _sentinel_like(value):
                self.globals[id(value)] = (name, value)

    def global_names(self):
        """The names :meth:`remember_globals` kept (sent to the other side: :attr:`peer`)."""
        return sorted(name for name, _ in self.globals.values())

    def _str(self, text, out):
        data = str.encode(text, "utf-8", "surrogatepass")
        out.append(b"%d:" % len(data) + data)

    def _ref_name(self, obj):
        """``(module, qualname)`` naming ``obj`` (a class or function) in its module, or None."""
        try:
            module = getattr(obj, "__module__", None)
            qualname = getattr(obj, "__qualname__", None)
            if module is None and hasattr(obj, "__objclass__"):  # a method descriptor: str.lower
                module = obj.__objclass__.__module__
            if type(module) is not str or type(qualname) is not str or forbidden(module):
                return None
            if "<" in qualname or any(_is_dunder(p) for p in qualname.split(".")):
                return None
            found = sys.modules.get(module)
            if found is None:
                return None
            for part in qualname.split("."):
                found = getattr(found, part)
            if found is not obj:
                return None
        except Exception:  # noqa: BLE001 - a strange object: not a reference
            return None
        return module, qualname

    def _shared(self, module):
        if self.shared is None:
            return True
        root = module.split(".")[0]
        return module in self.shared or root in getattr(sys, "stdlib_module_names", ()) or (
            root == "builtins")

    def _export(self, obj, kind, out):
        key = id(obj)
        handle = self.export_ids.get(key)
        if handle is None or self.exported.get(handle) is not obj:
            handle = len(self.exported) + 1
            self.exported[handle] = obj
            self.export_ids[key] = handle
        try:
            name = str(getattr(obj, "__qualname__", None) or type(obj).__name__)[:80]
        except Exception:  # noqa: BLE001
            name = "?"
        out.append(b"H" + kind + b"%d;" % handle)
        self._str(name, out)
        self._enc(self._meta(obj) if kind == b"c" else {}, out, {}, DEPTH_LIMIT - 20)

    def _meta(self, obj):
        """What the other side's proxy copies: names, docstring, signature, attributes."""
        meta = {}
        for key in ("__name__", "__qualname__", "__doc__", "__module__"):
            try:
                value = getattr(obj, key, None)
            except Exception:  # noqa: S112, BLE001
                continue
            if type(value) is str:
                meta[key] = value
        try:
            attributes = dict(object.__getattribute__(obj, "__dict__"))
        except Exception:  # noqa: BLE001
            attributes = {}
        for key, value in attributes.items():
            if type(key) is str and not key.startswith("_codeteam") and (
                    not _is_dunder(key) or key in _META_DUNDERS) and self._sendable(value):
                meta[key] = value
        try:
            import inspect

            signature = inspect.signature(obj)
        except Exception:  # noqa: BLE001 - no signature
            return meta
        params = []
        for param in signature.parameters.values():
            entry = {"name": param.name, "kind": int(param.kind)}
            if param.default is not param.empty and self._sendable(param.default):
                entry["default"] = param.default
            elif param.default is not param.empty:
                return meta
            if param.annotation is not param.empty and self._sendable(param.annotation):
                entry["annotation"] = param.annotation
            params.append(entry)
        meta["__signature__"] = params
        if signature.return_annotation is not signature.empty and self._sendable(
                signature.return_annotation):
            meta["__return__"] = signature.return_annotation
        return meta

    def _sendable(self, value):
        marking, self.mark_unjudgeable = self.mark_unjudgeable, False
        try:
            self._enc(value, [], {}, DEPTH_LIMIT - 20)
            return True
        except Exception:  # noqa: BLE001 - CannotCross, or a strange object
            return False
        finally:
            self.mark_unjudgeable = marking

    def _enc(self, value, out, memo, depth):
        if depth > DEPTH_LIMIT:
            raise CannotCross("nested too deeply")
        kind = type(value)
        if value is None:
            out.append(b"N")
        elif value is True:
            out.append(b"T")
        elif value is False:
            out.append(b"F")
        elif kind is int:
            out.append(b"i" + int.__format__(value, "x").encode() + b";")
        elif kind is float:
            out.append(b"f" + float.hex(value).encode() + b";")
        elif kind is complex:
            out.append(b"c" + float.hex(value.real).encode() + b";"
                       + float.hex(value.imag).encode() + b";")
        elif kind is str:
            out.append(b"s")
            self._str(value, out)
        elif kind is bytes:
            out.append(b"b%d:" % len(value) + value)
        elif id(value) in memo:
            out.append(b"r%d;" % memo[id(value)][0])
        elif self._marked(value, kind, out):
            pass
        elif kind in (list, dict, set):
            self._track(value, out)
            memo[id(value)] = (len(memo), value)
            items = list(dict.items(value)) if kind is dict else list(value)
            out.append({list: b"l", dict: b"d", set: b"S"}[kind] + b"%d:" % len(items))
            if kind is not dict and _numbers(items, out):
                return
            for item in items:
                if kind is dict:
                    self._enc(item[0], out, memo, depth + 1)
                    self._enc(item[1], out, memo, depth + 1)
                else:
                    self._enc(item, out, memo, depth + 1)
        elif kind in (tuple, frozenset):
            if value:
                self._track(value, out)  # identity (``id``, ``is``) kept for these too
            items = list(value)
            out.append((b"t" if kind is tuple else b"Z") + b"%d:" % len(items))
            if not _numbers(items, out):
                for item in items:
                    self._enc(item, out, memo, depth + 1)
            memo[id(value)] = (len(memo), value)
        elif kind in (RemoteCallable, RemoteIterator):
            if value._channel is not self.channel or value._handle[0] != self.generation:
                raise CannotCross("a handle of a process that has ended")
            out.append(b"Y%d;" % value._handle[1])
        else:
            self._enc_other(value, kind, out, memo, depth)

    def _marked(self, value, kind, out):
        """A value of the module's globals (a sentinel such as ``_missing = object()``, of a
        class of its own or not) that the other side has too (:attr:`peer`) crosses by its
        name alone: the other side uses its own global of that name (identity by name)."""
        found = self.globals.get(id(value))
        if found is None or found[1] is not value or (
                self.peer is not None and found[0] not in self.peer):
            return False
        out.append(b"G")
        self._str(found[0], out)
        return True

    def _track(self, value, out):
        """``W<n>;``: the other side's object ``n`` (this copy's state follows); ``w<n>;``:
        this side's object ``n`` (see :meth:`session`)."""
        number = self.got_ids.get(id(value))
        if number is not None and self.got.get(number) is value:
            out.append(b"W%d;" % number)
            return
        number = self.sent_ids.get(id(value))
        if number is None or self.sent[number] is not value:
            number = len(self.sent)
            self.sent.append(value)
            self.sent_ids[id(value)] = number
        out.append(b"w%d;" % number)

    def _cannot(self, reason, out):
        """A value this side cannot send: the subject marks it (an error where the judge
        decodes it), the judge stops (the test is run the old way)."""
        if self.channel is not None and self.channel.side == "subject" and self.mark_unjudgeable:
            out.append(b"U")
            self._str(reason, out)
            return
        raise CannotCross(reason)

    mark_unjudgeable = True

    def _enc_other(self, value, kind, out, memo, depth):
        import types

        judge = self.channel is not None and self.channel.side == "judge"
        module = getattr(kind, "__module__", None)
        name = "{}.{}".format(module, getattr(kind, "__qualname__", "?"))
        if isinstance(value, type):
            ref = self._ref_name(value)
            if ref is None or not self._shared(ref[0]):
                return self._cannot("the class {}.{}".format(getattr(value, "__module__", "?"),
                                                         getattr(value, "__qualname__", "?")), out)
            if self._to_judge() and not self.own(ref[0]) and not self.safe_reference(value):
                self._check_exportable(value)  # a class the judge does not take: a handle
                out.append(b"P")
                self._enc_ref(ref, out)
                self._export(value, b"c", out)
                return
            out.append(b"R")
            self._enc_ref(ref, out)
            return
        if self._enc_value(value, kind, out, memo, depth):
            return
        if forbidden(module) or isinstance(value, (types.ModuleType, types.FrameType,
                                                   types.CodeType, types.TracebackType)):
            return self._cannot("an object of " + name, out)
        if isinstance(value, (types.FunctionType, types.BuiltinFunctionType,
                              types.MethodDescriptorType, types.WrapperDescriptorType)):
            ref = self._ref_name(value)
            if ref is not None and (not judge or self._shared(ref[0])):
                out.append(b"P")  # a reference, with a handle in case the other side lacks it
                self._enc_ref(ref, out)
            self._check_exportable(value)
            self._export(value, b"c", out)
            return
        if isinstance(value, BaseException):
            self._enc_exception(value, kind, out, memo, depth)
            return
        if self._iterator(value):
            self._check_exportable(value)
            self._export(value, b"i", out)
            return
        ref = self._ref_name(kind)
        if ref is not None and self._shared(ref[0]):
            import enum

            if isinstance(value, enum.Enum):
                out.append(b"e")
                self._enc_ref(ref, out)
                self._str(str(value.name), out)
                return
            if isinstance(value, tuple) and hasattr(kind, "_fields") and (
                    not self._to_judge() or self.rebuildable(kind, tuple)):
                items = list(value)
                out.append(b"n")
                self._enc_ref(ref, out)
                out.append(b"%d:" % len(items))
                for item in items:
                    self._enc(item, out, memo, depth + 1)
                memo[id(value)] = (len(memo), value)
                return
            if _python_class(kind) and (not self._to_judge() or self.rebuildable(kind)):
                self._enc_object(value, kind, ref, out, memo, depth)
                return
        if callable(value):
            self._check_exportable(value)
            self._export(value, b"c", out)
            return
        return self._cannot("an object of " + name, out)

    def _to_judge(self):
        return self.channel is not None and self.channel.side == "subject"

    def _check_exportable(self, value):
        import types

        owner = value.__self__ if isinstance(value, types.MethodType) else value
        module = getattr(type(owner), "__module__", None)
        if isinstance(owner, (types.FunctionType, types.BuiltinFunctionType)):
            module = getattr(owner, "__module__", None)
        if module is not None and forbidden(module):
            raise CannotCross(f"a callable of {module}")

    def _iterator(self, value):
        kind = type(value)
        try:
            return hasattr(kind, "__next__") and hasattr(kind, "__iter__") and iter(value) is value
        except Exception:  # noqa: BLE001
            return False

    def _enc_ref(self, ref, out):
        self._str(ref[0], out)
        self._str(ref[1], out)

    def _enc_object(self, value, kind, ref, out, memo, depth):
        self._track(value, out)
        memo[id(value)] = (len(memo), value)
        try:
            state = dict(object.__getattribute__(value, "__dict__"))
        except AttributeError:
            state = {}
        slots = {}
        for name in _slot_names(kind):
            try:
                slots[name] = object.__getattribute__(value, name)
            except AttributeError:
                pass
        out.append(b"O")
        self._enc_ref(ref, out)
        self._enc_state(state, out, memo, depth)
        self._enc_state(slots, out, memo, depth)

    def _enc_state(self, state, out, memo, depth):
        out.append(b"%d:" % len(state))
        for key, item in state.items():
            if type(key) is not str:
                raise CannotCross("an attribute name that is not a string")
            self._str(key, out)
            self._enc(item, out, memo, depth + 1)

    def _enc_exception(self, value, kind, out, memo, depth):
        ref = self._ref_name(kind)
        if ref is None or not self._shared(ref[0]) or self._to_judge() and not self.rebuildable(
                kind, next(b for b in kind.__mro__ if not b.__flags__ & HEAPTYPE)):
            return self._cannot("an exception of " + kind.__qualname__, out)
        memo[id(value)] = (len(memo), value)
        out.append(b"x")
        self._enc_ref(ref, out)
        self._enc(tuple(value.args), out, memo, depth + 1)
        try:
            state = dict(object.__getattribute__(value, "__dict__"))
        except AttributeError:
            state = {}
        state = {k: v for k, v in state.items() if not k.startswith("_codeteam")}
        self._enc_state(state, out, memo, depth)

    def _enc_value(self, value, kind, out, memo, depth):
        """The standard value types; True when ``value`` was one."""
        module = getattr(kind, "__module__", "")
        name = kind.__name__
        args = None
        if module == "datetime" and name in ("datetime", "date", "time"):
            reduced = value.__reduce__()
            args = tuple(reduced[1])
            if len(args) > 1 and args[1] is not None and type(args[1]).__name__ != "timezone":
                return False
        elif module == "datetime" and name == "timedelta":
            args = (value.days, value.seconds, value.microseconds)
        elif module == "datetime" and name == "timezone":
            args = tuple(value.__getinitargs__())
        elif module == "decimal" and name == "Decimal":
            args = (str(value),)
        elif module == "fractions" and name == "Fraction":
            args = (value.numerator, value.denominator)
        elif module == "pathlib" and name in _PATHS:
            args = (str(value),)
        elif kind is range:
            name, args = "range", (value.start, value.stop, value.step)
        elif kind is bytearray:
            name, args = "bytearray", (bytes(value),)
        elif module == "collections" and name in ("OrderedDict", "Counter"):
            args = (list(dict.items(value)),)
        elif module == "collections" and name == "defaultdict":
            args = (value.default_factory, list(dict.items(value)))
        elif module == "collections" and name == "deque":
            args = (list(value), value.maxlen)
        elif kind in (type({}.keys()), type({}.values()), type({}.items())):
            name, args = kind.__name__, (list(value),)
        elif module == "functools" and name == "partial" and kind.__qualname__ == "partial" and (
                self.channel is None or self.channel.side == "judge"):
            args = (value.func, tuple(value.args), dict(value.keywords))
        else:
            return False
        out.append(b"v")
        self._str(name, out)
        self._enc(args, out, memo, depth + 1)
        memo[id(value)] = (len(memo), value)
        return True

    # -- decoding ----------------------------------------------------------------------------

    def loads(self, data):
        value, end = self._dec(data, 0, [], 0)
        if end != len(data):
            raise ValueError("trailing data")
        return value

    def _num(self, data, at, stop):
        end = data.index(stop, at)
        return data[at:end].decode("ascii"), end + 1

    def _text(self, data, at):
        size, at = self._num(data, at, b":")
        size = int(size)
        if size < 0 or at + size > len(data):
            raise ValueError("short data")
        return data[at : at + size].decode("utf-8", "surrogatepass"), at + size

    def resolve(self, module, qualname, what="class"):
        """The class or function ``module.qualname`` of this process."""
        if forbidden(module):
            raise Unjudgeable(f"{module}.{qualname}")
        found = sys.modules.get(module)
        if found is None:
            if self.strict:
                raise Unjudgeable(f"{module}.{qualname}")
            import importlib

            found = importlib.import_module(module)
        import types

        parts = qualname.split(".")
        for index, part in enumerate(parts):
            if _is_dunder(part) or (self.strict and part.startswith("_")) or "<" in part:
                raise Unjudgeable(f"{module}.{qualname}")
            if index and not isinstance(found, type):  # through modules and classes only
                raise Unjudgeable(f"{module}.{qualname}")
            try:
                found = vars(found)[part] if self.strict else getattr(found, part)
            except (KeyError, AttributeError, TypeError):
                raise Unjudgeable(f"{module}.{qualname}") from None
        if self.strict and what == "any" and not self.safe_reference(found):
            raise Unjudgeable(f"{module}.{qualname}")  # not the project's nor a pure one

        ok = isinstance(found, type) if what == "class" else isinstance(
            found, (type, types.FunctionType, types.BuiltinFunctionType,
                    types.MethodDescriptorType, types.WrapperDescriptorType))
        if not ok or forbidden(getattr(found, "__module__", None) or "builtins"):
            raise Unjudgeable(f"{module}.{qualname}")
        if self.shared is not None:
            self.shared.add(module)  # the other side has it: what came from there goes back
        return found

    def _dec_ref(self, data, at, what="class"):
        module, at = self._text(data, at)
        qualname, at = self._text(data, at)
        return self.resolve(module, qualname, what), at

    def _proxy(self, kind, handle, name):
        key = (self.generation, kind, handle)
        proxy = self.proxies.get(key)
        if proxy is None:
            cls = RemoteCallable if kind == "c" else RemoteIterator
            proxy = cls(self.channel, (self.generation, handle), name)
            self.proxies[key] = proxy
        return proxy

    def _dec_item(self, data, at, table, depth):
        """An item of a container: a float or an int read here (the common large results),
        anything else by :meth:`_dec`."""
        tag = data[at : at + 1]
        if tag == b"f" or tag == b"i":
            end = data.index(b";", at + 1)
            text = data[at + 1 : end].decode("ascii")
            return (float.fromhex(text) if tag == b"f" else int(text, 16)), end + 1
        return self._dec(data, at, table, depth + 1)

    def _dec(self, data, at, table, depth):
        if depth > DEPTH_LIMIT:
            raise ValueError("too deep")
        tag = data[at : at + 1]
        at += 1
        if tag == b"N":
            return None, at
        if tag == b"T":
            return True, at
        if tag == b"F":
            return False, at
        if tag == b"i":
            text, at = self._num(data, at, b";")
            return int(text, 16), at
        if tag == b"f":
            text, at = self._num(data, at, b";")
            return float.fromhex(text), at
        if tag == b"c":
            real, at = self._num(data, at, b";")
            imag, at = self._num(data, at, b";")
            return complex(float.fromhex(real), float.fromhex(imag)), at
        if tag == b"s":
            text, at = self._text(data, at)
            if len(text) < 80 and text.isidentifier():
                text = sys.intern(text)  # string sentinels compared with `is` (toolz's)
            return text, at
        if tag == b"b":
            size, at = self._num(data, at, b":")
            size = int(size)
            if size < 0 or at + size > len(data):
                raise ValueError("short data")
            return data[at : at + size], at + size
        if tag == b"r":
            index, at = self._num(data, at, b";")
            index = int(index)
            if not 0 <= index < len(table):
                raise ValueError("bad back-reference")
            return table[index], at
        if tag in (b"l", b"d", b"S"):
            count, at = self._num(data, at, b":")
            count = int(count)
            if count < 0 or count > len(data):
                raise ValueError("bad count")
            made = {b"l": list, b"d": dict, b"S": set}[tag]()
            table.append(made)
            if tag != b"d" and count and data[at : at + 1] == b"A":
                items, at = _number_run(data, at + 1, count)
                made.extend(items) if tag == b"l" else made.update(items)
                count = 0
            for _ in range(count):
                if tag == b"d":
                    key, at = self._dec(data, at, table, depth + 1)
                    item, at = self._dec(data, at, table, depth + 1)
                    try:
                        made[key] = item
                    except TypeError as error:
                        raise ValueError(str(error)) from None
                else:
                    item, at = self._dec_item(data, at, table, depth)
                    if tag == b"l":
                        made.append(item)
                    else:
                        try:
                            made.add(item)
                        except TypeError as error:
                            raise ValueError(str(error)) from None
            return made, at
        if tag in (b"t", b"Z", b"n"):
            cls = None
            if tag == b"n":
                cls, at = self._dec_ref(data, at)
                if not (issubclass(cls, tuple) and hasattr(cls, "_fields")) or (
                        self.strict and not self.rebuildable(cls, tuple)):
                    raise Unjudgeable(cls.__qualname__)
            count, at = self._num(data, at, b":")
            count = int(count)
            if count < 0 or count > len(data):
                raise ValueError("bad count")
            items = []
            if count and data[at : at + 1] == b"A":
                items, at = _number_run(data, at + 1, count)
                count = 0
            for _ in range(count):
                item, at = self._dec_item(data, at, table, depth)
                items.append(item)
            try:
                made = (tuple(items) if tag == b"t" else frozenset(items) if tag == b"Z"
                        else tuple.__new__(cls, items))
            except TypeError as error:
                raise ValueError(str(error)) from None
            table.append(made)
            return made, at
        if tag == b"R":
            return self._dec_ref(data, at, "any")
        if tag == b"P":
            module, at = self._text(data, at)
            qualname, at = self._text(data, at)
            if data[at : at + 1] != b"H":
                raise ValueError("a reference without its handle")
            proxy, at = self._dec(data, at, table, depth + 1)
            try:
                return self.resolve(module, qualname, "any"), at
            except (Unjudgeable, ImportError):
                return proxy, at
        if tag == b"H":
            kind = data[at : at + 1].decode("ascii")
            if kind not in ("c", "i"):
                raise ValueError("bad handle")
            handle, at = self._num(data, at + 1, b";")
            name, at = self._text(data, at)
            meta, at = self._dec(data, at, table, depth + 1)
            proxy = self._proxy(kind, int(handle), name)
            if type(meta) is dict:
                self._dress(proxy, meta)
            return proxy, at
        if tag == b"Y":
            handle, at = self._num(data, at, b";")
            found = self.exported.get(int(handle), self)
            if found is self:
                raise ValueError("an unknown handle")
            return found, at
        if tag == b"e":
            cls, at = self._dec_ref(data, at)
            name, at = self._text(data, at)
            import enum

            if not issubclass(cls, enum.Enum) or name not in cls.__members__:
                raise Unjudgeable(cls.__qualname__)
            return cls.__members__[name], at
        if tag == b"O":
            cls, at = self._dec_ref(data, at)
            if not _python_class(cls) or issubclass(cls, BaseException) or (
                    self.strict and not self.rebuildable(cls)):
                raise Unjudgeable(cls.__qualname__)  # the project's classes only
            made = object.__new__(cls)
            table.append(made)
            state, at = self._dec_state(data, at, table, depth)
            slots, at = self._dec_state(data, at, table, depth)
            if state:
                try:
                    object.__getattribute__(made, "__dict__").update(state)
                except AttributeError:
                    raise ValueError("state for an object without __dict__") from None
            allowed = set(_slot_names(cls))
            for key, item in slots.items():
                if key not in allowed:
                    raise ValueError("an unknown slot")
                object.__setattr__(made, key, item)
            return made, at
        if tag == b"x":
            cls, at = self._dec_ref(data, at)
            if not issubclass(cls, BaseException):
                raise Unjudgeable(cls.__qualname__)
            base = next(b for b in cls.__mro__ if not b.__flags__ & HEAPTYPE)
            if self.strict and not self.rebuildable(cls, base):
                raise Unjudgeable(cls.__qualname__)
            made = base.__new__(cls)
            table.append(made)
            args, at = self._dec(data, at, table, depth + 1)
            if type(args) is not tuple:
                raise ValueError("exception args must be a tuple")
            made.args = args
            state, at = self._dec_state(data, at, table, depth)
            if state:
                try:
                    object.__getattribute__(made, "__dict__").update(state)
                except AttributeError:
                    pass
            return made, at
        if tag == b"v":
            name, at = self._text(data, at)
            args, at = self._dec(data, at, table, depth + 1)
            if type(args) is not tuple:
                raise ValueError("bad value arguments")
            made = self._build_value(name, args)
            table.append(made)
            return made, at
        if tag == b"G":
            name, at = self._text(data, at)
            space = self.space or {}
            value = space.get(name, space) if not _is_dunder(name) else space
            if value is space or not _sentinel_like(value):
                raise Unjudgeable(f"the global {name!r} of the module")
            return value, at
        if tag in (b"w", b"W"):
            index, at = self._num(data, at, b";")
            index = int(index)
            before = len(table)
            fresh, at = self._dec(data, at, table, depth + 1)
            if tag == b"W":
                if not 0 <= index < len(self.sent):
                    raise ValueError("an unknown object of this side")
                original = self.sent[index]
            else:
                original = self.got.get(index)
                if original is None:
                    self.got[index] = fresh
                    self.got_ids[id(fresh)] = index
                    return fresh, at
            _update(original, fresh)
            for i in range(before, len(table)):
                if table[i] is fresh:
                    table[i] = original
            return original, at
        if tag == b"U":
            name, at = self._text(data, at)
            raise Unjudgeable(name)
        raise ValueError(f"bad tag {tag!r}")

    def _dress(self, proxy, meta):
        """Copy the other side's names, docstring, attributes and signature onto ``proxy``."""
        for key, value in meta.items():
            if type(key) is not str or key in ("__signature__", "__return__"):
                continue
            if _is_dunder(key) and key not in _META_DUNDERS:
                continue
            try:
                object.__setattr__(proxy, key, value)
            except Exception:  # noqa: S110, BLE001
                pass
        params = meta.get("__signature__")
        if type(params) is not list:
            return
        try:
            import inspect

            made = []
            for entry in params:
                kind = inspect._ParameterKind(int(entry["kind"]))
                made.append(inspect.Parameter(
                    str(entry["name"]), kind, default=entry.get("default", inspect.Parameter.empty),
                    annotation=entry.get("annotation", inspect.Parameter.empty)))
            proxy.__signature__ = inspect.Signature(
                made, return_annotation=meta.get("__return__", inspect.Signature.empty))
        except Exception:  # noqa: S110, BLE001 - a malformed signature: none
            pass

    def _dec_state(self, data, at, table, depth):
        count, at = self._num(data, at, b":")
        count = int(count)
        if count < 0 or count > len(data):
            raise ValueError("bad count")
        state = {}
        for _ in range(count):
            key, at = self._text(data, at)
            if key in ("__dict__", "__class__", "__weakref__", "__slots__"):
                raise ValueError(f"{key} in an object's state")
            state[key], at = self._dec(data, at, table, depth + 1)
        return state, at

    def _build_value(self, name, args):
        import importlib

        try:
            if name == "range":
                return range(*[int(a) for a in args])
            if name == "bytearray":
                return bytearray(bytes(args[0]))
            if name == "dict_keys":
                return dict.fromkeys(list(args[0])).keys()
            if name == "dict_values":
                return dict(enumerate(list(args[0]))).values()
            if name == "dict_items":
                return dict(list(args[0])).items()
            if name in _PATHS:
                return getattr(importlib.import_module("pathlib"), name)(str(args[0]))
            module = _VALUE_MODULES.get(name)
            if module is None:
                raise ValueError(f"an unknown value type {name!r}")
            cls = getattr(importlib.import_module(module), name)
            if name in ("OrderedDict", "Counter"):
                made = cls()
                made.update(dict(list(args[0])))
                return made
            if name == "defaultdict":
                if args[0] is not None and not callable(args[0]):
                    raise ValueError("a default factory that is not callable")
                made = cls(args[0])
                dict.update(made, list(args[1]))
                return made
            if name == "deque":
                return cls(list(args[0]), args[1])
            if name == "partial":
                if self.strict:  # the subject's partials arrive as handles (see _enc_value)
                    raise ValueError("a partial from the code under test")
                if not callable(args[0]) or type(args[1]) is not tuple or type(args[2]) is not dict:
                    raise ValueError("a malformed partial")
                return cls(args[0], *args[1], **args[2])
            return cls(*args)
        except ValueError:
            raise
        except Exception as error:  # noqa: BLE001 - bad arguments for the type
            raise ValueError(f"bad {name}: {error}") from None


_INT64 = (-(1 << 63), (1 << 63) - 1)


def _numbers(items, out):
    """Append the encoding of ``items`` (a container's items) when there are many and each is
    an exact float or an int of 64 bits -- a *run* of machine numbers (judge and subject are
    the same interpreter on the same machine): ``Ad<n>:`` and n doubles, ``Aq<n>:`` and n
    int64s, or ``Am<n>:<floats>:`` with one type byte (``f``/``i``) per item, the doubles and
    the int64s; False (nothing appended) otherwise."""
    if len(items) < 16:
        return False
    floats, ints = [], []
    for x in items:
        kind = type(x)
        if kind is float:
            floats.append(x)
        elif kind is int and _INT64[0] <= x <= _INT64[1]:
            ints.append(x)
        else:
            return False
    from array import array

    if not ints:
        out.append(b"Ad%d:" % len(floats) + array("d", floats).tobytes())
    elif not floats:
        out.append(b"Aq%d:" % len(ints) + array("q", ints).tobytes())
    else:
        kinds = bytes([102 if type(x) is float else 105 for x in items])
        out.append(b"Am%d:%d:" % (len(items), len(floats)) + kinds
                   + array("d", floats).tobytes() + array("q", ints).tobytes())
    return True


def _number_run(data, at, count):
    """The ``count`` numbers of a run (see :func:`_numbers`) at ``at`` (just after its ``A``)
    and where it ends; ``ValueError`` for anything malformed."""
    from array import array

    kind = data[at : at + 1]
    end = data.index(b":", at + 1)
    if int(data[at + 1 : end].decode("ascii")) != count or kind not in (b"d", b"q", b"m"):
        raise ValueError("a malformed run of numbers")
    at = end + 1
    if kind == b"m":
        end = data.index(b":", at)
        nfloats = int(data[at:end].decode("ascii"))
        if not 0 <= nfloats <= count:
            raise ValueError("a malformed run of numbers")
        kinds, at = data[end + 1 : end + 1 + count], end + 1 + count
        if len(kinds) != count or kinds.count(b"f") != nfloats or (
                kinds.count(b"i") != count - nfloats):
            raise ValueError("a malformed run of numbers")
        floats, ints = array("d"), array("q")
        size = 8 * count
        if at + size > len(data):
            raise ValueError("short data")
        floats.frombytes(data[at : at + 8 * nfloats])
        ints.frombytes(data[at + 8 * nfloats : at + size])
        next_float, next_int = iter(floats.tolist()).__next__, iter(ints.tolist()).__next__
        return [next_float() if k == 102 else next_int() for k in kinds], at + size
    size = 8 * count
    if at + size > len(data):
        raise ValueError("short data")
    made = array(kind.decode("ascii"))
    made.frombytes(data[at : at + size])
    return made.tolist(), at + size


def _update(original, fresh):
    """``original`` (the judge's object) given ``fresh``'s state (what the code made of it)."""
    if original is fresh or type(original) is not type(fresh):
        return
    try:
        if isinstance(original, list):
            original[:] = fresh
        elif isinstance(original, dict):
            dict.clear(original)
            dict.update(original, fresh)
        elif isinstance(original, set):
            original.clear()
            original.update(fresh)
        elif _python_class(type(original)):
            try:
                space = object.__getattribute__(original, "__dict__")
                space.clear()
                space.update(object.__getattribute__(fresh, "__dict__"))
            except AttributeError:
                pass
            for name in _slot_names(type(original)):
                try:
                    object.__setattr__(original, name, object.__getattribute__(fresh, name))
                except AttributeError:
                    pass
    except Exception:  # noqa: S110, BLE001 - a container that refuses: left as it was
        pass


# --------------------------------------------------------------------------------------------
# Frames and the channel


def send_frame(fd, data):
    if len(data) > FRAME_LIMIT:
        raise CannotCross(f"a value too large to send ({len(data)} bytes)")
    view = memoryview(len(data).to_bytes(4, "big") + data)
    while view:
        view = view[os.write(fd, view) :]


def _read_exactly(fd, size, deadline):
    parts = []
    while size:
        if deadline is not None:
            import select

            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer in time")
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            raise EOFError("the other side closed the channel")
        parts.append(chunk)
        size -= len(chunk)
    return b"".join(parts)


def receive_frame(fd, deadline=None):
    size = int.from_bytes(_read_exactly(fd, 4, deadline), "big")
    if size > FRAME_LIMIT:
        raise ValueError("message too large")
    return _read_exactly(fd, size, deadline)


class Channel:
    """One side of the protocol: ``request`` sends a request and, while it waits for the
    answer, serves the other side's requests (calls and ``next`` of this side's handles)."""

    side = "?"

    def __init__(self, rfd, wfd, strict):
        self.rfd = rfd
        self.wfd = wfd
        self.codec = Codec(strict, self)

    def send(self, message):
        send_frame(self.wfd, self.codec.dumps(message))

    def receive(self, deadline=None):
        message = self.codec.loads(receive_frame(self.rfd, deadline))
        if type(message) is not dict or type(message.get("kind")) is not str:
            raise ValueError("a malformed message")
        return message

    def deadline(self):
        return None

    def request(self, message):
        self.send(message)
        while True:
            reply = self.receive(self.deadline())
            if reply["kind"] in ("value", "raised", "stop"):
                return reply
            self.send(self.serve(reply))

    def serve(self, request):
        """Answer a request of the other side about one of this side's handles."""
        found = self.codec.exported.get(request.get("handle"), self)
        if found is self:
            return {"kind": "raised", "type": "LookupError", "module": "builtins",
                    "message": "an unknown handle"}
        try:
            if request["kind"] == "next":
                try:
                    value = next(found)
                except StopIteration:
                    return {"kind": "stop"}
            elif request["kind"] == "call":
                args = request.get("args")
                kwargs = request.get("kwargs")
                if type(args) is not list or type(kwargs) is not dict:
                    raise TypeError("malformed call")
                value = found(*args, **kwargs)
            else:
                raise TypeError("an unknown request {!r}".format(request["kind"]))
        except Exception as exc:  # noqa: BLE001 - goes back to the caller
            return self.raised(exc)
        return {"kind": "value", "value": value}

    def raised(self, exc):
        return exception_info(exc, self.codec)


def exception_info(exc, codec, frames=()):
    """The ``raised`` reply for ``exc``: its class's name and bases (module, qualname), its
    message, the exception itself when it can cross, and ``frames``."""
    kind = type(exc)
    bases = []
    for base in kind.__mro__:
        module = getattr(base, "__module__", "builtins")
        qualname = getattr(base, "__qualname__", base.__name__)
        if type(module) is str and type(qualname) is str:
            bases.append([module, qualname])
    try:
        message = str(exc)
    except Exception:  # noqa: BLE001
        message = "<str() failed>"
    reply = {"kind": "raised", "type": bases[0][1] if bases else "?",
             "module": bases[0][0] if bases else "?", "bases": bases,
             "message": message[:10000], "frames": list(frames)[-FRAMES_LIMIT:]}
    origin = getattr(exc, "_codeteam_origin", None)
    if type(origin) is int:
        reply["origin"] = origin
    marking, codec.mark_unjudgeable = codec.mark_unjudgeable, False
    try:
        codec.dumps(exc)
        reply["exc"] = exc
    except Exception:  # noqa: S110, BLE001 - its class or arguments cannot cross: named only
        pass
    finally:
        codec.mark_unjudgeable = marking
    return reply


# --------------------------------------------------------------------------------------------
# The subject process


def _raisable(cls):
    """Whether the judge re-raises an exception of class ``cls`` as such: an ``Exception``
    that pytest gives no meaning of its own (not pytest's, not ``unittest.SkipTest``, which
    pytest turns into a skip)."""
    if not isinstance(cls, type) or not issubclass(cls, Exception):
        return False
    if any(forbidden(getattr(base, "__module__", "builtins")) for base in cls.__mro__):
        return False
    unittest = sys.modules.get("unittest")
    skip = getattr(unittest, "SkipTest", None)
    return not (isinstance(skip, type) and issubclass(cls, skip))
