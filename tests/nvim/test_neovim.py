"""A real headless Neovim (0.7.2 on Debian) with the shipped setup module
(editors/nvim/codeteam.lua) against the real server and the scripted model.

Each test opens a Python file in Neovim, runs a command (or the code action) on a function, and
checks the buffer Neovim ends up with, the diagnostics it holds and what the server answered.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from editor_harness import ANALYST, CODER, REVISE, TESTER
from nvim_harness import NvimRun, needs_nvim

from codeteam.execution.sandbox import sandbox_problem
from scripted_replies import GOOD

pytestmark = [pytest.mark.nvim, needs_nvim]

PLAN = "1. Keep the maximum so far.\n2. Append it for each element.\n3. Return the list."

BEFORE = '''"""Helpers 🎉 (the emoji is 2 UTF-16 code units and 4 bytes)."""

import math


def before():
    return math.pi


'''
STUB = '''def running_max(xs):  # 📈 up only
    """Return the running maximum of xs."""
'''
AFTER = '''

def after():
    return 2
'''
MODULE = BEFORE + STUB + AFTER

GENERATED = '''def running_max(xs):  # 📈 up only
    """Return the running maximum of xs."""
    out = []
    for x in xs:
        out.append(x if not out else max(out[-1], x))
    return out
'''
EXPECTED = BEFORE + GENERATED + AFTER

DEF_LINE = MODULE.splitlines().index(STUB.splitlines()[0])
CURSOR_ON_UP = {"text": "up only", "offset": 0}
"""The cursor on "up only", after the emoji on the def line: byte column 28, UTF-16 column 26."""
UP_BYTES = len("def running_max(xs):  # 📈 ".encode())
UP_UTF16 = len("def running_max(xs):  # 📈 ".encode("utf-16-le")) // 2

TYPED = ["# typed while the team works 🎉", "TYPED = 1", ""]
TYPED_TEXT = "".join(line + "\n" for line in TYPED)

GENERATE = {"kind": "command", "name": "CodeteamGenerate"}


def write(tmp_path: Path, text: str, name: str = "helpers.py") -> Path:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    (workspace / "pyproject.toml").write_text("[project]\nname = 'ws'\n")
    path = workspace / name
    path.write_bytes(text.encode("utf-8"))
    return path


def assert_generated(run: NvimRun, expected: str, *, prefix: str = "") -> None:
    """The buffer holds ``expected``: the function replaced, every byte outside it as it was,
    and the file parses."""
    text = run["text"]
    assert text == prefix + expected, run.explain()
    ast.parse(text)
    assert text.count("def running_max") == 1


def assert_clean_exit(run: NvimRun) -> None:
    assert run["progress_left"] == 0, run.explain()  # every progress ended
    assert not run.extra["server_outlived_nvim"], "the server kept running after Neovim quit"


def messages(run: NvimRun) -> list[str]:
    return [m["message"] for m in run["messages"]]


def test_generate_replaces_the_function(nvim, scripted, tmp_path):
    scripted.reply(ANALYST, PLAN).reply(CODER, GOOD)
    path = write(tmp_path, MODULE)

    run = nvim(path, action=GENERATE, cursor=CURSOR_ON_UP, transcript=True)

    assert run["filetype"] == "python" and run["offset_encoding"] == "utf-16"
    assert run["last"]["status"] == "untested" and run["last"]["applied"] is True, run.explain()
    assert_generated(run, EXPECTED)
    # The command's argument: the uri and the cursor as 0-based line and UTF-16 character
    # (Neovim's cursor column is a byte offset; the emoji before it makes them differ).
    assert run["cursor"] == [DEF_LINE + 1, UP_BYTES]
    assert run["argument"] == {
        "uri": path.as_uri(),
        "position": {"line": DEF_LINE, "character": UP_UTF16},
    }
    assert UP_BYTES != UP_UTF16
    # One edit, versioned for the buffer as it was (didOpen's version 0), applied.
    assert run["applies"] == [
        {"versions": [0], "changes": False, "buffer_version": 0, "applied": True}
    ], run.explain()
    # The settings reached the server: it used the scripted model; the first draft is the
    # direct answer (no analyst).
    assert scripted.count(ANALYST) == 0 and scripted.count(CODER) == 1
    assert "Complete this function" in scripted.texts()[0]
    assert not scripted.unmatched
    # The stages were echoed; the user was told the outcome.
    echoes = "\n".join(run["echoes"])
    assert "codeteam: Generate with team: coder: writing code" in echoes
    assert "coder: writing code" in echoes
    assert any("Generate with team · running_max" in m and "Applied." in m for m in messages(run))
    # ... on one line that fits the screen (no "Press ENTER" prompt), the outcome kept.
    assert any(
        e.startswith("codeteam: Generate with team · running_max") and e.endswith(" — Applied.")
        for e in run["echoes"]
    ), run["echoes"]
    # Then its status and cost, on one line too.
    assert run["last"]["cost"]["calls"] == 1, run.explain()
    assert any(re.fullmatch(r"codeteam: untested, applied — cost: 1 call, \d+\+\d+ tokens, "
                            r"\d+\.\d s", e) for e in run["echoes"]), run["echoes"]
    assert any(m.splitlines()[2].startswith("cost: 1 LLM call, ") for m in messages(run))
    assert all("\n" not in e and len(e) < 80 for e in run["echoes"])
    assert run["diagnostics"] == []
    # :CodeteamTranscript opened the last run as Markdown in a scratch buffer.
    assert run["transcript_filetype"] == "markdown" and run["transcript_buftype"] == "nofile"
    assert run["transcript"].startswith("# codeteam: Generate with team — `running_max`")
    assert "out.append(x if not out else max(out[-1], x))" in run["transcript"]
    assert "- applied: yes" in run["transcript"]
    assert_clean_exit(run)


def test_a_command_given_while_the_server_starts_runs_once_it_is_ready(nvim, scripted, tmp_path):
    """:CodeteamGenerate right after opening the file, before the client is initialized: it
    runs once the server is ready (after the file's didOpen), at the cursor it was given at;
    it was sent at once and answered "file ... is not open in the editor"."""
    scripted.reply(CODER, GOOD)
    path = write(tmp_path, MODULE)

    run = nvim(path, action=GENERATE, cursor=CURSOR_ON_UP, before_initialized=True)

    assert run["initialized_at_command"] is False, run.explain()
    assert run["last"]["applied"] is True, run.explain()
    assert run["argument"] == {"uri": path.as_uri(),
                               "position": {"line": DEF_LINE, "character": UP_UTF16}}
    assert_generated(run, EXPECTED)
    assert any("the server is starting" in e for e in run["echoes"]), run["echoes"]
    assert_clean_exit(run)


def test_generate_from_the_code_action(nvim, scripted, tmp_path):
    """vim.lsp.buf.code_action() lists the three actions; picking one runs it."""
    scripted.reply(ANALYST, PLAN).reply(CODER, GOOD)
    path = write(tmp_path, MODULE)

    run = nvim(
        path,
        action={"kind": "code_action", "title": "Generate with team"},
        cursor={"text": '"""Return the running maximum', "offset": 8},
    )

    assert run["code_action_titles"] == [
        "Plan this docstring", "Generate with team", "Review with tester"
    ]
    assert run["code_action"]["command"]["command"] == "codeteam.generate"
    assert run["last"]["applied"] is True, run.explain()
    assert_generated(run, EXPECTED)
    assert_clean_exit(run)


def test_lines_typed_above_while_the_model_is_slow(nvim, scripted, tmp_path):
    """Lines typed above the function while the coder works: the server re-locates the function
    in the current text and the edit lands on it, not on the lines it had when the run began."""
    scripted.reply(ANALYST, PLAN)
    coder = scripted.hold(CODER, GOOD)
    path = write(tmp_path, MODULE)

    run = nvim(
        path,
        action=GENERATE,
        cursor=CURSOR_ON_UP,
        type_at_stage={"stage": "coder: writing code", "row": 0, "lines": TYPED},
        release_when_typed=coder,
    )

    assert run["typed_at_stage"] is True
    assert run["last"]["applied"] is True, run.explain()
    assert_generated(run, EXPECTED, prefix=TYPED_TEXT)
    # The edit was made for the buffer version after the typing, and applied.
    [apply] = run["applies"]
    assert apply["applied"] is True and apply["versions"][0] > 0
    assert apply["versions"] == [apply["buffer_version"]]
    assert_clean_exit(run)


def test_keystrokes_the_server_has_not_seen_refuse_the_edit(nvim, scripted, tmp_path):
    """Lines typed just before the edit arrives (the server made the edit for the text without
    them). The setup module answers applied=false with the reason; its didChange (sent without
    debounce) has already reached the server, which makes the edit again on the new text: it
    lands on the function."""
    scripted.reply(ANALYST, PLAN).reply(CODER, GOOD)
    path = write(tmp_path, MODULE)

    run = nvim(
        path,
        action=GENERATE,
        cursor=CURSOR_ON_UP,
        type_before_apply={"row": 0, "lines": TYPED},
        transcript=True,
    )

    first, *again = run["applies"]
    assert first["applied"] is False and "the buffer changed" in first["reason"], run.explain()
    assert first["versions"] == [0] and first["buffer_version"] > 0
    assert [a["applied"] for a in again] == [True], run.explain()
    assert again[0]["versions"] == [again[0]["buffer_version"]]
    assert run["last"]["applied"] is True
    assert_generated(run, EXPECTED, prefix=TYPED_TEXT)
    assert "- applied: yes" in run["transcript"]
    assert_clean_exit(run)


def test_stale_edit_skipped_by_neovim_is_not_reported_as_applied(nvim, scripted, tmp_path):
    """Neovim's own handler (without the module's guard): 0.7.2 skips a versioned edit for an
    older version (here 4 or so, the buffer was edited before the run) but answers
    applied=true. The server checks its copy of the document and does not claim success."""
    scripted.reply(ANALYST, PLAN).reply(CODER, GOOD)
    path = write(tmp_path, MODULE)

    run = nvim(
        path,
        action=GENERATE,
        cursor=CURSOR_ON_UP,
        type_before_run={"row": 0, "lines": ["# edited before the run"]},
        type_before_apply={"row": 0, "lines": TYPED},
        unguarded_apply=True,
    )

    assert run["text"] == TYPED_TEXT + "# edited before the run\n" + MODULE, run.explain()
    [apply] = run["applies"]
    assert 0 < apply["versions"][0] < apply["buffer_version"]
    assert apply["applied"] is True  # Neovim 0.7.2's answer for the edit it skipped
    assert run["last"]["applied"] is False, run.explain()
    assert "does not contain the new function" in run["last"]["message"]
    assert_clean_exit(run)


@pytest.mark.parametrize(
    "setup",
    [
        pytest.param({"guard_stale_edits": False}, id="version-0-edit"),
        pytest.param({"versioned_edits": False, "guard_stale_edits": False}, id="unversioned"),
    ],
)
def test_edit_on_stale_lines_is_not_reported_as_applied(nvim, scripted, tmp_path, setup):
    """Keystrokes the server has not seen when the edit arrives, and an edit Neovim 0.7.2 does
    not check: versioned for version 0 (an unchanged buffer; 0.7.2 skips the check for 0), or
    unversioned (Neovim 0.7.2's own capabilities have no documentChanges). Neovim applies the
    edit to the function's old lines. The server must not report that as a success."""
    scripted.reply(ANALYST, PLAN).reply(CODER, GOOD)
    path = write(tmp_path, MODULE)

    run = nvim(
        path,
        action=GENERATE,
        cursor=CURSOR_ON_UP,
        type_before_apply={"row": 0, "lines": TYPED},
        unguarded_apply=True,
        setup=setup,
    )

    [apply] = run["applies"]
    assert apply["versions"] in ([0], []) and apply["applied"] is True
    if run["last"]["applied"] is True:  # then the buffer must really hold the right result
        assert_generated(run, EXPECTED, prefix=TYPED_TEXT)
    else:
        assert "Applied." not in run["last"]["message"]
        assert "out-of-date lines" in run["last"]["message"]
        assert "Undo once" in run["last"]["message"]


BUGGY = '''import math


def running_max(xs):  # 🎉
    """Return the running maximum of xs.

    >>> running_max([1, 3, 2])
    [1, 3, 3]
    >>> running_max([])
    []
    """
    if not xs:
        raise ValueError("empty 📈")
    return sorted(xs)


def after():
    return math.pi
'''
AI_TEST = "```python\nassert running_max([2, 1]) == [2, 2]\n```"
FIXED = BUGGY.replace(
    '    if not xs:\n        raise ValueError("empty 📈")\n    return sorted(xs)\n',
    "    out = []\n    for x in xs:\n        out.append(x if not out else max(out[-1], x))\n"
    "    return out\n",
)


@pytest.mark.sandbox
@pytest.mark.skipif(sandbox_problem("bwrap") is not None, reason="bubblewrap cannot run here")
def test_review_diagnostics_on_their_lines(nvim, scripted, tmp_path):
    scripted.reply(TESTER, AI_TEST)
    path = write(tmp_path, BUGGY, "ranges.py")

    run = nvim(
        path,
        action={"kind": "command", "name": "CodeteamReview"},
        cursor={"text": "return sorted(xs)", "offset": 0},
        settings={"ai_tests": 1},
        wait_diagnostics=True,
    )

    assert run["last"]["status"] == "failed" and run["last"]["applied"] is False, run.explain()
    assert run["text"] == BUGGY  # a review changes nothing
    lines = BUGGY.splitlines()
    by_code = {d["code"]: d for d in run["diagnostics"]}
    assert set(by_code) == {"doctest:1", "doctest:2", "ai:1", "summary"}, run.explain()
    assert all(d["source"] == "codeteam" for d in by_code.values())

    wrong = by_code["doctest:1"]  # a wrong value: on the example's own line, an error
    assert wrong["lnum"] == lines.index("    >>> running_max([1, 3, 2])")
    assert wrong["severity"] == 1
    assert "expected: [1, 3, 3]" in wrong["message"] and "actual:   [1, 2, 3]" in wrong["message"]

    raised = by_code["doctest:2"]  # an exception: on the line that raised
    raise_line = '        raise ValueError("empty 📈")'
    assert raised["lnum"] == lines.index(raise_line)
    assert "ValueError" in raised["message"] and "expected: []" in raised["message"]
    # Neovim turned the server's UTF-16 range into byte columns: the code of that line.
    assert (raised["col"], raised["end_col"]) == (8, len(raise_line.encode()))

    ai = by_code["ai:1"]  # an AI test may be wrong: a warning on the def line
    def_line = lines.index("def running_max(xs):  # 🎉")
    assert ai["severity"] == 2 and ai["lnum"] == def_line
    assert "running_max([2, 1]) == [2, 2]" in ai["message"] and "[1, 2]" in ai["message"]

    summary = by_code["summary"]
    assert summary["severity"] == 3 and summary["lnum"] == def_line
    assert "0/2 public tests passed" in summary["message"]
    assert_clean_exit(run)


def test_cancel_stops_the_run_and_changes_nothing(nvim, scripted, tmp_path):
    scripted.reply(ANALYST, PLAN)
    scripted.hang(CODER)
    path = write(tmp_path, MODULE)

    run = nvim(path, action=GENERATE, cursor=CURSOR_ON_UP, cancel_at_stage="coder: writing code")

    assert run["cancelled_runs"] == 1
    assert run["last"]["status"] == "cancelled" and run["last"]["applied"] is False
    assert run["text"] == MODULE and run["applies"] == []
    assert any("was cancelled; nothing was changed" in m for m in messages(run))
    echoes = "\n".join(run["echoes"])
    assert "codeteam: Generate with team: cancelled" in echoes
    assert_clean_exit(run)


@pytest.mark.sandbox
@pytest.mark.skipif(sandbox_problem("bwrap") is not None, reason="bubblewrap cannot run here")
def test_fix_with_team_from_the_quick_fix(nvim, scripted, tmp_path):
    """Review, then "Fix with team" from vim.lsp.buf.code_action() on a failing test's line
    (Neovim 0.7 sends the line's diagnostics in the context): the function is fixed and its
    diagnostics are cleared."""
    scripted.reply(TESTER, AI_TEST)  # the review's AI test
    scripted.reply(TESTER, AI_TEST).reply(REVISE, GOOD)  # the fix: tests fail, the coder revises
    path = write(tmp_path, BUGGY, "ranges.py")

    run = nvim(
        path,
        action={"kind": "command", "name": "CodeteamReview"},
        cursor={"text": "def running_max", "offset": 4},
        settings={"ai_tests": 1, "max_rounds": 2},
        wait_diagnostics=True,
        then_step={
            "action": {"kind": "code_action", "title": "Fix with team"},
            "cursor": {"text": ">>> running_max([1, 3, 2])", "offset": 0},
            "wait_diagnostics_cleared": True,
        },
    )

    assert run["last"]["status"] == "failed" and len(run["diagnostics"]) == 4, run.explain()
    fix = run["then_step"]
    assert fix["code_action_titles"] == [
        "Plan this docstring", "Generate with team", "Review with tester", "Fix with team"
    ], run.explain()
    assert fix["code_action"]["kind"] == "quickfix"
    assert [d["code"] for d in fix["code_action"]["diagnostics"]] == ["doctest:1"]
    assert fix["last"]["status"] == "passed" and fix["last"]["applied"] is True, run.explain()
    assert fix["text"] == FIXED, run.explain()
    ast.parse(fix["text"])
    assert fix["diagnostics"] == []
    assert scripted.count(REVISE) == 1 and not scripted.count(CODER)
    assert_clean_exit(run)
