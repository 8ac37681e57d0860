"""LS: the entries of one directory, directories first, with type, size and mtime."""

from __future__ import annotations

import os
import stat
import time
from dataclasses import asdict, dataclass

from ._context import ExecutionContext
from ._errors import ErrorCode, ToolError
from ._excludes import DEFAULT_EXCLUDES, is_hidden
from ._globmatch import glob_match
from ._invoke import ToolSpec, authorize, invoke
from ._params import ToolParameter
from ._paths import resolve_path
from ._result import ToolResult
from ._tool import FileTool

DEFAULT_LIMIT = 1000


@dataclass(frozen=True)
class Entry:
    name: str
    path: str
    type: str  # "dir", "file", "symlink" or "other"
    size: int
    mtime: float


def _entry_type(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "symlink"
    if stat.S_ISDIR(mode):
        return "dir"
    if stat.S_ISREG(mode):
        return "file"
    return "other"


def _format(entry: Entry) -> str:
    size = "-" if entry.type == "dir" else str(entry.size)
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(entry.mtime))
    suffix = "/" if entry.type == "dir" else ""
    return f"{entry.type:<7} {size:>12}  {when}  {entry.name}{suffix}"


def _ls(ctx: ExecutionContext, path: str | None, ignore: list[str] | None, hidden: bool, limit: int) -> ToolResult:
    target = resolve_path(ctx, path or ctx.working_dir, param="path")
    if not target.exists:
        raise ToolError(ErrorCode.DIRECTORY_NOT_FOUND, f"Directory not found: {target.display}")
    if not target.is_dir:
        raise ToolError(ErrorCode.DIRECTORY_NOT_FOUND, f"Not a directory: {target.display}")
    authorize(ctx, "LS", target.path)
    patterns = [*(ignore or ()), *DEFAULT_EXCLUDES]
    entries: list[Entry] = []
    hidden_skipped = 0
    try:
        with os.scandir(target.path) as it:
            for de in it:
                if not hidden and is_hidden(de.name):
                    hidden_skipped += 1
                    continue
                if any(glob_match(p, de.name) for p in patterns):
                    continue
                if ctx.sensitive and ctx.sensitive.matches(de.path):
                    continue
                try:
                    st = de.stat(follow_symlinks=False)
                except OSError:
                    continue
                entries.append(Entry(de.name, de.path, _entry_type(st.st_mode), st.st_size, st.st_mtime))
    except PermissionError:
        raise ToolError(ErrorCode.PERMISSION_DENIED, f"Permission denied: {target.display}") from None
    entries.sort(key=lambda e: (e.type != "dir", e.name.lower(), e.name))
    shown = entries[:limit]
    lines = [f"{target.path}/"] + [_format(e) for e in shown]
    truncated = len(entries) > limit
    if truncated:
        lines.append(f"... {len(entries) - limit} more entries not shown (raise limit to see them)")
    return ToolResult.ok(
        "\n".join(lines),
        path=target.path,
        count=len(entries),
        returned=len(shown),
        truncated=truncated,
        hidden_skipped=hidden_skipped,
        entries=[asdict(e) for e in shown],
    )


LS_SPEC = ToolSpec(
    name="LS",
    description=(
        "Lists the entries of one directory: type (dir/file/symlink), size and modification time, "
        "directories first. Hidden files and dependency/VCS folders (.git, node_modules, __pycache__, .venv) "
        "are left out; `ignore` takes extra glob patterns. Use Glob to search recursively."
    ),
    parameters=(
        ToolParameter("path", "string", "Absolute path of the directory to list (default: the working directory)"),
        ToolParameter("ignore", "array", "Glob patterns of names to leave out, e.g. [\"*.log\", \"build\"]"),
        ToolParameter("hidden", "boolean", "Include hidden entries (names starting with '.')", default=False),
        ToolParameter("limit", "integer", "Maximum entries to return", default=DEFAULT_LIMIT, minimum=1, maximum=100000),
    ),
    run=_ls,
    read_only=True,
)


def ls(
    path: str | None = None,
    *,
    ignore: list[str] | None = None,
    hidden: bool = False,
    limit: int = DEFAULT_LIMIT,
    ctx: ExecutionContext | None = None,
) -> ToolResult:
    """List one directory (see LS_SPEC for the parameters)."""
    return invoke(LS_SPEC, ctx, {"path": path, "ignore": ignore, "hidden": hidden, "limit": limit})


class LSTool(FileTool):
    spec = LS_SPEC
