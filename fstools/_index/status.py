"""Whether the search index answered a call, or why the call walked instead: `metadata["index"]`."""

from __future__ import annotations

from typing import Literal

# "used": the index answered. Otherwise the caller walks, because: "off" (the context turned
# the index off), "none" (no index covers the path), "unsupported" (options the index was not
# built for, or numpy missing), "unselective" (the pattern has no literal to narrow by: rg walks
# every file anyway), "stale" (the tree changed in a way only a rebuild can follow), "corrupt"
# or "version" (the index file is damaged, or of another version), "binary" (a candidate holds a
# late NUL byte, which rg treats differently when named explicitly), "error" (anything else).
IndexStatus = Literal[
    "used", "off", "none", "unsupported", "unselective", "stale", "corrupt", "version", "binary", "error"
]
# Why an index file cannot be opened.
CorruptReason = Literal["corrupt", "version"]
