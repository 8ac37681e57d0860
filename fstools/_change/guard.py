"""The rules every mutating tool shares: load the file, require a fresh read, commit atomically.

An agent may only overwrite what it has seen: an existing file needs a read in this
context, and fails with concurrent_modification if its content changed since (a bare
mtime touch is not a change). The commit re-checks the bytes under the file's lock, and
afterwards the context remembers the new content so the agent can chain edits.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

from .._content.fingerprints import DIGEST_LIMIT, content_digest, remember_digest, unchanged_since
from .._content.spliced import Spliced
from .._core.context import ExecutionContext
from .._core.errors import ErrorCode, ToolError, changed_or_failed
from .._core.paths import SafePath
from .._index.opened import notify_changed
from .._journal.locks import PathBusy, serialized
from .._journal.recorder import Recording
from .atomic import Conflict, LockTimeout, Snapshot, Written, commit, snapshot
from .journaling import OneCommit, prove

PARALLEL_DIGEST_MIN = 1 << 20


class _Digest:
    """The content digest of data being written (None past DIGEST_LIMIT). For a large file it is
    computed on a thread while the file is written and fsynced (hashlib releases the GIL): ~1 ms per MB saved."""

    def __init__(self, data: bytes | Spliced) -> None:
        self._data = data
        self._digest: bytes | None = None
        self._thread: threading.Thread | None = None
        if PARALLEL_DIGEST_MIN <= len(data) <= DIGEST_LIMIT:
            self._thread = threading.Thread(target=self._hash, daemon=True)
            self._thread.start()

    def _hash(self) -> None:
        self._digest = content_digest(self._data)

    def result(self) -> bytes | None:
        if self._thread is not None:
            self._thread.join()
        elif self._digest is None and len(self._data) <= DIGEST_LIMIT:
            self._hash()
        return self._digest


def _lock_timeout(ctx: ExecutionContext, target: SafePath) -> ToolError:
    return ToolError(
        ErrorCode.TIMEOUT, f"Timed out after {ctx.timeout:g}s waiting for another process's lock on {target.display}"
    )


def load(ctx: ExecutionContext, target: SafePath, *, max_bytes: int | None) -> Snapshot | None:
    """The file as it is now (None if there is none); its bytes are left out past `max_bytes`."""
    if target.is_dir:
        raise ToolError(ErrorCode.IS_DIRECTORY, f"Is a directory: {target.display}")
    if not target.exists:
        return None
    try:
        with target.parent() as parent:
            return snapshot(parent.fd, parent.name, max_bytes=max_bytes, timeout=ctx.timeout)
    except LockTimeout:
        raise _lock_timeout(ctx, target) from None
    except OSError as exc:
        raise changed_or_failed(exc, target.display) from None


@contextmanager
def one_at_a_time(ctx: ExecutionContext, *paths: str) -> Iterator[None]:
    """Hold the change locks of `paths` from loading them to committing: a second change of the
    same file (another thread, another process) waits and then works on the result of the first."""
    try:
        with serialized(paths, ctx.timeout):
            yield
    except PathBusy:
        raise ToolError(
            ErrorCode.TIMEOUT,
            f"Timed out after {ctx.timeout:g}s waiting for another change of {', '.join(paths)} to finish",
        ) from None


def require_fresh_read(ctx: ExecutionContext, target: SafePath, current: Snapshot | None) -> None:
    """An existing file must have been read in this context and be unchanged since (a dry run is exempt)."""
    if current is None or ctx.dry_run:
        return
    record = ctx.read_record(target.path)
    if record is None:
        raise ToolError(
            ErrorCode.NOT_READ, f"File has not been read yet. Read it first before writing to it: {target.display}"
        )
    if record.digest is not None:  # the content hash the journal needs for the state before, proven here
        prove(target.path, current.stat, record.digest)
    if not unchanged_since(record, current.stat, current.data):
        raise ToolError(
            ErrorCode.CONCURRENT_MODIFICATION,
            f"File has been modified since it was read: {target.display}. Read it again before writing to it.",
        )


def save(
    ctx: ExecutionContext,
    target: SafePath,
    data: bytes | Spliced,
    seen: Snapshot | None,
    *,
    backup: bool = False,
    tool: str = "Write",
    recording: Recording | None = None,
) -> tuple[Written, str | None]:
    """Atomically replace (or create) the file with `data` if it still is what `seen` saw, then
    remember the result as read; returns what was written and the backup's path, if any. Parent
    directories of a new file are created (beneath the root, one at a time, never through a
    symlink), and removed again if the write fails.

    The change is journaled as `tool`'s (`written.journal` says how), unless it is part of a
    larger change whose `recording` planned it already."""
    new_digest = _Digest(data)
    journal = OneCommit(ctx, tool, target, recording)
    try:
        with target.parent(create=seen is None) as parent:
            try:
                keep = journal.keeper(seen, parent.made, len(data), new_digest.result)
                written = commit(parent.fd, parent.name, data, seen, timeout=ctx.timeout, backup=backup, keep=keep)
            except BaseException:
                parent.remove_created()
                journal.abort()
                raise
    except Conflict as exc:
        raise ToolError(
            ErrorCode.CONCURRENT_MODIFICATION,
            f"File {exc.reason} while this change was being made: {target.display}. Read it again and retry.",
        ) from None
    except LockTimeout:
        raise _lock_timeout(ctx, target) from None
    except OSError as exc:
        raise changed_or_failed(exc, target.display) from None
    remember_digest(ctx, target.path, written.stat, new_digest.result())
    written = replace(written, journal=journal.finish(written.stat, new_digest.result()))
    notify_changed([target.path])
    backup_path = os.path.join(os.path.dirname(target.path), written.backup_name) if written.backup_name else None
    return written, backup_path
