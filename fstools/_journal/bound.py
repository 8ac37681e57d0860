"""The journal's bound: when its blobs take more than FSTOOLS_JOURNAL_MAX_BYTES, the oldest entries
go first (with the checkpoints before them), then, at once, the blobs nothing refers to any more.

The sizes are counted incrementally (each blob once, when an entry that keeps it is first
seen, by the size its state records: a change that keeps its contents after its begin line
counts them before they are stored); the log is rewritten atomically with a `base` line that
says from which entry on it is complete, so a rewind past a dropped entry is refused instead
of restoring half a state.

No change needs a blob the log does not name: a change keeps the contents it replaces either
under the journal's lock together with its begin line (one file, a Delete, a Move) or after its
begin line names them (ApplyPatch, a rewind), and the bound runs under that lock. So the blobs
the log does not name are garbage the moment the bound runs, and the journal never holds more
than the bound plus its newest entry.
"""

from __future__ import annotations

import contextlib
from typing import Any

from .entries import Entry, Log
from .states import Kind
from .storage import JournalStorage
from .store import max_bytes

MAX_DROPPED_LISTED = 10_000  # paths of dropped entries remembered, to name them when a rewind cannot reach them


def kept_blobs(entry: Entry, limit: int | None = None) -> dict[str, int]:
    """The blobs an entry refers to, with their sizes: the content before of each file (unless it was too
    large to keep)."""
    limit = max_bytes() if limit is None else limit
    return {
        c.before.hash: c.before.size or 0
        for c in entry.paths
        if c.before.kind == Kind.FILE and c.before.note is None and c.before.hash and (c.before.size or 0) <= limit
    }


def enforce(journal: JournalStorage, log: Log) -> None:
    """Drop the oldest entries until the blobs fit (the caller holds the journal's lock)."""
    limit = max_bytes()
    usage = _usage(journal, log, limit)
    if usage <= limit:
        return
    live: dict[str, int] = {}
    sizes: dict[str, int] = {}
    for entry in log.entries:
        for digest, size in kept_blobs(entry, limit).items():
            live[digest] = live.get(digest, 0) + 1
            sizes[digest] = size
    first_kept = log.first_kept
    dropped = dict(log.dropped)
    drop = 0
    while drop < len(log.entries) - 1 and usage > limit:  # the newest entry always stays
        for change in log.entries[drop].paths:
            dropped[change.path] = log.entries[drop].seq
        for digest in kept_blobs(log.entries[drop], limit):
            live[digest] -= 1
            if live[digest] == 0:
                usage -= sizes[digest]
        first_kept = log.entries[drop].seq + 1
        drop += 1
    if len(dropped) > MAX_DROPPED_LISTED:  # keep the most recent ones
        dropped = dict(sorted(dropped.items(), key=lambda kv: kv[1])[-MAX_DROPPED_LISTED:])
    records: list[dict[str, Any]] = [{"op": "base", "first_kept": first_kept, "dropped": dropped}]
    for entry in log.entries[drop:]:
        records.extend(_lines(entry))
    records.extend(
        {"op": "checkpoint", "seq": c.seq, "label": c.label, "time": c.time}
        for c in log.checkpoints
        if c.seq >= first_kept
    )
    records.sort(key=lambda r: r.get("seq", 0) if r["op"] != "base" else -1)
    journal.rewrite(records)
    referenced = {d for d, n in live.items() if n > 0}
    for name in journal.blob_names():
        if name not in referenced and not journal.is_pinned(name):
            with contextlib.suppress(OSError):
                journal.remove_blob(name)
    journal.forget_usage()


def _lines(entry: Entry) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = [entry.begin_json()]
    if entry.status.value == "done":
        lines.append({"op": "end", "seq": entry.seq, "after": {c.path: c.after.to_json() for c in entry.paths}})
    elif entry.status.value == "aborted":
        lines.append({"op": "abort", "seq": entry.seq})
    return lines


def _usage(journal: JournalStorage, log: Log, limit: int) -> int:
    """Bytes of the blobs the log's entries keep, each counted once."""
    usage = journal.usage(log.first_kept)
    if usage.stale(log):  # another process dropped entries since
        journal.forget_usage()
        usage = journal.usage(log.first_kept)
    fresh = []
    for entry in reversed(log.entries):  # only the entries appended since the last count
        if entry.seq <= usage.upto:
            break
        fresh.append(entry)
    for entry in reversed(fresh):
        usage.count(entry.seq, kept_blobs(entry, limit))
    return usage.total
