"""brk13: the judge's decoder (``Codec.loads``, strict) fed frames the code's process may write
instead of its honest replies: real replies mutated byte by byte. Whatever a frame holds, the
decoder returns a value or raises ``ValueError`` (its ``Unjudgeable`` included), which the
judge turns into its own error ("not judged", or the call's error); never another exception,
which would reach the test as the call's (``pytest.raises(OverflowError)`` passed for wrong
code: tests/execution/test_frame_attacks.py)."""

from __future__ import annotations

import collections
import datetime
import decimal
import enum
import fractions
import random
import re
import sys
import threading

import pytest

from codeteam.execution import pytest_codec as ps


class Side:
    def __init__(self, side):
        self.side = side


class Color(enum.Enum):
    RED = 1


class Box:
    """A class of this module's, which the judge rebuilds from its state (the project's)."""

    def size(self):
        return len(vars(self))


class Label(str):
    """A subclass of a builtin of this module's: its value and state cross (``K``)."""


Pair = collections.namedtuple("Pair", "left right")


def _counting():
    yield 1


async def _waiting():
    return 1


def _box(**state):
    made = object.__new__(Box)
    vars(made).update(state)
    return made


def _frames():
    """Replies the subject sends for a call the judge made with a list, a dict, a callback,
    an exception, an unheld lock and a module among its arguments: values, tracked arguments
    (``W``), the judge's own callback (``Y``) and lock (``V``) and module (``M``), exceptions
    with their fields and cause, standard values, enums and flags, objects by state, a bound
    method (``B``), a builtin's subclass (``K``), a namedtuple, handles of a generator and of
    an async def, what cannot cross (``U``), runs of numbers."""
    judge, subject = ps.Codec(True, Side("judge")), ps.Codec(False, Side("subject"))
    judge.shared = None
    judge.roots = subject.roots = None
    args = [[1, 2], {"k": [3]}, len, ValueError("v"), _box(a=1), (4, "t"), threading.Lock(),
            collections]
    got = subject.loads(judge.dumps({"args": args}))["args"]
    label = Label("lab")
    label.tone = "low"
    cause = OSError(2, "gone", "/x")
    chained = ImportError("no", name="m", path="/p")
    chained.__cause__ = cause
    got[0].append(5)
    got[1]["n"] = {6}
    floats = [float(i) / 3 for i in range(20)]
    replies = [
        {"kind": "value", "value": got, "after": [got, {}, None]},
        {"kind": "value", "value": [floats, list(range(-8, 12)), [1.5, 2] * 9]},
        {"kind": "raised", "type": "ValueError", "module": "builtins",
         "bases": [["builtins", "ValueError"]], "message": "m", "exc": got[3], "frames": []},
        {"kind": "value", "value": [datetime.datetime(2024, 1, 2, 3, 4, 5),
                                    decimal.Decimal("1.5"), fractions.Fraction(1, 3),
                                    collections.OrderedDict(a=1), collections.deque([1]),
                                    Color.RED, complex(1, 2), b"\x00\xff", "ünï", frozenset({1}),
                                    {1, 2}, None, True, -(2**70), KeyError("k")]},
        {"kind": "value", "value": [_box(x=[1], y=got[4]), got[4], got[2], got[5]]},
        {"kind": "value", "value": [label, re.IGNORECASE | re.DOTALL, Pair(1, [2]),
                                    got[4].size, got[6], got[7], _counting(), _waiting]},
        {"kind": "raised", "type": "ImportError", "module": "builtins", "message": "no",
         "bases": [["builtins", "ImportError"]], "exc": chained, "frames": [], "origin": 1},
        {"kind": "value", "value": [1, sys._getframe()]},
    ]
    return judge, [subject.dumps(reply) for reply in replies]


_JUDGE_SESSION, FRAMES = _frames()
_TAGS = b"NTFifcsbrldSZtnRPHYeOxvGgwWUAKMBV0123456789:;-"
_TOKENS = (b"f1p99999;", b"c0;-1p99999;", b"i-ffffffffffffffffffffffff;", b"r0;", b"r99;",
           b"V0;", b"V9;", b"W0;", b"W3;", b"w0;", b"Y1;", b"Y99;", b"d1:", b"l99999:",
           b"s99999999:", b"A", b"Ad3:", b"l1:" * 1200, b"w0;" * 1200, b"t0:", b"S1:l0:",
           b"d1:l0:N", b"R8:builtins4:eval", b"x8:builtins12:SystemExitt0:0:",
           b"O13:test_frame_fuzz3:Box1:8:__dict__N0:", b"M2:os", b"G4:name",
           b"v7:Decimal" + b"t1:s4:sNaN", b"S1:v7:Decimalt1:s4:sNaN")


def _mutated(rng):
    """A frame of :data:`FRAMES` with up to 6 edits: a byte replaced, inserted or deleted, a
    slice repeated or cut out (counts, sizes, tags and numbers that lie), a token of
    :data:`_TOKENS` inserted where an item may begin (a float too large, tags naming objects
    the judge has or has not, nesting beyond the limit, classes and modules it does not
    take). A seeded mutator: hypothesis, imported in this process, leaves a gc callback
    behind, where a later test's KeyboardInterrupt was lost."""
    data = bytearray(rng.choice(FRAMES))
    for _ in range(rng.randint(1, 6)):
        at = rng.randint(0, len(data))
        edit = rng.choice(("replace", "insert", "delete", "repeat", "cut", "token"))
        if edit == "token":  # (where an item may begin: after a ';' or ':')
            starts = [i for i in range(1, len(data)) if data[i - 1] in b";:"] or [0]
            at = rng.choice(starts)
            data[at:at] = rng.choice(_TOKENS)
        elif edit == "replace" and at < len(data):
            data[at] = rng.choice(_TAGS)
        elif edit == "insert":
            data[at:at] = bytes([rng.choice(_TAGS)])
        elif edit == "delete":
            del data[at : at + 1]
        else:
            size = rng.randint(1, 40)
            part = data[at : at + size]
            data[at : at + size] = part * 2 if edit == "repeat" else b""
    return bytes(data)


def _judge():
    """A judge's codec in the session of the call the replies answer (its ``sent`` and
    ``exported`` as they were: ``W``, ``V``, ``Y`` name its own objects)."""
    judge = ps.Codec(True, Side("judge"))
    judge.shared = None
    judge.use(_JUDGE_SESSION.tables())
    judge.exported = dict(_JUDGE_SESSION.exported)
    judge.modules = set(_JUDGE_SESSION.modules)
    return judge


def test_the_honest_frames_decode():
    judge = _judge()
    for frame in FRAMES[:-1]:
        assert type(judge.loads(frame)) is dict
    with pytest.raises(ps.Unjudgeable, match="frame"):
        judge.loads(FRAMES[-1])


def test_a_frame_the_judge_decodes_gives_a_value_or_a_value_error():
    rng = random.Random(13)
    for _ in range(2000):
        frame = _mutated(rng)
        try:
            _judge().loads(frame)
        except ValueError:
            continue
        except Exception as error:  # noqa: BLE001 - what a test could catch
            pytest.fail(f"{type(error).__name__}: {error} for {frame!r}")


class Named(str):
    """A project's ``str`` subclass whose ``encode`` reads an attribute the code's state may
    lack (it crosses by its value and state)."""

    def encode(self, *args, **kwargs):
        return self.style.upper().encode(*args, **kwargs)


def test_the_judges_look_at_the_codes_texts_runs_none_of_their_methods():
    """The judge remembers the texts of each answer (a test that runs them is not judged):
    before, it called the value's own ``encode``, and what that raised (AttributeError: no
    ``style`` in the state the code sent) reached the test as the call's exception."""
    from codeteam.execution.pytest_subject import JudgeClient, _squeezed

    client = JudgeClient({}, [].append, TimeoutError, lambda: None)
    parts = ["def f(x):\n    return x ** 2\n", b"def g(): pass\n", "y"]
    client.note_texts([Named(parts[0]), bytearray(parts[1]), parts[2]])
    assert client.code_texts == {_squeezed(parts[0].encode() + parts[1] + b"y")}


def _forged_reply(reply_of):
    """What the judge's client makes of the reply ``reply_of(arguments)`` (the subject's
    copies of the call's arguments: a list, and the test's exception) to a call of the code:
    the value it returns, or the exception it raises. A thread stands in for the subject."""
    import os
    import socket
    import threading

    from codeteam.execution.pytest_subject import JudgeClient

    errors: list = []
    client = JudgeClient({}, errors.append, TimeoutError, lambda: None)
    client.codec.shared = {"builtins"}
    judge_end, code_end = socket.socketpair()
    client.process, client.rfd = judge_end, judge_end.fileno()
    client.wfd, client.sent_env = client.rfd, dict(os.environ)
    subject = ps.Codec(False, Side("subject"))

    def answer():
        request = subject.loads(ps.receive_frame(code_end.fileno()))
        arguments = subject.loads(request["payload"])["args"]
        ps.send_frame(code_end.fileno(), subject.dumps(reply_of(arguments)))

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    try:
        return client.forward([[1], KeyError("k")], {})
    except BaseException as error:  # noqa: BLE001 - what the test would see
        return error
    finally:
        thread.join(5)
        judge_end.close()
        code_end.close()


def _raised(module, qualname, bases, exc=None):
    reply = {"kind": "raised", "type": qualname, "module": module, "message": "forged",
             "bases": bases, "frames": []}
    if exc is not None:
        reply["exc"] = exc
    return reply


_OUTCOME = [["_pytest.outcomes", "OutcomeException"], ["builtins", "BaseException"]]
FORGED = {
    "skipped": lambda: _raised("_pytest.outcomes", "Skipped",
                               [["_pytest.outcomes", "Skipped"], *_OUTCOME]),
    "xfailed": lambda: _raised("_pytest.outcomes", "XFailed",
                               [["_pytest.outcomes", "XFailed"], ["builtins", "Exception"]]),
    "skip-test": lambda: _raised("unittest.case", "SkipTest", [
        ["unittest.case", "SkipTest"], ["builtins", "Exception"]],
        __import__("unittest").SkipTest("s")),
    "keyboard-interrupt": lambda: _raised("builtins", "KeyboardInterrupt", [
        ["builtins", "KeyboardInterrupt"]], KeyboardInterrupt()),
}


@pytest.mark.parametrize("name", list(FORGED))
def test_a_forged_outcome_is_the_judges_error_never_a_skip(name):
    """A reply naming pytest's outcomes, unittest's SkipTest or KeyboardInterrupt (by name,
    by its bases, or as the exception itself) is the judge's error: a BaseException no
    ``except Exception`` or ``pytest.raises`` catches, never a skip, an xfail or the end of
    the session (a stand-in over ``Exception`` named XFailed is the code's error too)."""
    from codeteam.execution.pytest_subject import JudgeError

    got = _forged_reply(lambda arguments: FORGED[name]())
    if name == "xfailed":  # (a class the judge lacks: its nearest base, named as it was)
        assert type(got).__mro__[1:3] == (Exception, BaseException), repr(got)
        assert "__codeteam_frames__" in vars(got)
    else:
        assert type(got) is JudgeError and not isinstance(got, Exception), repr(got)


def test_a_reply_writing_back_the_tests_list_into_itself_is_taken():
    """The code's process may name the test's own objects (``W``) anywhere in its reply: the
    test's list written back holding itself twice, as the code could make it in one process."""
    got = _forged_reply(lambda args: {"kind": "value", "value": args[0],
                                      "after": [[args[0], args[0]], {}, None]})
    assert got == [1]
