"""The judge's own modules reach the sandbox with their bytecode (checked-hash pycs): an
interpreter of the server's version loads them without compiling, and compiles the source
as before when the pyc is not the source's."""

from __future__ import annotations

import subprocess
import sys

from codeteam.execution.pytest_run import CODEC_FILE, _bytecode, _source


def _import_verbosely(folder) -> str:
    done = subprocess.run(
        [sys.executable, "-s", "-B", "-v", "-c", "import _codeteam_pytest_codec as c; c.Codec"],
        cwd=folder, capture_output=True, text=True, timeout=60, check=True)
    return done.stderr


def test_the_codec_is_loaded_from_its_pyc(tmp_path):
    (tmp_path / CODEC_FILE).write_text(_source("pytest_codec.py"), encoding="utf-8")
    [(name, data)] = _bytecode(CODEC_FILE, "pytest_codec.py").items()
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / name).write_bytes(data)
    loaded = f"code object from '{tmp_path / name}'"
    assert loaded in _import_verbosely(tmp_path)


def test_a_pyc_that_is_not_the_sources_is_not_used(tmp_path):
    changed = _source("pytest_codec.py") + "\nCHANGED = 1\n"
    (tmp_path / CODEC_FILE).write_text(changed, encoding="utf-8")
    [(name, data)] = _bytecode(CODEC_FILE, "pytest_codec.py").items()
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / name).write_bytes(data)
    printed = _import_verbosely(tmp_path)
    assert f"code object from '{tmp_path / name}'" not in printed
    done = subprocess.run(
        [sys.executable, "-s", "-B", "-c", "import _codeteam_pytest_codec as c; print(c.CHANGED)"],
        cwd=tmp_path, capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "1"
