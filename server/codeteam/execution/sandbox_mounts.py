"""Mounts a run's sandboxes share or keep to themselves, made in a mount namespace of this
server's own (the *mount holder*): a size-capped tmpfs that a judge and its subjects all see as
``/tmp``, and per sandbox a copy-on-write view of the project (overlayfs: the project as the
lower layer, a size-capped tmpfs private to that sandbox as the upper one).

bubblewrap 0.8 cannot mount an overlay, and bwrap's mounts are each sandbox's own, so these are
made beforehand by one small Python process per server (:data:`HOLDER_SCRIPT`, standard library
and ``ctypes`` only): it leaves the server's mount namespace (``unshare(CLONE_NEWNS)``; when the
server is not root also ``CLONE_NEWUSER``, mapping the server's uid to root there), makes every
mount a slave of the host's (host mounts still appear, none of its own leak out), mounts a tmpfs
over an empty folder of the host's temporary directory (:attr:`MountHolder.base`) and then
serves one JSON request per line on its stdin (replies on stdout): ``run`` (a tmpfs for one
run's mount points), ``tmp`` (the shared ``/tmp``), ``idmap`` (that ``/tmp`` as a subject of
another uid sees it: an idmapped clone; root only), ``overlay`` (a sandbox's project view),
``drop`` (detach a run's mounts). It ends at end of file on stdin, so when the server dies.

A sandbox that uses these mounts is started *in* the holder's namespaces: its bwrap command is
prefixed with ``nsenter --mount=/proc/<holder>/ns/mnt`` (plus ``--user=... --preserve-credentials``
when the server is not root: bwrap then runs as root of the holder's user namespace, which is
the server's uid outside, and makes its own nested user namespace as before). On the host the
holder's folder stays empty; its mounts vanish with the holder's namespace.

Under a root server the sandbox runs as the run's uid (not the project files' owner), so each
overlay's upper layer holds a copy of the project's folders (not files) owned by that uid
(:func:`mirror_dirs`): overlayfs shows a folder's owner and mode from the upper layer, so the
run's uid can create, rename and delete files in every folder of the project (and pass through
folders of mode 0700); files keep their owner and mode (they are read as "other", not changed
in place), except in the judge's view, whose lower layer is an idmapped clone of the project on
which the project owner's files are the run uid's: a test rewrites them there as under plain
pytest (:meth:`RunMounts.project_view`, ``owned``).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from typing import Self

NSENTER = "nsenter"

HOLDER_SCRIPT = r"""
import ctypes, json, os, shutil, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong,
                       ctypes.c_char_p]
libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
CLONE_NEWNS, CLONE_NEWUSER = 0x00020000, 0x10000000
MS_NOSUID, MS_NODEV, MS_BIND, MS_REC, MS_SLAVE = 2, 4, 4096, 16384, 1 << 19
MNT_DETACH = 2
SYS_OPEN_TREE, SYS_MOVE_MOUNT, SYS_MOUNT_SETATTR = 428, 429, 442  # the same on every arch
OPEN_TREE_CLONE, AT_EMPTY_PATH, MOVE_MOUNT_F_EMPTY_PATH = 1, 0x1000, 4
MOUNT_ATTR_IDMAP, AT_FDCWD = 0x00100000, -100
ID_END = 4294967295  # (uid_t)-1: no id
libc.syscall.restype = ctypes.c_long

def syscall(number, *args):
    result = libc.syscall(number, *args)
    check(min(result, 0), f"system call {number}")
    return result

def swapped(one, other):
    # An id map (lines of /proc/<pid>/uid_map) taking one to other and other to one, every
    # other id to itself: a file of a third owner keeps its id on the idmapped mount (with
    # one mapping line alone it had none there, and overlayfs refused to hide or copy it up:
    # EOVERFLOW).
    if one == other:
        return f"0 0 {ID_END}\n"
    low, high = sorted((one, other))
    lines = [(0, 0, low), (low, high, 1), (low + 1, low + 1, high - low - 1),
             (high, low, 1), (high + 1, high + 1, ID_END - high - 1)]
    return "".join(f"{a} {b} {n}\n" for a, b, n in lines if n > 0)

def idmapped(source, target, inside, outside, inside_gid=None, outside_gid=None, full=False):
    # Mount at target a clone of the mount at source on which uid/gid inside (on disk) is
    # seen as outside, and outside writes as inside (an idmapped mount), every other id as
    # itself; the gids apart when given.
    ready_r, ready_w = os.pipe()
    done_r, done_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # holds a user namespace whose mapping the mount takes
        code = 0 if libc.unshare(CLONE_NEWUSER) == 0 else 1
        os.write(ready_w, b"x")
        os.read(done_r, 1)
        os._exit(code)
    try:
        os.read(ready_r, 1)
        gids = (inside if inside_gid is None else inside_gid,
                outside if outside_gid is None else outside_gid)
        for name, (one, other) in (("uid_map", (inside, outside)), ("gid_map", gids)):
            with open(f"/proc/{pid}/{name}", "w") as handle:
                handle.write(swapped(one, other) if full else f"{one} {other} 1\n")
        userns = os.open(f"/proc/{pid}/ns/user", os.O_RDONLY)
    finally:
        os.write(done_w, b"x")
        os.waitpid(pid, 0)
        for fd in (ready_r, ready_w, done_r, done_w):
            os.close(fd)
    try:
        tree = syscall(SYS_OPEN_TREE, AT_FDCWD, enc(source), OPEN_TREE_CLONE | os.O_CLOEXEC)
        try:
            attr = ctypes.create_string_buffer(
                int.to_bytes(MOUNT_ATTR_IDMAP, 8, "little") + bytes(16)
                + int.to_bytes(userns, 8, "little"))
            syscall(SYS_MOUNT_SETATTR, tree, b"", AT_EMPTY_PATH, attr, 32)
            os.makedirs(target, exist_ok=True)
            syscall(SYS_MOVE_MOUNT, tree, b"", AT_FDCWD, enc(target), MOVE_MOUNT_F_EMPTY_PATH)
        finally:
            os.close(tree)
    finally:
        os.close(userns)

def check(result, what):
    if result != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"{what}: {os.strerror(number)}")

def enc(text):
    return None if text is None else os.fsencode(text)

def mount(source, target, fstype, flags, data=None):
    check(libc.mount(enc(source), enc(target), enc(fstype), flags, enc(data)),
          f"mount {fstype or 'bind'} on {target}")

def tmpfs(target, size, mode):
    os.makedirs(target, exist_ok=True)
    mount("codeteam", target, "tmpfs", MS_NOSUID | MS_NODEV, f"size={size},mode={mode:o}")

base, user = sys.argv[1], sys.argv[2] == "1"
uid, gid = os.getuid(), os.getgid()
check(libc.unshare(CLONE_NEWNS | (CLONE_NEWUSER if user else 0)), "unshare")
if user:
    for name, text in (("setgroups", "deny"), ("uid_map", f"0 {uid} 1"), ("gid_map", f"0 {gid} 1")):
        with open(f"/proc/self/{name}", "w") as handle:
            handle.write(text)
mount(None, "/", None, MS_REC | MS_SLAVE)
tmpfs(base, "1m", 0o711)

def place(relative):
    path = os.path.normpath(os.path.join(base, relative))
    if not path.startswith(base + "/"):
        raise OSError(22, f"not under the holder's folder: {relative!r}")
    return path

def handle(request):
    op = request["op"]
    owner = request.get("uid")
    path = place(request["path"]) if "path" in request else None
    if op == "ping":
        return {}
    if op == "run":
        tmpfs(path, "1m", 0o711)
        return {"path": path}
    if op == "tmp":
        tmpfs(path, request["size"], 0o711 if owner is not None else 0o1777)
        if owner is not None:
            os.chown(path, owner, owner)
        return {"path": path}
    if op == "overlay":
        tmpfs(path, request["size"], 0o711)
        lower, upper, work, merged = (os.path.join(path, name)
                                      for name in ("lower", "upper", "work", "merged"))
        for folder in (lower, upper, work, merged):
            os.mkdir(folder, 0o711)
        project_owner = request.get("lower_owner")
        try:  # the project owner's files are the run uid's in the view (rewritten there)
            if owner is None or not project_owner or project_owner[0] == owner:
                raise OSError(0, "no idmap needed")
            idmapped(request["lower"], lower, project_owner[0], owner, project_owner[1], owner,
                     full=True)
        except OSError:  # a server that is not root, or a kernel / file system refusing it
            mount(request["lower"], lower, None, MS_BIND)
        os.chmod(upper, request["root_mode"])
        if owner is not None:
            os.chown(upper, owner, owner)
            for relative, mode in request["dirs"]:
                folder = os.path.join(upper, relative)
                os.mkdir(folder, mode)
                os.chmod(folder, mode)
                os.chown(folder, owner, owner)
        options = f"lowerdir={lower},upperdir={upper},workdir={work}"
        try:
            mount("overlay", merged, "overlay", 0, options)
        except OSError:  # kernels that want the user.* xattrs in a user namespace
            mount("overlay", merged, "overlay", 0, options + ",userxattr")
        for relative in request.get("absent", ()):  # hidden files: a whiteout in the view
            try:
                os.unlink(os.path.join(merged, relative))
            except FileNotFoundError:
                pass
        return {"path": merged}
    if op == "idmap":
        idmapped(place(request["source"]), path, request["inside"], request["outside"])
        return {"path": path}
    if op == "drop":
        check(libc.umount2(enc(path), MNT_DETACH), f"umount {path}")
        os.rmdir(path)
        return {}
    raise OSError(22, f"unknown request {op!r}")

print(json.dumps({"ready": True}), flush=True)
for line in sys.stdin:
    try:
        reply = handle(json.loads(line))
    except (OSError, KeyError, ValueError, TypeError) as error:
        reply = {"error": str(error)}
    print(json.dumps(reply), flush=True)
"""


FOLDER_PREFIX = "codeteam-mounts-"
"""How a holder's folder on the host is named: the prefix, the server's pid, ``-`` and a random
part (``codeteam-mounts-4711-k2j3_x``)."""


def _sweep_folders() -> None:
    """Remove the folders that holders of servers now gone left in the temporary directory (a
    server ended by SIGKILL runs no ``atexit``): empty ones only (``rmdir``), and never one of
    a server that still runs."""
    folder = tempfile.gettempdir()
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            pid, _, rest = entry.name.removeprefix(FOLDER_PREFIX).partition("-")
            if (entry.name.startswith(FOLDER_PREFIX) and pid.isdigit() and rest
                    and not os.path.exists(f"/proc/{pid}")):  # fmt: skip
                with contextlib.suppress(OSError):
                    os.rmdir(entry.path)


class MountHolderError(OSError):
    """The mount holder could not start, died, or refused a request (the message says why)."""


class MountHolder:
    """This server's mount holder process (see the module docstring): start it with
    :func:`mount_holder`; :meth:`request` is thread-safe and blocks for the reply (a few
    milliseconds: call it off the event loop)."""

    def __init__(self) -> None:
        self.user = os.geteuid() != 0
        _sweep_folders()
        self.base = tempfile.mkdtemp(prefix=f"{FOLDER_PREFIX}{os.getpid()}-")
        os.chmod(self.base, 0o711)
        self._lock = threading.Lock()
        self._runs = 0
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", HOLDER_SCRIPT, self.base,
                 "1" if self.user else "0"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                cwd="/", close_fds=True,
            )  # fmt: skip
        except OSError as error:
            os.rmdir(self.base)
            raise MountHolderError(f"the mount holder could not start: {error}") from error
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line.startswith(b'{"ready"'):
            self.proc.kill()
            self.proc.wait()
            assert self.proc.stderr is not None
            detail = self.proc.stderr.read().decode("utf-8", "replace").strip().splitlines()
            os.rmdir(self.base)
            raise MountHolderError(
                "codeteam could not make the mount namespace its sandboxes share ("
                + (detail[-1] if detail else f"exit status {self.proc.returncode}")
                + "); unprivileged user namespaces may be disabled here"
            )

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def enter_argv(self) -> list[str]:
        """The ``nsenter`` prefix that starts a command in the holder's namespaces."""
        pid = self.proc.pid
        nsenter = shutil.which(NSENTER) or NSENTER
        if self.user:
            return [nsenter, f"--user=/proc/{pid}/ns/user", f"--mount=/proc/{pid}/ns/mnt",
                    "--preserve-credentials", "--"]  # fmt: skip
        return [nsenter, f"--mount=/proc/{pid}/ns/mnt", "--"]

    def new_run(self) -> str:
        """A fresh run's folder (relative to :attr:`base`), a tmpfs of its own for its mount
        points; :meth:`request` ``drop`` of it detaches everything under it."""
        with self._lock:
            self._runs += 1
            name = f"r{self._runs}"
        self.request({"op": "run", "path": name})
        return name

    def request(self, request: dict) -> dict:
        """Send one request and return the reply. Raises :class:`MountHolderError`."""
        line = (json.dumps(request) + "\n").encode()
        with self._lock:
            assert self.proc.stdin is not None and self.proc.stdout is not None
            try:
                self.proc.stdin.write(line)
                self.proc.stdin.flush()
                answer = self.proc.stdout.readline()
            except (OSError, ValueError) as error:
                raise MountHolderError(f"the mount holder is gone: {error}") from error
        if not answer:
            raise MountHolderError("the mount holder is gone")
        reply = json.loads(answer)
        if "error" in reply:
            raise MountHolderError(f"the mount holder refused {request['op']}: {reply['error']}")
        return reply

    def close(self) -> None:
        """End the holder (its namespace's mounts go with it) and remove its empty folder."""
        with self._lock:
            if self.proc.stdin is not None:
                self.proc.stdin.close()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            for pipe in (self.proc.stdout, self.proc.stderr):
                if pipe is not None:
                    pipe.close()
        with contextlib.suppress(OSError):
            os.rmdir(self.base)


_holder: MountHolder | None = None
_holder_pid = -1
_holder_lock = threading.Lock()


def mount_holder() -> MountHolder:
    """This server's :class:`MountHolder`, started on first use (and again if it died, or in a
    forked server). Blocks while it starts (~50 ms): call it off the event loop. Raises
    :class:`MountHolderError`."""
    global _holder, _holder_pid
    with _holder_lock:
        if _holder is not None and _holder_pid == os.getpid() and _holder.alive:
            return _holder
        if _holder is not None and _holder_pid == os.getpid():
            _holder.close()
        _holder = MountHolder()
        _holder_pid = os.getpid()
        atexit.register(_holder.close)  # its empty folder on the host goes too
        return _holder


MAX_MIRRORED_DIRS = 20_000
"""Folders of a project copied into an overlay's upper layer at most (:func:`mirror_dirs`)."""


def mirror_dirs(root: str, folders: list[str]) -> list[tuple[str, int]]:
    """``(relative folder, mode)`` for the overlay request of a root server's sandbox: each
    of ``folders`` (relative to ``root``, parents first) with its own mode plus owner write and
    everyone's search bit (bwrap, as root without CAP_DAC_OVERRIDE, passes through the
    working directory's folders), at most :data:`MAX_MIRRORED_DIRS`."""
    mirrored = []
    for relative in folders[:MAX_MIRRORED_DIRS]:
        try:
            mode = os.lstat(os.path.join(root, relative)).st_mode & 0o7777
        except OSError:
            continue
        mirrored.append((relative, mode | 0o711 | 0o200))
    return mirrored


def root_mode(root: str) -> int:
    """The mode of an overlay's upper layer for project ``root``: the root's own, plus owner
    write and everyone's search bit (see :func:`mirror_dirs`)."""
    return (os.stat(root).st_mode & 0o7777) | 0o711 | 0o200


class RunMounts:
    """The holder's mounts of one run (use as an async context manager: leaving it detaches
    them all). ``uid``: the run's uid under a root server (it owns the shared ``/tmp`` and the
    overlays' folders), else None; ``size``: bytes of each tmpfs."""

    def __init__(self, uid: int | None, size: int) -> None:
        self.uid = uid
        self.size = size
        self.holder: MountHolder | None = None
        self.run: str | None = None

    async def __aenter__(self) -> Self:
        self.holder = await asyncio.to_thread(mount_holder)
        self.run = await asyncio.to_thread(self.holder.new_run)
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.holder is not None and self.run is not None and self.holder.alive:
            with contextlib.suppress(MountHolderError):
                await asyncio.to_thread(self.holder.request, {"op": "drop", "path": self.run})

    @property
    def enter(self) -> tuple[str, ...]:
        """The prefix that starts a sandbox where these mounts are (see :class:`MountHolder`)."""
        assert self.holder is not None
        return tuple(self.holder.enter_argv())

    async def shared_tmp(self) -> str:
        """A tmpfs the run's sandboxes all bind at ``/tmp``; its path in the holder."""
        return await self._request({"op": "tmp", "path": f"{self.run}/tmp", "size": self.size,
                                    "uid": self.uid})  # fmt: skip

    async def shared_tmp_as(self, name: str, judge_uid: int, uid: int) -> str:
        """The shared ``/tmp`` as the sandbox ``name`` running as ``uid`` sees it: an idmapped
        mount on which the judge's ``judge_uid`` is ``uid`` (so a subject of its own uid
        writes into the judge's 0700 folders, pytest's ``tmp_path``, and what it writes
        belongs to the judge). Needs Linux 6.3 (idmapped tmpfs); raises
        :class:`MountHolderError` where the kernel refuses."""
        return await self._request({"op": "idmap", "source": f"{self.run}/tmp",
                                    "path": f"{self.run}/{name}-tmp", "inside": judge_uid,
                                    "outside": uid})  # fmt: skip

    async def project_view(
        self, name: str, root: str, folders: tuple[str, ...], uid: int | None = None,
        absent: list[str] | None = None, owned: bool = False,
    ) -> str:
        """A copy-on-write view of project ``root`` for the sandbox ``name`` (an overlay whose
        upper layer is a tmpfs of its own; under a root server holding ``folders``, the
        project's folders, owned by ``uid``, default the run's: :func:`mirror_dirs`) without
        the files ``absent`` (relative paths, removed in the view; an error when one cannot
        be); its path in the holder. ``owned`` (the judge's view): under a root server the
        project owner's files are the run uid's there (an idmapped lower layer), so a test
        rewrites them as under plain pytest (``junit.xml``, ``coverage.xml`` of an earlier
        run); a subject's view keeps them read as "other"."""
        owner = self.uid if uid is None else uid
        dirs = [] if owner is None else await asyncio.to_thread(mirror_dirs, root, list(folders))
        info = os.stat(root)
        return await self._request({
            "op": "overlay", "path": f"{self.run}/{name}", "lower": root, "size": self.size,
            "uid": owner, "root_mode": root_mode(root), "dirs": dirs, "absent": absent or [],
            "lower_owner": [info.st_uid, info.st_gid] if owned else None,
        })  # fmt: skip

    async def drop_view(self, name: str) -> None:
        """Detach the view of the sandbox ``name`` (:meth:`project_view`) once that sandbox is
        gone, so that what it wrote into its upper layer stops holding memory then, not when
        the run ends (a run's subjects could otherwise pile up ``max_starts`` tmpfs of
        ``size`` each, unseen by a watcher budget). A holder that refuses is ignored (the
        run's own drop detaches it later)."""
        if self.holder is None or self.run is None or not self.holder.alive:
            return
        with contextlib.suppress(MountHolderError):
            await asyncio.to_thread(self.holder.request,
                                    {"op": "drop", "path": f"{self.run}/{name}"})

    async def _request(self, request: dict) -> str:
        assert self.holder is not None
        return (await asyncio.to_thread(self.holder.request, request))["path"]
