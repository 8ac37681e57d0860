"""Grep's seam to the search index: the files that can match, or why every file must be searched."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .._core.context import ExecutionContext
from .command import GrepQuery

if TYPE_CHECKING:
    from .._index.entries import Sig
    from .._index.status import IndexStatus


class Candidates(list[str]):
    """The index's candidates; `probe()` gives what the probe after an empty result searches
    (`.search`) and reports as too large (`.too_large`), or None when the probe must walk."""

    probe: Callable[[], Any] | None = None
    # Candidate -> its signature (mtime, ctime, size, inode) as the index proved it at the call's start
    # (one left out: stat it); None: not known (a watcher process answered).
    sigs: Callable[[], dict[str, Sig]] | None = None


def index_scope(ctx: ExecutionContext, query: GrepQuery) -> tuple[list[str] | None, IndexStatus]:
    """(candidates, metadata["index"]): candidates None means walk the root as without an index.

    The index holds the files of Grep's default walk, so a search with a glob, a type,
    hidden files or ignore files off lists other files: it scans ("options"). The reason
    given is the first that holds: a single file, then no index, then the options.
    """
    if ctx.search_index == "off":
        return None, "off"
    if query.root_is_file:
        return None, "single file"
    from .._index.location import covering_root

    covered = covering_root(query.root)
    if covered is None:  # the common case: no index, and nothing heavy loaded to learn it
        return None, "none"
    if query.glob or query.types or query.hidden or not query.respect_gitignore:
        return None, "options"
    asked = _asked(ctx, query, *covered)
    if asked is not None:
        return asked
    try:
        from .._index.listing import Filters
        from .._index.service import grep_candidates
    except ImportError:
        return None, "numpy missing"
    # query.excludes are the Grep walk rules' (WalkRules.rg_excludes), as the index's own file set
    filters = Filters(query.excludes, tuple(ctx.sensitive_patterns), query.max_filesize)
    lookup = grep_candidates(query, filters)
    if lookup.paths is None:
        return None, lookup.status
    found = Candidates(lookup.paths)
    found.probe = lookup.probe
    found.sigs = lookup.sigs
    return found, lookup.status


def _asked(
    ctx: ExecutionContext, query: GrepQuery, root: str, data: str
) -> tuple[list[str] | None, IndexStatus] | None:
    """The candidates from the watcher serving `root`, when this process has not opened that index
    itself: it then loads neither numpy nor the index reader. None: no watcher answered for good."""
    from .._index import opened, watchd

    if root in opened.open_indexes or not watchd.available(root):
        return None
    search = watchd.AskedSearch(
        query.root,
        query.pattern,
        query.case_insensitive,
        query.fixed_strings,
        tuple(query.excludes),
        tuple(ctx.sensitive_patterns),
        query.max_filesize,
    )
    answer = watchd.ask_candidates(root, data, search)
    if answer is None:
        return None
    status, paths = answer
    if paths is None:
        return None, status
    found = Candidates(paths)
    found.probe = lambda: watchd.ask_probe(root, data, query.root)
    return found, status


class IndexCandidates:
    """The trigram index as Grep's candidate source (`seams.CandidateSource`): `index_scope`."""

    def candidates(self, ctx: ExecutionContext, query: GrepQuery) -> tuple[list[str] | None, IndexStatus]:
        return index_scope(ctx, query)
