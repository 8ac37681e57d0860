"""Walking and removing a directory tree without recursion, whatever its depth.

An agent can build a tree thousands of levels deep with Write; Python's recursion limit
(and os.walk/shutil.rmtree before 3.12, which recurse) must not turn that into a crash.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


@dataclass
class TreeListing:
    """Every path below a directory, top-down: each directory's files, then its subdirectories."""

    paths: list[str] = field(default_factory=list)
    files: int = 0
    directories: int = 0


def list_tree(top: str) -> TreeListing:
    """The entries below `top` in depth-first preorder, names sorted; links are listed, never followed.

    A directory that cannot be read raises (OSError): a removal must not skip what it did not see.
    """
    listing = TreeListing()
    stack = [top]
    while stack:
        directory = stack.pop()
        with os.scandir(directory) as it:
            entries = sorted(it, key=lambda e: e.name)
        subdirs = [e.path for e in entries if e.is_dir(follow_symlinks=False)]
        others = [e.path for e in entries if not e.is_dir(follow_symlinks=False)]
        listing.paths += others
        listing.paths += subdirs
        listing.files += len(others)
        listing.directories += len(subdirs)
        stack.extend(reversed(subdirs))
    return listing


@dataclass
class _Level:
    """A directory being emptied: its name in its parent, its identity, the subdirectories left to visit."""

    name: str
    dev: int
    ino: int
    pending: list[str]


def _identity(fd: int) -> tuple[int, int]:
    st = os.fstat(fd)
    return st.st_dev, st.st_ino


def _empty_level(fd: int, name: str) -> _Level:
    """Unlink every non-directory in `fd`'s directory; the subdirectories are left for the walk."""
    pending = []
    with os.scandir(fd) as it:
        for entry in it:
            if entry.is_dir(follow_symlinks=False):
                pending.append(entry.name)
            else:
                os.unlink(entry.name, dir_fd=fd)
    dev, ino = _identity(fd)
    return _Level(name, dev, ino, pending)


def remove_tree(top: str) -> None:
    """Remove the directory `top` and everything in it, holding one directory handle at a time.

    Each directory is opened relative to its parent without following links, and the way
    back up (`..`) must lead to the very directory it came from, else the removal stops
    with an error: a directory moved away mid-removal is not chased.
    """
    fd = os.open(top, _DIR_FLAGS)
    try:
        levels = [_empty_level(fd, top)]
        while levels:
            level = levels[-1]
            if level.pending:
                name = level.pending.pop()
                child = os.open(name, _DIR_FLAGS, dir_fd=fd)
                os.close(fd)
                fd = child
                levels.append(_empty_level(fd, name))
                continue
            levels.pop()
            if not levels:
                break
            parent = os.open("..", _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = parent
            if _identity(fd) != (levels[-1].dev, levels[-1].ino):
                raise OSError(f"{top} changed while it was being removed")
            os.rmdir(level.name, dir_fd=fd)
    finally:
        os.close(fd)
    os.rmdir(top)
