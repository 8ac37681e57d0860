"""The sandbox: every file operation happens beneath an allowed root, through no symlink.

A path is checked on its canonical form (symlinks resolved, see `paths`), and the file is
then reached along that canonical path with no symbolic link followed anywhere: openat2
with `RESOLVE_NO_SYMLINKS` (and `RESOLVE_BENEATH` relative to a held directory) where the
kernel has it, else a walk of `O_NOFOLLOW | O_DIRECTORY` descriptors from the root's. A
process that swaps a component for a symlink between the check and the use therefore
makes the operation fail (ELOOP), never reach outside the root: the object opened is the
one the check saw, at the place it saw it. Symlinks inside the root still work because
the canonical path already has them resolved.

Everything that changes the tree (create, rename, link, unlink, mkdir, rmdir) is then done
relative to a held directory descriptor, by a single name that contains no separator.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

AT_FDCWD = -100
_SYS_OPENAT2 = 437  # the same number on every architecture that has it (x86_64, aarch64, ...)
_OPENAT2_MACHINES = frozenset({"x86_64", "aarch64", "arm64", "ppc64le", "s390x", "riscv64"})
RESOLVE_NO_MAGICLINKS = 0x02
RESOLVE_NO_SYMLINKS = 0x04
RESOLVE_BENEATH = 0x08
_BENEATH = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS
# A symlink met on the way, or a component that is no longer a directory: the path changed
# after it was checked (or holds a symlink loop), and nothing was followed.
RACE_ERRNOS = frozenset({errno.ELOOP, errno.EXDEV, errno.ENOTDIR})

# A descriptor that only names a place (Linux); elsewhere a read-only one does the job.
O_PATH: int = getattr(os, "O_PATH", 0)
DIR_FLAGS = O_PATH | os.O_DIRECTORY | os.O_CLOEXEC
_STEP_FLAGS = DIR_FLAGS | os.O_NOFOLLOW


class _Openat2:
    """The openat2 system call through ctypes, probed on first use; `available` False falls back to the walk."""

    def __init__(self) -> None:
        self.available: bool | None = None if sys.platform == "linux" else False
        self._call: Any = None
        self._how: Any = None
        self._hows: dict[tuple[int, int, int], Any] = {}

    def _load(self) -> bool:
        import ctypes  # lazily: ctypes costs more import time than all of fstools' core
        import platform

        if platform.machine() not in _OPENAT2_MACHINES:
            return False

        class OpenHow(ctypes.Structure):
            _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64)]

        libc = ctypes.CDLL(None, use_errno=True)
        self._how, self._call = OpenHow, libc.syscall
        self._errno, self._byref, self._size = ctypes.get_errno, ctypes.byref, ctypes.sizeof(OpenHow)
        root = self.open(AT_FDCWD, "/", DIR_FLAGS, 0, RESOLVE_NO_SYMLINKS, probing=True)
        if root is None:
            return False
        os.close(root)
        return True

    def open(self, dir_fd: int, path: str, flags: int, mode: int, resolve: int, *, probing: bool = False) -> int | None:
        """The new descriptor; None when the kernel lacks openat2 or a filter forbids it (probing only)."""
        key = (flags, mode if flags & os.O_CREAT else 0, resolve)
        how = self._hows.get(key)
        if how is None:  # one argument block per kind of open, built once
            how = self._hows.setdefault(key, self._byref(self._how(*key)))
        fd = int(self._call(_SYS_OPENAT2, dir_fd, os.fsencode(path), how, self._size))
        if fd >= 0:
            return fd
        err = self._errno()
        if probing and err in (errno.ENOSYS, errno.EPERM, errno.EINVAL):
            return None
        raise OSError(err, os.strerror(err), path)

    def usable(self) -> bool:
        if self.available is None:
            self.available = self._load()
        return self.available


openat2 = _Openat2()


def _split(rel: str) -> list[str]:
    padded = f"/{rel}/"  # a `.` or `..` component, found by C-level searches (Grep checks every path it found)
    if "/./" in padded or "/../" in padded:
        # Canonical paths have neither; refusing them keeps the walk beneath its start.
        raise OSError(errno.EXDEV, "path leaves the directory it is resolved in", rel)
    return [p for p in rel.split("/") if p]


def _step(dir_fd: int, name: str) -> int:
    """The subdirectory `name` of `dir_fd`; a symlink there is ELOOP, as openat2 reports it."""
    try:
        return os.open(name, _STEP_FLAGS, dir_fd=dir_fd)
    except NotADirectoryError:
        if stat.S_ISLNK(os.lstat(name, dir_fd=dir_fd).st_mode):
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), name) from None
        raise


def _walk(dir_fd: int, parts: list[str], flags: int, mode: int) -> int:
    """Open `parts` below `dir_fd` one component at a time, never through a symlink."""
    fd = dir_fd
    try:
        for name in parts[:-1]:
            nxt = _step(fd, name)
            if fd != dir_fd:
                os.close(fd)
            fd = nxt
        last = parts[-1] if parts else "."
        opened = os.open(last, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=fd)
    finally:
        if fd != dir_fd:
            os.close(fd)
    if flags & O_PATH and stat.S_ISLNK(os.fstat(opened).st_mode):  # O_PATH|O_NOFOLLOW opens the link itself
        os.close(opened)
        raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), parts[-1])
    return opened


def open_at(dir_fd: int, rel: str, flags: int, mode: int = 0o666) -> int:
    """Open `rel` beneath the directory `dir_fd`, following no symlink (ELOOP if one is in the way)."""
    parts = _split(rel)
    if openat2.usable():
        fd = openat2.open(dir_fd, "/".join(parts) or ".", flags | os.O_CLOEXEC, mode, _BENEATH)
        assert fd is not None
        return fd
    return _walk(dir_fd, parts, flags, mode)


def open_root(root: str) -> int:
    """An O_PATH descriptor of the canonical directory `root`, reached through no symlink."""
    if not os.path.isabs(root):
        raise ValueError(f"root must be absolute: {root}")
    if openat2.usable():
        fd = openat2.open(AT_FDCWD, root, DIR_FLAGS, 0, RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)
        assert fd is not None
        return fd
    top = os.open("/", DIR_FLAGS)
    try:
        parts = _split(root)
        return _walk(top, parts, DIR_FLAGS, 0) if parts else os.dup(top)
    finally:
        os.close(top)


def relative_to(path: str, root: str) -> str:
    """`path` (canonical, within `root`) relative to `root`; "" for the root itself."""
    if path == root:
        return ""
    return path[len(root) :].lstrip("/")


def open_beneath(root: str, path: str, flags: int, mode: int = 0o666) -> int:
    """Open the canonical `path` beneath the allowed `root` it lies in, following no symlink.

    With openat2 this is one call over the whole path with RESOLVE_NO_SYMLINKS: a canonical
    path has no symlink and no `..`, so when its text lies in `root` (checked here) so does
    what it reaches. The walk starts from the root's descriptor instead.
    """
    rel = relative_to(path, root)
    if openat2.usable():
        if path != root and not path.startswith(root.rstrip("/") + "/"):
            raise OSError(errno.EXDEV, "path is not beneath its root", path)
        _split(rel)
        fd = openat2.open(AT_FDCWD, path, flags | os.O_CLOEXEC, mode, RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)
        assert fd is not None
        return fd
    root_fd = open_root(root)
    try:
        return open_at(root_fd, rel, flags, mode)
    finally:
        os.close(root_fd)


def stat_beneath(root: str, path: str) -> os.stat_result:
    """lstat of the canonical `path`, reached beneath `root` without following any symlink."""
    fd = open_beneath(root, path, O_PATH)
    try:
        return os.fstat(fd)
    finally:
        os.close(fd)


@dataclass
class Parent:
    """The open directory a file lives in, and the file's name in it: where it is opened,
    created, renamed or removed. `created` lists the directories made to reach it, as
    (descriptor of their parent, name), for removal if the operation fails."""

    fd: int
    name: str
    created: list[tuple[int, str]] = field(default_factory=list)
    made: list[str] = field(default_factory=list)  # the created directories' paths, top-down
    _held: list[int] = field(default_factory=list)

    def remove_created(self) -> None:
        for dir_fd, name in reversed(self.created):
            try:
                os.rmdir(name, dir_fd=dir_fd)
            except OSError:
                return
        self.created.clear()
        self.made.clear()

    def close(self) -> None:
        for fd in reversed(self._held):
            os.close(fd)
        self._held.clear()


def _make_dirs(root: str, root_fd: int, parts: list[str], parent: Parent) -> int:
    """The directory `parts` below `root_fd` (the root `root`), created one level at a time where missing."""
    fd = root_fd
    for depth, name in enumerate(parts, 1):
        try:
            nxt = _step(fd, name)
        except FileNotFoundError:
            try:
                os.mkdir(name, 0o777, dir_fd=fd)
                parent.created.append((fd, name))
                parent.made.append(os.path.join(root, *parts[:depth]))
            except FileExistsError:
                pass  # made meanwhile by someone else: open it like any other (never a symlink)
            nxt = _step(fd, name)
        parent._held.append(nxt)
        fd = nxt
    return fd


@contextmanager
def parent_of(root: str, path: str, *, create: bool = False) -> Iterator[Parent]:
    """The directory holding the canonical `path`, opened beneath `root`; with `create`, the
    missing directories on the way are made (each opened with O_NOFOLLOW, never a symlink)."""
    rel = relative_to(path, root)
    if not rel:
        raise OSError(errno.EBUSY, "an allowed root has no parent inside the sandbox", path)
    head, _, name = rel.rpartition("/")
    root_fd = open_root(root)
    parent = Parent(root_fd, name, _held=[root_fd])
    try:
        if create:
            parent.fd = _make_dirs(root, root_fd, _split(head), parent)
        elif head:
            parent.fd = open_at(root_fd, head, DIR_FLAGS)
            parent._held.append(parent.fd)
        yield parent
    finally:
        parent.close()


def exists_at(dir_fd: int, name: str) -> bool:
    """Whether the entry `name` of the open directory `dir_fd` exists (a link counts as itself)."""
    try:
        os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return True


def fsync_dir(dir_fd: int, *, strict: bool = False) -> None:
    """Make a rename in the directory `dir_fd` (an O_PATH descriptor will do: it is reopened for
    reading) durable. Best effort unless `strict`: some filesystems refuse."""
    try:
        fd = os.open(".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=dir_fd)
    except OSError:
        if strict:
            raise
        return
    try:
        os.fsync(fd)
    except OSError:
        if strict:
            raise
    finally:
        os.close(fd)
