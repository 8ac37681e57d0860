"""The journal's storage is a seam (`_journal/storage.py`): a second implementation plugged in with
`use_storage` records every change, and Undo, Checkpoint, Changes and Rewind take them back through it.

The second implementation here is a test double kept in memory; it never touches the cache."""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

import fstools
from fstools._journal import store
from fstools._journal.entries import Entry, Log
from fstools._journal.opening import use_storage
from fstools._journal.storage import JournalStorage, Usage
from tests.helpers.tools import agent_read


class MemoryStorage:
    """A journal in memory: the log a list of records, the blobs a dict; one lock for everything."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.nonce = os.urandom(6).hex()
        self.records: list[dict[str, Any]] = []
        self.blobs: dict[str, bytes] = {}
        self.pinned: Counter[str] = Counter()
        self._lock = threading.RLock()
        self.counts: dict[str, Usage] = {}  # the bound's count, once it counted

    @contextlib.contextmanager
    def locked(self, timeout: float = 30.0) -> Iterator[Log]:
        if not self._lock.acquire(timeout=timeout):
            raise TimeoutError("the journal is busy")
        try:
            yield self.read()
        finally:
            self._lock.release()

    def read(self) -> Log:
        log = Log()
        for record in self.records:
            log.add_line(record)
        return log

    def append(self, *records: dict[str, Any]) -> None:
        self.records.extend(records)

    def rewrite(self, records: list[dict[str, Any]]) -> None:
        self.records = list(records)

    def entry(self, seq: int) -> Entry | None:
        return self.read().by_seq.get(seq)

    def has_blob(self, digest: str) -> bool:
        return digest in self.blobs

    def link_blob(self, digest: str, dir_fd: int, name: str, st: os.stat_result) -> bool:
        return False  # no hard link into memory: the recorder copies

    def copy_blob(self, digest: str, data: bytes | None = None, src_fd: int | None = None) -> None:
        if data is None:
            assert src_fd is not None
            chunks, offset = [], 0
            while chunk := os.pread(src_fd, 1 << 20, offset):
                chunks.append(chunk)
                offset += len(chunk)
            data = b"".join(chunks)
        self.blobs[digest] = bytes(data)

    def read_blob(self, digest: str) -> bytes | None:
        data = self.blobs.get(digest)
        return data if data is not None and hashlib.sha256(data).hexdigest() == digest else None

    def blob_names(self) -> list[str]:
        return list(self.blobs)

    def remove_blob(self, name: str) -> None:
        self.blobs.pop(name, None)

    @contextlib.contextmanager
    def pinning(self, digests: Iterable[str]) -> Iterator[None]:
        held = Counter(d for d in digests if d)
        self.pinned.update(held)
        try:
            yield
        finally:
            self.pinned.subtract(held)

    def is_pinned(self, digest: str) -> bool:
        return self.pinned[digest] > 0

    def usage(self, first_kept: int) -> Usage:
        return self.counts.setdefault("bound", Usage(since=first_kept))

    def forget_usage(self) -> None:
        self.counts.clear()


@pytest.fixture
def memory(project: Path) -> Iterator[dict[str, MemoryStorage]]:
    opened: dict[str, MemoryStorage] = {}

    def opener(root: str) -> JournalStorage:
        return opened.setdefault(root, MemoryStorage(root))

    store.forget_open()
    with use_storage(opener):
        yield opened
    store.forget_open()


def _cache_journals() -> list[str]:
    top = Path(os.environ["FSTOOLS_CACHE_DIR"]) / store.DIR_KIND
    return sorted(n for n in os.listdir(top) if not n.startswith(".")) if top.is_dir() else []  # .locks: the path locks


def test_undo_and_rewind_work_through_a_storage_in_memory(project, ctx, memory):
    before_cache = _cache_journals()
    path = project / "notes.txt"
    path.write_bytes(b"one\r\ntwo\r\n")
    agent_read(ctx, path)
    assert fstools.edit(str(path), "two", "TWO", ctx=ctx).metadata["journal"] == "recorded"
    mark = fstools.checkpoint(ctx=ctx)
    assert mark.success, mark.error
    agent_read(ctx, path)
    assert fstools.write(str(path), "three\n", ctx=ctx).success
    assert fstools.write(str(project / "new.txt"), "made\n", ctx=ctx).success

    (storage,) = memory.values()
    assert storage.root == str(project.resolve())
    assert len(storage.read().landed()) == 3 and storage.blobs  # the contents before, kept in memory

    changes = fstools.changes(since=mark.metadata["checkpoint"], ctx=ctx)
    assert changes.success and "new.txt" in changes.output, changes.error
    rewound = fstools.rewind(mark.metadata["checkpoint"], ctx=ctx)
    assert rewound.success, rewound.error
    assert path.read_bytes() == b"one\r\nTWO\r\n" and not (project / "new.txt").exists()
    for expected in (b"three\r\n", b"one\r\nTWO\r\n", b"one\r\ntwo\r\n"):  # the rewind, the write, the edit
        undone = fstools.undo(str(path), ctx=ctx)
        assert undone.success, undone.error
        assert path.read_bytes() == expected
    assert _cache_journals() == before_cache  # nothing written to the cache directory's journals


def test_the_bound_drops_old_entries_through_the_storage(project, ctx, memory, monkeypatch):
    monkeypatch.setenv("FSTOOLS_JOURNAL_MAX_BYTES", "3000")
    path = project / "f.txt"
    path.write_text("0" * 1000)
    for n in range(1, 8):
        agent_read(ctx, path)
        assert fstools.write(str(path), str(n) * 1000, ctx=ctx).success
    (storage,) = memory.values()
    assert sum(len(b) for b in storage.blobs.values()) <= 3000 + 1000
    assert storage.read().first_kept > 1
    assert fstools.undo(str(path), ctx=ctx).success
    assert path.read_text() == "6" * 1000
