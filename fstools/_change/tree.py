"""Walking and removing a directory tree through descriptors, without recursion, whatever its depth.

An agent can build a tree thousands of levels deep with Write; Python's recursion limit
(and os.walk/shutil.rmtree before 3.12, which recurse) must not turn that into a crash, and
neither may the descriptor limit. So one directory is held open at a time: a subdirectory is
entered by opening it relative to its parent without following links, and the way back up
(`..`) must lead to the very directory it came from, else the walk stops with an error (a
directory moved away meanwhile is not chased). No path is ever resolved by name, so a
directory swapped for a symlink cannot take the walk out of the tree.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from dataclasses import dataclass

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)

# An entry below the top: its path relative to the top, and whether it is a directory.
Entry = tuple[str, bool]


@dataclass
class _Level:
    """A directory on the way down: its path relative to the top, its identity, the subdirectories left."""

    rel: str
    dev: int
    ino: int
    pending: list[str]


def _identity(fd: int) -> tuple[int, int]:
    st = os.fstat(fd)
    return st.st_dev, st.st_ino


def _descend(top_fd: int, enter: Callable[[int, str], list[str]], leave: Callable[[int, _Level], None]) -> None:
    """Depth-first over the directory `top_fd` (not closed here): `enter(fd, rel)` is called in each
    directory and returns the subdirectories to visit, in order; `leave(parent_fd, level)` once a
    directory is done, with its parent's descriptor (the top is left to the caller)."""
    fd = os.dup(top_fd)
    try:
        levels = [_Level("", *_identity(fd), list(reversed(enter(fd, ""))))]
        while levels:
            level = levels[-1]
            if level.pending:
                name = level.pending.pop()
                child = os.open(name, _DIR_FLAGS, dir_fd=fd)
                os.close(fd)
                fd = child
                rel = level.rel + name + "/"
                levels.append(_Level(rel, *_identity(fd), list(reversed(enter(fd, rel)))))
                continue
            levels.pop()
            if not levels:
                return
            parent = os.open("..", _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = parent
            if _identity(fd) != (levels[-1].dev, levels[-1].ino):
                raise OSError(errno.ESTALE, "a directory was moved while the tree was being walked", level.rel)
            leave(fd, level)
    finally:
        os.close(fd)


def walk_tree(top_fd: int) -> list[Entry]:
    """Everything below the open directory `top_fd`, top-down: each directory's files (and links,
    never followed) by name, then its subdirectories, then their contents.

    A directory that cannot be read raises (OSError): a removal must not skip what it did not see.
    """
    entries: list[Entry] = []

    def enter(fd: int, rel: str) -> list[str]:
        with os.scandir(fd) as it:
            listed = sorted((de.name, de.is_dir(follow_symlinks=False)) for de in it)
        entries.extend((rel + name, False) for name, is_dir in listed if not is_dir)
        subdirs = [name for name, is_dir in listed if is_dir]
        entries.extend((rel + name, True) for name in subdirs)
        return subdirs

    _descend(top_fd, enter, lambda fd, level: None)
    return entries


@dataclass
class Progress:
    """How many entries a removal has removed so far (still true when it stops with an error)."""

    removed: int = 0


def remove_listed(top_fd: int, entries: list[Entry], progress: Progress | None = None) -> int:
    """Remove `entries` (from walk_tree of the open directory `top_fd`) and only them, deepest first;
    the number removed. Something that appeared meanwhile stays, and its directory's removal fails."""
    done = progress if progress is not None else Progress()
    files: dict[str, list[str]] = {}
    subdirs: dict[str, list[str]] = {}
    for rel, is_dir in entries:
        head, _, name = rel.rpartition("/")
        (subdirs if is_dir else files).setdefault(head + "/" if head else "", []).append(name)

    def unlink_files(fd: int, rel: str) -> None:
        for name in files.get(rel, ()):
            os.unlink(name, dir_fd=fd)
            done.removed += 1

    def leave(parent_fd: int, level: _Level) -> None:
        os.rmdir(level.rel.rstrip("/").rpartition("/")[2], dir_fd=parent_fd)
        done.removed += 1

    def enter(fd: int, rel: str) -> list[str]:
        unlink_files(fd, rel)  # files first: a directory is then emptied by its own subtree
        return subdirs.get(rel, [])

    _descend(top_fd, enter, leave)
    return done.removed


def remove_tree(parent_fd: int, name: str) -> None:
    """Remove the directory `name` of the open directory `parent_fd` and everything in it."""
    top = os.open(name, _DIR_FLAGS, dir_fd=parent_fd)
    try:
        remove_listed(top, walk_tree(top))
    finally:
        os.close(top)
    os.rmdir(name, dir_fd=parent_fd)
