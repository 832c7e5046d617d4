"""``codeteam run``: one clear line and the documented exit code instead of a traceback; no
secret in its output; no model call before a known failure (issue 13, items 3, 4, 7). Always
with a local server on 127.0.0.1 as base_url: never the embedded model."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from scripted_replies import DIRECT

KEY = "sk-proj-Zx81kQmW0pAsecretKEY4711"
STUB = 'def double(x):\n    """Double x.\n\n    >>> double(2)\n    4\n    """\n'
GOOD = "```python\ndef double(x):\n    return 2 * x\n```"


def codeteam_run(base_url: str | None, *args: str, path_env: str | None = None,
                 env_extra: dict[str, str] | None = None, **settings) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("CODETEAM_") and k != "OPENAI_API_KEY"}
    values = {"max_retries": 0, "timeout_s": 20, "ai_tests": 0, "max_rounds": 1, **settings}
    if base_url is not None:
        values["base_url"] = base_url
    env.update({f"CODETEAM_{key.upper()}": str(value) for key, value in values.items()})
    env.update(env_extra or {})
    if path_env is not None:
        env["PATH"] = path_env
    return subprocess.run(
        [sys.executable, "-m", "codeteam", "run", *args],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )


def stub(tmp_path: Path) -> Path:
    path = tmp_path / "m.py"
    path.write_text(STUB)
    return path


class RawServer:
    """Answers every POST with a fixed body (HTTP 200) and counts the requests."""

    def __init__(self, body: bytes) -> None:
        outer = self
        self.requests = 0

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                outer.requests += 1
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.server.shutdown()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# --- item 4 ----------------------------------------------------------------------------------
def test_a_truncated_json_reply_is_one_line_and_exit_1(tmp_path):
    server = RawServer(b'{"id": "x", "object": "chat.completion", "choices": [{"index": 0, "me')
    try:
        done = codeteam_run(server.base_url, str(stub(tmp_path)), "--function", "double",
                            "--pipeline", "direct", sandbox="none")
    finally:
        server.close()
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 1, done.stderr
    assert "sent a reply that is not valid JSON" in done.stderr, done.stderr


def test_a_non_ascii_api_key_is_a_settings_problem(scripted, tmp_path):
    done = codeteam_run(scripted.base_url, str(stub(tmp_path)), "--function", "double",
                        "--pipeline", "direct", api_key="sk-ключ-0042")
    assert "Traceback" not in done.stderr and "UnicodeEncodeError" not in done.stderr
    assert done.returncode == 2, done.stderr
    assert "api_key: the API key is not valid" in done.stderr
    assert "ключ" not in done.stderr
    assert scripted.requests == []


# --- item 3 ----------------------------------------------------------------------------------
@pytest.mark.parametrize("setting", ["timeout_s", "max_retries", "models", "base_url"])
def test_a_key_in_the_wrong_setting_is_not_printed(scripted, tmp_path, setting):
    done = codeteam_run(scripted.base_url, str(stub(tmp_path)), "--function", "double",
                        "--pipeline", "direct", env_extra={f"CODETEAM_{setting.upper()}": KEY})
    assert done.returncode == 2
    assert f"{setting}: a text of {len(KEY)} characters is not valid" in done.stderr
    assert KEY not in done.stderr + done.stdout and "Zx81" not in done.stderr


def test_userinfo_is_masked_in_the_progress_line_and_the_notes(tmp_path):
    port = free_port()
    base_url = f"http://alice:pa55-hunter2@127.0.0.1:{port}/v1"
    done = codeteam_run(base_url, str(stub(tmp_path)), "--function", "double",
                        "--pipeline", "team", "--allow-untested", sandbox="none",
                        api_key=KEY)
    out = done.stderr + done.stdout
    assert "pa55-hunter2" not in out and "alice" not in out and KEY not in out, out
    assert f"model: default @ http://***@127.0.0.1:{port}/v1" in done.stderr, done.stderr


# --- item 7 ----------------------------------------------------------------------------------
def test_an_unreachable_endpoint_is_one_message_after_one_attempt(tmp_path):
    port = free_port()
    done = codeteam_run(f"http://127.0.0.1:{port}/v1", str(stub(tmp_path)), "--function",
                        "double", "--pipeline", "team", sandbox="none")
    assert done.returncode == 1, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("codeteam:")]
    assert lines == [(f"codeteam: cannot reach http://127.0.0.1:{port}/v1: All connection "
                     "attempts failed; nothing was produced")], done.stderr
    assert "# note" not in done.stderr


def test_after_a_connection_failure_no_later_stage_is_printed_and_v_names_it(tmp_path):
    # ux9: "coder: writing code", "analyst: planning", "coder: sampling code ..." were printed
    # after the failure (each later call fails at once), and -v logged only openai's retries.
    port = free_port()
    done = codeteam_run(f"http://127.0.0.1:{port}/v1", str(stub(tmp_path)), "--function",
                        "double", "--pipeline", "team", "-v", sandbox="none", max_retries=1)
    assert done.returncode == 1, done.stderr
    stages = [line.split("] ", 1)[1] for line in done.stderr.splitlines()
              if line.startswith("[")]
    # ai_tests=0: the coder's call is the first; "connecting" then hands its stage back
    assert stages[-3:] == ["coder: writing code", "connecting", "coder: writing code"], \
        done.stderr
    logged = [line for line in done.stderr.splitlines() if "codeteam.llm.client" in line]
    assert len(logged) == 1 and (f"cannot reach http://127.0.0.1:{port}/v1: All connection "
                                 "attempts failed (2 request(s))") in logged[0], done.stderr


def test_a_refused_key_stops_the_run_at_the_first_call(scripted, tmp_path):
    # newcomer9: a 401 did not stop the run: every later stage asked again (5 requests) and
    # the same refusal was noted 6 times, exit 0 with no code.
    scripted.error(None, status=401, times=None)
    done = codeteam_run(scripted.base_url, str(stub(tmp_path)), "--function", "double",
                        "--pipeline", "team", sandbox="none", ai_tests=2, max_rounds=2,
                        api_key=KEY)
    assert len(scripted.requests) == 1, done.stderr
    assert done.returncode == 1, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("codeteam:")]
    assert lines == [(f"codeteam: {scripted.base_url} refused the API key (401); check "
                      "api_key / OPENAI_API_KEY; nothing was produced")], done.stderr
    assert KEY not in done.stderr + done.stdout


def test_json_prints_an_error_object_when_the_run_fails(tmp_path):
    # ux9: --json printed nothing on stdout when the endpoint could not be reached (exit 1).
    port = free_port()
    done = codeteam_run(f"http://127.0.0.1:{port}/v1", str(stub(tmp_path)), "--function",
                        "double", "--pipeline", "direct", "--json", sandbox="none")
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout) == {
        "status": "error", "exit_code": 1,
        "error": f"cannot reach http://127.0.0.1:{port}/v1: All connection attempts failed; "
                 "nothing was produced"}
    done = codeteam_run(None, str(stub(tmp_path)), "--function", "nope", "--json",
                        "--set", "max_rounds", sandbox="none")
    assert done.returncode == 2 and json.loads(done.stdout)["status"] == "error", done.stdout
    # newcomer9: the JSON said "fix the settings above" of problems listed after it
    done = codeteam_run(None, str(stub(tmp_path)), "--function", "double", "--json",
                        "--set", "max_rounds=zero", sandbox="none")
    error = json.loads(done.stdout)
    assert done.returncode == 2 and error["problems"][0].startswith("max_rounds:"), done.stdout
    assert error["error"] == ("nothing was run; fix the settings listed in problems (--set, "
                              "CODETEAM_* variables) and run again")


def test_an_unknown_variable_and_a_set_without_equals_read_like_the_other_lines(tmp_path):
    # ux9: the variable's warning was a log record ("2026-12-04 18:10:40,239 WARNING
    # codeteam.settings: ..."); `--set max_rounds` said "--set number 1 has no '='".
    done = codeteam_run(None, str(stub(tmp_path)), "--function", "nope",
                        env_extra={"CODETEAM_MAX_ROUNDZ": "3"}, sandbox="none")
    assert done.returncode == 2, done.stderr
    assert ("codeteam: environment variable CODETEAM_MAX_ROUNDZ: not a codeteam setting "
            "(ignored); did you mean CODETEAM_MAX_ROUNDS?") in done.stderr.splitlines()
    assert "WARNING" not in done.stderr, done.stderr
    done = codeteam_run(None, str(stub(tmp_path)), "--function", "double", "--set",
                        "max_rounds", sandbox="none")
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [
        "codeteam: --set max_rounds has no '='; it takes KEY=VALUE: --set max_rounds=VALUE"]


@pytest.fixture
def no_bwrap(tmp_path) -> str:
    """A PATH without bwrap."""
    empty = tmp_path / "bin"
    empty.mkdir()
    return str(empty)


def test_without_bwrap_no_model_call_is_made(scripted, tmp_path, no_bwrap):
    scripted.reply(DIRECT, GOOD, times=None)
    path = stub(tmp_path)
    done = codeteam_run(scripted.base_url, str(path), "--function", "double",
                        "--pipeline", "direct", "--write", path_env=no_bwrap)
    assert done.returncode == 2, done.stderr
    assert "bubblewrap (bwrap) is not installed" in done.stderr
    assert "nothing was run (no model call)" in done.stderr
    assert scripted.requests == []
    assert path.read_text() == STUB


def test_without_bwrap_write_needs_write_untested(scripted, tmp_path, no_bwrap):
    scripted.reply(DIRECT, GOOD, times=None)
    path = stub(tmp_path)
    done = codeteam_run(scripted.base_url, str(path), "--function", "double",
                        "--pipeline", "direct", "--write", "--allow-untested",
                        path_env=no_bwrap)
    assert done.returncode == 1, done.stderr
    assert "return 2 * x" in done.stdout  # printed, untested
    assert "# not written: no test could run" in done.stderr
    assert path.read_text() == STUB
    done = codeteam_run(scripted.base_url, str(path), "--function", "double",
                        "--pipeline", "direct", "--write", "--write-untested",
                        path_env=no_bwrap)
    assert done.returncode == 0, done.stderr
    assert "return 2 * x" in path.read_text()


def test_sandbox_none_runs_without_bwrap(scripted, tmp_path, no_bwrap):
    scripted.reply(DIRECT, GOOD)
    done = codeteam_run(scripted.base_url, str(stub(tmp_path)), "--function", "double",
                        "--pipeline", "direct", path_env=no_bwrap, sandbox="none")
    assert done.returncode == 0, done.stderr
    assert "direct: passed" in done.stderr


def test_a_set_without_equals_is_not_echoed(tmp_path):
    done = codeteam_run(None, str(stub(tmp_path)), "--function", "double", "--set", KEY)
    assert done.returncode != 0 and KEY not in done.stderr
    assert "--set number 1 has no '='; it takes KEY=VALUE" in done.stderr, done.stderr


@pytest.mark.skipif(os.geteuid() != 0, reason="the sandbox drops to another uid only as root")
@pytest.mark.parametrize("closed", ["folder", "file"])
def test_a_project_the_sandbox_cannot_read_runs_nothing(scripted, tmp_path, closed):
    """Issue 25 item 6: as root the sandbox runs as an unprivileged uid; a 0700 project folder
    (or a 0600 test file) would fail correct code. Said once, before any model call or test
    run, naming the path, its mode and owner; exit 2, the file untouched."""
    from codeteam.execution.sandbox import sandbox_problem

    if sandbox_problem("bwrap") is not None:
        pytest.skip("bwrap unusable here")
    scripted.reply(DIRECT, GOOD, times=None)
    root = tmp_path / "private-project"
    (root / "tests").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'm'\n")
    path = root / "m.py"
    path.write_text(STUB)
    test_file = root / "tests" / "test_m.py"
    test_file.write_text("from m import double\n\n\ndef test_double():\n    assert double(2) == 4\n")
    tmp_path.chmod(0o755)
    closed_path = root if closed == "folder" else test_file
    closed_path.chmod(0o700 if closed == "folder" else 0o600)
    done = codeteam_run(scripted.base_url, str(path), "--function", "double",
                        "--pipeline", "review", "--write")
    assert done.returncode == 2, done.stderr
    mode = "0700" if closed == "folder" else "0600"
    assert f"the sandbox cannot read the project {root}: {closed_path} (mode {mode}, owner root)" \
        in done.stderr
    # Only the paths named: "chmod -R o+rX" of the project would open every private file
    # in it to every user (found attacking issue 25's work).
    assert f"(chmod o+rX {closed_path})" in done.stderr and "chmod -R" not in done.stderr
    assert "nothing was run (no model call)" in done.stderr
    assert "selecting the project's tests" not in done.stderr  # no test was run either
    assert scripted.requests == []
    assert path.read_text() == STUB


# --- a newcomer's bad inputs (newcomer9): one line and exit 2 (or 1), never a traceback -----

def test_a_file_outside_the_workspace_or_a_missing_workspace_is_exit_2(tmp_path):
    path = stub(tmp_path)
    elsewhere = tmp_path / "ws"
    (elsewhere / "tests").mkdir(parents=True)  # (a project with tests: the run said
    (elsewhere / "tests" / "test_m.py").write_text("def test_one():\n    pass\n")  # ValueError)
    for workspace, said in ((elsewhere, "is not inside --workspace"),
                            (tmp_path / "missing", "is not a folder")):
        done = codeteam_run(f"http://127.0.0.1:{free_port()}/v1", str(path), "--function",
                            "double", "--workspace", str(workspace))
        assert done.returncode == 2, done.stderr
        assert said in done.stderr and "Traceback" not in done.stderr


def codeteam_serve(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "codeteam", "serve", *args],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
                          check=False)


def test_serve_says_in_one_line_why_it_cannot_start(tmp_path):
    with socket.socket() as taken:  # a port in use
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        cases = [(("--tcp", f"127.0.0.1:{port}"), 1, "cannot listen on"),
                 (("--tcp", "127.0.0.1:99999"), 2, "a port 1-65535"),
                 (("--tcp", "nosuchhost.invalid:8000"), 1, "cannot listen on"),
                 (("--log-file", str(tmp_path / "no" / "log")), 2, "cannot write the log")]
        for args, code, said in cases:
            done = codeteam_serve(*args)
            assert (done.returncode, "Traceback" in done.stderr) == (code, False), (args, done)
            assert said in done.stderr, (args, done.stderr)
