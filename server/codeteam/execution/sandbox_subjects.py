"""The server's side of the subject protocol (the protocol itself is described in
:mod:`codeteam.execution.sandbox`): :class:`SubjectServer` answers the judge's requests on its
socket, starts each subject in a sandbox of its own (:class:`~codeteam.execution.sandbox_policy.SubjectLaunch`),
hands the judge its end of the subject's channel, and ends every subject when the judge's end
of that channel is closed, and all of them when the run ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import select
import shutil
import socket
import subprocess
from dataclasses import dataclass
from typing import Self

from codeteam.execution.run_budget import RunBudget, process_cpu, process_running, process_wait
from codeteam.execution.sandbox_command import (
    _Capped,
    _copied_project,
    _in_thread_owned,
    _Prepared,
    _run_uids,
    _Sink,
    descendants,
    kill_tree,
    reap,
    run_nproc,
)
from codeteam.execution.sandbox_mounts import MountHolderError, RunMounts
from codeteam.execution.sandbox_policy import (
    CHANNEL_PLACEHOLDER,
    ProjectMount,
    SandboxPolicy,
    SubjectLaunch,
)

log = logging.getLogger(__name__)

START = b"S"
"""The judge's request (one byte), and the server's answer when it carries a channel."""

CPU = b"C"
"""The judge's request for the CPU seconds its subjects used, and the start of the answer."""

REFUSED = b"E"
"""The server's answer when no subject was started; one line of text follows."""

_idmaps = [True]
"""Whether this kernel gave an idmapped mount (set to False at the first refusal)."""

_MESSAGE_LIMIT = 500
"""Characters of a refusal's reason sent (one line)."""


class SubjectRefused(Exception):
    """A subject could not be started; the message is the line sent after :data:`REFUSED`."""


@dataclass
class _Subject:
    proc: subprocess.Popen
    prepared: _Prepared
    channel: socket.socket | None  # the server's reference to the subject's end (watched)
    pidfd: int | None
    view: str | None = None  # the name of its copy-on-write project view, dropped at its end


class SubjectServer:
    """Starts and ends the subjects of one run (use as an async context manager: leaving it
    ends every subject still running, reaps them and collects their output).

    ``bwrap`` is the bwrap binary (None: mode "none", plain subprocesses); ``project`` the
    judge's :class:`ProjectMount` (the subject sees the same project with
    ``launch.overlays``); ``run_uid``/``nproc`` the uid and process limit a root server's run
    shares; ``shared_tmp`` (bwrap) the folder every sandbox of the run sees as ``/tmp``;
    ``shared_env`` (mode "none") the judge's ``TMPDIR``/``HOME``; ``mounts`` (bwrap) the run's
    mounts, where ``shared_tmp`` is and where each subject of a ``writable`` project gets its
    own copy-on-write view (``folders``: the project's, see
    :meth:`~codeteam.execution.sandbox_mounts.RunMounts.project_view`); ``budget`` the run's
    memory budget and CPU account, which every subject joins.
    """

    def __init__(
        self,
        launch: SubjectLaunch,
        policy: SandboxPolicy,
        *,
        bwrap: str | None,
        project: ProjectMount | None,
        run_uid: int | None = None,
        nproc: int | None = None,
        shared_tmp: str | None = None,
        shared_env: dict[str, str] | None = None,
        mounts: RunMounts | None = None,
        folders: tuple[str, ...] = (),
        budget: RunBudget,
    ):
        self.launch = launch
        self.policy = policy
        self.bwrap = bwrap
        self.mount = None
        if project is not None:
            self.mount = project.model_copy(update={"overlays": dict(launch.overlays)})
            self.mount.check()
        self.run_uid = run_uid
        self.nproc = nproc
        self.shared_tmp = shared_tmp
        self.shared_env = dict(shared_env or {})
        self.mounts = mounts
        self.folders = folders
        self.budget = budget
        self.started = 0
        self._subjects: list[_Subject] = []
        self._output = _Capped(policy.output_limit_bytes)
        self._epoll: select.epoll | None = None
        self._watched: dict[int, _Subject] = {}
        self._out_write = -1
        self._out_eof: asyncio.Future | None = None
        self._out_transport: asyncio.BaseTransport | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closed = False
        self._drops: list[asyncio.Future] = []
        self._seen_cpu: dict[int, float] = {}
        self._seen_wait: dict[int, float] = {}

    async def __aenter__(self) -> Self:
        self._loop = asyncio.get_running_loop()
        read_fd, self._out_write = os.pipe()
        self._out_eof = self._loop.create_future()
        try:
            pipe = os.fdopen(read_fd, "rb", buffering=0)
        except BaseException:
            os.close(read_fd)
            raise
        self._out_transport, _ = await self._loop.connect_read_pipe(
            lambda: _Sink(self._output, self._out_eof), pipe
        )
        self._epoll = select.epoll()
        self._loop.add_reader(self._epoll.fileno(), self._events)
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()
        if self._drops:
            await asyncio.gather(*self._drops, return_exceptions=True)
        await self.drained()
        if self._out_transport is not None:
            self._out_transport.close()

    async def drained(self) -> None:
        """Wait (at most a second) until the subjects' output pipe reaches end of file (after
        :meth:`close`: every writer is gone)."""
        if self._out_eof is not None and not self._out_eof.done():
            await asyncio.wait([self._out_eof], timeout=1.0)

    @property
    def output(self) -> str:
        """What the subjects wrote to stdout and stderr (capped)."""
        return self._output.text("subject output")

    async def serve(self, sock: socket.socket) -> None:
        """Answer the requests arriving on ``sock`` (the server's end of the judge's socket)
        until the judge closes its end. Each :data:`START` gets :data:`START` with one
        descriptor, or :data:`REFUSED` and one line; any other byte gets :data:`REFUSED`."""
        loop = asyncio.get_running_loop()
        sock.setblocking(False)
        while True:
            try:
                request = await loop.sock_recv(sock, 1)
            except OSError:
                return
            if not request:
                return
            if request == CPU:
                try:
                    await loop.sock_sendall(sock, CPU + b"%.3f %.3f %d\n" % (
                        *self.subjects_cpu(), self.subjects_off_cpu()))
                except OSError:
                    return
                continue
            if request != START:
                await _refuse(sock, f"unknown request {request!r} (send {START!r})")
                continue
            try:
                channel = await self.start()
            except SubjectRefused as error:
                await _refuse(sock, str(error))
                continue
            try:
                await _send_fd(sock, channel.fileno())
            except OSError:
                return
            finally:
                channel.close()

    def subjects_cpu(self) -> tuple[float, float]:
        """(CPU seconds every process of this run's subjects used so far: ``utime + stime``
        from ``/proc``; seconds their main threads waited for a CPU: :func:`process_wait`),
        the most seen of each process; a process that ended between two looks counts with
        what was seen of it. The wait lets the judge's wall-clock backstop leave out the
        time a busy machine (or the sandbox's lower weight, ``sandbox_niceness``) kept the
        code from a CPU; code cannot raise it without using CPU, which its limit bounds."""
        roots = [subject.proc.pid for subject in self._subjects]
        for pid in descendants(roots) if roots else []:
            cpu, wait = process_cpu(pid), process_wait(pid)
            if cpu is not None:
                self._seen_cpu[pid] = max(cpu, self._seen_cpu.get(pid, 0.0))
            if wait is not None:
                self._seen_wait[pid] = max(wait, self._seen_wait.get(pid, 0.0))
        return sum(self._seen_cpu.values()), sum(self._seen_wait.values())

    def subjects_off_cpu(self) -> bool:
        """Whether no thread of this run's subjects runs, waits for a CPU or for I/O now
        (:func:`process_running`): they sleep or are stopped (``SIGSTOP``, a sleep in C
        holding the GIL that the subject's own watchdog cannot see), which a busy machine
        does not do to them. The judge's backstop asks while it waits on the code."""
        roots = [subject.proc.pid for subject in self._subjects]
        return bool(roots) and not any(process_running(pid) for pid in descendants(roots))

    def longest_wait(self) -> float:
        """The most seconds one process of this run's subjects waited for a CPU so far (its
        main thread's run delay, as :meth:`subjects_cpu` sees it now): the code's part of
        the time its run was held up by a busy machine, which a fork bomb's many runnable
        processes cannot multiply."""
        self.subjects_cpu()
        return max(self._seen_wait.values(), default=0.0)

    async def start(self) -> socket.socket:
        """Start one subject; return the judge's end of its channel (the caller closes it once
        sent). Raises :class:`SubjectRefused` beyond ``max_starts`` or when it cannot start."""
        if self._closed:
            raise SubjectRefused("the run has ended")
        if self.started >= self.launch.max_starts:
            raise SubjectRefused(
                f"no more subjects: this run started {self.started}, the limit "
                f"(SubjectLaunch.max_starts)"
            )
        self.started += 1
        unowned: list[int] = []  # the subject's own uid until its sandbox owns it
        try:
            own_uid, uid, nproc, tmp = await self._identity()
            if own_uid is not None:
                unowned.append(own_uid)
            return await self._start(unowned, uid, nproc, tmp)
        finally:
            for own_uid in unowned:
                _run_uids.release(own_uid)

    async def _identity(self) -> tuple[int | None, int | None, int | None, str | None]:
        """(the subject's own uid or None, its uid, process limit, shared /tmp): under a root
        server a uid of its own with the judge's /tmp idmapped to it (see
        :meth:`~codeteam.execution.sandbox_mounts.RunMounts.shared_tmp_as`), where the
        kernel has idmapped mounts; else the judge's."""
        if self.bwrap is None or self.run_uid is None or self.mounts is None or not _idmaps[0]:
            return None, self.run_uid, self.nproc, self.shared_tmp
        own = _run_uids.acquire()
        try:
            tmp = await self.mounts.shared_tmp_as(f"s{self.started}", self.run_uid, own)
        except MountHolderError as error:
            _run_uids.release(own)
            _idmaps[0] = False
            log.warning("no idmapped mounts here (%s): subjects run as their judge's uid", error)
            return None, self.run_uid, self.nproc, self.shared_tmp
        return own, own, run_nproc(own, self.policy), tmp

    async def _start(
        self, unowned: list[int], uid: int | None, nproc: int | None, tmp: str | None
    ) -> socket.socket:
        copied = view = None
        name = f"s{self.started}"
        if self.bwrap is None and self.mount is not None:
            try:
                copied = await _in_thread_owned(_copied_project, self.mount)
            except OSError as error:
                raise SubjectRefused(f"the project could not be copied: {error}") from error
        elif self.mount is not None and self.mount.writable and self.mounts is not None:
            try:
                view = await self.mounts.project_view(name, self.mount.root, self.folders,
                                                      uid=uid, absent=self.mount.hidden_files())
            except MountHolderError as error:
                raise SubjectRefused(str(error)) from error
        if self._closed:  # the run ended while the project was copied
            if copied:
                shutil.rmtree(copied, ignore_errors=True)
            raise SubjectRefused("the run has ended")
        judge_end, subject_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            subject = await self._spawn(judge_end, subject_end, copied, view,
                                        (uid, nproc, tmp), unowned)
        except BaseException:
            judge_end.close()
            subject_end.close()
            if view is not None and self.mounts is not None:
                await self.mounts.drop_view(name)
            raise
        if view is not None:
            subject.view = name  # dropped when it ends (_ended)
        return judge_end

    async def _spawn(
        self,
        judge_end: socket.socket,
        subject_end: socket.socket,
        copied: str | None,
        view: str | None,
        identity: tuple[int | None, int | None, str | None],
        unowned: list[int],
    ) -> _Subject:
        uid, nproc, tmp = identity
        number = str(subject_end.fileno())
        argv = [arg.replace(CHANNEL_PLACEHOLDER, number) for arg in self.launch.argv]
        prepared = _Prepared(
            self.bwrap, dict(self.launch.files), argv, self.policy, project=self.mount,
            keep_fds=(subject_end.fileno(),), shared_tmp=tmp,
            shared_env=self.shared_env, run_uid=uid, nproc=nproc, _tmp=copied,
            _owns_uid=bool(unowned),
            enter=self.mounts.enter if self.mounts else (), project_view=view,
            join_fds=self.budget.join_fds, join_paths=self.budget.join_paths,
        )  # fmt: skip
        unowned.clear()  # the sandbox's now: released when it is closed
        try:
            prepared.__enter__()
        except (OSError, ValueError) as error:
            raise SubjectRefused(f"the subject's sandbox could not be prepared: {error}") from error
        out = os.dup(self._out_write)  # its own: close() may run while the thread starts it
        try:
            proc = await prepared.start(out, out)
        except OSError as error:
            prepared.close()
            raise SubjectRefused(f"the subject could not be started: {error}") from error
        except BaseException:  # cancelled: start_process ended what it started
            prepared.close()
            raise
        finally:
            os.close(out)
        if self._closed:  # the run ended while the subject started
            kill_tree(proc.pid)
            reap(proc)
            prepared.close()
            raise SubjectRefused("the run has ended")
        prepared.close_fds()
        self.budget.add_root(proc.pid)
        subject = _Subject(proc, prepared, subject_end, None)
        self._subjects.append(subject)
        try:
            subject.pidfd = os.pidfd_open(proc.pid)
        except (AttributeError, OSError):
            # No pidfd: the server cannot tell when the subject ends, so it must not hold its
            # end of the channel (the judge would never see end-of-file); subjects then end
            # when the run ends.
            subject.channel = None
            subject_end.close()
            return subject
        assert self._epoll is not None
        self._epoll.register(subject.pidfd, select.EPOLLIN)
        self._epoll.register(subject_end.fileno(), 0)  # EPOLLHUP only: the judge's end closed
        self._watched[subject.pidfd] = subject
        self._watched[subject_end.fileno()] = subject
        return subject

    def _events(self) -> None:
        assert self._epoll is not None
        for fd, _mask in self._epoll.poll(0):
            subject = self._watched.get(fd)
            if subject is None:
                continue
            if fd == subject.pidfd:
                self._ended(subject)
            else:  # every reference to the judge's end is closed: nobody can call it
                self._unwatch(fd)
                kill_tree(subject.proc.pid)

    def _unwatch(self, fd: int) -> None:
        self._watched.pop(fd, None)
        if self._epoll is not None:
            with contextlib.suppress(OSError, ValueError):
                self._epoll.unregister(fd)

    def _ended(self, subject: _Subject) -> None:
        """The subject's process exited: reap it, let go of its channel (the judge then reads
        end-of-file) and its files."""
        self.budget.add_reaped(*reap(subject.proc))
        if subject.pidfd is not None:
            self._unwatch(subject.pidfd)
            os.close(subject.pidfd)
            subject.pidfd = None
        if subject.channel is not None:
            self._unwatch(subject.channel.fileno())
            subject.channel.close()
            subject.channel = None
        subject.prepared.close()
        self._subjects.remove(subject)
        self._drop_view(subject)

    def _drop_view(self, subject: _Subject) -> None:
        """Free the ended ``subject``'s project view now (not at the run's end; when the run
        ends, the run's own drop frees them all)."""
        if subject.view is None or self.mounts is None or self._closed:
            return
        self._drops.append(asyncio.ensure_future(self.mounts.drop_view(subject.view)))
        subject.view = None

    def close(self) -> None:
        """End every subject still running (the whole sandbox: its process group, and under
        bwrap its pid namespace) and reap it; no subject starts after this."""
        self._closed = True
        if self._subjects:
            self.budget.before_kill()
        for subject in list(self._subjects):
            kill_tree(subject.proc.pid)
            self._ended(subject)
        if self._epoll is not None:
            if self._loop is not None:
                self._loop.remove_reader(self._epoll.fileno())
            self._epoll.close()
            self._epoll = None
        if self._out_write >= 0:
            os.close(self._out_write)
            self._out_write = -1


async def _refuse(sock: socket.socket, why: str) -> None:
    line = " ".join(why.split())[:_MESSAGE_LIMIT]
    with contextlib.suppress(OSError):
        await asyncio.get_running_loop().sock_sendall(sock, REFUSED + line.encode() + b"\n")


async def _send_fd(sock: socket.socket, fd: int) -> None:
    """Send :data:`START` carrying ``fd`` (SCM_RIGHTS) on the non-blocking ``sock``."""
    loop = asyncio.get_running_loop()
    while True:
        try:
            socket.send_fds(sock, [START], [fd])
            return
        except BlockingIOError:
            writable = loop.create_future()
            loop.add_writer(sock, lambda done=writable: done.done() or done.set_result(None))
            try:
                await writable
            finally:
                loop.remove_writer(sock)
