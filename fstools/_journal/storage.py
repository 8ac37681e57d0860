"""Where a root's journal is kept: the seam between the journal and its storage.

A journal is two things: its log (JSON records appended under the writers' lock, read back as a
`Log`, rewritten whole by the bound) and its blobs (each content before a change, stored once
under its SHA-256 and checked against it when read). `JournalStorage` is what the recorder, the
bound and the tools that take changes back ask of it, and nothing more.

The one implementation is `store.Journal`: a directory per root in the cache, a log file, a
blob directory, an flock between processes. The second one the seam is for is a journal kept
off the machine (the log in a database, the blobs in an object store), for work that moves
between machines; it implements these methods and is plugged in with `opening.use_storage`, as an
HTTP client takes its transport.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from .entries import Entry, Log


@dataclass
class Usage:
    """What the bound has counted of a journal's blobs: their bytes, which blobs, up to which entry,
    and the log's first kept entry when the count began (another process's bound moves it)."""

    total: int = 0
    counted: set[str] = field(default_factory=set)
    upto: int = 0
    since: int = 0

    def stale(self, log: Log) -> bool:
        """Whether the log no longer is the one counted (entries dropped since, by any process)."""
        return self.upto > (log.entries[-1].seq if log.entries else 0) or self.since != log.first_kept

    def count(self, seq: int, blobs: dict[str, int]) -> None:
        """Count the entry `seq`, which keeps `blobs` (digest -> size): each blob once."""
        for digest, size in blobs.items():
            if digest not in self.counted:
                self.counted.add(digest)
                self.total += size
        self.upto = seq


class JournalStorage(Protocol):
    """One root's journal as it is stored: the log and the blobs."""

    root: str  # the canonical root whose changes it records
    nonce: str  # the journal's own random name: a checkpoint of a journal that was removed is no checkpoint here

    # The log --------------------------------------------------------------------------
    def locked(self, timeout: float = 30.0) -> contextlib.AbstractContextManager[Log]:
        """Hold the writers' lock (threads and processes) and give the log, read up to date."""
        ...

    def read(self) -> Log:
        """The log as it is stored now; `store.Unavailable` when it cannot be read (damaged)."""
        ...

    def append(self, *records: dict[str, Any]) -> None:
        """Append records to the log (the caller holds the lock)."""
        ...

    def rewrite(self, records: list[dict[str, Any]]) -> None:
        """Replace the whole log by `records`, atomically (the caller holds the lock)."""
        ...

    def entry(self, seq: int) -> Entry | None: ...

    # The blobs ------------------------------------------------------------------------
    def has_blob(self, digest: str) -> bool: ...

    def link_blob(self, digest: str, dir_fd: int, name: str, st: os.stat_result) -> bool:
        """Keep the file `name` of `dir_fd` (it must be `st`) as the blob `digest` without copying it;
        False when this storage cannot (the caller then copies)."""
        ...

    def copy_blob(self, digest: str, data: bytes | None = None, src_fd: int | None = None) -> None:
        """Store `data` (or the open file `src_fd`) as the blob `digest`."""
        ...

    def read_blob(self, digest: str) -> bytes | None:
        """The blob's bytes, provided they still hash to its name (None: missing or damaged)."""
        ...

    def blob_names(self) -> list[str]: ...

    def remove_blob(self, name: str) -> None: ...

    def pinning(self, digests: Iterable[str]) -> contextlib.AbstractContextManager[None]:
        """Keep these blobs while the block runs, even if the bound drops the entries naming them."""
        ...

    def is_pinned(self, digest: str) -> bool:
        """Whether an undo or a rewind in flight in this process still reads the blob."""
        ...

    # The bound's count ----------------------------------------------------------------
    def usage(self, first_kept: int) -> Usage:
        """The bound's count of this journal's blobs, kept with the journal between calls (begun
        anew, from the log's `first_kept` entry, when there is none)."""
        ...

    def forget_usage(self) -> None:
        """Start the count anew (the bound just dropped entries and blobs)."""
        ...
