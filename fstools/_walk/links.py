"""Symbolic links a walk that follows links must not take: those leading out of the allowed roots.

rg and fd follow every link they meet; one link to `/` turns a Glob into a walk of the
whole machine (it ran into the timeout and returned nothing). Before such a walk, the
tree is scanned once, following only links that stay inside, and each link that leaves
(or leads to a secret) becomes an exclusion anchored at the walk's base.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable

from .._globs.globmatch import GlobSet
from .excludes import DEFAULT_EXCLUDES

_GLOB_SPECIAL = frozenset("\\*?[]{}")
# A scan that meets this many entries stops: the walker's own timeout bounds what follows.
MAX_SCANNED = 500_000


def _escape(relative: str) -> str:
    return "".join("\\" + c if c in _GLOB_SPECIAL else c for c in relative)


def _note(loops: list[str] | None, relative: str) -> None:
    if loops is not None:
        loops.append(relative.lstrip("/"))


def _is_dir(entry: os.DirEntry[str], loops: list[str] | None, relative: str) -> bool:
    """Whether the entry is a directory, its links followed (a link loop, `b -> b`, is not one)."""
    try:
        return entry.is_dir()
    except OSError as exc:  # the walker skips it too
        if exc.errno == errno.ELOOP:
            _note(loops, relative)
        return False


def escaping_links(base: str, allowed: Callable[[str], bool], loops: list[str] | None = None) -> list[str]:
    """Anchored excludes (`/sub/link`) for the links below `base` whose target `allowed` refuses.

    A directory is scanned on every path the walker will take to it (an in-root link is an
    alias), never twice on one path (a link to an ancestor is a loop, as for the walker).
    The loops met (a link to an ancestor, or one that resolves to itself) go to `loops`.
    """
    skip = GlobSet(DEFAULT_EXCLUDES)
    excluded: list[str] = []
    stack: list[tuple[str, str, frozenset[tuple[int, int]]]] = [(base, "", frozenset())]
    scanned = 0
    while stack and scanned < MAX_SCANNED:
        directory, relative, ancestors = stack.pop()
        try:
            st = os.stat(directory)
            identity = (st.st_dev, st.st_ino)
            if identity in ancestors:
                _note(loops, relative)
                continue
            with os.scandir(directory) as it:
                entries = list(it)
        except OSError:
            continue
        scanned += len(entries)
        below = ancestors | {identity}
        for entry in entries:
            if skip.matches(entry.name):
                continue
            path, rel = entry.path, f"{relative}/{entry.name}"
            if entry.is_symlink() and not allowed(os.path.realpath(path)):
                excluded.append("/" + _escape(rel.lstrip("/")))
                continue
            if _is_dir(entry, loops, rel):  # follows an allowed link
                stack.append((path, rel, below))
    return excluded
