"""Where a second implementation plugs into Grep's search: the candidate source and the search backend.

A call runs three steps over one `GrepQuery`: a candidate source names the files that can
match (or says why every file must be read), the query is finished for the walk when none
answered (`command.for_walk`), and a search backend reads the files and fills a
`SearchOutcome`, the sink every page, total and warning is cut from. Each step takes the
query itself, so a new matcher option is a field of `GrepQuery` and the code that reads it,
not a new keyword on every layer between. ripgrep's own crates split the same way: a
searcher, and a sink for what it finds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from .._core.context import ExecutionContext
    from .._index.status import IndexStatus
    from .._walk.rules import WalkRules
    from .command import GrepQuery
    from .runs import SearchOutcome


class CandidateSource(Protocol):
    """The files below `query.root` that can hold a match, before any is read.

    Today the trigram index (`indexed.IndexCandidates`): a superset, which the backend then
    searches instead of walking the root. Next, a symbol index (the files that define or use
    an identifier, for Symbols and References) and a remote code-search service that answers
    for a tree too big for one machine. The answer is (None, why) when the backend must walk
    every file, the reason going to `metadata["index"]`; a list may carry a `probe` attribute
    (see `indexed.Candidates`) for the probe after an empty result.
    """

    def candidates(self, ctx: ExecutionContext, query: GrepQuery) -> tuple[Sequence[str] | None, IndexStatus]: ...


@dataclass(frozen=True)
class Page:
    """The part of the results a call shows: matching lines (`content`) or files, from `offset`,
    at most `limit` of them (0: every one)."""

    content: bool
    offset: int
    limit: int
    line_numbers: bool = True


class SearchBackend(Protocol):
    """Reads the files and returns what it found: every matching file (with its count of matching
    lines), and for a content search the page's lines.

    Today rg (`runs.Ripgrep`, the `Searcher` and its runs, confined to the roots); next, a
    remote code-search service that returns the same `SearchOutcome`. `candidates` None:
    walk `query.root` with `rules` (what the walk may show); else search exactly those files.
    """

    def search(
        self, ctx: ExecutionContext, query: GrepQuery, rules: WalkRules, candidates: Sequence[str] | None, page: Page
    ) -> SearchOutcome: ...
