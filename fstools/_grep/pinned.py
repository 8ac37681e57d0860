"""Files handed to rg as descriptors opened through the sandbox, where the kernel cannot confine rg.

Without Landlock nothing stops rg from following a directory that a racing process swaps for
a symlink to outside while rg walks, or opens a file, by name. Such a run can only propose
files then; what Grep reports comes from a second run over descriptors this process opened
beneath the verified directory, through no symlink (`sandbox.open_at`), given to rg as
`/dev/fd/N`: rg reads exactly the inode that was checked, wherever its name now leads.

rg prints those files as `/dev/fd/N`; `FileArgs.real` gives back the path each was opened as.
An explicitly named file is searched whatever the filters say (globs, types, size), so the
filters are applied here: only regular files within the size limit are handed over.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from .._core import sandbox

# Descriptors per rg run: far below the usual 1,024 soft limit, since several searches may run at once;
# at most a quarter of a lower limit (macOS gives 256).
_BATCH_FDS = 256
# Out of descriptors: a file not opened for that reason is not a file that went away.
_EXHAUSTED = frozenset({errno.EMFILE, errno.ENFILE})
# Directories held open while a search runs: rg reports files a directory at a time from each of its
# threads, so a few per thread are reopened rarely; far below the descriptor budget of a run.
_PARENTS = 64
_NOT_ENTRIES = frozenset({"", ".", ".."})
_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0)  # a FIFO made meanwhile must not block
# Why a file found by a walk could not be handed to rg.
GONE, TOO_LARGE, CHANGED = "gone", "too_large", "changed"
_FD_PATH = re.compile(r"/dev/fd/\d+")
_MESSAGE_END = re.compile(r"line \d+: |[^:]*\(os error \d+\)$")


@dataclass
class FileArgs:
    """One rg run's files: the arguments rg gets, the descriptors behind them, and their paths."""

    args: list[str]
    fds: list[int] = field(default_factory=list)
    names: dict[str, str] = field(default_factory=dict)  # `/dev/fd/N` -> the path it was opened as

    def real(self, path: str) -> str:
        """The path rg's output names: a descriptor's own path, any other unchanged."""
        return self.names.get(path, path) if self.names else path

    def real_message(self, line: str) -> str:
        """An rg message with the descriptor it names replaced by the file's path."""
        if not self.names:
            return line
        return _FD_PATH.sub(lambda m: self.names.get(m[0], m[0]), line, count=1)

    def close(self) -> None:
        for fd in self.fds:
            os.close(fd)
        self.fds.clear()


@dataclass(frozen=True)
class Pinner:
    """Opens files below the verified directory `dir_fd` (the canonical `base`) for rg to read."""

    dir_fd: int
    base: str
    max_size: int
    prefix: str = field(init=False)  # what every path below `base` starts with
    # The directories of the last files stat'ed, open: rg reports files a directory at a time.
    _parents: dict[str, int] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "prefix", self.base.rstrip("/") + "/")

    def open(self, path: str) -> int | None:
        """A read descriptor of the regular file `path`, or None: gone, reached through a symlink
        (swapped meanwhile), not below `base`, not a regular file, or over the size limit."""
        opened = self.open_or_why(path)
        return opened if isinstance(opened, int) else None

    def open_or_why(self, path: str) -> int | str:
        """A read descriptor of the regular file `path`, or why there is none: GONE, TOO_LARGE (it grew past
        the size limit) or CHANGED (it is no longer a regular file reached below `base` through no symlink)."""
        if not path.startswith(self.prefix):
            return CHANGED
        try:
            fd = sandbox.open_at(self.dir_fd, path[len(self.prefix) :], _OPEN_FLAGS)
        except FileNotFoundError:
            return GONE
        except OSError as exc:
            if exc.errno in _EXHAUSTED:
                raise
            return CHANGED
        except ValueError:
            return CHANGED
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > self.max_size:
            os.close(fd)
            return CHANGED if not stat.S_ISREG(st.st_mode) else TOO_LARGE
        return fd

    def stat(self, path: str) -> os.stat_result:
        """lstat of `path`, its directory reached below `base` through no symlink (OSError otherwise).

        Called once per file Grep found, while rg still searches: kept to a few C-level calls."""
        prefix = self.prefix
        if not path.startswith(prefix):
            raise OSError(errno.EXDEV, "not below the searched directory", path)
        head, _, name = path[len(prefix) :].rpartition("/")
        if name in _NOT_ENTRIES:
            raise OSError(errno.EXDEV, "not an entry below the searched directory", path)
        fd = self._parents.get(head) if head else self.dir_fd
        if fd is None:
            fd = self._parent(head)
        return os.stat(name, dir_fd=fd, follow_symlinks=False)

    def stat_many(self, paths: Sequence[str]) -> list[os.stat_result | None]:
        """`stat` of each of `paths` (None where it fails), in one loop: what Grep calls for a chunk
        of rg's output, with no call per file but the system call itself."""
        prefix, skip, parents, root_fd = self.prefix, len(self.prefix), self._parents, self.dir_fd
        lstat = os.stat
        found: list[os.stat_result | None] = []
        for path in paths:
            head, _, name = path[skip:].rpartition("/")
            if not path.startswith(prefix) or name in _NOT_ENTRIES:
                found.append(None)
                continue
            try:
                fd = root_fd if not head else parents.get(head)
                if fd is None:
                    fd = self._parent(head)
                found.append(lstat(name, dir_fd=fd, follow_symlinks=False))
            except (OSError, ValueError):
                found.append(None)
        return found

    def _parent(self, head: str) -> int:
        """The directory `head`, opened beneath `base`; the few most recently opened stay open."""
        fd = sandbox.open_at(self.dir_fd, head, sandbox.DIR_FLAGS)
        if len(self._parents) >= _PARENTS:
            os.close(self._parents.pop(next(iter(self._parents))))
        self._parents[head] = fd
        return fd

    def close(self) -> None:
        for fd in self._parents.values():
            os.close(fd)
        self._parents.clear()

    def line(self, path: str, number: int) -> str | None:
        """Line `number` (from 1) of the regular file `path` as the sandbox reads it; None if there is none."""
        fd = self.open(path)
        if fd is None:
            return None
        with open(fd, "rb") as f:
            lines = f.read().split(b"\n")
        return lines[number - 1].decode("utf-8", "replace") if 0 < number <= len(lines) else None

    def reaches(self, path: str) -> bool:
        """Whether `path` is, now, an entry below `base` (a link counts) in a directory reached through no symlink."""
        try:
            self.stat(path)
        except (OSError, ValueError):
            return False
        return True

    def names_reached(self, message: str) -> bool:
        """Whether rg's `message` about a path names one reached inside, now. The path may hold
        `: ` itself: it ends where one of rg's own endings follows (an error from the system, or
        a line of an ignore file), so an outside `a: b` does not pass for an inside `a`."""
        end = message.find(": ")
        while end >= 0:
            if _MESSAGE_END.match(message, end + 2) and self.reaches(message[:end]):
                return True
            end = message.find(": ", end + 1)
        return False

    def batches(self, paths: Sequence[str], missed: list[tuple[str, str]] | None = None) -> Iterator[FileArgs]:
        """`paths` opened a batch at a time (each closed by the caller once its run is over); the paths that
        could not be opened go to `missed`, with why (`open_or_why`)."""
        size = _batch_size()
        for start in range(0, len(paths), size):
            files = FileArgs([])
            try:
                for path in paths[start : start + size]:
                    fd = self.open_or_why(path)
                    if isinstance(fd, str):
                        if missed is not None:
                            missed.append((path, fd))
                    else:
                        name = f"/dev/fd/{fd}"
                        files.args.append(name)
                        files.fds.append(fd)
                        files.names[name] = path
            except BaseException:
                files.close()
                raise
            if files.args:
                yield files
            else:
                files.close()


def _batch_size() -> int:
    try:
        import resource  # lazily, and not on every system
    except ImportError:
        return _BATCH_FDS
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return _BATCH_FDS if soft == resource.RLIM_INFINITY else max(1, min(_BATCH_FDS, soft // 4))
