"""Running a real headless Neovim (Debian's 0.7.2 here) that loads the shipped setup module
editors/nvim/codeteam.lua, starts the real server (``<venv python> -m codeteam serve``) and runs
tests/nvim/driver.lua, which writes what happened to a JSON file.

Every run is bounded: the driver's waits time out, and the Neovim process (with the server it
started, in the same new session) is killed by its process group when it does not exit in time.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
MODULE_DIR = REPO / "editors" / "nvim"
DRIVER = Path(__file__).resolve().parent / "driver.lua"
SERVER_COMMAND = [sys.executable, "-m", "codeteam", "serve"]

NVIM_TIMEOUT_S = 150
"""Wall-clock bound of one Neovim run (the driver's own waits are shorter)."""
WAIT_MS = 60_000
"""Bound of each wait inside the driver."""

SETTINGS = {
    "max_retries": 0,
    "timeout_s": 60,
    "ai_tests": 0,
    "max_rounds": 1,
    "sandbox": "bwrap",
    "preview": "never",
}
"""Server settings for the suite (cases override): no AI tests and one round, so that a generate
needs just the analyst and the coder; edits applied without a preview (``preview = "never"``)
except in the preview tests (tests/nvim/test_neovim_preview.py), which set ``preview = "auto"``, the
default."""


def nvim_version() -> tuple[int, int, int] | None:
    nvim = shutil.which("nvim")
    if nvim is None:
        return None
    try:
        first = subprocess.run(
            [nvim, "--version"], check=False, capture_output=True, text=True, timeout=30
        ).stdout.splitlines()[0]
    except (OSError, subprocess.TimeoutExpired, IndexError):
        return None
    found = re.search(r"v(\d+)\.(\d+)\.(\d+)", first)
    return tuple(int(part) for part in found.groups()) if found else None  # type: ignore[return-value]


NVIM_VERSION = nvim_version()

needs_nvim = pytest.mark.skipif(
    NVIM_VERSION is None or NVIM_VERSION < (0, 7, 0),
    reason="needs Neovim 0.7 or later on PATH (apt-get install neovim)",
)


@dataclass
class NvimRun:
    """What one Neovim run reported (the driver's JSON) plus its process output."""

    data: dict[str, Any]
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    server_log: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)

    def explain(self) -> str:
        """Everything useful when a test fails."""
        shown = {k: v for k, v in self.data.items() if k not in ("transcript",)}
        return (
            f"nvim exited {self.returncode} after {self.seconds:.1f} s\n"
            f"driver: {json.dumps(shown, indent=1, ensure_ascii=False)[:6000]}\n"
            f"stdout: {self.stdout[-2000:]}\nstderr: {self.stderr[-2000:]}\n"
            f"server log: {self.server_log[-4000:]}"
        )


def _clean_env(tmp_path: Path) -> dict[str, str]:
    """Our environment without CODETEAM_* or OPENAI_API_KEY (settings come from the setup
    module's init_options), with Neovim's XDG folders (its LSP log) under ``tmp_path``."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("CODETEAM_") and key != "OPENAI_API_KEY"
    }
    for name in ("CONFIG", "DATA", "STATE", "CACHE"):
        folder = tmp_path / "xdg" / name.lower()
        folder.mkdir(parents=True, exist_ok=True)
        env[f"XDG_{name}_HOME"] = str(folder)
    env["PYTHONUNBUFFERED"] = "1"
    return env


def _kill_group(process: subprocess.Popen) -> None:
    """SIGKILL the process group of ``process`` (Neovim and the server it started)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _pid_alive(pid: int | None) -> bool:
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie is gone for our purposes
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        return state != "Z"
    except (OSError, IndexError):
        return True


def run_nvim(tmp_path: Path, base_url: str, file: Path, *, action: dict, cursor: dict,
             settings: dict | None = None, setup: dict | None = None,
             timeout_s: float = NVIM_TIMEOUT_S, release_when_typed: Any = None,
             **spec: Any) -> NvimRun:
    """Run Neovim once on ``file`` (see driver.lua for ``action``, ``cursor`` and ``spec``),
    with codeteam's ``settings`` (over :data:`SETTINGS`; the model at ``base_url``) and extra
    ``setup`` options for the module. ``release_when_typed`` (a scripted
    :class:`~scripted_llm.Hold`) is released once the server has the lines of
    ``type_at_stage``. Fails the test when Neovim hangs or the driver fails."""
    number = len(list(tmp_path.glob("spec-*.json"))) + 1
    out = tmp_path / f"out-{number}.json"
    log_file = tmp_path / f"server-{number}.log"
    values = {"base_url": base_url, **SETTINGS, **(settings or {})}
    setup_table = {
        "cmd": [*SERVER_COMMAND, "--log-file", str(log_file)],
        "settings": values,
        **(setup or {}),
    }
    full_spec = {
        "module_dir": str(MODULE_DIR),
        "out": str(out),
        "file": str(file),
        "setup": setup_table,
        "action": action,
        "cursor": cursor,
        "timeout_ms": WAIT_MS,
        **spec,
    }
    spec_file = tmp_path / f"spec-{number}.json"
    spec_file.write_text(json.dumps(full_spec), encoding="utf-8")
    env = _clean_env(tmp_path)
    env["CODETEAM_NVIM_SPEC"] = str(spec_file)
    finished = threading.Event()
    if release_when_typed is not None:
        typed = Path(f"{out}.typed")
        threading.Thread(target=_release_when, daemon=True,
                         args=(typed, release_when_typed, finished)).start()
    started = time.monotonic()
    process = subprocess.Popen(
        ["nvim", "--headless", "-u", "NONE", "-i", "NONE", "-n",
         "-c", f"luafile {DRIVER}"],
        cwd=file.parent,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        stdout, stderr = process.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        _kill_group(process)
        stdout, stderr = process.communicate(timeout=30)
        pytest.fail(
            f"nvim did not exit within {timeout_s} s (killed)\nstdout: {stdout[-2000:]}\n"
            f"stderr: {stderr[-2000:]}\nserver log: {_read(log_file)[-4000:]}"
        )
    finally:
        seconds = time.monotonic() - started
        finished.set()
    data = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}
    result = NvimRun(data, process.returncode, stdout, stderr, seconds, _read(log_file))
    # Neovim stops the server when it exits; a server still running after that is a leak.
    # It may take as long as the run took (the machine's load shows in both).
    server_pid = data.get("server_pid")
    deadline = time.monotonic() + max(10.0, seconds)
    while _pid_alive(server_pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    result.extra["server_outlived_nvim"] = _pid_alive(server_pid)
    _kill_group(process)
    assert out.exists(), f"the driver wrote no result\n{result.explain()}"
    assert data.get("ok") is True and process.returncode == 0, result.explain()
    return result


def _release_when(path: Path, hold: Any, finished: threading.Event) -> None:
    """Release ``hold`` once ``path`` exists (the driver wrote it); give up when the run is
    over."""
    while not finished.is_set():
        if path.exists():
            hold.release()
            return
        finished.wait(0.02)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
