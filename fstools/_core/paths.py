"""Path policy: the one gate every tool's path goes through.

A path is canonicalised once (symlinks resolved) and that same canonical path is both
checked and used for the operation: the operation reaches it beneath the allowed root's
directory descriptor without following any symlink (`sandbox`), so a component swapped
for a symlink after the check makes it fail instead of leaving the root.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass

from . import sandbox
from .context import ExecutionContext
from .errors import ErrorCode, ToolError

# A path whose components keep changing into symlinks between the check and the stat is
# resolved again this many times before the call gives up.
_RESOLVE_ATTEMPTS = 4

MAX_PATH_LENGTH = 4096

_SPECIAL_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


@dataclass(frozen=True)
class SafePath:
    """A path that passed the policy: `path` is canonical, `display` is what the caller asked for,
    `root` the allowed root it lies in (every operation on it happens beneath that root)."""

    path: str
    display: str
    stat: os.stat_result | None
    root: str

    def open(self, flags: int, mode: int = 0o666) -> int:
        """A descriptor of the file, reached beneath the root through no symlink (OSError if it changed)."""
        return sandbox.open_beneath(self.root, self.path, flags, mode)

    @contextmanager
    def open_dir(self, flags: int = sandbox.O_PATH) -> Iterator[int]:
        """A descriptor of the directory itself, reached beneath the root, closed on exit."""
        fd = self.open(flags | os.O_DIRECTORY)
        try:
            yield fd
        finally:
            os.close(fd)

    def parent(self, *, create: bool = False) -> AbstractContextManager[sandbox.Parent]:
        """Its directory, held open beneath the root (`create`: the missing directories are made)."""
        return sandbox.parent_of(self.root, self.path, create=create)

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


def root_of(ctx: ExecutionContext, canonical: str) -> str | None:
    """The innermost allowed root that contains `canonical`, or None."""
    inside = [root for root in ctx.roots if is_within(canonical, root)]
    return max(inside, key=len) if inside else None


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
        hit = ctx.sensitive.first_match(path) or (ctx.sensitive.first_match(display) if display != path else None)
        if hit is not None:
            raise ToolError(
                ErrorCode.SENSITIVE_PATH,
                f"Access to a sensitive file is refused: {display} (matches {hit!r})",
            )


def resolve_path(ctx: ExecutionContext, raw: object, *, param: str = "file_path") -> SafePath:
    """Validate and canonicalise a user-supplied path, or raise ToolError saying why not.

    Args:
        ctx: The call's context: its roots, working directory and secrets.
        raw: The path as the caller gave it (relative ones are joined to the working directory).
        param: The parameter's name, for the messages.
    """
    raw = absolute_path(ctx, raw, param=param)
    display = os.path.abspath(raw)
    found = _without_links(ctx, raw, display)
    if found is None:
        found = _resolved(ctx, raw, display)
    if found.stat is not None:
        for check, kind in _SPECIAL_KINDS:
            if check(found.stat.st_mode):
                raise ToolError(ErrorCode.INVALID_PATH, f"Refusing to open {kind}: {display}")
    return found


def _without_links(ctx: ExecutionContext, raw: str, display: str) -> SafePath | None:
    """The path as written, when the kernel proves it canonical: reached with openat2 refusing every
    symlink on the way, a path with no `..` is its own realpath (one call instead of an lstat per
    component). None when that cannot be shown (a link, `..`, outside the roots as written, no
    openat2): `_resolved` then resolves it."""
    if "/.." in raw or display.startswith("//") or not sandbox.openat2.usable():
        return None
    root = root_of(ctx, display)
    if root is None:
        return None  # a link on the way may lead inside a root: resolved, it is judged there
    try:
        st: os.stat_result | None = sandbox.stat_beneath(root, display)
    except (FileNotFoundError, NotADirectoryError):
        st = None  # resolution stopped before any link: the rest is as literal as realpath leaves it
    except OSError:
        return None  # a symlink on the way (ELOOP), a refusal, another failure: the resolving path decides
    refuse_sensitive(ctx, display, display)  # only now: a path through a link is judged where it leads
    return SafePath(display, display, st, root)


def _resolved(ctx: ExecutionContext, raw: str, display: str) -> SafePath:
    """`raw` with its symlinks resolved, checked against the roots and secrets, and stat'ed beneath its root."""
    for attempt in range(_RESOLVE_ATTEMPTS):
        canonical = os.path.realpath(raw)
        root = _allowed(ctx, display, canonical)
        try:
            st: os.stat_result | None = sandbox.stat_beneath(root, canonical)
        except (FileNotFoundError, NotADirectoryError):
            st = None
        except PermissionError:
            raise ToolError(ErrorCode.PERMISSION_DENIED, f"Permission denied: {display}") from None
        except OSError as exc:
            if exc.errno in sandbox.RACE_ERRNOS and attempt + 1 < _RESOLVE_ATTEMPTS:
                continue  # a component became a symlink since realpath saw it: resolve again
            raise ToolError(ErrorCode.INVALID_PATH, f"Invalid path: {display} ({exc.strerror})") from None
        break
    return SafePath(canonical, display, st, root)


def _allowed(ctx: ExecutionContext, display: str, canonical: str) -> str:
    """The root `canonical` lies in; ToolError when it is outside every root or a secret."""
    root = root_of(ctx, canonical)
    if root is None:
        # Where a link leads out is not said: the name of an outside place is not the agent's to learn.
        where = display if canonical == display else f"{display} (a symbolic link on the way leads out of them)"
        raise ToolError(
            ErrorCode.PATH_OUTSIDE_WORKSPACE,
            f"Path is outside the allowed directories: {where}; allowed: {', '.join(ctx.roots)}",
        )
    refuse_sensitive(ctx, canonical, display)
    return root


def resolve_file_path(ctx: ExecutionContext, raw: object, *, param: str = "file_path") -> SafePath:
    """resolve_path for the tools that create or change a regular file (Write, Edit, MultiEdit):
    a trailing separator names a directory, and writing there would create a file under the
    directory's name. LS, Glob, Grep and Delete accept directories and use resolve_path."""
    if isinstance(raw, str) and raw.endswith((os.sep, os.altsep or os.sep)):
        raise ToolError(
            ErrorCode.INVALID_PATH, f"Invalid path: {param} ends with a path separator: it names a directory: {raw}"
        )
    return resolve_path(ctx, raw, param=param)
