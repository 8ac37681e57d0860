"""The change tools' side of the journal: a file's state before and after a commit, and the keeper
that keeps the old version just before it is replaced (a hard link to the old inode when the
journal shares its filesystem, else a copy of the bytes the tool already holds).

A tool that changes one file journals it by calling `guard.save(..., tool="NotebookEdit")`, which
hands the journal's part to `OneCommit`: the returned `Written.journal` is what its result's
`metadata["journal"]` says.
"""

from __future__ import annotations

import contextlib
import os
import stat
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace

from .._content.fingerprints import DIGEST_LIMIT, content_digest
from .._content.spliced import Spliced
from .._core import sandbox
from .._core.context import ExecutionContext
from .._core.paths import SafePath
from .._journal.recorder import NotKept, Recording
from .._journal.states import ABSENT, DIR_STATE, Kind, State, state_of_stat
from .atomic import Keeper, Snapshot

_proven = threading.local()  # the last content hash a fresh read proved in this thread: (path, identity, digest)


def _identity(st: os.stat_result) -> tuple[int, int, int, int, int]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def prove(path: str, st: os.stat_result, digest: bytes) -> None:
    """Note that the file `path`, as `st` says it is, holds the content hashing to `digest` (a fresh read
    just proved it in this thread): its commit need not hash it again for the state before."""
    _proven.digest = (path, _identity(st), digest)


def proven_digest(target: SafePath, seen: Snapshot) -> str | None:
    """The content hash of `seen` that the last fresh read proved (this thread, this file as it is)."""
    proven: tuple[str, tuple[int, ...], bytes] | None = getattr(_proven, "digest", None)
    if proven is not None and proven[:2] == (target.path, _identity(seen.stat)):
        return proven[2].hex()
    return None


def known_digest(ctx: ExecutionContext, target: SafePath, seen: Snapshot) -> str | None:
    """The content hash of `seen` without hashing, when this context's read record proves it."""
    record = ctx.read_record(target.path)
    if record is not None and record.digest is not None and record.same_stat(seen.stat):
        return record.digest.hex()
    return None


def before_state(seen: Snapshot | None, digest: str | None) -> State:
    if seen is None:
        return ABSENT
    return state_of_stat(seen.stat).with_content(digest, False)


def digest_of(data: bytes | Spliced | None) -> str | None:
    return None if data is None else content_digest(data).hex()


def after_state(st: os.stat_result, digest: bytes | None) -> State:
    return state_of_stat(st).with_content(digest.hex() if digest is not None else None, False)


def expected_after(seen: Snapshot | None, size: int, digest: str | None) -> State:
    """The state a commit means to leave (its mtime and inode are known only afterwards)."""
    mode = stat.S_IMODE(seen.stat.st_mode) if seen is not None else None
    return State(Kind.FILE, mode=mode, size=size, hash=digest)


def _hex(digest: bytes | None) -> str | None:
    return digest.hex() if digest is not None else None


class OneCommit:
    """The journal's part of one file's commit (`guard.save`): the plan before the bytes change, the
    keeper that keeps the old content, the closing line after. A commit that is part of a larger
    change (`recording` given: a transaction, a revert) only keeps the old content; the larger
    change plans, begins and closes the entry."""

    def __init__(self, ctx: ExecutionContext, tool: str, target: SafePath, recording: Recording | None) -> None:
        self.ctx = ctx
        self.target = target
        self.own = recording is None
        self.recording = recording if recording is not None else Recording(ctx, tool, target.root)

    def keeper(
        self, seen: Snapshot | None, made: Sequence[str], size: int, new_digest: Callable[[], bytes | None]
    ) -> Keeper | None:
        """Plan the change of a commit of `size` bytes over `seen` (None: a new file, in the new directories
        `made`); the keeper the commit calls just before it replaces `seen`, if anything is kept."""
        rec = self.recording
        if self.own and rec.active:
            self._plan(seen, made, size, new_digest)
        if seen is not None and rec.active:
            return keeper(rec, self.target.path, seen, begin=self.own, after=lambda: _hex(new_digest()))
        return None

    def _plan(
        self, seen: Snapshot | None, made: Sequence[str], size: int, new_digest: Callable[[], bytes | None]
    ) -> None:
        rec, target = self.recording, self.target
        digest = (known_digest(self.ctx, target, seen) or proven_digest(target, seen)) if seen else None
        if digest is None and seen is not None and seen.data is not None and len(seen.data) <= DIGEST_LIMIT:
            digest = content_digest(seen.data).hex()
        for directory in made:
            rec.plan(directory, ABSENT, DIR_STATE)
        new_hash = None if seen is not None else _hex(new_digest())
        rec.plan(target.path, before_state(seen, digest), expected_after(seen, size, new_hash))
        if seen is None:
            rec.begin()

    def abort(self) -> None:
        """The commit failed: a change journaled on its own is given up."""
        if self.own:
            self.recording.abort()

    def finish(self, st: os.stat_result, digest: bytes | None) -> str:
        """The commit landed, leaving `st` (content `digest`): close the entry; the result's `metadata["journal"]`."""
        if self.own:
            self.recording.finish({self.target.path: after_state(st, digest)})
        return self.recording.note()


def keeper(
    recording: Recording, path: str, seen: Snapshot, *, begin: bool, after: Callable[[], str | None] | None = None
) -> Keeper:
    """The commit's keeper: keep the old version as the journal's before-state of `path`, then (for
    a change journaled on its own) write the begin line; all before the bytes change."""

    def keep(dir_fd: int, name: str, fd: int, st: os.stat_result, renamed: bool) -> None:
        with recording.exclusive() if begin else contextlib.nullcontext():
            _keep(dir_fd, name, fd, st, renamed)

    def _keep(dir_fd: int, name: str, fd: int, st: os.stat_result, renamed: bool) -> None:
        planned = next(c for c in recording.changes if c.path == path)
        state = planned.before
        if state.hash is None and state.kind == Kind.FILE:
            state = state.with_content(content_digest(seen.data).hex() if seen.data is not None else None, False)
        if seen.data is None and state.hash is None:
            state = state.with_content(_hash_fd(fd), False)
        if renamed:
            state = recording.keep_inode(state, dir_fd, name, st, seen.data, fd)
        else:
            state = recording.keep_bytes(state, seen.data, None if seen.data is not None else fd)
        expected = planned.after
        if after is not None and expected.hash is None:  # the new content's hash, known by now
            expected = replace(expected, hash=after())
        recording.changes[recording.changes.index(planned)] = type(planned)(path, state, expected)
        if begin:
            recording.begin()

    return keep


def _hash_fd(fd: int) -> str:
    from .._content.fingerprints import content_hasher

    hasher, offset = content_hasher(), 0
    while chunk := os.pread(fd, 1 << 20, offset):
        hasher.update(chunk)
        offset += len(chunk)
    return hasher.hexdigest()


def entry_state(dir_fd: int, name: str, recording: Recording | None = None) -> State:
    """The state of the entry `name` of `dir_fd` (never followed); with `recording`, a file's
    content is kept in the journal (a hard link to its inode: the caller is about to remove it)."""
    try:
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return ABSENT
    if stat.S_ISLNK(st.st_mode):
        return state_of_stat(st, os.readlink(name, dir_fd=dir_fd))
    state = state_of_stat(st)
    if state.kind != Kind.FILE:
        return state
    if recording is not None and not recording.fits(st.st_size):
        return recording.keep_bytes(state.with_content("", False), None)  # too large: not even hashed
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dir_fd)
    except PermissionError:  # removing it needs only its directory: it goes, unkept, and the result says so
        if recording is not None:
            recording.notes.append(f"{name} could not be read, so it was not kept")
        return state.with_content(None, False, "could not be read")
    try:
        state = state.with_content(_hash_fd(fd), False)
        if recording is not None:
            state = recording.keep_inode(state, dir_fd, name, os.fstat(fd), None, fd)
    finally:
        os.close(fd)
    return state


def record_removal(recording: Recording, root: str, paths: list[str]) -> None:
    """Plan the removal of `paths` (a tree top-down, or one entry): each one's state before, kept."""
    if not recording.active:
        return
    for path in paths:
        with sandbox.parent_of(root, path) as parent:
            try:
                state = entry_state(parent.fd, parent.name, recording)
            except NotKept as exc:
                raise NotKept(f"the journal could not keep the content of {path} ({exc})") from None
            recording.plan(path, state, ABSENT)


def states_now(root: str, paths: list[str], *, hashed: bool = False) -> dict[str, State]:
    """The states of `paths` as they are now (files' content hashed if `hashed`): a change's after-states."""
    after = {}
    for path in paths:
        try:
            with sandbox.parent_of(root, path) as parent:
                if hashed:
                    after[path] = entry_state(parent.fd, parent.name)
                    continue
                st = os.stat(parent.name, dir_fd=parent.fd, follow_symlinks=False)
                target = os.readlink(parent.name, dir_fd=parent.fd) if stat.S_ISLNK(st.st_mode) else None
                after[path] = state_of_stat(st, target)
        except OSError:
            after[path] = ABSENT
    return after
