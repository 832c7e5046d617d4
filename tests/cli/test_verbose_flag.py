"""``-v`` is accepted before and after the subcommand (``codeteam run FILE ... -v`` was a usage
error: only ``codeteam -v run ...`` worked)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from codeteam.cli import _parser

RUN = ["run", "m.py", "--function", "f"]


@pytest.mark.parametrize(("argv", "verbose"), [
    (RUN, False),
    (["-v", *RUN], True),
    ([*RUN, "-v"], True),
    ([*RUN, "--verbose"], True),
    (["-v", *RUN, "-v"], True),
    (["serve", "-v"], True),
    (["-v", "serve"], True),
    (["serve"], False),
    (["bench", "--dataset", "humaneval", "-v"], True),
    (["bench", "--dataset", "humaneval"], False),
])  # fmt: skip
def test_verbose_before_or_after_the_subcommand(argv, verbose):
    assert _parser().parse_args(argv).verbose is verbose


@pytest.mark.sandbox
def test_run_with_verbose_after_the_subcommand(tmp_path):
    path = tmp_path / "m.py"
    path.write_text('def f(x):\n    """Double.\n\n    >>> f(2)\n    4\n    """\n    return 2 * x\n')
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("CODETEAM_") and k != "OPENAI_API_KEY"}
    env["CODETEAM_AI_TESTS"] = "0"  # a review without AI tests makes no model call
    done = subprocess.run(
        [sys.executable, "-m", "codeteam", "run", str(path), "--function", "f",
         "--pipeline", "review", "-v"],
        env=env, capture_output=True, text=True, timeout=120, check=False, cwd=tmp_path)
    assert "unrecognized arguments" not in done.stderr, done.stderr
    assert "review: passed" in done.stderr and done.returncode == 0, done.stderr
