"""Trigrams of a file's bytes, and what kind of file rg would take it for.

The index stores the trigrams of the raw bytes (a case-insensitive query expands each
ASCII letter to both cases: lowercasing the index instead made `PM_RESUME` match the
2,943 kernel files that contain `pm_resume`, against 13 with the exact bytes). A
trigram is the 24-bit number `b0 << 16 | b1 << 8 | b2`.
"""

from __future__ import annotations

from functools import cache
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
    w = b.astype(np.uint32)
    codes: npt.NDArray[np.uint32] = (w[:-2] << np.uint32(16)) | (w[1:-1] << np.uint32(8)) | w[2:]
    return _distinct(codes)


def _distinct(values: npt.NDArray[np.uint32]) -> npt.NDArray[np.uint32]:
    """The distinct values, sorted; `values` is sorted in place.

    numpy 2.3+ answers `np.unique` with a hash table, 4.5x slower than a sort on a file's
    trigrams (41 ms against 9 ms for a 340 KB file): the build's main cost."""
    import numpy as np

    values.sort()
    keep = np.empty(len(values), dtype=bool)
    keep[:1] = True
    np.not_equal(values[1:], values[:-1], out=keep[1:])
    return values[keep]


ANY_FOLLOW = 0xFF
_FIB = 0x9E3779B1


def follow_bit(byte: int) -> int:
    """The follow-mask bit of one byte: the top 3 bits of a 32-bit Fibonacci hash (it spreads
    upper-case letters best of those measured: 86 `PM_RESUME` kernel candidates left, against 96)."""
    return 1 << (((byte * _FIB) & 0xFFFFFFFF) >> 29)


def trigrams_and_follows(data: bytes) -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.uint8]]:
    """The distinct trigrams of the bytes, sorted, and each one's follow mask."""
    import numpy as np

    if len(data) < 3:
        return np.zeros(0, dtype=np.uint32), np.zeros(0, dtype=np.uint8)
    b = np.frombuffer(data, dtype=np.uint8)
    w = b.astype(np.uint32)
    # Each key: the trigram (24 bits) above the follow bit's index (3 bits) of the byte after it.
    keys: npt.NDArray[np.uint32] = w[:-2] << np.uint32(19)
    keys |= w[1:-1] << np.uint32(11)
    keys |= w[2:] << np.uint32(3)
    keys[:-1] |= _follow_index()[b[3:]]  # the last trigram has no next byte: index 0, harmless
    keys = _distinct(keys)
    grams = keys >> np.uint32(3)
    new = np.ones(len(grams), dtype=bool)
    new[1:] = grams[1:] != grams[:-1]
    starts = np.flatnonzero(new)
    bits = np.left_shift(np.uint8(1), (keys & 7).astype(np.uint8))
    return grams[starts], np.bitwise_or.reduceat(bits, starts).astype(np.uint8)


@cache
def _follow_index() -> npt.NDArray[np.uint32]:
    """`follow_bit`'s bit index for each byte value, as a lookup table."""
    import numpy as np

    table: npt.NDArray[np.uint32] = (np.arange(256, dtype=np.uint32) * np.uint32(_FIB)) >> np.uint32(29)
    return table


def gram_of(three: bytes) -> int:
    return (three[0] << 16) | (three[1] << 8) | three[2]
