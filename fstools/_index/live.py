"""An index in use: the mapped file plus what changed since it was built, kept fresh before each answer.

Freshness. Before every answer the index proves it still describes the tree, or says
why not. Without a watcher (the first call in a process, or no inotify) it stats what
it recorded: the rule files outside the tree and the ignore files inside (a change
there makes the index `stale`: rebuild), every directory (a create, delete or rename
changes one's mtime: then the tree is listed again with rg and the difference goes into
the overlay) and every file (a changed signature: the file is read again). With a
watcher, the queued inotify events are drained instead, so a change completed before
the call is seen without a stat pass. fstools' own writes update the overlay directly.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import os
import stat
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, overload

from .._core import sandbox
from . import watchd
from .entries import Entry, Sig, lstat_sig, read_beneath, rule_sig, sig_of
from .evaluate import Postings
from .grams import BINARY, LATE_NUL, TEXT, TOO_LARGE, TRANSCODED
from .listing import IGNORE_NAMES, Filters, entered, tree_files, walk_dirs
from .location import inside
from .plan import AllFiles, And, Gram, Or, Query
from .status import ProbeScope, Unusable
from .store import IndexFile

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from .status import IndexStatus
    from .watch import Watcher

# Past this many changed files the overlay costs more than a rebuild saves: report stale.
MAX_OVERLAY = 20_000
# Up to this many candidates (and bytes) are checked for the pattern's literal strings before
# rg sees them; past that, reading them in one Python thread costs more than rg's parallel search.
_VERIFY_FILES = 4000
_VERIFY_BYTES = 8 << 20
# Past this many candidates, every path is decoded once (and kept) rather than one at a time.
_DECODE_ALL = 4000
# Past this many changed directories one listing of the tree is cheaper than one per directory.
_RELIST_DIRS = 16


def _strings(blob: npt.NDArray[Any], offsets: npt.NDArray[Any], root: str | None, base: int = 0) -> list[str]:
    bounds = offsets.tolist()
    raw = blob[base : base + bounds[-1]].tobytes() if bounds else b""
    names = [os.fsdecode(raw[a:b]) for a, b in zip(bounds, bounds[1:], strict=False)]
    if root is None:
        return names
    prefix = root.rstrip("/") + "/"
    return [prefix + n if n else root for n in names]


def _has_links(path: str) -> bool:
    try:
        return os.lstat(path).st_nlink > 1
    except OSError:
        return False


def _sig_rows(arr: npt.NDArray[Any]) -> list[Sig]:
    return [(a, b, c, d) for a, b, c, d in arr.reshape(-1, 4).tolist()]


def _contains(root: str, path: str, literals: frozenset[bytes]) -> bool:
    """Whether the file holds one of `literals` (True when it cannot be read beneath `root`: rg
    reports that, or finds what a swapped path now holds)."""
    try:
        with open(sandbox.open_beneath(root, path, os.O_RDONLY | os.O_NONBLOCK), "rb") as f:
            data = f.read()
    except OSError:
        return True
    return any(lit in data for lit in literals)


def _holds(query: Query, grams: npt.NDArray[np.uint32], follows: npt.NDArray[np.uint8] | None) -> bool:
    """Whether a file with these (sorted) trigrams and follow masks satisfies `query`."""
    import numpy as np

    match query:
        case AllFiles():
            return True
        case Gram(code, follow):
            i = int(np.searchsorted(grams, np.uint32(code)))
            if i >= len(grams) or int(grams[i]) != code:
                return False
            return follows is None or bool(int(follows[i]) & follow)
        case And(parts):
            return all(_holds(q, grams, follows) for q in parts)
        case Or(parts):
            return any(_holds(q, grams, follows) for q in parts)


def _bounds(paths: Sequence[str], directory: str, root: str) -> tuple[int, int]:
    """The slice of the sorted `paths` below `directory`."""
    if directory == root:
        return 0, len(paths)
    prefix = directory + "/"
    lo = bisect.bisect_left(paths, prefix)
    hi = bisect.bisect_left(paths, prefix[:-1] + "0")  # "0" sorts right after "/"
    return lo, hi


@dataclass
class ListingSnapshot:
    """The files of the index as of the last check, for one answer.

    `key` names this exact state (index file, overlay version, directory): a caller may
    keep what it derives from the snapshot under it.
    """

    paths: list[str]
    # Each path's mtime_ns: a list, or the index file's own column, made a list only when asked (a
    # caller holding what it derived under `key` never asks: on the kernel that is 80,000 numbers).
    found_mtimes: list[int] | npt.NDArray[np.int64]
    key: tuple[str, int, str]

    @property
    def mtimes(self) -> list[int]:
        found = self.found_mtimes
        return found if isinstance(found, list) else found.tolist()


class _Overlay(dict[str, "Entry | None"]):
    """The files changed since the build (None: deleted), with a version that counts the changes."""

    version = 0

    def __setitem__(self, key: str, value: Entry | None) -> None:
        self.version += 1
        super().__setitem__(key, value)

    def __delitem__(self, key: str) -> None:
        self.version += 1
        super().__delitem__(key)

    def pop(self, key: str, default: Any = None) -> Any:
        self.version += 1
        return super().pop(key, default)


_OPENED = itertools.count()


class PathTable(Sequence[str]):
    """The index's sorted file paths, decoded from the mapped file one at a time: no per-file
    Python object lives longer than the answer that asked for it. Bisect works on it as on a list."""

    def __init__(self, blob: npt.NDArray[Any], offsets: npt.NDArray[Any], root: str) -> None:
        self._blob = blob
        self._offsets = offsets
        self._prefix = root.rstrip("/") + "/"
        self._root = root
        self._all: list[str] | None = None

    def __len__(self) -> int:
        return len(self._offsets) - 1

    def _one(self, i: int) -> str:
        if i < 0:
            i += len(self)
        a, b = int(self._offsets[i]), int(self._offsets[i + 1])
        return self._prefix + os.fsdecode(self._blob[a:b].tobytes()) if b > a else self._root

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> list[str]: ...
    def __getitem__(self, i: int | slice) -> str | list[str]:
        if isinstance(i, slice):
            if self._all is not None:
                return self._all[i]
            lo, hi, step = i.indices(len(self))
            if step != 1 or hi <= lo:
                return [self._one(j) for j in range(lo, hi, step)]
            return _strings(
                self._blob, self._offsets[lo : hi + 1] - self._offsets[lo], self._root, base=int(self._offsets[lo])
            )
        if self._all is not None:
            return self._all[i]
        return self._one(i)

    def __iter__(self) -> Iterator[str]:
        return iter(self.every())

    def every(self) -> list[str]:
        """Every path as a list, decoded once (for the rare whole-tree passes and Glob)."""
        if self._all is None:
            self._all = _strings(self._blob, self._offsets, self._root)
        return self._all

    def find(self, path: str) -> int:
        """The path's row, or -1."""
        i = bisect.bisect_left(self, path)
        return i if i < len(self) and self[i] == path else -1


class _Rows:
    """`path in rows` and `rows[path]`: the row of an indexed path, by bisection (no dictionary of every path)."""

    def __init__(self, paths: PathTable) -> None:
        self._paths = paths

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and self._paths.find(path) >= 0

    def __getitem__(self, path: str) -> int:
        i = self._paths.find(path)
        if i < 0:
            raise KeyError(path)
        return i


class LiveIndex:
    def __init__(self, file: IndexFile) -> None:
        a, h = file.arrays, file.header
        self.file = file
        self.root: str = h["root"]
        self.filters = Filters.from_json(h["filters"])
        self.paths = PathTable(a["paths"], a["path_offsets"], self.root)
        self.sig_rows: npt.NDArray[np.int64] = a["sigs"].reshape(-1, 4)
        self.kinds: npt.NDArray[np.uint8] = a["kinds"]
        self.segments = [file.segment(i) for i in range(int(h["segments"]))]
        self.segment_files = int(h["segment_files"])
        self.position = _Rows(self.paths)
        # The probe after an empty result, answered from what the build recorded while no
        # directory has changed since (any change: the probe walks, as without an index).
        self.probe_ok = bool(h.get("probe")) and "hidden_sigs" in a
        self.overlay = _Overlay()
        self.stale: IndexStatus | None = None
        self.checked = False
        self.watcher: Watcher | None = None
        self.asks = False  # a watcher process serves this root: ask it instead of checking
        # Files with another name (a hard link) as last seen: a write through a name outside the
        # tree raises no event in a watched directory, so a watch stats them at each drain.
        self.linked: set[str] = set()
        self.lock = threading.RLock()
        # Names this live index's states: a reopened one starts counting its changes again.
        self.name = f"{file.path}#{next(_OPENED)}"

    # The directories, ignore files and rule files: decoded when a check needs them.
    @functools.cached_property
    def dirs(self) -> dict[str, Sig]:
        a = self.file.arrays
        return dict(zip(_strings(a["dirs"], a["dir_offsets"], self.root), _sig_rows(a["dir_sigs"]), strict=True))

    @functools.cached_property
    def ignores(self) -> dict[str, Sig]:
        a = self.file.arrays
        return dict(
            zip(_strings(a["ignores"], a["ignore_offsets"], self.root), _sig_rows(a["ignore_sigs"]), strict=True)
        )

    @functools.cached_property
    def rules(self) -> dict[str, Sig]:
        a = self.file.arrays
        return dict(zip(_strings(a["rules"], a["rule_offsets"], None), _sig_rows(a["rule_sigs"]), strict=True))

    @functools.cached_property
    def hidden_dirs(self) -> dict[str, Sig]:
        a = self.file.arrays
        if "hidden_sigs" not in a:
            return {}
        return dict(
            zip(_strings(a["hidden_dirs"], a["hidden_offsets"], self.root), _sig_rows(a["hidden_sigs"]), strict=True)
        )

    @functools.cached_property
    def probe_paths(self) -> list[str]:
        a = self.file.arrays
        return _strings(a["probe_paths"], a["probe_offsets"], self.root) if "probe_paths" in a else []

    def sig(self, i: int) -> Sig:
        a, b, c, d = self.sig_rows[i].tolist()
        return (a, b, c, d)

    # Freshness ---------------------------------------------------------------------
    def refresh(self) -> None:
        """Bring the overlay up to date with the tree; Unusable("stale") when only a rebuild can."""
        if self.stale is None:
            try:
                if self.watcher is not None and self.checked:
                    self.watcher.drain(self)
                elif not (self.watcher is None and self.asks and watchd.ask(self)):
                    self.full_check()
                    self.checked = True
            except OSError:
                self.stale = "stale"
            if len(self.overlay) > MAX_OVERLAY:
                self.stale = "stale"
        if self.stale is not None:
            raise Unusable(self.stale)

    def rules_changed(self) -> bool:
        if any(rule_sig(p) != s for p, s in self.rules.items()):
            return True
        return any(rule_sig(p) != s for p, s in self.ignores.items())

    def full_check(self) -> None:
        if self.rules_changed():
            self.stale = "stale"
            return
        moved = [d for d, s in self.dirs.items() if lstat_sig(d) != s]
        if moved or any(lstat_sig(d) != s for d, s in self.hidden_dirs.items()):
            self.probe_ok = False
        for directory in moved[:_RELIST_DIRS] if len(moved) <= _RELIST_DIRS else ():
            self.relist_dir(directory)
        if len(moved) > _RELIST_DIRS:
            self.rewalk()
        if self.stale is not None:
            return
        lstat = os.lstat
        overlay = self.overlay
        changed = []
        for path, sig in zip(self.paths.every(), _sig_rows(self.sig_rows), strict=True):
            if path in overlay:
                continue
            try:
                st = lstat(path)
            except OSError:
                changed.append(path)
                continue
            if (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino & 0x7FFF_FFFF_FFFF_FFFF) != sig:
                changed.append(path)
            elif st.st_nlink > 1:
                self.linked.add(path)
        for path, entry in list(overlay.items()):
            if entry is not None and lstat_sig(path) != entry.sig:
                changed.append(path)
        for path in changed:
            self.refresh_file(path)

    def refresh_file(self, path: str) -> None:
        """Read one file again (a file that is gone or no longer regular is recorded as deleted)."""
        entry = read_beneath(self.root, path, self.filters.max_filesize)
        if entry is not None and _has_links(path):
            self.linked.add(path)
        else:
            self.linked.discard(path)
        if entry is None and path not in self.position:
            self.overlay.pop(path, None)
            return
        if entry is not None and path in self.position:
            i = self.position[path]
            if entry.sig == self.sig(i) and path in self.overlay:
                del self.overlay[path]
                return
        self.overlay[path] = entry

    def linked_changed(self) -> list[str]:
        """The files with another name whose signature is not the one last seen."""
        changed = []
        for path in self.linked:
            entry = self.overlay.get(path)
            if entry is None and (path in self.overlay or path not in self.position):
                changed.append(path)  # gone since: read again, it is dropped from the set
            elif lstat_sig(path) != (entry.sig if entry is not None else self.sig(self.position[path])):
                changed.append(path)
        return changed

    def alive(self) -> set[str]:
        base = {p for p in self.paths.every() if p not in self.overlay}
        return base | {p for p, e in self.overlay.items() if e is not None}

    def rewalk(self) -> None:
        """List the tree again (a directory changed): new files are read, missing ones deleted."""
        self.probe_ok = False
        tree = walk_dirs(self.root, self.filters)
        if set(tree.ignore_files) != set(self.ignores):
            self.stale = "stale"
            return
        dirs = {d: sig_of(st) for d, st in tree.dirs.items()}
        if self.watcher is not None:  # before listing, so nothing created in them meanwhile is missed
            # A directory moved to a new path (or swapped for another) is watched again there:
            # inotify gives its existing watch, whose events then name the path it has now.
            self.watcher.add([d for d, s in dirs.items() if d not in self.dirs or self.dirs[d][3] != s[3]])
        self.dirs = dirs
        listed = set(tree_files(self.root, self.filters))
        current = self.alive()
        for path in current - listed:
            self.overlay[path] = None
        for path in listed - current:
            self.refresh_file(path)

    def _direct_files(self, directory: str) -> set[str]:
        lo, hi = self._range(directory)
        start = len(directory.rstrip("/")) + 1
        found = {p for p in self.paths[lo:hi] if "/" not in p[start:] and p not in self.overlay}
        found |= {p for p, e in self.overlay.items() if e is not None and os.path.dirname(p) == directory}
        return found

    def relist_dir(self, directory: str) -> None:
        """One directory's entries changed: list its files with rg (its ignore rules apply), read the new ones.

        Only for a directory whose subdirectories are unchanged and that the walk enters
        (else the whole tree is listed again).
        """
        self.probe_ok = False
        sig = lstat_sig(directory)
        try:
            subdirs = {e.path for e in os.scandir(directory) if e.is_dir(follow_symlinks=False)}
            names = set(os.listdir(directory))
        except OSError:
            self.rewalk()
            return
        known_subdirs = {d for d in self.dirs if os.path.dirname(d) == directory and d != directory}
        if (
            not self.covers(directory)
            or not known_subdirs <= subdirs
            or names & set(IGNORE_NAMES)
            != {os.path.basename(p) for p in self.ignores if os.path.dirname(p) == directory}
        ):
            self.rewalk()
            return
        if any(entered(os.path.basename(d), self.filters) and d not in self.dirs for d in subdirs):
            self.rewalk()
            return
        listed = set(tree_files(directory, self.filters, max_depth=1))
        current = self._direct_files(directory)
        for path in current - listed:
            self.overlay[path] = None
        for path in listed - current:
            self.refresh_file(path)
        self.dirs[directory] = sig

    def notify(self, paths: Iterable[str]) -> None:
        """fstools changed these files itself (written, created, deleted, moved)."""
        for path in paths:
            if not inside(path, self.root) or self.stale is not None:
                continue
            if os.path.basename(path) in IGNORE_NAMES:
                self.stale = "stale"
            elif path in self.position or path in self.overlay:
                self.refresh_file(path)
            else:
                self.relist_dir(os.path.dirname(path))

    @property
    def version(self) -> int:
        return self.overlay.version

    # Answers -----------------------------------------------------------------------
    def covers(self, directory: str) -> bool:
        """Whether a search below `directory` walks exactly the index's files there."""
        if directory == self.root:
            return True
        if not inside(directory, self.root):
            return False
        prefix = directory + "/"
        i = bisect.bisect_left(self.paths, prefix)
        if i < len(self.paths) and self.paths[i].startswith(prefix):
            return True
        return any(e is not None and p.startswith(prefix) for p, e in self.overlay.items())

    def files_below(self, directory: str) -> int:
        """About how many files lie below `directory` (the build's count there)."""
        lo, hi = self._range(directory)
        return hi - lo

    def _range(self, directory: str) -> tuple[int, int]:
        return _bounds(self.paths, directory, self.root)

    def candidates(self, query: Query, directory: str, literals: frozenset[bytes] | None = None) -> list[str]:
        """Files below `directory` that may match: those whose trigrams satisfy `query` and, when
        `literals` are given and the candidates few, that contain one of them."""
        return self.candidates_and_rows(query, directory, literals)[0]

    def sigs(self, paths: list[str], rows: dict[str, int]) -> dict[str, Sig]:
        """The signature of each candidate as last proven (`rows`: the rows of those from the file), but for
        one that left the overlay since (the caller stats it)."""
        import numpy as np

        listed = self.sig_rows[np.fromiter(rows.values(), dtype=np.int64, count=len(rows))].tolist()
        found: dict[str, Sig] = dict(zip(rows, map(tuple, listed), strict=True))
        for path in set(paths).difference(rows):  # a set's difference, not a loop over thousands
            entry = self.overlay.get(path)
            if entry is not None:
                found[path] = entry.sig
        return found

    def candidates_and_rows(
        self, query: Query, directory: str, literals: frozenset[bytes] | None = None
    ) -> tuple[list[str], dict[str, int]]:
        """`candidates`, and the rows of those that are the file's (the others are in the overlay)."""
        import numpy as np

        lo, hi = self._range(directory)
        searchable, transcoded, late = self._kind_rows
        picked = self.postings.rows(query, lo, hi) & searchable
        picked[transcoded[(transcoded >= lo) & (transcoded < hi)]] = True  # no trigrams: always candidates
        if picked[late].any():
            raise Unusable("binary")
        ids = np.flatnonzero(picked).tolist()
        table: Sequence[str] = self.paths.every() if len(ids) > _DECODE_ALL else self.paths
        listed = list(map(table.__getitem__, ids))
        changed = self.overlay.keys() & listed if self.overlay else ()
        rows = dict(zip(listed, ids, strict=True))  # built in C: a warm Symbols call on five kernels has 4,214
        for p in changed:  # its row is the build's; the overlay holds it now
            del rows[p]
        out = list(rows) + self._overlay_candidates(query, directory)
        if literals and len(out) <= _VERIFY_FILES and self._bytes(out, rows) <= _VERIFY_BYTES:
            out = [p for p in out if self._entry(p, rows)[0] == TRANSCODED or _contains(self.root, p, literals)]
        return out, rows

    @functools.cached_property
    def _kind_rows(self) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.intp], npt.NDArray[np.intp]]:
        """Which files hold text a posting list covers, and the rows of the transcoded files and of those
        with a NUL past the sniffed start (worked out once: on five kernels each is a pass over 390,000)."""
        import numpy as np

        kinds = self.kinds
        searchable = (kinds == TEXT) | (kinds == LATE_NUL)
        return searchable, np.flatnonzero(kinds == TRANSCODED), np.flatnonzero(kinds == LATE_NUL)

    def _bytes(self, paths: list[str], rows: dict[str, int]) -> int:
        """The sizes of the candidates `paths` summed (`rows`: the rows of those from the file, summed at once)."""
        import numpy as np

        listed = np.fromiter(rows.values(), dtype=np.int64, count=len(rows))
        changed = sum(self._entry(p, rows)[1] for p in paths if p not in rows)
        return int(self.sig_rows[listed, 2].sum()) + changed

    @functools.cached_property
    def postings(self) -> Postings:
        """The posting lists of every segment, read as one (`Postings.rows`: a query's matching rows)."""
        return Postings(self.file, self.segments, self.segment_files, len(self.paths))

    def _overlay_candidates(self, query: Query, directory: str) -> list[str]:
        """The files changed since the build, below `directory`, that may match `query`."""
        out = []
        prefix = directory + "/"
        for path, entry in self.overlay.items():
            if entry is None or not (directory == self.root or path.startswith(prefix)):
                continue
            if entry.kind == TRANSCODED:
                out.append(path)
            elif (
                entry.kind in (TEXT, LATE_NUL) and entry.grams is not None and _holds(query, entry.grams, entry.follows)
            ):
                if entry.kind == LATE_NUL:
                    raise Unusable("binary")
                out.append(path)
        return out

    def _entry(self, path: str, rows: dict[str, int]) -> tuple[int, int]:
        """(kind, size) of a candidate as last seen (`rows`: the rows of those from the file)."""
        entry = self.overlay.get(path)
        if entry is not None:
            return entry.kind, entry.sig[2]
        i = rows[path]
        return int(self.kinds[i]), int(self.sig_rows[i, 2])

    def probe_scope(self, directory: str) -> ProbeScope | None:
        """What the probe after an empty result below `directory` must search and report, from
        the index (None: it cannot say, the probe walks): the binary files and the ignored and
        hidden ones within the size limit (rg searches them), and the files over the limit."""
        import numpy as np

        if not self.probe_ok:
            return None
        lo, hi = self._range(directory)
        kinds = self.kinds[lo:hi]
        scope = ProbeScope([], [])
        for i in (np.flatnonzero((kinds == BINARY) | (kinds == LATE_NUL) | (kinds == TOO_LARGE)) + lo).tolist():
            path = self.paths[i]
            if path not in self.overlay:
                (scope.too_large if kinds[i - lo] == TOO_LARGE else scope.search).append(path)
        prefix = directory + "/"
        for path, entry in self.overlay.items():
            if entry is not None and entry.kind != TEXT and (directory == self.root or path.startswith(prefix)):
                (scope.too_large if entry.kind == TOO_LARGE else scope.search).append(path)
        lo, hi = _bounds(self.probe_paths, directory, self.root)
        for path in self.probe_paths[lo:hi]:
            try:
                st = os.lstat(path)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode) and st.st_size <= self.filters.max_filesize:
                scope.search.append(path)
        return scope

    def snapshot(self, directory: str) -> ListingSnapshot:
        """Every file below `directory` (any kind) with its mtime, as of the last check."""
        lo, hi = self._range(directory)
        overlay = self.overlay
        every = self.paths.every()  # Glob filters every path by name: decoded once per process
        if not overlay:  # the file's own column: it never changes
            return ListingSnapshot(every[lo:hi], self.sig_rows[lo:hi, 0], (self.name, self.version, directory))
        paths, mtimes = [], []
        for p, m in zip(every[lo:hi], self.sig_rows[lo:hi, 0].tolist(), strict=True):
            if p not in overlay:
                paths.append(p)
                mtimes.append(m)
        prefix = directory + "/"
        for p, e in overlay.items():
            if e is not None and (directory == self.root or p.startswith(prefix)):
                paths.append(p)
                mtimes.append(e.mtime_ns)
        return ListingSnapshot(paths, mtimes, (self.name, self.version, directory))

    def counts(self) -> dict[str, int]:
        import numpy as np

        kinds = np.bincount(self.kinds, minlength=5).tolist()
        return {
            "files": len(self.paths),
            "text": kinds[TEXT],
            "binary": kinds[BINARY] + kinds[LATE_NUL],
            "too_large": kinds[TOO_LARGE],
            "changed_since_build": len(self.overlay),
        }
