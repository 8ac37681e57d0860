"""Taking journaled changes back: each path brought to the state it had before, all or none.

An entry is reverted by bringing each of its paths back to its state before, provided the
path is now exactly what the entry left (else someone else changed it since, and reverting
would clobber their work: `concurrent_modification`, naming the paths, unless `force`, which
first journals what is there). A move is reverted by renaming it back. Files go through the
ApplyPatch transaction (atomic commits, deletions set aside until the end), directories and
symbolic links through the held parent directory, every path reached beneath its root through
no symlink. Each reverted entry is journaled as a change of its own (an undo, or part of a
rewind), so it can be taken back too. When a later step fails, every earlier one is undone.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass, field

from .._core import sandbox
from .._core.context import ExecutionContext
from .._core.errors import ErrorCode, ToolError, changed_or_failed
from .._core.paths import SafePath, is_within, refuse_sensitive, resolve_path
from .._journal.entries import Entry, PathChange, Status
from .._journal.recorder import Recording
from .._journal.states import ABSENT, Kind, State, same_state
from .._journal.storage import JournalStorage
from .._journal.store import disk_full
from .atomic import Snapshot, commit
from .guard import load
from .journaling import digest_of, states_now
from .renames import rename_at
from .transaction import FileChange, Transaction

_Undo = Callable[[], None]


@dataclass
class Current:
    """A path as it is now: checked by the sandbox, its state (content hashed) and its bytes."""

    target: SafePath
    state: State
    snapshot: Snapshot | None = None


def current(ctx: ExecutionContext, path: str) -> Current:
    """The path now, through the sandbox (a path that now leads through a symlink counts as changed)."""
    target = entry_path(ctx, path)
    if target.stat is None:
        return Current(target, ABSENT)
    if stat.S_ISLNK(target.stat.st_mode) or stat.S_ISDIR(target.stat.st_mode) or not target.is_file:
        return Current(target, states_now(target.root, [path])[path])
    seen = load(ctx, target, max_bytes=ctx.max_edit_bytes)
    if seen is None:
        return Current(target, ABSENT)
    from .._journal.states import state_of_stat

    state = state_of_stat(seen.stat).with_content(digest_of(seen.data), False)
    return Current(target, state, seen)


def entry_path(ctx: ExecutionContext, path: str) -> SafePath:
    """The journaled `path` (canonical) through the sandbox: its directory must still be where it was
    (no symlink on the way), the entry itself is taken as it is (a symlink is not followed)."""
    head, name = os.path.split(path)
    parent = resolve_path(ctx, head, param="path") if head != path else None
    if parent is None or parent.path != head or not name:
        raise ToolError(
            ErrorCode.CONCURRENT_MODIFICATION,
            f"{path} now leads through a symbolic link (or out of the allowed directories); nothing was changed",
            paths=[path],
        )
    refuse_sensitive(ctx, path, path)
    try:
        st: os.stat_result | None = sandbox.stat_beneath(parent.root, path) if parent.exists else None
    except FileNotFoundError:
        st = None
    except OSError as exc:
        if exc.errno not in sandbox.RACE_ERRNOS:
            raise changed_or_failed(exc, path) from None
        try:  # the entry is a symlink: stat it without following
            with sandbox.parent_of(parent.root, path) as holder:
                st = os.stat(holder.name, dir_fd=holder.fd, follow_symlinks=False)
        except NotADirectoryError:
            raise _blocked(parent.root, path) from None
    return SafePath(path, path, st, parent.root)


def _blocked(root: str, path: str) -> ToolError:
    """The refusal for a path that cannot come back because a directory on its way is no longer one
    (another program put a file there): which one, and what it is now."""
    where, now = path, "no longer a directory"
    parts = os.path.relpath(path, root).split(os.sep)
    for n in range(1, len(parts)):
        above = os.path.join(root, *parts[:n])
        try:
            st = sandbox.stat_beneath(root, above)
        except OSError:
            break
        if not stat.S_ISDIR(st.st_mode):
            where, now = above, f"now a {'symbolic link' if stat.S_ISLNK(st.st_mode) else 'file'}"
            break
    return ToolError(
        ErrorCode.CONCURRENT_MODIFICATION,
        f"Refusing to take the change back: {path} cannot come back, because {where} was a directory and is "
        f"{now} (another program changed it since fstools last did); nothing was changed. Move or remove "
        f"{where} first (force does not remove it).",
        paths=[path],
        blocked_by=where,
    )


def kept_contents(entries: list[Entry]) -> list[str]:
    """The blobs reverting `entries` reads: the kept content before of each of their files."""
    return [c.before.hash for e in entries for c in e.paths if c.before.kind == Kind.FILE and c.before.hash]


def selected(entry: Entry, path: str | None) -> list[PathChange]:
    """The parts of `entry` that revert `path` (all of them for None): the path, what lies below it,
    and the directories above it the entry made or removed."""
    if path is None or entry.move is not None:
        return list(entry.paths)
    return [
        c
        for c in entry.paths
        if is_within(c.path, path)
        or (is_within(path, c.path) and c.before.kind == Kind.DIR)
        or (is_within(path, c.path) and c.after.kind == Kind.DIR and c.before.kind == Kind.ABSENT)
    ]


@dataclass
class Reverter:
    """Reverts entries one after another (newest first), all or none."""

    ctx: ExecutionContext
    journal: JournalStorage
    tool: str
    force: bool = False
    undoes: int | None = None
    group: int | None = None
    undos: list[_Undo] = field(default_factory=list)
    recordings: list[Recording] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    reverted: list[str] = field(default_factory=list)

    # Checks --------------------------------------------------------------------------
    def conflicts(
        self, changes: list[PathChange], move: tuple[str, str] | None, *, cut_short: bool = False
    ) -> list[str]:
        """The paths not in the state the entry left them in. For a change cut short (`cut_short`: no
        closing line, a process killed mid-way) a path still in its state before is as fstools left it too."""
        bad = []
        for c in changes:
            now = current(self.ctx, c.path).state
            expected = c.after
            if move is not None and c.path == move[1]:
                ok = now.kind == expected.kind and (now.kind != Kind.FILE or now.size == expected.size)
            else:
                ok = same_state(expected, now) or (cut_short and same_state(c.before, now))
            if not ok:
                bad.append(c.path)
        return bad

    def missing(self, changes: list[PathChange], move: tuple[str, str] | None, *, cut_short: bool = False) -> list[str]:
        """The paths whose state before cannot be restored (content not kept, dropped or damaged).

        A change keeps each content before that path changes, so in a change cut short a content not
        kept yet (`kept` false in its begin line, no blob) belongs to a path it never reached: nothing
        to restore there."""
        out = []
        for c in changes:
            if move is not None and c.path == move[0]:
                continue
            if c.before.kind == Kind.FILE and (c.before.hash is None or not self.journal.has_blob(c.before.hash)):
                if cut_short and not c.before.kept and c.before.note is None:
                    continue
                out.append(c.path)
        return out

    def never_landed(self, entry: Entry, path: str | None) -> bool:
        """Whether a change cut short (no closing line) left its paths as they were before."""
        if entry.status != Status.PENDING:
            return False
        return all(same_state(c.before, current(self.ctx, c.path).state) for c in selected(entry, path))

    # Reverting -----------------------------------------------------------------------
    def revert(self, entry: Entry, path: str | None = None) -> bool:
        """Revert `entry` (only what concerns `path`, when given); False when it never landed."""
        changes = selected(entry, path)
        if self.never_landed(entry, path):
            return False
        bad = self.conflicts(changes, entry.move, cut_short=entry.status == Status.PENDING)
        if bad and not self.force:
            raise conflict_error(bad)
        recording = Recording(self.ctx, self.tool, self.journal.root, undoes=self.undoes, group=self.group)
        self.recordings.append(recording)
        try:
            if entry.move is not None:
                self._revert_move(entry, recording)
            else:
                self._revert_states(changes, recording)
        except BaseException:
            recording.abort()
            raise
        # An undo takes back one entry (`undoes`); a rewind's recordings form one group.
        if self.group is None and self.undoes is None and recording.entry is not None:
            self.group = recording.entry.seq
        self.reverted.extend(c.path for c in changes)
        return True

    def _revert_states(self, changes: list[PathChange], recording: Recording) -> None:
        changes = _once_each(changes)
        nows = {c.path: current(self.ctx, c.path) for c in changes}
        contents = self._kept_contents(changes, nows)
        for c in changes:
            recording.plan(c.path, nows[c.path].state, c.before)
        recording.begin()
        self._make_dirs(changes, nows)
        files = self._file_changes(changes, nows, contents)
        if files:
            self._write_files(files, nows, recording)
        for c in changes:
            self._restore_entry(c, nows[c.path])
        removes = sorted(
            (c for c in changes if c.before.kind == Kind.ABSENT and nows[c.path].state.kind == Kind.DIR),
            key=lambda c: -c.path.count("/"),
        )
        for c in removes:
            self._rmdir(nows[c.path].target, nows[c.path].state.mode)
        recording.finish(states_now(self.journal.root, [c.path for c in changes], hashed=True))

    def _kept_contents(self, changes: list[PathChange], nows: dict[str, Current]) -> dict[str, bytes]:
        """The kept content before of each file that comes back (read before anything changes)."""
        contents = {}
        for c in changes:
            if c.before.kind == Kind.FILE and not same_state(c.before, nows[c.path].state):
                data = self.journal.read_blob(c.before.hash or "")
                if data is None:
                    raise ToolError(
                        ErrorCode.NOT_FOUND,
                        f"The journal no longer holds the earlier content of {c.path}; nothing was changed",
                        paths=[c.path],
                    )
                contents[c.path] = data
        return contents

    def _make_dirs(self, changes: list[PathChange], nows: dict[str, Current]) -> None:
        """The directories that come back, shallowest first (whatever is in their way cleared)."""
        makes = sorted(
            (c for c in changes if c.before.kind == Kind.DIR and nows[c.path].state.kind != Kind.DIR),
            key=lambda c: c.path.count("/"),
        )
        for c in makes:
            self._clear(nows[c.path])
            self._mkdir(nows[c.path].target, c.before.mode)

    def _file_changes(
        self, changes: list[PathChange], nows: dict[str, Current], contents: dict[str, bytes]
    ) -> list[FileChange]:
        """The files to write back (their kept contents) or delete; a link or directory in a file's way is cleared."""
        files = []
        for c in changes:
            now = nows[c.path]
            if same_state(c.before, now.state):
                continue
            if c.before.kind == Kind.FILE:
                if now.state.kind not in (Kind.FILE, Kind.ABSENT):
                    self._clear(now)
                    now = current(self.ctx, c.path)
                files.append(FileChange(now.target, now.snapshot, contents[c.path], c.before.mode))
            elif now.state.kind == Kind.FILE and c.before.kind != Kind.DIR:
                files.append(FileChange(now.target, now.snapshot, None))
        return files

    def _write_files(self, files: list[FileChange], nows: dict[str, Current], recording: Recording) -> None:
        # Deleted files are gone at once (their directories may go next); the journal keeps them.
        transaction = Transaction(self.ctx, self.tool, recording)
        transaction.apply(files)
        self.warnings.extend(transaction.warnings)
        deleted = [(f.target, nows[f.target.path].state) for f in files if f.data is None]
        self.undos.append(lambda: self._undo_files(transaction, deleted))

    def _restore_entry(self, c: PathChange, now: Current) -> None:
        """A symbolic link back (or one removed that was not there), a directory's mode back."""
        if c.before.kind == Kind.LINK and not same_state(c.before, now.state):
            if now.state.kind == Kind.LINK:
                self._clear(now)
            self._symlink(now.target, c.before.target or "")
        elif c.before.kind == Kind.ABSENT and now.state.kind == Kind.LINK:
            self._clear(now)
        elif c.before.kind == Kind.DIR and now.state.kind == Kind.DIR and c.before.mode is not None:
            if now.state.mode != c.before.mode:
                self._chmod(now.target, c.before.mode, now.state.mode)

    def _revert_move(self, entry: Entry, recording: Recording) -> None:
        assert entry.move is not None
        src, dst = entry.move
        moved = next(c for c in entry.paths if c.path == dst)
        if current(self.ctx, src).state.kind != Kind.ABSENT:
            raise conflict_error([src], "is in the way of moving it back")
        made = [c for c in entry.paths if c.path not in (src, dst)]
        recording.plan(dst, moved.after, moved.before)
        recording.plan(src, ABSENT, moved.after)
        recording.move = (dst, src)
        recording.begin()
        src_target, dst_target = current(self.ctx, src).target, current(self.ctx, dst).target
        is_dir = moved.after.kind == Kind.DIR
        try:
            with (
                sandbox.parent_of(dst_target.root, dst) as there,
                sandbox.parent_of(src_target.root, src, create=True) as here,
            ):
                rename_at(there.fd, there.name, here.fd, here.name, replace=False, is_dir=is_dir)
                sandbox.fsync_dir(here.fd)
        except FileExistsError:
            raise conflict_error([src], "appeared while it was being moved back") from None
        except OSError as exc:
            raise changed_or_failed(exc, f"{dst} -> {src}") from None

        def back() -> None:
            with sandbox.parent_of(src_target.root, src) as here, sandbox.parent_of(dst_target.root, dst) as there:
                rename_at(here.fd, here.name, there.fd, there.name, replace=False, is_dir=is_dir)

        self.undos.append(back)
        rest = [PathChange(dst, moved.before, ABSENT), *made] if moved.before.kind != Kind.ABSENT else made
        if rest:
            self._revert_states(rest, Recording(self.ctx, self.tool, self.journal.root, group=self.group))
        recording.finish(states_now(self.journal.root, [src, dst]))

    def _undo_files(self, transaction: Transaction, deleted: list[tuple[SafePath, State]]) -> None:
        """Undo a finished transaction: written files through its own undo, deleted ones from the journal."""
        transaction.done = [d for d in transaction.done if d.stash is None]
        failures = transaction.undo()
        for target, state in deleted:
            data = self.journal.read_blob(state.hash or "")
            if data is None:
                failures.append(f"{target.path}: its content is not in the journal")
                continue
            with sandbox.parent_of(target.root, target.path, create=True) as parent:
                commit(parent.fd, parent.name, data, None, timeout=self.ctx.timeout)
                fd = os.open(parent.name, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=parent.fd)
                try:
                    os.fchmod(fd, state.mode if state.mode is not None else 0o644)
                finally:
                    os.close(fd)
        if failures:
            raise OSError(f"could not undo: {'; '.join(failures)}")

    # Primitive steps, each with its undo ------------------------------------------------
    def _clear(self, now: Current) -> None:
        """Remove a symbolic link (or an empty directory) in the way of what comes back."""
        if now.state.kind == Kind.ABSENT:
            return
        with now.target.parent() as parent:
            if now.state.kind == Kind.LINK:
                os.unlink(parent.name, dir_fd=parent.fd)
                link = now.state.target or ""
                self.undos.append(lambda: self._symlink(now.target, link, undoable=False))
            elif now.state.kind == Kind.DIR:
                os.rmdir(parent.name, dir_fd=parent.fd)
                self.undos.append(lambda: self._mkdir(now.target, now.state.mode, undoable=False))

    def _mkdir(self, target: SafePath, mode: int | None, *, undoable: bool = True) -> None:
        with sandbox.parent_of(target.root, target.path, create=True) as parent:
            os.mkdir(parent.name, 0o700, dir_fd=parent.fd)
            fd = os.open(parent.name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=parent.fd)
            try:
                os.fchmod(fd, mode if mode is not None else 0o777 & ~_umask())
            finally:
                os.close(fd)
        if undoable:
            self.undos.append(lambda: self._rmdir(target, mode, undoable=False))

    def _rmdir(self, target: SafePath, mode: int | None, *, undoable: bool = True) -> None:
        with target.parent() as parent:
            try:
                try:
                    os.rmdir(parent.name, dir_fd=parent.fd)
                except OSError as exc:
                    if exc.errno not in (39, 66) or not _clear_leftovers(parent.fd, parent.name):
                        raise
                    os.rmdir(parent.name, dir_fd=parent.fd)
            except OSError as exc:
                if exc.errno in (39, 66) and undoable:  # ENOTEMPTY: something else lives there now
                    self.warnings.append(f"kept the directory {target.path}: it is not empty")
                    return
                raise
        if undoable:
            self.undos.append(lambda: self._mkdir(target, mode, undoable=False))

    def _symlink(self, target: SafePath, link: str, *, undoable: bool = True) -> None:
        with target.parent(create=True) as parent:
            os.symlink(link, parent.name, dir_fd=parent.fd)
        if undoable:

            def unlink() -> None:
                with target.parent() as parent:
                    os.unlink(parent.name, dir_fd=parent.fd)

            self.undos.append(unlink)

    def _chmod(self, target: SafePath, mode: int, old: int | None) -> None:
        fd = target.open(os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fchmod(fd, mode)
        finally:
            os.close(fd)
        if old is not None:
            self.undos.append(lambda: self._chmod(target, old, None))

    # All or none --------------------------------------------------------------------
    def rollback(self) -> list[str]:
        failures = []
        for undo in reversed(self.undos):
            try:
                undo()
            except (OSError, ToolError) as exc:
                failures.append(str(exc))
        self.undos.clear()
        for recording in self.recordings:  # undone: the journal must not count them as changes
            recording.abort()
        return failures

    def finish(self) -> None:
        self.undos.clear()

    def note(self) -> str:
        if not self.recordings:
            return "off" if self.ctx.journal == "off" else "recorded"
        notes = {r.note() for r in self.recordings}
        return next((n for n in notes if n != "recorded"), "recorded")


_LEFTOVER = re.compile(r"\.(.+)\.[0-9a-f]{8}\.fstools\.tmp")


def _clear_leftovers(dir_fd: int, name: str) -> bool:
    """Remove the temporary files a commit killed midway left in the directory `name` (it is being
    removed: every file of it is a path this change holds, so no live commit owns them); True when
    only such files were there."""
    fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=dir_fd)
    try:
        names = os.listdir(fd)
        targets = [_LEFTOVER.fullmatch(n) for n in names]
        if not names or not all(m is not None and m.group(1) not in names for m in targets):
            return False
        for leftover in names:
            os.unlink(leftover, dir_fd=fd)
        return True
    finally:
        os.close(fd)


def _once_each(changes: list[PathChange]) -> list[PathChange]:
    """Each path once, at its first place (a patch adding two files to a new directory planned it twice)."""
    seen: set[str] = set()
    out = []
    for c in changes:
        if c.path not in seen:
            seen.add(c.path)
            out.append(c)
    return out


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def conflict_error(paths: list[str], why: str = "changed since fstools last changed it") -> ToolError:
    listed = "\n".join(f"  {p}" for p in paths[:50])
    more = f"\n  ... and {len(paths) - 50} more" if len(paths) > 50 else ""
    return ToolError(
        ErrorCode.CONCURRENT_MODIFICATION,
        f"Refusing to take the change back: {len(paths)} path{'s' if len(paths) != 1 else ''} "
        f"{why} (another program's work would be lost); nothing was changed. Set force=true to go ahead: "
        f"what is there now is journaled first.\n{listed}{more}",
        paths=paths,
    )


def run_all_or_none(reverter: Reverter, steps: list[Callable[[], None]]) -> None:
    """Run the steps; when one fails, undo those done and raise its error."""
    try:
        for step in steps:
            step()
    except (ToolError, OSError) as exc:
        failures = reverter.rollback()
        error = exc if isinstance(exc, ToolError) else _os_error(exc)
        if failures:
            raise ToolError(
                error.code, f"{error.message}\nUndoing the earlier steps also failed: {'; '.join(failures)}"
            ) from None
        raise error from None
    except BaseException:
        reverter.rollback()
        raise
    reverter.finish()


def _os_error(exc: OSError) -> ToolError:
    if disk_full(exc):
        return ToolError(ErrorCode.DISK_FULL, f"No space left on device; nothing was changed ({exc})")
    return changed_or_failed(exc, exc.filename or "?")
