"""A diagnostic's range in each position encoding the client may choose (pygls's codec)."""

from __future__ import annotations

import pytest

from codeteam.editor.diagnostics import DiagnosticsStore, FunctionDiagnostics, Problem

LINES = ["def f():\n", '    raise ValueError("é📈")  # x\n']


@pytest.mark.parametrize(("encoding", "end"), [
    ("utf-16", 32),  # é is 1 unit, 📈 2
    ("utf-8", 35),   # é is 2 bytes, 📈 4
    ("utf-32", 31),  # one unit per code point
])
def test_a_diagnostic_covers_the_lines_code_in_the_clients_units(encoding, end):
    store = DiagnosticsStore()
    store.put("file:///m.py", FunctionDiagnostics(
        qualname="f", signature="def f():", start_line=3, lines=LINES,
        problems=[Problem(1, "failed", "error", "t1")]))
    document = ["\n", "\n", "\n", *LINES]

    (diagnostic,) = store.lsp_diagnostics("file:///m.py", document, encoding)

    assert diagnostic.range.start.line == diagnostic.range.end.line == 4
    assert diagnostic.range.start.character == 4
    assert diagnostic.range.end.character == end
