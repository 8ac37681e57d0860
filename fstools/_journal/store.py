"""A root's journal on disk: its directory in the cache, the log, the blobs, the writers' lock, the bound.

`<cache>/journal-v1/<hash of the root>/` holds `version` (format and the journal's own random
name, so a checkpoint of a journal that was removed is never taken for one of its successor),
`root` (the canonical root), `lock` (an flock every writer holds while it appends or drops
entries), `log` (JSON lines, appended) and `blobs/` (contents before a change, each stored
once under its SHA-256). Everything is opened relative to the journal directory's descriptor
with O_NOFOLLOW: a symlink planted there makes the journal unusable, never a way out.

A blob is complete or absent: a copy is written under a temporary name and renamed, a hard
link is atomic. Its bytes are checked against its name before they are restored.
"""

from __future__ import annotations

import collections
import contextlib
import errno
import fcntl
import hashlib
import os
import stat
import threading
import time
from collections.abc import Iterable, Iterator
from typing import Any

import orjson

from .._core.cachedir import cache_dir, root_dir
from .entries import Entry, Log
from .storage import Usage

DIR_KIND = "journal-v1"
FORMAT = "fstools-journal 1"
DEFAULT_MAX_BYTES = 1 << 30
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE = os.O_NOFOLLOW | os.O_CLOEXEC
_DISK_FULL = (errno.ENOSPC, errno.EDQUOT)
_LINK_REFUSED = (errno.EXDEV, errno.EPERM, errno.EMLINK, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EACCES)
FICLONE = 0x40049409


class Unavailable(Exception):
    """The journal cannot be used: the reason, in words for the result's metadata."""


def max_bytes() -> int:
    raw = os.environ.get("FSTOOLS_JOURNAL_MAX_BYTES", "")
    try:
        return max(0, int(raw)) if raw.strip() else DEFAULT_MAX_BYTES
    except ValueError:
        return DEFAULT_MAX_BYTES


def disk_full(exc: BaseException) -> bool:
    return isinstance(exc, OSError) and exc.errno in _DISK_FULL


def _open_dir(name: str, dir_fd: int | None, *, create: bool) -> int:
    try:
        try:
            return os.open(name, _DIR, dir_fd=dir_fd)
        except FileNotFoundError:
            if not create:
                raise
        with contextlib.suppress(FileExistsError):
            os.mkdir(name, 0o700, dir_fd=dir_fd)
        return os.open(name, _DIR, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise Unavailable(f"{name} in the journal's directory is not a directory (a symbolic link?)") from None
        raise


class NotRegular(Unavailable):
    """A name in the journal that should be a regular file is something else (a FIFO, a device, a directory)."""


def open_regular(name: str, flags: int, dir_fd: int, mode: int = 0o600) -> int:
    """Open the regular file `name` of `dir_fd`, never blocking: anything else there (a FIFO, whose open
    and read would wait for a writer forever, a device, a directory) is refused before it is opened,
    and again after (it may have been swapped in between). FileNotFoundError when it is absent."""
    try:
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        if not flags & os.O_CREAT:
            raise
    else:
        if not stat.S_ISREG(st.st_mode):
            raise NotRegular(f"{name} in the journal's directory is not a regular file")
    try:
        fd = os.open(name, flags | os.O_NONBLOCK | _FILE, mode, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENXIO, errno.EISDIR):
            raise NotRegular(f"{name} in the journal's directory is not a regular file") from None
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise NotRegular(f"{name} in the journal's directory is not a regular file")
    return fd


def _read_small(dir_fd: int, name: str) -> bytes | None:
    try:
        fd = open_regular(name, os.O_RDONLY, dir_fd)
    except FileNotFoundError:
        return None
    try:
        return os.read(fd, 65536)
    finally:
        os.close(fd)


def _write_new(dir_fd: int, name: str, data: bytes) -> None:
    """Create `name` holding `data`, atomically (temp file, rename); an existing one is kept."""
    tmp = f".{name}.{os.urandom(4).hex()}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _FILE, 0o600, dir_fd=dir_fd)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)
    try:
        os.link(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except FileExistsError:
        pass
    finally:
        os.unlink(tmp, dir_fd=dir_fd)


class Journal:
    """One root's journal in its directory in the cache, open in this process (shared by every context on
    that root): the `JournalStorage` fstools uses unless another is plugged in."""

    def __init__(self, root: str, directory: str, dir_fd: int, blobs_fd: int, nonce: str) -> None:
        self.root = root
        self.directory = directory
        self.dir_fd = dir_fd
        self.blobs_fd = blobs_fd
        self.nonce = nonce
        self.dev = os.fstat(dir_fd).st_dev
        self._mutex = threading.RLock()  # threads of this process, before the flock between processes
        self._log = Log()
        self._log_id: tuple[int, int] | None = None  # (inode, bytes parsed) of the log file read so far
        self._lock_depth = 0
        self._lock_fd: int | None = None
        self._usage: Usage | None = None  # what the bound has counted
        # Blobs an undo or a rewind in flight in this process still reads: the bound leaves them in place.
        self.pinned: collections.Counter[str] = collections.Counter()

    # The writers' lock ----------------------------------------------------------------
    @contextlib.contextmanager
    def locked(self, timeout: float = 30.0) -> Iterator[Log]:
        """Hold the journal's lock (threads and processes) and yield the log, read up to date."""
        if not self._mutex.acquire(timeout=timeout):
            raise TimeoutError("the journal is busy")
        try:
            if self._lock_depth == 0:
                self._flock(timeout)
            self._lock_depth += 1
            try:
                yield self.read()
            finally:
                self._lock_depth -= 1
                if self._lock_depth == 0 and self._lock_fd is not None:
                    os.close(self._lock_fd)  # closing releases the flock
                    self._lock_fd = None
        finally:
            self._mutex.release()

    def _flock(self, timeout: float) -> None:
        fd = open_regular("lock", os.O_RDWR | os.O_CREAT, self.dir_fd)
        deadline, delay = time.monotonic() + timeout, 0.0005
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    raise TimeoutError("another process holds the journal's lock") from None
                time.sleep(delay)
                delay = min(delay * 2, 0.02)
        self._lock_fd = fd

    # The log --------------------------------------------------------------------------
    def read(self) -> Log:
        """The log as it is on disk now (only the lines appended since the last read are parsed)."""
        with self._mutex:
            try:
                fd = open_regular("log", os.O_RDONLY, self.dir_fd)
            except FileNotFoundError:
                self._log, self._log_id = Log(), None
                return self._log
            try:
                st = os.fstat(fd)
                if self._log_id is None or self._log_id[0] != st.st_ino or st.st_size < self._log_id[1]:
                    self._log, self._log_id = Log(), (st.st_ino, 0)
                offset = self._log_id[1]
                if st.st_size > offset:
                    data = os.pread(fd, st.st_size - offset, offset)
                    end = data.rfind(b"\n") + 1  # a line still being written (or torn by a crash) waits
                    self._parse(data[:end], offset)
                    self._log_id = (st.st_ino, offset + end)
            finally:
                os.close(fd)
            return self._log

    def _parse(self, data: bytes, offset: int) -> None:
        for n, line in enumerate(data.split(b"\n")):
            if not line.strip():
                continue
            try:
                self._log.add_line(orjson.loads(line))
            except (orjson.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
                if data.endswith(b"\n") and n == data.count(b"\n") - 1:
                    continue
                raise Unavailable(
                    f"the journal's log is damaged near byte {offset} ({exc}); remove {self.directory} to start anew"
                ) from None

    def append(self, *records: dict[str, Any]) -> None:
        """Append records to the log (the caller holds the lock); a torn last line is closed first."""
        payload = b"".join(orjson.dumps(r) + b"\n" for r in records)
        fd = open_regular("log", os.O_RDWR | os.O_APPEND | os.O_CREAT, self.dir_fd)
        try:
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                payload = b"\n" + payload
            os.write(fd, payload)
        finally:
            os.close(fd)

    def rewrite(self, records: list[dict[str, Any]]) -> None:
        """Replace the log by `records` atomically (the caller holds the lock)."""
        tmp = f".log.{os.urandom(4).hex()}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _FILE, 0o600, dir_fd=self.dir_fd)
        try:
            os.write(fd, b"".join(orjson.dumps(r) + b"\n" for r in records))
            os.fsync(fd)
        except BaseException:
            os.close(fd)
            os.unlink(tmp, dir_fd=self.dir_fd)
            raise
        os.close(fd)
        os.rename(tmp, "log", src_dir_fd=self.dir_fd, dst_dir_fd=self.dir_fd)
        self._log_id = None

    # Blobs ----------------------------------------------------------------------------
    def has_blob(self, digest: str) -> bool:
        """Whether the blob is there (a regular file: anything else in its place is no blob)."""
        try:
            st = os.stat(digest, dir_fd=self.blobs_fd, follow_symlinks=False)
        except FileNotFoundError:
            return False
        return stat.S_ISREG(st.st_mode)

    def link_blob(self, digest: str, dir_fd: int, name: str, st: os.stat_result) -> bool:
        """Keep the inode `name` in `dir_fd` (it must be `st`) as the blob `digest`, by a hard link:
        no byte copied. False when the filesystem or the kernel refuses (the caller copies)."""
        if st.st_dev != self.dev:
            return False
        if not self.has_blob(digest):  # something else in the blob's place (a FIFO?) goes first
            with contextlib.suppress(FileNotFoundError, IsADirectoryError):
                os.unlink(digest, dir_fd=self.blobs_fd)
        try:
            os.link(name, digest, src_dir_fd=dir_fd, dst_dir_fd=self.blobs_fd, follow_symlinks=False)
        except FileExistsError:
            if self._same_inode(digest, st) or self._intact(digest):
                return True
            tmp = f".tmp-{os.urandom(6).hex()}"  # a damaged blob is replaced by this inode, atomically
            try:
                os.link(name, tmp, src_dir_fd=dir_fd, dst_dir_fd=self.blobs_fd, follow_symlinks=False)
                os.rename(tmp, digest, src_dir_fd=self.blobs_fd, dst_dir_fd=self.blobs_fd)
            except OSError as exc:
                with contextlib.suppress(OSError):
                    os.unlink(tmp, dir_fd=self.blobs_fd)
                if exc.errno in _LINK_REFUSED:
                    return False
                raise
        except OSError as exc:
            if exc.errno in _LINK_REFUSED:
                return False
            raise
        now = os.stat(digest, dir_fd=self.blobs_fd, follow_symlinks=False)
        if (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):  # the name was swapped meanwhile
            os.unlink(digest, dir_fd=self.blobs_fd)
            return False
        return True

    def copy_blob(self, digest: str, data: bytes | None = None, src_fd: int | None = None) -> None:
        """Store `data` (or the file `src_fd`: a reflink where the filesystem shares blocks) as the blob `digest`."""
        if self._intact(digest):
            return
        tmp = f".tmp-{os.urandom(6).hex()}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _FILE, 0o600, dir_fd=self.blobs_fd)
        try:
            if data is not None:
                _write_all(fd, data)
            else:
                assert src_fd is not None
                _clone_or_copy(src_fd, fd)
            os.rename(tmp, digest, src_dir_fd=self.blobs_fd, dst_dir_fd=self.blobs_fd)
        except BaseException:
            os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=self.blobs_fd)
            raise
        os.close(fd)

    def _same_inode(self, digest: str, st: os.stat_result) -> bool:
        try:
            there = os.stat(digest, dir_fd=self.blobs_fd, follow_symlinks=False)
        except FileNotFoundError:
            return False
        return (there.st_dev, there.st_ino) == (st.st_dev, st.st_ino)

    def _intact(self, digest: str) -> bool:
        """Whether the blob `digest` can be kept as it is: it holds its content, and no file shares its inode.

        A change cut short between keeping a file by a hard link and renaming the new version over
        it leaves the file and the blob one inode; a write in place (another program's, or ours, as
        for any file with two links) would then change the kept content. Such a blob, or a damaged
        one, is stored anew rather than reused.
        """
        try:
            fd = os.open(digest, os.O_RDONLY | _FILE, dir_fd=self.blobs_fd)
        except FileNotFoundError:
            return False
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
                return False
            hasher, offset = hashlib.sha256(), 0
            while chunk := os.pread(fd, 1 << 20, offset):
                hasher.update(chunk)
                offset += len(chunk)
        finally:
            os.close(fd)
        return hasher.hexdigest() == digest

    def read_blob(self, digest: str) -> bytes | None:
        """The blob's bytes, provided they still hash to its name (None: missing or damaged)."""
        try:
            fd = open_regular(digest, os.O_RDONLY, self.blobs_fd)
        except (OSError, NotRegular):
            return None
        try:
            chunks, offset = [], 0
            while chunk := os.pread(fd, 1 << 20, offset):
                chunks.append(chunk)
                offset += len(chunk)
        finally:
            os.close(fd)
        data = b"".join(chunks)
        return data if hashlib.sha256(data).hexdigest() == digest else None

    def blob_size(self, digest: str) -> int:
        try:
            return os.stat(digest, dir_fd=self.blobs_fd, follow_symlinks=False).st_size
        except FileNotFoundError:
            return 0

    def blob_age(self, digest: str) -> float:
        """Seconds since the blob was stored (its inode last changed: a link or a rename counts)."""
        try:
            return time.time() - os.stat(digest, dir_fd=self.blobs_fd, follow_symlinks=False).st_ctime
        except FileNotFoundError:
            return float("inf")

    @contextlib.contextmanager
    def pinning(self, digests: Iterable[str]) -> Iterator[None]:
        """Keep these blobs in place while the block runs, even if the bound drops the entries naming them
        (a rewind's own entries may set the bound off before it has read the older contents it restores)."""
        held = collections.Counter(d for d in digests if d)
        with self._mutex:
            self.pinned.update(held)
        try:
            yield
        finally:
            with self._mutex:
                self.pinned.subtract(held)
                self.pinned = +self.pinned

    def is_pinned(self, digest: str) -> bool:
        return bool(self.pinned[digest])

    def usage(self, first_kept: int) -> Usage:
        if self._usage is None:
            self._usage = Usage(since=first_kept)
        return self._usage

    def forget_usage(self) -> None:
        self._usage = None

    def blob_names(self) -> list[str]:
        return [n for n in os.listdir(self.blobs_fd) if not n.startswith(".")]

    def remove_blob(self, name: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name, dir_fd=self.blobs_fd)

    def entry(self, seq: int) -> Entry | None:
        return self.read().by_seq.get(seq)


# Why a zero-copy copy may be refused: another filesystem (EXDEV), a kind of file or filesystem
# that cannot (EINVAL, ENOTSUP, EOPNOTSUPP, ENOSYS), a sandbox or a kernel that forbids it (EPERM,
# EBADF on some FUSE and overlay mounts). A full disk is no reason to try another way.
_COPY_REFUSED = (
    errno.EXDEV,
    errno.EINVAL,
    errno.ENOTSUP,
    errno.EOPNOTSUPP,
    errno.ENOSYS,
    errno.EPERM,
    errno.EBADF,
    errno.ETXTBSY,
)


def _clone_or_copy(src: int, dst: int) -> None:
    """Copy the file `src` into the empty file `dst`: a reflink, else copy_file_range, else read and write."""
    try:
        fcntl.ioctl(dst, FICLONE, src)
        return
    except OSError:
        pass
    try:
        offset = 0
        while n := os.copy_file_range(src, dst, 1 << 30, offset):
            offset += n
        return
    except OSError as exc:
        if exc.errno not in _COPY_REFUSED:
            raise
    os.ftruncate(dst, 0)  # whatever copy_file_range wrote before it gave up goes: start again
    os.lseek(dst, 0, os.SEEK_SET)
    offset = 0
    while chunk := os.pread(src, 1 << 20, offset):
        _write_all(dst, chunk)
        offset += len(chunk)


def _write_all(fd: int, data: bytes) -> None:
    view, done = memoryview(data), 0
    while done < len(view):
        done += os.write(fd, view[done:])


# Opening ------------------------------------------------------------------------------
_open: dict[tuple[str, str], Journal] = {}
_open_lock = threading.Lock()


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def journal_for(root: str) -> Journal:
    """The journal of the canonical `root`, created on first use; Unavailable says why it cannot be used."""
    directory = root_dir(DIR_KIND, root)
    key = (directory, root)
    with _open_lock:
        found = _open.get(key)
        if found is not None and _still_there(found):
            return found
        journal = _open_journal(root, directory)
        _open[key] = journal
        return journal


def _still_there(journal: Journal) -> bool:
    try:
        st = os.stat(journal.directory, follow_symlinks=False)
    except OSError:
        return False
    own = os.fstat(journal.dir_fd)
    return (st.st_dev, st.st_ino) == (own.st_dev, own.st_ino) and stat.S_ISDIR(st.st_mode)


def _open_journal(root: str, directory: str) -> Journal:
    cache = os.path.realpath(cache_dir())
    if _inside(cache, root) and not any(p.startswith(".") for p in cache[len(root) :].split("/")):
        raise Unavailable(f"the cache directory {cache} lies inside {root}: set FSTOOLS_CACHE_DIR elsewhere")
    try:
        if not os.path.isdir(cache):
            os.makedirs(cache, mode=0o700, exist_ok=True)
        top = os.open(cache, _DIR & ~os.O_NOFOLLOW)
        try:
            kind_fd = _open_dir(DIR_KIND, top, create=True)
        finally:
            os.close(top)
        try:
            dir_fd = _open_dir(os.path.basename(directory), kind_fd, create=True)
        finally:
            os.close(kind_fd)
    except OSError as exc:
        raise Unavailable(f"cannot open the journal directory {directory}: {exc.strerror or exc}") from None
    try:
        nonce = _check_identity(dir_fd, root, directory)
        blobs_fd = _open_dir("blobs", dir_fd, create=True)
    except (OSError, Unavailable) as exc:
        os.close(dir_fd)
        if isinstance(exc, Unavailable):
            raise
        raise Unavailable(f"cannot use the journal directory {directory}: {exc.strerror or exc}") from None
    return Journal(root, directory, dir_fd, blobs_fd, nonce)


def _check_identity(dir_fd: int, root: str, directory: str) -> str:
    """The journal's nonce, after checking its format and root (writing both for a new journal)."""
    version = _read_small(dir_fd, "version")
    if version is None:
        _write_new(dir_fd, "root", os.fsencode(root))
        _write_new(dir_fd, "version", f"{FORMAT} {os.urandom(6).hex()}\n".encode())
        version = _read_small(dir_fd, "version") or b""
    words = version.decode("ascii", "replace").split()
    if len(words) != 3 or " ".join(words[:2]) != FORMAT:
        raise Unavailable(f"the journal at {directory} was written by another version of fstools ({version[:40]!r})")
    if _read_small(dir_fd, "root") != os.fsencode(root):
        raise Unavailable(f"the journal directory {directory} belongs to another root")
    return words[2]


def forget_open() -> None:
    """Close every journal this process holds open (tests, and after a fork)."""
    with _open_lock:
        for journal in _open.values():
            for fd in (journal.dir_fd, journal.blobs_fd):
                with contextlib.suppress(OSError):
                    os.close(fd)
        _open.clear()
