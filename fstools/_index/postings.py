"""Posting lists of one segment (at most SEGMENT_FILES files): which files hold each trigram.

A list is stored the cheaper of two ways: a bitmap of the segment's files (dense
trigrams), or the gaps between its file numbers as 1- or 2-byte varints (file numbers
are below 2**14, so no gap needs a third byte). Built and read with numpy, never a
Python loop per posting.

A varint list also keeps each posting's follow mask (grams.py), one byte per posting in
list order in a second blob; a bitmap list does not (a byte for each of its files would
double the index), so its trigram is checked for presence only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .grams import ANY_FOLLOW

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy as np
    import numpy.typing as npt

SEGMENT_FILES = 8192
BITMAP_BYTES = SEGMENT_FILES // 8
VARINT, BITMAP = 0, 1


@dataclass
class Segment:
    """A segment's lookup table (sorted trigrams, byte offsets, formats) and its list bytes."""

    grams: npt.NDArray[np.uint32]
    offsets: npt.NDArray[np.uint32]  # len(grams) + 1
    formats: npt.NDArray[np.uint8]
    blob: npt.NDArray[np.uint8]
    follow_offsets: npt.NDArray[np.uint32]  # len(grams) + 1; a bitmap list has none
    follow_blob: npt.NDArray[np.uint8]

    def lookup(self, gram: int) -> int:
        """The trigram's row, or -1 when no file of the segment holds it."""
        import numpy as np

        i = int(np.searchsorted(self.grams, np.uint32(gram)))  # a Python int would cast the whole table
        return i if i < len(self.grams) and int(self.grams[i]) == gram else -1

    def mask(self, row: int, nfiles: int, follow: int = ANY_FOLLOW) -> npt.NDArray[np.bool_]:
        """The files holding the trigram of `row`, as a boolean mask over the segment; with a
        `follow` mask, only those where the trigram is followed by a byte of one of its bits."""
        import numpy as np

        data = self.blob[int(self.offsets[row]) : int(self.offsets[row + 1])]
        if self.formats[row] == BITMAP:
            return np.unpackbits(data, bitorder="little")[:nfiles].astype(bool)
        out = np.zeros(nfiles, dtype=bool)
        ids = decode_gaps(data)
        if follow != ANY_FOLLOW:
            masks = self.follow_blob[int(self.follow_offsets[row]) : int(self.follow_offsets[row + 1])]
            if len(masks) == len(ids):  # else the file is damaged: presence alone is never wrong
                ids = ids[(masks & np.uint8(follow)) != 0]
        out[ids[ids < nfiles]] = True
        return out


def decode_gaps(data: npt.NDArray[np.uint8]) -> npt.NDArray[np.int64]:
    """The file numbers of one varint list."""
    return decode_lists(data, [len(data)])[0]


def decode_lists(
    data: npt.NDArray[np.uint8], lengths: Sequence[int]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The file numbers of varint lists stored one after another in `data` (`lengths`: each one's
    bytes, every one above zero), and how many each list holds: decoded at once."""
    import numpy as np

    high = data >= 128
    first = np.ones(len(data), dtype=bool)
    first[1:] = ~high[:-1]
    starts = np.flatnonzero(first)
    values = (data[starts] & 127).astype(np.int64)
    two = high[starts]
    values[two] |= data[starts[two] + 1].astype(np.int64) << 7
    total = np.concatenate((np.zeros(1, dtype=np.int64), np.cumsum(values)))
    begins = np.searchsorted(starts, np.cumsum([0, *lengths[:-1]]))  # each list's first posting
    counts = np.diff(np.append(begins, len(starts)))
    return total[1:] - np.repeat(total[begins], counts), counts


def build_segment(codes: list[npt.NDArray[np.uint32]], follows: list[npt.NDArray[np.uint8]] | None = None) -> Segment:
    """The segment of files whose distinct trigrams are `codes[i]` (file i of the segment), with
    their follow masks `follows[i]` (None: every bit set)."""
    import numpy as np

    if len(codes) > SEGMENT_FILES:
        raise ValueError("too many files for one segment")
    counts = np.array([len(c) for c in codes], dtype=np.int64)
    if not counts.sum():
        e32, e8 = np.zeros(0, dtype=np.uint32), np.zeros(0, dtype=np.uint8)
        return Segment(e32, np.zeros(1, dtype=np.uint32), e8, e8, np.zeros(1, dtype=np.uint32), e8)
    # One sort key per posting: trigram (24 bits), file (16), follow mask (8).
    keys = np.concatenate(codes).astype(np.uint64) << np.uint64(24)
    keys |= np.repeat(np.arange(len(codes), dtype=np.uint64), counts) << np.uint64(8)
    keys |= np.concatenate(follows).astype(np.uint64) if follows is not None else np.uint64(ANY_FOLLOW)
    keys.sort()
    follow_of = (keys & np.uint64(0xFF)).astype(np.uint8)
    keys >>= np.uint64(8)
    file_of = (keys & np.uint64(0xFFFF)).astype(np.int32)
    keys >>= np.uint64(16)
    gram_of = keys.astype(np.uint32)
    del keys
    new = np.ones(len(gram_of), dtype=bool)
    new[1:] = gram_of[1:] != gram_of[:-1]
    starts = np.flatnonzero(new)
    del new
    grams = gram_of[starts]
    del gram_of
    gaps = np.diff(file_of, prepend=np.int32(0))
    gaps[starts] = file_of[starts]
    two = gaps >= 128
    list_bytes = np.add.reduceat(two.astype(np.int64) + 1, starts)
    formats = (list_bytes > BITMAP_BYTES).astype(np.uint8)
    sizes = np.where(formats == BITMAP, BITMAP_BYTES, list_bytes)
    offsets = np.zeros(len(grams) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    blob = np.zeros(int(offsets[-1]), dtype=np.uint8)
    lengths = np.diff(np.append(starts, len(file_of)))
    dense_rows = np.flatnonzero(formats == BITMAP)
    # Bitmap lists: one bit per file.
    for row in dense_rows.tolist():
        members = file_of[starts[row] : starts[row] + lengths[row]]
        bits = np.zeros(SEGMENT_FILES, dtype=bool)
        bits[members] = True
        blob[offsets[row] : offsets[row + 1]] = np.packbits(bits, bitorder="little")
    # Varint lists: each posting's bytes go to its list's offset plus the bytes before it in the list.
    sparse = np.repeat(formats == VARINT, lengths)
    del file_of
    follow_blob = follow_of[sparse]
    del follow_of
    follow_offsets = np.zeros(len(grams) + 1, dtype=np.int64)
    np.cumsum(np.where(formats == VARINT, lengths, 0), out=follow_offsets[1:])
    gaps, two = gaps[sparse], two[sparse]
    rows = np.repeat(np.flatnonzero(formats == VARINT), lengths[formats == VARINT])
    width = two.astype(np.int64) + 1
    before = np.cumsum(width) - width
    first = np.ones(len(rows), dtype=bool)
    first[1:] = rows[1:] != rows[:-1]
    row_base = offsets[rows[first]] - before[first]
    pos = np.repeat(row_base, np.diff(np.append(np.flatnonzero(first), len(rows)))) + before
    blob[pos] = np.where(two, (gaps & 127) | 128, gaps).astype(np.uint8)
    blob[pos[two] + 1] = (gaps[two] >> 7).astype(np.uint8)
    return Segment(grams, offsets.astype(np.uint32), formats, blob, follow_offsets.astype(np.uint32), follow_blob)
