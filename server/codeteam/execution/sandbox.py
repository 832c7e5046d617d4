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
the run. (In a run with subjects, ``/tmp`` is one tmpfs of the same size shared by the judge
and its subjects, made in codeteam's mount namespace: :mod:`codeteam.execution.sandbox_mounts`.) There is no network (a private loopback only), no $HOME, no workspace, no access to
the server's environment variables (API keys): the command gets a minimal environment.

A *project run* (``run_sandboxed(..., project=ProjectMount(...))``) adds the project the
function lives in: its root mounted read-only at its own path (``--ro-bind``), or with
``writable`` a copy-on-write view of it (an overlay whose writes go to a tmpfs private to each
sandbox: the project on disk never changes), the candidate version of the target's file laid
over the original (``--ro-bind-data`` of a memfd), ``.git`` folders and secret files at any
depth emptied (:func:`codeteam.project.project_tree`; a read-only tmpfs over folders, an empty
file over files), the project's interpreter with its prefix and site-packages read-only, the
working directory in the project, ``$HOME`` a private writable folder. The run's files still go
to ``/sandbox``. A run with subjects or a copy-on-write project starts its sandboxes through
``nsenter`` in the mount holder's namespaces (:mod:`codeteam.execution.sandbox_mounts`).

*Subjects* (``run_sandboxed(..., subject=SubjectLaunch(...))``): the command is then the
*judge* (pytest and codeteam's plugin), and the code under test runs in subject sandboxes the
judge asks for, each one a bwrap of its own (own pid, ipc, net, uts and mount namespaces;
under a root server its own uid, see below): it sees the project (read-only, with
:attr:`SubjectLaunch.overlays`, the hidden paths hidden), the interpreter, its own ``/sandbox``
holding :attr:`SubjectLaunch.files`, and a ``/tmp`` (which is ``$HOME``) shared with the judge
(a test's ``tmp_path`` is written by the code under test and read by the test); nothing of the
judge's ``/sandbox``, and no process of the judge (it cannot signal or trace what it cannot
name). The protocol, on the AF_UNIX stream socket whose descriptor number is in the judge's
``$CODETEAM_SUBJECT_FD``::

    judge  -> server   b"S"                       start a subject
    server -> judge    b"S" + 1 descriptor        (SCM_RIGHTS, ``socket.send_fds``) the judge's
                                                  end of the new subject's channel, or
                       b"E" + one line + b"\n"    none was started, and why
    judge  -> server   b"C"                       how much CPU the subjects used
    server -> judge    b"C" + seconds + b" " +    CPU seconds (``utime + stime``, ASCII) every
                       seconds + b" " + 0 or 1    process of this run's subjects used so far,
                       + b"\n"                    the seconds they waited for a CPU, and 1
                                                  when none of their threads runs, waits for
                                                  a CPU or for I/O now, as the server sees
                                                  them in ``/proc`` (the code's own account
                                                  is in its reach)

The channel is a connected AF_UNIX stream socket; its other end is, inside the subject, the
descriptor whose number replaced ``{channel}`` in :attr:`SubjectLaunch.argv`. What travels on
it is the judge's and subject's business. The judge may ask again (a subject died, or a fresh
one is wanted); after :attr:`SubjectLaunch.max_starts` starts every request gets ``b"E"``.
A subject's sandbox ends when the judge's end of its channel is closed everywhere (the server
watches for the hang-up), when the subject exits (the judge then reads end of file), and at
the latest when the run ends. Under a root server each subject runs as a uid of its own (from
the same allocator as the run's), and its ``/tmp`` is an *idmapped* view of the judge's on
which the judge's uid is the subject's: pytest makes ``tmp_path`` folders of mode 0700, which
the subject can then write, and what it writes belongs to the judge (Linux 6.3 for idmapped
tmpfs; where the kernel refuses, subjects run as the judge's uid, with a warning, and the
namespaces alone keep them from the judge). Mode ``"none"`` serves
the same protocol with plain subprocesses (same ``TMPDIR`` and ``HOME`` as the judge, the
project copied once per subject with its overlays): one code path for the judge, no isolation.

``"none"`` runs the same command as a plain subprocess in a fresh temporary directory (deleted
afterwards) with the same rlimits and timeouts. This is NOT isolation: the code can read and
write everything the server user can, and use the network. It exists for machines without
working bubblewrap, and only when the user sets ``sandbox = "none"`` explicitly.

Limits, in both modes (values from :class:`SandboxPolicy`):

- rlimits set before the command runs: CPU seconds, address space, file size, core dumps
  off (by util-linux's ``prlimit`` at the head of the command line, after ``/bin/sh`` wrote
  the process into the run's cgroups: see ``sandbox_command._launch_prefix``; no
  ``preexec_fn``, so ``subprocess`` starts it with ``vfork`` instead of forking the whole
  server; where those tools are missing, a ``preexec_fn`` does both); the wall-clock ``timeout_s`` kills the whole process group (and, under bwrap, the pid
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

  CPU time is a per-process rlimit (``RLIMIT_CPU``); memory is one budget for everything
  the run starts (:mod:`codeteam.execution.run_budget`: a cgroup of the run's own, else a
  watcher), plus ``RLIMIT_AS`` per process; the scratch tmpfs mounts are the run's own, so
  no budget is shared between runs.
  Each sandbox of a run (judge, subject) has its own process limit: its own uid under a
  root server, its own user namespace otherwise.
- Nested user namespaces. Inside the sandbox ``unshare(CLONE_NEWUSER)`` and ``clone`` with
  that flag fail with EPERM, and ``clone3`` with ENOSYS (the C library then falls back to
  ``clone``): a seccomp filter (classic BPF built by :func:`_no_userns_filter`, loaded by
  bwrap's ``--seccomp``) in both the root and the non-root path (where ``--disable-userns``
  does the same where bwrap has it). On a machine type without system call numbers in
  :data:`_SECCOMP_ARCH` the filter is left out (with a warning).
  * ``"none"``: the limit is the server user's current task count plus ``max_processes``.
    It has no effect when the server runs as root; then, as a last resort, the judge
    (:func:`codeteam.execution.pytest_codec.guard_forks`) refuses forks and spawns once its process group has ``max_processes`` members (a
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
import functools
import logging
import os
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

from codeteam.execution.run_budget import (
    RunBudget,
    hierarchies_known,
    look_for_hierarchies,
    process_wait,
)
from codeteam.execution.sandbox_command import (
    _bwrap_path,
    _Capped,
    _copied_project,
    _disable_userns_ok,
    _in_thread_owned,
    _kill_group,
    _Prepared,
    _run_uids,
    _Sink,
    descendants,
    kill_tree,
    python_argv,
    reap,
    run_nproc,
)
from codeteam.execution.sandbox_mounts import MountHolderError, RunMounts, mount_holder
from codeteam.execution.sandbox_policy import (
    FILES_DIR_ENV,
    PROJECT_ROOT_ENV,
    RESULTS_FD_ENV,
    RESULTS_LIMIT_BYTES,
    RUN_UID_BASE,
    RUN_UID_SLOTS,
    SUBJECT_FD_ENV,
    FileContent,
    ProcessResult,
    ProjectMount,
    SandboxPolicy,
    SubjectLaunch,
)
from codeteam.execution.sandbox_subjects import SubjectServer
from codeteam.project import project_tree

__all__ = [
    "BACKSTOP_STRETCH", "FILES_DIR_ENV", "NOT_INSTALLED", "PROJECT_ROOT_ENV", "RESULTS_FD_ENV",
    "RUN_UID_BASE", "RUN_UID_SLOTS", "SUBJECT_FD_ENV", "FileContent", "ProcessResult",
    "ProjectMount", "SandboxPolicy", "SubjectLaunch", "python_argv", "run_sandboxed",
    "sandbox_problem",
]  # fmt: skip

log = logging.getLogger(__name__)

_DRAIN_GRACE_S = 1.0
"""After the process exits, how long to wait for its pipes to reach end of file."""
BACKSTOP_STRETCH = 4.0
"""A run's wall-clock backstop (``timeout_s``) leaves out the time it waited for a CPU
(:func:`_ended_within`), up to this many times ``timeout_s`` of wall clock in all."""
_WAIT_LOOK_S = 2.0
"""Seconds between two looks at the time a run's processes waited for a CPU."""

NOT_INSTALLED = (
    'bubblewrap (bwrap) is not installed: apt-get install bubblewrap, or set sandbox = "none" '
    "to run generated code unsandboxed at your own risk"
)


# --------------------------------------------------------------------------------------------
# Detection.

_problems: dict[tuple[str, int], str | None] = {}
_problems_lock = threading.Lock()


def sandbox_problem(mode: str) -> str | None:
    """None when sandbox ``mode`` is usable here, else a message for the user.

    ``"none"`` is always usable. For ``"bwrap"`` the bwrap binary must exist on PATH and be
    able to start a sandboxed interpreter; the check runs one (about 30 ms). Success is cached
    per bwrap path and effective uid; a failure is checked again next time (it may be fixed
    meanwhile).
    """
    if mode == "none":
        return None
    bwrap = _bwrap_path()
    if bwrap is None:
        return NOT_INSTALLED
    key = (bwrap, os.geteuid())
    with _problems_lock:
        if key in _problems:
            return _problems[key]
        try:
            problem = _probe(bwrap)
        except OSError as error:  # e.g. inside a sandbox, whose seccomp filter refuses calls
            problem = f"bubblewrap (bwrap) at {bwrap} cannot be prepared here: {error}"
        if problem is None:
            _problems[key] = None
        return problem


def _probe(bwrap: str) -> str | None:
    """Start one sandboxed interpreter (with ``--disable-userns`` if bwrap has it), then one
    in the mount holder's namespaces (where runs with subjects and copy-on-write projects
    start); None when both work, else the message for the user."""
    for disable_userns in (True, False):
        _disable_userns_ok[bwrap] = disable_userns
        done = _probe_run(bwrap, ())
        if isinstance(done, str):
            return done
        if done.returncode == 0:
            break
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
    try:
        enter = tuple(mount_holder().enter_argv())
    except MountHolderError as error:
        return f"{error}. Fix that, or set sandbox = \"none\" (no isolation)"
    done = _probe_run(bwrap, enter)
    if isinstance(done, str):
        return done
    if done.returncode != 0:
        err = done.stderr.decode("utf-8", "replace").strip()
        detail = err.splitlines()[-1] if err else f"exit status {done.returncode}"
        return (
            f"bubblewrap (bwrap) works, but not started through nsenter in codeteam's mount "
            f'namespace ({detail}). Fix that, or set sandbox = "none" (no isolation)'
        )
    return None


def _probe_run(bwrap: str, enter: tuple[str, ...]) -> subprocess.CompletedProcess | str:
    """One sandboxed ``python -c pass`` (through ``enter``), or why it could not start."""
    policy = SandboxPolicy(timeout_s=10)
    with _Prepared(bwrap, {}, python_argv("-c", "pass"), policy, enter=enter) as prepared:
        try:
            return subprocess.run(
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
        pidfd = None
        exited = asyncio.shield(loop.run_in_executor(
            None, os.waitid, os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT))
    else:
        exited = loop.create_future()
        loop.add_reader(pidfd, lambda: exited.done() or exited.set_result(None))
    try:
        await asyncio.wait_for(exited, timeout)
        return True
    except TimeoutError:
        return False
    finally:
        if pidfd is not None:
            loop.remove_reader(pidfd)
            os.close(pidfd)


async def _ended_within(proc: subprocess.Popen, timeout: float,
                        waited: Callable[[], float]) -> bool:
    """Wait until ``proc`` exits (True) or ``timeout`` seconds of wall clock pass that its run
    did not spend waiting for a CPU (``waited()``: seconds the run's judge and code were
    runnable but not running, looked at every :data:`_WAIT_LOOK_S`), and at the latest
    :data:`BACKSTOP_STRETCH` times ``timeout`` (False). A busy machine (or the sandbox's lower
    weight, ``sandbox_niceness``) makes a run slower, not cut, as a test's own backstop does
    (:meth:`~codeteam.execution.pytest_plugin.Judge._elapsed`); waiting for a CPU needs a
    runnable thread, so a run cannot stretch its backstop without using CPU time, which its
    processes' limits bound."""
    started = time.monotonic()
    latest = started + BACKSTOP_STRETCH * timeout
    wait = 0.0
    while True:
        now = time.monotonic()
        left = min(started + timeout + wait, latest) - now
        if left <= 0:
            wait = waited()  # the last look before it is cut
            left = min(started + timeout + wait, latest) - now
            if left <= 0:
                return False
        if await _exited(proc, min(left, _WAIT_LOOK_S)):
            return True
        wait = waited()


def _longest_wait(roots: list[int], seen: dict[int, float]) -> float:
    """The most seconds one process of the trees of ``roots`` waited for a CPU (its main
    thread's run delay, :func:`~codeteam.execution.run_budget.process_wait`; ``seen`` keeps
    each one's, those that ended too): the judge's pytest process's, in a judged run. Not
    their sum: a fork bomb's runnable processes wait at once, and their sum outgrows the
    wall clock; 0 where the kernel does not keep it."""
    for pid in descendants(roots):
        wait = process_wait(pid)
        if wait is not None:
            seen[pid] = max(wait, seen.get(pid, 0.0))
    return max(seen.values(), default=0.0)


async def run_sandboxed(
    files: dict[str, FileContent],
    argv: list[str],
    policy: SandboxPolicy,
    *,
    project: ProjectMount | None = None,
    subject: SubjectLaunch | None = None,
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

    With ``subject`` (a :class:`SubjectLaunch`), the command is the *judge* of a run whose
    code under test runs in subject sandboxes it asks for (the protocol on
    ``$CODETEAM_SUBJECT_FD`` is in this module's docstring); ``/tmp`` (and ``$HOME``) is then
    one folder shared by the judge and its subjects. Every subject ends when the run ends.

    ``files`` maps relative paths to text (written as UTF-8) or bytes, written into the working directory of the
    run (``/sandbox`` under bwrap, a temporary directory with ``"none"``); relative paths in
    ``argv`` refer to it (:func:`python_argv` builds an interpreter command line). The run
    ends when the command exits or after ``policy.timeout_s`` seconds of wall-clock time,
    when its process group (and under bwrap its pid namespace) is killed (``killed`` set).
    Everything the run created is deleted before returning.

    Raises :class:`~codeteam.execution.outcomes.SandboxUnavailable` when ``policy.mode`` is
    ``"bwrap"`` and bwrap is not usable (see :func:`sandbox_problem`), ``ValueError`` for a
    file name that is absolute or leaves the directory, ``OSError`` when the process cannot
    be started, ``ValueError`` for a ``project`` whose paths are not usable
    (:meth:`ProjectMount.check`) or subject overlays without a project. On cancellation the
    process group is killed (and every subject), the run cleaned up, and
    :class:`asyncio.CancelledError` re-raised.
    """
    from codeteam.execution.outcomes import SandboxUnavailable

    for name in (*files, *(subject.files if subject else ())):
        parts = Path(name).parts
        if not parts or Path(name).is_absolute() or ".." in parts:
            raise ValueError(f"bad file name for the sandbox: {name!r}")
    if project is not None:
        project.check()
    elif any(callable(content) for content in files.values()) or (
        subject is not None and any(callable(content) for content in subject.files.values())
    ):
        raise ValueError("a callable in files needs a project")
    if subject is not None and subject.overlays and project is None:
        raise ValueError("subject overlays need a project")
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
    else:
        _warn_unsandboxed()
    async with contextlib.AsyncExitStack() as stack:
        return await _run(stack, files, list(argv), policy, bwrap, project, subject)


async def _run(
    stack: contextlib.AsyncExitStack,
    files: dict[str, FileContent],
    argv: list[str],
    policy: SandboxPolicy,
    bwrap: str | None,
    project: ProjectMount | None,
    subject: SubjectLaunch | None,
) -> ProcessResult:
    """:func:`run_sandboxed` once its arguments are checked; everything the run holds is
    released by ``stack`` (subjects first, then the judge's files, then the mounts)."""
    from codeteam.execution.outcomes import SandboxUnavailable

    loop = asyncio.get_running_loop()
    out = _Capped(policy.output_limit_bytes)
    err = _Capped(policy.output_limit_bytes)
    res = _Capped(RESULTS_LIMIT_BYTES)
    eofs = [loop.create_future() for _ in range(3)]
    transports: list[asyncio.BaseTransport] = []
    stack.callback(lambda: [transport.close() for transport in transports])
    proc: subprocess.Popen | None = None
    killed = False
    run_uid = nproc = None
    if bwrap is not None and os.geteuid() == 0:  # one uid for the judge and its subjects
        run_uid = _run_uids.acquire()
        stack.callback(_run_uids.release, run_uid)
        nproc = run_nproc(run_uid, policy)
    if not hierarchies_known():  # the first look starts a probe process: not on the loop
        await asyncio.to_thread(look_for_hierarchies)
    budget = RunBudget(policy.memory_mb * 1024 * 1024)
    budget.open()  # one memory budget (a cgroup, or the watcher) for all the run starts
    stack.push_async_callback(budget.aclose)
    tree = None
    if project is not None:  # the project's secrets at any depth are hidden too
        tree = await asyncio.to_thread(project_tree, project.root)
        project = project.model_copy(
            update={"hidden": sorted({*project.hidden, *tree.secrets})}
        )
    mounts = None
    shared_tmp = view = None
    writable = bwrap is not None and project is not None and project.writable
    if bwrap is not None and (subject is not None or writable):
        try:
            mounts = await stack.enter_async_context(
                RunMounts(run_uid, policy.scratch_mb * 1024 * 1024)
            )
            if subject is not None:
                shared_tmp = await mounts.shared_tmp()
            if writable:
                assert project is not None and tree is not None
                view = await mounts.project_view("judge", project.root, tree.folders,
                                                 absent=project.hidden_files(), owned=True)
        except MountHolderError as error:
            raise SandboxUnavailable(str(error)) from error
    env_fds: dict[str, int] = {}
    if subject is not None:
        server_end, judge_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        stack.callback(server_end.close)
        stack.callback(judge_end.close)
        env_fds[SUBJECT_FD_ENV] = judge_end.fileno()
    copied = None
    if project is not None and bwrap is None:  # a copy may take a while: not on the loop
        copied = await _in_thread_owned(_copied_project, project)
    pipe_fds = list(os.pipe())  # the results channel: read end, write end (-1 once closed)
    stack.callback(_close_fds, pipe_fds)
    read_fd, write_fd = pipe_fds
    env_fds[RESULTS_FD_ENV] = write_fd
    prepared = stack.enter_context(_Prepared(
        bwrap, files, argv, policy, env_fds=env_fds, project=project, shared_tmp=shared_tmp,
        run_uid=run_uid, nproc=nproc, enter=mounts.enter if mounts else (), project_view=view,
        join_fds=budget.join_fds, join_paths=budget.join_paths, _tmp=copied,
    ))  # fmt: skip
    subjects = None
    if subject is not None:
        shared_env = {} if bwrap else {k: prepared.env[k] for k in ("TMPDIR", "HOME")
                                       if k in prepared.env}  # fmt: skip
        subjects = await stack.enter_async_context(SubjectServer(
            subject, policy, bwrap=bwrap, project=project, run_uid=run_uid, nproc=nproc,
            shared_tmp=shared_tmp, shared_env=shared_env, mounts=mounts,
            folders=tree.folders if tree else (), budget=budget,
        ))  # fmt: skip
    try:
        started = time.monotonic()
        # Popen, not asyncio's subprocess: asyncio would start a watcher thread per run
        # (~4 ms); the exit is awaited through a pidfd instead (see _exited). Without a
        # preexec (the launcher in argv does its work) Popen uses vfork: well under a
        # millisecond, where a fork of the server took 20-40 ms with the GIL held; in a
        # thread (start_process), since vfork's wait for the child's exec is the loop's too.
        proc = await prepared.start(subprocess.PIPE, subprocess.PIPE)
        prepared.close_fds()
        budget.add_root(proc.pid)
        os.close(write_fd)
        pipe_fds[1] = -1

        def over_budget() -> None:  # end everything the run started
            kill_tree(proc.pid)
            if subjects is not None:
                subjects.close()
            budget.end_all()

        watching = asyncio.ensure_future(budget.watch(over_budget))
        stack.push_async_callback(_cancelled, watching)
        results_pipe = os.fdopen(os.dup(read_fd), "rb", buffering=0)
        if subjects is not None:
            judge_end.close()  # the judge's copy is the only one left
            serving = asyncio.ensure_future(subjects.serve(server_end))
            stack.push_async_callback(_cancelled, serving)
        for pipe, sink, eof in zip(
            (proc.stdout, proc.stderr, results_pipe), (out, err, res), eofs, strict=True
        ):
            transport, _ = await loop.connect_read_pipe(lambda s=sink, e=eof: _Sink(s, e), pipe)
            transports.append(transport)
        seen_waits: dict[int, float] = {}

        def waited() -> float:  # the judge's and the code's waits (they take turns)
            return _longest_wait([proc.pid], seen_waits) + (
                subjects.longest_wait() if subjects is not None else 0.0)

        if not await _ended_within(proc, policy.timeout_s, waited):
            killed = not budget.exceeded
            budget.before_kill()
            kill_tree(proc.pid)  # the leader is not reaped yet: the group id is ours
        budget.add_reaped(*reap(proc))  # it has exited (or was just killed)
        seconds = time.monotonic() - started
        if bwrap is None and not killed:
            # Stragglers of "none" (children still holding the pipes) die with the group;
            # while members exist the group id is theirs and names no other.
            _kill_group(proc.pid)
        if subjects is not None:
            await _cancelled(serving)
            subjects.close()  # every subject ends with the run
        await _cancelled(watching)
        await asyncio.wait(eofs, timeout=_DRAIN_GRACE_S)
    except BaseException:
        # cancelled (or failed): kill before the run's files are deleted
        if proc is not None and proc.returncode is None:
            kill_tree(proc.pid)
            with contextlib.suppress(Exception):
                proc.wait(timeout=5)
        raise
    if subjects is not None:
        await subjects.drained()
    budget.finish()
    return ProcessResult(
        exit_code=_normalise_exit(proc.returncode, bwrap is not None),
        stdout=out.text("stdout"),
        stderr=err.text("stderr"),
        stdout_bytes=out.total,
        results=b"".join(res.parts).decode("utf-8", "replace"),
        killed=killed,
        seconds=seconds,
        sandbox="none" if bwrap is None else "bwrap",
        subjects=subjects.started if subjects is not None else 0,
        subject_output=subjects.output if subjects is not None else "",
        memory_exceeded=budget.exceeded,
        memory_budget_mb=policy.memory_mb,
        memory_peak_bytes=budget.peak_bytes,
        budget=budget.kind,
        cpu_seconds=budget.cpu_seconds,
    )


def _close_fds(fds: list[int]) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)


async def _cancelled(task: asyncio.Future) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await task


def _known() -> bool:
    """True when :func:`sandbox_problem` ("bwrap") would answer from its cache."""
    bwrap = _bwrap_path()
    return bwrap is None or (bwrap, os.geteuid()) in _problems


@functools.cache
def _warn_unsandboxed() -> None:
    """Say once per process that mode "none" is no isolation."""
    log.warning(
        'sandbox = "none": generated code runs as a plain subprocess with rlimits only, '
        "without isolation from this machine"
    )
