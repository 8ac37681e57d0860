"""Grep's output text, in the documented format (docs/contract.md).

files_with_matches: one absolute path per line. count: `path: N`. content: `path:N> text`
for a matching line, `path:N  text` for a context line (`path> text` / `path  text`
without line numbers), and `--` between groups that are not adjacent when context was
asked for, as rg prints them.
"""

from __future__ import annotations

from collections.abc import Iterable

from .results import FileHit, LineHit

NO_MATCHES = "No matches found"


def format_files(files: Iterable[FileHit]) -> str:
    return "\n".join(f.path for f in files) or NO_MATCHES


def format_counts(files: Iterable[FileHit]) -> str:
    return "\n".join(f"{f.path}: {f.lines}" for f in files) or NO_MATCHES


def format_content(lines: Iterable[LineHit], *, line_numbers: bool, separators: bool) -> str:
    out: list[str] = []
    prev: LineHit | None = None
    for hit in lines:
        if separators and prev is not None and (hit.path != prev.path or hit.line != prev.line + 1):
            out.append("--")
        mark = " " if hit.is_context else ">"
        where = f"{hit.path}:{hit.line}" if line_numbers else hit.path
        out.append(f"{where}{mark} {hit.text}")
        prev = hit
    return "\n".join(out) or NO_MATCHES
