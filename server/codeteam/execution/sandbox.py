"""Running untrusted commands (generated code and its tests) in a sandbox.

Generated code never runs in the server process. :func:`run_sandboxed` starts one subprocess
per run, in one of two modes (:class:`SandboxPolicy` ``mode``):

``"bwrap"`` (the default) runs the command in bubblewrap::

    bwrap --unshare-user --uid 65534 --gid 65534 --disable-userns   # server not root, or
    bwrap --cap-drop ALL --cap-add CAP_SETUID --cap-add CAP_SETGID  # server is root (see below)
          --unshare-ipc --unshare-pid --unshare-net --unshare-uts --unshare-cgroup-try
          --die-with-parent --new-session --hostname sandbox
          --ro-bind /usr /usr  --symlink usr/bin /bin ...            # system dirs, read-only
          --ro-bind /etc/ld.so.cache ... --ro-bind-data FD /etc/passwd ...  # a minimal /etc
          --proc /proc --dev /dev --remount-ro /dev
          --size N --tmpfs /dev/shm  --size N --tmpfs /tmp  --size N --tmpfs /sandbox
          --ro-bind <sys.base_prefix> ...   # the interpreter (even when it lives in $HOME)
          --ro-bind <venv site-packages> ...  # the server venv's packages, read-only
          --file FD /sandbox/<name> ...      # the run's files, copied in
          --chdir /sandbox --remount-ro / --seccomp FD  # no nested user namespaces
          [setpriv --reuid=<run uid> ...] prlimit --nproc=N -- <argv>

The only writable places are three size-capped tmpfs mounts private to the run (``/sandbox``,
the working directory that holds the run's files; ``/tmp``; ``/dev/shm``); they vanish with
the run. There is no network (a private loopback only), no $HOME, no workspace, no access to
the server's environment variables (API keys): the command gets a minimal environment.

A *project run* (``run_sandboxed(..., project=ProjectMount(...))``) adds the project the
function lives in: its root mounted read-only at its own path (``--ro-bind``), the candidate
version of the target's file laid over the original (``--ro-bind-data`` of a memfd), ``.git``,
``.env*`` and other secrets emptied (a read-only tmpfs over folders, an empty file over files),
the project's interpreter with its prefix and site-packages read-only, the working directory
in the project, ``$HOME`` a private writable folder. The run's files still go to ``/sandbox``.

``"none"`` runs the same command as a plain subprocess in a fresh temporary directory (deleted
afterwards) with the same rlimits and timeouts. This is NOT isolation: the code can read and
write everything the server user can, and use the network. It exists for machines without
working bubblewrap, and only when the user sets ``sandbox = "none"`` explicitly.

Limits, in both modes (values from :class:`SandboxPolicy`):

- rlimits set in the child before ``exec``: CPU seconds, address space, file size, core dumps
  off; the wall-clock ``timeout_s`` kills the whole process group (and, under bwrap, the pid
  namespace with everything in it: ``--die-with-parent`` plus ``--unshare-pid``).
- Processes (fork bombs). ``RLIMIT_NPROC`` counts the tasks of the *real uid*, and the kernel
  never enforces it for uid 0, even inside a user namespace (bwrap maps the sandbox uid back
  to the caller's uid, so a root server's sandbox still runs as kernel uid 0). So:

  * server not root: bwrap creates a user namespace; since Linux 5.14 ``RLIMIT_NPROC`` is
    counted per user namespace, so ``prlimit --nproc`` *inside* the sandbox bounds this run's
    tasks alone (setting it before bwrap would count all of the user's processes instead and
    could stop bwrap itself from starting).
  * server is root: no user namespace; bwrap runs privileged with every capability dropped
    but CAP_SETUID/CAP_SETGID, and ``setpriv`` inside switches to a real uid/gid *of this run
    alone* before the command starts (``RUN_UID_BASE + pid * RUN_UID_SLOTS + slot``, from a
    process-wide allocator, released after the run; named "nobody" in the sandbox's
    /etc/passwd), so the rlimit applies and counts this run's tasks only: a concurrent run's
    fork bomb cannot exhaust it. Root's privileges are gone for real, not only renamed.

  Memory and CPU are per-process rlimits (``RLIMIT_AS``, ``RLIMIT_CPU``), and the scratch
  tmpfs mounts are the run's own, so no budget is shared between runs.
- Nested user namespaces. Inside the sandbox ``unshare(CLONE_NEWUSER)`` and ``clone`` with
  that flag fail with EPERM, and ``clone3`` with ENOSYS (the C library then falls back to
  ``clone``): a seccomp filter (classic BPF built by :func:`_no_userns_filter`, loaded by
  bwrap's ``--seccomp``) in both the root and the non-root path (where ``--disable-userns``
  does the same where bwrap has it). On a machine type without system call numbers in
  :data:`_SECCOMP_ARCH` the filter is left out (with a warning).
  * ``"none"``: the limit is the server user's current task count plus ``max_processes``.
    It has no effect when the server runs as root; then, as a last resort, the test harness
    refuses forks and spawns once its process group has ``max_processes`` members (a
    guard in Python that C code can bypass: "none" is not isolation).

  When util-linux's ``setpriv``/``prlimit`` are missing, a short Python shim does the same
  (about 15 ms more per run). A pids cgroup would be an alternative, but it is only writable
  by root or under systemd delegation, so it is not relied on. Threads count as tasks.

Output: stdout and stderr are read incrementally and at most ``output_limit_bytes`` of each
are kept (the rest is drained and counted, so the child never blocks on a full pipe). A third
pipe, whose descriptor number is in ``$CODETEAM_RESULTS_FD`` inside the sandbox, carries the
command's machine-readable results (:attr:`ProcessResult.results`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import resource
import shutil
import signal
import site
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Self

from pydantic import BaseModel, Field

log = logging.getLogger(__name__)

SANDBOX_DIR = "/sandbox"
"""The working directory inside bwrap: holds the run's files; writable (a tmpfs)."""

SANDBOX_UID = 65534
"""uid and gid the sandboxed code runs as (nobody/nogroup)."""

RESULTS_FD_ENV = "CODETEAM_RESULTS_FD"
"""Environment variable naming the results pipe's descriptor number inside the sandbox."""

PRIVATE_PIDNS_ENV = "CODETEAM_PRIVATE_PIDNS"
"""Set to "1" inside bwrap: the command is in its own pid namespace (the harness may then
kill every other process it can see), to "root" for "none" as root (no process limit
applies: the harness guards forks itself), absent otherwise."""

RUN_UID_BASE = 1 << 30
RUN_UID_SLOTS = 512
"""A root server runs each concurrent sandbox as a uid of its own (see :class:`_RunUids`):
``RUN_UID_BASE + pid * RUN_UID_SLOTS + slot``, unique across this machine's live servers (pids
are below 2**22, so every uid stays below 2**32 - 1)."""


class _RunUids:
    """Process-wide allocator of the per-run uids (thread-safe; a root server only)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._free: list[int] = []
        self._pid = -1

    def acquire(self) -> int:
        with self._lock:
            if self._pid != os.getpid():  # first use, or a forked server
                self._pid = os.getpid()
                base = RUN_UID_BASE + self._pid * RUN_UID_SLOTS
                self._free = [base + slot for slot in reversed(range(RUN_UID_SLOTS))]
            if not self._free:
                raise OSError(f"more than {RUN_UID_SLOTS} concurrent sandboxed runs")
            return self._free.pop()

    def release(self, uid: int) -> None:
        with self._lock:
            if self._pid == os.getpid() and uid not in self._free:
                self._free.append(uid)


_run_uids = _RunUids()

NPROC_ENV = "CODETEAM_MAX_PROCESSES"
"""``max_processes`` of the policy, for the harness's last-resort fork guard."""

RESULTS_LIMIT_BYTES = 32 * 1024 * 1024
"""At most this much of the results channel is kept."""

_DRAIN_GRACE_S = 1.0
"""After the process exits, how long to wait for its pipes to reach end of file."""

NOT_INSTALLED = (
    'bubblewrap (bwrap) is not installed: apt-get install bubblewrap, or set sandbox = "none" '
    "to run generated code unsandboxed at your own risk"
)


class SandboxPolicy(BaseModel):
    """How generated code runs.

    - ``mode``: ``"bwrap"`` (bubblewrap isolation, the default) or ``"none"`` (a plain
      subprocess with the same limits; not isolation: only when the user opts in).
    - ``timeout_s``: wall-clock seconds for a whole run (process start to exit); then the
      process group, and under bwrap the whole pid namespace, is killed.
    - ``per_test_timeout_s``: seconds one test may take inside a run (enforced by the test
      harness with ``SIGALRM``; capped at ``timeout_s``).
    - ``cpu_s``: CPU seconds per process (``RLIMIT_CPU``; SIGXCPU, then SIGKILL 1 s later).
    - ``memory_mb``: address space per process in MiB (``RLIMIT_AS``); allocations beyond it
      fail (``MemoryError`` in Python).
    - ``file_size_mb``: largest file a process may write, in MiB (``RLIMIT_FSIZE``).
    - ``max_processes``: processes plus threads the command may run at once
      (``RLIMIT_NPROC``, see the module docstring for how it is made per-run).
    - ``output_limit_bytes``: bytes kept of stdout and of stderr, each.
    - ``scratch_mb``: size in MiB of each writable tmpfs under bwrap (``/sandbox``, ``/tmp``,
      ``/dev/shm``); they live in RAM.
    """

    mode: Literal["bwrap", "none"] = "bwrap"
    timeout_s: float = Field(default=10.0, gt=0)
    per_test_timeout_s: float = Field(default=5.0, gt=0)
    cpu_s: int = Field(default=10, ge=1)
    memory_mb: int = Field(default=1024, ge=64)
    file_size_mb: int = Field(default=16, ge=1)
    max_processes: int = Field(default=64, ge=1)
    output_limit_bytes: int = Field(default=1_000_000, ge=1024)
    scratch_mb: int = Field(default=64, ge=1)


FileContent = str | bytes | Callable[[str], str | bytes]
"""A file for the run: text (written as UTF-8), bytes, or (project runs) a callable given where
the project root is in the run, returning text or bytes."""


class ProjectMount(BaseModel):
    """A project the command runs in, instead of only the run's files (see :func:`run_sandboxed`).

    All paths are absolute host paths (resolved: no symlinks in them).

    - ``root``: the project's folder, mounted read-only at its own path (the code under test
      cannot write into it; pytest's cache and bytecode are not written there either).
    - ``overlays``: absolute path -> text; each an existing file under ``root`` that the run
      sees with this text instead (the candidate version of the target's module); the rest of
      the project is untouched.
    - ``hidden``: absolute paths under ``root`` that the run must not see (``.git``, ``.env*``
      files, other dotfiles): a directory shows as an empty read-only folder, a file as an empty
      read-only file; paths that do not exist are ignored.
    - ``python``: the interpreter to run (for :func:`python_argv`'s ``python``); its
      virtualenv (or ``bin/`` folder) and the folder of the binary it links to are mounted
      read-only too.
    - ``workdir``: the command's working directory, ``root`` or a folder under it.
    - ``extra_ro``: more folders mounted read-only at their own paths: the interpreter's
      prefix, base prefix and site-packages (a project ``.venv`` with its dependencies and
      pytest plugins, even under ``$HOME``); paths that do not exist are ignored.
    """

    root: str
    overlays: dict[str, str] = Field(default_factory=dict)
    hidden: list[str] = Field(default_factory=list)
    python: str
    workdir: str
    extra_ro: list[str] = Field(default_factory=list)

    def check(self) -> None:
        """Raise ``ValueError`` unless the paths are usable (see the field descriptions)."""
        if not os.path.isabs(self.root) or not os.path.isdir(self.root):
            raise ValueError(f"project root is not an absolute path of a folder: {self.root!r}")
        paths = [*self.overlays, *self.hidden, self.workdir]
        for path in paths:
            if not os.path.isabs(path) or not _under(os.path.normpath(path), [self.root]):
                raise ValueError(f"not an absolute path under the project root: {path!r}")
        for path in self.overlays:
            if not os.path.isfile(path):
                raise ValueError(f"an overlay must replace an existing file: {path!r}")
        if not os.path.isdir(self.workdir):
            raise ValueError(f"the working directory is not a folder: {self.workdir!r}")
        for path in (self.python, *self.extra_ro):
            if not os.path.isabs(path):
                raise ValueError(f"not an absolute path: {path!r}")


PROJECT_ROOT_ENV = "CODETEAM_PROJECT_ROOT"
"""Set when a :class:`ProjectMount` is given: where the project root is in this run (its own
path under bwrap; the copy in mode "none")."""

FILES_DIR_ENV = "CODETEAM_FILES_DIR"
"""Set when a :class:`ProjectMount` is given: the folder holding the run's ``files``
(``/sandbox`` under bwrap; a folder of the run's temporary directory in mode "none")."""

NOT_COPIED = frozenset({".tox", ".nox", "node_modules", "__pycache__", ".mypy_cache",
                        ".pytest_cache", ".ruff_cache"})  # fmt: skip
"""Folders left out of the project's copy in mode "none" (besides hidden paths and any folder
holding a ``pyvenv.cfg``, i.e. a virtualenv)."""


class ProcessResult(BaseModel):
    """What one sandboxed process did.

    ``exit_code`` is the command's exit status, negative when a signal ended it (-9: SIGKILL;
    under bwrap an exit status 129..192 of the command is reported as that signal, since bwrap
    reports deaths by signal that way); None if it never started. ``stdout`` and ``stderr``
    are the first ``output_limit_bytes`` of each (UTF-8, undecodable bytes replaced), with a
    note appended when more was written (``stdout_bytes``/``stderr_bytes`` are the totals).
    ``results`` is the text the command wrote to the results channel (``$CODETEAM_RESULTS_FD``).
    ``killed`` is True when the wall-clock timeout ended the run; ``seconds`` is the wall-clock
    time from start to exit.
    """

    exit_code: int | None = None
    stdout: str = ""
    stderr: str = ""
    stdout_bytes: int = 0
    stderr_bytes: int = 0
    results: str = ""
    killed: bool = False
    seconds: float = 0.0
    sandbox: Literal["bwrap", "none"] = "bwrap"


# --------------------------------------------------------------------------------------------
# The host side: which interpreter, which paths, which tools.


@dataclass(frozen=True)
class _Layout:
    """Paths the sandboxed interpreter needs (all absolute, resolved)."""

    python: str
    prefixes: tuple[str, ...]
    site_packages: tuple[str, ...]


_layout_cache: _Layout | None = None


def _python_layout() -> _Layout:
    """The server's interpreter (resolved through the venv's symlink), its installation
    prefix(es), and the server environment's site-packages directories."""
    global _layout_cache
    if _layout_cache is None:
        python = os.path.realpath(sys.executable)
        prefixes = {os.path.realpath(sys.base_prefix), os.path.realpath(sys.base_exec_prefix)}
        packages: list[str] = []
        for path in site.getsitepackages():
            real = os.path.realpath(path)
            if os.path.isdir(real) and real not in packages:
                packages.append(real)
        _layout_cache = _Layout(python, tuple(sorted(prefixes)), tuple(packages))
    return _layout_cache


def sandbox_python() -> str:
    """Absolute path of the interpreter to put in ``argv`` (the same inside and outside)."""
    return _python_layout().python


def sandbox_site_packages() -> list[str]:
    """The server environment's site-packages directories, readable inside the sandbox (the
    interpreter runs with ``-S``, so the command must put them on ``sys.path`` itself)."""
    return list(_python_layout().site_packages)


def python_argv(*args: str, python: str | None = None, site: bool = False) -> list[str]:
    """``[interpreter, "-S", "-s", "-B", *args]``: no site processing (fast start), no user
    site-packages, no bytecode files.

    ``python``: the interpreter to name (e.g. :attr:`ProjectMount.python`, a project's
    ``.venv/bin/python``, as given: not resolved, so that its ``pyvenv.cfg`` applies); default
    the server's (:func:`sandbox_python`). ``site``: keep site processing (no ``-S``: the
    interpreter's site-packages, its ``.pth`` files and editable installs are on ``sys.path``,
    as pytest and its plugins expect)."""
    flags = ["-s", "-B"] if site else ["-S", "-s", "-B"]
    return [python or sandbox_python(), *flags, *args]


def _tool(name: str) -> str | None:
    """A util-linux tool that is also visible inside the sandbox (under a bound system dir)."""
    for directory in ("/usr/bin", "/bin", "/usr/sbin", "/sbin"):
        path = os.path.join(directory, name)
        if os.access(path, os.X_OK):
            return path
    return None


def _bwrap_path() -> str | None:
    return shutil.which("bwrap")


# --------------------------------------------------------------------------------------------
# Detection.

_problems: dict[tuple[str, int], str | None] = {}
_problems_lock = threading.Lock()
_disable_userns_ok: dict[str, bool] = {}


def sandbox_problem(mode: str) -> str | None:
    """None when sandbox ``mode`` is usable here, else a message for the user.

    ``"none"`` is always usable. For ``"bwrap"`` the bwrap binary must exist on PATH and be
    able to start a sandboxed interpreter; the check runs one (about 30 ms). Success is cached
    per bwrap path and effective uid; a failure is checked again next time (it may be fixed
    meanwhile).
    """
    if mode == "none":
        return None
    if mode != "bwrap":
        return f'unknown sandbox mode {mode!r} (use "bwrap" or "none")'
    bwrap = _bwrap_path()
    if bwrap is None:
        return NOT_INSTALLED
    key = (bwrap, os.geteuid())
    with _problems_lock:
        if key in _problems:
            return _problems[key]
        problem = _probe(bwrap)
        if problem is None:
            _problems[key] = None
        return problem


def _probe(bwrap: str) -> str | None:
    policy = SandboxPolicy(timeout_s=10)
    for disable_userns in (True, False):
        _disable_userns_ok[bwrap] = disable_userns
        with _Prepared(bwrap, {}, python_argv("-c", "pass"), policy) as prepared:
            try:
                done = subprocess.run(
                    prepared.argv,
                    stdin=subprocess.DEVNULL,
                    capture_output=True,
                    pass_fds=prepared.pass_fds,
                    env=prepared.env,
                    cwd=prepared.cwd,
                    preexec_fn=prepared.preexec,
                    timeout=20,
                    check=False,
                )
            except (OSError, subprocess.SubprocessError) as error:
                return f"bubblewrap (bwrap) at {bwrap} cannot be started: {error}"
        if done.returncode == 0:
            return None
        err = done.stderr.decode("utf-8", "replace").strip()
        if disable_userns and "disable-userns" in err:
            continue  # bwrap older than 0.8: retry without that option
        detail = err.splitlines()[-1] if err else f"exit status {done.returncode}"
        return (
            f"bubblewrap (bwrap) at {bwrap} cannot create a sandbox here ({detail}); "
            "unprivileged user namespaces may be disabled (sysctl "
            "kernel.unprivileged_userns_clone, or an AppArmor userns restriction). Fix that, "
            'or set sandbox = "none" to run generated code unsandboxed at your own risk'
        )
    return None  # pragma: no cover


# --------------------------------------------------------------------------------------------
# Building the command line.


def _count_tasks(uid: int) -> int:
    """Tasks (processes and threads) whose real uid is ``uid``, system-wide (what
    ``RLIMIT_NPROC`` counts outside a user namespace). ``/proc/<pid>`` is owned by the
    process's effective uid, so only those entries' status files are read."""
    total = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            if entry.stat().st_uid != uid:
                continue
            with open(f"/proc/{entry.name}/status", "rb") as handle:
                status = handle.read()
        except OSError:
            continue
        real_uid = threads = None
        for line in status.splitlines():
            if line.startswith(b"Uid:"):
                real_uid = int(line.split()[1])
            elif line.startswith(b"Threads:"):
                threads = int(line.split()[1])
        if real_uid == uid:
            total += threads or 1
    return total


def _clamp(value: int, limit: int) -> int:
    hard = resource.getrlimit(limit)[1]
    return value if hard == resource.RLIM_INFINITY else min(value, hard)


def _rlimits(policy: SandboxPolicy, nproc: int | None) -> list[tuple[int, tuple[int, int]]]:
    mib = 1024 * 1024
    wanted = [
        (resource.RLIMIT_CPU, policy.cpu_s, policy.cpu_s + 1),
        (resource.RLIMIT_AS, policy.memory_mb * mib, policy.memory_mb * mib),
        (resource.RLIMIT_FSIZE, policy.file_size_mb * mib, policy.file_size_mb * mib),
        (resource.RLIMIT_CORE, 0, 0),
    ]
    if nproc is not None:
        wanted.append((resource.RLIMIT_NPROC, nproc, nproc))
    return [(kind, (_clamp(soft, kind), _clamp(hard, kind))) for kind, soft, hard in wanted]


def _preexec(limits: list[tuple[int, tuple[int, int]]]):
    """The function run in the child between fork and exec: only ``setrlimit`` calls on
    values computed beforehand (no imports, locks or allocation-heavy work, so it is safe
    enough in a threaded server)."""
    setrlimit = resource.setrlimit

    def apply() -> None:
        for kind, value in limits:
            setrlimit(kind, value)

    return apply


_SHIM = """\
import os, resource, sys
n = int(sys.argv[1]); drop = sys.argv[2] == "1"; uid = int(sys.argv[3])
resource.setrlimit(resource.RLIMIT_NPROC, (n, n))
if drop:
    os.setgroups([]); os.setresgid(uid, uid, uid); os.setresuid(uid, uid, uid)
os.execv(sys.argv[4], sys.argv[4:])
"""


def _guard_argv(argv: list[str], nproc: int, drop_root: bool, uid: int = SANDBOX_UID) -> list[str]:
    """``argv`` prefixed by the steps that switch to ``uid`` (``drop_root``) and set
    ``RLIMIT_NPROC`` inside the sandbox."""
    setpriv, prlimit = _tool("setpriv"), _tool("prlimit")
    if prlimit and (setpriv or not drop_root):
        prefix: list[str] = []
        if drop_root:
            prefix = [
                setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
                "--inh-caps=-all", "--",
            ]  # fmt: skip
        return [*prefix, prlimit, f"--nproc={nproc}", "--", *argv]
    return python_argv("-c", _SHIM, str(nproc), "1" if drop_root else "0", str(uid), *argv)


_SECCOMP_ARCH = {  # machine -> (AUDIT_ARCH_*, unshare, clone, clone3)
    "x86_64": (0xC000003E, 272, 56, 435),
    "aarch64": (0xC00000B7, 97, 220, 435),
}
CLONE_NEWUSER = 0x10000000


def _no_userns_filter() -> bytes | None:
    """A seccomp (classic BPF) program for bwrap's ``--seccomp``: ``unshare`` and ``clone``
    with ``CLONE_NEWUSER`` fail with EPERM, ``clone3`` (whose flags a classic filter cannot
    read) with ENOSYS, so the C library falls back to ``clone``; other architectures' system
    calls (32-bit compat, x32) fail with EPERM/ENOSYS. Nested user namespaces (``unshare
    -r``) are then impossible in the sandbox, whoever runs the server. Everything else is
    allowed. None on a machine type it has no numbers for."""
    import errno
    import platform
    import struct

    machine = platform.machine()
    if machine not in _SECCOMP_ARCH:
        return None
    arch, unshare, clone, clone3 = _SECCOMP_ARCH[machine]
    allow, eperm = 0x7FFF0000, 0x00050000 | errno.EPERM
    enosys = 0x00050000 | errno.ENOSYS
    ld, jeq, jset, ret = 0x20, 0x15, 0x45, 0x06
    program = [
        (ld, 0, 0, 4),  # 0: arch
        (jeq, 1, 0, arch),  # 1
        (ret, 0, 0, eperm),  # 2: another ABI
        (ld, 0, 0, 0),  # 3: the system call's number
        (jset, 8, 0, 0x40000000),  # 4: x32 -> 13
        (jeq, 7, 0, clone3),  # 5 -> 13
        (jeq, 2, 0, unshare),  # 6 -> 9
        (jeq, 1, 0, clone),  # 7 -> 9
        (ret, 0, 0, allow),  # 8
        (ld, 0, 0, 16),  # 9: the low half of the first argument (the flags)
        (jset, 0, 1, CLONE_NEWUSER),  # 10
        (ret, 0, 0, eperm),  # 11
        (ret, 0, 0, allow),  # 12
        (ret, 0, 0, enosys),  # 13
    ]
    return b"".join(struct.pack("<HBBI", *insn) for insn in program)


def _minimal_etc(uid: int = SANDBOX_UID) -> dict[str, str]:
    """The sandbox's /etc/passwd, group, hosts, nsswitch.conf (the run's uid is "nobody")."""
    return {
        "/etc/passwd": f"nobody:x:{uid}:{uid}:nobody:/nonexistent:/usr/sbin/nologin\n",
        "/etc/group": f"nogroup:x:{uid}:\n",
        "/etc/hosts": "127.0.0.1 localhost\n::1 localhost ip6-localhost\n",
        "/etc/nsswitch.conf": "passwd: files\ngroup: files\nhosts: files\n",
    }
_HOST_ETC = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime")
_SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")


def _env(tmpdir: str) -> dict[str, str]:
    """The whole environment the command gets (nothing of the server's)."""
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONHASHSEED": "0",
        "PYTHONIOENCODING": "utf-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "TMPDIR": tmpdir,
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }


def _memfd(name: str, content: str | bytes) -> int:
    fd = os.memfd_create(name, 0)
    data = content.encode("utf-8") if isinstance(content, str) else content
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _parents(path: str, made: set[str]) -> list[str]:
    """bwrap options creating the missing parent directories of ``path`` with mode 0755
    (bwrap itself would make them 0700, unreadable for uid 65534 when bwrap runs as root);
    ``made`` holds the directories that exist already and is updated."""
    missing = []
    parent = os.path.dirname(path)
    while parent not in made and parent != "/":
        missing.append(parent)
        parent = os.path.dirname(parent)
    args: list[str] = []
    for directory in reversed(missing):
        args += ["--perms", "0755", "--dir", directory]
        made.add(directory)
    return args


def _under(path: str, roots: list[str]) -> bool:
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


@dataclass
class _Prepared:
    """Everything needed to spawn one run: argv, environment, descriptors, cleanup."""

    bwrap: str | None
    files: dict[str, FileContent]
    command: list[str]
    policy: SandboxPolicy
    results_fd: int | None = None
    project: ProjectMount | None = None
    argv: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    pass_fds: tuple[int, ...] = ()
    preexec: object = None
    _close: list[int] = field(default_factory=list)
    _tmp: str | None = None
    run_uid: int | None = None

    def __enter__(self) -> Self:
        try:
            if self.bwrap is None:
                self._prepare_none()
            else:
                self._prepare_bwrap(self.bwrap)
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close_fds(self) -> None:
        """Close the descriptors that only the child needed (after it started)."""
        for fd in self._close:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._close.clear()

    def close(self) -> None:
        self.close_fds()
        if self.run_uid is not None:
            _run_uids.release(self.run_uid)
            self.run_uid = None
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None

    def _fds_env(self, env: dict[str, str]) -> dict[str, str]:
        if self.results_fd is not None:
            env[RESULTS_FD_ENV] = str(self.results_fd)
        return env

    def _command(self, files_dir: str, project_root: str | None = None) -> list[str]:
        """``command`` with, in a project run, each element naming a key of ``files``
        replaced by that file's path in the run, and (mode "none") paths under the project
        root by their place in the copy."""
        if self.project is None:
            return list(self.command)
        argv = []
        for arg in self.command:
            if arg in self.files:
                arg = os.path.join(files_dir, arg)
            elif project_root is not None:
                arg = _moved(arg, self.project.root, project_root)
            argv.append(arg)
        return argv

    def _contents(self, project_root: str) -> dict[str, str | bytes]:
        """``files`` with each callable value called with where the project root is."""
        return {
            name: content(project_root) if callable(content) else content
            for name, content in self.files.items()
        }

    def _prepare_none(self) -> None:
        if self._tmp is None:
            self._tmp = tempfile.mkdtemp(prefix="codeteam-run-")
        files_dir = self._tmp
        copy = None
        if self.project is not None:
            files_dir = os.path.join(self._tmp, "sandbox")
            os.mkdir(files_dir)
            copy = _copy_place(self._tmp, self.project)
            if not os.path.isdir(copy):
                _copy_project(self.project, copy)
        for name, content in self._contents(copy or "").items():
            path = Path(files_dir, name)
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, encoding="utf-8")
        scratch = Path(self._tmp, ".tmp")
        scratch.mkdir()
        nproc = None
        if os.geteuid() != 0:  # root is exempt from RLIMIT_NPROC: no effect, not set
            nproc = _count_tasks(os.getuid()) + self.policy.max_processes
        self.argv = list(self.command)
        self.env = self._fds_env(_env(str(scratch)))
        if os.geteuid() == 0:
            self.env[PRIVATE_PIDNS_ENV] = "root"
            self.env[NPROC_ENV] = str(self.policy.max_processes)
        self.cwd = self._tmp
        if self.project is not None:
            project = self.project
            home = os.path.join(self._tmp, ".home")
            os.mkdir(home)
            self.argv = self._command(files_dir, copy)
            self.cwd = _moved(project.workdir, project.root, copy)
            self.env.update({"HOME": home, PROJECT_ROOT_ENV: copy, FILES_DIR_ENV: files_dir})
        self.pass_fds = (self.results_fd,) if self.results_fd is not None else ()
        self.preexec = _preexec(_rlimits(self.policy, nproc))

    def _prepare_bwrap(self, bwrap: str) -> None:
        layout = _python_layout()
        root = os.geteuid() == 0
        scratch = str(self.policy.scratch_mb * 1024 * 1024)
        args = [bwrap]
        uid = SANDBOX_UID
        if root:
            self.run_uid = uid = _run_uids.acquire()
            args += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
        else:
            args += ["--unshare-user", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID)]
            if _disable_userns_ok.get(bwrap, True):
                args.append("--disable-userns")
        args += [
            "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
            "--unshare-cgroup-try", "--die-with-parent", "--new-session",
            "--hostname", "sandbox",
        ]  # fmt: skip
        bound: list[str] = []
        for path in _SYSTEM_DIRS:
            if os.path.islink(path):
                args += ["--symlink", os.readlink(path), path]
            elif os.path.isdir(path):
                args += ["--ro-bind", path, path]
                bound.append(path)
        made = {"/", *bound}
        args += ["--perms", "0755", "--dir", "/etc"]
        made.add("/etc")
        for path in _HOST_ETC:
            if os.path.exists(path):
                args += ["--ro-bind", path, path]
        for path, text in _minimal_etc(uid).items():
            fd = _memfd(os.path.basename(path), text)
            self._close.append(fd)
            args += ["--perms", "0644", "--ro-bind-data", str(fd), path]
        # The scratch mounts come before the interpreter's binds: a venv or prefix under /tmp
        # (a checkout in /tmp) must be bound on top of the private /tmp, not hidden by it.
        args += [
            "--proc", "/proc",
            "--dev", "/dev", "--remount-ro", "/dev",
            "--perms", "1777", "--size", scratch, "--tmpfs", "/dev/shm",
            "--perms", "1777", "--size", scratch, "--tmpfs", "/tmp",
            "--perms", "0777", "--size", scratch, "--tmpfs", SANDBOX_DIR,
        ]  # fmt: skip  (not sticky: the harness unlinks its spec, which bwrap made as root)
        made.update({"/proc", "/dev", "/dev/shm", "/tmp", SANDBOX_DIR})
        for path in (*layout.prefixes, *layout.site_packages):
            if _under(path, bound):
                continue
            args += _parents(path, made)
            args += ["--ro-bind", path, path]
            bound.append(path)
        if self.project is not None:
            args += self._project_args(self.project, made, bound)
        contents = self._contents(self.project.root if self.project else "")
        for name, text in contents.items():
            fd = _memfd(name, text)
            self._close.append(fd)
            target = f"{SANDBOX_DIR}/{Path(name).as_posix()}"
            args += _parents(target, made)
            args += ["--perms", "0644", "--file", str(fd), target]
        workdir = SANDBOX_DIR if self.project is None else self.project.workdir
        args += ["--chdir", workdir, "--remount-ro", "/"]
        program = _no_userns_filter()
        if program is not None:
            seccomp = _memfd("seccomp", program)
            self._close.append(seccomp)
            args += ["--seccomp", str(seccomp)]
        else:
            log.warning("no seccomp filter for this machine type: nested user namespaces "
                        "are not blocked in the sandbox")
        if root:  # this run's own uid (normally no task yet), plus the command itself
            nproc = _count_tasks(uid) + self.policy.max_processes + 1
        else:
            nproc = self.policy.max_processes + 2  # bwrap's init and the command itself
        args += _guard_argv(self._command(SANDBOX_DIR), nproc, drop_root=root, uid=uid)
        self.argv = args
        self.env = self._fds_env(_env("/tmp"))
        self.env[PRIVATE_PIDNS_ENV] = "1"
        if self.project is not None:
            self.env.update(
                {"HOME": "/tmp", PROJECT_ROOT_ENV: self.project.root, FILES_DIR_ENV: SANDBOX_DIR}
            )
        self.pass_fds = tuple(self._close) + (
            (self.results_fd,) if self.results_fd is not None else ()
        )
        self.preexec = _preexec(_rlimits(self.policy, None))

    def _project_args(self, project: ProjectMount, made: set[str], bound: list[str]) -> list[str]:
        """bwrap options for a project run: ``extra_ro`` folders outside the root, the root
        (read-only), the hidden paths, ``extra_ro`` folders inside the root, the overlays."""
        args: list[str] = []
        root = project.root

        def bind(path: str) -> None:
            nonlocal args
            if not _under(path, bound):
                args += _parents(path, made)
            args += ["--ro-bind", path, path]
            bound.append(path)

        extra: list[str] = []
        for path in (*project.extra_ro, *_interpreter_dirs(project.python)):
            real = os.path.realpath(path)
            if os.path.exists(real) and real not in extra:
                extra.append(real)
        for path in extra:
            if not _under(path, [root]) and not _under(path, bound):
                bind(path)
        bind(root)
        emptied: list[str] = []
        for path in sorted(project.hidden):
            if not os.path.lexists(path):
                continue
            real = os.path.realpath(path)
            if not _under(real, [root]) or _under(real, emptied):
                continue  # a link leading out of the project (not mounted), or hidden already
            emptied.append(real)
            if os.path.isdir(real):
                size = str(64 * 1024)
                args += ["--perms", "0755", "--size", size, "--tmpfs", real, "--remount-ro", real]
            else:
                fd = _memfd("hidden", b"")
                self._close.append(fd)
                args += ["--perms", "0644", "--ro-bind-data", str(fd), real]
        for path in extra:
            if _under(path, [root]):
                args += ["--ro-bind", path, path]
        for path, text in project.overlays.items():
            fd = _memfd(os.path.basename(path), text)
            self._close.append(fd)
            args += ["--perms", "0644", "--ro-bind-data", str(fd), os.path.realpath(path)]
        return args


def _interpreter_dirs(python: str) -> list[str]:
    """Folders that make ``python`` itself start in the sandbox: its virtualenv (the folder
    above ``bin/`` holding ``pyvenv.cfg``) or its ``bin/`` folder, and the folder of the binary
    it links to. Its prefix, base prefix and site-packages still belong in ``extra_ro``."""
    folder = os.path.dirname(python)
    venv = os.path.dirname(folder)
    dirs = [venv if os.path.isfile(os.path.join(venv, "pyvenv.cfg")) else folder]
    dirs.append(os.path.dirname(os.path.realpath(python)))
    return dirs


def _moved(path: str, old_root: str, new_root: str) -> str:
    """``path`` under ``old_root`` as the same path under ``new_root``; other paths as is."""
    if path == old_root:
        return new_root
    if path.startswith(old_root.rstrip("/") + "/"):
        return os.path.join(new_root, os.path.relpath(path, old_root))
    return path


def _copy_place(tmp: str, project: ProjectMount) -> str:
    """Where mode "none" puts the copy of ``project`` in the run's directory ``tmp`` (under
    the root's own name: a package at the top of the root keeps its name)."""
    return os.path.join(tmp, "project", os.path.basename(project.root) or "root")


def _copied_project(project: ProjectMount) -> str:
    """A new run directory holding the copy of ``project`` (mode "none"); the caller owns it."""
    tmp = tempfile.mkdtemp(prefix="codeteam-run-")
    try:
        _copy_project(project, _copy_place(tmp, project))
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return tmp


def _copy_project(project: ProjectMount, copy: str) -> None:
    """Mode "none": copy ``project.root`` to ``copy`` without its hidden paths, virtualenvs
    (folders holding ``pyvenv.cfg``) and :data:`NOT_COPIED` folders; symlinks are copied as
    links. Then write the overlays into the copy."""
    hidden = {os.path.normpath(path) for path in project.hidden}

    def ignore(folder: str, names: list[str]) -> set[str]:
        left_out = set()
        for name in names:
            path = os.path.join(folder, name)
            if (
                path in hidden
                or name in NOT_COPIED
                or (not os.path.islink(path) and os.path.isfile(os.path.join(path, "pyvenv.cfg")))
            ):
                left_out.add(name)
        return left_out

    shutil.copytree(project.root, copy, symlinks=True, ignore=ignore)
    for path, text in project.overlays.items():
        target = Path(_moved(os.path.normpath(path), project.root, copy))
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.is_symlink():
            target.unlink()
        target.write_text(text, encoding="utf-8")


# --------------------------------------------------------------------------------------------
# Running.


class _Capped:
    """Keeps the first ``limit`` bytes written, counts all of them."""

    def __init__(self, limit: int):
        self.limit = limit
        self.parts: list[bytes] = []
        self.kept = 0
        self.total = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.limit - self.kept
        if room > 0:
            piece = chunk[:room]
            self.parts.append(piece)
            self.kept += len(piece)

    def text(self, what: str) -> str:
        text = b"".join(self.parts).decode("utf-8", "replace")
        if self.total > self.kept:
            text += f"\n[{what} truncated: {self.total} bytes written, the first {self.kept} kept]"
        return text


class _Sink(asyncio.Protocol):
    """Reads one pipe as data arrives into a :class:`_Capped`; ``done`` resolves at EOF."""

    def __init__(self, sink: _Capped, done: asyncio.Future):
        self.sink = sink
        self.done = done

    def data_received(self, data: bytes) -> None:
        self.sink.add(data)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.done.done():
            self.done.set_result(None)


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def _normalise_exit(code: int | None, bwrap: bool) -> int | None:
    if code is not None and bwrap and 128 < code <= 128 + 64:
        return -(code - 128)
    return code


async def _exited(proc: subprocess.Popen, timeout: float) -> bool:
    """Wait until ``proc`` exits (without reaping it) or ``timeout`` seconds pass; True if it
    exited. Uses a pidfd watched by the event loop (no watcher thread); falls back to a
    thread blocked in ``waitid`` where pidfds are unavailable."""
    loop = asyncio.get_running_loop()
    try:
        pidfd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):

        def wait() -> None:
            os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)

        future = loop.run_in_executor(None, wait)
        try:
            await asyncio.wait_for(asyncio.shield(future), timeout)
            return True
        except TimeoutError:
            return False
    exited = loop.create_future()
    loop.add_reader(pidfd, lambda: exited.done() or exited.set_result(None))
    try:
        await asyncio.wait_for(exited, timeout)
        return True
    except TimeoutError:
        return False
    finally:
        loop.remove_reader(pidfd)
        os.close(pidfd)


async def run_sandboxed(
    files: dict[str, FileContent],
    argv: list[str],
    policy: SandboxPolicy,
    *,
    project: ProjectMount | None = None,
) -> ProcessResult:
    """Run ``argv`` in a fresh sandbox holding ``files`` and return what it did.

    With ``project`` (a :class:`ProjectMount`), the command runs in the project: under bwrap
    the project root is mounted read-only at its own path with the overlays laid over their
    files and the hidden paths emptied, ``extra_ro`` mounted read-only, and the working
    directory is ``project.workdir``; ``files`` still go to ``/sandbox`` (:data:`FILES_DIR_ENV`),
    and each element of ``argv`` equal to a key of ``files`` is replaced by that file's
    absolute path (relative paths in ``argv`` otherwise refer to ``workdir``). ``$HOME`` is a
    writable temporary folder, bytecode is not written. In mode ``"none"`` the project is
    *copied* into the run's temporary directory (without hidden paths, virtualenvs and
    :data:`NOT_COPIED` folders), the overlays written into the copy, and the command runs
    there: paths differ from the project's (``$CODETEAM_PROJECT_ROOT`` names the copy, and
    ``argv`` elements under ``project.root`` are rewritten to it; paths inside ``files`` are
    not rewritten), and nothing stops the code from writing the real project. For paths
    inside files, a value of ``files`` may be a callable: it is called with where the project
    root is in this run (``project.root`` under bwrap, the copy in mode "none") and returns
    the file's text or bytes (e.g. a spec holding the import root's path).

    ``files`` maps relative paths to text (written as UTF-8) or bytes, written into the working directory of the
    run (``/sandbox`` under bwrap, a temporary directory with ``"none"``); relative paths in
    ``argv`` refer to it (:func:`python_argv` builds an interpreter command line). The run
    ends when the command exits or after ``policy.timeout_s`` seconds of wall-clock time,
    when its process group (and under bwrap its pid namespace) is killed (``killed`` set).
    Everything the run created is deleted before returning.

    Raises :class:`~codeteam.execution.models.SandboxUnavailable` when ``policy.mode`` is
    ``"bwrap"`` and bwrap is not usable (see :func:`sandbox_problem`), ``ValueError`` for a
    file name that is absolute or leaves the directory, ``OSError`` when the process cannot
    be started, ``ValueError`` for a ``project`` whose paths are not usable
    (:meth:`ProjectMount.check`). On cancellation the process group is killed, the run cleaned up, and
    :class:`asyncio.CancelledError` re-raised.
    """
    from codeteam.execution.models import SandboxUnavailable

    for name in files:
        parts = Path(name).parts
        if not parts or Path(name).is_absolute() or ".." in parts:
            raise ValueError(f"bad file name for the sandbox: {name!r}")
    if project is not None:
        project.check()
    elif any(callable(content) for content in files.values()):
        raise ValueError("a callable in files needs a project")
    bwrap = None
    if policy.mode == "bwrap":
        problem = (
            sandbox_problem("bwrap")
            if _known()
            else await asyncio.to_thread(sandbox_problem, "bwrap")
        )  # the first check starts bwrap once: not on the event loop's thread
        if problem:
            raise SandboxUnavailable(problem)
        bwrap = _bwrap_path()
    elif policy.mode != "none":
        raise ValueError(f"unknown sandbox mode {policy.mode!r}")
    else:
        _warn_unsandboxed()

    loop = asyncio.get_running_loop()
    out = _Capped(policy.output_limit_bytes)
    err = _Capped(policy.output_limit_bytes)
    res = _Capped(RESULTS_LIMIT_BYTES)
    eofs = [loop.create_future() for _ in range(3)]
    transports: list[asyncio.BaseTransport] = []
    proc: subprocess.Popen | None = None
    killed = False
    copied = None
    if project is not None and bwrap is None:  # a copy may take a while: not on the loop
        copied = await _in_thread_owned(_copied_project, project)
    read_fd, write_fd = os.pipe()
    try:
        with _Prepared(
            bwrap, files, list(argv), policy, results_fd=write_fd, project=project, _tmp=copied
        ) as prepared:
            try:
                started = time.monotonic()
                # Popen, not asyncio's subprocess: asyncio would start a watcher thread per
                # run (~4 ms); the exit is awaited through a pidfd instead (see _exited).
                proc = subprocess.Popen(  # noqa: ASYNC220 - fork+exec only, the wait is async
                    prepared.argv,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    pass_fds=prepared.pass_fds,
                    env=prepared.env,
                    cwd=prepared.cwd,
                    start_new_session=True,
                    preexec_fn=prepared.preexec,  # noqa: PLW1509 - only setrlimit, see _preexec
                )
                prepared.close_fds()
                os.close(write_fd)
                write_fd = -1
                results_pipe = os.fdopen(read_fd, "rb", buffering=0)
                read_fd = -1
                for pipe, sink, eof in zip(
                    (proc.stdout, proc.stderr, results_pipe), (out, err, res), eofs, strict=True
                ):
                    transport, _ = await loop.connect_read_pipe(
                        lambda s=sink, e=eof: _Sink(s, e), pipe
                    )
                    transports.append(transport)
                if not await _exited(proc, policy.timeout_s):
                    killed = True
                    _kill_group(proc.pid)  # the leader is not reaped yet: the group id is ours
                proc.wait()  # reaps: it has exited (or was just killed)
                seconds = time.monotonic() - started
                if bwrap is None and not killed:
                    # Stragglers of "none" (children still holding the pipes) die with the
                    # group; while members exist the group id is theirs and names no other.
                    _kill_group(proc.pid)
                await asyncio.wait(eofs, timeout=_DRAIN_GRACE_S)
            except BaseException:
                # cancelled (or failed): kill before the run's files are deleted
                if proc is not None and proc.returncode is None:
                    _kill_group(proc.pid)
                    with contextlib.suppress(Exception):
                        proc.wait(timeout=5)
                raise
    finally:
        for fd in (read_fd, write_fd):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        for transport in transports:
            transport.close()
    return ProcessResult(
        exit_code=_normalise_exit(proc.returncode, bwrap is not None),
        stdout=out.text("stdout"),
        stderr=err.text("stderr"),
        stdout_bytes=out.total,
        stderr_bytes=err.total,
        results=b"".join(res.parts).decode("utf-8", "replace"),
        killed=killed,
        seconds=seconds,
        sandbox=policy.mode,
    )


async def _in_thread_owned(make, *args) -> str:
    """``make(*args)`` in a thread; it returns a directory that the caller owns. When the
    caller is cancelled meanwhile, the directory is deleted once ``make`` is done."""
    future = asyncio.get_running_loop().run_in_executor(None, make, *args)
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:

        def clean(done: asyncio.Future) -> None:
            if not done.cancelled() and done.exception() is None:
                shutil.rmtree(done.result(), ignore_errors=True)

        future.add_done_callback(clean)
        raise


def _known() -> bool:
    """True when :func:`sandbox_problem` ("bwrap") would answer from its cache."""
    bwrap = _bwrap_path()
    return bwrap is None or (bwrap, os.geteuid()) in _problems


_warned = False


def _warn_unsandboxed() -> None:
    global _warned
    if not _warned:
        _warned = True
        log.warning(
            'sandbox = "none": generated code runs as a plain subprocess with rlimits only, '
            "without isolation from this machine"
        )
