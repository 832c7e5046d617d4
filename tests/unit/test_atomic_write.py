"""codeteam.atomic_write: a file is its old text or its new text, whatever happens (issue 25,
item 1): a full disk (a real small tmpfs when root, a short write otherwise), a SIGKILL of the
writer at every step of the write, mode and owner kept."""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import pytest

from codeteam import atomic_write
from codeteam.atomic_write import TEMP_SUFFIX, AtomicWriteError, write_atomic


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(TEMP_SUFFIX))


def test_replaces_the_text_and_keeps_mode_and_owner(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("old\n")
    os.chmod(path, 0o751)
    os.chown(path, os.getuid(), os.getgid())
    assert write_atomic(path, "new\n") == path
    assert path.read_text() == "new\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o751
    assert leftovers(tmp_path) == []


@pytest.mark.skipif(os.geteuid() != 0, reason="chown to another user needs root")
def test_keeps_another_users_ownership_when_root(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("old\n")
    os.chown(path, 1234, 4321)
    os.chmod(path, 0o4750)  # setuid survives: fchmod comes after fchown
    write_atomic(path, "new\n")
    info = path.stat()
    assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (1234, 4321, 0o4750)


def test_a_new_file_gets_the_mode_open_would_give_it(tmp_path):
    old = os.umask(0o027)
    try:
        write_atomic(tmp_path / "new.txt", b"x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o640


def test_a_symbolic_link_is_followed_and_kept(tmp_path):
    real = tmp_path / "real.py"
    real.write_text("old\n")
    link = tmp_path / "link.py"
    link.symlink_to(real)
    write_atomic(link, "new\n")
    assert link.is_symlink() and real.read_text() == "new\n"


def test_a_short_write_that_fills_the_disk_leaves_the_original(tmp_path, monkeypatch):
    path = tmp_path / "m.py"
    path.write_bytes(b"old" * 1000)
    real_write = os.write
    calls = []

    def short_write(fd, data):
        calls.append(len(data))
        if len(calls) == 1:
            return real_write(fd, bytes(data[:100]))  # a short write, then the disk is full
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(atomic_write.os, "write", short_write)
    with pytest.raises(AtomicWriteError) as raised:
        write_atomic(path, b"new" * 5000)
    assert str(raised.value) == (f"could not write {path}: No space left on device; the file "
                                 "is unchanged")
    assert raised.value.errno == errno.ENOSPC
    assert len(calls) == 2  # the rest of the short write was tried again
    assert path.read_bytes() == b"old" * 1000
    assert leftovers(tmp_path) == []


@pytest.fixture
def small_tmpfs(tmp_path):
    """A 64 KiB tmpfs mounted for the test (root only)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root (the short-write test covers the rest)")
    mount = tmp_path / "small"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def test_a_full_disk_leaves_the_original_whole(small_tmpfs):
    path = small_tmpfs / "m.py"
    original = "".join(f"def f{i}():\n    return {i}\n\n" for i in range(1000)).encode()
    path.write_bytes(original)  # about 27 kB of the 64
    with pytest.raises(AtomicWriteError, match="No space left on device; the file is unchanged"):
        write_atomic(path, original + b"# more\n" * 8000)
    assert path.read_bytes() == original
    assert leftovers(small_tmpfs) == []


WRITER = textwrap.dedent("""
    import os, signal, sys
    from codeteam import atomic_write

    target, new_file, kill_at = sys.argv[1], sys.argv[2], int(sys.argv[3])
    steps = [0]

    def counted(name):
        real = getattr(os, name)

        def step(*args, **kwargs):
            steps[0] += 1
            if steps[0] == kill_at:
                os.kill(os.getpid(), signal.SIGKILL)
            result = real(*args, **kwargs)
            steps[0] += 1
            if steps[0] == kill_at:
                os.kill(os.getpid(), signal.SIGKILL)
            return result
        setattr(atomic_write.os, name, step)

    for name in ("write", "fchmod", "fsync", "close", "replace", "open", "stat"):
        counted(name)
    with open(new_file, "rb") as handle:
        data = handle.read()
    atomic_write.write_atomic(target, data)
    print(steps[0])
""")


def test_a_sigkill_at_any_step_leaves_the_old_or_the_new_text(tmp_path):
    # The writer kills itself with SIGKILL before or after the k-th system call of the write
    # (each os.write of the data, fchmod, fsync, close, replace, the folder's open and fsync),
    # for every k: no sleeps, every point is hit.
    path = tmp_path / "m.py"
    old = "".join(f"def f{i}():\n    return {i}\n\n" for i in range(2000))
    new = old.replace("return", "return -")
    new_file = tmp_path / "new.bin"
    new_file.write_bytes(new.encode())
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    path.write_text(old)
    full = subprocess.run([sys.executable, str(script), str(path), str(new_file), "0"],
                          capture_output=True, text=True, check=True)
    total = int(full.stdout)
    assert total >= 10 and path.read_text() == new
    seen = set()
    for kill_at in range(1, total + 1):
        path.write_text(old)
        done = subprocess.run([sys.executable, str(script), str(path), str(new_file),
                               str(kill_at)], capture_output=True, check=False)
        assert done.returncode == -9, done.stderr
        text = path.read_text()
        assert text in (old, new), f"killed at step {kill_at}: neither old nor new"
        compile(text, "m.py", "exec")
        seen.add("new" if text == new else "old")
        for name in leftovers(tmp_path):  # a kill leaves its temporary file, never the target
            (tmp_path / name).unlink()
    assert seen == {"old", "new"}


def test_a_missing_folder_is_one_line(tmp_path):
    missing = tmp_path / f"gone-{uuid.uuid4().hex}" / "m.py"
    with pytest.raises(AtomicWriteError, match=r"could not write .*m\.py: No such file or "
                       r"directory; the file is unchanged"):
        write_atomic(missing, "x")
