"""Where a root's index lives, which file is current, and the builders' lock.

In the cache directory (`_core/cachedir`: `$FSTOOLS_CACHE_DIR`, else `$XDG_CACHE_HOME/fstools`,
else `~/.cache/fstools`), one directory per canonical root, named by a hash of the root's path. In it:
`root` (the path, to tell hash collisions apart), `current` (the name of the live data
file, replaced atomically), `lock` (held by a builder) and the data files. A reader
follows `current` and maps the file it names; a builder writes a new data file, fsyncs
it and swaps `current`, so a reader sees the old index or the new one, never a mix.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import time
from collections.abc import Iterator

from .._core.cachedir import root_dir

DIR_VERSION = "index-v1"


def index_dir(root: str) -> str:
    return root_dir(DIR_VERSION, root)


def inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def current_file(root: str) -> str | None:
    """The data file `current` names for this root, or None when there is no index."""
    directory = index_dir(root)
    try:
        with open(os.path.join(directory, "root"), encoding="utf-8", errors="surrogateescape") as f:
            if f.read() != root:
                return None
        with open(os.path.join(directory, "current"), encoding="utf-8") as f:
            name = f.read().strip()
    except OSError:
        return None
    if not name or "/" in name:
        return None
    return os.path.join(directory, name)


def _fsync_dir(directory: str) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(path: str, data: bytes) -> None:
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def publish(root: str, data_file: str) -> None:
    """Make `data_file` (already fsynced, in the root's directory) the current index; drop older ones."""
    directory = index_dir(root)
    write_atomic(os.path.join(directory, "root"), os.fsencode(root))
    write_atomic(os.path.join(directory, "current"), os.path.basename(data_file).encode())
    _fsync_dir(directory)
    keep = os.path.basename(data_file)
    for name in os.listdir(directory):
        if name.startswith("data-") and name != keep:
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(directory, name))


def drop(root: str) -> bool:
    """Remove the root's index; True when there was one."""
    directory = index_dir(root)
    if not os.path.isdir(directory):
        return False
    with builder_lock(root, timeout=30.0):
        for name in os.listdir(directory):
            if name != "lock":
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(directory, name))
    return True


class LockBusy(Exception):
    """Another builder holds the root's lock."""


@contextlib.contextmanager
def builder_lock(root: str, *, timeout: float) -> Iterator[str]:
    """Hold the root's builder lock (an flock, released by the kernel if the holder dies)."""
    directory = index_dir(root)
    os.makedirs(directory, mode=0o700, exist_ok=True)
    fd = os.open(os.path.join(directory, "lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN) or time.monotonic() >= deadline:
                    raise LockBusy(f"another process is building the index of {root}") from None
                time.sleep(0.05)
        yield directory
    finally:
        os.close(fd)


def covering_root(path: str) -> tuple[str, str] | None:
    """(root, data file) of the nearest index at `path` or above it; None when none covers it."""
    directory = path
    while True:
        data = current_file(directory)
        if data is not None:
            return directory, data
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent
