"""Grep's two seams: a second candidate source and a second search backend plug in, and Grep uses them.

The doubles here stand for the implementations named in `fstools/_grep/seams.py` (a symbol index,
a remote code-search service): each is a plain class that satisfies the Protocol, set where
Grep takes its seams; the rest of the call (validation, the page, the result) is the real one.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import pytest

import fstools
from fstools._core.context import ExecutionContext
from fstools._grep import grep as grep_module
from fstools._grep.command import GrepQuery
from fstools._grep.indexed import IndexCandidates
from fstools._grep.results import FileHit, LineHit
from fstools._grep.runs import Ripgrep, SearchOutcome
from fstools._grep.seams import CandidateSource, Page, SearchBackend
from fstools._walk.rules import WalkRules
from tests.helpers.trees import write


class NamedFiles:
    """A candidate source that names its files itself (as a symbol index would), recording each query."""

    def __init__(self, files: list[str]) -> None:
        self.files = files
        self.queries: list[GrepQuery] = []

    def candidates(self, ctx: ExecutionContext, query: GrepQuery) -> tuple[Sequence[str] | None, str]:
        self.queries.append(query)
        return list(self.files), "used"


class NoCandidates:
    """A candidate source that never narrows: every file is searched."""

    def candidates(self, ctx: ExecutionContext, query: GrepQuery) -> tuple[Sequence[str] | None, str]:
        return None, "none"


class Answers:
    """A search backend that answers from what it holds (as a remote service would), recording each call."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.calls: list[dict[str, object]] = []

    def search(
        self, ctx: ExecutionContext, query: GrepQuery, rules: WalkRules, candidates: Sequence[str] | None, page: Page
    ) -> SearchOutcome:
        self.calls.append({"query": query, "candidates": candidates, "content": page.content, "limit": page.limit})
        hit = FileHit(self.path, 2, 1)
        lines = [LineHit(self.path, n, f"remote line {n}", None, False) for n in (3, 7)]
        shown = lines[page.offset : page.offset + page.limit] if page.limit else lines  # the page's lines
        return SearchOutcome(files=[hit], lines=shown if page.content else [])


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    write(tmp_path / "a.txt", "needle in a\n")
    write(tmp_path / "b.txt", "needle in b\n")
    write(tmp_path / "c.txt", "nothing\n")
    return tmp_path


def test_the_shipped_implementations_satisfy_the_protocols():
    source: CandidateSource = IndexCandidates()
    backend: SearchBackend = Ripgrep()
    assert isinstance(source, IndexCandidates) and isinstance(backend, Ripgrep)


def test_grep_takes_its_candidates_from_a_plugged_source(tree: Path, monkeypatch: pytest.MonkeyPatch):
    ctx = ExecutionContext(working_dir=str(tree))
    walked = fstools.grep("needle", str(tree), ctx=ctx)
    assert sorted(walked.output.splitlines()) == [str(tree / "a.txt"), str(tree / "b.txt")]
    source = NamedFiles([str(tree / "b.txt"), str(tree / "c.txt")])
    monkeypatch.setattr(grep_module, "candidate_source", source)
    result = fstools.grep("NEEDLE", str(tree), case_insensitive=True, ctx=ctx)
    assert result.success and result.output.splitlines() == [str(tree / "b.txt")]  # rg searched only those two
    assert result.metadata["index"] == "used"
    (query,) = source.queries
    assert isinstance(query, GrepQuery)  # the query itself, not its fields re-spelled
    assert (query.pattern, query.root, query.case_insensitive) == ("NEEDLE", str(tree), True)


def test_grep_pages_what_a_plugged_backend_found(tree: Path, monkeypatch: pytest.MonkeyPatch):
    ctx = ExecutionContext(working_dir=str(tree))
    remote = str(tree / "remote.py")
    backend = Answers(remote)
    monkeypatch.setattr(grep_module, "search_backend", backend)
    monkeypatch.setattr(grep_module, "candidate_source", NamedFiles([str(tree / "a.txt")]))
    files = fstools.grep("needle", str(tree), ctx=ctx)
    assert files.success and files.output == remote and files.metadata["total_files"] == 1
    assert backend.calls[-1]["candidates"] == [str(tree / "a.txt")] and backend.calls[-1]["content"] is False

    monkeypatch.setattr(grep_module, "candidate_source", NoCandidates())
    content = fstools.grep("needle", str(tree), output_mode="content", head_limit=1, ctx=ctx)
    assert content.output.splitlines()[0] == f"{remote}:3> remote line 3" and content.metadata["total_matches"] == 2
    assert content.metadata["next_offset"] == 1 and content.metadata["index"] == "none"
    call = backend.calls[-1]
    assert call["candidates"] is None and call["content"] is True and call["limit"] == 1
    assert call["query"] == backend.calls[0]["query"]  # nothing to keep out of this walk


def test_a_walk_without_candidates_gets_the_query_finished_for_it(tree: Path, monkeypatch: pytest.MonkeyPatch):
    """An ignore file linked to a secret: the backend gets its directory kept out, Grep warns."""
    write(tree / "sub" / "hidden.txt", "needle\n")
    os.symlink("../.env", tree / "sub" / ".gitignore")
    backend = Answers(str(tree / "a.txt"))
    monkeypatch.setattr(grep_module, "search_backend", backend)
    monkeypatch.setattr(grep_module, "candidate_source", NoCandidates())
    result = fstools.grep("needle", str(tree), ctx=ExecutionContext(working_dir=str(tree)))
    walked = backend.calls[-1]["query"]
    assert isinstance(walked, GrepQuery) and "!/sub" in walked.excludes
    assert any(w.startswith("Not searched") and str(tree / "sub") in w for w in result.metadata["warnings"])
    monkeypatch.setattr(grep_module, "candidate_source", NamedFiles([str(tree / "a.txt")]))
    fstools.grep("needle", str(tree), ctx=ExecutionContext(working_dir=str(tree)))
    assert "!/sub" not in backend.calls[-1]["query"].excludes  # candidates: no walk to finish the query for


def test_symbols_take_their_candidates_from_the_same_source(tree: Path, monkeypatch: pytest.MonkeyPatch):
    write(tree / "one.py", "def needle():\n    return 1\n")
    write(tree / "two.py", "def needle():\n    return 2\n")
    ctx = ExecutionContext(working_dir=str(tree))
    both = fstools.symbols("needle", path=str(tree), ctx=ctx)
    assert str(tree / "one.py") in both.output and str(tree / "two.py") in both.output
    source = NamedFiles([str(tree / "two.py")])
    monkeypatch.setattr(grep_module, "candidate_source", source)
    narrowed = fstools.symbols("needle", path=str(tree), ctx=ctx)
    assert str(tree / "two.py") in narrowed.output and str(tree / "one.py") not in narrowed.output
    assert source.queries and isinstance(source.queries[0], GrepQuery)


class CountedNone(NoCandidates):
    """A candidate source that never narrows, counting how often it is asked."""

    def __init__(self) -> None:
        self.asked = 0

    def candidates(self, ctx: ExecutionContext, query: GrepQuery) -> tuple[Sequence[str] | None, str]:
        self.asked += 1
        return super().candidates(ctx, query)


@pytest.mark.parametrize("tool", ["symbols", "references"])
def test_navigation_without_candidates_asks_the_source_once(tree: Path, monkeypatch: pytest.MonkeyPatch, tool: str):
    write(tree / "one.py", "def needle():\n    return 1\n")
    ctx = ExecutionContext(working_dir=str(tree))
    source = CountedNone()
    monkeypatch.setattr(grep_module, "candidate_source", source)
    result = getattr(fstools, tool)("needle", path=str(tree), ctx=ctx)
    assert result.success and str(tree / "one.py") in result.output  # rg's walk found it
    assert result.metadata["index"] == "none"  # the answer it gave is the one reported
    assert source.asked == 1
