"""Ctrl-C and timeouts in ``codeteam run`` (issue 25, item 8): SIGINT during a run prints one
line, exits 130 and leaves the file as it was; a model call that times out stops the run at
once with one message, as an unreachable endpoint does. Always with the scripted model."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from scripted_replies import DIRECT

pytestmark = pytest.mark.sandbox

STUB = 'def double(x):\n    """Double x.\n\n    >>> double(2)\n    4\n    """\n'


def environment(scripted, **settings) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("CODETEAM_") and k != "OPENAI_API_KEY"}
    values = {"base_url": scripted.base_url, "max_retries": 0, "timeout_s": 60, "ai_tests": 0,
              "max_rounds": 1, **settings}
    env.update({f"CODETEAM_{key.upper()}": str(value) for key, value in values.items()})
    return env


@pytest.mark.parametrize("pipeline", ["direct", "team"])
def test_ctrl_c_while_the_model_works_is_one_line_and_the_file_as_it_was(scripted, tmp_path,
                                                                          pipeline):
    path = tmp_path / "m.py"
    path.write_text(STUB)
    scripted.hang(DIRECT, times=None)  # the model never answers in time
    run = subprocess.Popen(
        [sys.executable, "-m", "codeteam", "run", str(path), "--function", "double",
         "--pipeline", pipeline, "--write"],
        env=environment(scripted), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert scripted.wait_for_requests(1), "the run never called the model"
        run.send_signal(signal.SIGINT)
        out, err = run.communicate(timeout=30)
    finally:
        run.kill()
    assert run.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    lines = [line for line in err.splitlines() if line.startswith("codeteam:")]
    assert lines == [f"codeteam: interrupted; {path} was not changed"], err
    assert path.read_text() == STUB and out == ""
    assert [p.name for p in tmp_path.iterdir()] == ["m.py"]  # no temporary file left


def test_a_model_call_that_times_out_stops_the_run_at_once(scripted, tmp_path):
    path = tmp_path / "m.py"
    path.write_text(STUB)
    scripted.hang(DIRECT, times=None)
    done = subprocess.run(
        [sys.executable, "-m", "codeteam", "run", str(path), "--function", "double",
         "--pipeline", "team"],
        env=environment(scripted, timeout_s=0.5, candidates=4), capture_output=True,
        text=True, timeout=120, check=False)
    assert done.returncode == 1, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("codeteam:")]
    assert len(lines) == 1 and "did not answer within the timeout (0.5 s" in lines[0], \
        done.stderr
    assert lines[0].endswith("; nothing was produced")
    assert "sampling stopped" not in done.stderr and "# note" not in done.stderr
    assert len(scripted.requests) == 1  # no sample, no revision after the timeout


def holders(pipe_inode: int) -> list[int]:
    """The processes (other than this one) with the pipe ``pipe_inode`` open."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        if int(pid) == os.getpid():
            continue
        try:
            links = [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")]
        except OSError:
            continue
        if f"pipe:[{pipe_inode}]" in links:
            found.append(int(pid))
    return found


def test_once_the_run_exited_after_ctrl_c_nothing_holds_its_output_open(scripted, tmp_path):
    # Found attacking issue 25's work: the watchdog process forked at Ctrl-C kept the run's
    # stdout and stderr open for its 1.5 s, so `codeteam run ... | tee log` (or any caller
    # reading the output to its end) waited 1.5 s after the run had exited.
    path = tmp_path / "m.py"
    path.write_text(STUB)
    scripted.hang(DIRECT, times=None)
    run = subprocess.Popen(
        [sys.executable, "-m", "codeteam", "run", str(path), "--function", "double",
         "--pipeline", "direct"],
        env=environment(scripted), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert scripted.wait_for_requests(1), "the run never called the model"
        pipes = [os.fstat(stream.fileno()).st_ino for stream in (run.stdout, run.stderr)]
        run.send_signal(signal.SIGINT)
        assert run.wait(timeout=30) == 130
        assert [holders(inode) for inode in pipes] == [[], []]
    finally:
        run.kill()
        run.communicate()


CTRL_C_DURING_THE_WRITE = """\
import os, signal, sys
import codeteam.atomic_write as atomic_write
from codeteam import cli
real_fill = atomic_write._fill
def fill_then_ctrl_c(fd, payload, target):  # Ctrl-C while the new text is being written
    real_fill(fd, payload, target)
    os.kill(os.getpid(), signal.SIGINT)
atomic_write._fill = fill_then_ctrl_c
sys.exit(cli.main(sys.argv[1:]))
"""


def test_ctrl_c_during_the_write_says_what_happened_to_the_file(scripted, tmp_path):
    # Found attacking issue 25's work: Ctrl-C while --write replaced the file said
    # "m.py was not changed", and the file was then replaced all the same.
    path = tmp_path / "m.py"
    path.write_text(STUB)
    scripted.reply(DIRECT, "```python\ndef double(x):\n    return 2 * x\n```")
    done = subprocess.run(
        [sys.executable, "-c", CTRL_C_DURING_THE_WRITE, "run", str(path), "--function",
         "double", "--pipeline", "direct", "--write"],
        env=environment(scripted), capture_output=True, text=True, timeout=60, check=False)
    lines = [line for line in done.stderr.splitlines() if line.startswith("codeteam:")]
    assert done.returncode == 130, done.stderr
    written = path.read_text() != STUB
    assert written  # the write was under way: it is finished, atomically
    assert lines == [f"codeteam: interrupted after {path} was written"], done.stderr


def test_ctrl_c_with_json_prints_the_error_object(scripted, tmp_path):
    # `run --json` interrupted printed nothing on stdout: a script reading it got no object.
    path = tmp_path / "m.py"
    path.write_text(STUB)
    scripted.hang(DIRECT, times=None)
    run = subprocess.Popen(
        [sys.executable, "-m", "codeteam", "run", str(path), "--function", "double",
         "--pipeline", "direct", "--json"],
        env=environment(scripted), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert scripted.wait_for_requests(1), "the run never called the model"
        run.send_signal(signal.SIGINT)
        out, err = run.communicate(timeout=30)
    finally:
        run.kill()
    assert run.returncode == 130, err
    assert json.loads(out) == {"status": "error", "error": "interrupted", "exit_code": 130}
    assert [line for line in err.splitlines() if line.startswith("codeteam:")] == \
        ["codeteam: interrupted"]
