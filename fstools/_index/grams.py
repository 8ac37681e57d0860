"""Trigrams of a file's bytes, and what kind of file rg would take it for.

The index stores the trigrams of the raw bytes (a case-insensitive query expands each
ASCII letter to both cases: lowercasing the index instead made `PM_RESUME` match the
2,943 kernel files that contain `pm_resume`, against 13 with the exact bytes). A
trigram is the 24-bit number `b0 << 16 | b1 << 8 | b2`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

# rg walking a tree quits a file at the first NUL of its first buffer (64 KiB): a NUL this
# early means rg never reports the file. A later NUL leaves the file ambiguous.
EARLY_NUL = 8192
TEXT, BINARY, LATE_NUL, TRANSCODED, TOO_LARGE = 0, 1, 2, 3, 4
# rg decodes files that open with a UTF-16 byte order mark before searching them.
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def kind_of(data: bytes) -> int:
    if data.startswith(_UTF16_BOMS):
        return TRANSCODED
    nul = data.find(b"\0")
    if nul < 0:
        return TEXT
    return BINARY if nul < EARLY_NUL else LATE_NUL


def trigrams(data: bytes) -> npt.NDArray[np.uint32]:
    """The distinct trigrams of the bytes, sorted."""
    import numpy as np

    if len(data) < 3:
        return np.zeros(0, dtype=np.uint32)
    b = np.frombuffer(data, dtype=np.uint8)
    codes = (b[:-2].astype(np.uint32) << 16) | (b[1:-1].astype(np.uint32) << 8) | b[2:]
    return np.unique(codes)


def gram_of(three: bytes) -> int:
    return (three[0] << 16) | (three[1] << 8) | three[2]
