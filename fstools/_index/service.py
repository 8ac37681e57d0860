"""What Grep, Glob, the writers, the CLI and the MCP server ask of the index.

Each answer is a `Lookup`: the files to search (or list), or None with the reason the
caller must scan instead — "none" (no index covers the path), "off", "numpy missing",
"other filters" (the index was built with other secret patterns or size limit), "not
indexed" (a directory its walk never entered), "unselective" (the pattern has no literal to
narrow by: rg walks every file anyway), "stale", "corrupt", "version", "binary" (a
candidate holds a late NUL byte, which rg treats differently when named explicitly) or
"error". Live indexes are kept per process, keyed by their data file, so a long-lived
process maps each index once and a rebuild is picked up at the next call.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from .._core.context import ExecutionContext, default_context
from . import opened
from .entries import Sig
from .listing import Filters
from .live import ListingSnapshot, LiveIndex
from .location import covering_root, current_file, drop
from .plan import AllFiles, plan
from .status import IndexStatus, ProbeScope, Unusable
from .store import CorruptIndex, open_index

if TYPE_CHECKING:
    from .build import BuildReport, Progress
    from .watchd import AskedSearch

_watching = True
# Candidates past this share of the files below the searched directory: rg walks instead
# (handed ~70,000 kernel files as arguments, rg took 1.2-1.6x its own walk).
STEP_ASIDE = 0.5
STEP_ASIDE_FILES = 5000  # below this many candidates the arguments cost rg nothing that matters


class SearchedPattern(Protocol):
    """A search as the index plans it; Grep's query (`GrepQuery`) is one, passed whole."""

    @property
    def root(self) -> str: ...
    @property
    def pattern(self) -> str: ...
    @property
    def case_insensitive(self) -> bool: ...
    @property
    def fixed_strings(self) -> bool: ...


@dataclass
class Lookup:
    status: IndexStatus  # "used", or why the caller scans
    paths: list[str] | None = None
    snapshot: ListingSnapshot | None = None
    # The probe after an empty result, from the index (None from it: the probe walks).
    probe: Callable[[], ProbeScope | None] | None = None
    # path -> its signature as proven at the call's start (a path left out: the caller stats it).
    sigs: Callable[[], dict[str, Sig]] | None = None
    detail: dict[str, Any] = field(default_factory=dict)


def set_watching(enabled: bool) -> None:
    """Whether indexes opened from now on watch their tree with inotify (long-lived processes)."""
    global _watching
    _watching = enabled


def open_live(path: str) -> LiveIndex:
    """The live index covering `path` (a canonical directory), opened once per process; Unusable when none."""
    found = covering_root(path)
    if found is None:
        raise Unusable("none")
    try:  # only now: a process without any index never pays for importing numpy
        import numpy  # noqa: F401
    except ImportError:
        raise Unusable("numpy missing") from None
    root, data = found
    with opened.lock:
        live = opened.open_indexes.get(root)
        if live is None or live.file.path != data:
            try:
                live = LiveIndex(open_index(data))
            except CorruptIndex as exc:
                raise Unusable(exc.reason) from None
            except FileNotFoundError:  # swapped out between reading `current` and opening it
                raise Unusable("stale") from None
            if live.root != root:
                raise Unusable("corrupt")
            from . import watchd

            live.asks = watchd.available(root)
            if _watching and not live.asks:  # a served root needs no watch of this process's own
                from .watch import Watcher

                live.watcher = Watcher.start(live)
            opened.keep(root, live)
    return live


def _usable(path: str, filters: Filters) -> LiveIndex:
    return _checked(open_live(path), path, filters)


def _checked(live: LiveIndex, path: str, filters: Filters) -> LiveIndex:
    """`live`, proven fresh, when it answers for `filters` below `path`; Unusable otherwise."""
    if live.filters != filters:
        raise Unusable("other filters")
    with live.lock:
        live.refresh()
    if not live.covers(path):
        raise Unusable("not indexed")
    return live


def watched_candidates(search: AskedSearch, live: LiveIndex) -> tuple[str, list[str] | None]:
    """A watcher's answer to another process's search: the status and candidates on `live`, its index."""
    lookup = grep_candidates(
        search, Filters(search.excludes, search.sensitive_patterns, search.max_filesize), live=live
    )
    return lookup.status, lookup.paths


def grep_candidates(search: SearchedPattern, filters: Filters, live: LiveIndex | None = None) -> Lookup:
    """The files below directory `search.root` that may hold a match of its pattern.

    Parameters: `search` the pattern and directory; `filters` the caller's file set;
    `live` the index to ask (a watcher answering for another process), else the one
    this process opens for the directory.
    """
    path = search.root
    try:
        live = _usable(path, filters) if live is None else _checked(live, path, filters)
        query = plan(search.pattern, case_insensitive=search.case_insensitive, fixed_strings=search.fixed_strings)
        if isinstance(query.query, AllFiles):  # nothing narrows it: rg's own walk is the fastest way through all
            return Lookup("unselective")
        with live.lock:
            paths, rows = live.candidates_and_rows(query.query, path, query.literals)
            if len(paths) > max(STEP_ASIDE_FILES, STEP_ASIDE * live.files_below(path)):  # rg's walk beats arguments
                return Lookup("unselective")
    except Unusable as exc:
        return Lookup(exc.reason)
    except OSError:
        return Lookup("error")
    return Lookup("used", paths=paths, probe=lambda: _probe_scope(live, path), sigs=lambda: _sigs(live, paths, rows))


def _sigs(live: LiveIndex, paths: list[str], rows: dict[str, int]) -> dict[str, Sig]:
    """Asked after the candidates: their signatures as of the proof at the call's start (an overlay entry
    added since by another thread may give the later one)."""
    with live.lock:
        return live.sigs(paths, rows)


def _probe_scope(live: LiveIndex, path: str) -> ProbeScope | None:
    """Asked only when the search found nothing; the state is the one proven at the call's start, or later."""
    with live.lock:
        try:
            return live.probe_scope(path)
        except OSError:
            return None


def glob_snapshot(path: str, filters: Filters) -> Lookup:
    """Every file below directory `path` with its mtime, as the walk Grep and Glob do would list them."""
    try:
        live = _usable(path, filters)
        with live.lock:
            return Lookup("used", snapshot=live.snapshot(path))
    except Unusable as exc:
        return Lookup(exc.reason)
    except OSError:
        return Lookup("error")


def status(root: str) -> dict[str, Any]:
    """What `fstools index status` shows for a root."""
    data = current_file(root)
    if data is None:
        return {"root": root, "status": "none"}
    try:
        index = open_index(data)
    except CorruptIndex as exc:
        return {"root": root, "status": exc.reason, "detail": str(exc), "path": data}
    live = LiveIndex(index)
    h = index.header
    info: dict[str, Any] = {
        "root": root,
        "path": data,
        "index_bytes": os.path.getsize(data),
        "indexed_bytes": h["indexed_bytes"],
        "built_at": h["built_at"],
        **live.counts(),
    }
    try:
        live.refresh()
        info["status"] = "fresh"
        info["changed_since_build"] = len(live.overlay)
    except Unusable as exc:
        info["status"] = exc.reason
    return info


def drop_index(root: str) -> bool:
    with opened.lock:
        opened.forget(root)
    return drop(root)


def build_index(
    root: str | None = None, *, ctx: ExecutionContext | None = None, progress: Progress | None = None
) -> BuildReport:
    """Build (or rebuild) the search index of directory `root` (default: the context's working dir).

    The index covers the files Grep's default search walks, with the context's
    sensitive-file patterns and size limit; Grep and Glob use it while it is fresh.
    """
    ctx = ctx or default_context()
    directory = os.path.realpath(root or ctx.working_dir)
    if not os.path.isdir(directory):
        raise NotADirectoryError(f"not a directory: {root}")
    from .build import build

    return build(
        directory,
        sensitive_patterns=tuple(ctx.sensitive_patterns),
        max_filesize=ctx.grep_max_filesize,
        progress=progress,
    )
