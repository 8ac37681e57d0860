"""A trigram query's matching files over every segment of the index at once.

A numpy step costs microseconds whatever its size, and a name's fifteen trigrams are asked of
every segment (48 of them on five kernels): read list by list and segment by segment, that is
700 lists and ten or more milliseconds of steps. Here each segment only looks its trigrams
up; the lists found are then read together. Every varint list is decoded in one pass, a file
is kept when it is in each of its segment's varint lists, and the bitmaps are tested only at
the files left (or ANDed byte-wise in a segment where every list is a bitmap). The answer is
exactly the AND and OR of `Segment.mask` list by list, which stays the plain reading (the
tests compare the two). A list found not whole makes the index `corrupt` for the call: the
search scans as without an index.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .grams import ANY_FOLLOW
from .plan import AllFiles, And, Gram, Or, Query
from .postings import BITMAP, BITMAP_BYTES, Segment, decode_lists
from .status import Unusable

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from .store import IndexFile


@dataclass
class _Lists:
    """The posting lists an AND of trigrams reads: varint lists (one row each) and bitmaps per segment."""

    segment: list[int] = field(default_factory=list)  # the varint list's segment
    start: list[int] = field(default_factory=list)  # where its bytes begin in the file
    length: list[int] = field(default_factory=list)
    follow_start: list[int] = field(default_factory=list)  # where its follow bytes begin
    follow_length: list[int] = field(default_factory=list)
    follow: list[int] = field(default_factory=list)  # the follow mask asked of it
    need: dict[int, int] = field(default_factory=dict)  # segment -> its varint lists
    bitmaps: dict[int, list[int]] = field(default_factory=dict)  # segment -> where its bitmaps begin


class Postings:
    """Every segment's posting lists, read as one (the file's bytes through one array)."""

    def __init__(self, file: IndexFile, segments: list[Segment], segment_files: int, nfiles: int) -> None:
        self.segments = segments
        self.size = segment_files
        self.nfiles = nfiles
        self.whole = file.whole()
        self.blob_at = [file.start_of(f"s{i}.blob") for i in range(len(segments))]
        self.follow_at = [file.start_of(f"s{i}.follow_blob") for i in range(len(segments))]

    def rows(self, query: Query, lo: int, hi: int) -> npt.NDArray[np.bool_]:
        """The rows from `lo` to `hi` whose trigrams satisfy `query`, as a mask over every row."""
        import numpy as np

        span = range(lo // self.size, (hi - 1) // self.size + 1) if hi > lo else range(0)
        found = self._evaluate(query, span)
        mask = np.ones(self.nfiles, dtype=bool) if found is None else found
        mask[:lo] = False
        mask[hi:] = False
        return mask

    def _files(self, s: int) -> tuple[int, int]:
        start = s * self.size
        return start, min(start + self.size, self.nfiles)

    def _evaluate(self, query: Query, span: range) -> npt.NDArray[np.bool_] | None:
        """The files of the segments in `span` that satisfy `query` (None: every file)."""
        match query:
            case AllFiles():
                return None
            case Gram(code, follow):
                return self._all_of([(code, follow)], span)
            case And(parts):
                grams = [(q.code, q.follow) for q in parts if isinstance(q, Gram)]
                out = self._all_of(grams, span) if grams else None
                for q in (q for q in parts if not isinstance(q, Gram)):
                    if out is not None and not out.any():
                        break
                    m = self._evaluate(q, span)
                    if m is not None:
                        out = m if out is None else out & m
                return out
            case Or(parts):
                masks = [self._evaluate(q, span) for q in parts]
                known = [m for m in masks if m is not None]
                if len(known) < len(masks):
                    return None
                either = known[0]
                for m in known[1:]:
                    either = either | m
                return either
        raise TypeError(f"not a query: {query!r}")

    def _all_of(self, grams: list[tuple[int, int]], span: range) -> npt.NDArray[np.bool_]:
        """The files holding every (trigram, follow mask) of `grams`."""
        import numpy as np

        out = np.zeros(self.nfiles, dtype=bool)
        codes = np.array([code for code, _ in grams], dtype=np.uint32)
        lists = _Lists()
        for s in span:
            self._look_up(s, codes, grams, lists, out)
        if lists.need:
            out[self._in_every(lists)] = True
        return out

    def _look_up(
        self,
        s: int,
        codes: npt.NDArray[np.uint32],
        grams: list[tuple[int, int]],
        lists: _Lists,
        out: npt.NDArray[np.bool_],
    ) -> None:
        """Segment `s`'s lists of `codes` into `lists`; a segment that is answered at once goes into `out`."""
        import numpy as np

        segment = self.segments[s]
        table = segment.grams
        if not len(table):
            return
        rows = np.searchsorted(table, codes)
        if not bool((table.take(rows, mode="clip") == codes).all()):
            return  # a trigram no file of the segment holds
        formats = segment.formats[rows].tolist()
        starts, ends = segment.offsets[rows].tolist(), segment.offsets[rows + 1].tolist()
        first, last = self._files(s)
        dense = [i for i, f in enumerate(formats) if f == BITMAP]
        sparse = [i for i, f in enumerate(formats) if f != BITMAP]
        if _damaged(segment, [ends[i] - starts[i] for i in dense], [(starts[i], ends[i]) for i in sparse]):
            raise Unusable("corrupt")  # the caller scans as without an index
        base = self.blob_at[s]
        if len(dense) == len(grams):  # every list a bitmap: AND their bytes, then unpack once
            block = self.whole[np.array([base + starts[i] for i in dense])[:, None] + np.arange(BITMAP_BYTES)]
            bits = np.unpackbits(np.bitwise_and.reduce(block, axis=0), bitorder="little")
            out[first:last] = bits[: last - first].astype(bool)
            return
        follow_rows = rows[sparse]
        follow_starts = segment.follow_offsets[follow_rows].tolist()
        follow_ends = segment.follow_offsets[follow_rows + 1].tolist()
        for i, fs, fe in zip(sparse, follow_starts, follow_ends, strict=True):
            lists.segment.append(s)
            lists.start.append(base + starts[i])
            lists.length.append(ends[i] - starts[i])
            lists.follow_start.append(self.follow_at[s] + fs)
            lists.follow_length.append(fe - fs)
            lists.follow.append(grams[i][1])
        lists.need[s] = len(sparse)
        lists.bitmaps[s] = [base + starts[i] for i in dense]

    def _in_every(self, lists: _Lists) -> npt.NDArray[np.int64]:
        """The files in each varint list of their segment and set in each of its bitmaps."""
        import numpy as np

        ids, counts = decode_lists(self.whole[_spans(lists.start, lists.length)], lists.length)
        segment = np.array(lists.segment, dtype=np.int64)
        sizes = [last - first for first, last in map(self._files, lists.segment)]
        keep = ids < np.repeat(np.array(sizes), counts)  # a damaged number past its segment's files
        keep &= self._followed(lists, counts)
        files = ids + np.repeat(segment * self.size, counts)
        hits = np.bincount(files[keep], minlength=self.nfiles)
        need = np.zeros(len(self.segments), dtype=np.int64)
        need[list(lists.need)] = list(lists.need.values())
        # A file in every list of its segment is in the first once: its postings there are the answer,
        # each file once and in order.
        first = np.repeat(np.array([i == 0 or lists.segment[i - 1] != s for i, s in enumerate(lists.segment)]), counts)
        keep &= first
        found = files[keep]
        found = found[hits[found] >= need[segment.repeat(counts)[keep]]]
        return self._in_bitmaps(found, lists.bitmaps)

    def _followed(self, lists: _Lists, counts: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
        """Which postings the follow masks asked allow (a list without its follow bytes: all of them)."""
        import numpy as np

        listed = counts.tolist()
        asked = [
            follow != ANY_FOLLOW and length == count
            for follow, length, count in zip(lists.follow, lists.follow_length, listed, strict=True)
        ]
        if not any(asked):
            return np.ones(sum(listed), dtype=bool)
        asked_of = np.repeat(np.array(asked), counts)
        masks = np.full(len(asked_of), ANY_FOLLOW, dtype=np.uint8)
        chosen = [i for i, a in enumerate(asked) if a]
        masks[asked_of] = self.whole[_spans([lists.follow_start[i] for i in chosen], [listed[i] for i in chosen])]
        wanted = np.repeat(
            np.array([f if a else ANY_FOLLOW for f, a in zip(lists.follow, asked, strict=True)], dtype=np.uint8), counts
        )
        allowed: npt.NDArray[np.bool_] = (masks & wanted) != 0
        return allowed

    def _in_bitmaps(self, files: npt.NDArray[np.int64], bitmaps: dict[int, list[int]]) -> npt.NDArray[np.int64]:
        """Those of `files` whose bit is set in every bitmap of their segment."""
        import numpy as np

        widest = max((len(b) for b in bitmaps.values()), default=0)
        if not widest or not len(files):
            return files
        starts = np.zeros((len(self.segments), widest), dtype=np.int64)
        absent = np.ones((len(self.segments), widest), dtype=bool)  # no bitmap there: nothing to test
        for s, listed in bitmaps.items():
            starts[s, : len(listed)] = listed
            absent[s, : len(listed)] = False
        segment, local = np.divmod(files, self.size)
        held = self.whole[starts[segment] + (local >> 3)[:, None]] >> (local & 7).astype(np.uint8)[:, None]
        return files[((held & 1).astype(bool) | absent[segment]).all(axis=1)]


def _damaged(segment: Segment, bitmap_lengths: list[int], varints: list[tuple[int, int]]) -> bool:
    """Whether a list of the segment is not whole (posting bytes carry no checksum, so this is checked where
    they are read): a bitmap of another length, an empty varint list, or one whose last byte says a number
    goes on (decoded with the others, it would take the next list's first file)."""
    import numpy as np

    if any(length != BITMAP_BYTES for length in bitmap_lengths) or any(end <= start for start, end in varints):
        return True
    return bool(varints) and bool((segment.blob[np.array([end for _, end in varints]) - 1] >= 128).any())


def _spans(starts: list[int], lengths: list[int]) -> npt.NDArray[np.int64]:
    """The byte positions of the ranges (start, length), one range after another."""
    import numpy as np

    length = np.array(lengths, dtype=np.int64)
    before = np.cumsum(length) - length
    return np.repeat(np.array(starts, dtype=np.int64) - before, length) + np.arange(int(length.sum()))
