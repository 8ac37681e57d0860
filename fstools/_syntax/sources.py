"""A source file's bytes, read to be parsed: a regular file opened beneath its root, up to a size."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable

from .._core.errors import ErrorCode, ToolError, changed_or_failed
from .._core.paths import SafePath

MAX_SOURCE_BYTES = 8 * 1024 * 1024  # a larger file is generated or data: not parsed


def read_source(target: SafePath, limit: int, too_large: Callable[[int], str]) -> tuple[bytes, os.stat_result]:
    """The bytes of the regular file `target` and their stat; ToolError if it cannot be read or is larger
    than `limit` bytes (`too_large(size)` says so in the caller's words)."""
    try:
        fd = target.open(os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise changed_or_failed(exc, target.display) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ToolError(ErrorCode.INVALID_PATH, f"Not a regular file: {target.display}")
        if st.st_size > limit:
            raise ToolError(ErrorCode.FILE_TOO_LARGE, too_large(st.st_size))
        return os.pread(fd, st.st_size, 0), st
    finally:
        os.close(fd)
