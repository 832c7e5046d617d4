"""The standard streams as under plain pytest: bytes the code writes to ``sys.stdout.buffer``
reach the test's ``capsys``/``capsysbinary`` (break24: the subject's stdout had no
``buffer``, correct code failed with ``AttributeError``); the ``sys.stdin`` and ``input``
a test sets are what the code reads (break24: it read its own empty stdin, ``EOFError``);
``sys.stdout.fileno()`` raises ``io.UnsupportedOperation`` as under capture."""

from __future__ import annotations

import pytest
from test_one_judge import by_name, make, review

pytestmark = pytest.mark.sandbox

PROJECT = {
    "pyproject.toml": """\
        [project]
        name = "lab"
        version = "0"

        [tool.pytest.ini_options]
        testpaths = ["tests"]
        """,
    "lab/__init__.py": "",
    "lab/core.py": '''\
        import sys


        def emit(data):
            """Write data (bytes) to stdout, after a line of text."""
            print("start")
            sys.stdout.buffer.write(data)
            sys.stdout.flush()
        ''',
    "tests/test_core.py": '''\
        from lab.core import emit


        def test_text(capsys):
            emit(b"hi\\n")
            assert capsys.readouterr().out == "start\\nhi\\n"


        def test_binary(capsysbinary):
            emit(b"\\xff\\n")
            assert capsysbinary.readouterr().out == b"start\\n\\xff\\n"
        ''',
}


async def test_bytes_written_to_stdout_are_captured_in_order(tmp_path):
    root = make(tmp_path / "lab", PROJECT)
    _, right = await review(root, "lab/core.py", "emit")
    assert {name: o.status for name, o in by_name(right).items()} == {
        "test_text": "passed", "test_binary": "passed"}, right.outcomes
    _, wrong = await review(root, "lab/core.py", "emit",
                            "def emit(data):\n    sys.stdout.buffer.write(data)\n")
    assert {name: o.status for name, o in by_name(wrong).items()} == {
        "test_text": "failed", "test_binary": "failed"}, wrong.outcomes


READER = {
    "pyproject.toml": PROJECT["pyproject.toml"],
    "lab/__init__.py": "",
    "lab/ask.py": '''\
        import sys


        def ask(kind):
            """A number read from input() or sys.stdin; "no fd" when stdout has none."""
            if kind == "input":
                return int(input("n? "))
            if kind == "fileno":
                try:
                    sys.stdout.fileno()
                except (OSError, ValueError):
                    return "no fd"
            return sum(int(line) for line in sys.stdin)
        ''',
    "tests/test_ask.py": '''\
        import io
        import sys

        from lab.ask import ask


        def test_input(monkeypatch):
            monkeypatch.setattr("builtins.input", lambda prompt: "5")
            assert ask("input") == 5


        def test_stdin(monkeypatch):
            monkeypatch.setattr(sys, "stdin", io.StringIO("7\\n8\\n"))
            assert ask("stdin") == 15


        def test_fileno():
            assert ask("fileno") == "no fd"
        ''',
}


async def test_the_input_a_test_gives_is_what_the_code_reads(tmp_path):
    root = make(tmp_path / "lab", READER)
    _, right = await review(root, "lab/ask.py", "ask")
    assert {name: o.status for name, o in by_name(right).items()} == {
        "test_input": "passed", "test_stdin": "passed", "test_fileno": "passed"}, right.outcomes


STREAMS = {
    "pyproject.toml": "[project]\nname = 'lab'\nversion = '0'\n",
    "lab/__init__.py": "",
    "lab/core.py": '''\
        import sys


        def streams():
            """What the standard streams answer, and the rest of stdin."""
            sys.stdout.buffer.flush()
            return [sys.stdout.isatty(), sys.stdout.writable(), sys.stdout.buffer.writable(),
                    sys.stdin.readable(), sys.stdin.read(2), sys.stdin.readlines()]
        ''',
    "tests/test_core.py": '''\
        import io
        import sys

        from lab.core import streams


        def test_streams(monkeypatch):
            monkeypatch.setattr(sys, "stdin", io.StringIO("ab\\nc\\n"))
            assert streams() == [False, True, True, True, "ab", ["\\n", "c\\n"]]
        ''',
}


async def test_the_streams_answer_as_under_plain_pytest(tmp_path):
    """The code's ``sys.stdout`` (and its ``buffer``) and the ``sys.stdin`` a test set answer
    ``isatty``, ``writable``, ``readable``, ``flush``, ``read`` and ``readlines`` as pytest's
    capture and an ``io.StringIO`` do under plain pytest (the test passes there too)."""
    root = make(tmp_path / "lab", STREAMS)
    _, run = await review(root, "lab/core.py", "streams")
    assert {name: o.status for name, o in by_name(run).items()} == {
        "test_streams": "passed"}, run.outcomes
