"""Listing the files below a directory with fd or `rg --files`, and ordering them newest first.

Both backends get the same filters (hidden, ignore files, excludes, symlinks) and return
absolute paths. The name pattern is a regular expression over the path relative to the
base: fd gets it as a full-path regex; rg's listing is filtered by it in Python, after a
file-type prefilter on the last component (`rg --glob` would not do: it is an override
that lists gitignored and hidden files when they match).
"""

from __future__ import annotations

import heapq
import os
import re
import stat
import subprocess
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from ._binaries import find_binary, require_binary
from ._errors import ErrorCode, ToolError
from ._excludes import DEFAULT_EXCLUDES
from ._runner import StreamingProcess

# Entries seen by a two-level scandir of the base below which a tree counts as small:
# there one walker thread starts faster than a pool and sorting in Python is free.
SMALL_TREE_ENTRIES = 200

# The only characters Rust's regex (fd) accepts escaped.
_RUST_META = frozenset("\\.+*?()|[]{}^$#&-~")
_TYPE_NAME = "fstoolsglob"


@dataclass(frozen=True)
class WalkSpec:
    """What to list: every file below `base` whose relative path fully matches `regex`.

    `name_glob` is a glob over the file name that every match satisfies (a filter rg
    applies while walking); when `name_glob_exact`, it decides alone and rg's listing
    needs no regex. `excludes` are gitignore-style globs pruned anywhere.
    """

    base: str
    regex: str | None = None
    name_glob: str | None = None
    name_glob_exact: bool = False
    max_depth: int | None = None
    hidden: bool = False
    respect_gitignore: bool = True
    follow_symlinks: bool = False
    excludes: tuple[str, ...] = DEFAULT_EXCLUDES


@dataclass(frozen=True)
class Strategy:
    """How to run a walk: which walker, how many threads, and whether it sorts by mtime itself."""

    backend: str
    threads: int
    walker_sorts: bool = False


@dataclass
class Listing:
    paths: list[str]
    backend: str
    newest_first: bool = False  # paths come sorted by the walker, newest mtime first
    timed_out: bool = False
    warnings: list[str] = field(default_factory=list)


@lru_cache(maxsize=None)
def fd_version(fd: str) -> tuple[int, ...]:
    """fd's version, e.g. (8, 6, 0): Debian's fd-find 8.6 predates --no-require-git (8.7)."""
    try:
        out = subprocess.run([fd, "--version"], capture_output=True, text=True, timeout=10, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return (0,)
    match = re.search(r"(\d+)\.(\d+)\.(\d+)", out.stdout)
    return tuple(int(g) for g in match.groups()) if match else (0,)


def in_git_worktree(path: str) -> bool:
    """Whether `path` lies in a git work tree, the only place fd < 8.7 reads .gitignore."""
    while True:
        if os.path.exists(os.path.join(path, ".git")):
            return True
        parent = os.path.dirname(path)
        if parent == path:
            return False
        path = parent


def fd_honours_gitignore(spec: WalkSpec, fd: str) -> bool:
    if not spec.respect_gitignore or fd_version(fd) >= (8, 7, 0):
        return True
    return in_git_worktree(spec.base)


def is_small_tree(base: str, budget: int = SMALL_TREE_ENTRIES) -> bool:
    """A cheap size probe: the base and its immediate subdirectories hold fewer than `budget` entries."""
    seen = 0
    dirs = [base]
    for depth in range(2):
        below: list[str] = []
        for d in dirs:
            try:
                with os.scandir(d) as it:
                    for entry in it:
                        seen += 1
                        if seen >= budget:
                            return False
                        if depth == 0 and entry.is_dir(follow_symlinks=False):
                            below.append(entry.path)
            except OSError:
                continue
        dirs = below
    return True


def choose_strategy(spec: WalkSpec) -> Strategy:
    """Pick the walker from measurements (README, "Decisions: Glob and LS").

    rg starts in half fd's time, so it takes small trees single-threaded. On big trees
    `rg --sortr modified` stats in Rust and leaves Python O(limit) stats instead of one
    per match, which measured faster than fd's parallel walk plus Python stats. fd walks
    when rg is absent (or is asked for); fd < 8.7 outside a git repository cannot read
    .gitignore, so rg takes those walks too.
    """
    if find_binary("rg") is not None:
        return Strategy("rg", 1, walker_sorts=not is_small_tree(spec.base))
    if find_binary("fd") is not None:
        return Strategy("fd", 1 if is_small_tree(spec.base) else max(os.cpu_count() or 1, 1))
    raise ToolError(
        ErrorCode.MISSING_BINARY,
        "Glob needs `rg` or `fd` and neither was found: install ripgrep with "
        "`pip install 'ripgrep>=14.1,<15'`, or fd with `apt-get install -y fd-find` (Debian/Ubuntu)",
    )


def _rust_escape(text: str) -> str:
    return "".join("\\" + c if c in _RUST_META else c for c in text)


def _prefix(base: str) -> str:
    return base.rstrip("/") + "/"


def _common_flags(spec: WalkSpec, strategy: Strategy) -> list[str]:
    flags = ["--hidden"] if spec.hidden else []
    if spec.follow_symlinks:
        flags.append("--follow")
    if spec.max_depth is not None:
        flags += ["--max-depth", str(spec.max_depth)]
    return [*flags, "--threads", str(strategy.threads)]


def fd_argv(spec: WalkSpec, fd: str, strategy: Strategy) -> list[str]:
    argv = [fd, "--type", "f", "--print0", "--color", "never", "--case-sensitive", "--full-path"]
    if not spec.respect_gitignore:
        argv.append("--no-ignore")
    elif fd_version(fd) >= (8, 7, 0):
        argv.append("--no-require-git")
    for name in spec.excludes:
        argv += ["--exclude", name]
    regex = "(?s:.*)" if spec.regex is None else f"(?:{spec.regex})"
    return [*argv, *_common_flags(spec, strategy), "--", f"^{_rust_escape(_prefix(spec.base))}{regex}$", spec.base]


def rg_argv(spec: WalkSpec, rg: str, strategy: Strategy) -> list[str]:
    argv = [rg, "--files", "--null", "--no-config"]
    argv.append("--no-ignore" if not spec.respect_gitignore else "--no-require-git")
    for name in spec.excludes:
        argv += ["--glob", f"!{name}"]
    if spec.name_glob is not None:
        argv += ["--type-add", f"{_TYPE_NAME}:{spec.name_glob}", "--type", _TYPE_NAME]
    if strategy.walker_sorts:
        argv += ["--sortr", "modified"]
    return [*argv, *_common_flags(spec, strategy), "--", spec.base]


def _split(data: bytes) -> list[str]:
    """NUL-separated paths; a name that is not UTF-8 cannot reach an agent as text and is left out."""
    try:
        return [p for p in data.decode("utf-8").split("\0") if p]
    except UnicodeDecodeError:
        pass
    out: list[str] = []
    for raw in data.split(b"\0"):
        try:
            out.append(raw.decode("utf-8"))
        except UnicodeDecodeError:
            continue
    return [p for p in out if p]


def _rg_filter(spec: WalkSpec, paths: list[str]) -> list[str]:
    """What rg's type prefilter let through beyond the pattern: other paths, and hidden names it whitelists."""
    start = len(_prefix(spec.base))
    if spec.regex is not None and not (spec.name_glob is not None and spec.name_glob_exact):
        match = re.compile(f"(?:{spec.regex})\\Z").match
        paths = [p for p in paths if match(p, start)]
    if spec.name_glob is not None and not spec.hidden:
        paths = [p for p in paths if p[p.rfind("/") + 1] != "."]
    return paths


def list_files(spec: WalkSpec, strategy: Strategy | None = None, *, timeout: float | None = None) -> Listing:
    """Run one walker over `spec.base` and return the matching files' absolute paths."""
    strategy = strategy or choose_strategy(spec)
    binary = require_binary(strategy.backend)
    warnings: list[str] = []
    if strategy.backend == "fd":
        argv = fd_argv(spec, binary, strategy)
        if not fd_honours_gitignore(spec, binary):
            warnings.append("fd < 8.7 reads .gitignore only inside a git repository; it was not applied here")
    else:
        argv = rg_argv(spec, binary, strategy)
    with StreamingProcess(argv, timeout=timeout, cwd=spec.base) as proc:
        data = proc.read_all()
    paths = _split(data)
    if strategy.backend == "rg":
        paths = _rg_filter(spec, paths)
    warnings += [line for line in proc.stderr.splitlines() if line.strip()][:20]
    return Listing(paths, strategy.backend, strategy.walker_sorts, proc.timed_out, warnings)


class ContainmentFilter:
    """Keeps the paths whose every directory, and the file itself, resolve inside the allowed roots.

    Needed only when links are followed; without that a walk never leaves the canonical
    base. Each directory is resolved once, so the cost is about one lstat per file.
    """

    def __init__(self, base: str, inside: Callable[[str], bool]) -> None:
        self._inside = inside
        self._dirs: dict[str, str | None] = {base: base}

    def _resolve_dir(self, path: str) -> str | None:
        if path in self._dirs:
            return self._dirs[path]
        parent = os.path.dirname(path)
        resolved: str | None = None
        if parent != path and self._resolve_dir(parent) is not None:
            canonical = os.path.realpath(path)
            resolved = canonical if self._inside(canonical) else None
        self._dirs[path] = resolved
        return resolved

    def canonical(self, path: str) -> str | None:
        """The canonical path of `path`, or None when it, or a link on its way, leaves the roots."""
        directory, name = os.path.split(path)
        resolved_dir = self._resolve_dir(directory)
        if resolved_dir is None:
            return None
        try:
            is_link = stat.S_ISLNK(os.lstat(path).st_mode)
        except OSError:
            return None
        if not is_link:
            return os.path.join(resolved_dir, name)
        target = os.path.realpath(path)
        return target if self._inside(target) else None


def _mtime(path: str) -> int | None:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return None


def _stat_all(paths: Iterable[str], limit: int) -> tuple[list[tuple[str, int]], int]:
    keyed: list[tuple[int, str]] = []
    append = keyed.append
    st = os.stat
    for p in paths:
        try:
            append((-st(p).st_mtime_ns, p))
        except OSError:
            continue
    top = heapq.nsmallest(limit, keyed) if len(keyed) > limit else sorted(keyed)
    return [(p, -neg) for neg, p in top], len(keyed)


def _from_sorted(paths: Sequence[str], limit: int) -> tuple[list[tuple[str, int]], int] | None:
    """Top `limit` of a list the walker sorted newest first, with O(limit + log n) stats.

    Only the walker's order of equal mtimes is arbitrary: the run of files sharing the
    boundary mtime is found by binary search and its first paths in path order fill the
    page. None when a stat fails or the order is not monotonic (a file changed meanwhile).
    """
    head = [_mtime(p) for p in paths[:limit]]
    if any(m is None for m in head):
        return None
    mtimes: list[int] = head  # type: ignore[assignment]
    boundary = mtimes[-1]
    if any(a < b for a, b in zip(mtimes, mtimes[1:])):
        return None
    first_tied = next(i for i, m in enumerate(mtimes) if m == boundary)
    lo, hi = limit, len(paths)  # find the end of the tied run in paths[limit:]
    while lo < hi:
        mid = (lo + hi) // 2
        m = _mtime(paths[mid])
        if m is None or m > boundary:
            return None
        if m == boundary:
            lo = mid + 1
        else:
            hi = mid
    newer = sorted((-m, p) for m, p in zip(mtimes[:first_tied], paths[:first_tied]))
    tied = heapq.nsmallest(limit - first_tied, paths[first_tied:lo])
    return [(p, -neg) for neg, p in newer] + [(p, boundary) for p in tied], len(paths)


def newest_first(listing: Listing, limit: int) -> tuple[list[tuple[str, int]], int]:
    """The `limit` newest paths as (path, mtime_ns), newest first, ties by path; and the total.

    The order is total, so the same tree always gives the same pages. A path that vanished
    since the walk is dropped when it had to be stat-ed.
    """
    if listing.newest_first and len(listing.paths) > limit:
        top = _from_sorted(listing.paths, limit)
        if top is not None:
            return top
    return _stat_all(listing.paths, limit)
