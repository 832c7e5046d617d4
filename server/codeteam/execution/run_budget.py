"""One memory budget for everything a run starts (judge, subjects, their children), and the CPU
time they used (issue 25 item 2, issue 24 item 5).

Where the machine has a writable cgroup v1 ``memory`` hierarchy (root on a machine like this
project's CI), each run gets a cgroup of its own under the server's (and one in ``cpuacct``
when that hierarchy is writable too): ``memory.limit_in_bytes`` (and ``memory.memsw`` where
swap is accounted) is :attr:`SandboxPolicy.memory_mb`; every process the run starts joins it
before its command runs (its first program, ``/bin/sh``, writes ``0`` to ``cgroup.procs`` and
then execs the command; where util-linux's ``prlimit`` is missing, the child does it before
``exec`` through a descriptor opened beforehand), so whatever forks inside counts too, tmpfs
pages included. When the kernel's OOM
killer acts in the run's cgroup (``oom_kill`` of ``memory.oom_control``), the whole run is
ended. The CPU time is ``cpuacct.usage``.

Elsewhere (no cgroup v1 memory hierarchy the server may write: a cgroup v2 machine, where a
memory limit needs systemd's delegation and moving the server's own process, is not handled
yet; a non-root server) a watcher bounds the total instead: every :data:`WATCH_INTERVAL_S`
it sums the resident anonymous and shared memory (``RssAnon + RssShmem``) of the run's
processes (every descendant of the processes the run started, found through ``/proc``) and
ends the run when the sum exceeds the budget. Between two looks a process can go beyond (by
what it allocates in :data:`WATCH_INTERVAL_S`); pages shared after a ``fork`` count once per
process (so the total is over- rather than under-estimated), and tmpfs files are not counted
(they have their own size caps). The CPU time is the larger of the ``wait4`` usage of the processes the run
started (which counts every descendant they waited for: in mode "none"; bwrap's own usage
holds nothing of its sandbox's processes) and the sum of ``utime + stime`` of every process
seen at a look (``/proc/<pid>/stat``; the last look is taken just before a run is killed): so
under bwrap up to :data:`WATCH_INTERVAL_S` of each process's CPU time may be missed, and a
process that lives less than that may not be seen at all.

Each process also keeps ``RLIMIT_AS`` at the same value, so one allocation larger than the
whole budget fails at once (``MemoryError``) instead of ending the run.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from codeteam.execution.sandbox_command import descendants

log = logging.getLogger(__name__)

WATCH_INTERVAL_S = 0.1
"""Seconds between two looks at the run's memory."""

_CLK_TCK = os.sysconf("SC_CLK_TCK")
_counter = itertools.count(1)


# --------------------------------------------------------------------------------------------
# Finding the cgroup hierarchies this server may write.


@dataclass(frozen=True)
class _Hierarchy:
    """A cgroup v1 hierarchy: where it is mounted and the server's own cgroup folder in it."""

    controller: str
    folder: str


_found: dict[int, dict[str, _Hierarchy]] = {}
"""pid -> the hierarchies that process found (read and set in one dict operation each)."""

_looking = threading.Lock()
"""Held while the hierarchies are looked for: two threads looking at once made the same probe
folder, and the second (EEXIST) concluded that no cgroup can be made, for the server's
whole life (runs started together each look in a thread: :func:`look_for_hierarchies`)."""


def _hierarchies() -> dict[str, _Hierarchy]:
    """The writable cgroup v1 hierarchies among ``memory`` and ``cpuacct``, by controller;
    found once per process (a forked server looks again)."""
    found = _found.get(os.getpid())
    if found is None:
        with _looking:
            found = _found.get(os.getpid())  # (found while this thread waited?)
            if found is None:
                found = _found[os.getpid()] = _look_for_hierarchies()
    return found


def _look_for_hierarchies() -> dict[str, _Hierarchy]:
    found: dict[str, _Hierarchy] = {}
    try:
        with open("/proc/self/cgroup") as handle:
            mine = _membership(handle.read())
        with open("/proc/self/mountinfo") as handle:
            mounts = [line.split() for line in handle]
    except OSError:
        mounts, mine = [], {}
    for fields in mounts:
        dash = fields.index("-") if "-" in fields else -1
        if dash < 0 or fields[dash + 1] != "cgroup":
            continue
        options = set(fields[dash + 3].split(","))
        for controller in ("memory", "cpuacct"):
            if controller not in options or controller in found:
                continue
            own = mine.get(controller)
            if own is None:
                continue
            root, point = fields[3], fields[4]
            relative = os.path.relpath(own, root) if own.startswith(root) else None
            if relative is None:
                continue
            folder = os.path.normpath(os.path.join(point, relative))
            if os.access(folder, os.W_OK) and os.access(os.path.join(folder, "cgroup.procs"),
                                                        os.W_OK):  # fmt: skip
                found[controller] = _Hierarchy(controller, folder)
    if "memory" not in found or not _joinable(found.values()):
        found = {}  # no budget without memory: the watcher then does both
    _sweep(found.values())
    return found


def hierarchies_known() -> bool:
    """True when :meth:`RunBudget.open` will not look for the hierarchies first (a look
    starts a probe process and waits for it: call :func:`look_for_hierarchies` in a thread
    before, not on the event loop's thread)."""
    return os.getpid() in _found


def look_for_hierarchies() -> None:
    """Find the hierarchies now (what :meth:`RunBudget.open` would do at first)."""
    _hierarchies()


def _joinable(hierarchies: Iterable[_Hierarchy]) -> bool:
    """Whether a child process can join a cgroup made here (one ``true`` started the way the
    run's processes are): a folder that is writable is not always one a process may enter."""
    folders: list[str] = []
    fds: list[int] = []
    try:
        for hierarchy in hierarchies:
            folder = os.path.join(hierarchy.folder, f"codeteam-{os.getpid()}-probe")
            os.mkdir(folder)
            folders.append(folder)
            fds.append(os.open(os.path.join(folder, "cgroup.procs"), os.O_WRONLY))
        from codeteam.execution.sandbox_command import _launch_prefix, _preexec

        paths = tuple(os.path.join(folder, "cgroup.procs") for folder in folders)
        prefix = _launch_prefix([], paths)
        if prefix is None:
            subprocess.run(["true"], preexec_fn=_preexec([], tuple(fds)), check=True,
                           timeout=10)  # fmt: skip
        else:
            subprocess.run([*prefix, "true"], check=True, timeout=10, capture_output=True)
        return True
    except (OSError, subprocess.SubprocessError) as error:
        log.warning("no cgroup can be made for runs here (%s): their memory is watched", error)
        return False
    finally:
        for fd in fds:
            os.close(fd)
        for folder in reversed(folders):
            with contextlib.suppress(OSError):
                os.rmdir(folder)


def _membership(text: str) -> dict[str, str]:
    """Controller -> the server's cgroup path, from ``/proc/self/cgroup`` (v1 lines such as
    ``4:memory:/x`` or ``3:cpu,cpuacct:/y``; the v2 line ``0::/z`` is left out)."""
    found = {}
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) == 3 and parts[1]:
            for controller in parts[1].split(","):
                found[controller] = parts[2]
    return found


def _sweep(hierarchies: Iterable[_Hierarchy]) -> None:
    """Remove the empty run cgroups left by servers that died (their pid is gone)."""
    for hierarchy in hierarchies:
        with contextlib.suppress(OSError):
            for entry in os.scandir(hierarchy.folder):
                name = entry.name
                if name.startswith("codeteam-") and entry.is_dir(follow_symlinks=False):
                    pid = name.split("-")[1]
                    if pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
                        with contextlib.suppress(OSError):
                            os.rmdir(entry.path)


# --------------------------------------------------------------------------------------------
# The budget of one run.


@dataclass
class RunBudget:
    """The memory budget and CPU account of one run (see the module docstring).

    Use: :meth:`open`; pass :attr:`join_paths` and :attr:`join_fds` to every process the run
    starts (its launcher, or its ``preexec``, writes ``0`` into each: see
    :func:`~codeteam.execution.sandbox_command._launch_prefix`) and :meth:`add_root` each
    started process; :meth:`watch`
    while the run lasts (``end`` is called, once, when the budget is exceeded: it must end the
    run); :meth:`finish` when the run's processes are gone, then read :attr:`exceeded`,
    :attr:`peak_bytes`, :attr:`cpu_seconds`; :meth:`aclose` always.
    """

    limit_bytes: int
    cgroups: dict[str, str] = field(default_factory=dict)
    join_fds: tuple[int, ...] = ()
    join_paths: tuple[str, ...] = ()
    exceeded: bool = False
    peak_bytes: int | None = None
    cpu_seconds: float | None = None
    _roots: list[int] = field(default_factory=list)
    _reaped_cpu: float = 0.0
    _seen_cpu: dict[int, float] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        """``"cgroup"`` (a cgroup v1 limit) or ``"watcher"`` (the fallback)."""
        return "cgroup" if self.cgroups else "watcher"

    def open(self) -> None:
        """Make the run's cgroups where the machine allows it (else the watcher is used)."""
        name = f"codeteam-{os.getpid()}-{next(_counter)}"
        fds: list[int] = []
        paths: list[str] = []
        try:
            for controller, hierarchy in _hierarchies().items():
                folder = os.path.join(hierarchy.folder, name)
                os.mkdir(folder)
                self.cgroups[controller] = folder
                if controller == "memory":
                    _write(folder, "memory.limit_in_bytes", str(self.limit_bytes))
                    with contextlib.suppress(OSError):  # only where swap is accounted
                        _write(folder, "memory.memsw.limit_in_bytes", str(self.limit_bytes))
                paths.append(os.path.join(folder, "cgroup.procs"))
                fds.append(os.open(paths[-1], os.O_WRONLY))
        except OSError as error:
            log.warning("no cgroup for this run (%s): its memory is watched instead", error)
            for fd in fds:
                os.close(fd)
            fds, paths = [], []
            for folder in self.cgroups.values():  # no process joined them yet: removed at once
                _removed(folder)
            self.cgroups = {}
        self.join_fds = tuple(fds)
        self.join_paths = tuple(paths)

    def add_root(self, pid: int) -> None:
        """A process the run started (the watcher looks at it and its descendants)."""
        self._roots.append(pid)

    def add_reaped(self, cpu_seconds: float, max_rss_bytes: int = 0) -> None:
        """The ``wait4`` usage of a process of the run that was reaped, for the watcher: its
        CPU seconds, and its largest resident set size (bytes; a lower bound of the peak when
        the run ended before the watcher's first look)."""
        self._reaped_cpu += cpu_seconds
        if max_rss_bytes and not self.cgroups:
            self.peak_bytes = max(self.peak_bytes or 0, max_rss_bytes)

    async def watch(self, end: Callable[[], None]) -> None:
        """Look at the run's memory every :data:`WATCH_INTERVAL_S` until cancelled; when over
        budget, set :attr:`exceeded` and call ``end`` once."""
        while not self.exceeded:
            await asyncio.sleep(WATCH_INTERVAL_S)
            if self._over():
                self.exceeded = True
                end()

    def _over(self) -> bool:
        memory = self.cgroups.get("memory")
        if memory is not None:
            return _oom_kills(memory) > 0
        used = self._look()
        self.peak_bytes = max(self.peak_bytes or 0, used)
        return used > self.limit_bytes

    def _look(self) -> int:
        """The watcher's look: the run's resident memory now (bytes); CPU seen is kept."""
        total = 0
        for pid in descendants(self._roots):
            rss, cpu = _usage(pid)
            total += rss
            if cpu is not None:
                self._seen_cpu[pid] = max(cpu, self._seen_cpu.get(pid, 0.0))
        return total

    def finish(self) -> None:
        """Read the run's outcome (after its processes ended): exceeded, peak, CPU seconds."""
        memory = self.cgroups.get("memory")
        if memory is not None:
            self.exceeded = self.exceeded or _oom_kills(memory) > 0
            with contextlib.suppress(OSError, ValueError):
                self.peak_bytes = int(_read(memory, "memory.max_usage_in_bytes"))
        cpuacct = self.cgroups.get("cpuacct")
        if cpuacct is not None:
            with contextlib.suppress(OSError, ValueError):
                self.cpu_seconds = int(_read(cpuacct, "cpuacct.usage")) / 1e9
                return
        self.cpu_seconds = max(self._reaped_cpu, sum(self._seen_cpu.values()))

    def end_all(self) -> None:
        """Kill every process of the run's cgroup (nothing without one: the caller kills its
        process groups and pid namespaces)."""
        memory = self.cgroups.get("memory")
        if memory is not None:
            _kill_cgroup(memory)

    def before_kill(self) -> None:
        """Called just before the run's processes are killed: the watcher's last look at
        their CPU time (a killed process's time is not reported by ``wait4``)."""
        if not self.cgroups:
            self._look()

    async def aclose(self) -> None:
        """Close the descriptors, kill what is left in the run's cgroups and remove them,
        waiting (at most 2 s, with ``asyncio.sleep``: ``time.sleep`` blocked the loop while
        a killed run's processes were exiting on a busy machine) for killed processes to
        leave them. A cancellation does not stop the removal: it goes on in the background."""
        self._close_fds()
        cgroups, self.cgroups = self.cgroups, {}
        if cgroups:
            await asyncio.shield(asyncio.ensure_future(_remove_soon(list(cgroups.values()))))

    def _close_fds(self) -> None:
        for fd in self.join_fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self.join_fds = self.join_paths = ()


_REMOVE_WAIT_S = 2.0
"""Seconds a run's cgroup is tried again (its killed processes still exiting) before it is
left (a later server's sweep removes it once this server is gone)."""


def _removed(folder: str) -> bool:
    """Kill what is in the cgroup ``folder`` and remove it; False while it is busy."""
    _kill_cgroup(folder)
    try:
        os.rmdir(folder)
        return True
    except FileNotFoundError:
        return True
    except OSError:
        return False


async def _remove_soon(folders: list[str]) -> None:
    for folder in folders:
        deadline = time.monotonic() + _REMOVE_WAIT_S
        while not _removed(folder):
            if time.monotonic() > deadline:
                log.warning("could not remove the run's cgroup %s", folder)
                break
            await asyncio.sleep(0.01)  # killed processes still exiting


def _write(folder: str, name: str, value: str) -> None:
    with open(os.path.join(folder, name), "w") as handle:
        handle.write(value)


def _read(folder: str, name: str) -> str:
    with open(os.path.join(folder, name)) as handle:
        return handle.read().strip()


def _oom_kills(folder: str) -> int:
    """How many processes the OOM killer ended in the cgroup (v1 ``memory.oom_control``;
    ``under_oom`` where the kernel has no count)."""
    try:
        fields = dict(line.split() for line in _read(folder, "memory.oom_control").splitlines())
    except (OSError, ValueError):
        return 0
    return int(fields.get("oom_kill", fields.get("under_oom", "0")))


def _kill_cgroup(folder: str) -> None:
    """SIGKILL every process in the cgroup, again until none is listed (forks racing) or a
    few rounds passed."""
    for _ in range(20):
        try:
            pids = [int(pid) for pid in _read(folder, "cgroup.procs").split()]
        except (OSError, ValueError):
            return
        if not pids:
            return
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)


def process_cpu(pid: int) -> float | None:
    """CPU seconds process ``pid`` used (``utime + stime`` of ``/proc/<pid>/stat``, all its
    threads), or None when it cannot be read."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _CLK_TCK
    except (OSError, ValueError, IndexError):
        return None


def process_wait(pid: int) -> float | None:
    """Seconds process ``pid`` spent runnable but waiting for a CPU (the run delay of its
    main thread, the second field of ``/proc/<pid>/schedstat``), or None when it cannot be
    read (a kernel without ``CONFIG_SCHED_INFO``)."""
    try:
        with open(f"/proc/{pid}/schedstat", "rb") as handle:
            return int(handle.read().split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return None


def process_running(pid: int) -> bool:
    """Whether a thread of process ``pid`` runs, waits for a CPU or for I/O (state ``R`` or
    ``D`` in ``/proc/<pid>/task/<tid>/stat``): False when every thread sleeps, waits on
    something else or is stopped (``S``, ``T``: ``SIGSTOP``), or the process is gone."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return False
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat", "rb") as handle:
                if handle.read().rsplit(b")", 1)[1].split()[0] in (b"R", b"D"):
                    return True
        except (OSError, IndexError):
            continue
    return False


def _usage(pid: int) -> tuple[int, float | None]:
    """(``RssAnon + RssShmem`` in bytes, CPU seconds the process used: ``utime + stime``)."""
    rss = 0
    try:
        with open(f"/proc/{pid}/status", "rb") as handle:
            for line in handle:
                if line.startswith((b"RssAnon:", b"RssShmem:")):
                    rss += int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return rss, None
    return rss, process_cpu(pid)
