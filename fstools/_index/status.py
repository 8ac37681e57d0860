"""Whether the search index answered a call, or why the call walked instead: `metadata["index"]`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# "used": the index answered. Otherwise the caller walks, because: "off" (the context turned
# the index off), "none" (no index covers the path), "single file" (Grep of one file: rg reads
# it directly), "not a git work tree" (Glob reads .gitignore files outside git too, which the
# index, built as Grep walks, does not), "options" (options the index was not built for: a glob,
# a type, hidden files, ignore files off, links followed, excludes), "other filters" (the index
# was built with other secret patterns or another size limit than the context's), "not indexed"
# (a directory the index's walk never entered, such as an ignored one), "numpy missing" (the
# index extra is not installed), "unselective" (the pattern has no literal to narrow by: rg walks
# every file anyway), "stale" (the tree changed in a way only a rebuild can follow), "corrupt"
# or "version" (the index file is damaged, or of another version), "binary" (a candidate holds a
# late NUL byte, which rg treats differently when named explicitly), "error" (anything else).
IndexStatus = Literal[
    "used",
    "off",
    "none",
    "single file",
    "not a git work tree",
    "options",
    "other filters",
    "not indexed",
    "numpy missing",
    "unselective",
    "stale",
    "corrupt",
    "version",
    "binary",
    "error",
]
# Why an index file cannot be opened.
CorruptReason = Literal["corrupt", "version"]


class Unusable(Exception):
    """The index cannot answer this call; `reason` goes to metadata["index"]."""

    def __init__(self, reason: IndexStatus) -> None:
        super().__init__(reason)
        self.reason: IndexStatus = reason


@dataclass
class ProbeScope:
    """The probe's files, from the index: those rg searches, and those over the size limit."""

    search: list[str]
    too_large: list[str]
