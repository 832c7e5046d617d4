"""Preview before apply in a real headless Neovim 0.7.2 with the shipped module: codeteam's
edit arrives with a change annotation that needs confirmation; the module shows its diff in a
scratch window and applies nothing until the user accepts (key `a`, :CodeteamAccept: the
server applies the result on the current text) or discards (`d`, :CodeteamDiscard: nothing
changes, the server keeps the result)."""

from __future__ import annotations

import pytest
from editor_harness import CODER
from nvim_harness import needs_nvim
from test_neovim import (
    CURSOR_ON_UP,
    EXPECTED,
    GENERATE,
    MODULE,
    assert_clean_exit,
    assert_generated,
    messages,
    write,
)

from codeteam.execution.sandbox import sandbox_problem
from scripted_replies import GOOD

pytestmark = [pytest.mark.nvim, needs_nvim]

PREVIEW = {"preview": "auto"}


def test_preview_then_accept(nvim, scripted, tmp_path):
    scripted.reply(CODER, GOOD)
    path = write(tmp_path, MODULE)

    run = nvim(path, action=GENERATE, cursor=CURSOR_ON_UP, settings=PREVIEW,
               preview_action="accept", transcript=True)

    # The generate's answer: not applied yet, shown as a preview; the buffer untouched.
    assert run["last"]["applied"] is False, run.explain()
    assert "shown as a preview in Neovim" in run["last"]["message"]
    assert run["text_during_preview"] == MODULE
    preview = run["preview"].splitlines()
    assert preview[0] == "codeteam preview: codeteam: Generate with team · running_max"
    assert preview[1].startswith("team: untested") and "No test ran." in preview[1]
    assert "a: accept (:CodeteamAccept)   d or q: discard (:CodeteamDiscard)" in preview
    assert "+    out = []" in preview and "+        out.append(x if not out else max(out[-1], x))" in preview
    assert any(line.startswith("@@ ") for line in preview)
    assert run["preview_filetype"] == "diff" and run["preview_modifiable"] is False
    assert run["preview_open_after"] is False  # the key closed it
    # Accept: the server applied the result with a plain edit; the buffer holds it.
    assert run["accepted"]["applied"] is True, run.explain()
    assert_generated(run, EXPECTED)
    first, second = run["applies"]
    assert first["applied"] is False and "shown as a preview" in first["reason"]
    assert second["applied"] is True and second["versions"] == [second["buffer_version"]]
    assert "- applied: yes" in run["transcript"]
    assert_clean_exit(run)


def test_preview_then_discard_keeps_the_result(nvim, scripted, tmp_path):
    scripted.reply(CODER, GOOD)
    path = write(tmp_path, MODULE)

    run = nvim(path, action=GENERATE, cursor=CURSOR_ON_UP, settings=PREVIEW,
               preview_action="discard", transcript=True)

    assert run["last"]["applied"] is False, run.explain()
    assert run["text"] == MODULE and run["preview_open_after"] is False
    assert len(run["applies"]) == 1 and run["applies"][0]["applied"] is False
    assert any("preview discarded; nothing was changed" in e for e in run["echoes"]), run["echoes"]
    # The server kept the result: the transcript has the code, not applied.
    assert "- applied: no" in run["transcript"]
    assert "out.append(x if not out else max(out[-1], x))" in run["transcript"]
    assert_clean_exit(run)


def test_q_discards_too_and_the_module_option_turns_previews_off(nvim, scripted, tmp_path):
    scripted.reply(CODER, GOOD, times=2)
    path = write(tmp_path, MODULE)

    run = nvim(path, action=GENERATE, cursor=CURSOR_ON_UP, settings=PREVIEW,
               preview_action="discard", preview_key="q")
    assert run["text"] == MODULE and run["preview_open_after"] is False

    off = nvim(path, action=GENERATE, cursor=CURSOR_ON_UP, settings=PREVIEW,
               setup={"preview": False})
    assert off["last"]["applied"] is True, off.explain()  # no changeAnnotationSupport: applied
    assert off["applies"][0]["applied"] is True
    assert_generated(off, EXPECTED)


FAILING_STUB = '''def running_max(xs):  # 📈 up only
    """Return the running maximum of xs.

    >>> running_max([1, 3, 2])
    [1, 3, 3]
    """
'''
SORTED = "```python\ndef running_max(xs):\n    return sorted(xs)\n```"


@pytest.mark.sandbox
@pytest.mark.skipif(sandbox_problem("bwrap") is not None, reason="bubblewrap cannot run here")
def test_failing_code_is_previewed_with_its_failures(nvim, scripted, tmp_path):
    scripted.reply(CODER, SORTED)
    module = MODULE.replace('''def running_max(xs):  # 📈 up only
    """Return the running maximum of xs."""
''', FAILING_STUB)
    path = write(tmp_path, module)

    run = nvim(path, action=GENERATE, cursor=CURSOR_ON_UP, settings=PREVIEW,
               preview_action="discard")

    assert run["last"]["status"] == "failed" and run["last"]["applied"] is False, run.explain()
    description = run["preview"].splitlines()[1]
    assert description.startswith("team: failed; 0/1 tests passed")
    assert "Failing: >>> running_max([1, 3, 2])" in description
    assert "expected: [1, 3, 3]; actual:   [1, 2, 3]" in description
    assert "+    return sorted(xs)" in run["preview"]
    assert run["text"] == module
    assert_clean_exit(run)


@pytest.mark.sandbox
@pytest.mark.skipif(sandbox_problem("bwrap") is not None, reason="bubblewrap cannot run here")
def test_failing_code_is_not_applied_without_a_preview(nvim, scripted, tmp_path):
    """preview = "never" (the suite's setting): failing code is not applied at all; the
    message names the failure and carries the code."""
    scripted.reply(CODER, SORTED)
    module = MODULE.replace('''def running_max(xs):  # 📈 up only
    """Return the running maximum of xs."""
''', FAILING_STUB)
    path = write(tmp_path, module)

    run = nvim(path, action=GENERATE, cursor=CURSOR_ON_UP)

    assert run["last"]["status"] == "failed" and run["last"]["applied"] is False, run.explain()
    assert run["applies"] == [] and run["text"] == module
    message = run["last"]["message"]
    assert "Not applied: the new code fails 1 of its 1 tests, and preview is \"never\"" in message
    assert "return sorted(xs)" in message and "codeteam.apply" in message
    assert any("Not applied" in m for m in messages(run))
