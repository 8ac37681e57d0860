"""LS: the entries of one directory, directories first, with type, size and mtime.

With `respect_gitignore`, the entries that .gitignore/.ignore files exclude are left out,
as fd decides (it lists directories, which `rg --files` never does). It is off by default:
LS shows what is in a directory, and build output or ignored local files are often exactly
what an agent lists a directory to see.
"""

from __future__ import annotations

import os
import stat
import time
from dataclasses import dataclass

from .._core.binaries import require_binary
from .._core.confinement import confined
from .._core.context import ExecutionContext
from .._core.errors import ErrorCode, ToolError, changed_or_failed
from .._core.hints import param
from .._core.outputs import TRUNCATED, ResultField
from .._core.params import ToolParameter
from .._core.paths import SafePath, resolve_path, within_roots
from .._core.permissions import authorize
from .._core.public import session, tool
from .._core.result import ToolResult
from .._core.runner import StreamingProcess
from .._globs.globmatch import GlobError, GlobSet
from .._walk.excludes import DEFAULT_EXCLUDES, is_hidden
from .._walk.rules import walk_rules
from .._walk.walkers import WalkSpec, fd_ignore_flags, fd_version, parent_flags, with_parent_rules

DEFAULT_LIMIT = 1000


@dataclass(frozen=True)
class ListedEntry:
    name: str
    path: str
    type: str  # "dir", "file", "symlink" or "other"
    size: int
    mtime: float
    target: str | None = None  # where a symlink points, as written in the link; None when not shown

    def as_dict(self) -> dict[str, object]:
        return dict(self.__dict__)


def _entry_type(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "symlink"
    if stat.S_ISDIR(mode):
        return "dir"
    if stat.S_ISREG(mode):
        return "file"
    return "other"


def _format(entry: ListedEntry) -> str:
    size = "-" if entry.type == "dir" else str(entry.size)
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(entry.mtime))
    suffix = "/" if entry.type == "dir" else f" -> {entry.target}" if entry.target is not None else ""
    if entry.type == "symlink" and entry.target is None:
        suffix = " -> (not shown: outside the allowed directories, or a secret)"
    return f"{entry.type:<7} {size:>12}  {when}  {entry.name}{suffix}"


def _shown_target(ctx: ExecutionContext, directory: str, dir_fd: int, name: str) -> str | None:
    """Where a link points, as written in it, only when that is inside the roots and not a secret:
    the text of a link may name what the agent must not see (`-> /home/u/.aws/credentials`)."""
    text = os.readlink(name, dir_fd=dir_fd)
    canonical = os.path.realpath(os.path.join(directory, text))  # where it leads: decides only what is shown
    if not within_roots(ctx, canonical) or (ctx.sensitive and ctx.sensitive.matches(canonical)):
        return None
    return text


def _entry(ctx: ExecutionContext, directory: str, dir_fd: int, de: os.DirEntry[str]) -> ListedEntry | None:
    """The entry `de` of the open directory `dir_fd` (whose path is `directory`): stat and link
    target are read relative to that descriptor, never through a path."""
    try:
        st = de.stat(follow_symlinks=False)
        kind = _entry_type(st.st_mode)
        target = _shown_target(ctx, directory, dir_fd, de.name) if kind == "symlink" else None
    except OSError:
        return None  # gone since the directory was read
    return ListedEntry(de.name, os.path.join(directory, de.name), kind, st.st_size, st.st_mtime, target)


def _not_ignored(ctx: ExecutionContext, target: SafePath, warnings: list[str]) -> set[str]:
    """The names in the directory `target` that no ignore file excludes (fd, one level, hidden names
    included; fd runs confined like every walker, and its names only ever narrow the listing)."""
    directory = target.path
    fd = require_binary("fd")
    argv = [fd, "--max-depth", "1", "--hidden", "--print0", "--color", "never"]
    links = walk_rules(ctx, ls.spec).ignore_links_here(directory)  # fd never reads a forbidden link
    argv += fd_ignore_flags(links.flags)
    warnings += links.notes
    # The rules above the directory and its own, as git reads them (fd 8.6 reads .gitignore only in
    # a repository, and misreads some lines): fd applies them below its own reading.
    spec = with_parent_rules(WalkSpec(base=directory, ignore_flags=links.flags, max_depth=1), "fd")
    argv += parent_flags(spec)
    if fd_version(fd) >= (8, 7, 0) and not spec.in_repository:
        argv.append("--no-require-git")
    with (
        confined(ctx.roots, target.root, directory, fd) as confinement,
        StreamingProcess([*argv, "--", ".", "."], timeout=ctx.timeout, cwd=directory, confinement=confinement) as proc,
    ):
        listing = proc.read_all()
    if proc.timed_out:
        raise ToolError(ErrorCode.TIMEOUT, f"Timed out after {ctx.timeout:g}s applying ignore files in {directory}")
    return {os.path.basename(os.fsdecode(raw).rstrip("/")) for raw in listing.split(b"\0") if raw}


@tool(
    name="LS",
    description=(
        "Lists the entries of one directory: type (dir/file/symlink), size and modification time, "
        "directories first. Hidden files and dependency/VCS folders (.git, node_modules, __pycache__, .venv) "
        "are left out. Glob searches recursively."
    ),
    parameters=(
        ToolParameter("path", "string", "Absolute path of the directory (default: working directory)", path=True),
        ToolParameter("ignore", "array", 'Name globs to leave out, e.g. ["*.log", "build"]'),
        ToolParameter("hidden", "boolean", "Include hidden entries (names starting '.')", default=False),
        ToolParameter("limit", "integer", "Most entries returned", default=DEFAULT_LIMIT, minimum=1, maximum=100000),
        ToolParameter(
            "respect_gitignore", "boolean", "Leave out entries .gitignore/.ignore files exclude", default=False
        ),
    ),
    cli_help=(
        "List a directory (default: the current one): type, size, modification time and name, directories "
        "first. Hidden entries and folders such as .git and node_modules are left out; --hidden shows hidden "
        "ones, --ignore GLOB leaves out more."
    ),
    read_only=True,
    results=(
        ResultField("path", "string", "The directory listed", always=True),
        ResultField("count", "integer", "Entries shown or not (after the filters)", always=True),
        ResultField("returned", "integer", "Entries shown", always=True),
        TRUNCATED,
        ResultField("hidden_skipped", "integer", "Hidden entries left out", always=True),
        ResultField("entries", "array", "The entries shown: name, path, type, size, mtime, target", always=True),
        ResultField("warnings", "array", "Why ignore files could not be fully applied (respect_gitignore)"),
    ),
)
def ls(
    path: str | None = None,
    *,
    ignore: list[str] | None = None,
    hidden: bool = False,
    limit: int = DEFAULT_LIMIT,
    respect_gitignore: bool = False,
    ctx: ExecutionContext | None = None,
) -> ToolResult:
    """List one directory."""
    ctx = session(ctx)
    target = resolve_path(ctx, path or ctx.working_dir, param="path")
    if not target.exists:
        raise ToolError(ErrorCode.DIRECTORY_NOT_FOUND, f"Directory not found: {target.display}")
    if not target.is_dir:
        raise ToolError(ErrorCode.DIRECTORY_NOT_FOUND, f"Not a directory: {target.display}")
    authorize(ctx, ls.spec, target.path)
    try:
        ignored = GlobSet([*(ignore or ()), *DEFAULT_EXCLUDES])
    except GlobError as exc:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"Invalid argument 'ignore': {exc}") from None
    try:
        with target.open_dir(os.O_RDONLY) as dir_fd:
            return _listing(ctx, target, dir_fd, ignored, hidden, limit, respect_gitignore)
    except PermissionError:
        raise ToolError(ErrorCode.PERMISSION_DENIED, f"Permission denied: {target.display}") from None
    except OSError as exc:
        raise changed_or_failed(exc, target.display) from None


def _listing(
    ctx: ExecutionContext,
    target: SafePath,
    dir_fd: int,
    ignored: GlobSet,
    hidden: bool,
    limit: int,
    respect_gitignore: bool,
) -> ToolResult:
    """The entries of the open directory `dir_fd`, the directory `target` names."""
    directory = target.path
    candidates: list[os.DirEntry[str]] = []
    hidden_skipped = 0
    with os.scandir(dir_fd) as it:
        for de in it:
            if not hidden and is_hidden(de.name):
                hidden_skipped += 1
            elif not ignored.matches(de.name):
                candidates.append(de)
    warnings: list[str] = []
    if respect_gitignore:
        kept = _not_ignored(ctx, target, warnings)
        candidates = [de for de in candidates if de.name in kept]
    if ctx.sensitive or ctx.permissions is not None:
        prefix = directory.rstrip("/") + "/"
        paths = [prefix + de.name for de in candidates]
        allowed = set(walk_rules(ctx, ls.spec).visible(paths))
        candidates = [de for de in candidates if prefix + de.name in allowed]
    # The order needs only the entry type the directory listing already carries; only the
    # entries shown are stat-ed, so a huge directory costs one stat per shown entry.
    candidates.sort(key=lambda de: (not de.is_dir(follow_symlinks=False), de.name.lower(), de.name))
    shown = [e for e in (_entry(ctx, directory, dir_fd, de) for de in candidates[:limit]) if e is not None]
    entries_total = len(candidates) - (min(limit, len(candidates)) - len(shown))
    lines = [f"{directory.rstrip('/')}/"] + [_format(e) for e in shown]
    truncated = entries_total > len(shown)
    if truncated:
        more = entries_total - len(shown)
        lines.append(f"... {more} more entries not shown (raise {param(ctx, 'limit')} to see them)")
    return ToolResult.ok(
        "\n".join(lines),
        path=directory,
        count=entries_total,
        returned=len(shown),
        truncated=truncated,
        hidden_skipped=hidden_skipped,
        entries=[e.as_dict() for e in shown],
        **({"warnings": warnings} if warnings else {}),
    )
