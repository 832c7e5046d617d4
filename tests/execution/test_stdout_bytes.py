"""Bytes the code writes to ``sys.stdout.buffer`` reach the test's ``capsys``/``capsysbinary``
as under plain pytest (break24: the subject's stdout had no ``buffer``, so correct code
failed with ``AttributeError``)."""

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
