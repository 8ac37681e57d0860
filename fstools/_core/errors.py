"""Error codes and the internal exception that carries them to a ToolResult."""

from __future__ import annotations

import errno
from enum import Enum


class ErrorCode(str, Enum):
    """Stable, machine-readable failure reasons; the values are part of the public contract."""

    FILE_NOT_FOUND = "file_not_found"
    IS_DIRECTORY = "is_directory"
    DIRECTORY_NOT_FOUND = "directory_not_found"
    INVALID_PATH = "invalid_path"
    PATH_OUTSIDE_WORKSPACE = "path_outside_workspace"
    SENSITIVE_PATH = "sensitive_path"
    PERMISSION_DENIED = "permission_denied"
    BINARY_FILE = "binary_file"
    ENCODING_ERROR = "encoding_error"
    FILE_TOO_LARGE = "file_too_large"
    NOT_READ = "not_read"
    CONCURRENT_MODIFICATION = "concurrent_modification"
    NOT_FOUND = "not_found"
    NOT_UNIQUE = "not_unique"
    NO_CHANGE = "no_change"
    INVALID_REGEX = "invalid_regex"
    INVALID_ARGUMENT = "invalid_argument"
    TIMEOUT = "timeout"
    DISK_FULL = "disk_full"
    USER_REJECTED = "user_rejected"
    RATE_LIMITED = "rate_limited"
    MISSING_BINARY = "missing_binary"
    IO_ERROR = "io_error"
    SYNTAX_ERROR = "syntax_error"

    def __str__(self) -> str:
        return self.value


class ToolError(Exception):
    """Raised inside tool implementations; the invoke pipeline turns it into a failed ToolResult.

    Internals raise instead of threading results through every helper; the public
    functions never let it escape.
    """

    def __init__(self, code: ErrorCode, message: str, **metadata: object) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.metadata = metadata


_ERRNO_CODES: dict[int, tuple[ErrorCode, str]] = {
    errno.ENOENT: (ErrorCode.FILE_NOT_FOUND, "File not found"),
    errno.EACCES: (ErrorCode.PERMISSION_DENIED, "Permission denied"),
    errno.EPERM: (ErrorCode.PERMISSION_DENIED, "Permission denied"),
    errno.EROFS: (ErrorCode.PERMISSION_DENIED, "Permission denied (read-only file system)"),
    errno.ENOSPC: (ErrorCode.DISK_FULL, "No space left on device"),
    errno.EDQUOT: (ErrorCode.DISK_FULL, "Disk quota exceeded"),
    errno.EFBIG: (ErrorCode.FILE_TOO_LARGE, "File too large"),
    errno.EISDIR: (ErrorCode.IS_DIRECTORY, "Is a directory"),
    errno.ENOTDIR: (ErrorCode.DIRECTORY_NOT_FOUND, "Not a directory"),
    errno.ENAMETOOLONG: (ErrorCode.INVALID_PATH, "File name too long"),
    errno.ELOOP: (ErrorCode.INVALID_PATH, "Too many levels of symbolic links"),
}


def error_from_oserror(exc: OSError, path: str) -> ToolError:
    """Map an OSError to a ToolError whose message names the path and the reason."""
    code, reason = _ERRNO_CODES.get(exc.errno or 0, (ErrorCode.IO_ERROR, exc.strerror or str(exc)))
    return ToolError(code, f"{reason}: {path}")


# Errors an operation beneath a root meets when a checked path changed before its use: a
# component is a symlink now (never followed), or would lead out of the root.
_SWAPPED = (errno.ELOOP, errno.EXDEV)


def changed_or_failed(exc: OSError, path: str) -> ToolError:
    """error_from_oserror, except that a path found swapped for a symlink since its check is
    concurrent_modification: the sandbox refused to follow it."""
    if exc.errno in _SWAPPED:
        return ToolError(
            ErrorCode.CONCURRENT_MODIFICATION,
            f"Path changed while in use: a component of {path} was replaced by a symbolic link; "
            "it was not followed. Try again.",
        )
    return error_from_oserror(exc, path)
