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
from dataclasses import dataclass, field

from .._core.context import ExecutionContext, ReadRecord
from .._core.errors import ErrorCode, ToolError, error_from_oserror
from .._core.paths import SafePath
from .atomic import Snapshot, Written, commit
from .guard import load, save


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
    stash: str | None = None


def _missing_dirs(path: str) -> list[str]:
    missing, parent = [], os.path.dirname(path)
    while not os.path.lexists(parent):
        missing.append(parent)
        parent = os.path.dirname(parent)
    return missing  # deepest first


def _stash_path(path: str) -> str:
    directory, name = os.path.split(path)
    return os.path.join(directory, f".{name[:120]}.{os.urandom(4).hex()}.fstools.tmp")


class Transaction:
    def __init__(self, ctx: ExecutionContext) -> None:
        self.ctx = ctx
        self.done: list[_Done] = []
        self.warnings: list[str] = []

    def apply(self, changes: list[FileChange]) -> None:
        """Make every change (writes first, then deletions), or undo those made and raise the first failure."""
        change = None
        try:
            for change in sorted(changes, key=lambda c: c.data is None):
                self._one(change)
        except (ToolError, OSError) as exc:
            where = change.target.display if change is not None else "?"
            error = exc if isinstance(exc, ToolError) else error_from_oserror(exc, where)
            failures = self.undo()
            if failures:
                raise ToolError(
                    error.code,
                    f"{error.message}\nUndoing the earlier changes also failed: {'; '.join(failures)}",
                    **error.metadata,
                ) from None
            raise error from None
        except BaseException:
            self.undo()
            raise
        for done in self.done:
            if done.stash is not None:
                try:
                    os.unlink(done.stash)
                except OSError as exc:
                    self.warnings.append(f"could not remove {done.stash}: {exc.strerror}")

    def _one(self, change: FileChange) -> None:
        target = change.target
        done = _Done(change, self.ctx.read_record(target.path))
        if change.data is None:
            self._stash(done)
        else:
            if change.seen is None:
                done.new_dirs = _missing_dirs(target.path)
            done.written = save(self.ctx, target, change.data, change.seen)
            self.done.append(done)
            if change.mode is not None:
                os.chmod(target.path, change.mode)

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
        stash = _stash_path(target.path)
        try:
            os.rename(target.path, stash)
        except OSError as exc:
            raise error_from_oserror(exc, target.display) from None
        done.stash = stash
        self.done.append(done)
        self.ctx.forget_read(target.path)

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
        if done.stash is not None:
            if os.path.lexists(path):
                raise FileExistsError(f"a new file is in the way; the original is kept at {done.stash}")
            os.rename(done.stash, path)
        elif done.written is not None and change.data is not None:
            if change.seen is None:
                st = os.lstat(path)
                if (st.st_dev, st.st_ino) == (done.written.stat.st_dev, done.written.stat.st_ino):
                    os.unlink(path)
                for directory in done.new_dirs:
                    os.rmdir(directory)
            else:
                original = change.seen.data
                assert original is not None, "an updated file's bytes were read"
                commit(path, original, Snapshot(done.written.stat, change.data), timeout=self.ctx.timeout)
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
