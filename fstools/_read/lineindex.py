"""Where lines start in a text file's bytes, found without a Python loop per line.

One pass counts newlines per 64 KiB block with `bytes.count` (C speed); the cumulative
counts then locate line N by bisection: a block lookup plus a bisection of `count` calls
inside one block. Paging through a 5 GB log therefore touches only the blocks it shows.
Multi-byte code units (UTF-16/32) are matched whole and aligned, never as a stray
0x0A byte inside another character.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .._content.encodings import TextEncoding, line_ending_style
from .._content.fingerprints import DIGEST_LIMIT, content_hasher

BLOCK = 64 * 1024  # a multiple of every code unit size
_LINEAR_SPAN = 512  # below this many bytes a block search just calls find()

ByteChunk = bytes | bytearray


if TYPE_CHECKING:  # a Protocol costs import time and is only needed by type checkers
    from typing import Protocol

    class ByteSource(Protocol):
        """Random access to a file's bytes: the file in memory, or an mmap of it."""

        def block(self, start: int, end: int) -> bytes: ...


class CodeUnits:
    """Finds newlines, and counts carriage returns, as whole aligned code units of one encoding.

    For 1-byte units the bytes are searched as they are. For wider units `newline_marks()`
    turns the bytes into one byte per unit, 1 where that unit is "\\n", so the same
    `count`/`find` calls work on it.
    """

    def __init__(self, codec: str, unit: int) -> None:
        self.unit = unit
        self.needle = b"\n" if unit == 1 else b"\x01"
        self._newline = "\n".encode(codec)
        self._cr = "\r".encode(codec)
        # Per byte lane of a unit, a translate table that maps the character's byte there to 1.
        self._tables = {
            char: tuple(bytes(int(i == b) for i in range(256)) for b in encoded)
            for char, encoded in (("\n", self._newline), ("\r", self._cr))
            if unit > 1
        }

    def units(self, length: int) -> int:
        """How many whole code units `length` bytes hold: the search bound in newline marks."""
        return length // self.unit

    def newline_marks(self, data: ByteChunk, length: int | None = None) -> ByteChunk:
        """Where `needle` marks each newline of `data[:length]`, one position per unit.

        For 1-byte units that is `data` itself, not copied: search it within `units(length)`.
        """
        if self.unit == 1:
            return data
        n = len(data) if length is None else length
        return self._unit_mask(data, "\n", n).to_bytes(self.units(n), "little")

    def chunk_marks(self, data: ByteChunk, n: int) -> tuple[ByteChunk, int, int]:
        """newline_marks(data, n), with the number of CR units in `data[:n]` and of CRs followed by a newline."""
        if self.unit == 1:
            marks, newlines = data, 0
        else:
            newlines = self._unit_mask(data, "\n", n)
            marks = newlines.to_bytes(self.units(n), "little")
        if data.find(b"\r", 0, n) == -1:  # no CR byte, so no CR unit: the common case, one memchr pass
            return marks, 0, 0
        if self.unit == 1:
            return marks, data.count(b"\r", 0, n), data.count(b"\r\n", 0, n)
        crs = self._unit_mask(data, "\r", n)
        return marks, crs.bit_count(), (crs & (newlines >> 8)).bit_count()

    def _unit_mask(self, data: ByteChunk, char: str, n: int) -> int:
        """An int whose byte i is 1 when unit i of `data[:n]` is `char` (one lane per byte of the unit)."""
        units = self.units(n)
        mask = -1
        for lane, table in enumerate(self._tables[char]):
            mask &= int.from_bytes(data[lane : units * self.unit : self.unit].translate(table), "little")
        return mask if units else 0

    def is_char_at(self, data: ByteChunk, pos: int, char: str) -> bool:
        """Whether the unit at byte `pos` of `data` is `char` ("\\n" or "\\r")."""
        return bytes(data[pos : pos + self.unit]) == (self._newline if char == "\n" else self._cr)


@dataclass
class LineIndex:
    """Cumulative newline counts per BLOCK of one file in one encoding, and its line-ending tallies.

    `cum[i]` is the number of newlines in bytes [0, i * BLOCK); `start` is where line 1
    begins (after a BOM).
    """

    encoding: TextEncoding
    units: CodeUnits
    size: int
    start: int
    cum: array[int] = field(default_factory=lambda: array("q", [0]))
    last_newline_end: int = 0
    crlf: int = 0
    cr: int = 0
    digest: bytes | None = None

    @property
    def newlines(self) -> int:
        return self.cum[-1]

    @property
    def total_lines(self) -> int:
        """Lines as `cat -n` numbers them: a final line without a newline counts, an empty file has none."""
        return self.newlines + (1 if self.size > max(self.last_newline_end, self.start) else 0)

    @property
    def line_ending(self) -> str:
        return line_ending_style(self.crlf, self.newlines - self.crlf, self.cr - self.crlf)

    # Building ------------------------------------------------------------------------
    @classmethod
    def scan(cls, chunks: Iterable[tuple[ByteChunk, int]], encoding: TextEncoding, size: int) -> LineIndex:
        """Index a file in `encoding` read as consecutive `(buffer, length)` chunks, each a multiple of
        BLOCK but the last. The content hash is taken in the same pass (files up to DIGEST_LIMIT).
        """
        units = CodeUnits(encoding.name, encoding.unit)
        start = len(encoding.bom)
        index = cls(encoding, units, size, start, last_newline_end=start)
        hasher = content_hasher() if size <= DIGEST_LIMIT else None
        offset = 0
        prev_ends_cr = False
        for buf, n in chunks:
            if hasher is not None:
                hasher.update(memoryview(buf)[:n])
            marks, crs, crlfs = units.chunk_marks(buf, n)
            bound = units.units(n)
            step = BLOCK // units.unit
            total = index.cum[-1]
            for s in range(0, bound, step):
                total += marks.count(units.needle, s, min(s + step, bound))
                index.cum.append(total)
            last = marks.rfind(units.needle, 0, bound)
            if last != -1:
                index.last_newline_end = offset + (last + 1) * units.unit
            index.cr += crs
            index.crlf += crlfs + (prev_ends_cr and units.is_char_at(buf, 0, "\n"))
            prev_ends_cr = bound > 0 and units.is_char_at(buf, (bound - 1) * units.unit, "\r")
            offset += n
        index.size = offset  # less than `size` if the file shrank while it was read
        if hasher is not None:
            index.digest = hasher.digest()
        return index

    # Lookups ---------------------------------------------------------------------------
    def line_start(self, src: ByteSource, line: int) -> int:
        """Byte offset where `line` (1-based, at most total_lines + 1) begins."""
        return self.start if line <= 1 else self._newline_end(src, line - 1)

    def _newline_end(self, src: ByteSource, m: int) -> int:
        """Byte offset just past the m-th newline (1-based)."""
        block = bisect_left(self.cum, m) - 1  # cum[block] < m <= cum[block + 1]
        base = block * BLOCK
        marks = self.units.newline_marks(src.block(base, min(base + BLOCK, self.size)))
        return base + (_kth(marks, self.units.needle, m - self.cum[block]) + 1) * self.units.unit

    def newline_positions(self, src: ByteSource, pos: int) -> Iterator[int]:
        """Byte offsets of the newlines at or after `pos`, in order, reading only blocks that hold one."""
        unit = self.units.unit
        nl = self.units.needle
        last_block = len(self.cum) - 1
        block = pos // BLOCK
        while block < last_block:
            if self.cum[block + 1] == self.cum[block]:
                block = bisect_right(self.cum, self.cum[block]) - 1  # the next block holding a newline
                continue
            base = block * BLOCK
            marks = self.units.newline_marks(src.block(base, min(base + BLOCK, self.size)))
            i = max(pos - base, 0) // unit
            while (i := marks.find(nl, i)) != -1:
                yield base + i * unit
                i += 1
            block += 1


def _kth(marks: ByteChunk, needle: bytes, k: int) -> int:
    """Index of the k-th (1-based) `needle` in `marks`: halve the range by counts, then find()."""
    lo, hi = 0, len(marks)
    while hi - lo > _LINEAR_SPAN:
        mid = (lo + hi) // 2
        left = marks.count(needle, lo, mid)
        if left >= k:
            hi = mid
        else:
            k -= left
            lo = mid
    pos = lo - 1
    for _ in range(k):
        pos = marks.find(needle, pos + 1, hi)
    return pos
