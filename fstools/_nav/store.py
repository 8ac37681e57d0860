"""Parsed names kept per file, so a warm Symbols or References call parses nothing.

Each file's `FileNames` is kept under its fingerprint, (mtime_ns, ctime_ns, size, inode):
in this process (the most recently used files) and on disk, one SQLite file per canonical
root in the cache directory (`symbols-v2/<root key>/names.sqlite`), so other processes and
later ones start warm. Each file's definitions are also kept apart from its uses, in memory
and in their own column: Symbols reads only those, and References' larger working set (every
use of a name in thousands of files) never evicts them. A stored entry answers only while
the file's fingerprint is the same, and only when it was recorded more than RACY_NS after the
file's last change:
a write in the same clock tick as the read that was parsed would keep size and times, so
such an entry is parsed again (git's rule for racily clean files). fstools' own writes
change every part of the fingerprint (a new inode); an external write changes the times.

The store is a cache: when its file cannot be opened, read or written (a read-only cache
directory, a locked or corrupt database, a link planted in its place), the calls parse and say
nothing, losing nothing.
"""

from __future__ import annotations

import marshal
import os
import sqlite3
import stat
import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

from .._core.cachedir import root_dir
from .._index.entries import Sig, sig_of
from .._syntax.names import FileNames

KIND = "symbols-v2"  # v2: each row also holds its definitions alone (`outline`), read by Symbols
DATABASE = "names.sqlite"
RACY_NS = 2_000_000_000
# Files kept parsed in this process. The byte bound holds memory; the count only caps the per-entry
# overhead. A name's candidates are read in path order each call, so a cap below a working set (five
# kernels: ~4,200 files for one name) would evict each file just before it is needed again.
MEMORY_FILES = 1 << 18
MEMORY_BYTES = 1024 * 1024 * 1024  # and the estimated size of what they hold (`weight`)
# The definitions of every file held, kept apart from its uses: References' working set (every use of a
# name in thousands of files) may outgrow MEMORY_BYTES, and must not evict what Symbols answers from.
# Five kernels: one name's 4,214 candidate files hold about 600 MB of definitions by `weight`.
OUTLINE_FILES = 1 << 20
OUTLINE_BYTES = 1024 * 1024 * 1024
# (mtime_ns, ctime_ns, size, inode in 63 bits): the search index's signature of a file, so the index's
# proof of its candidates answers for a stat of each (and the inode fits SQLite's integers).
Fingerprint = Sig
Held = tuple[Fingerprint, int, FileNames]  # the fingerprint parsed, when it was recorded, the names
_NAMES = itemgetter(2)


@dataclass
class _Tier:
    """Parsed files kept in this process, least recently used first, within a count and a byte bound."""

    files: int  # at most this many
    byte_bound: int  # and at most this many bytes by `weight` (one entry larger than that is kept alone)
    entries: OrderedDict[str, Held] = field(default_factory=OrderedDict)
    weights: dict[str, int] = field(default_factory=dict)
    held_bytes: int = 0
    # The fingerprint of each held entry that may answer (`_trusted`), so that a call whose every file is
    # fresh is checked by comparing two lists, in C: a warm Symbols call on five kernels asks for 4,214.
    answering: dict[str, Fingerprint] = field(default_factory=dict)

    def get_many(self, paths: dict[str, Fingerprint]) -> tuple[dict[str, FileNames], list[str]]:
        """The held names of those `paths` (path -> its fingerprint now) that are fresh, and the others
        in order; each found one becomes the most recently used."""
        entries, touch = self.entries, self.entries.move_to_end
        asked = list(paths)
        if self.answering.keys() >= paths.keys() and list(map(self.answering.__getitem__, asked)) == list(
            paths.values()
        ):
            deque(map(touch, asked), maxlen=0)
            return dict(zip(asked, map(_NAMES, map(entries.__getitem__, asked)), strict=True)), []
        found: dict[str, FileNames] = {}
        missing: list[str] = []
        for path, now in paths.items():
            held = entries.get(path)
            if held is None or held[0] != now or not _trusted(now, held[1]):
                missing.append(path)
            else:
                touch(path)
                found[path] = held[2]
        return found, missing

    def put(self, path: str, held: Held) -> None:
        self.held_bytes -= self.weights.pop(path, 0)
        size = weight(held[2])
        self.entries[path] = held
        self.entries.move_to_end(path)
        self.weights[path] = size
        self.held_bytes += size
        if _trusted(held[0], held[1]):
            self.answering[path] = held[0]
        else:
            self.answering.pop(path, None)
        while len(self.entries) > self.files or (self.held_bytes > self.byte_bound and len(self.entries) > 1):
            gone, _ = self.entries.popitem(last=False)
            self.held_bytes -= self.weights.pop(gone, 0)
            self.answering.pop(gone, None)

    def clear(self) -> None:
        self.entries.clear()
        self.weights.clear()
        self.answering.clear()
        self.held_bytes = 0


_lock = threading.Lock()
_memory = _Tier(MEMORY_FILES, MEMORY_BYTES)  # whole entries, with their uses (References)
_outlines = _Tier(OUTLINE_FILES, OUTLINE_BYTES)  # every held file's definitions alone (Symbols)
_databases: dict[str, sqlite3.Connection | None] = {}


def fingerprint(st: os.stat_result) -> Fingerprint:
    return sig_of(st)


def _trusted(found: Fingerprint, recorded_ns: int) -> bool:
    return recorded_ns - max(found[0], found[1]) > RACY_NS


def _own_place(directory: str) -> bool:
    """Whether the store's directories are this user's own and its files plain files: a link planted
    there would send the writes (and SQLite's tables) into some other file."""
    for path in (os.path.dirname(directory), directory):
        st = os.lstat(path)
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid():
            return False
    for name in (DATABASE, f"{DATABASE}-wal", f"{DATABASE}-shm"):
        try:
            st = os.lstat(os.path.join(directory, name))
        except FileNotFoundError:
            continue
        if not stat.S_ISREG(st.st_mode):
            return False
    return True


def _database(root: str) -> sqlite3.Connection | None:
    """The root's database, opened once per process (None when it cannot be)."""
    if root in _databases:
        return _databases[root]
    connection: sqlite3.Connection | None = None
    try:
        directory = root_dir(KIND, root)
        os.makedirs(directory, mode=0o700, exist_ok=True)
        if not _own_place(directory):
            _databases[root] = None
            return None
        connection = sqlite3.connect(os.path.join(directory, DATABASE), timeout=1.0, check_same_thread=False)
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=NORMAL")
        connection.execute(
            "CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, size INT, mtime INT, ctime INT, ino INT, "
            "recorded INT, data BLOB, outline BLOB)"
        )
        connection.commit()
    except (OSError, sqlite3.Error):
        connection = None
    _databases[root] = connection
    return connection


def lookup(root: str, paths: dict[str, Fingerprint], uses: bool = True) -> dict[str, FileNames]:
    """The stored names of those `paths` (path -> its fingerprint now) that are fresh (`uses`: and complete;
    else their definitions alone may answer)."""
    with _lock:
        found, missing = (_memory if uses else _outlines).get_many(paths)
        if missing:
            found.update(_from_disk(root, {path: paths[path] for path in missing}, uses))
            found = {path: found[path] for path in paths if path in found}  # in the order asked
    return found


def _from_disk(root: str, paths: dict[str, Fingerprint], uses: bool) -> dict[str, FileNames]:
    connection = _database(root)
    if connection is None:
        return {}
    found: dict[str, FileNames] = {}
    column = "data" if uses else "COALESCE(outline, data)"  # no outline: the data is the definitions alone
    try:
        listed = list(paths)
        for at in range(0, len(listed), 500):
            chunk = listed[at : at + 500]
            rows = connection.execute(
                f"SELECT path, size, mtime, ctime, ino, recorded, {column} FROM files "
                f"WHERE path IN ({','.join('?' * len(chunk))})",
                chunk,
            ).fetchall()
            for path, size, mtime, ctime, ino, recorded, data in rows:
                stored = (mtime, ctime, size, ino)
                if stored != paths[path] or type(recorded) is not int or not _trusted(stored, recorded):
                    continue
                names = FileNames.from_data(_loads(data))
                if names is not None and (names.complete or not uses):
                    found[path] = names
                    _remember(path, (stored, recorded, names))
    except sqlite3.Error:
        return found
    return found


def _loads(data: bytes) -> Any:
    try:
        return marshal.loads(data)
    except (ValueError, EOFError, TypeError):
        return None


def weight(names: FileNames) -> int:
    """About the bytes a FileNames takes in memory: each name's packed places and their entry, a record per
    definition (within 10% of tracemalloc's count for a FileNames loaded from the store, on CPython's
    argparse.py and a generated 7 MB Python file)."""
    return 1024 + sum(120 + len(packed) for packed in names.names.values()) + 600 * len(names.rows)


def _remember(path: str, held: Held) -> None:
    """Keep `held` in this process: whole when it has the uses, and its definitions apart."""
    stamp, recorded, names = held
    if names.complete:
        _memory.put(path, held)
    kept = _outlines.entries.get(path)
    if kept is not None and kept[:2] == held[:2]:
        _outlines.entries.move_to_end(path)  # the same parse's definitions, held already (with their lookups)
        return
    _outlines.put(path, (stamp, recorded, names.outline()))


def store(root: str, parsed: list[tuple[str, Fingerprint, int, FileNames]]) -> None:
    """Keep what a call parsed: (path, fingerprint read, time before the read, names)."""
    if not parsed:
        return
    with _lock:
        for path, stamp, recorded, names in parsed:
            _remember(path, (stamp, recorded, names))
        connection = _database(root)
        if connection is None:
            return
        try:
            with connection:
                connection.executemany(
                    "INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        (path, size, mtime, ctime, ino, recorded, marshal.dumps(names.as_data()), _outline_data(names))
                        for path, (mtime, ctime, size, ino), recorded, names in parsed
                    ],
                )
        except sqlite3.Error:
            pass


def _outline_data(names: FileNames) -> bytes | None:
    return marshal.dumps(names.outline().as_data()) if names.complete else None


def now_ns() -> int:
    return time.time_ns()


def forget() -> None:
    """Drop what this process holds (the tests' way to start cold; the disk keeps its entries)."""
    with _lock:
        _memory.clear()
        _outlines.clear()
        for connection in _databases.values():
            if connection is not None:
                connection.close()
        _databases.clear()
