"""How one sandboxed process is started (see :mod:`codeteam.execution.sandbox` for what the
sandbox is): the bwrap command line, the environment, rlimits, descriptors, the per-run uids
of a root server, the copy of a project in mode "none", and the capture of its output.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple, Self

from codeteam.execution.sandbox_policy import (
    FILES_DIR_ENV,
    NOT_COPIED,
    NPROC_ENV,
    PRIVATE_PIDNS_ENV,
    PROJECT_ROOT_ENV,
    RUN_UID_BASE,
    RUN_UID_SLOTS,
    SANDBOX_DIR,
    SANDBOX_UID,
    FileContent,
    ProjectMount,
    SandboxPolicy,
    _under,
)

log = logging.getLogger(__name__)

_disable_userns_ok: dict[str, bool] = {}
"""bwrap path -> whether it accepts ``--disable-userns`` (found by the first probe)."""


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

# --------------------------------------------------------------------------------------------
# The host side: which interpreter, which paths, which tools.


@dataclass(frozen=True)
class _Layout:
    """Paths the sandboxed interpreter needs (all absolute, resolved)."""

    python: str
    prefixes: tuple[str, ...]
    site_packages: tuple[str, ...]


@functools.cache
def _python_layout() -> _Layout:
    """The server's interpreter (resolved through the venv's symlink), its installation
    prefix(es), and the server environment's site-packages directories (found once)."""
    python = os.path.realpath(sys.executable)
    prefixes = {os.path.realpath(sys.base_prefix), os.path.realpath(sys.base_exec_prefix)}
    packages: list[str] = []
    for path in site.getsitepackages():
        real = os.path.realpath(path)
        if os.path.isdir(real) and real not in packages:
            packages.append(real)
    return _Layout(python, tuple(sorted(prefixes)), tuple(packages))


def sandbox_python() -> str:
    """Absolute path of the interpreter to put in ``argv`` (the same inside and outside)."""
    return _python_layout().python


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


def run_nproc(uid: int, policy: SandboxPolicy) -> int:
    """``RLIMIT_NPROC`` for the sandboxes of a root server's run as ``uid``: the tasks that uid
    has already (normally none), ``max_processes``, and the command itself. Every sandbox of
    the run (judge and subjects) gets this value, so they share one process budget."""
    return _count_tasks(uid) + policy.max_processes + 1


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


_PRLIMIT_OPTIONS = {
    resource.RLIMIT_CPU: "--cpu",
    resource.RLIMIT_AS: "--as",
    resource.RLIMIT_FSIZE: "--fsize",
    resource.RLIMIT_CORE: "--core",
    resource.RLIMIT_NPROC: "--nproc",
}

JOIN_FAILED_EXIT = 125
"""The launcher's exit status when it could not join the run's cgroups (nothing ran)."""

_JOIN = (
    'while [ "$1" != -- ]; do printf 0 > "$1" || { echo "codeteam: could not join the '
    "run's cgroup $1\" >&2; exit " + str(JOIN_FAILED_EXIT) + '; }; shift; done; shift; exec "$@"'
)
"""The launcher's shell script: its arguments are the ``cgroup.procs`` files to join, ``--``,
the command. ``printf 0 > cgroup.procs`` moves the shell itself into the cgroup; only then is
the command exec'd (the same process: everything it starts is in the cgroups too)."""


def _launch_prefix(
    limits: list[tuple[int, tuple[int, int]]], join_paths: tuple[str, ...] = ()
) -> list[str] | None:
    """The commands that start a sandbox's first process without a ``preexec_fn`` (so that
    ``subprocess`` uses ``vfork``: a ``fork`` of the server copies its page tables and holds
    the GIL, 20-40 ms for a server of 400 MB, on the event loop): ``/bin/sh`` writes itself
    into each of ``join_paths`` (the run's cgroups' ``cgroup.procs``) and execs ``prlimit``,
    which sets ``limits`` and execs the command. Nothing of the command runs before both
    (the same process: its pid, group and session are the sandbox leader's). None when
    ``prlimit`` or ``/bin/sh`` is missing (then :func:`_preexec` does both in the child)."""
    prlimit = _tool("prlimit")
    if prlimit is None or (join_paths and not os.access("/bin/sh", os.X_OK)):
        return None
    prefix: list[str] = []
    if join_paths:
        prefix = ["/bin/sh", "-c", _JOIN, "sh", *join_paths, "--"]
    if limits:
        prefix += [prlimit, *(f"{_PRLIMIT_OPTIONS[kind]}={soft}:{hard}"
                              for kind, (soft, hard) in limits), "--"]
    return prefix


def _preexec(limits: list[tuple[int, tuple[int, int]]], join_fds: tuple[int, ...] = ()):
    """The function run in the child between fork and exec where :func:`_launch_prefix` has
    no tools: ``write(fd, b"0")`` on each of ``join_fds`` (a cgroup's ``cgroup.procs``,
    opened beforehand: the child joins the run's cgroups before anything of it runs) and
    ``setrlimit`` calls on values computed beforehand (no imports, locks or allocation-heavy
    work, so it is safe enough in a threaded server)."""
    setrlimit = resource.setrlimit
    write = os.write

    def apply() -> None:
        for fd in join_fds:
            write(fd, b"0")
        for kind, value in limits:
            setrlimit(kind, value)

    return apply


class Reaped(NamedTuple):
    """What ``wait4`` reports of a reaped process and the descendants it waited for: CPU
    seconds (user + system) and the largest resident set size among them, in bytes."""

    cpu_seconds: float
    max_rss_bytes: int


def reap(proc: subprocess.Popen) -> Reaped:
    """Reap ``proc`` (it has exited, or was just killed: this waits for it) with ``wait4``,
    set its ``returncode``, and return its :class:`Reaped` usage (zeros when it was reaped
    already)."""
    if proc.returncode is not None:
        return Reaped(0.0, 0)
    try:
        _, status, usage = os.wait4(proc.pid, 0)
    except ChildProcessError:  # reaped elsewhere
        proc.wait()
        return Reaped(0.0, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return Reaped(usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024)  # KiB on Linux


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
    ``RLIMIT_NPROC`` inside the sandbox, and started without address space randomisation
    (``setarch -R``; inside: the kernel clears it across a set-user-ID bwrap) where there
    is a ``setarch``: as ``PYTHONHASHSEED=0`` does for text, it makes the hashes of objects
    at fixed addresses (``None``, classes) the same in every session, so the order of a set
    and the test ids pytest makes from it (``parametrize`` over a set of tuples holding
    ``None``: isodate's) are the selection's in the judged session too."""
    setpriv, prlimit, setarch = _tool("setpriv"), _tool("prlimit"), _tool("setarch")
    if setarch:
        argv = [setarch, os.uname().machine, "-R", *argv]
    if prlimit and (setpriv or not drop_root):
        prefix: list[str] = []
        if drop_root:
            prefix = [
                setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
                "--inh-caps=-all", "--",
            ]  # fmt: skip
        return [*prefix, prlimit, f"--nproc={nproc}", "--", *argv]
    return python_argv("-c", _SHIM, str(nproc), "1" if drop_root else "0", str(uid), *argv)


NICE_ATTEMPTS = 30
"""Writes of the sandbox's group niceness refused for the kernel's rate (EAGAIN) before the
command starts at the niceness it has."""


NICE_WEIGHTS = (1024, 820, 655, 526, 423, 335, 272, 215, 172, 137,
                110, 87, 70, 56, 45, 36, 29, 23, 18, 15)
"""The scheduler's weight of a task (here: of an autogroup) at niceness 0-19 (the kernel's
``sched_prio_to_weight``); a group's share of a busy CPU is its weight over the sum."""
SHARED_WEIGHT = 2 * NICE_WEIGHTS[0]
"""What this process's sandboxes weigh together at most, before :attr:`SandboxPolicy.niceness`
caps their niceness: two sessions at niceness 0 (one run's judge and subject)."""
_open_sandboxes = 0
"""bwrap sandboxes of this process prepared and not yet closed (:class:`_Prepared`)."""


def shared_niceness(sandboxes: int, highest: int) -> int:
    """The niceness of a sandbox's group when ``sandboxes`` sandboxes of this process (it
    included) run at once: the lowest at which together they weigh at most
    :data:`SHARED_WEIGHT` (0 for one or two: a single run keeps the kernel's default, and its
    full share of a busy machine), at most ``highest`` (``sandbox_niceness``; 0 turns it off).
    With 8 runs in flight (about 16 sandboxes) that is 10, so the editor's server is not one
    session among 17 (docs/benchmarks.md, issue 26 item 5)."""
    wanted = next((n for n, weight in enumerate(NICE_WEIGHTS)
                   if max(1, sandboxes) * weight <= SHARED_WEIGHT), len(NICE_WEIGHTS) - 1)
    return max(0, min(wanted, highest))


def _niced(niceness: int, argv: list[str]) -> list[str]:
    """``argv`` started by a shell that first sets the niceness of its session's scheduling
    group (the sandbox's own, :attr:`SandboxPolicy.niceness`); a kernel without autogroups
    has no such file and the command starts all the same. The kernel takes one such change
    in 100 ms machine-wide from an unprivileged process (EAGAIN otherwise: the suite's
    parallel runs met it, and the code under test then ran at 0), so the write is tried again
    every 0.1 s, up to :data:`NICE_ATTEMPTS` times."""
    if niceness <= 0:
        return argv
    script = (
        f'i=0; until {{ echo {int(niceness)} >/proc/self/autogroup; }} 2>/dev/null; do '
        f'[ -e /proc/self/autogroup ] && [ $i -lt {NICE_ATTEMPTS} ] || break; '
        'i=$((i+1)); sleep 0.1; done; exec "$@"'
    )
    return ["/bin/sh", "-c", script, "sh", *argv]


_SECCOMP_ARCH = {  # machine -> (AUDIT_ARCH_*, unshare, clone, clone3,
    #                          (ptrace, vm_readv, vm_writev), (memfd_create, shmget))
    "x86_64": (0xC000003E, 272, 56, 435, (101, 310, 311), (319, 29)),
    "aarch64": (0xC00000B7, 97, 220, 435, (117, 270, 271), (279, 194)),
}
CLONE_NEWUSER = 0x10000000


def _no_userns_filter() -> bytes | None:
    """A seccomp (classic BPF) program for bwrap's ``--seccomp``: ``unshare`` and ``clone``
    with ``CLONE_NEWUSER`` fail with EPERM, ``clone3`` (whose flags a classic filter cannot
    read) with ENOSYS, so the C library falls back to ``clone``; ``ptrace``,
    ``process_vm_readv`` and ``process_vm_writev`` fail with EPERM (the sandboxed code cannot
    stop, trace or rewrite bwrap's init, the one other process of its own uid it can see when
    the server is not root); ``memfd_create`` and ``shmget`` fail with ENOSYS, as on a kernel
    without them (memory in an anonymous file or a detached SysV segment is in no process's
    resident memory, so the run budget's watcher could not see it: 450 MiB were held under
    a 256 MiB budget; ``/dev/shm`` and ``multiprocessing.shared_memory`` still work, in a
    size-capped tmpfs); other architectures' system calls (32-bit compat, x32) fail with
    EPERM/ENOSYS. Nested user namespaces (``unshare -r``) are then impossible in the sandbox,
    whoever runs the server. Everything else is allowed. None on a machine type it has no
    numbers for."""
    import errno
    import platform
    import struct

    machine = platform.machine()
    if machine not in _SECCOMP_ARCH:
        return None
    arch, unshare, clone, clone3, (ptrace, vm_readv, vm_writev), (memfd, shmget) = \
        _SECCOMP_ARCH[machine]
    allow, eperm = 0x7FFF0000, 0x00050000 | errno.EPERM
    enosys = 0x00050000 | errno.ENOSYS
    ld, jeq, jset, ret = 0x20, 0x15, 0x45, 0x06
    program = [
        (ld, 0, 0, 4),  # 0: arch
        (jeq, 1, 0, arch),  # 1
        (ret, 0, 0, eperm),  # 2: another ABI
        (ld, 0, 0, 0),  # 3: the system call's number
        (jset, 13, 0, 0x40000000),  # 4: x32 -> 18
        (jeq, 12, 0, clone3),  # 5 -> 18
        (jeq, 7, 0, unshare),  # 6 -> 14
        (jeq, 6, 0, clone),  # 7 -> 14
        (jeq, 7, 0, ptrace),  # 8 -> 16
        (jeq, 6, 0, vm_readv),  # 9 -> 16
        (jeq, 5, 0, vm_writev),  # 10 -> 16
        (jeq, 6, 0, memfd),  # 11 -> 18
        (jeq, 5, 0, shmget),  # 12 -> 18
        (ret, 0, 0, allow),  # 13
        (ld, 0, 0, 16),  # 14: the low half of the first argument (the flags)
        (jset, 0, 1, CLONE_NEWUSER),  # 15
        (ret, 0, 0, eperm),  # 16
        (ret, 0, 0, allow),  # 17
        (ret, 0, 0, enosys),  # 18
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


HIDDEN_FOLDER_BYTES = 16 * 1024 * 1024
"""Size of the empty tmpfs a copy-on-write view shows for a hidden folder (``.pytest_cache``,
``.hypothesis``: what a test tool writes there is kept in the run, up to this)."""
_HOST_ETC = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime")
_SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")


PYTEST_VARIABLES = ("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "PYTEST_PLUGINS")
"""pytest's own variables that reach the sandbox from codeteam's environment, as plain pytest
started there would read them: which plugins load (none of the interpreter's installed ones
with ``PYTEST_DISABLE_PLUGIN_AUTOLOAD``, only those named in ``PYTEST_PLUGINS``)."""


def _env(tmpdir: str) -> dict[str, str]:
    """The whole environment the command gets: nothing of the server's but
    :data:`PYTEST_VARIABLES` (``MALLOC_ARENA_MAX``: see below)."""
    return {
        **{name: os.environ[name] for name in PYTEST_VARIABLES if name in os.environ},
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
        # glibc reserves 64 MiB of address space for each malloc arena, one per thread that
        # allocates up to 8 per core, and RLIMIT_AS counts reservations: with 30 threads alive
        # a process under a 1 GiB limit could not start another ("can't start new thread",
        # MemoryError; more-itertools' TestSynchronized), while it used a few MiB. Two arenas:
        # the same program, its memory the same, bounded by what it uses.
        "MALLOC_ARENA_MAX": "2",
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


@dataclass
class _Prepared:
    """Everything needed to spawn one sandbox: argv, environment, descriptors, cleanup.

    ``env_fds``: environment variable -> descriptor, passed to the command (same number inside)
    and named in its environment; ``keep_fds``: more descriptors passed (not named).
    ``shared_tmp`` (bwrap): a host folder bound read-write at ``/tmp`` (and ``$HOME``) instead of
    a private tmpfs, shared by the run's sandboxes; ``shared_env`` (mode "none"): variables
    (``TMPDIR``, ``HOME``) that point the command at the judge's folders. ``run_uid``/``nproc``
    (bwrap as root): the uid the run's sandboxes share and its ``RLIMIT_NPROC``; acquired here
    (and released on close) when not given. ``enter`` (bwrap): a prefix that starts bwrap in
    the mount holder's namespaces (:mod:`codeteam.execution.sandbox_mounts`), where
    ``shared_tmp`` and ``project_view`` live; ``project_view``: the copy-on-write view of the
    project (an overlay) bound read-write at the project root instead of the root itself.
    ``join_paths``: the run's ``cgroup.procs`` files the first process writes itself into
    before the command runs (:class:`~codeteam.execution.run_budget.RunBudget`), through
    :func:`_launch_prefix`; ``join_fds``: the same files opened, for :func:`_preexec` where
    the launcher's tools are missing. ``argv`` then starts with the launcher and ``preexec``
    is None (``subprocess`` can ``vfork``), or ``preexec`` is set. ``_tmp`` (mode "none"):
    the run's directory, owned (deleted on close); with a project, the one
    :func:`_copied_project` made.
    """

    bwrap: str | None
    files: dict[str, FileContent]
    command: list[str]
    policy: SandboxPolicy
    env_fds: dict[str, int] = field(default_factory=dict)
    project: ProjectMount | None = None
    keep_fds: tuple[int, ...] = ()
    shared_tmp: str | None = None
    shared_env: dict[str, str] = field(default_factory=dict)
    nproc: int | None = None
    enter: tuple[str, ...] = ()
    project_view: str | None = None
    join_fds: tuple[int, ...] = ()
    join_paths: tuple[str, ...] = ()
    argv: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    pass_fds: tuple[int, ...] = ()
    preexec: object = None
    _close: list[int] = field(default_factory=list)
    _tmp: str | None = None
    run_uid: int | None = None
    _owns_uid: bool = False
    _counted: bool = False

    def __enter__(self) -> Self:
        try:
            if self.bwrap is None:
                self._prepare_none()
            else:
                global _open_sandboxes
                _open_sandboxes += 1
                self._counted = True
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
        global _open_sandboxes
        if self._counted:
            _open_sandboxes -= 1
            self._counted = False
        self.close_fds()
        if self._owns_uid and self.run_uid is not None:
            _run_uids.release(self.run_uid)
            self.run_uid = None
            self._owns_uid = False
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None

    async def start(self, stdout: int, stderr: int) -> subprocess.Popen:
        """The prepared command started by :func:`start_process` (stdin from ``/dev/null``,
        a session of its own); raises what Popen raises (:class:`OSError`)."""
        return await start_process(
            self.argv, stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr,
            pass_fds=self.pass_fds, env=self.env, cwd=self.cwd, start_new_session=True,
            preexec_fn=self.preexec,
        )  # fmt: skip

    def _data(self, name: str, content: str | bytes) -> str:
        """The number of a new memfd holding ``content``, passed to bwrap (closed with the
        other descriptors only the child needs)."""
        self._close.append(_memfd(name, content))
        return str(self._close[-1])

    def _finish(self, argv: list[str], tmpdir: str, env: dict[str, str], nproc: int | None) -> None:
        """Set the command line (with the launcher, :meth:`_launch`), the environment
        (:func:`_env`, the descriptors' variables, ``env``) and the descriptors passed."""
        self.argv = argv
        self.env = {**_env(tmpdir), **{name: str(fd) for name, fd in self.env_fds.items()},
                    **env}
        self.pass_fds = (*self._close, *self.env_fds.values(), *self.keep_fds)
        self._launch(_rlimits(self.policy, nproc))

    def _command(self, files_dir: str, project_root: str | None = None) -> list[str]:
        """``command`` with, in a project run, each element naming a key of ``files``
        replaced by that file's path in the run, and (mode "none") paths under the project
        root by their place in the copy, but for those in the folders the interpreter needs
        (:func:`_interpreter_dirs`, ``extra_ro``) that the copy leaves out: a project's
        ``.venv`` is not copied, so its ``bin/python`` runs from where it is (as under bwrap,
        which mounts those folders at their own paths)."""
        if self.project is None:
            return list(self.command)
        in_place = [*_interpreter_dirs(self.project.python), *self.project.extra_ro]
        argv = []
        for arg in self.command:
            if arg in self.files:
                arg = os.path.join(files_dir, arg)
            elif project_root is not None:
                moved = _moved(arg, self.project.root, project_root)
                if moved == arg or not _left_out_of_copy(arg, in_place, self.project.root,
                                                         project_root):
                    arg = moved
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
            copy = _copy_place(self._tmp, self.project)  # made by _copied_project
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
        env: dict[str, str] = {}
        if os.geteuid() != 0:  # root is exempt from RLIMIT_NPROC: no effect, not set
            nproc = _count_tasks(os.getuid()) + self.policy.max_processes
        else:
            env = {PRIVATE_PIDNS_ENV: "root", NPROC_ENV: str(self.policy.max_processes)}
        self.cwd = self._tmp
        if self.project is not None:
            home = os.path.join(self._tmp, ".home")
            os.mkdir(home)
            self.cwd = _moved(self.project.workdir, self.project.root, copy)
            env.update({"HOME": home, PROJECT_ROOT_ENV: copy, FILES_DIR_ENV: files_dir})
        self._finish(self._command(files_dir, copy), str(scratch), {**env, **self.shared_env},
                     nproc)

    def _prepare_bwrap(self, bwrap: str) -> None:
        layout = _python_layout()
        root = os.geteuid() == 0
        scratch = str(self.policy.scratch_mb * 1024 * 1024)
        args = [bwrap]
        uid = SANDBOX_UID
        if root:
            if self.run_uid is None:
                self.run_uid, self._owns_uid = _run_uids.acquire(), True
            uid = self.run_uid
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
            args += ["--perms", "0644", "--ro-bind-data", self._data(os.path.basename(path), text),
                     path]
        # The scratch mounts come before the interpreter's binds: a venv or prefix under /tmp
        # (a checkout in /tmp) must be bound on top of the private /tmp, not hidden by it.
        args += [
            "--proc", "/proc",
            "--dev", "/dev", "--remount-ro", "/dev",
            "--perms", "1777", "--size", scratch, "--tmpfs", "/dev/shm",
            *(["--bind", self.shared_tmp, "/tmp"] if self.shared_tmp else
              ["--perms", "1777", "--size", scratch, "--tmpfs", "/tmp"]),
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
            target = f"{SANDBOX_DIR}/{Path(name).as_posix()}"
            args += _parents(target, made)
            args += ["--perms", "0644", "--file", self._data(name, text), target]
        workdir = SANDBOX_DIR if self.project is None else self.project.workdir
        args += ["--chdir", workdir, "--remount-ro", "/"]
        program = _no_userns_filter()
        if program is not None:
            args += ["--seccomp", self._data("seccomp", program)]
        else:
            log.warning("no seccomp filter for this machine type: nested user namespaces "
                        "are not blocked in the sandbox")
        if root:  # this run's own uid (normally no task yet), plus the command itself
            nproc = self.nproc or run_nproc(uid, self.policy)
        else:
            nproc = self.policy.max_processes + 2  # bwrap's init and the command itself
        niceness = self.policy.niceness
        if self.policy.niceness_shared:
            niceness = shared_niceness(_open_sandboxes, niceness)
        args += _niced(niceness,
                       _guard_argv(self._command(SANDBOX_DIR), nproc, drop_root=root, uid=uid))
        env = {} if self.project is None else {
            "HOME": "/tmp", PROJECT_ROOT_ENV: self.project.root, FILES_DIR_ENV: SANDBOX_DIR}
        self._finish([*self.enter, *args], "/tmp", env, None)

    def _launch(self, limits: list[tuple[int, tuple[int, int]]]) -> None:
        """Put ``limits`` and the cgroup join in front of ``argv`` (:func:`_launch_prefix`),
        or into ``preexec`` where the launcher's tools are missing."""
        prefix = _launch_prefix(limits, self.join_paths)
        if prefix is None:
            self.preexec = _preexec(limits, self.join_fds)
        else:
            self.argv = [*prefix, *self.argv]

    def _project_args(self, project: ProjectMount, made: set[str], bound: list[str]) -> list[str]:
        """bwrap options for a project run: ``extra_ro`` folders outside the root, the root
        (read-only, or its copy-on-write view read-write), the hidden paths, ``extra_ro``
        folders inside the root, the overlays."""
        args: list[str] = []
        root = project.root

        def bind(path: str, option: str = "--ro-bind", source: str | None = None) -> None:
            nonlocal args
            if not _under(path, bound):
                args += _parents(path, made)
            args += [option, source or path, path]
            bound.append(path)

        extra: list[str] = []
        for path in (*project.extra_ro, *_interpreter_dirs(project.python)):
            real = os.path.realpath(path)
            if os.path.exists(real) and real not in extra:
                extra.append(real)
        for path in extra:
            if not _under(path, [root]) and not _under(path, bound):
                bind(path)
        if self.project_view is None:
            bind(root)
        else:
            bind(root, "--bind", self.project_view)
        emptied: list[str] = []
        absent = {os.path.join(root, p) for p in project.hidden_files()} if (
            self.project_view is not None) else set()  # removed in the view already
        for path in sorted(project.hidden):
            if not os.path.lexists(path):
                continue
            real = os.path.realpath(path)
            if not _under(real, [root]) or _under(real, emptied) or real in absent:
                continue  # a link leading out of the project (not mounted), or hidden already
            emptied.append(real)
            if os.path.isdir(real) and self.project_view is not None:  # empty, takes writes
                args += ["--perms", "0777", "--size", str(HIDDEN_FOLDER_BYTES), "--tmpfs", real]
            elif os.path.isdir(real):
                size = str(64 * 1024)
                args += ["--perms", "0755", "--size", size, "--tmpfs", real, "--remount-ro", real]
            else:
                args += ["--perms", "0644", "--ro-bind-data", self._data("hidden", b""), real]
        interpreter = [os.path.realpath(p) for p in _interpreter_dirs(project.python)]
        for path in extra:
            if _under(path, [root]) and (self.project_view is None or _under(
                    path, [*interpreter, *emptied])):
                args += ["--ro-bind", path, path]  # (in a copy-on-write view only the
                # interpreter's folders and those hidden: a project folder on its sys.path,
                # the root itself for an editable install, stays writable there)
        for path, text in project.overlays.items():
            args += ["--perms", "0644", "--ro-bind-data", self._data(os.path.basename(path), text),
                     os.path.realpath(path)]
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


def _left_out_of_copy(path: str, folders: list[str], root: str, copy: str) -> bool:
    """Whether ``path`` lies in one of ``folders`` (under ``root``, not ``root`` itself) whose
    place in ``copy`` does not exist: a folder the copy left out (a virtualenv), which the
    command must reach at its own path."""
    for folder in map(os.path.normpath, folders):
        place = _moved(folder, root, copy)
        inside = _moved(path, folder, place) != path
        if place != folder and inside and not os.path.lexists(place):
            return True
    return False


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
    """A new run directory (the caller owns it) holding, at :func:`_copy_place`, the copy of
    ``project`` for mode "none": ``project.root`` without its hidden paths, virtualenvs
    (folders holding ``pyvenv.cfg``) and :data:`NOT_COPIED` folders, symlinks copied as
    links, then the overlays written into the copy."""
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

    tmp = tempfile.mkdtemp(prefix="codeteam-run-")
    copy = _copy_place(tmp, project)
    try:
        shutil.copytree(project.root, copy, symlinks=True, ignore=ignore)
        for path, text in project.overlays.items():
            target = Path(_moved(os.path.normpath(path), project.root, copy))
            target.parent.mkdir(parents=True, exist_ok=True)
            if target.is_symlink():
                target.unlink()
            target.write_text(text, encoding="utf-8")
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return tmp


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


def descendants(roots: list[int]) -> list[int]:
    """``roots`` and all their descendants: through ``/proc/<pid>/task/<tid>/children``
    (a few reads per process of the tree), or where the kernel has no such files through
    :func:`_scanned_descendants` (a read of every process's ``stat``: about 5 ms of the event
    loop's time with 300 processes, at every kill and every look of a run's watcher)."""
    found: list[int] = []
    pending = list(roots)
    while pending:
        pid = pending.pop()
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue  # gone (or never was)
        found.append(pid)
        for tid in tasks:
            try:
                with open(f"/proc/{pid}/task/{tid}/children") as handle:
                    pending.extend(int(child) for child in handle.read().split())
            except FileNotFoundError:
                if not os.path.exists(f"/proc/{pid}/task/{tid}"):
                    continue  # the thread ended
                return _scanned_descendants(roots)
            except (OSError, ValueError):
                continue
    return found


def _scanned_descendants(roots: list[int]) -> list[int]:
    """``roots`` that are alive and all their descendants (one pass over ``/proc``)."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as handle:
                parent = int(handle.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(parent, []).append(int(entry.name))
    found: list[int] = []
    pending = [pid for pid in roots if os.path.exists(f"/proc/{pid}")]
    while pending:
        pid = pending.pop()
        found.append(pid)
        pending.extend(children.get(pid, ()))
    return found


def kill_tree(pid: int) -> None:
    """SIGKILL every descendant of ``pid`` (found through ``/proc``), then its process group
    (``pid`` is a sandbox's leader, not reaped yet). A bwrap sandbox dies with its init, the
    child of ``pid``: killed here even when the code made it outlive its parent (rewriting it
    through ``/proc/1/mem`` is possible when the server is not root); in mode "none" this also
    ends children that left the group."""
    for found in descendants([pid]):
        if found != pid:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(found, signal.SIGKILL)
    _kill_group(pid)


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


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


_starter = concurrent.futures.ThreadPoolExecutor(max_workers=4,
                                                 thread_name_prefix="codeteam-start")
"""The threads that start sandboxed processes (:func:`start_process`)."""


async def start_process(argv: list[str], **popen) -> subprocess.Popen:
    """``subprocess.Popen(argv, **popen)`` (``start_new_session=True`` required) in a thread,
    not on the event loop: with no ``preexec_fn`` Popen uses vfork, and the thread that
    calls it waits until the child has exec'd -- on a busy machine until the child gets a
    CPU, 5-25 ms -- with the GIL released, so the loop goes on meanwhile (on the loop those
    waits were most of what still delayed the editor's requests while runs progressed).

    A cancel while it starts waits for the start to end (the thread still uses the caller's
    descriptors), kills the started process's group, reaps it and then propagates. Raises
    what Popen raises (:class:`OSError`)."""
    future = asyncio.get_running_loop().run_in_executor(
        _starter, functools.partial(subprocess.Popen, argv, **popen))
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        while not future.done():
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait({future})
        if not future.cancelled() and future.exception() is None:
            proc = future.result()
            kill_tree(proc.pid)
            reap(proc)
            for pipe in (proc.stdout, proc.stderr):
                if pipe is not None:
                    pipe.close()
        raise
