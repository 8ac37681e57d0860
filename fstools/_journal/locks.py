"""Changes of one path, one after the other: from the moment a tool loads a file to the moment its
change lands, no other fstools change of that path runs, in this process (threads, asyncio tasks
run in threads) or in another one.

Within the process a lock per path; between processes an flock on one of a fixed set of lock
files in the cache directory, chosen by a hash of the path (two paths may share one: they then
wait for each other, which is harmless). Several paths are taken in one sorted order, so two
calls that both need the same two paths cannot deadlock. A thread that already holds a path
(an undo that runs an edit's own commit) takes it again without waiting.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import os
import stat
import threading
import time
from collections.abc import Iterable, Iterator

from .._core.cachedir import cache_dir

STRIPES = 256
_FILE = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class PathBusy(Exception):
    """Another change of the path did not finish within the timeout."""


class _Stripe:
    def __init__(self) -> None:
        self.mutex = threading.RLock()
        self.depth = 0
        self.fd: int | None = None


_stripes = [_Stripe() for _ in range(STRIPES)]


def _stripe_of(path: str) -> int:
    return int.from_bytes(hashlib.blake2b(os.fsencode(path), digest_size=4).digest(), "big") % STRIPES


def _lock_file(n: int) -> int | None:
    """The lock file of stripe `n`, or None when the cache cannot hold one (then threads are still serialised).

    Reached from the cache directory through descriptors, never following a link: a link or a
    directory planted where a lock file or `.locks` should be is renamed aside and replaced, so
    the lock between processes holds. When `journal-v1` itself is not a directory (a link: the
    journal refuses it too), the lock files live beside it in `.journal-v1-locks`, which every
    process sharing that cache then uses alike."""
    try:
        top = _cache_fd()
        try:
            holder = _open_dir(top, "journal-v1")
            if holder is None:
                locks = _repaired(top, ".journal-v1-locks", directory=True)
            else:
                try:
                    locks = _repaired(holder, ".locks", directory=True)
                finally:
                    os.close(holder)
        finally:
            os.close(top)
        try:
            return _repaired(locks, f"{n:03d}", directory=False)
        finally:
            os.close(locks)
    except OSError:
        return None


def _cache_fd() -> int:
    directory = cache_dir()
    try:
        return os.open(directory, _DIR & ~os.O_NOFOLLOW)  # the cache itself may be a link the user made
    except FileNotFoundError:
        os.makedirs(directory, mode=0o700, exist_ok=True)
        return os.open(directory, _DIR & ~os.O_NOFOLLOW)


def _open_dir(dir_fd: int, name: str) -> int | None:
    """The directory `name` (created), or None when something else is there."""
    for _ in range(2):
        try:
            return os.open(name, _DIR, dir_fd=dir_fd)
        except FileNotFoundError:
            with contextlib.suppress(FileExistsError):
                os.mkdir(name, 0o700, dir_fd=dir_fd)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                return None
            raise
    return os.open(name, _DIR, dir_fd=dir_fd)


def _repaired(dir_fd: int, name: str, *, directory: bool) -> int:
    """Open `name` in `dir_fd` as a directory or a regular file (created when absent); anything else
    there (a link, a FIFO, a directory instead of a file) is renamed aside first, never followed."""
    for _ in range(3):
        try:
            fd = os.open(name, _DIR, dir_fd=dir_fd) if directory else _open_file(dir_fd, name)
        except FileNotFoundError:
            if directory:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, 0o700, dir_fd=dir_fd)
            continue
        except OSError as exc:
            if exc.errno not in (errno.ELOOP, errno.ENOTDIR, errno.EISDIR, errno.ENXIO):
                raise
        else:
            if directory or stat.S_ISREG(os.fstat(fd).st_mode):
                return fd
            os.close(fd)
        with contextlib.suppress(FileNotFoundError):
            os.rename(name, f".{name}.{os.urandom(4).hex()}.planted", src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    raise OSError(errno.EAGAIN, f"{name} kept changing in the lock directory")


def _open_file(dir_fd: int, name: str) -> int:
    st = None
    with contextlib.suppress(FileNotFoundError):
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise OSError(errno.ENXIO, "not a regular file")  # a FIFO or a device is never opened
    return os.open(name, _FILE | os.O_NONBLOCK, 0o600, dir_fd=dir_fd)


def _flock(fd: int, deadline: float) -> None:
    delay = 0.0005
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except OSError as exc:
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                return  # a filesystem without flock: threads are still serialised
            if time.monotonic() >= deadline:
                raise PathBusy from None
            time.sleep(delay)
            delay = min(delay * 2, 0.02)


def _acquire(stripe: _Stripe, n: int, deadline: float) -> None:
    if not stripe.mutex.acquire(timeout=max(0.0, deadline - time.monotonic())):
        raise PathBusy
    try:
        if stripe.depth == 0:
            fd = _lock_file(n)
            if fd is not None:
                try:
                    _flock(fd, deadline)
                except BaseException:
                    os.close(fd)
                    raise
            stripe.fd = fd
        stripe.depth += 1
    except BaseException:
        stripe.mutex.release()
        raise


def _release(stripe: _Stripe) -> None:
    stripe.depth -= 1
    if stripe.depth == 0 and stripe.fd is not None:
        os.close(stripe.fd)
        stripe.fd = None
    stripe.mutex.release()


@contextlib.contextmanager
def serialized(paths: Iterable[str], timeout: float) -> Iterator[None]:
    """Hold the change locks of `paths` (canonical) until the block ends; PathBusy after `timeout` seconds."""
    numbers = sorted({_stripe_of(p) for p in paths})
    deadline = time.monotonic() + timeout
    held: list[_Stripe] = []
    try:
        for n in numbers:
            _acquire(_stripes[n], n, deadline)
            held.append(_stripes[n])
        yield
    finally:
        for stripe in reversed(held):
            _release(stripe)
