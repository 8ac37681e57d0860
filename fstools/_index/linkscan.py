"""The ignore files that are symlinks in a tree, found by a walk and remembered between calls.

The walk reads directory entries only (no stat per file) and goes wherever rg could: every
directory except the default excludes (and hidden ones when rg skips them). It remembers
each directory's entries with its lstat signature, so a later walk of the same tree lstats
each directory and lists again only those that changed: creating, renaming or removing a
link changes its directory's mtime and ctime. A directory changed in the last RACY_NS is
listed again every time (a second change in the same clock tick would not show).

A directory is listed through a descriptor opened beneath the root through no symlink
(`sandbox.open_at`): a directory swapped for a link to `/` mid-walk cannot lead the walk
over the whole file system. The lstat by name only compares signatures, and a swapped
directory never matches its remembered one.
"""

from __future__ import annotations

import os
import stat
import time
from dataclasses import dataclass

from .._core import sandbox
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


def _list(root_fd: int, root: str, directory: str, now: int, hidden: bool) -> _Listing | None:
    links: list[str] = []
    subdirs: list[str] = []
    try:
        fd = sandbox.open_at(root_fd, sandbox.relative_to(directory, root), os.O_RDONLY | os.O_DIRECTORY)
    except (OSError, ValueError):
        return None  # gone, or swapped for a link since its parent was listed
    try:
        st = os.fstat(fd)
        prefix = directory.rstrip("/") + "/"  # paths are made only for what is kept: most entries are files
        with os.scandir(fd) as entries:
            for entry in entries:
                name = entry.name
                if name in IGNORE_NAMES:
                    if entry.is_symlink():
                        links.append(prefix + name)
                elif name == ".git":
                    if _exclude_is_link(fd):
                        links.append(prefix + ".git/info/exclude")
                elif (
                    name not in DEFAULT_EXCLUDES
                    and (hidden or not is_hidden(name))
                    and entry.is_dir(follow_symlinks=False)
                ):
                    subdirs.append(prefix + name)
    except OSError:
        return None
    finally:
        os.close(fd)
    return _Listing(_sig(st, now), tuple(links), tuple(subdirs))


def _exclude_is_link(dir_fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(".git/info/exclude", dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def linked_ignore_files(root: str, *, hidden: bool) -> list[str]:
    """The symlinked ignore files in `root`'s tree (hidden directories too when `hidden`)."""
    key = (root, hidden)
    known = _trees.pop(key, {})
    fresh: dict[str, _Listing] = {}
    now = time.time_ns()
    lstat = os.lstat
    pending = [root]
    try:
        root_fd = sandbox.open_root(root)
    except (OSError, ValueError):
        return []
    try:
        while pending:
            directory = pending.pop()
            listing = known.get(directory)
            try:
                st = lstat(directory)
            except OSError:
                continue
            # A listing changed too recently has no signature (None): it never equals, so it is listed again.
            if listing is None or listing.sig != (st.st_mtime_ns, st.st_ctime_ns, st.st_ino):
                listing = _list(root_fd, root, directory, now, hidden)
                if listing is None:
                    continue
            fresh[directory] = listing
            pending += listing.subdirs
    finally:
        os.close(root_fd)
    if len(_trees) >= _TREES:
        _trees.pop(next(iter(_trees)))
    _trees[key] = fresh
    return [link for listing in fresh.values() for link in listing.links]
