"""Files with more than one hard link: what a path sandbox cannot see, said on every result.

A hard link inside the allowed directories may name a file whose other names lie outside
them: reading it reads that file, and an edit (made in place, to keep the links) changes it
everywhere. The sandbox checks names, so it cannot tell; the result says so instead.
"""

from __future__ import annotations

import functools
import os
import stat
from collections.abc import Callable
from typing import ParamSpec

from .result import ToolResult

P = ParamSpec("P")


def hard_link_warning(links: int) -> str:
    return (
        f"This file has {links} hard links: the same content is reachable under other names, possibly outside "
        "the allowed directories, and a change here changes it there too"
    )


def hard_links_warning(found: dict[str, int], examples: int) -> str:
    """The warning for a list of results, `examples` of the hard-linked files named."""
    names = ", ".join(list(found)[:examples]) + (f" and {len(found) - examples} more" if len(found) > examples else "")
    return (
        f"{len(found)} file(s) shown have other hard links: the same content is reachable under other names, "
        f"possibly outside the allowed directories: {names}"
    )


def note_hard_links(run: Callable[P, ToolResult]) -> Callable[P, ToolResult]:
    """Wrap a file tool's implementation: a successful result for a file with st_nlink > 1 gets
    metadata["hard_links"] and a warning."""

    @functools.wraps(run)
    def wrapped(*args: P.args, **kwargs: P.kwargs) -> ToolResult:
        result = run(*args, **kwargs)
        path = result.metadata.get("file_path")
        if not result.success or not isinstance(path, str):
            return result
        try:
            st = os.stat(path)
        except OSError:
            return result
        if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
            result.metadata["hard_links"] = st.st_nlink
            result.metadata["warnings"] = [*(result.metadata.get("warnings") or ()), hard_link_warning(st.st_nlink)]
        return result

    return wrapped
