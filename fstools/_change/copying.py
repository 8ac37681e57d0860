"""The copy of a move across filesystems, made through descriptors only.

Every entry is reached by one name relative to an open directory, never by a longer path:
a source directory is opened `O_NOFOLLOW | O_DIRECTORY` in its parent's descriptor, a file
`O_NOFOLLOW` in its directory's, a link is read as a link and copied as one; the copy's
directories are made with mkdirat and opened `O_NOFOLLOW` in their parent's copy, its files
created `O_EXCL` there. A directory of the source (or of the half-built copy) that a process
swaps for a symlink is therefore copied as that link, or makes the copy fail: what is read is
always the source's own, what is written always lands in the copy. Owner,
extended attributes, mode and times are set through the copy's descriptors, and each file and
directory is fsynced.

The walk is a loop over an explicit stack, so depth is limited neither by the recursion limit
nor by the descriptor limit: only the top and the deepest `WINDOW` levels keep their two
descriptors open. A level whose descriptors were given up is opened again, on the way back
up, from the nearest open ancestor down, one name at a time, and must be the very directory
it was (device and inode), else the copy stops (`ESTALE`).
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass, field

_COPY_CHUNK = 1 << 20
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# Levels below the top whose descriptors stay open: two each, well under any usual limit (1024).
WINDOW = 64
# The reason given (with ESTALE) when an entry is not what was listed: another kind, or another object.
_CHANGED = "changed while it was being copied"


def _carry_metadata(src_fd: int, dst_fd: int, st: os.stat_result) -> None:
    """Owner and extended attributes of the open `src_fd` on its open copy `dst_fd`, as far as this
    process may set them (as mv does); before the mode, since a chown clears set-id bits."""
    try:
        os.fchown(dst_fd, st.st_uid, st.st_gid)
    except PermissionError:
        pass
    try:
        for name in os.listxattr(src_fd):
            os.setxattr(dst_fd, name, os.getxattr(src_fd, name))
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.EACCES, errno.ENOTSUP, errno.EOPNOTSUPP):
            raise


def _finish(src_fd: int, dst_fd: int, st: os.stat_result) -> None:
    """The copy `dst_fd` gets the metadata `st` of `src_fd` and is fsynced (once its contents are in place)."""
    _carry_metadata(src_fd, dst_fd, st)
    os.fchmod(dst_fd, stat.S_IMODE(st.st_mode))
    os.utime(dst_fd, ns=(st.st_atime_ns, st.st_mtime_ns))
    os.fsync(dst_fd)


def _open_regular(src_fd: int, name: str, st: os.stat_result) -> int:
    """The regular file `name` of `src_fd`, and only the very file `st` describes: O_NONBLOCK, so a
    FIFO put there meanwhile cannot block the open; its identity is checked before anything is read."""
    fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=src_fd)
    opened = os.fstat(fd)
    if (opened.st_dev, opened.st_ino) != (st.st_dev, st.st_ino) or not stat.S_ISREG(opened.st_mode):
        os.close(fd)
        raise OSError(errno.ESTALE, _CHANGED, name)
    os.set_blocking(fd, True)  # a regular file: read it as any other
    return fd


def copy_entry(src_fd: int, name: str, dst_fd: int, new: str) -> None:
    """Copy the regular file or symlink `name` of the directory `src_fd` as `new` in `dst_fd`, with
    owner, mode, times and extended attributes, fsynced; a link is copied as a link."""
    st = os.stat(name, dir_fd=src_fd, follow_symlinks=False)
    if stat.S_ISLNK(st.st_mode):
        os.symlink(os.readlink(name, dir_fd=src_fd), new, dir_fd=dst_fd)
        try:
            os.chown(new, st.st_uid, st.st_gid, dir_fd=dst_fd, follow_symlinks=False)
        except PermissionError:
            pass
        os.utime(new, ns=(st.st_atime_ns, st.st_mtime_ns), dir_fd=dst_fd, follow_symlinks=False)
        return
    if stat.S_ISDIR(st.st_mode):  # listed as a file or link a moment ago
        raise OSError(errno.ESTALE, _CHANGED, name)
    if not stat.S_ISREG(st.st_mode):  # a FIFO, socket or device made since the plan
        raise OSError(errno.EINVAL, "not a regular file, directory or symlink", name)
    fin = _open_regular(src_fd, name, st)
    try:
        fout = os.open(new, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=dst_fd)
        try:
            while chunk := os.read(fin, _COPY_CHUNK):
                view = memoryview(chunk)
                while view:
                    view = view[os.write(fout, view) :]
            _finish(fin, fout, st)
        finally:
            os.close(fout)
    finally:
        os.close(fin)


def _open_dir(parent_fd: int, name: str, identity: tuple[int, int] | None = None) -> int:
    """The subdirectory `name` of `parent_fd`, never through a symlink; with `identity`, only that directory."""
    try:
        fd = os.open(name, _DIR_FLAGS, dir_fd=parent_fd)
    except NotADirectoryError:  # O_NOFOLLOW | O_DIRECTORY on a symlink: say it as openat2 does
        if stat.S_ISLNK(os.stat(name, dir_fd=parent_fd, follow_symlinks=False).st_mode):
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), name) from None
        raise
    if identity is not None:
        st = os.fstat(fd)
        if (st.st_dev, st.st_ino) != identity:
            os.close(fd)
            raise OSError(errno.ESTALE, _CHANGED, name)
    return fd


@dataclass
class _Level:
    """A directory being copied: its name (in its parent, and its copy's in the copy's parent), the
    source's metadata, its copy's identity, the subdirectories still to copy (last first), and the
    two descriptors while they are held (-1 once given up)."""

    name: str
    st: os.stat_result
    copy_id: tuple[int, int]
    pending: list[str] = field(default_factory=list)
    src: int = -1
    dst: int = -1

    def close(self) -> None:
        for fd in (self.src, self.dst):
            if fd >= 0:
                os.close(fd)
        self.src = self.dst = -1


def _enter(name: str, src_fd: int, dst_fd: int) -> _Level:
    """A level for the source directory `src_fd` and its new copy `dst_fd` (both owned from here,
    closed if this fails): the files and links are copied now, the subdirectories wait."""
    try:
        st, copied = os.fstat(src_fd), os.fstat(dst_fd)
        with os.scandir(src_fd) as it:
            listed = sorted((entry.name, entry.is_dir(follow_symlinks=False)) for entry in it)
        for entry, is_dir in listed:
            if not is_dir:
                copy_entry(src_fd, entry, dst_fd, entry)
    except BaseException:
        os.close(src_fd)
        os.close(dst_fd)
        raise
    pending = [entry for entry, is_dir in reversed(listed) if is_dir]
    return _Level(name, st, (copied.st_dev, copied.st_ino), pending, src_fd, dst_fd)


def _descend(level: _Level, name: str) -> _Level:
    """The subdirectory `name` of `level`, opened in the source and made and opened in the copy."""
    src = _open_dir(level.src, name)
    try:
        os.mkdir(name, 0o700, dir_fd=level.dst)
        dst = _open_dir(level.dst, name)
    except BaseException:
        os.close(src)
        raise
    return _enter(name, src, dst)


def _spare(stack: list[_Level], depth: int) -> None:
    """Give up the descriptors of the level WINDOW above `depth` (the top level's are always kept):
    the levels that hold them are then the top and the deepest WINDOW, at most."""
    if depth - WINDOW >= 1:
        stack[depth - WINDOW].close()


def _reopen(stack: list[_Level]) -> None:
    """Open the deepest level again if its descriptors were given up: from the nearest open
    ancestor down, one name at a time, each level the very directory it was."""
    if stack[-1].src >= 0:
        return
    start = max(i for i, level in enumerate(stack) if level.src >= 0)
    for i in range(start + 1, len(stack)):
        parent, level = stack[i - 1], stack[i]
        level.src = _open_dir(parent.src, level.name, (level.st.st_dev, level.st.st_ino))
        level.dst = _open_dir(parent.dst, level.name, level.copy_id)
        _spare(stack, i)


def copy_tree(src_top: int, dst_parent: int, name: str) -> None:
    """Copy the open directory `src_top` as the new directory `name` of `dst_parent`, without
    recursion and with a bounded number of descriptors, whatever its depth. A directory gets its
    owner, extended attributes, mode and times and is fsynced once its contents are in place."""
    os.mkdir(name, 0o700, dir_fd=dst_parent)
    src = os.dup(src_top)
    try:
        dst = _open_dir(dst_parent, name)
    except BaseException:
        os.close(src)
        raise
    stack = [_enter(name, src, dst)]
    try:
        while stack:
            _reopen(stack)
            level = stack[-1]
            if level.pending:
                stack.append(_descend(level, level.pending.pop()))
                _spare(stack, len(stack) - 1)
                continue
            _finish(level.src, level.dst, level.st)
            level.close()
            stack.pop()
    finally:
        for level in stack:
            level.close()
