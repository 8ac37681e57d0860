"""Grep's result model and pagination: one total order that every page is cut from.

rg searches in parallel, so the order it reports files in changes from run to run. Pages
are cut from a defined order instead: newest file first (mtime), then path, then line.
Only files that matched are stat'ed, never every file searched.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, NamedTuple

# The bound Read uses too: one minified line must not flood the agent's context.
MAX_LINE_CHARS = 2000
# When the first match lies past the bound, the window starts this many characters before it.
_LEAD = 200

Span = tuple[int, int]


class FileHit(NamedTuple):
    """A file with matches: `lines` is its number of matching lines (rg's `matched_lines`).

    A named tuple, not a dataclass: a big result makes one per matching file.
    """

    path: str
    lines: int  # not `count`: that would shadow tuple.count
    mtime_ns: int
    links: int = 1  # hard links: more than one means the content may also live under other names


@dataclass(frozen=True)
class LineHit:
    """One output line: a matching line or a context line, text already cut to the bound.

    `submatches` are character offsets into `text`; None when rg did not report them
    (lines read from rg's line printer).
    """

    path: str
    line: int
    text: str
    submatches: tuple[Span, ...] | None
    is_context: bool

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "line": self.line,
            "text": self.text,
            "submatches": None if self.submatches is None else [list(s) for s in self.submatches],
            "is_context": self.is_context,
        }


def file_hit(path: str, count: int, stat: Callable[[str], os.stat_result] = os.stat) -> FileHit:
    """A matching file with its mtime and link count (stat'ed as soon as rg reports it, while rg keeps searching)."""
    try:
        st = stat(path)
    except OSError:  # vanished since rg saw it: still listed, after every file that exists
        return FileHit(path, count, 0)
    return FileHit(path, count, st.st_mtime_ns, st.st_nlink)


def page_order(hits: Iterable[FileHit]) -> list[FileHit]:
    """Files with matches in page order: newest mtime first, ties by path.

    Two stable C-level sorts (path, then mtime descending) instead of a tuple key per file.
    """
    ordered = sorted(hits, key=attrgetter("path"))
    ordered.sort(key=attrgetter("mtime_ns"), reverse=True)
    return ordered


def line_ranges(files: list[FileHit], offset: int, limit: int) -> dict[str, tuple[int, int]]:
    """The page's matching lines as per-file `[start, stop)` indexes (limit 0: to the end)."""
    stop = offset + limit if limit else None
    ranges: dict[str, tuple[int, int]] = {}
    pos = 0
    for f in files:
        lo, hi = pos, pos + f.lines
        pos = hi
        if hi <= offset:
            continue
        if stop is not None and lo >= stop:
            break
        ranges[f.path] = (max(offset - lo, 0), f.lines if stop is None else min(stop - lo, f.lines))
    return ranges


def cut_line(text: str, spans: tuple[Span, ...]) -> tuple[str, tuple[Span, ...]]:
    """Cut a line longer than MAX_LINE_CHARS, keeping the first match in view, with a marker."""
    if len(text) <= MAX_LINE_CHARS:
        return text, spans
    start = max(0, spans[0][0] - _LEAD) if spans and spans[0][1] > MAX_LINE_CHARS else 0
    end = min(len(text), start + MAX_LINE_CHARS)
    head = f"[... {start} characters cut] " if start else ""
    tail = f" [... {len(text) - end} more characters cut]" if end < len(text) else ""
    shift = len(head) - start
    kept = tuple((max(s, start) + shift, min(e, end) + shift) for s, e in spans if s < end and e > start)
    return head + text[start:end] + tail, kept
