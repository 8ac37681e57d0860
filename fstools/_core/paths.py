"""Path policy: the one gate every tool's path goes through.

A path is canonicalised once (symlinks resolved) and that same canonical path is both
checked and used for the operation, so a symlink cannot point the check one way and
the I/O another.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass

from .context import ExecutionContext
from .errors import ErrorCode, ToolError

MAX_PATH_LENGTH = 4096

_SPECIAL_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


@dataclass(frozen=True)
class SafePath:
    """A path that passed the policy: `path` is canonical, `display` is what the caller asked for."""

    path: str
    display: str
    stat: os.stat_result | None

    @property
    def exists(self) -> bool:
        return self.stat is not None

    @property
    def is_dir(self) -> bool:
        return self.stat is not None and stat.S_ISDIR(self.stat.st_mode)

    @property
    def is_file(self) -> bool:
        return self.stat is not None and stat.S_ISREG(self.stat.st_mode)


def is_within(path: str, root: str) -> bool:
    """Separator-aware containment: /a/proj contains /a/proj/x, not /a/proj2."""
    if path == root:
        return True
    prefix = root if root.endswith(os.sep) else root + os.sep
    return path.startswith(prefix)


def within_roots(ctx: ExecutionContext, canonical: str) -> bool:
    return any(is_within(canonical, root) for root in ctx.roots)


def absolute_path(ctx: ExecutionContext, raw: object, *, param: str = "file_path") -> str:
    """A user-supplied path checked (a non-empty string, no NUL byte, not too long, absolute unless
    the context allows relative ones) and joined to the working directory if relative, but not
    normalised (`link/..` is the kernel's to resolve); ToolError if not."""
    if not isinstance(raw, str) or not raw:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"{param} must be a non-empty string")
    if "\x00" in raw:
        raise ToolError(ErrorCode.INVALID_PATH, f"Invalid path: {param} contains a NUL byte")
    if len(raw) > MAX_PATH_LENGTH:
        raise ToolError(ErrorCode.INVALID_PATH, f"Invalid path: {param} is longer than {MAX_PATH_LENGTH} characters")
    if not os.path.isabs(raw):
        if not ctx.allow_relative_paths:
            raise ToolError(ErrorCode.INVALID_PATH, f"{param} must be an absolute path, got: {raw}")
        raw = os.path.join(ctx.working_dir, raw)
    return raw


def refuse_sensitive(ctx: ExecutionContext, path: str, display: str) -> None:
    """ToolError when `path` (as used) or `display` (as given) names a secret: a link cannot hide one."""
    if ctx.sensitive:
        hit = ctx.sensitive.first_match(path) or ctx.sensitive.first_match(display)
        if hit is not None:
            raise ToolError(
                ErrorCode.SENSITIVE_PATH,
                f"Access to a sensitive file is refused: {display} (matches {hit!r})",
            )


def resolve_path(ctx: ExecutionContext, raw: object, *, param: str = "file_path") -> SafePath:
    """Validate and canonicalise a user-supplied path, or raise ToolError saying why not."""
    raw = absolute_path(ctx, raw, param=param)
    display = os.path.abspath(raw)
    canonical = os.path.realpath(raw)
    if not within_roots(ctx, canonical):
        where = display if canonical == display else f"{display} (resolves to {canonical})"
        raise ToolError(
            ErrorCode.PATH_OUTSIDE_WORKSPACE,
            f"Path is outside the allowed directories: {where}; allowed: {', '.join(ctx.roots)}",
        )
    refuse_sensitive(ctx, canonical, display)
    try:
        st: os.stat_result | None = os.stat(canonical)
    except FileNotFoundError:
        st = None
    except NotADirectoryError:
        st = None
    except PermissionError:
        raise ToolError(ErrorCode.PERMISSION_DENIED, f"Permission denied: {display}") from None
    except OSError as exc:
        raise ToolError(ErrorCode.INVALID_PATH, f"Invalid path: {display} ({exc.strerror})") from None
    if st is not None:
        for check, kind in _SPECIAL_KINDS:
            if check(st.st_mode):
                raise ToolError(ErrorCode.INVALID_PATH, f"Refusing to open {kind}: {display}")
    return SafePath(canonical, display, st)


def resolve_file_path(ctx: ExecutionContext, raw: object, *, param: str = "file_path") -> SafePath:
    """resolve_path for the tools that create or change a regular file (Write, Edit, MultiEdit):
    a trailing separator names a directory, and writing there would create a file under the
    directory's name. LS, Glob, Grep and Delete accept directories and use resolve_path."""
    if isinstance(raw, str) and raw.endswith((os.sep, os.altsep or os.sep)):
        raise ToolError(
            ErrorCode.INVALID_PATH, f"Invalid path: {param} ends with a path separator: it names a directory: {raw}"
        )
    return resolve_path(ctx, raw, param=param)
