"""``codeteam run`` on code whose only test cannot be judged: not "passed", exit status 1, and the
report says why (issue 13's reproduction was exit 0, "passed")."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_run_command import codeteam_run

from scripted_replies import DIRECT

pytestmark = pytest.mark.sandbox

# The example passes an object of a class it makes at run time: it cannot cross to the code's
# process, so no candidate can be judged on it (once, in one process, this object's repr was
# whatever the example expects: a forged pass).
STUB = 'def double(x):\n    """Double x.\n\n    >>> double(type("N", (int,), {})(2))\n    4\n    """\n'
FORGER = ("```python\ndef double(x):\n    class Four:\n        def __repr__(self):\n"
          "            return '4'\n\n    return Four()\n```")
HONEST = "```python\ndef double(x):\n    return 2 * x\n```"


def test_a_test_no_code_can_be_judged_on_exits_1_not_judged(scripted, tmp_path: Path):
    path = tmp_path / "m.py"
    path.write_text(STUB)
    scripted.reply(DIRECT, HONEST)  # 2 * x uses the test's object: no code can be judged on it
    done = codeteam_run(scripted, str(path), "--function", "double", "--pipeline", "direct")
    assert "# direct: not judged; 0/1 tests passed; 1 not judged" in done.stderr, done.stderr
    assert "NOT JUDGED public test" in done.stderr
    assert "the test's arguments could not cross to the code under test" in done.stderr
    assert done.returncode == 1


def test_a_forger_of_that_test_is_not_passed(scripted, tmp_path: Path):
    """The forger's object has its own __repr__ ('4'): in one process the doctest would pass;
    judged, a value whose repr is the function's own code is no pass."""
    path = tmp_path / "m.py"
    path.write_text(STUB)
    scripted.reply(DIRECT, FORGER)
    done = codeteam_run(scripted, str(path), "--function", "double", "--pipeline", "direct")
    assert "# direct: failed; 0/1 tests passed" in done.stderr, done.stderr
    assert done.returncode == 1
