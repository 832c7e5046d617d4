"""run_sandboxed with a ProjectMount: the project read-only at its own path, the candidate file
laid over the original, secrets hidden, the project's interpreter, mode "none" on a copy."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from codeteam.execution.sandbox import (
    FILES_DIR_ENV,
    PROJECT_ROOT_ENV,
    ProjectMount,
    SandboxPolicy,
    python_argv,
    run_sandboxed,
)
from project_kit import make_venv

pytestmark = pytest.mark.sandbox

PROBE = """\
import json, os, sys
def can_write(path):
    try:
        with open(path, "w") as handle:
            handle.write("x")
        return "written"
    except OSError as error:
        return type(error).__name__
def read(path):
    try:
        with open(path) as handle:
            return handle.read()
    except OSError as error:
        return type(error).__name__
def listing(path):
    try:
        return sorted(os.listdir(path))
    except OSError as error:
        return type(error).__name__
root = os.environ["CODETEAM_PROJECT_ROOT"]
print(json.dumps({
    "cwd": os.getcwd(),
    "argv": sys.argv,
    "home": os.environ.get("HOME"),
    "files_dir": os.environ.get("CODETEAM_FILES_DIR"),
    "root": root,
    "mod": read(os.path.join(root, "src/pkg/mod.py")),
    "other": read(os.path.join(root, "src/pkg/other.py")),
    "git": listing(os.path.join(root, ".git")),
    "env": read(os.path.join(root, ".env")),
    "deep_env": read(os.path.join(root, "src/pkg/.env.local")),
    "write": {name: can_write(os.path.join(root, name))
              for name in ("new.txt", "src/pkg/mod.py", "src/pkg/other.py", ".git/x")},
    "write_home": can_write(os.path.join(os.environ["HOME"], "x")),
    "bytecode": sys.dont_write_bytecode,
}))
"""


def make_project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[remote]\nurl = https://user:token@example.com\n")
    (root / ".env").write_text("API_KEY=sk-secret\n")
    (root / "src" / "pkg" / ".env.local").write_text("TOKEN=deep-secret\n")
    (root / "pyproject.toml").write_text("[project]\nname = 'pkg'\n")
    (root / "src" / "pkg" / "__init__.py").write_text("")
    (root / "src" / "pkg" / "mod.py").write_text("VALUE = 'original'\n")
    (root / "src" / "pkg" / "other.py").write_text("OTHER = 1\n")
    return root.resolve()


def mount(root: Path, **changes) -> ProjectMount:
    fields = {
        "root": str(root),
        "overlays": {str(root / "src/pkg/mod.py"): "VALUE = 'candidate'\n"},
        "hidden": [str(root / ".git"), str(root / ".env"), str(root / "src/pkg/.env.local")],
        "python": sys.executable,
        "workdir": str(root),
        "extra_ro": [],
    }
    fields.update(changes)
    return ProjectMount(**fields)


async def test_project_mount_read_only_overlaid_and_hidden(tmp_path):
    root = make_project(tmp_path)
    result = await run_sandboxed(
        {"probe.py": PROBE},
        python_argv("probe.py", "extra-arg", python=sys.executable),
        SandboxPolicy(timeout_s=10),
        project=mount(root),
    )
    assert result.exit_code == 0, result.stderr
    seen = json.loads(result.stdout)
    assert seen["cwd"] == str(root) and seen["root"] == str(root)
    assert seen["argv"] == ["/sandbox/probe.py", "extra-arg"]
    assert seen["files_dir"] == "/sandbox" and seen["home"] == "/tmp"
    assert seen["mod"] == "VALUE = 'candidate'\n"
    assert seen["other"] == "OTHER = 1\n"
    assert seen["git"] == []
    assert seen["env"] == "" and seen["deep_env"] == ""
    assert set(seen["write"].values()) == {"OSError"}  # EROFS everywhere in the project
    assert seen["write_home"] == "written" and seen["bytecode"] is True
    assert "sk-secret" not in result.stdout and "token@" not in result.stdout
    assert (root / "src/pkg/mod.py").read_text() == "VALUE = 'original'\n"
    assert not (root / "new.txt").exists()


async def test_project_mount_in_none_mode_runs_in_a_copy(tmp_path):
    root = make_project(tmp_path)
    (root / ".venv").mkdir()
    (root / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    result = await run_sandboxed(
        {"probe.py": PROBE},
        python_argv("probe.py", str(root / "src")),
        SandboxPolicy(mode="none", timeout_s=10),
        project=mount(root, workdir=str(root / "src")),
    )
    assert result.exit_code == 0, result.stderr
    seen = json.loads(result.stdout)
    copy = Path(seen["root"])
    assert copy != root and seen["cwd"] == str(copy / "src")
    assert seen["argv"][0] == str(Path(seen["files_dir"]) / "probe.py")
    assert seen["argv"][1] == str(copy / "src")
    assert seen["mod"] == "VALUE = 'candidate'\n" and seen["other"] == "OTHER = 1\n"
    assert seen["git"] == "FileNotFoundError" and seen["env"] == "FileNotFoundError"
    assert seen["deep_env"] == "FileNotFoundError"
    assert "sk-secret" not in result.stdout
    assert (root / "src/pkg/mod.py").read_text() == "VALUE = 'original'\n"
    assert not (root / "new.txt").exists()
    assert not copy.exists()  # the run's directory is gone


@pytest.fixture
def outside_venv(tmp_path) -> Path:
    return make_venv(tmp_path / "envs" / "proj-env", {"thirdparty.py": "WHERE = 'venv'\n"}).parent.parent


async def test_project_python_from_a_venv_outside_the_project(tmp_path, outside_venv):
    """A virtualenv elsewhere (as under $HOME), mounted through ``extra_ro``; its package is
    imported with site processing on."""
    root = make_project(tmp_path)
    venv = outside_venv
    python = str(venv / "bin/python")
    code = "import sys, thirdparty; print(thirdparty.WHERE, sys.prefix)"
    result = await run_sandboxed(
        {"use.py": code},
        python_argv("use.py", python=python, site=True),
        SandboxPolicy(timeout_s=10),
        project=mount(root, python=python, extra_ro=[str(venv), sys.base_prefix]),
    )
    assert result.exit_code == 0, result.stderr
    assert result.stdout.split() == ["venv", str(venv)]


async def test_project_mount_paths_are_checked(tmp_path):
    root = make_project(tmp_path)
    bad = [
        mount(root, overlays={str(root / "missing.py"): ""}),
        mount(root, overlays={"/etc/passwd": ""}),
        mount(root, workdir="/tmp"),
        mount(root).model_copy(update={"root": "relative"}),
    ]
    for project in bad:
        with pytest.raises(ValueError):
            await run_sandboxed({}, python_argv("-c", "pass"), SandboxPolicy(), project=project)
    assert PROJECT_ROOT_ENV == "CODETEAM_PROJECT_ROOT" and FILES_DIR_ENV == "CODETEAM_FILES_DIR"


SUBJECT_PROBE = PROBE.replace("print(json.dumps(", "SEEN = (").replace(
    '"bytecode": sys.dont_write_bytecode,\n}))', '"bytecode": sys.dont_write_bytecode,\n})'
) + """
import socket
SEEN["own_files"] = sorted(os.listdir(os.environ["CODETEAM_FILES_DIR"]))
SEEN["where"] = open(os.path.join(os.environ["CODETEAM_FILES_DIR"], "where.txt")).read()
channel = socket.socket(fileno=int(sys.argv[-1]))
channel.sendall(json.dumps(SEEN).encode() + b"\\n")
"""

JUDGE = """
import json, os
channel, _ = start()
subject = json.loads(channel.makefile("rb").readline())
root = os.environ["CODETEAM_PROJECT_ROOT"]
print(json.dumps({"subject": subject,
                  "judge_mod": open(os.path.join(root, "src/pkg/mod.py")).read(),
                  "judge_files": sorted(os.listdir(os.environ["CODETEAM_FILES_DIR"]))}))
"""


@pytest.mark.parametrize("mode", ["bwrap", "none"])
async def test_a_subject_sees_the_project_with_its_own_overlay(tmp_path, mode):
    """The judge sees its overlay (the judge view), the subject the candidate; both see the
    project's other files; the hidden paths are hidden from the subject too; each has its own
    files folder (the judge's holds only judge.py, the subject's only probe.py)."""
    from subject_client import JUDGE_CLIENT

    from codeteam.execution.sandbox import SubjectLaunch

    root = make_project(tmp_path)
    judge_view = {str(root / "src/pkg/mod.py"): "VALUE = 'judge view'\n"}
    subject = SubjectLaunch(argv=python_argv("probe.py", "{channel}"),
                            files={"probe.py": SUBJECT_PROBE, "where.txt": lambda place: place},
                            overlays={str(root / "src/pkg/mod.py"): "VALUE = 'candidate'\n"})
    result = await run_sandboxed(
        {"judge.py": JUDGE_CLIENT + JUDGE}, python_argv("judge.py"),
        SandboxPolicy(mode=mode, timeout_s=20), project=mount(root, overlays=judge_view),
        subject=subject,
    )  # fmt: skip
    assert result.exit_code == 0, (result.stderr, result.subject_output)
    seen = json.loads(result.stdout)
    assert seen["judge_mod"] == "VALUE = 'judge view'\n"
    assert seen["judge_files"] == ["judge.py"]
    probe = seen["subject"]
    assert probe["mod"] == "VALUE = 'candidate'\n" and probe["other"] == "OTHER = 1\n"
    assert probe["env"] in ("", "FileNotFoundError")
    assert probe["deep_env"] in ("", "FileNotFoundError")
    assert probe["git"] in ([], "FileNotFoundError")
    assert probe["own_files"] == ["probe.py", "where.txt"]
    assert probe["where"] == probe["root"]  # a callable file is given the root's place
    assert probe["argv"][0] == str(Path(probe["files_dir"], "probe.py"))
    assert "sk-secret" not in result.stdout
    assert (root / "src/pkg/mod.py").read_text() == "VALUE = 'original'\n"


COVERED = {
    "pyproject.toml": "[project]\nname = 'pkg'\n\n[tool.pytest.ini_options]\n"
                      "addopts = '--cov=pkg --cov-report=term'\n",
    "pkg/__init__.py": "",
    "pkg/mod.py": "def double(x):\n    return 2 * x\n",
    "tests/test_mod.py": (
        "from pathlib import Path\n\nfrom pkg.mod import double\n\n\n"
        "def test_double():\n    assert double(2) == 4\n\n\n"
        "def test_writes_next_to_itself_and_at_the_root(tmp_path):\n"
        "    Path(__file__).with_name('made.txt').write_text('beside the test')\n"
        "    Path(__file__).parent.parent.joinpath('pkg', 'mod.py').read_text()\n"
        "    (tmp_path / 'x').write_text('y')\n"
        "    assert Path(__file__).with_name('made.txt').read_text() == 'beside the test'\n"
    ),
}  # fmt: skip


def _snapshot(root: Path) -> dict[str, tuple[int, int]]:
    """Every path under ``root`` with its mtime (ns) and size."""
    found = {".": (root.stat().st_mtime_ns, 0)}
    for path in sorted(root.rglob("*")):
        info = path.lstat()
        found[str(path.relative_to(root))] = (info.st_mtime_ns, info.st_size)
    return found


@pytest.mark.parametrize("writable", [True, False], ids=["copy-on-write", "read-only"])
async def test_a_project_running_coverage_passes_and_stays_unchanged(tmp_path, writable,
                                                                   cov_plugin):
    """Issue 24: ``addopts = --cov=pkg`` (pytest-cov) writes ``.coverage`` at the root, a test
    writes next to itself. Copy-on-write, pytest passes as it does outside; read-only, the
    same run fails (pytest-cov cannot write its data). The project on disk is unchanged."""
    from project_kit import write

    root = write(tmp_path / "covered", COVERED)
    before = _snapshot(root)
    result = await run_sandboxed(
        {}, python_argv("-m", "pytest", "-p", "no:cacheprovider", "-q", python=sys.executable,
                        site=True),
        SandboxPolicy(timeout_s=60), project=mount(
            root, overlays={}, hidden=[], workdir=str(root), writable=writable),
    )  # fmt: skip
    if writable:
        assert result.exit_code == 0, result.stdout + result.stderr
        assert "2 passed" in result.stdout and "pkg/mod.py" in result.stdout  # the cov report
    else:
        assert result.exit_code != 0, result.stdout
    assert _snapshot(root) == before


REPORTS = {
    "pyproject.toml": "[project]\nname = 'pkg'\n\n[tool.pytest.ini_options]\n"
                      "addopts = '--junitxml=junit.xml'\n",
    "pkg/__init__.py": "",
    "junit.xml": "<testsuites/>\n",
    "tests/data.txt": "of an earlier run\n",
    "tests/test_rewrite.py": (
        "from pathlib import Path\n\n\n"
        "def test_rewrites_a_file_of_the_project():\n"
        "    data = Path(__file__).with_name('data.txt')\n"
        "    data.write_text('rewritten')\n"
        "    assert data.read_text() == 'rewritten'\n"
    ),
}  # fmt: skip


@pytest.mark.parametrize("on_path", [False, True], ids=["plain", "root-on-sys-path"])
async def test_files_the_project_holds_already_can_be_rewritten(tmp_path, on_path):
    """Arrow's addopts write ``junit.xml`` and ``coverage.xml`` at the root, where an earlier
    run left them: under a root server the run's uid saw them as the owner's files, read-only
    to it ("PermissionError: [Errno 13] Permission denied: 'junit.xml'", every arrow test
    "pytest could not run"), while plain pytest rewrites them. In the copy-on-write view the
    project owner's files are the run's; the project on disk is unchanged. Arrow's editable
    install puts the project root on ``sys.path`` (``arrow.pth``): that folder among the
    interpreter's, bound read-only over the view, made the whole project read-only ("OSError:
    [Errno 30] Read-only file system: '.coverage'")."""
    from project_kit import write

    root = write(tmp_path / "reports", REPORTS)
    before = _snapshot(root)
    result = await run_sandboxed(
        {}, python_argv("-m", "pytest", "-p", "no:cacheprovider", "-q", python=sys.executable,
                        site=True),
        SandboxPolicy(timeout_s=60), project=mount(
            root, overlays={}, hidden=[], workdir=str(root), writable=True,
            extra_ro=[str(root)] if on_path else []),
    )  # fmt: skip
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout
    assert _snapshot(root) == before
    assert (root / "junit.xml").read_text() == "<testsuites/>\n"


LEFT_BEHIND = {
    ".coverage": "data of an earlier run",
    "pkg/.env.local": "TOKEN=deep-secret\n",
    "tests/test_hidden.py": (
        "from pathlib import Path\n\n\n"
        "def test_what_earlier_runs_left_is_not_there():\n"
        "    root = Path(__file__).parent.parent\n"
        "    assert not (root / 'pkg' / '.env.local').exists()\n"
        "    (root / 'pkg' / '.env.local').write_text('made here')\n"
    ),
}


async def test_hidden_files_of_a_copy_on_write_view_are_absent_and_can_be_made(tmp_path,
                                                                            cov_plugin):
    """A hidden file (a top-level dotfile, a secret at any depth) was an empty read-only file
    bound over the view: pytest-cov's erase of an earlier run's ``.coverage`` failed ("OSError:
    [Errno 16] Device or resource busy: '.coverage'", pydash: every test "pytest could not
    run"). In a copy-on-write view it is absent, as in a fresh clone: made and removed there,
    never read, the project on disk unchanged."""
    from project_kit import write

    root = write(tmp_path / "covered", {**COVERED, **LEFT_BEHIND})
    before = _snapshot(root)
    hidden = [str(root / ".coverage"), str(root / "pkg/.env.local")]
    result = await run_sandboxed(
        {}, python_argv("-m", "pytest", "-p", "no:cacheprovider", "-q", python=sys.executable,
                        site=True),
        SandboxPolicy(timeout_s=60), project=mount(
            root, overlays={}, hidden=hidden, workdir=str(root), writable=True),
    )  # fmt: skip
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "3 passed" in result.stdout and "pkg/mod.py" in result.stdout  # the cov report
    assert _snapshot(root) == before
    assert (root / ".coverage").read_text() == "data of an earlier run"


async def test_a_hidden_folder_of_a_copy_on_write_view_takes_writes(tmp_path):
    """A hidden folder (``.pytest_cache`` of earlier runs) was an empty *read-only* folder:
    pytest's cache write at the end of the session warned, and under ``filterwarnings =
    error`` (itsdangerous, flask...) the session ended in an internal error (exit status 3). In a copy-on-write view
    it is empty and takes writes, which the project on disk never sees."""
    from project_kit import write

    root = write(tmp_path / "cached", {
        "pyproject.toml": "[tool.pytest.ini_options]\n"
                          "filterwarnings = ['error::pytest.PytestCacheWarning']\n",
        "tests/test_one.py": "def test_one():\n    assert True\n",
        ".pytest_cache/v/cache/nodeids": '["earlier"]',
    })  # fmt: skip
    before = _snapshot(root)
    result = await run_sandboxed(
        {}, python_argv("-m", "pytest", "-q", python=sys.executable, site=True),
        SandboxPolicy(timeout_s=60), project=mount(
            root, overlays={}, hidden=[str(root / ".pytest_cache")], workdir=str(root),
            writable=True),
    )  # fmt: skip
    assert result.exit_code == 0, result.stdout + result.stderr
    assert _snapshot(root) == before


JUDGE_WRITES = """
import json, os, sys
root = os.environ["CODETEAM_PROJECT_ROOT"]
with open(os.path.join(root, "judge_wrote.txt"), "w") as handle:
    handle.write("judge")
channel, _ = start()
seen = json.loads(channel.makefile("rb").readline())
sys.path.insert(0, root)
try:
    import planted
    imported = True
except ImportError:
    imported = False
seen.update(imported_planted=imported,
            planted_exists=os.path.exists(os.path.join(root, "planted.py")))
print(json.dumps(seen))
"""

SUBJECT_WRITES = """
import json, os, socket, sys
root = os.environ["CODETEAM_PROJECT_ROOT"]
def attempt(action):
    try:
        action()
        return "written"
    except OSError as error:
        return type(error).__name__
seen = {
    "judge_file_seen": os.path.exists(os.path.join(root, "judge_wrote.txt")),
    "plant": attempt(lambda: open(os.path.join(root, "planted.py"), "w").write("X = 1\\n")),
    "candidate": attempt(lambda: open(os.path.join(root, "src/pkg/mod.py"), "a").write("#")),
    "env": os.path.lexists(os.path.join(root, ".env")),
    "git": os.listdir(os.path.join(root, ".git")),
}
channel = socket.socket(fileno=int(sys.argv[1]))
channel.sendall(json.dumps(seen).encode() + b"\\n")
"""


async def test_judge_and_subject_write_each_into_their_own_copy(tmp_path):
    """In a copy-on-write project the judge's and each subject's writes are their own: the
    subject does not see the judge's file, and a module it writes is not there for the judge to
    import (forgery F1 of issue 24). The overlay stays read-only, secrets stay hidden (a file
    is absent from the view, a folder empty), the project on disk is unchanged."""
    from subject_client import JUDGE_CLIENT

    from codeteam.execution.sandbox import SubjectLaunch

    root = make_project(tmp_path)
    before = _snapshot(root)
    candidate = {str(root / "src/pkg/mod.py"): "VALUE = 'candidate'\n"}
    subject = SubjectLaunch(argv=python_argv("s.py", "{channel}"), files={"s.py": SUBJECT_WRITES},
                            overlays=candidate)  # fmt: skip
    result = await run_sandboxed(
        {"judge.py": JUDGE_CLIENT + JUDGE_WRITES}, python_argv("judge.py"),
        SandboxPolicy(timeout_s=20), project=mount(root, writable=True), subject=subject,
    )  # fmt: skip
    assert result.exit_code == 0, (result.stderr, result.subject_output)
    seen = json.loads(result.stdout)
    assert seen.pop("candidate") in ("OSError", "PermissionError")  # EROFS, or EACCES first
    assert seen == {"judge_file_seen": False, "plant": "written", "env": False, "git": [],
                    "imported_planted": False, "planted_exists": False}
    assert _snapshot(root) == before


READ_SECRETS = """\
import json, os
root = os.environ["CODETEAM_PROJECT_ROOT"]
def read(path):
    try:
        return open(os.path.join(root, path)).read()
    except OSError as error:
        return type(error).__name__
print(json.dumps({path: read(path) for path in (
    "config/.env", "config/deep/.env.prod", "deploy/key.pem", "deploy/id_rsa", ".netrc",
    "sub/.pypirc", "vendor/.git/config", "config/settings.py")}))
"""


@pytest.mark.parametrize("mode", ["bwrap", "none"])
async def test_secrets_at_any_depth_are_hidden_though_not_named(tmp_path, mode):
    """Issue 25 item 5: the caller's ``hidden`` names none of them; the sandbox finds them."""
    from project_kit import write

    root = write(tmp_path / "proj", {
        "pyproject.toml": "", "config/.env": "DB_PASSWORD=hunter2\n",
        "config/deep/.env.prod": "TOKEN=t0k3n\n", "deploy/key.pem": "-----BEGIN KEY-----\n",
        "deploy/id_rsa": "-----BEGIN OPENSSH-----\n", ".netrc": "machine x password p\n",
        "sub/.pypirc": "[pypi]\npassword = p\n", "vendor/.git/config": "[remote]\n",
        "config/settings.py": "DEBUG = False\n",
    })  # fmt: skip
    result = await run_sandboxed({"r.py": READ_SECRETS}, python_argv("r.py"),
                                 SandboxPolicy(mode=mode, timeout_s=20),
                                 project=mount(root, overlays={}, hidden=[]))  # fmt: skip
    assert result.exit_code == 0, result.stderr
    seen = json.loads(result.stdout)
    assert seen.pop("config/settings.py") == "DEBUG = False\n"
    if mode == "bwrap":  # files emptied, the .git folder an empty one
        expected = dict.fromkeys(seen, "") | {"vendor/.git/config": "FileNotFoundError"}
    else:  # left out of the copy
        expected = dict.fromkeys(seen, "FileNotFoundError")
    assert seen == expected
    for secret in ("hunter2", "t0k3n", "BEGIN", "password"):
        assert secret not in result.stdout


# --- found by attacking issue 25's work (helper break25) ------------------------------------
SECRET_PLACES = {
    ".envs/.production/.django": "DJANGO_SECRET_KEY=from-envs-folder",  # cookiecutter-django
    "config/app.env": "DB_PASSWORD=from-compose-env-file",  # docker compose env_file
    "deploy/id_ed25519": "-----BEGIN OPENSSH PRIVATE KEY----- ed25519",
    "deploy/id_ecdsa": "-----BEGIN OPENSSH PRIVATE KEY----- ecdsa",
    ".npmrc": "//registry.npmjs.org/:_authToken=npm-token",
    "settings/prod.txt": "TOKEN=behind-a-link-named-env",
}

READ_ALL = """\
import json, os, sys
root = os.environ["CODETEAM_PROJECT_ROOT"]
seen = {}
for name in sys.argv[1:]:
    try:
        with open(os.path.join(root, name)) as handle:
            seen[name] = handle.read()
    except OSError as error:
        seen[name] = type(error).__name__
print(json.dumps(seen))
"""


async def test_common_secret_files_and_folders_are_hidden_wherever_they_are(tmp_path):
    # Before: each of these was readable by the code under test (only .env* files, *.pem,
    # id_rsa*, .netrc and .pypirc were hidden; not a folder named .envs, a compose file.env,
    # other ssh keys, a hard link to .env or the file a link named .env points to).
    root = make_project(tmp_path)
    for name, text in SECRET_PLACES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text + "\n")
    (root / "src" / "pkg" / ".env").symlink_to(root / "settings" / "prod.txt")
    os.link(root / ".env", root / "notes.txt")  # a hard link to .env: the same file
    names = [*SECRET_PLACES, "notes.txt", "src/pkg/other.py"]
    result = await run_sandboxed(
        {"read.py": READ_ALL}, python_argv("read.py", *names, python=sys.executable),
        SandboxPolicy(timeout_s=10), project=mount(root, hidden=[]),
    )
    assert result.exit_code == 0, result.stderr
    seen = json.loads(result.stdout)
    assert seen.pop("src/pkg/other.py") == "OTHER = 1\n"
    # an empty file in its place, or (inside a hidden folder) no file at all
    assert {name: text for name, text in seen.items()
            if text not in ("", "FileNotFoundError")} == {}
    assert seen[".envs/.production/.django"] == "FileNotFoundError"


@pytest.mark.skipif(os.geteuid() != 0, reason="files of another owner need a root server")
async def test_files_of_an_owner_other_than_the_projects_can_be_hidden_and_read(tmp_path,
                                                                                cov_plugin):
    """An sdist unpacked as root keeps its files' uid (501 here), while what a run of plain
    pytest as root made there (``.coverage``, ``*.egg-info``) is root's. In the judge's view
    the lower layer was idmapped with the project owner's uid alone: a file of any other uid
    had no id there, so hiding ``.coverage`` (a whiteout) failed ("the mount holder refused
    overlay: [Errno 75] Value too large for defined data type: '.../.coverage'"; parse 1.22.4,
    whose addopts say ``--cov``: every function "SandboxUnavailable"). Other uids keep their
    own ids in the view (read as "other", as without the idmap)."""
    from project_kit import write

    root = write(tmp_path / "mixed", {**COVERED, **LEFT_BEHIND})
    for path in [root, *root.rglob("*")]:
        if path.name not in (".coverage", "mod.py"):
            os.chown(path, 501, 20)  # the sdist's owner; these two stay root's
    before = _snapshot(root)
    hidden = [str(root / ".coverage"), str(root / "pkg/.env.local")]
    result = await run_sandboxed(
        {}, python_argv("-m", "pytest", "-p", "no:cacheprovider", "-q", python=sys.executable,
                        site=True),
        SandboxPolicy(timeout_s=60), project=mount(
            root, overlays={}, hidden=hidden, workdir=str(root), writable=True),
    )  # fmt: skip
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "3 passed" in result.stdout and "pkg/mod.py" in result.stdout  # the cov report
    assert _snapshot(root) == before
    assert (root / ".coverage").read_text() == "data of an earlier run"
