"""A window of a text file as `cat -n` numbered lines, without reading big files whole.

Files up to WHOLE_FILE_BYTES are read in one call. Bigger ones are scanned once in fixed
chunks (bounded memory) to build a LineIndex, which is cached per (path, device, inode,
size, mtime_ns); the window itself is then decoded from an mmap, so a repeated paged read
of an unchanged file costs only the pages it shows.
"""

from __future__ import annotations

import codecs
import mmap
import operator
import os
import threading
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, replace
from itertools import accumulate
from typing import TYPE_CHECKING

from .._content.encodings import SNIFF_BYTES, TextEncoding, sniff_encoding
from .._core.errors import ErrorCode, ToolError
from .._core.hints import setting
from .lineindex import BLOCK, LineIndex

if TYPE_CHECKING:
    from .._core.context import ExecutionContext
    from .lineindex import ByteSource

MAX_LINE_CHARS = 2000
# The characters one answer of Read (and by default of ReadMany, an Outline of a directory)
# holds at most: about 25,000 tokens, a tenth of a large context window.
MAX_READ_CHARS = 100_000
NOTICE_ROOM = 300  # of MAX_READ_CHARS, kept for the closing notice
CUT_MARK = "..."
WHOLE_FILE_BYTES = 1024 * 1024
READ_CHUNK = 128 * BLOCK  # 8 MiB: the scan's whole working set
CACHE_ENTRIES = 32
# A line longer than this many bytes has more than MAX_LINE_CHARS characters in any codec we
# decode (at most 4 bytes a character, 3 held back by an incremental decoder), so only this
# prefix of it is ever decoded.
_CUT_BYTES = 4 * (MAX_LINE_CHARS + 2)
# Windows up to this size (and without huge lines) are decoded in one call and split.
_BULK_BYTES = 8 * 1024 * 1024


@dataclass(frozen=True)
class TextWindow:
    """Lines `first_line`.. of a file, already cut to MAX_LINE_CHARS."""

    lines: list[str]
    first_line: int
    total_lines: int
    lines_cut: int
    encoding: TextEncoding
    line_ending: str
    digest: bytes | None
    partial: bool = False  # fewer lines than asked for: the rest of the page would pass the character bound

    @property
    def past_end(self) -> bool:
        """An offset after the last line (offset 1 of an empty file is fine: it shows nothing)."""
        return self.first_line > max(self.total_lines, 1)

    @property
    def last_line(self) -> int:
        return self.first_line + len(self.lines) - 1

    @property
    def truncated(self) -> bool:
        return self.last_line < self.total_lines

    def fitted(self, max_chars: int = MAX_READ_CHARS) -> TextWindow:
        """The window cut after the last whole line whose rendering (and the notice) stays within
        `max_chars`; itself when every line fits. At least one line is kept: a line is at most
        MAX_LINE_CHARS characters and its number."""
        budget = max_chars - NOTICE_ROOM
        per_line = max(6, len(str(self.first_line + len(self.lines)))) + 2  # the widest number, tab, newline
        if sum(map(len, self.lines)) + per_line * len(self.lines) <= budget:  # in C, and no list: the usual case
            return self
        ends = list(accumulate(map(len, self.lines)))  # in C: 10,000 lines cost no Python loop
        fit = max(bisect_right(range(len(ends)), budget, key=lambda i: ends[i] + per_line * (i + 1)), 1)
        shown = self.lines[:fit]
        return replace(self, lines=shown, lines_cut=sum(len(s) > MAX_LINE_CHARS for s in shown), partial=True)

    def render(self, ctx: ExecutionContext) -> str:
        """Numbered lines, then a notice (never shaped like a numbered line) when more remain."""
        out = list(map(operator.add, line_numbers(self.first_line, len(self.lines)), self.lines))
        if self.truncated:
            partial = f", a partial view: a page stops at {MAX_READ_CHARS:,} characters" if self.partial else ""
            out.append(
                f"[Showing lines {self.first_line}-{self.last_line} of {self.total_lines}{partial}. "
                f"Use {setting(ctx, 'offset', self.last_line + 1)} to read more.]"
            )
        return "\n".join(out)


class _Slices:
    """A ByteSource over the file in memory or an mmap of it: a slice copies just that range."""

    def __init__(self, data: bytes | mmap.mmap) -> None:
        self._data = data

    def block(self, start: int, end: int) -> bytes:
        return self._data[start:end]


# (path, st_dev, st_ino, st_size, st_mtime_ns, st_ctime_ns): any change to the file changes the key.
# The `cat -n` prefixes ("     7\t") of the first lines of files, made once: numbering a window is
# then one C-level map, 4x faster than formatting each number (ReadMany numbers thousands of lines).
NUMBERED_LINES = 20_000
_numbers: list[str] = [""]
_numbers_lock = threading.Lock()


def line_numbers(first: int, count: int) -> list[str]:
    """The prefixes of lines first..first+count-1 as Read numbers them (`str.rjust(6)` and a tab)."""
    stop = first + count
    if stop > NUMBERED_LINES + 1:
        return [str(n).rjust(6) + "\t" for n in range(first, stop)]
    if len(_numbers) < stop:
        with _numbers_lock:
            start = len(_numbers)
            grown = min(max(stop, 2 * start), NUMBERED_LINES + 1)
            _numbers.extend([str(n).rjust(6) + "\t" for n in range(start, grown)])
    return _numbers[first:stop]


_CacheKey = tuple[str, int, int, int, int, int]
_cache: OrderedDict[_CacheKey, LineIndex] = OrderedDict()
_cache_lock = threading.Lock()


def read_window(path: str, fd: int, st: os.stat_result, head: bytes, offset: int, limit: int) -> TextWindow:
    """Lines offset..offset+limit-1 of the open text file `fd` (stat `st`, first bytes `head`).

    A negative `offset` counts from the end (-50: the last 50 lines), resolved from the line
    index the window is read through anyway: the file is not scanned a second time.
    """
    if st.st_size <= WHOLE_FILE_BYTES:
        data = head if len(head) >= st.st_size else os.pread(fd, st.st_size, 0)
        index = LineIndex.scan([(data, len(data))], sniff_encoding(data), len(data))
        return _window(_Slices(data), index, offset, limit)
    index = _cached_index(path, fd, st, head)
    try:
        with mmap.mmap(fd, index.size, access=mmap.ACCESS_READ) as mm:
            return _window(_Slices(mm), index, offset, limit)
    except ValueError:  # the file shrank below what was scanned
        raise ToolError(ErrorCode.CONCURRENT_MODIFICATION, f"File changed while it was being read: {path}") from None


def _cached_index(path: str, fd: int, st: os.stat_result, head: bytes) -> LineIndex:
    key: _CacheKey = (path, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    with _cache_lock:
        index = _cache.get(key)
        if index is not None:
            _cache.move_to_end(key)
            return index
    encoding = sniff_encoding(head[:SNIFF_BYTES], complete=False)
    index = LineIndex.scan(file_chunks(fd, st.st_size), encoding, st.st_size)
    if index.size != st.st_size:
        raise ToolError(ErrorCode.CONCURRENT_MODIFICATION, f"File changed while it was being read: {path}")
    with _cache_lock:
        _cache[key] = index
        while len(_cache) > CACHE_ENTRIES:
            _cache.popitem(last=False)
    return index


def file_chunks(fd: int, size: int) -> Iterator[tuple[bytearray, int]]:
    """The file as READ_CHUNK pieces read into one reused buffer (the scan never holds more)."""
    buf = bytearray(READ_CHUNK)
    view = memoryview(buf)
    offset = 0
    while offset < size:
        want = min(READ_CHUNK, size - offset)
        got = 0
        while got < want:
            n = os.preadv(fd, [view[got:want]], offset + got)
            if n == 0:
                break
            got += n
        if got:
            yield buf, got
        if got < want:
            return
        offset += got


def _window(src: ByteSource, index: LineIndex, offset: int, limit: int) -> TextWindow:
    if offset < 0:
        offset = max(index.total_lines + offset + 1, 1)
    count = max(0, min(limit, index.total_lines - offset + 1))
    lines: list[str] = []
    cut = 0
    if count:
        start = index.line_start(src, offset)
        after = offset + count  # the first line not shown
        end = index.line_start(src, after) if after <= index.total_lines else index.size
        # The window ends with a newline unless its last line is the file's unterminated last line.
        terminated = after <= index.total_lines or index.last_newline_end == index.size
        if end - start <= min(_BULK_BYTES, count * _CUT_BYTES):
            decoded = src.block(start, end).decode(index.encoding.name, "replace")
            lines = decoded.replace("\r\n", "\n").split("\n")  # a CRLF line is shown without its CR
            if terminated:
                lines.pop()  # the empty text after the window's last newline
        else:  # some lines are huge: decode only what can be shown of each
            lines = list(_line_prefixes(src, index, start, count, index.encoding.name))
        lines, cut = _cut_long(lines)
    return TextWindow(lines, offset, index.total_lines, cut, index.encoding, index.line_ending, index.digest)


def _line_prefixes(src: ByteSource, index: LineIndex, pos: int, count: int, codec: str) -> Iterator[str]:
    """`count` lines from byte `pos`, each decoded only as far as it can be shown (never a huge line whole)."""
    newlines = index.newline_positions(src, pos)
    for _ in range(count):
        newline = next(newlines, None)
        end = index.size if newline is None else newline
        if end - pos > _CUT_BYTES:
            yield codecs.getincrementaldecoder(codec)(errors="replace").decode(src.block(pos, pos + _CUT_BYTES))
        else:
            line = src.block(pos, end).decode(codec, "replace")
            yield line[:-1] if newline is not None and line.endswith("\r") else line
        pos = end + index.units.unit


def _cut_long(lines: list[str]) -> tuple[list[str], int]:
    """The lines with the long ones cut, and how many were cut."""
    if not lines or max(map(len, lines)) <= MAX_LINE_CHARS:
        return lines, 0
    cut = sum(len(line) > MAX_LINE_CHARS for line in lines)
    return [cut_line(line)[0] for line in lines], cut


def cut_line(line: str) -> tuple[str, bool]:
    """`line` cut to MAX_LINE_CHARS and ending in CUT_MARK when longer; True when it was cut."""
    if len(line) > MAX_LINE_CHARS:
        return line[:MAX_LINE_CHARS] + CUT_MARK, True
    return line, False
