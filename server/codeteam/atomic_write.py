"""Writing a file the user keeps so that it is either its old text or its new text, whatever
happens (a full disk, a kill, a crash of the machine): :func:`write_atomic`.

The new content goes to a temporary file in the same folder (so the rename stays on one file
system), is flushed and fsynced, takes the original's mode and owner, and is renamed over the
original with :func:`os.replace` (atomic on POSIX); then the folder is fsynced so that the
rename itself survives a crash. Any failure before the rename removes the temporary file and
leaves the original untouched (:class:`AtomicWriteError` says so in one line).

Used for ``codeteam run --write`` and every file ``codeteam bench`` writes (results, summary,
chart, run information, caches). Follows the recipe of the archived ``atomicwrites`` package
(stdlib ``tempfile`` + ``os.replace`` + fsync of file and folder).

Limits: a symbolic link is followed (its target is replaced, the link kept); a file with
several hard links is replaced by a new inode, so the other links keep the old text; extended
attributes and ACLs are not copied; the owner is kept only when this process may set it
(root, or the same user).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

TEMP_SUFFIX = ".codeteam-tmp"
"""How the temporary files end (``.NAME.<random>.codeteam-tmp`` beside the file)."""


class AtomicWriteError(OSError):
    """The file could not be written; the original is as it was. ``str(error)`` is one line
    for the user naming the file and the reason (``No space left on device``); ``errno`` is
    the failed step's."""

    def __str__(self) -> str:
        return self.strerror or super().__str__()


def _umask() -> int:
    """The process's umask (read from /proc, without changing it; else set and restored)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_atomic(path: str | os.PathLike[str], data: bytes | str, *,
                 encoding: str = "utf-8") -> Path:
    """Replace the file ``path`` by ``data`` (``str`` is encoded with ``encoding``; no newline
    translation) atomically: afterwards the file holds either its old bytes or ``data``, never
    a part of either. A new file gets mode ``0o666`` less the umask, as :func:`open` would
    give it; an existing one keeps its mode (setuid bits included) and owner. Returns the path
    written (the target of a symbolic link).

    Raises :class:`AtomicWriteError` (the original untouched, the temporary file removed) when
    any step up to the rename fails: the folder is missing or not writable, the disk is full,
    the quota is exceeded.
    """
    target = Path(os.path.realpath(path))
    payload = data.encode(encoding) if isinstance(data, str) else bytes(data)
    try:
        fd, temp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=TEMP_SUFFIX,
                                         dir=target.parent)
    except OSError as error:
        raise AtomicWriteError(error.errno, _message(path, error)) from error
    try:
        try:
            _fill(fd, payload, target)
        finally:
            os.close(fd)
        os.replace(temp_name, target)
    except BaseException as error:  # a KeyboardInterrupt too: never leave the temporary file
        with contextlib.suppress(OSError):
            os.unlink(temp_name)
        if isinstance(error, OSError):
            raise AtomicWriteError(error.errno, _message(path, error)) from error
        raise
    _sync_folder(target.parent)
    return target


def _fill(fd: int, payload: bytes, target: Path) -> None:
    """Write all of ``payload`` to ``fd``, give it ``target``'s mode and owner (or the mode a
    new file gets), and fsync it. Raises OSError."""
    view = memoryview(payload)
    while view:
        written = os.write(fd, view)
        if written <= 0:  # no progress: treat as a full disk rather than loop
            raise OSError(28, os.strerror(28))
        view = view[written:]
    try:
        stat = os.stat(target)
    except FileNotFoundError:
        os.fchmod(fd, 0o666 & ~_umask())
    else:
        if (stat.st_uid, stat.st_gid) != (os.geteuid(), os.getegid()):
            with contextlib.suppress(PermissionError):  # not root: the file becomes ours
                os.fchown(fd, stat.st_uid, stat.st_gid)
        os.fchmod(fd, stat.st_mode & 0o7777)  # after fchown, which clears setuid bits
    os.fsync(fd)


def _sync_folder(folder: Path) -> None:
    """fsync ``folder`` so that the rename is on disk; a file system that cannot (some network
    ones) is not an error: the file is already replaced."""
    try:
        dir_fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)


def _message(path: str | os.PathLike[str], error: OSError) -> str:
    reason = error.strerror or str(error)
    return f"could not write {os.fspath(path)}: {reason}; the file is unchanged"
