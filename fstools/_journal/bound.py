"""The journal's bound: when its blobs take more than FSTOOLS_JOURNAL_MAX_BYTES, the oldest entries
go first (with the checkpoints before them), then the blobs nothing refers to any more.

The sizes are counted incrementally (each blob once, when an entry that keeps it is first
seen); the log is rewritten atomically with a `base` line that says from which entry on it is
complete, so a rewind past a dropped entry is refused instead of restoring half a state.
"""

from __future__ import annotations

import contextlib
from typing import Any

from .entries import Entry, Log
from .states import Kind
from .store import Journal, max_bytes

# A blob linked a moment ago may belong to a change (of a process holding no lock yet) whose begin line
# is still to come: the bound leaves blobs younger than this alone.
FRESH_SECONDS = 60.0
MAX_DROPPED_LISTED = 10_000  # paths of dropped entries remembered, to name them when a rewind cannot reach them


def kept_blobs(entry: Entry) -> set[str]:
    """The blobs an entry refers to: the content before of each file (unless it was too large to keep)."""
    return {
        c.before.hash for c in entry.paths if c.before.kind == Kind.FILE and c.before.note is None and c.before.hash
    }


def enforce(journal: Journal, log: Log) -> None:
    """Drop the oldest entries until the blobs fit (the caller holds the journal's lock)."""
    limit = max_bytes()
    usage = _usage(journal, log)
    if usage <= limit:
        return
    live: dict[str, int] = {}
    for entry in log.entries:
        for digest in kept_blobs(entry):
            live[digest] = live.get(digest, 0) + 1
    first_kept = log.first_kept
    dropped = dict(log.dropped)
    drop = 0
    while drop < len(log.entries) - 1 and usage > limit:  # the newest entry always stays
        for change in log.entries[drop].paths:
            dropped[change.path] = log.entries[drop].seq
        for digest in kept_blobs(log.entries[drop]):
            live[digest] -= 1
            if live[digest] == 0:
                usage -= journal.blob_size(digest)
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
        if name not in referenced and journal.blob_age(name) > FRESH_SECONDS:
            with contextlib.suppress(OSError):
                journal.remove_blob(name)
    journal.usage = None


def _lines(entry: Entry) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = [entry.begin_json()]
    if entry.status.value == "done":
        lines.append({"op": "end", "seq": entry.seq, "after": {c.path: c.after.to_json() for c in entry.paths}})
    elif entry.status.value == "aborted":
        lines.append({"op": "abort", "seq": entry.seq})
    return lines


def _usage(journal: Journal, log: Log) -> int:
    """Bytes of the blobs the log's entries keep, each counted once."""
    if journal.usage is None or journal.counted_upto > (log.entries[-1].seq if log.entries else 0):
        journal.usage, journal.counted, journal.counted_upto = 0, set(), 0
    fresh = []
    for entry in reversed(log.entries):  # only the entries appended since the last count
        if entry.seq <= journal.counted_upto:
            break
        fresh.append(entry)
    for entry in reversed(fresh):
        for digest in kept_blobs(entry) - journal.counted:
            journal.counted.add(digest)
            journal.usage += journal.blob_size(digest)
        journal.counted_upto = entry.seq
    return journal.usage
