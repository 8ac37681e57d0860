"""The syscalls of a move, relative to open directory fds: no-clobber rename, and the copy across filesystems.

`rename_at` never replaces what is at the destination unless asked: Linux's
renameat2(RENAME_NOREPLACE) decides atomically in the kernel, so a file created there a
moment before is never clobbered. Where the call or the flag is missing (old kernels, some
filesystems), a file is moved by link + unlink (link fails on an existing name, just as
atomically) and a directory by a check then rename, the one window left open.

Across filesystems (EXDEV) the entry is copied next to the destination under a temporary
name, fsynced, renamed into place the same way, and only then is the source removed.
"""

from __future__ import annotations

import ctypes
import errno
import os
import secrets
import stat
from collections.abc import Callable
from functools import cache
from typing import cast

from .._core.sandbox import exists_at
from .tree import remove_tree, walk_tree

RENAME_NOREPLACE = 1
_COPY_CHUNK = 1 << 20


class SourceKept(Exception):
    """A move across filesystems put the whole copy in place, but removing the source failed."""

    def __init__(self, error: OSError) -> None:
        super().__init__(str(error))
        self.error = error


@cache
def _renameat2() -> Callable[[int, bytes, int, bytes, int], int] | None:
    try:
        func = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return None
    func.argtypes = (ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint)
    func.restype = ctypes.c_int
    return cast(Callable[[int, bytes, int, bytes, int], int], func)


def _renameat2_noreplace(src_fd: int, src: str, dst_fd: int, dst: str) -> bool:
    """renameat2(RENAME_NOREPLACE); False when this kernel or filesystem cannot do it, OSError on failure."""
    func = _renameat2()
    if func is None:
        return False
    if func(src_fd, os.fsencode(src), dst_fd, os.fsencode(dst), RENAME_NOREPLACE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):  # EINVAL: the filesystem lacks the flag
        return False
    raise OSError(err, os.strerror(err), dst)


def rename_at(src_fd: int, src: str, dst_fd: int, dst: str, *, replace: bool, is_dir: bool) -> None:
    """Rename `src` (in directory fd `src_fd`) to `dst` (in `dst_fd`); FileExistsError if `dst`
    exists and not `replace`; OSError(EXDEV) across filesystems."""
    if replace:
        os.rename(src, dst, src_dir_fd=src_fd, dst_dir_fd=dst_fd)
        return
    if _renameat2_noreplace(src_fd, src, dst_fd, dst):
        return
    if not is_dir:
        try:
            os.link(src, dst, src_dir_fd=src_fd, dst_dir_fd=dst_fd, follow_symlinks=False)
        except OSError as exc:
            if exc.errno in (errno.EEXIST, errno.EXDEV):
                raise
        else:
            os.unlink(src, dir_fd=src_fd)
            return
    if exists_at(dst_fd, dst):
        raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), dst)
    os.rename(src, dst, src_dir_fd=src_fd, dst_dir_fd=dst_fd)


def fsync_dir(path_or_fd: str | int) -> None:
    """fsync a directory (its entries: a rename is durable once its directories are). A descriptor
    may be O_PATH (the sandbox's): the directory is reopened through it for reading."""
    if isinstance(path_or_fd, int):
        fd = os.open(".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=path_or_fd)
    else:
        fd = os.open(path_or_fd, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _carry_metadata(src: int | str, dst: int | str, st: os.stat_result) -> None:
    """Owner and extended attributes of `src` on its copy `dst`, as far as this process may set
    them (as mv does); before the mode, since a chown clears set-id bits."""
    try:
        os.chown(dst, st.st_uid, st.st_gid)
    except PermissionError:
        pass
    try:
        for name in os.listxattr(src):
            os.setxattr(dst, name, os.getxattr(src, name))
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.EACCES, errno.ENOTSUP, errno.EOPNOTSUPP):
            raise


def _copy_file(src_fd: int | None, src: str, dst_fd: int | None, tmp: str) -> None:
    """A copy of the regular file or symlink `src` as `tmp`, with owner, mode, times and extended
    attributes, fsynced."""
    st = os.stat(src, dir_fd=src_fd, follow_symlinks=False)
    if stat.S_ISLNK(st.st_mode):
        os.symlink(os.readlink(src, dir_fd=src_fd), tmp, dir_fd=dst_fd)
        try:
            os.chown(tmp, st.st_uid, st.st_gid, dir_fd=dst_fd, follow_symlinks=False)
        except PermissionError:
            pass
        return
    if not stat.S_ISREG(st.st_mode):  # a FIFO made since the plan: opening it could block forever
        raise OSError(errno.EINVAL, "not a regular file, directory or symlink", src)
    fin = os.open(src, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=src_fd)
    try:
        fout = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600, dir_fd=dst_fd)
        try:
            while chunk := os.read(fin, _COPY_CHUNK):
                view = memoryview(chunk)
                while view:
                    view = view[os.write(fout, view) :]
            _carry_metadata(fin, fout, st)
            os.fchmod(fout, stat.S_IMODE(st.st_mode))
            os.utime(fout, ns=(st.st_atime_ns, st.st_mtime_ns))
            os.fsync(fout)
        finally:
            os.close(fout)
    finally:
        os.close(fin)


def _copy_tree(top: int, dst: str) -> None:
    """Copy the open directory `top` as the new `dst` without recursion, whatever its depth: files
    as _copy_file copies them, links as links; each directory gets its owner, mode, times and
    extended attributes, and is fsynced, once its contents are in place (deepest first)."""
    src = f"/proc/self/fd/{top}"
    directories = [(src, dst, os.fstat(top))]
    os.mkdir(dst, 0o700)
    for rel, is_dir in walk_tree(top):  # parents before their contents
        path, target = f"{src}/{rel}", f"{dst}/{rel}"
        if is_dir:
            os.mkdir(target, 0o700)
            directories.append((path, target, os.lstat(path)))
        else:
            _copy_file(None, path, None, target)
    for path, target, st in reversed(directories):
        _carry_metadata(path, target, st)
        os.chmod(target, stat.S_IMODE(st.st_mode))
        os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
        fsync_dir(target)


def _pinned(dir_fd: int, name: str) -> str:
    """A path to the entry `name` of the open directory `dir_fd` that no rename of the
    directory's own path can redirect (the descriptor's /proc link)."""
    return f"/proc/self/fd/{dir_fd}/{name}"


def move_across(src_fd: int, src: str, dst_fd: int, dst: str, *, replace: bool, is_dir: bool) -> None:
    """Move between filesystems: copy beside the destination, fsync, rename into place, remove the source.

    The destination appears whole or not at all; if anything fails before the rename the copy
    is removed and the source is untouched. A directory is copied through its parents' /proc
    descriptor links, without recursion, and removed through descriptors. SourceKept when the
    source cannot be removed after the copy is in place.
    """
    tmp = f".{dst}.fstools-move-{secrets.token_hex(4)}"
    try:
        if is_dir:
            top = os.open(src, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=src_fd)
            try:  # the source directory itself is pinned by its descriptor, never followed as a link
                _copy_tree(top, _pinned(dst_fd, tmp))
            finally:
                os.close(top)
        else:
            _copy_file(src_fd, src, dst_fd, tmp)
        rename_at(dst_fd, tmp, dst_fd, dst, replace=replace, is_dir=is_dir)
    except BaseException:
        _remove(dst_fd, tmp)
        raise
    fsync_dir(dst_fd)
    try:
        _remove(src_fd, src, strict=True)
        fsync_dir(src_fd)
    except OSError as exc:
        raise SourceKept(exc) from exc


def _remove(dir_fd: int, name: str, *, strict: bool = False) -> None:
    """Remove the entry `name` of `dir_fd`, a directory tree through descriptors (never following links)."""
    try:
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(st.st_mode):
        os.unlink(name, dir_fd=dir_fd)
        return
    try:
        remove_tree(dir_fd, name)
    except OSError:
        if strict:
            raise
