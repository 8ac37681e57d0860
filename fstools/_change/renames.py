"""The syscalls of a move, relative to open directory fds: no-clobber rename, and the copy across filesystems.

`rename_at` never replaces what is at the destination unless asked: Linux's
renameat2(RENAME_NOREPLACE) decides atomically in the kernel, so a file created there a
moment before is never clobbered. Where the call or the flag is missing (old kernels, some
filesystems), a file is moved by link + unlink (link fails on an existing name, just as
atomically) and a directory by a check then rename, the one window left open.

Across filesystems (EXDEV) the entry is copied next to the destination under a temporary
name (through descriptors only, see `copying`), fsynced, renamed into place the same way,
and only then is the source removed.
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

from .._core.sandbox import exists_at, fsync_dir
from .copying import copy_entry, copy_tree
from .tree import remove_tree

RENAME_NOREPLACE = 1


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


def move_across(src_fd: int, src: str, dst_fd: int, dst: str, *, replace: bool, is_dir: bool) -> None:
    """Move between filesystems: copy beside the destination, fsync, rename into place, remove the source.

    The destination appears whole or not at all; if anything fails before the rename the copy
    is removed and the source is untouched. The copy reaches every entry through descriptors
    (see `copying`); the source is removed through descriptors too. SourceKept when the
    source cannot be removed after the copy is in place.
    """
    tmp = f".{dst}.fstools-move-{secrets.token_hex(4)}"
    try:
        if is_dir:
            top = os.open(src, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=src_fd)
            try:
                copy_tree(top, dst_fd, tmp)
            finally:
                os.close(top)
        else:
            copy_entry(src_fd, src, dst_fd, tmp)
        rename_at(dst_fd, tmp, dst_fd, dst, replace=replace, is_dir=is_dir)
    except BaseException:
        _remove(dst_fd, tmp)
        raise
    fsync_dir(dst_fd, strict=True)
    try:
        _remove(src_fd, src, strict=True)
        fsync_dir(src_fd, strict=True)
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
