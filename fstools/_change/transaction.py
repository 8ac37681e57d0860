"""Several file changes made all or none: each atomic on its own, the earlier ones undone if a later one fails.

Writes go through the same commit as Write and Edit (guard.save). A file to delete is first
renamed aside in its own directory (the same inode, so its bytes and metadata are kept) and
unlinked only once every change has been made. Undoing restores each file's original bytes
through the same atomic commit (the restored file keeps the mode, owner and xattrs it had),
removes created files and the directories made for them, and renames deleted files back.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field, replace

from .._content.fingerprints import content_digest
from .._core import sandbox
from .._core.context import ExecutionContext, ReadRecord
from .._core.errors import ErrorCode, ToolError, changed_or_failed, error_from_oserror
from .._core.paths import SafePath
from .._index.opened import notify_changed
from .._journal.recorder import Recording
from .._journal.states import ABSENT, DIR_STATE, State
from .._journal.store import disk_full
from .atomic import Snapshot, Written, commit
from .guard import load, save
from .journaling import after_state, before_state, digest_of, expected_after


@dataclass(frozen=True)
class FileChange:
    """One path's change: `data` None deletes it, `seen` None creates it; `mode` is given to a created file."""

    target: SafePath
    seen: Snapshot | None
    data: bytes | None
    mode: int | None = None


@dataclass
class _Done:
    change: FileChange
    record: ReadRecord | None  # the read record before the change
    written: Written | None = None
    new_dirs: list[str] = field(default_factory=list)
    stash: str | None = None  # the name the deleted file was renamed to, in its own directory


def _missing_dirs(target: SafePath) -> list[str]:
    """The directories a new file still needs, deepest first (each checked beneath the root)."""
    missing, parent = [], os.path.dirname(target.path)
    while parent != target.root and not _exists(target.root, parent):
        missing.append(parent)
        parent = os.path.dirname(parent)
    return missing


def _exists(root: str, path: str) -> bool:
    try:
        sandbox.stat_beneath(root, path)
    except FileNotFoundError:
        return False
    return True


def _stash_name(name: str) -> str:
    return f".{name[:120]}.{os.urandom(4).hex()}.fstools.tmp"


class Transaction:
    """Several file changes, all or none; journaled as one change of `tool` (or as part of `recording`)."""

    def __init__(self, ctx: ExecutionContext, tool: str = "ApplyPatch", recording: Recording | None = None) -> None:
        self.ctx = ctx
        self.done: list[_Done] = []
        self.warnings: list[str] = []
        self.tool = tool
        self.recording = recording
        self._own = recording is None

    def _plan(self, changes: list[FileChange]) -> Recording | None:
        """Journal the changes before any lands: each path's state before (its content hash) and after."""
        if not changes:
            return self.recording
        rec = self.recording or Recording(self.ctx, self.tool, changes[0].target.root)
        self.recording = rec
        if not rec.active or not self._own:
            return rec
        for change in changes:
            for directory in reversed(_missing_dirs(change.target) if change.seen is None else []):
                rec.plan(directory, ABSENT, DIR_STATE)
            seen = change.seen
            digest = digest_of(seen.data) if seen is not None else None
            after = ABSENT if change.data is None else expected_after(seen, len(change.data), digest_of(change.data))
            rec.plan(change.target.path, before_state(seen, digest), after)
        rec.begin()
        return rec

    def journal_note(self) -> str:
        return self.recording.note() if self.recording is not None else "off"

    def apply(self, changes: list[FileChange], *, finish: bool = True) -> None:
        """Make every change (writes first, then deletions), or undo those made and raise the first failure.
        With `finish=False` the deleted files stay set aside until finish(), so undo() can still bring them back."""
        change = None
        rec = self._plan(changes)
        try:
            for change in sorted(changes, key=lambda c: c.data is None):
                self._one(change)
        except (ToolError, OSError) as exc:
            where = change.target.display if change is not None else "?"
            error = exc if isinstance(exc, ToolError) else error_from_oserror(exc, where)
            failures = self.undo()
            if rec is not None and self._own:
                rec.abort()
            if failures:
                raise ToolError(
                    error.code,
                    f"{error.message}\nUndoing the earlier changes also failed: {'; '.join(failures)}",
                    **error.metadata,
                ) from None
            raise error from None
        except BaseException:
            self.undo()
            if rec is not None and self._own:
                rec.abort()
            raise
        if rec is not None and self._own:
            rec.finish(self.after_states())
        if finish:
            self.finish()

    def after_states(self) -> dict[str, State]:
        after: dict[str, State] = {}
        for done in self.done:
            if done.written is not None and done.change.data is not None:
                after[done.change.target.path] = after_state(done.written.stat, content_digest(done.change.data))
            else:
                after[done.change.target.path] = ABSENT
        return after

    def finish(self) -> None:
        """Remove the files set aside for deletion: from now on the changes cannot be undone here."""
        for done in self.done:
            if done.stash is not None:
                try:
                    with done.change.target.parent() as parent:
                        os.unlink(done.stash, dir_fd=parent.fd)
                except OSError as exc:
                    where = os.path.join(os.path.dirname(done.change.target.path), done.stash)
                    self.warnings.append(f"could not remove {where}: {exc.strerror}")

    def _one(self, change: FileChange) -> None:
        target = change.target
        done = _Done(change, self.ctx.read_record(target.path))
        if change.data is None:
            self._stash(done)
        else:
            if change.seen is None:
                done.new_dirs = _missing_dirs(target)
            done.written, _ = save(self.ctx, target, change.data, change.seen, recording=self.recording)
            self.done.append(done)
            if change.mode is not None:
                fd = target.open(os.O_RDONLY | os.O_NONBLOCK)
                try:
                    os.fchmod(fd, change.mode)
                    # The state the change leaves (the journal's after-state) has the mode just given.
                    done.written = replace(done.written, stat=os.fstat(fd))
                finally:
                    os.close(fd)
                notify_changed([target.path])  # the mode change is a new ctime

    def _stash(self, done: _Done) -> None:
        """Rename the file aside, provided it still holds what the patch was computed from."""
        target, seen = done.change.target, done.change.seen
        assert seen is not None, "a deleted file existed"
        now = load(self.ctx, target, max_bytes=len(seen.data) if seen.data is not None else 0)
        if now is None or not _same(now, seen):
            raise ToolError(
                ErrorCode.CONCURRENT_MODIFICATION,
                f"File changed while the patch was being applied: {target.display}. Read it again and retry.",
            )
        stash = _stash_name(os.path.basename(target.path))
        try:
            with target.parent() as parent:
                os.rename(parent.name, stash, src_dir_fd=parent.fd, dst_dir_fd=parent.fd)
                self._keep_stashed(done, parent.fd, stash, now)
        except OSError as exc:
            if done.stash is None and disk_full(exc):
                self._unstash(target, stash)
            raise changed_or_failed(exc, target.display) from None
        done.stash = stash
        self.done.append(done)
        self.ctx.forget_read(target.path)
        notify_changed([target.path])

    def _keep_stashed(self, done: _Done, dir_fd: int, stash: str, now: Snapshot) -> None:
        """The journal keeps the deleted file: a hard link to the stashed inode (it is unlinked at the end)."""
        rec = self.recording
        if rec is None or not rec.active:
            return
        path = done.change.target.path
        planned = next((c for c in rec.changes if c.path == path), None)
        if planned is None or planned.before.hash is None:
            return
        kept = rec.keep_inode(planned.before, dir_fd, stash, now.stat, now.data)
        rec.changes[rec.changes.index(planned)] = type(planned)(path, kept, planned.after)

    def _unstash(self, target: SafePath, stash: str) -> None:
        with target.parent() as parent:
            os.rename(stash, parent.name, src_dir_fd=parent.fd, dst_dir_fd=parent.fd)

    def undo(self) -> list[str]:
        """Undo every change made, newest first; the descriptions of those that could not be undone."""
        failures = []
        for done in reversed(self.done):
            try:
                self._undo(done)
            except (OSError, ToolError) as exc:
                failures.append(f"{done.change.target.display}: {exc}")
        self.done.clear()
        return failures

    def _undo(self, done: _Done) -> None:
        change, path = done.change, done.change.target.path
        with change.target.parent() as parent:
            if done.stash is not None:
                if _exists(change.target.root, path):
                    kept = os.path.join(os.path.dirname(path), done.stash)
                    raise FileExistsError(f"a new file is in the way; the original is kept at {kept}")
                os.rename(done.stash, parent.name, src_dir_fd=parent.fd, dst_dir_fd=parent.fd)
            elif done.written is not None and change.data is not None:
                if change.seen is None:
                    st = os.stat(parent.name, dir_fd=parent.fd, follow_symlinks=False)
                    if (st.st_dev, st.st_ino) == (done.written.stat.st_dev, done.written.stat.st_ino):
                        os.unlink(parent.name, dir_fd=parent.fd)
                else:
                    original = change.seen.data
                    assert original is not None, "an updated file's bytes were read"
                    seen = Snapshot(done.written.stat, change.data)
                    commit(parent.fd, parent.name, original, seen, timeout=self.ctx.timeout)
        notify_changed([path])
        for directory in done.new_dirs:
            with sandbox.parent_of(change.target.root, directory) as holder:
                os.rmdir(holder.name, dir_fd=holder.fd)
        if done.record is None:
            self.ctx.forget_read(path)
        else:
            self.ctx.record_read(path, done.record)


def _same(now: Snapshot, seen: Snapshot) -> bool:
    """Whether the file is still the one the change was computed from: its bytes, or (too large to
    keep) its identity, size and times."""
    fields = ("st_dev", "st_ino", "st_size", "st_mtime_ns")
    if any(getattr(now.stat, f) != getattr(seen.stat, f) for f in fields[:2]):
        return False
    if seen.data is not None:
        return now.data == seen.data
    return all(getattr(now.stat, f) == getattr(seen.stat, f) for f in fields[2:])


def mode_of(seen: Snapshot | None) -> int | None:
    return stat.S_IMODE(seen.stat.st_mode) if seen is not None else None
