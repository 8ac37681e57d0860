"""Listing the files below a directory with fd or `rg --files`, with their mtimes, newest first.

Both backends get the same filters (hidden, ignore files, excludes, symlinks) and return
absolute paths. The name pattern is a regular expression over the path relative to the
base: fd gets it as a full-path regex; rg's listing is filtered by it in Python, after a
file-type prefilter on the last component (`rg --glob` would not do: it is an override
that lists gitignored and hidden files when they match). Each path is stat-ed as it
streams in, while the walker is still working.
"""

from __future__ import annotations

import heapq
import os
import re
import stat
import subprocess
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from ._binaries import find_binary, require_binary
from ._errors import ErrorCode, ToolError
from ._excludes import DEFAULT_EXCLUDES
from ._runner import StreamingProcess

# Directories in the base's first two levels below which a tree counts as small: there a
# single rg thread starts and finishes first (README, "Decisions: Glob and LS").
SMALL_TREE_DIRS = 200

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
    """Which walker runs a walk, with how many threads."""

    backend: str
    threads: int


@dataclass
class Listing:
    """The matches as (-mtime_ns, path): sorting them gives newest first, ties by path."""

    files: list[tuple[int, str]]
    backend: str
    timed_out: bool = False
    warnings: list[str] = field(default_factory=list)

    @property
    def paths(self) -> list[str]:
        return [p for _, p in self.files]

    def keep(self, paths: list[str]) -> None:
        """Keep only the files in `paths`, a filtered copy of `self.paths`."""
        if len(paths) != len(self.files):
            wanted = set(paths)
            self.files = [f for f in self.files if f[1] in wanted]


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


def is_small_tree(base: str, budget: int = SMALL_TREE_DIRS) -> bool:
    """A cheap size probe: fewer than `budget` directories in the base's first two levels.

    Walkers parallelise over directories, so their number, not the files', says whether a
    thread pool pays for its start-up. The probe stops at the budget.
    """
    seen = 0
    dirs = [base]
    for _ in range(2):
        below: list[str] = []
        for d in dirs:
            try:
                with os.scandir(d) as it:
                    for entry in it:
                        if entry.is_dir(follow_symlinks=False):
                            seen += 1
                            if seen >= budget:
                                return False
                            below.append(entry.path)
            except OSError:
                continue
        dirs = below
    return True


def choose_strategy(spec: WalkSpec) -> Strategy:
    """Pick the walker from measurements (README, "Decisions: Glob and LS").

    A small tree goes to one rg thread: rg starts in about half fd's time and a pool only
    adds start-up. A big tree goes to fd with a thread per core, the Python stat of each
    match overlapping its walk; fd < 8.7 outside a git repository cannot read .gitignore,
    so rg takes those. Either binary stands in for the other when it is missing.
    """
    fd, rg = find_binary("fd"), find_binary("rg")
    if fd is None and rg is None:
        raise ToolError(
            ErrorCode.MISSING_BINARY,
            "Glob needs `rg` or `fd` and neither was found: install ripgrep with "
            "`pip install 'ripgrep>=14.1,<15'`, or fd with `apt-get install -y fd-find` (Debian/Ubuntu)",
        )
    if is_small_tree(spec.base):
        return Strategy("rg" if rg is not None else "fd", 1)
    threads = max(os.cpu_count() or 1, 1)
    if fd is not None and (rg is None or fd_honours_gitignore(spec, fd)):
        return Strategy("fd", threads)
    return Strategy("rg", threads)


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
    return [*argv, *_common_flags(spec, strategy), "--", spec.base]


def _path_filter(spec: WalkSpec, backend: str) -> Callable[[str], bool] | None:
    """What rg's listing still needs in Python: the pattern beyond the name prefilter, and the
    hidden rule for names its type filter whitelists. fd applies both itself."""
    if backend != "rg":
        return None
    start = len(_prefix(spec.base))
    needs_regex = spec.regex is not None and not (spec.name_glob is not None and spec.name_glob_exact)
    match = re.compile(f"(?:{spec.regex})\\Z").match if needs_regex else None
    drop_hidden = spec.name_glob is not None and not spec.hidden
    if match is None and not drop_hidden:
        return None

    def wanted(path: str) -> bool:
        if drop_hidden and path[path.rfind("/") + 1] == ".":
            return False
        return match is None or match(path, start) is not None

    return wanted


def _stat_stream(chunks: Iterable[bytes], wanted: Callable[[str], bool] | None) -> list[tuple[int, str]]:
    """(-mtime_ns, path) for each NUL-separated path, as the walker writes them.

    A name that is not UTF-8 cannot reach an agent as text and is left out; so is a file
    that vanished before its stat, and an unterminated tail (a walker killed mid-write).
    """
    files: list[tuple[int, str]] = []
    append = files.append
    stat_ = os.stat
    rest = b""
    for chunk in chunks:
        *complete, rest = (rest + chunk).split(b"\0")
        for raw in complete:
            try:
                path = raw.decode("utf-8")
                if wanted is None or wanted(path):
                    append((-stat_(path).st_mtime_ns, path))
            except (UnicodeDecodeError, OSError):
                continue
    return files


def list_files(spec: WalkSpec, strategy: Strategy | None = None, *, timeout: float | None = None) -> Listing:
    """Run one walker over `spec.base`: the matching files' absolute paths and mtimes."""
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
        files = _stat_stream(proc.chunks(), _path_filter(spec, strategy.backend))
    warnings += [line for line in proc.stderr.splitlines() if line.strip()][:20]
    return Listing(files, strategy.backend, proc.timed_out, warnings)


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


def newest_first(listing: Listing, limit: int) -> list[tuple[str, int]]:
    """The `limit` newest files as (path, mtime_ns), newest first, ties by path.

    The order is total, so the same tree always gives the same pages.
    """
    files = listing.files
    top = heapq.nsmallest(limit, files) if len(files) > limit else sorted(files)
    return [(p, -neg) for neg, p in top]
