"""Journaling one change: what a tool calls before its change lands and after.

    recording = Recording(ctx, "Edit", target.root)
    recording.plan(path, before, after)      # every path it will touch, before anything lands
    recording.keep_bytes(state, data)        # the content before, kept by copy...
    recording.keep_inode(state, dir_fd, name, st)   # ...or by a hard link to the old inode
    recording.begin()                        # the `begin` line: from now on the change may land
    recording.finish({path: after_state})    # the `end` line (or abort() when it was given up)

`status` is what the result's `metadata["journal"]` says: "recorded", "off", or "not recorded:
<why>" (the change itself goes ahead: a journal that cannot be written never stops work, except
a full disk, which would not hold the change either).
"""

from __future__ import annotations

import contextlib
import errno
import os
import time
from collections.abc import Iterator

from .._core.context import ExecutionContext
from .entries import Entry, PathChange
from .opening import open_storage
from .states import Kind, State
from .storage import JournalStorage
from .store import Unavailable, disk_full, max_bytes

RECORDED = "recorded"
OFF = "off"


class NotKept(Exception):
    """A change that must keep what it removes could not keep a file's content (the reason in words)."""


class Recording:
    """One change's journaling. `must_keep`: a content that cannot be kept stops the change (NotKept)
    instead of letting it go ahead unrecorded: a Delete leaves nothing behind to recover from."""

    def __init__(
        self,
        ctx: ExecutionContext,
        tool: str,
        root: str,
        *,
        undoes: int | None = None,
        group: int | None = None,
        must_keep: bool = False,
    ) -> None:
        self.ctx = ctx
        self.tool = tool
        self.root = root
        self.undoes = undoes
        self.group = group
        self.must_keep = must_keep
        self.changes: list[PathChange] = []
        self.entry: Entry | None = None
        self.notes: list[str] = []
        self._journal: JournalStorage | None = None
        self.status = OFF if getattr(ctx, "journal", "on") == "off" else RECORDED

    @property
    def active(self) -> bool:
        return self.status != OFF and not self.status.startswith("not recorded")

    def _fail(self, reason: str) -> None:
        self.status = f"not recorded: {reason}"

    def journal(self) -> JournalStorage | None:
        if not self.active:
            return None
        if self._journal is None:
            try:
                self._journal = open_storage(self.root)
            except Unavailable as exc:
                self._fail(str(exc))
        return self._journal

    # Before the change -------------------------------------------------------------------
    def plan(self, path: str, before: State, after: State) -> None:
        self.changes.append(PathChange(path, before, after))

    def fits(self, size: int) -> bool:
        return size <= max_bytes()

    def _too_large(self, state: State) -> State:
        note = f"{state.size} bytes, more than the journal keeps (FSTOOLS_JOURNAL_MAX_BYTES={max_bytes()})"
        self.notes.append(f"the previous content was not kept ({note})")
        return state.with_content(state.hash or None, False, note)

    def keep_bytes(self, state: State, data: bytes | None, src_fd: int | None = None) -> State:
        """Keep the content `data` (or the open file `src_fd`) of a before-state; the state as kept."""
        journal = self.journal()
        if journal is None or state.kind != Kind.FILE or state.hash is None:
            return state
        if not self.fits(state.size or 0):
            return self._too_large(state)
        if not state.hash:
            return state
        try:
            journal.copy_blob(state.hash, data, src_fd)
        except OSError as exc:
            if disk_full(exc):
                raise
            if self.must_keep:
                raise NotKept(exc.strerror or str(exc)) from exc
            self._fail(f"could not keep the previous content: {exc.strerror or exc}")
            return state
        return state.with_content(state.hash, True)

    def keep_inode(
        self, state: State, dir_fd: int, name: str, st: os.stat_result, data: bytes | None, src_fd: int | None = None
    ) -> State:
        """Keep a file about to be replaced by a hard link to its inode (no copy), else as keep_bytes."""
        journal = self.journal()
        if journal is None or state.kind != Kind.FILE or state.hash is None:
            return state
        if not self.fits(state.size or 0):
            return self._too_large(state)
        try:
            if journal.link_blob(state.hash, dir_fd, name, st):
                return state.with_content(state.hash, True)
        except OSError as exc:
            if disk_full(exc):
                raise
        return self.keep_bytes(state, data, src_fd if data is None else None)

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[None]:
        """Hold the journal's lock (when it can be had) around keeping a content and the begin line, so
        that no other process's bound drops a blob between the two."""
        journal = self.journal()
        if journal is None:
            yield
            return
        try:
            held = journal.locked(self.ctx.timeout)
            held.__enter__()
        except (OSError, Unavailable, TimeoutError) as exc:
            self._fail(f"could not lock the journal: {exc}")
            yield
            return
        try:
            yield
        finally:
            held.__exit__(None, None, None)

    # The log lines ------------------------------------------------------------------------
    def begin(self) -> None:
        """Write the `begin` line (once): the change may land after this returns."""
        if self.entry is not None:
            return
        journal = self.journal()
        if journal is None:
            return
        try:
            with journal.locked(self.ctx.timeout) as log:
                entry = Entry(log.next_seq, self.tool, time.time(), list(self.changes), None, self.undoes, self.group)
                entry.move = self.move
                journal.append(entry.begin_json())
                from .bound import enforce

                enforce(journal, journal.read())  # the log with this entry: the bound keeps the newest
        except OSError as exc:
            if disk_full(exc):
                raise
            self._fail(f"could not write to the journal: {exc.strerror or exc}")
            return
        except (Unavailable, TimeoutError) as exc:
            self._fail(str(exc))
            return
        self.entry = entry

    move: tuple[str, str] | None = None

    def finish(self, after: dict[str, State]) -> None:
        if self.entry is None:
            return
        self._close({"op": "end", "seq": self.entry.seq, "after": {p: s.to_json() for p, s in after.items()}})

    def abort(self) -> None:
        """The change was given up (or undone by a failed rewind): the journal does not count it."""
        self._close({"op": "abort", "seq": self.entry.seq} if self.entry else None)

    def _close(self, record: dict[str, object] | None) -> None:
        journal = self._journal
        if self.entry is None or record is None or journal is None:
            return
        try:
            with journal.locked(self.ctx.timeout):
                journal.append(record)
        except (OSError, Unavailable, TimeoutError) as exc:
            # The begin line stands: the states on disk tell later whether the change landed.
            if isinstance(exc, OSError) and exc.errno not in (errno.ENOSPC, errno.EDQUOT):
                self.notes.append(f"the journal's closing line was not written ({exc})")

    def note(self) -> str:
        """The result's `metadata["journal"]`."""
        if self.status == RECORDED and self.notes:
            return f"{RECORDED}; " + "; ".join(self.notes)
        return self.status
