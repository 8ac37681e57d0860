"""What read-before-write remembers of a file, and the check that it has not changed since.

A change means different content: a bare mtime touch (an IDE saving identical bytes) is
not a conflict, so the record keeps a content digest next to the stat fields.
"""

from __future__ import annotations

import hashlib
import os

from .._core.context import ExecutionContext, ReadRecord
from .spliced import Spliced, pieces_of

# Hashing runs at ~1 GB/s; past this size a read records stat fields only.
DIGEST_LIMIT = 64 * 1024 * 1024


def content_hasher() -> hashlib._Hash:
    """A fresh content hash, for callers that feed a file in pieces; its digest equals content_digest(whole)."""
    return hashlib.sha256()


def content_digest(data: bytes | memoryview | Spliced) -> bytes:
    hasher = content_hasher()
    for piece in pieces_of(data):
        hasher.update(piece)
    return hasher.digest()


def fingerprint(st: os.stat_result, data: bytes | memoryview | Spliced | None) -> ReadRecord:
    """A ReadRecord for a file whose stat is `st` and whose whole content is `data`.

    Pass `data=None` (or a file over DIGEST_LIMIT) to record the stat fields only.
    """
    digest = content_digest(data) if data is not None and st.st_size <= DIGEST_LIMIT else None
    return ReadRecord.from_stat(st, digest)


def remember(ctx: ExecutionContext, path: str, st: os.stat_result, data: bytes | memoryview | None) -> None:
    """Record that `ctx` has seen `path` as `data` (after a read, or after its own write)."""
    ctx.record_read(path, fingerprint(st, data))


def remember_digest(ctx: ExecutionContext, path: str, st: os.stat_result, digest: bytes | None) -> None:
    """Like remember(), for a caller that hashed the content itself (Read hashes while it scans, and caches it)."""
    ctx.record_read(path, ReadRecord.from_stat(st, digest if st.st_size <= DIGEST_LIMIT else None))


def unchanged_since(record: ReadRecord, st: os.stat_result, data: bytes | memoryview | None) -> bool:
    """Whether the file now (stat `st`, content `data`) is what `record` saw."""
    if record.same_stat(st):
        return True
    if record.digest is None or data is None or record.size != st.st_size:
        return False
    return content_digest(data) == record.digest
