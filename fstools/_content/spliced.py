"""Bytes kept as the pieces they were spliced from, so editing a large file copies no large buffer.

An edit's result is slices of the file's bytes around the replacement texts. Joining them
would allocate (and page-fault) a second whole file, ~10 ms for 10 MB here: instead the
pieces are written with writev, hashed one after the other, and only the few lines a
diff shows are ever joined.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from itertools import accumulate

Buffer = bytes | memoryview


class Spliced:
    """Read-only bytes made of pieces: `len()`, slices (joined on demand) and `bytes()`."""

    def __init__(self, pieces: Iterable[Buffer]) -> None:
        self.pieces = [p for p in pieces if len(p)]
        self._ends = list(accumulate(map(len, self.pieces)))

    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    def __getitem__(self, span: slice) -> bytes:
        start, stop, _ = span.indices(len(self))
        i, parts = bisect_right(self._ends, start), []
        if start < stop <= self._ends[i]:  # within one piece: the diff's usual case
            base = self._ends[i] - len(self.pieces[i])
            return bytes(self.pieces[i][start - base : stop - base])
        while start < stop:
            base = self._ends[i] - len(self.pieces[i])
            part = self.pieces[i][start - base : min(stop, self._ends[i]) - base]
            parts.append(part)
            start, i = start + len(part), i + 1
        return b"".join(parts)

    def __bytes__(self) -> bytes:
        return b"".join(self.pieces)


def pieces_of(data: Buffer | Spliced) -> list[Buffer]:
    """The buffers that make up `data`, in order."""
    return data.pieces if isinstance(data, Spliced) else [data]
