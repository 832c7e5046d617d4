"""The ``python -c`` program that starts pytest with a plugin file in a sandbox
(:data:`LAUNCHER`, for :mod:`codeteam.execution.pytest_plugin`), apart from that plugin: the
plugin imports pytest, which the server then imported (0.2-0.3 s of the event loop at the
first judged run) only to build this text."""

from __future__ import annotations


def launcher(plugin: str, prelude: str = "") -> str:
    """The ``python -c`` program that starts pytest (argv: pytest's arguments) with the plugin
    module ``plugin`` (its object ``PLUGIN`` when it has one), whose file ``<plugin>.py`` the
    run copied into ``$CODETEAM_FILES_DIR``; ``prelude`` runs first (``os``, ``sys``, ``json``
    and ``files`` are defined). Without pytest it exits 97 with a line saying so. The working
    directory on ``sys.path`` is the one pytest starts in, as ``python -m pytest`` has it
    (``python -c`` puts ``""`` there, which follows ``os.chdir``)."""
    return (
        "import json, os, sys\n"
        "if sys.path[:1] == ['']:  # python -c's: the working directory of the moment, which\n"
        "    sys.path[0] = os.getcwd()  # the code may make a folder of its own (os.chdir)\n"
        'files = os.environ["CODETEAM_FILES_DIR"]\n'
        + prelude
        + "import importlib.util\n"
        "spec = importlib.util.spec_from_file_location(\n"
        f'    "{plugin}", os.path.join(files, "{plugin}.py"))\n'
        "plugin = importlib.util.module_from_spec(spec)\n"
        f'sys.modules["{plugin}"] = plugin\n'
        "try:\n"
        "    import pytest\n"
        "except ImportError as error:\n"
        '    print("codeteam: no pytest in this interpreter (" + sys.executable + "): " + str(error),\n'
        "          file=sys.stderr)\n"
        "    sys.exit(97)\n"
        "spec.loader.exec_module(plugin)\n"
        "sys.exit(pytest.main(sys.argv[1:], plugins=[getattr(plugin, 'PLUGIN', plugin)]))\n"
    )


_PRELUDE = """\
with open(os.path.join(files, "_codeteam_pytest_spec.json"), encoding="utf-8") as handle:
    spec = json.load(handle)
if spec.get("import_root"):  # the project's own source first (a src/ layout; over a copy)
    root = os.environ.get("CODETEAM_PROJECT_ROOT") or os.getcwd()
    sys.path.insert(0, os.path.normpath(os.path.join(root, spec["import_root"])))
sys.path.extend(spec.get("pytest_path") or [])  # codeteam's pytest, for a project without
if spec.get("lone"):  # a module alone: none of the interpreter's other pytest plugins
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
"""


LAUNCHER = launcher("_codeteam_pytest_plugin", _PRELUDE)
"""The ``python -c`` program that starts pytest with codeteam's plugin (argv: pytest's
arguments)."""


SUBJECT_LAUNCHER = """\
import sys
def _start(path):
    import os
    from importlib.machinery import SourceFileLoader
    main = sys.modules["__main__"]
    del main._start
    del sys.argv[0]  # [path, channel], as for `python path channel`
    sys.path[0] = os.path.dirname(path)  # the script's folder, as for a script
    main.__file__ = path
    main.__loader__ = SourceFileLoader("__main__", path)
    main.__loader__.exec_module(main)
_start(sys.argv[1])
"""
"""The ``python -c`` program that runs the subject's file (argv: its path, then its own
arguments) as ``python <path> <arguments>`` would, as ``__main__`` with the script's
``sys.argv`` and ``sys.path[0]``, but through :class:`importlib.machinery.SourceFileLoader`:
its checked-hash pyc beside it (``__pycache__``, :func:`codeteam.execution.pytest_run.
compile_judge_module`) is loaded instead of compiling the source, which Python does for every
script it runs (the subject's 2,700 lines: 14-20 ms of CPU at each subject's start). A pyc
that is absent, of another interpreter version or not the source's: the source is compiled,
as before."""
