"""Small real projects built in a test's tmp_path, for the project layer and project runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

GREET = '''\
from .i18n import _


def greet(name):
    """Greet ``name`` in the project's language.

    >>> greet("bob")
    'HELLO BOB'
    """
    return _("hello " + name)
'''


def write(root: Path, files: dict[str, str]) -> Path:
    """Write ``files`` (relative path -> text) under ``root``; return ``root`` resolved."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root.resolve()


def src_layout(tmp_path: Path) -> Path:
    """``proj/`` with pyproject.toml and ``src/greeting/greet.py`` using ``from .i18n import _``,
    plus a ``.git`` folder and ``.env`` files holding secrets."""
    return write(tmp_path / "proj", {
        "pyproject.toml": "[project]\nname = 'greeting'\n",
        "src/greeting/__init__.py": "",
        "src/greeting/i18n.py": "def _(text):\n    return text.upper()\n",
        "src/greeting/greet.py": GREET,
        ".git/config": "[remote]\nurl = https://user:ghp_secret@example.com/x.git\n",
        ".env": "API_KEY=sk-top-secret\n",
        "src/greeting/.env.local": "TOKEN=deep-secret\n",
        "tests/test_greet.py": "from greeting.greet import greet\n\n\ndef test_greet():\n"
                               "    assert greet('a') == 'HELLO A'\n",
    })  # fmt: skip


def flat_package(tmp_path: Path) -> Path:
    """``flat/`` (setup.cfg) with package ``calc`` whose ``__init__`` sets state that
    ``calc/core.py`` reads through ``from . import SETTINGS``."""
    return write(tmp_path / "flat", {
        "setup.cfg": "[metadata]\nname = calc\n",
        "calc/__init__.py": "SETTINGS = {'factor': 3}\nfrom .core import scale  # noqa\n",
        "calc/core.py": 'from . import SETTINGS\n\n\ndef scale(x):\n    """Scale x.\n\n'
                        '    >>> scale(2)\n    6\n    """\n    return x * SETTINGS["factor"]\n',
    })  # fmt: skip


def make_venv(venv: Path, modules: dict[str, str] | None = None) -> Path:
    """A virtualenv without pip at ``venv`` (``python -m venv --without-pip``) with
    ``modules`` (file name -> text) dropped into its site-packages; returns its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    probe = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    purelib = subprocess.run(
        [str(python), "-c", probe], capture_output=True, text=True, check=True
    ).stdout.strip()
    for name, text in (modules or {}).items():
        path = Path(purelib, name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return python
