"""The ignore files that are symlinks in a tree, found by a walk and remembered between calls.

The walk reads directory entries only (no stat per file) and goes wherever rg could: every
directory except the default excludes (and hidden ones when rg skips them). It remembers
each directory's entries with its lstat signature, so a later walk of the same tree lstats
each directory and lists again only those that changed: creating, renaming or removing a
link changes its directory's mtime and ctime. A directory changed in the last RACY_NS is
listed again every time (a second change in the same clock tick would not show).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

from .._core.excludes import DEFAULT_EXCLUDES, is_hidden
from .._core.ignorefiles import IGNORE_NAMES

RACY_NS = 2_000_000_000
# Trees remembered (by root and hidden-directory rule); the oldest is forgotten first.
_TREES = 16
Sig = tuple[int, int, int]


@dataclass(frozen=True)
class _Listing:
    sig: Sig | None  # None: changed too recently to be trusted next time
    links: tuple[str, ...]  # ignore files in it that are symlinks (and a .git/info/exclude that is one)
    subdirs: tuple[str, ...]


_trees: dict[tuple[str, bool], dict[str, _Listing]] = {}


def _sig(st: os.stat_result, now: int) -> Sig | None:
    if now - max(st.st_mtime_ns, st.st_ctime_ns) < RACY_NS:
        return None
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def _list(directory: str, st: os.stat_result, now: int, hidden: bool) -> _Listing | None:
    links: list[str] = []
    subdirs: list[str] = []
    try:
        with os.scandir(directory) as entries:
            for entry in entries:
                name = entry.name
                if name in IGNORE_NAMES:
                    if entry.is_symlink():
                        links.append(entry.path)
                elif name == ".git":
                    exclude = os.path.join(entry.path, "info", "exclude")
                    if os.path.islink(exclude):
                        links.append(exclude)
                elif (
                    name not in DEFAULT_EXCLUDES
                    and (hidden or not is_hidden(name))
                    and entry.is_dir(follow_symlinks=False)
                ):
                    subdirs.append(entry.path)
    except OSError:
        return None
    return _Listing(_sig(st, now), tuple(links), tuple(subdirs))


def linked_ignore_files(root: str, *, hidden: bool) -> list[str]:
    """The symlinked ignore files in `root`'s tree (hidden directories too when `hidden`)."""
    key = (root, hidden)
    known = _trees.pop(key, {})
    fresh: dict[str, _Listing] = {}
    now = time.time_ns()
    lstat = os.lstat
    pending = [root]
    while pending:
        directory = pending.pop()
        try:
            st = lstat(directory)
        except OSError:
            continue
        listing = known.get(directory)
        # A listing changed too recently has no signature (None): it never equals, so it is listed again.
        if listing is None or listing.sig != (st.st_mtime_ns, st.st_ctime_ns, st.st_ino):
            listing = _list(directory, st, now, hidden)
            if listing is None:
                continue
        fresh[directory] = listing
        pending += listing.subdirs
    if len(_trees) >= _TREES:
        _trees.pop(next(iter(_trees)))
    _trees[key] = fresh
    return [link for listing in fresh.values() for link in listing.links]
