"""Atomic file replacement under an advisory lock: the one way fstools changes a file's bytes.

Every operation is relative to the target's directory, held open as a descriptor that the
sandbox reached beneath an allowed root, and names the file by its bare name: a directory
swapped for a symlink meanwhile cannot redirect it. A new version goes to a temp file
(O_EXCL) in that directory, is fsynced, gets the original's mode, owner and xattrs, and is
renamed over the target; the directory is then fsynced. A crash leaves the old or the new
file, never a mix. The rename happens under an flock on the target's inode, after
re-checking that the file still holds exactly what the caller computed its change from, so
cooperating writers never lose an update.

A file with several hard links, or whose owner or xattrs a new inode could not carry, is
rewritten in place under the same lock instead: a rename would silently split the link or
change the owner.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from .._content.spliced import Spliced, pieces_of
from .._core.sandbox import exists_at, fsync_dir

COPY_CHUNK = 1 << 20
_IOV_MAX = os.sysconf("SC_IOV_MAX")  # buffers one writev takes
_LOCK_POLL_MAX = 0.02
_FALLOCATE_UNSUPPORTED = (errno.EOPNOTSUPP, errno.ENOTSUP, errno.EINVAL)
_LINK_UNSUPPORTED = (errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EMLINK)


class Conflict(Exception):
    """The file is no longer what the caller computed its change from."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class LockTimeout(Exception):
    """Another process held the file's lock for longer than the caller would wait."""


class _KeepInode(Exception):
    """A new inode could not carry the original's owner or xattrs: write in place instead."""


@dataclass(frozen=True)
class Snapshot:
    """The file as a tool saw it before computing its change; `data` is None when it was too large to keep."""

    stat: os.stat_result
    data: bytes | None


# Called under the file's lock, after every check and just before its bytes change (the
# journal keeps the old version here): (dir_fd, name, open original, its stat, renamed?). With
# `renamed` the old inode leaves the path intact, so it can be kept by a hard link.
Keeper = Callable[[int, str, int, os.stat_result, bool], None]


@dataclass(frozen=True)
class Written:
    stat: os.stat_result  # of the file now at the path: what a read record should remember
    in_place: bool
    backup_name: str | None = None  # in the file's directory
    journal: str = "off"  # what the change journal recorded: the result's metadata["journal"]


def _flock(fd: int, shared: bool, deadline: float) -> None:
    op = (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB
    delay = 0.0005
    while True:
        try:
            fcntl.flock(fd, op)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise LockTimeout from None
            time.sleep(delay)
            delay = min(delay * 2, _LOCK_POLL_MAX)


def _points_at(dir_fd: int, name: str, st: os.stat_result) -> bool:
    try:
        now = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return (now.st_dev, now.st_ino) == (st.st_dev, st.st_ino)


@contextmanager
def locked(dir_fd: int, name: str, *, shared: bool, timeout: float) -> Iterator[tuple[int, os.stat_result] | None]:
    """flock the inode `name` names in `dir_fd` and yield (fd, stat) once `name` is verified to still name it.

    A writer that renamed a new file over it while we waited leaves us holding the old
    inode: we retry on the new one. Yields None when there is no file of that name.
    """
    deadline = time.monotonic() + timeout
    while True:
        try:
            fd = os.open(name, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dir_fd)
        except FileNotFoundError:
            yield None
            return
        try:
            _flock(fd, shared, deadline)
            st = os.fstat(fd)
            if _points_at(dir_fd, name, st):
                yield fd, st
                return
        finally:
            os.close(fd)


def _read_all(fd: int, size: int) -> bytes:
    parts: list[bytes] = []
    offset, want = 0, size + 1
    while chunk := os.pread(fd, want, offset):
        parts.append(chunk)
        offset += len(chunk)
        want = COPY_CHUNK
    return parts[0] if len(parts) == 1 else b"".join(parts)


def snapshot(dir_fd: int, name: str, *, max_bytes: int | None, timeout: float) -> Snapshot | None:
    """The file's stat and bytes, read under a shared lock so an in-place rewrite is never seen half done."""
    with locked(dir_fd, name, shared=True, timeout=timeout) as held:
        if held is None:
            return None
        fd, st = held
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), name)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", name)
        data = None if max_bytes is not None and st.st_size > max_bytes else _read_all(fd, st.st_size)
        return Snapshot(st, data)


def _unchanged(fd: int, st: os.stat_result, expected: Snapshot) -> bool:
    """Whether the locked file still holds what the caller saw (bytes compared, not timestamps:
    file times are too coarse to tell two same-size writes apart)."""
    if expected.data is None:
        fields = ("st_dev", "st_ino", "st_size", "st_mtime_ns", "st_ctime_ns")
        return all(getattr(st, f) == getattr(expected.stat, f) for f in fields)
    return st.st_size == len(expected.data) and _same_bytes(fd, expected.data)


def _same_bytes(fd: int, data: bytes) -> bool:
    """Whether the file holds exactly `data`, compared chunk by chunk through one buffer: allocating
    a second copy of a large file costs more in page faults than the comparison itself."""
    buf, view = bytearray(min(COPY_CHUNK, len(data) + 1)), memoryview(data)
    offset = 0
    while True:
        n = os.preadv(fd, [buf], offset)
        if n == 0:
            return offset == len(data)
        chunk = buf if n == len(buf) else buf[:n]  # bytearray == any buffer is one memcmp, no copy
        if chunk != view[offset : offset + n]:
            return False
        offset += n


class _TempFile:
    """A fresh file beside `name` in `dir_fd`, removed on exit unless it was renamed into place."""

    def __init__(self, dir_fd: int, name: str, mode: int) -> None:
        self.dir_fd = dir_fd
        stem = os.fsdecode(os.fsencode(name)[:120])
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | os.O_NOFOLLOW
        while True:
            self.name = f".{stem}.{os.urandom(4).hex()}.fstools.tmp"
            try:
                self.fd = os.open(self.name, flags, mode, dir_fd=dir_fd)
                break
            except FileExistsError:
                continue
        self.renamed = False

    def __enter__(self) -> _TempFile:
        return self

    def __exit__(self, *exc: object) -> None:
        os.close(self.fd)
        if not self.renamed:
            try:
                os.unlink(self.name, dir_fd=self.dir_fd)
            except FileNotFoundError:
                pass

    def rename_to(self, name: str) -> None:
        os.replace(self.name, name, src_dir_fd=self.dir_fd, dst_dir_fd=self.dir_fd)
        self.renamed = True

    def link_to(self, name: str) -> None:
        os.link(self.name, name, src_dir_fd=self.dir_fd, dst_dir_fd=self.dir_fd, follow_symlinks=False)


def _write_some(fd: int, views: list[memoryview], offset: int | None) -> int:
    """One write system call: write/pwrite for one buffer, writev/pwritev for several."""
    if len(views) == 1:
        return os.write(fd, views[0]) if offset is None else os.pwrite(fd, views[0], offset)
    return os.writev(fd, views) if offset is None else os.pwritev(fd, views, offset)


def _write_all(fd: int, data: bytes | Spliced, offset: int | None = None) -> None:
    """Write all of `data` at the file position, or at `offset`: its pieces together (no joined
    copy), resumed after a short write."""
    views, i = [memoryview(p) for p in pieces_of(data)], 0
    while i < len(views):
        n = _write_some(fd, views[i : i + _IOV_MAX], offset)
        offset = None if offset is None else offset + n
        while i < len(views) and n >= len(views[i]):
            n -= len(views[i])
            i += 1
        if n:
            views[i] = views[i][n:]


def _xattrs(fd: int) -> list[str]:
    try:
        return os.listxattr(fd)
    except OSError as exc:
        if exc.errno in (errno.ENOTSUP, errno.EOPNOTSUPP):
            return []
        raise


def _copy_metadata(dst: int, src: int, st: os.stat_result) -> None:
    """Give `dst` the owner, mode and extended attributes (ACLs included) of `src`.

    Order matters: chown clears set-id bits, so chmod comes after it, and the ACL xattr after both.
    """
    own = os.fstat(dst)
    if (own.st_uid, own.st_gid) != (st.st_uid, st.st_gid):
        try:
            os.fchown(dst, st.st_uid, st.st_gid)
        except PermissionError:
            raise _KeepInode from None
    os.fchmod(dst, stat.S_IMODE(st.st_mode))
    wanted = _xattrs(src)
    try:
        for name in set(_xattrs(dst)) - set(wanted):  # e.g. a default ACL the directory gave the temp file
            os.removexattr(dst, name)
        for name in wanted:
            os.setxattr(dst, name, os.getxattr(src, name))
    except OSError as exc:
        if exc.errno in (errno.EPERM, errno.EACCES, errno.ENOTSUP, errno.EOPNOTSUPP):
            raise _KeepInode from None
        raise


def recheck(src: int, st: os.stat_result) -> None:
    """Conflict if the open original changed since it was locked and compared.

    Writers that do not take the lock (an appender, an editor) can still write while the
    new version is written and fsynced; checked last, just before the rename, this leaves
    them a window of a few system calls instead of the whole write. Size, mtime and ctime
    must be as they were (user space cannot set ctime), and nothing may lie past the old end.
    """
    now = os.fstat(src)
    same = (now.st_size, now.st_mtime_ns, now.st_ctime_ns) == (st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    if not same or os.pread(src, 1, st.st_size):
        raise Conflict("was modified by another program while the change was written")


def _replace(
    dir_fd: int, name: str, src: int, st: os.stat_result, data: bytes | Spliced, keep: Keeper | None
) -> os.stat_result:
    try:
        temp = _TempFile(dir_fd, name, 0o600)
    except PermissionError:  # the directory is not writable, the file may be
        raise _KeepInode from None
    with temp:
        _write_all(temp.fd, data)
        _copy_metadata(temp.fd, src, st)
        os.fsync(temp.fd)
        recheck(src, st)
        if keep is not None:
            keep(dir_fd, name, src, st, True)
        temp.rename_to(name)
        new_stat = os.fstat(temp.fd)
    fsync_dir(dir_fd)
    return new_stat


def _write_in_place(
    dir_fd: int, name: str, st: os.stat_result, data: bytes | Spliced, old: bytes | None
) -> os.stat_result:
    """Rewrite the inode itself (hard links, foreign owner). Space is reserved first, so a full
    disk or a file-size limit fails before any byte changes; any later failure restores `old`."""
    fd = os.open(name, os.O_WRONLY | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dir_fd)
    try:
        now = os.fstat(fd)
        if (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
            raise Conflict("was replaced")
        if len(data) > st.st_size:
            try:
                os.posix_fallocate(fd, 0, len(data))
            except OSError as exc:
                if exc.errno not in _FALLOCATE_UNSUPPORTED:
                    os.ftruncate(fd, st.st_size)
                    raise
        try:
            _write_all(fd, data, offset=0)
            os.ftruncate(fd, len(data))
            os.fsync(fd)
        except BaseException:
            if old is not None:
                try:
                    _write_all(fd, old, offset=0)
                    os.ftruncate(fd, len(old))
                except OSError:
                    pass
            raise
        return os.fstat(fd)
    finally:
        os.close(fd)


def _backup(dir_fd: int, name: str, src: int, st: os.stat_result) -> str:
    """Copy the locked file to `<name>.bak` (or `.bak.1`, `.bak.2`, ...), never over an existing backup."""
    with _TempFile(dir_fd, name, 0o600) as temp:
        offset = 0
        while chunk := os.pread(src, COPY_CHUNK, offset):
            _write_all(temp.fd, chunk)
            offset += len(chunk)
        try:
            _copy_metadata(temp.fd, src, st)
        except _KeepInode:
            pass  # a backup owned by us is still a faithful copy of the bytes
        os.fsync(temp.fd)
        n = 0
        while True:
            candidate = f"{name}.bak" if n == 0 else f"{name}.bak.{n}"
            try:
                temp.link_to(candidate)
                return candidate
            except FileExistsError:
                n += 1


def _create(dir_fd: int, name: str, data: bytes | Spliced) -> os.stat_result:
    """A new file, mode from the umask. Linking the temp file into place fails if a file appeared
    meanwhile, so a concurrent creator is never overwritten."""
    with _TempFile(dir_fd, name, 0o666) as temp:
        _write_all(temp.fd, data)
        os.fsync(temp.fd)
        try:
            temp.link_to(name)
        except FileExistsError:
            raise Conflict("was created by another process") from None
        except OSError as exc:
            if exc.errno not in _LINK_UNSUPPORTED:
                raise
            if exists_at(dir_fd, name):
                raise Conflict("was created by another process") from None
            temp.rename_to(name)
        new_stat = os.fstat(temp.fd)
    fsync_dir(dir_fd)
    return new_stat


def commit(
    dir_fd: int,
    name: str,
    data: bytes | Spliced,
    expected: Snapshot | None,
    *,
    timeout: float,
    backup: bool = False,
    keep: Keeper | None = None,
) -> Written:
    """Make the file `name` in the directory `dir_fd` hold `data`, provided it still holds what
    `expected` saw (None: no file yet).

    Raises Conflict if the file changed, appeared or vanished meanwhile, LockTimeout, or the
    OSError of a failed write; on failure the file is untouched and no temp file remains.
    """
    if expected is None:
        return Written(_create(dir_fd, name, data), in_place=False)
    with locked(dir_fd, name, shared=False, timeout=timeout) as held:
        if held is None:
            raise Conflict("was deleted")
        fd, st = held
        if not _unchanged(fd, st, expected):
            raise Conflict("was modified")
        if not os.access(name, os.W_OK, dir_fd=dir_fd):  # a rename needs only the directory: respect a read-only file
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), name)
        backup_name = _backup(dir_fd, name, fd, st) if backup else None
        try:
            if st.st_nlink <= 1:
                try:
                    return Written(_replace(dir_fd, name, fd, st, data, keep), False, backup_name)
                except _KeepInode:
                    pass
            recheck(fd, st)
            if keep is not None:
                keep(dir_fd, name, fd, st, False)
            return Written(_write_in_place(dir_fd, name, st, data, expected.data), True, backup_name)
        except BaseException:
            if backup_name is not None:
                os.unlink(backup_name, dir_fd=dir_fd)
            raise
