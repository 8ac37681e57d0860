"""Move: rename a file, symlink or directory inside the allowed directories.

Both ends pass the path policy (inside the roots, not sensitive, deny rules), a symlink is
moved as the link itself, and a directory holding a secret or an allowed root is refused
as Delete refuses it. The rename never clobbers a destination that appeared meanwhile
(see renames.rename_at); with overwrite=true it replaces an existing file, which, as with
Write, must have been read first. Across filesystems the entry is copied, fsynced, renamed
into place and only then removed at the source. What the context had read moves along.

The syscalls run relative to file descriptors of the two parent directories, reached beneath
their roots through no symlink once the paths are checked (see `_core.sandbox`).
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass

from .._content.fingerprints import remember_digest
from .._core import sandbox
from .._core.context import ExecutionContext, ReadRecord
from .._core.errors import ErrorCode, ToolError, changed_or_failed
from .._core.outputs import DRY_RUN, JOURNAL, ResultField
from .._core.params import ToolParameter
from .._core.paths import SafePath, absolute_path, is_within, refuse_sensitive, resolve_path
from .._core.permissions import authorize
from .._core.public import session, tool
from .._core.result import ToolResult
from .._index.opened import notify_changed
from .._journal.recorder import Recording
from .._journal.states import ABSENT, DIR_STATE, state_of_stat
from .._syntax.review import forget_files
from .guard import load, one_at_a_time, require_fresh_read
from .journaling import entry_state, states_now
from .renames import SourceKept, move_across, rename_at
from .tree import walk_tree

LISTED = 100


@dataclass(frozen=True)
class End:
    """One end of a move: the entry `name` in the canonical directory `parent` (the last component
    is not resolved: a symlink is moved, or replaced, as itself)."""

    display: str
    parent: str
    name: str
    parent_exists: bool
    stat: os.stat_result | None
    root: str

    @property
    def path(self) -> str:
        return os.path.join(self.parent, self.name)

    @property
    def kind(self) -> str:
        mode = self.stat.st_mode if self.stat else 0
        return "symlink" if stat.S_ISLNK(mode) else "directory" if stat.S_ISDIR(mode) else "file"


def _end(ctx: ExecutionContext, raw: object, param: str) -> End:
    display = os.path.abspath(absolute_path(ctx, raw, param=param))
    head, name = os.path.split(display)
    if not name:
        raise ToolError(ErrorCode.INVALID_PATH, f"Invalid path: {param} names the filesystem root")
    parent = resolve_path(ctx, head, param=param)
    if parent.exists and not parent.is_dir:
        raise ToolError(ErrorCode.DIRECTORY_NOT_FOUND, f"Not a directory: {parent.display}")
    path = os.path.join(parent.path, name)
    refuse_sensitive(ctx, path, display)
    st: os.stat_result | None = None
    if parent.exists:
        try:
            with parent.open_dir() as dir_fd:
                st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        except (FileNotFoundError, NotADirectoryError):
            st = None
        except OSError as exc:
            raise changed_or_failed(exc, display) from None
    return End(display, parent.path, name, parent.exists, st, parent.root)


@dataclass(frozen=True)
class MovePlan:
    source: End
    destination: End
    inside: list[str]  # what a directory holds, top-down
    special: list[str]  # FIFOs, sockets, devices among them: never copied
    replaces: bool


def _contents(ctx: ExecutionContext, src: End, dst: End) -> tuple[list[str], list[str]]:
    if src.kind != "directory":
        return [], []
    inside, special = [], []
    try:
        with sandbox.parent_of(src.root, src.path) as parent:
            top = os.open(src.name, _DIR, dir_fd=parent.fd)
            try:
                for rel, _ in walk_tree(top):
                    inside.append(os.path.join(src.path, rel))
                    mode = os.stat(rel, dir_fd=top, follow_symlinks=False).st_mode
                    if not _movable(mode):
                        special.append(inside[-1])
            finally:
                os.close(top)
    except OSError as exc:
        raise changed_or_failed(exc, src.display) from None
    secret = next((p for p in inside if ctx.sensitive.matches(p)), None)
    if secret is not None:
        raise ToolError(
            ErrorCode.SENSITIVE_PATH, f"Refusing to move {src.display}: it contains a sensitive file ({secret})"
        )
    # What is harmless here may be a secret there (x/credentials moved to .aws): Write would refuse it too.
    there = (end + p[len(src.path) :] for end in (dst.path, dst.display) for p in inside)
    secret = next((p for p in there if ctx.sensitive.matches(p)), None)
    if secret is not None:
        raise ToolError(ErrorCode.SENSITIVE_PATH, f"Refusing to move {src.display}: {secret} would be a sensitive file")
    return inside, special


def _movable(mode: int) -> bool:
    return stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode)


def _check_source(ctx: ExecutionContext, src: End) -> None:
    if src.stat is None:
        raise ToolError(ErrorCode.FILE_NOT_FOUND, f"File not found: {src.display}")
    if not _movable(src.stat.st_mode):
        raise ToolError(
            ErrorCode.INVALID_PATH, f"Refusing to move a special file (FIFO, socket or device): {src.display}"
        )
    if any(is_within(root, src.path) for root in ctx.roots):
        raise ToolError(
            ErrorCode.PERMISSION_DENIED,
            f"Refusing to move {src.display}: it is, or contains, an allowed root directory",
        )


def _target_id(link: str) -> tuple[int, int] | None:
    """Device and inode of what the symlink `link` finally points to (None when it dangles)."""
    try:
        st = os.stat(link)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _check_destination(ctx: ExecutionContext, src: End, dst: End, overwrite: bool) -> bool:
    """Whether the move replaces an existing destination; ToolError when it may not."""
    if dst.path == src.path:
        raise ToolError(ErrorCode.NO_CHANGE, f"Source and destination are the same: {src.display}")
    if src.kind == "directory" and is_within(dst.path, src.path):
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"Cannot move a directory into itself: {dst.display}")
    if dst.stat is None:
        return False
    if (dst.stat.st_dev, dst.stat.st_ino) == (src.stat.st_dev, src.stat.st_ino):  # type: ignore[union-attr]
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"{src.display} and {dst.display} are the same file (hard links)")
    if src.kind == "symlink" and _target_id(src.path) == (dst.stat.st_dev, dst.stat.st_ino):
        # The file would be replaced by a link to itself: its content gone, the link dangling.
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"{src.display} is a symlink to {dst.display}: the same file")
    # What overwrite could never replace is said first: "set overwrite=true" would be wrong advice.
    if dst.kind == "directory":
        raise ToolError(
            ErrorCode.IS_DIRECTORY,
            f"Destination is a directory: {dst.display}. Move replaces files only: name the full path inside it",
        )
    if src.kind == "directory":
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"Cannot replace the file {dst.display} with a directory")
    if dst.kind == "file" and not stat.S_ISREG(dst.stat.st_mode):
        raise ToolError(ErrorCode.INVALID_PATH, f"Refusing to replace a FIFO, socket or device: {dst.display}")
    if not overwrite:
        raise ToolError(
            ErrorCode.INVALID_ARGUMENT, f"Destination already exists: {dst.display}. Set overwrite=true to replace it"
        )
    if dst.kind == "file":  # its content is lost: as for Write, the agent must have seen it
        target = SafePath(dst.path, dst.display, dst.stat, dst.root)
        require_fresh_read(ctx, target, load(ctx, target, max_bytes=ctx.max_edit_bytes))
    return True


def plan_move(ctx: ExecutionContext, source: str, destination: str, overwrite: bool) -> MovePlan:
    src = _end(ctx, source, "source")
    _check_source(ctx, src)
    dst = _end(ctx, destination, "destination")
    authorize(ctx, move.spec, src.path, ask=False, covers=[dst.path])  # a deny refuses before anything is looked at
    replaces = _check_destination(ctx, src, dst, overwrite)
    inside, special = _contents(ctx, src, dst)
    return MovePlan(src, dst, inside, special, replaces)


_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _rename(plan: MovePlan, src_fd: int, dst_fd: int) -> bool:
    """The move itself, between the open parent directories; True when it had to copy across filesystems."""
    src, dst = plan.source, plan.destination
    is_dir = src.kind == "directory"
    try:
        rename_at(src_fd, src.name, dst_fd, dst.name, replace=plan.replaces, is_dir=is_dir)
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
        if plan.special:
            raise ToolError(
                ErrorCode.INVALID_PATH,
                f"Cannot copy {src.display} to another filesystem: it holds special files ({plan.special[0]})",
            ) from None
        move_across(src_fd, src.name, dst_fd, dst.name, replace=plan.replaces, is_dir=is_dir)
        return True
    # The rename is done: as after an atomic write, a filesystem that refuses to fsync a directory
    # does not turn it into a failure (across filesystems the copy's fsync is strict: the source goes next).
    sandbox.fsync_dir(dst_fd)
    if src.parent != dst.parent:
        sandbox.fsync_dir(src_fd)
    return False


def _carry_reads(ctx: ExecutionContext, plan: MovePlan, valid: dict[str, ReadRecord]) -> None:
    """The context's read records follow the files to their new paths (only records still true before the move)."""
    src, dst = plan.source.path, plan.destination.path
    ctx.forget_read(dst)
    for path in ctx.reads_under(src):
        ctx.forget_read(path)
    for path, record in valid.items():
        moved = dst + path[len(src) :]
        try:
            remember_digest(ctx, moved, os.stat(moved), record.digest)
        except OSError:
            continue


def _still_true(records: dict[str, ReadRecord]) -> dict[str, ReadRecord]:
    valid = {}
    for path, record in records.items():
        try:
            if record.same_stat(os.stat(path)):
                valid[path] = record
        except OSError:
            continue
    return valid


def _listing(paths: list[str]) -> str:
    more = len(paths) - LISTED
    return "\n".join(paths[:LISTED] + ([f"... and {more} more"] if more > 0 else []))


@tool(
    name="Move",
    description=(
        "Moves or renames a file, symlink (the link itself) or directory within the allowed directories, "
        "creating missing parents. Replaces an existing destination only with overwrite=true, and only a "
        "symlink or a file read first in this session. Works across filesystems (copy, then delete); what was "
        "read stays read at the new path."
    ),
    parameters=(
        ToolParameter("source", "string", "Absolute path of the file or directory", required=True, path=True),
        ToolParameter(
            "destination",
            "string",
            "Absolute new path (the full path, not a folder to put it in)",
            required=True,
            path=True,
        ),
        ToolParameter("overwrite", "boolean", "Replace an existing destination file", default=False),
    ),
    cli_help=(
        "Move or rename SOURCE to DESTINATION (the full new path), creating missing parent directories. An "
        "existing destination is kept unless --overwrite. Works across filesystems. --dry-run changes nothing."
    ),
    read_only=False,
    destructive=True,
    results=(
        ResultField("source", "string", "Where the entry was, as an absolute path", always=True),
        ResultField("destination", "string", "Where it is now, as an absolute path", always=True),
        ResultField("type", "string", "file, symlink or directory", always=True),
        ResultField("overwritten", "boolean", "An existing destination file was replaced", always=True),
        ResultField("moved_count", "integer", "Entries moved, a directory's contents included", always=True),
        ResultField("cross_device", "boolean", "Copied to another filesystem, then removed at the source"),
        ResultField("created_dirs", "array", "Parent directories of the destination that were created"),
        DRY_RUN,
        JOURNAL,
    ),
)
def move(source: str, destination: str, *, overwrite: bool = False, ctx: ExecutionContext | None = None) -> ToolResult:
    """Move or rename a file, symlink or directory."""
    ctx = session(ctx)
    plan = plan_move(ctx, source, destination, overwrite)
    src, dst = plan.source, plan.destination
    moved_to = [dst.path + p[len(src.path) :] for p in plan.inside]
    what = f"{src.kind} {src.display} -> {dst.display}"
    if plan.replaces:
        what += f" (replacing the existing {dst.kind})"
    preview = f"Move {what}" + (f"\nWith its contents:\n{_listing(plan.inside)}" if plan.inside else "")
    authorize(ctx, move.spec, src.path, preview, covers=[dst.path, *plan.inside, *moved_to], moved=len(plan.inside) + 1)
    meta = {
        "source": src.path,
        "destination": dst.path,
        "type": src.kind,
        "overwritten": plan.replaces,
        "moved_count": len(plan.inside) + 1,
    }
    if ctx.dry_run:
        return ToolResult.ok(f"[Dry Run] Would move {what}", **meta)
    valid = _still_true(ctx.reads_under(src.path))
    recording = Recording(ctx, move.spec.name, src.root)
    with one_at_a_time(ctx, src.path, dst.path):
        cross_device, created = _journaled_move(plan, recording)
    _carry_reads(ctx, plan, valid)
    forget_files([src.path, dst.path])  # the source is gone; a destination replaced holds another text
    note = " (across filesystems: copied, then removed at the source)" if cross_device else ""
    meta["journal"] = recording.note()
    return ToolResult.ok(f"Moved {what}{note}", cross_device=cross_device, created_dirs=created, **meta)


def _record_move(recording: Recording, plan: MovePlan, src_fd: int, dst_fd: int, made: list[str]) -> None:
    """Journal the move before it lands: the directories made for it, what moves (by its stat: a
    rename keeps the content), and a replaced destination (kept by a hard link: the rename drops it)."""
    if not recording.active:
        return
    src, dst = plan.source, plan.destination
    for directory in made:
        recording.plan(directory, ABSENT, DIR_STATE)
    target = os.readlink(src.name, dir_fd=src_fd) if src.kind == "symlink" else None
    moved = state_of_stat(os.stat(src.name, dir_fd=src_fd, follow_symlinks=False), target)
    with recording.exclusive():  # the replaced file kept and the begin line that names it: no bound between
        replaced = entry_state(dst_fd, dst.name, recording) if plan.replaces else ABSENT
        recording.plan(src.path, moved, ABSENT)
        recording.plan(dst.path, replaced, moved)
        recording.move = (src.path, dst.path)
        recording.begin()


def _journaled_move(plan: MovePlan, recording: Recording) -> tuple[bool, list[str]]:
    """The move, journaled; (whether it copied across filesystems, the directories made for it)."""
    src, dst = plan.source, plan.destination
    created: list[str] = []
    landed = cross_device = False
    try:
        with (
            sandbox.parent_of(src.root, src.path) as src_parent,
            sandbox.parent_of(dst.root, dst.path, create=not dst.parent_exists) as dst_parent,
        ):
            created = list(dst_parent.made)
            try:
                _record_move(recording, plan, src_parent.fd, dst_parent.fd, created)
                cross_device = _rename(plan, src_parent.fd, dst_parent.fd)
                landed = True
            except SourceKept:
                landed = True
                raise  # the copy is in place: its directories stay
            except BaseException:
                dst_parent.remove_created()
                raise
    except FileExistsError:
        raise ToolError(
            ErrorCode.CONCURRENT_MODIFICATION,
            f"Destination was created while moving: {dst.display}; nothing was moved. Set overwrite=true to replace it",
        ) from None
    except SourceKept as exc:  # nothing is lost, but the agent must know both copies exist now
        reason = changed_or_failed(exc.error, src.display)
        raise ToolError(
            reason.code,
            f"Copied {src.display} to {dst.display}, but could not remove the source ({reason.message}): "
            "both exist now",
        ) from None
    except OSError as exc:
        if exc.errno == errno.ESTALE:  # the copy to another filesystem met an entry that changed meanwhile
            raise ToolError(
                ErrorCode.CONCURRENT_MODIFICATION,
                f"{src.display} changed while it was being copied to another filesystem; nothing was moved. Try again",
            ) from None
        raise changed_or_failed(exc, f"{src.display} -> {dst.display}") from None
    finally:  # an open search index learns of both ends now (also of a move that failed halfway)
        notify_changed([src.path, dst.path, *plan.inside, *[dst.path + p[len(src.path) :] for p in plan.inside]])
        if landed:
            recording.finish(states_now(src.root, [*created, src.path, dst.path]))
        else:
            recording.abort()
    return cross_device, created
