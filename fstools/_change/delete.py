"""Delete: remove a file, a symlink (never what it points to) or, with recursive=true, a directory tree.

An allowed root, or anything containing one, is never removed, and neither is a tree that
holds a sensitive file. Delete needs no prior read, but says exactly what it removed.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field

from .._core.context import ExecutionContext
from .._core.errors import ErrorCode, ToolError, changed_or_failed
from .._core.hints import setting
from .._core.outputs import DIFF, DRY_RUN, JOURNAL, ResultField
from .._core.params import ToolParameter
from .._core.paths import MAX_PATH_LENGTH, SafePath, is_within, refuse_sensitive, resolve_path
from .._core.permissions import authorize
from .._core.public import session, tool
from .._core.result import ToolResult
from .._index.opened import notify_changed
from .._journal.recorder import NotKept, Recording
from .._journal.states import ABSENT
from .._journal.store import disk_full
from .._syntax.review import forget_files
from .diff import unified_diff, whole_text_changes
from .document import decode_document
from .guard import load, one_at_a_time
from .journaling import record_removal, states_now
from .tree import Progress, remove_listed, walk_tree

LISTED = 100


@dataclass(frozen=True)
class Removal:
    """What a Delete removes: `paths` top-down (the entry itself first); for a directory, `entries`
    are the same paths below it, relative, each with whether it is a directory."""

    victim: str
    kind: str  # "file", "symlink" or "directory"
    paths: list[str]
    files: int
    directories: int
    entries: list[tuple[str, bool]] = field(default_factory=list)


def _link(ctx: ExecutionContext, path: str) -> SafePath | None:
    """The symlink `path` names, judged by where the link itself lives, or None if it names no symlink.

    Delete removes the link, never its target, so where the link points (outside, a loop, a
    secret) does not matter: its directory must be allowed and its own name not sensitive.
    """
    if not path or "\x00" in path or len(path) > MAX_PATH_LENGTH:
        return None
    if not os.path.isabs(path):
        if not ctx.allow_relative_paths:
            return None
        path = os.path.join(ctx.working_dir, path)
    display = os.path.abspath(path)
    head, name = os.path.split(display)
    if not name or not os.path.islink(os.path.join(os.path.realpath(head), name)):
        return None
    directory = resolve_path(ctx, head, param="path")
    link = os.path.join(directory.path, name)
    refuse_sensitive(ctx, link, display)
    try:
        with directory.open_dir() as dir_fd:
            st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except OSError as exc:
        raise changed_or_failed(exc, display) from None
    return SafePath(link, display, st, directory.root) if stat.S_ISLNK(st.st_mode) else None


def _kind(mode: int) -> str:
    return "symlink" if stat.S_ISLNK(mode) else "directory" if stat.S_ISDIR(mode) else "file"


def _inventory(ctx: ExecutionContext, target: SafePath, recursive: bool) -> Removal:
    victim = target.path
    if target.stat is None:
        raise ToolError(ErrorCode.FILE_NOT_FOUND, f"File not found: {target.display}")
    if any(is_within(root, victim) for root in ctx.roots):
        raise ToolError(
            ErrorCode.PERMISSION_DENIED,
            f"Refusing to delete {target.display}: it is, or contains, an allowed root directory",
        )
    kind = _kind(target.stat.st_mode)
    if kind != "directory":
        return Removal(victim, kind, [victim], 1, 0)
    if not recursive:
        raise ToolError(
            ErrorCode.IS_DIRECTORY,
            f"Is a directory: {target.display}. "
            f"Set {setting(ctx, 'recursive', True)} to delete it and everything in it",
        )
    try:
        with target.open_dir(os.O_RDONLY) as dir_fd:
            entries = walk_tree(dir_fd)
    except OSError as exc:
        raise changed_or_failed(exc, target.display) from None
    paths = [victim] + [os.path.join(victim, rel) for rel, _ in entries]
    directories = 1 + sum(is_dir for _, is_dir in entries)
    secret = next((p for p in paths if ctx.sensitive and ctx.sensitive.matches(p)), None)
    if secret is not None:
        raise ToolError(
            ErrorCode.SENSITIVE_PATH, f"Refusing to delete {target.display}: it contains a sensitive file ({secret})"
        )
    return Removal(victim, "directory", paths, len(entries) + 1 - directories, directories, entries)


def _file_diff(ctx: ExecutionContext, target: SafePath, removal: Removal) -> str | None:
    """The deleted text as a diff to /dev/null, for a text file small enough to show."""
    if removal.kind != "file":
        return None
    seen = load(ctx, target, max_bytes=ctx.max_edit_bytes)
    if seen is None or seen.data is None:
        return None
    try:
        text = decode_document(seen.data, target.display).text
    except ToolError:
        return None
    return unified_diff(text, "", whole_text_changes(text, ""), old_label=target.display, new_label="/dev/null")


def _listing(removal: Removal) -> str:
    """What a removal takes: a file or link is its own path, already named; a tree lists its paths."""
    if removal.kind != "directory":
        return ""
    lines = removal.paths[:LISTED]
    more = len(removal.paths) - len(lines)
    return "\n".join(lines + ([f"... and {more} more"] if more else []))


@tool(
    name="Delete",
    description=(
        "Deletes a file or a symlink (the link itself, never its target); a directory only with recursive=true, "
        "with everything in it. Never an allowed root directory or a tree holding secrets. The result lists "
        "what was removed."
    ),
    parameters=(
        ToolParameter("path", "string", "Absolute path of the file, symlink or directory", required=True, path=True),
        ToolParameter("recursive", "boolean", "Required to delete a directory and all its contents", default=False),
    ),
    cli_help=(
        "Delete a file or a symlink (the link, never its target); a directory only with --recursive, with "
        "everything in it. An allowed root and a tree holding secrets are never deleted. --dry-run lists what "
        "would go."
    ),
    read_only=False,
    destructive=True,
    results=(
        ResultField("path", "string", "The path deleted", always=True),
        ResultField("type", "string", "file, symlink or directory", always=True),
        ResultField("removed", "array", "The first paths removed", always=True),
        ResultField("removed_count", "integer", "Paths removed, the directory itself included", always=True),
        ResultField("files", "integer", "Files removed", always=True),
        ResultField("directories", "integer", "Directories removed", always=True),
        DIFF,
        DRY_RUN,
        JOURNAL,
    ),
)
def delete(path: str, *, recursive: bool = False, ctx: ExecutionContext | None = None) -> ToolResult:
    """Delete a file, a symlink or (recursive=True) a directory."""
    ctx = session(ctx)
    target = _link(ctx, path) or resolve_path(ctx, path, param="path")
    removal = _inventory(ctx, target, recursive)
    diff = _file_diff(ctx, target, removal)
    meta = {
        "path": removal.victim,
        "type": removal.kind,
        "removed": removal.paths[:LISTED],
        "removed_count": len(removal.paths),
        "files": removal.files,
        "directories": removal.directories,
    }
    if diff is not None:
        meta["diff"] = diff
    what = f"{removal.kind} {target.display}"
    if removal.kind == "directory":
        what += f" ({removal.files} files, {removal.directories - 1} subdirectories)"
    # Every path the removal deletes is judged: a deny on any refuses it all, an ask on any asks once.
    preview = diff if removal.kind != "directory" else f"Would remove:\n{_listing(removal)}"
    authorize(ctx, delete.spec, removal.victim, preview, covers=removal.paths[1:], removed=len(removal.paths))
    if ctx.dry_run:
        return ToolResult.ok(_said(f"[Dry Run] Would delete {what}", removal), **meta)
    with one_at_a_time(ctx, removal.victim):
        meta["journal"] = _journaled_remove(ctx, target, removal)
    for p in removal.paths:
        ctx.forget_read(p)
    forget_files([removal.victim])
    return ToolResult.ok(_said(f"Deleted {what}", removal), **meta)


def _said(headline: str, removal: Removal) -> str:
    listing = _listing(removal)
    return f"{headline}:\n{listing}" if listing else headline


def _journaled_remove(ctx: ExecutionContext, target: SafePath, removal: Removal) -> str:
    """Remove what the inventory listed, journaled first (every file kept, by a hard link where it can be)."""
    recording = Recording(ctx, "Delete", target.root, must_keep=True)
    try:
        with recording.exclusive():  # the kept files and the begin line that names them: no bound between
            record_removal(recording, target.root, removal.paths)
            recording.begin()
    except NotKept as exc:
        raise ToolError(
            ErrorCode.IO_ERROR,
            f"Did not delete {target.display}: {exc}, so the deletion could not be taken back. Nothing was deleted",
        ) from None
    except OSError as exc:
        if disk_full(exc):
            raise
        raise changed_or_failed(exc, target.display) from None
    try:
        _remove(target, removal)
    except BaseException:
        recording.finish(states_now(target.root, removal.paths))
        raise
    finally:  # what is gone, even in part, an open search index learns now
        notify_changed(removal.paths)
    recording.finish(dict.fromkeys(removal.paths, ABSENT))
    return recording.note()


def _remove(target: SafePath, removal: Removal) -> None:
    """Remove what the inventory listed, and only that, relative to directory descriptors opened
    beneath the root: a directory swapped for a symlink meanwhile is never entered."""
    done = Progress()
    try:
        with target.parent() as parent:
            st = os.stat(parent.name, dir_fd=parent.fd, follow_symlinks=False)
            if _kind(st.st_mode) != removal.kind:
                raise ToolError(
                    ErrorCode.CONCURRENT_MODIFICATION, f"{target.display} changed while it was being deleted"
                )
            if removal.kind == "directory":
                top = os.open(parent.name, _SUBDIR, dir_fd=parent.fd)
                try:
                    remove_listed(top, removal.entries, done)
                finally:
                    os.close(top)
                os.rmdir(parent.name, dir_fd=parent.fd)
            else:
                os.unlink(parent.name, dir_fd=parent.fd)
    except OSError as exc:
        err = changed_or_failed(exc, os.path.join(removal.victim, exc.filename) if exc.filename else target.display)
        raise ToolError(err.code, f"{err.message} ({done.removed} of {len(removal.paths)} entries deleted)") from None


_SUBDIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
