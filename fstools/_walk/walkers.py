"""Listing the files below a directory with fd or `rg --files`, with their mtimes, newest first.

Both backends get the same filters (hidden, ignore files, excludes, symlinks) and return
absolute paths. The walker runs confined (`confinement`): started in the verified base
directory's descriptor, walking "." and, where the kernel has Landlock, unable to read
outside the allowed roots; its relative paths are joined to the base here.

The name pattern is a regular expression over the path relative to the base: fd gets it as
a full-path regex; rg's listing is filtered by it in Python, after a file-type prefilter
on the last component (`rg --glob` would not do: it is an override that lists gitignored
and hidden files when they match). Each path is stat-ed as it streams in, while the walker
is still working, unless the walker sorts by mtime itself.
"""

from __future__ import annotations

import heapq
import os
import re
import stat
import subprocess
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import cache, partial

from .._core.binaries import find_binary, require_binary
from .._core.confinement import confined
from .._core.errors import ErrorCode, ToolError
from .._core.paths import is_within
from .._core.runner import StreamingProcess
from .._globs.globmatch import compile_glob
from .excludes import DEFAULT_EXCLUDES
from .ignorefiles import redact_ignore_messages
from .linkscan import repositories_below
from .parents import parent_rules

# Below these counts in the base's first two levels a tree is small: sorting in Python is
# then as cheap as rg's sort, and fd runs one thread (docs/decisions/find.md).
SMALL_TREE_DIRS = 200
SMALL_TREE_ENTRIES = 1000

# The only characters Rust's regex (fd) accepts escaped.
_RUST_META = frozenset("\\.+*?()|[]{}^$#&-~")
_TYPE_NAME = "fstoolsglob"


@dataclass(frozen=True)
class WalkSpec:
    """What to list: every file below `base` whose relative path fully matches `regex`.

    `name_glob` is a glob over the file name that every match satisfies (a filter rg
    applies while walking); when `name_glob_exact`, it decides alone and rg's listing
    needs no regex. `excludes` are gitignore-style globs pruned anywhere. `roots` are the
    allowed roots the walker may read beneath (default: `base` alone), `root` the one
    holding `base`.
    """

    base: str
    regex: str | None = None
    glob: str | None = None  # the glob `regex` was made from: Python matches it in linear time
    name_glob: str | None = None
    name_glob_exact: bool = False
    max_depth: int | None = None
    hidden: bool = False
    respect_gitignore: bool = True
    ignore_flags: tuple[str, ...] = ()  # rg's --no-ignore-* switches (ignore files kept out: `_index.ignorelinks`)
    follow_symlinks: bool = False
    excludes: tuple[str, ...] = DEFAULT_EXCLUDES
    glob_ignore_case: bool = False  # `regex` is the glob's in `(?i:...)`
    roots: tuple[str, ...] = ()
    root: str | None = None
    # The rules of the directories above `base`, rewritten for the walker (`parents`): set by `list_files`.
    parent_ignore: str | None = None
    in_repository: bool = False
    global_ignore: bool = False  # the global git ignore file's rules are in `parent_ignore`


@dataclass(frozen=True)
class Strategy:
    """Which walker runs a walk, with how many threads, and whether it sorts by mtime itself."""

    backend: str
    threads: int
    walker_sorts: bool = False


@dataclass
class Listing:
    """The matching files' absolute paths.

    With `neg_mtimes` (-mtime_ns, one per path) they are in walk order; without, the
    walker sorted them newest first and only a page's worth needs a stat.
    """

    paths: list[str]
    backend: str
    neg_mtimes: list[int] | None = None
    timed_out: bool = False
    warnings: list[str] = field(default_factory=list)
    confined: bool = False  # the walker could read nothing outside the allowed roots
    ordered: bool = False  # with `neg_mtimes`: already newest first, ties by path (`keep` keeps the order)

    def keep(self, kept: list[str]) -> None:
        """Keep only the files in `kept`, a filtered copy of `self.paths` (order is kept)."""
        if len(kept) == len(self.paths):
            return
        if self.neg_mtimes is not None:
            wanted = set(kept)
            pairs = [(m, p) for m, p in zip(self.neg_mtimes, self.paths, strict=True) if p in wanted]
            self.neg_mtimes = [m for m, _ in pairs]
        self.paths = kept


@cache
def fd_version(fd: str) -> tuple[int, ...]:
    """fd's version, e.g. (8, 6, 0): Debian's fd-find 8.6 predates --no-require-git (8.7)."""
    try:
        out = subprocess.run(
            [fd, "--version"], capture_output=True, text=True, timeout=10, stdin=subprocess.DEVNULL, cwd="/"
        )
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


def is_small_tree(base: str, max_dirs: int = SMALL_TREE_DIRS, max_entries: int = SMALL_TREE_ENTRIES) -> bool:
    """A cheap size probe (well under a millisecond): the base's first two levels hold
    fewer than `max_dirs` directories and `max_entries` entries; it stops at either."""
    dirs_seen = entries_seen = 0
    dirs = [base]
    for _ in range(2):
        below: list[str] = []
        for d in dirs:
            try:
                with os.scandir(d) as it:
                    for entry in it:
                        entries_seen += 1
                        if entry.is_dir(follow_symlinks=False):
                            dirs_seen += 1
                            below.append(entry.path)
                        if dirs_seen >= max_dirs or entries_seen >= max_entries:
                            return False
            except OSError:
                continue
        dirs = below
    return True


def choose_strategy(spec: WalkSpec) -> Strategy:
    """Pick the walker from measurements (docs/decisions/find.md).

    A small tree goes to one rg thread: rg starts in about half fd's time and a pool only
    adds start-up. A big tree goes to `rg --sortr modified`, which stats in Rust, so Python
    stats a page instead of every match: on the kernel tree that beat fd's parallel walk
    plus a Python stat per match in wall and CPU time. fd walks when rg is missing.
    """
    fd, rg = find_binary("fd"), find_binary("rg")
    if fd is None and rg is None:
        raise ToolError(
            ErrorCode.MISSING_BINARY,
            "Glob needs `rg` or `fd` and neither was found: install ripgrep with "
            "`pip install 'ripgrep>=14.1,<15'`, or fd with `apt-get install -y fd-find` (Debian/Ubuntu)",
        )
    small = is_small_tree(spec.base)
    if rg is not None:
        return Strategy("rg", 1, walker_sorts=not small)
    return Strategy("fd", 1 if small else max(os.cpu_count() or 1, 1))


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


# rg's --no-ignore-* switches as fd spells them; fd folds info/exclude and the global file into vcs.
_FD_IGNORE_FLAGS = {
    "--no-ignore-vcs": "--no-ignore-vcs",
    "--no-ignore-parent": "--no-ignore-parent",
    "--no-ignore-exclude": "--no-ignore-vcs",
    "--no-ignore-global": "--no-ignore-vcs",
}


def fd_ignore_flags(flags: tuple[str, ...]) -> list[str]:
    """rg's --no-ignore-* switches for fd 8.6, which has only some: where it lacks one, it reads no ignore file."""
    return list(dict.fromkeys(_FD_IGNORE_FLAGS.get(flag, "--no-ignore") for flag in flags))


def parent_flags(spec: WalkSpec, *, rg: bool = False) -> list[str]:
    """The walker reads no ignore file above the base: fstools hands it their rules, rewritten (`parents`).
    rg reads no global git ignore file either when fstools has them (fd has no switch for it alone)."""
    if not spec.respect_gitignore:
        return []
    flags = ["--no-ignore-parent", *(("--no-ignore-global",) if rg and spec.global_ignore else ())]
    return [*flags, *(("--ignore-file", spec.parent_ignore) if spec.parent_ignore else ())]


def fd_argv(spec: WalkSpec, fd: str, strategy: Strategy) -> list[str]:
    argv = [fd, "--type", "f", "--print0", "--color", "never", "--case-sensitive", "--full-path"]
    if not spec.respect_gitignore:
        argv.append("--no-ignore")
    elif fd_version(fd) >= (8, 7, 0) and not spec.in_repository:
        argv.append("--no-require-git")
    argv += fd_ignore_flags(spec.ignore_flags)
    argv += parent_flags(spec)
    for name in spec.excludes:
        argv += ["--exclude", name]
    regex = "(?s:.*)" if spec.regex is None else f"(?:{spec.regex})"
    return [*argv, *_common_flags(spec, strategy), "--", f"^{_rust_escape(_prefix(spec.base))}{regex}$", "."]


def rg_files_argv(rg: str, options: Sequence[str], target: str) -> list[str]:
    """The one `rg --files` command line in fstools: the files rg would search below `target`
    under `options`, NUL-separated, whatever a user's ripgreprc says."""
    return [rg, "--no-config", "--files", "--null", *options, "--", target]


def rg_argv(spec: WalkSpec, rg: str, strategy: Strategy) -> list[str]:
    argv: list[str] = []
    if not spec.respect_gitignore:
        argv.append("--no-ignore")
    elif not spec.in_repository:
        # Outside a repository .gitignore applies too. Inside one rg must keep requiring git: the
        # switch makes rg 14 blind to nested repositories' boundaries and worktrees' exclude file.
        argv.append("--no-require-git")
    argv += spec.ignore_flags
    argv += parent_flags(spec, rg=True)
    for name in spec.excludes:
        argv += ["--glob", f"!{name}"]
    if spec.name_glob is not None:
        argv += ["--type-add", f"{_TYPE_NAME}:{spec.name_glob}", "--type", _TYPE_NAME]
    if strategy.walker_sorts:
        argv += ["--sortr", "modified"]
    return rg_files_argv(rg, [*argv, *_common_flags(spec, strategy)], ".")


# Keeps the wanted paths of a batch, in order.
PathFilter = Callable[[list[str]], list[str]]


def _path_filter(spec: WalkSpec, backend: str) -> PathFilter | None:
    """What rg's listing still needs in Python: the pattern beyond the name prefilter, and the
    hidden rule for names its type filter whitelists. fd applies both itself."""
    if backend != "rg":
        return None
    start = len(_prefix(spec.base))
    needs_regex = spec.regex is not None and not (spec.name_glob is not None and spec.name_glob_exact)
    match: Callable[[str, int], object] | None = None
    if needs_regex:
        # A backtracking regex could take minutes on a crafted name: the glob runs as an automaton.
        match = (
            compile_glob(spec.glob, spec.glob_ignore_case).match
            if spec.glob is not None
            else re.compile(f"(?:{spec.regex})\\Z").match
        )
    drop_hidden = spec.name_glob is not None and not spec.hidden
    if match is None and not drop_hidden:
        return None

    def wanted(paths: list[str]) -> list[str]:
        # A hidden name follows a "/": one scan of the batch usually shows there is none.
        if drop_hidden and "/." in "\0".join(paths):
            paths = [p for p in paths if p[p.rfind("/") + 1] != "."]
        if match is not None:
            paths = [p for p in paths if match(p, start) not in (None, False)]
        return paths

    return wanted


def _decode(body: bytes) -> list[str]:
    """NUL-separated names: the whole batch at once, or name by name without the non-UTF-8 ones."""
    try:
        return body.decode("utf-8").split("\0")
    except UnicodeDecodeError:
        names = []
        for raw in body.split(b"\0"):
            try:
                names.append(raw.decode("utf-8"))
            except UnicodeDecodeError:
                continue
        return names


def _absolute(names: list[str], prefix: str) -> list[str]:
    """Walker names relative to the base (`./a/b` or `a/b`) as absolute paths under `prefix`."""
    return [prefix + (name[2:] if name.startswith("./") else name) for name in names]


def _read_stream(
    chunks: Iterable[bytes], base: str, wanted: PathFilter | None, stat_in: int | None
) -> tuple[list[str], list[int] | None]:
    """The NUL-separated paths as the walker writes them (relative to `base`, made absolute), a
    batch at a time, each stat-ed on arrival relative to the base directory's descriptor `stat_in` if given.

    A name that is not UTF-8 cannot reach an agent as text and is left out; so is a file
    that vanished before its stat, and an unterminated tail (a walker killed mid-write).
    """
    paths: list[str] = []
    neg_mtimes: list[int] = []
    stat_ = os.stat
    prefix = _prefix(base)
    start = len(prefix)
    rest = b""
    for chunk in chunks:
        data = rest + chunk if rest else chunk
        cut = data.rfind(b"\0")
        if cut < 0:
            rest = data
            continue
        body, rest = data[:cut], data[cut + 1 :]
        batch = _absolute(_decode(body), prefix)
        if wanted is not None:
            batch = wanted(batch)
        if stat_in is None:
            paths += batch
            continue
        for path in batch:
            try:
                neg_mtimes.append(-stat_(path[start:], dir_fd=stat_in).st_mtime_ns)
            except OSError:
                continue
            paths.append(path)
    return paths, (neg_mtimes if stat_in is not None else None)


_DENIED = "Permission denied (os error 13)"


_LEADS = ("rg: ", "[fd error]: ")


def _walker_warnings(stderr: str, confined: bool, base: str) -> list[str]:
    """The walker's complaints, at most 20, its paths (relative to `base`, where it ran) made
    absolute. A confined walker is refused whatever leaves the roots (a followed link out): rg
    says so without naming the path, so the warning explains."""
    lines = []
    for line in stderr.splitlines():
        if line.strip():
            lead = next((lead for lead in _LEADS if line.startswith(lead + "./")), None)
            lines.append(line if lead is None else lead + _prefix(base) + line[len(lead) + 2 :])
    if confined and any(_DENIED in line for line in lines):
        lines = [line for line in lines if _DENIED not in line]
        lines.insert(
            0,
            "some paths could not be read (permission denied), such as links leading outside "
            "the allowed directories, which are never followed",
        )
    return lines[:20]


def list_files(spec: WalkSpec, strategy: Strategy | None = None, *, timeout: float | None = None) -> Listing:
    """Run one walker over `spec.base`: the matching files' absolute paths and mtimes."""
    strategy = strategy or choose_strategy(spec)
    binary = require_binary(strategy.backend)
    warnings: list[str] = []
    spec = with_parent_rules(spec, strategy.backend)
    if strategy.backend == "fd":
        argv = fd_argv(spec, binary, strategy)
        if not fd_honours_gitignore(spec, binary):
            warnings.append("fd < 8.7 reads .gitignore only inside a git repository; it was not applied here")
    else:
        argv = rg_argv(spec, binary, strategy)
    root = spec.root or spec.base
    with (
        confined(spec.roots or (root,), root, spec.base, binary) as confinement,
        StreamingProcess(argv, timeout=timeout, confinement=confinement) as proc,
    ):
        stat_in = None if strategy.walker_sorts else confinement.cwd_fd
        paths, neg_mtimes = _read_stream(proc.chunks(), spec.base, _path_filter(spec, strategy.backend), stat_in)
    messages = _walker_warnings(proc.stderr, confinement.confined, spec.base)
    warnings += redact_ignore_messages(messages, lambda p: is_within(p, spec.base))
    return Listing(paths, strategy.backend, neg_mtimes, proc.timed_out, warnings, confinement.confined)


def grep_walk_argv(
    rg: str, root: str, excludes: Sequence[str], *, max_depth: int | None = None, everything: bool = False
) -> list[str]:
    """The listing of the files Grep's default search walks below `root` (absolute paths; `everything`:
    ignored and hidden files too, as the probe after an empty result walks)."""
    options = ["--no-ignore", "--hidden"] if everything else []
    if not everything:
        # rg 14 misapplies the rules above `root`: it reads none, and gets them rewritten (`parents`).
        options.append("--no-ignore-parent")
        nested = None if max_depth == 1 else partial(repositories_below, hidden=False)
        parents = parent_rules(root, gitignore_outside=False, relative=False, nested=nested)
        options += ["--no-ignore-global"] if parents.takes_global else []  # its rules are in the file, anchored
        rules = parents.ignore_file()
        if rules is not None:
            options += ["--ignore-file", rules]
    for glob in excludes:
        options += ["--glob", glob]
    if max_depth is not None:
        options += ["--max-depth", str(max_depth)]
    return rg_files_argv(rg, options, root)


def grep_walk(
    root: str,
    excludes: Sequence[str],
    *,
    timeout: float,
    max_depth: int | None = None,
    everything: bool = False,
) -> list[str]:
    """The absolute paths of the files Grep's default walk reaches below `root` with these `--glob`
    overrides, unconfined and unsorted (the search index's file set is this walk)."""
    argv = grep_walk_argv(require_binary("rg"), root, excludes, max_depth=max_depth, everything=everything)
    with StreamingProcess(argv, timeout=timeout) as proc:
        raw = proc.read_all()
    if proc.timed_out:
        raise TimeoutError(f"listing {root} took longer than {timeout:g}s")
    return [os.fsdecode(p) for p in raw.split(b"\0") if p]


def ignore_kinds(flags: Sequence[str]) -> frozenset[str] | None:
    """The kinds of ignore file still in use under rg's `--no-ignore-*` switches; None: none above the base."""
    if "--no-ignore-parent" in flags:
        return None
    kinds = {"vcs", "dot", "exclude", "global"}
    if "--no-ignore-vcs" in flags:
        kinds -= {"vcs", "exclude", "global"}
    if "--no-ignore-global" in flags:
        kinds.discard("global")
    if "--no-ignore-dot" in flags:
        kinds.discard("dot")
    if "--no-ignore-exclude" in flags:
        kinds.discard("exclude")
    return frozenset(kinds)


def with_parent_rules(spec: WalkSpec, backend: str) -> WalkSpec:
    """`spec` with the rules of the directories above its base, for `backend` walking `.` there."""
    if not spec.respect_gitignore:
        return spec
    kinds = ignore_kinds(spec.ignore_flags)
    rules = parent_rules(
        spec.base,
        walker=backend,
        gitignore_outside=True,
        relative=True,
        kinds=kinds or frozenset(),
        include_base=backend == "fd" and kinds is not None,
        # A walk one level deep lists nothing inside a nested repository: no walk of the tree for it.
        nested=None if spec.max_depth == 1 else lambda base: repositories_below(base, hidden=spec.hidden),
    )
    return replace(
        spec, parent_ignore=rules.ignore_file(), in_repository=rules.in_repository, global_ignore=rules.takes_global
    )


class ContainmentFilter:
    """Keeps the paths whose every directory, and the file itself, resolve inside the allowed roots.

    Needed only when links are followed; without that a walk never leaves the canonical
    base. Each directory is resolved once, so the cost is about one lstat per file.
    """

    def __init__(self, base: str, inside: Callable[[str], bool]) -> None:
        self._inside = inside
        self._dirs: dict[str, str | None] = {base: base}

    def _resolve_dir(self, path: str) -> str | None:
        # Iterative: a tree thousands of levels deep must not hit the recursion limit.
        unknown = []
        while path not in self._dirs:
            parent = os.path.dirname(path)
            if parent == path:
                self._dirs[path] = None
                break
            unknown.append(path)
            path = parent
        for directory in reversed(unknown):
            above = self._dirs[os.path.dirname(directory)]
            self._dirs[directory] = None if above is None else self._below(above, directory)
        return self._dirs[unknown[0]] if unknown else self._dirs[path]

    def _below(self, resolved_parent: str, directory: str) -> str | None:
        """The canonical path of `directory` given its parent's: one lstat unless it is a link."""
        try:
            is_link = stat.S_ISLNK(os.lstat(directory).st_mode)
        except OSError:
            return None
        canonical = (
            os.path.realpath(directory) if is_link else os.path.join(resolved_parent, os.path.basename(directory))
        )
        return canonical if self._inside(canonical) else None

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


def _page_of_sorted(paths: list[str], limit: int) -> list[tuple[str, int]] | None:
    """The first `limit` of paths the walker sorted newest first, ties by path, with O(limit + log n) stats.

    Only the walker's order among equal mtimes is arbitrary: the run of files sharing the
    page's last mtime is found by binary search and its first paths in path order fill
    the page. None when a stat fails or the order is not monotonic (a file changed since).
    """
    head = [_mtime(p) for p in paths[:limit]]
    known = [m for m in head if m is not None]
    if len(known) < len(head) or any(a < b for a, b in zip(known, known[1:], strict=False)):
        return None
    boundary = known[-1]
    first_tied = known.index(boundary)
    lo, hi = limit, len(paths)  # the tied run continues up to lo
    while lo < hi:
        mid = (lo + hi) // 2
        m = _mtime(paths[mid])
        if m is None or m > boundary:
            return None
        if m == boundary:
            lo = mid + 1
        else:
            hi = mid
    newer = sorted(zip(known[:first_tied], paths[:first_tied], strict=False), key=lambda t: (-t[0], t[1]))
    tied = heapq.nsmallest(limit - first_tied, paths[first_tied:lo])
    return [(p, m) for m, p in newer] + [(p, boundary) for p in tied]


def newest_first(listing: Listing, limit: int) -> list[tuple[str, int]]:
    """The `limit` newest files as (path, mtime_ns), newest first, ties by path.

    The order is total, so the same tree always gives the same pages. A file that
    vanished since the walk is left out when it had to be stat-ed.
    """
    if listing.ordered and listing.neg_mtimes is not None:
        return [(p, -neg) for neg, p in zip(listing.neg_mtimes[:limit], listing.paths[:limit], strict=True)]
    if listing.neg_mtimes is None:
        if len(listing.paths) > limit:
            page = _page_of_sorted(listing.paths, limit)
            if page is not None:
                return page
        keyed = [(-m, p) for p in listing.paths if (m := _mtime(p)) is not None]
    else:
        keyed = list(zip(listing.neg_mtimes, listing.paths, strict=True))
    top = heapq.nsmallest(limit, keyed) if len(keyed) > limit else sorted(keyed)
    return [(p, -neg) for neg, p in top]
