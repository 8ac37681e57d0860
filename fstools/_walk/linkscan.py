"""The ignore files that are symlinks in a tree, found by a walk and remembered between calls.

The walk reads directory entries only (no stat per file) and goes wherever rg could: every
directory except the default excludes (and hidden ones when rg skips them). It remembers
each directory's entries with its lstat signature, so a later walk of the same tree lstats
each directory and lists again only those that changed (when none did, that is one flat pass
of lstat calls): creating, renaming or removing a link changes its directory's mtime and
ctime. A repository's `info/exclude` lies in `.git/info`, whose mtime is remembered with the
repository's top (`.git`'s while it has no `info`). A directory changed in the last RACY_NS
is listed again every time (a second change in the same clock tick would not show).

A tree checked less than FRESH_NS ago is not checked again, unless fstools itself changed
something since (`changed`, called by every tool that creates, moves or deletes): the
agent makes links only through fstools (Move of a link), so its own links are seen at
once; a link another process makes is seen within FRESH_NS. (On the Linux kernel's tree the
lstat pass costs about 10 ms, 3% of a Grep, and an agent's calls come seconds apart.)

A directory is listed through a descriptor opened beneath the root through no symlink
(`sandbox.open_at`): a directory swapped for a link to `/` mid-walk cannot lead the walk
over the whole file system. The lstat by name only compares signatures, and a swapped
directory never matches its remembered one.
"""

from __future__ import annotations

import functools
import os
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass

from .._core import sandbox
from .excludes import DEFAULT_EXCLUDES
from .ignorefiles import IGNORE_NAMES

RACY_NS = 2_000_000_000
FRESH_NS = 10_000_000_000
# Trees remembered (by root and hidden-directory rule); the oldest is forgotten first.
_TREES = 16
Sig = tuple[int, int, int]
_NAMED = frozenset((*IGNORE_NAMES, ".git"))  # entries never walked into: checked for a link or a repository
_EXCLUDED = frozenset(DEFAULT_EXCLUDES)  # by exact name: a cheap superset of what rg's globs prune
# In a repository's top, what a link `info/exclude` made or removed changes the mtime of (not
# the top's): `.git/info`, or `.git` while it has no `info` (its making shows there). `.git`'s own
# mtime changes at most git commands: it is not watched while `info` is.
_MARKS = (".git/info", ".git")


@dataclass(frozen=True)
class _Listing:
    sig: Sig | None  # None: changed too recently to be trusted next time
    links: tuple[str, ...]  # ignore files in it that are symlinks (and a .git/info/exclude that is one)
    subdirs: tuple[str, ...]
    repository: bool = False  # it holds a `.git`: a repository's top
    mark: Sig | None = None  # a repository's: the signature of the first of _MARKS there (None: neither)


@dataclass
class _Tree:
    listings: dict[str, _Listing]
    checked_ns: int  # when the tree was last walked
    generation: int  # `_generation` then


_trees: dict[tuple[str, bool], _Tree] = {}
_repositories: dict[tuple[str, bool], tuple[dict[str, _Listing], list[str]]] = {}
_generation = 0  # how many times fstools changed a tree: a remembered check older than a change is redone


def changed() -> None:
    """fstools created, moved or deleted something: the next check walks again."""
    global _generation
    _generation += 1


def _signature(st: os.stat_result) -> Sig:
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def _racy(sig: Sig, now: int) -> bool:
    """Whether `sig` changed within RACY_NS of `now`: a second change in the same clock tick would not show."""
    return now - max(sig[0], sig[1]) < RACY_NS


def _sig(st: os.stat_result, now: int) -> Sig | None:
    sig = _signature(st)
    return None if _racy(sig, now) else sig


def _list(root_fd: int, root: str, directory: str, now: int, hidden: bool) -> _Listing | None:
    links: list[str] = []
    subdirs: list[str] = []
    repository = False
    mark: Sig | None = None
    try:
        fd = sandbox.open_at(root_fd, sandbox.relative_to(directory, root), os.O_RDONLY | os.O_DIRECTORY)
    except (OSError, ValueError):
        return None  # gone, or swapped for a link since its parent was listed
    try:
        st = os.fstat(fd)
        prefix = directory.rstrip("/") + "/"  # paths are made only for what is kept: most entries are files
        with os.scandir(fd) as entries:
            # Most entries are files of other names: one set lookup and one type test (d_type) each.
            for entry in entries:
                name = entry.name
                if name in _NAMED:
                    if name == ".git":
                        repository = True
                        mark = _mark(functools.partial(os.stat, dir_fd=fd, follow_symlinks=False))
                        if _exclude_is_link(fd):
                            links.append(prefix + ".git/info/exclude")
                    elif entry.is_symlink():
                        links.append(prefix + name)
                elif (
                    entry.is_dir(follow_symlinks=False)
                    and name not in _EXCLUDED
                    and (hidden or not name.startswith("."))  # scandir yields no "." or ".."
                ):
                    subdirs.append(prefix + name)
    except OSError:
        return None
    finally:
        os.close(fd)
    sig = _sig(st, now)
    if mark is not None and _racy(mark, now):
        sig = None  # the mark changed too recently: listed again next time
    return _Listing(sig, tuple(links), tuple(subdirs), repository, mark)


def _mark(lstat: Callable[[str], os.stat_result]) -> Sig | None:
    """The signature of the first of a repository top's _MARKS that exists, by `lstat` of each
    name relative to the top (taken before the look at info/exclude: a later change shows)."""
    for name in _MARKS:
        try:
            st = lstat(name)
        except OSError:
            continue
        return _signature(st)
    return None


def _holds(directory: str, listing: _Listing) -> bool:
    """Whether the remembered listing of `directory` still holds: its signature unchanged, and
    a repository top's mark too (compared by name only, as the signature is)."""
    if listing.sig is None or listing.sig != _current(directory):
        return False
    prefix = directory.rstrip("/") + "/"
    return not listing.repository or listing.mark == _mark(lambda name: os.lstat(prefix + name))


def _current(directory: str) -> Sig | None:
    """The signature `directory` has now (None when it is gone)."""
    try:
        return _signature(os.lstat(directory))
    except OSError:
        return None


def _exclude_is_link(dir_fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(".git/info/exclude", dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def linked_ignore_files(root: str, *, hidden: bool) -> list[str]:
    """The symlinked ignore files in `root`'s tree (hidden directories too when `hidden`)."""
    return _links_of(_walked(root, hidden))


def repositories_below(root: str, *, hidden: bool) -> list[str]:
    """The directories strictly below `root` that are repositories of their own (they hold a `.git`),
    from the same remembered walk."""
    listings = _walked(root, hidden)
    known = _repositories.get((root, hidden))
    if known is not None and known[0] is listings:  # the same remembered walk: the same answer
        return known[1]
    found = sorted(d for d, listing in listings.items() if listing.repository and d != root)
    if len(_repositories) >= _TREES:
        _repositories.pop(next(iter(_repositories)))
    _repositories[(root, hidden)] = (listings, found)
    return found


def _walked(root: str, hidden: bool) -> dict[str, _Listing]:
    key = (root, hidden)
    now = time.time_ns()
    tree = _trees.pop(key, None)
    if tree is not None and tree.generation == _generation and now - tree.checked_ns < FRESH_NS:
        _trees[key] = tree
        return tree.listings
    known = tree.listings if tree is not None else {}
    generation = _generation
    fresh = known if _unchanged(known) else _walked_again(root, hidden, known, now)
    if fresh is None:
        return {}  # the root is gone, or no longer a directory reached through no link
    if len(_trees) >= _TREES:
        _trees.pop(next(iter(_trees)))
    _trees[key] = _Tree(fresh, now, generation)
    return fresh


def _unchanged(known: dict[str, _Listing]) -> bool:
    """Whether every remembered directory has its remembered signature: the walk from the root
    would then reach exactly these directories and list none of them again. One flat pass of
    lstat calls, the usual case when the memory lapses (~5k on the Linux kernel's tree). A directory
    its parent names but whose listing failed (unreadable then: a chmod since changes only its own
    ctime) is not remembered: the walk would list it again, so this answers no."""
    return bool(known) and all(
        all(subdir in known for subdir in listing.subdirs) and _holds(directory, listing)
        for directory, listing in known.items()
    )


def _walked_again(root: str, hidden: bool, known: dict[str, _Listing], now: int) -> dict[str, _Listing] | None:
    """The walk from `root`, each directory listed again unless its remembered listing still holds."""
    fresh: dict[str, _Listing] = {}
    pending = [root]
    try:
        root_fd = sandbox.open_root(root)
    except (OSError, ValueError):
        return None
    try:
        while pending:
            directory = pending.pop()
            listing = known.get(directory)
            if listing is not None and not _holds(directory, listing):
                listing = None  # changed, gone, or changed too recently to be trusted (no signature)
            if listing is None:  # unknown (every directory on a first walk: no lstat for it) or changed
                listing = _list(root_fd, root, directory, now, hidden)
                if listing is None:
                    continue
            fresh[directory] = listing
            pending += listing.subdirs
    finally:
        os.close(root_fd)
    return fresh


def _links_of(listings: dict[str, _Listing]) -> list[str]:
    return [link for listing in listings.values() for link in listing.links]
