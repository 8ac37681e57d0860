"""Parsing rg's output streams with the least work per event.

rg --json writes one message per line: `begin`, then `match`/`context` per line, then
`end` (with `stats.matched_lines` and `binary_offset`) per file, and a final `summary`.
Paths and line text come as `{"text": ...}` or, when not UTF-8, `{"bytes": <base64>}`.
Only what a page shows is decoded with orjson; every other event is classified by its
first bytes and counted. `parse_counts` reads the `--count --null` output.
"""

from __future__ import annotations

import base64
import os
from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

import orjson

from .results import LineHit, Span, cut_line

_BEGIN = b'{"type":"begin"'
_MATCH = b'{"type":"match"'
_CONTEXT = b'{"type":"context"'
_END = b'{"type":"end"'
_NL_END = b"\n" + _END
# A file's `[start, stop)` matching-line indexes on the page; stop is inf for "to the end".
LineRange = tuple[int, float]
_EVERYTHING: LineRange = (0, float("inf"))


@dataclass(frozen=True)
class FileEnd:
    """A file's `end` message: its matching lines, and whether rg found it to be binary."""

    path: str
    matched_lines: int
    binary: bool


def _data_bytes(obj: Mapping[str, Any]) -> bytes:
    text = obj.get("text")
    return text.encode("utf-8", "surrogateescape") if text is not None else base64.b64decode(obj["bytes"])


def decode_path(obj: Mapping[str, Any]) -> str:
    """A path as the os module spells it (undecodable bytes kept via surrogateescape)."""
    text = obj.get("text")
    return text if text is not None else os.fsdecode(base64.b64decode(obj["bytes"]))


def parse_end(line: bytes) -> FileEnd:
    data = orjson.loads(line)["data"]
    return FileEnd(decode_path(data["path"]), data["stats"]["matched_lines"], data["binary_offset"] is not None)


def _ends_in(buf: bytes, stop: int) -> Iterator[FileEnd]:
    pos = 0
    while True:
        if buf.startswith(_END, pos, stop):
            start = pos
        else:
            hit = buf.find(_NL_END, pos, stop)
            if hit < 0:
                return
            start = hit + 1
        nl = buf.find(b"\n", start, stop)
        yield parse_end(buf[start:nl])
        pos = nl + 1


def scan_ends(chunks: Iterable[bytes]) -> Iterator[FileEnd]:
    """The `end` messages of a JSON stream, found with bytes.find: match lines are never split."""
    rest = b""
    for chunk in chunks:
        buf = rest + chunk if rest else chunk
        cut = buf.rfind(b"\n") + 1
        yield from _ends_in(buf, cut)
        rest = buf[cut:]
    if rest:
        try:
            yield from _ends_in(rest + b"\n", len(rest) + 1)
        except orjson.JSONDecodeError:
            pass  # a message cut off by a killed run (which the search reports), not a message


def parse_counts(data: bytes) -> tuple[list[tuple[str, int]], bytes]:
    """`rg --count --with-filename --null` output (`path NUL count LF` per file) and the unparsed rest.

    A record ends at the first LF after its NUL (a count never holds one), so paths with
    newlines survive and a record cut by a chunk boundary or a kill waits in the rest.
    """
    out: list[tuple[str, int]] = []
    pos = 0
    while True:
        nul = data.find(b"\0", pos)
        nl = data.find(b"\n", nul) if nul >= 0 else -1
        if nl < 0:
            return out, data[pos:]
        out.append((os.fsdecode(data[pos:nul]), int(data[nul + 1 : nl])))
        pos = nl + 1


def _char_offset(raw: bytes, offset: int) -> int:
    return len(raw[:offset].decode("utf-8", "replace"))


def _split_lines(data: Mapping[str, Any]) -> list[tuple[int, str, tuple[Span, ...]]]:
    """A match/context message as (line number, text, submatch character spans) per line.

    One message covers several lines only in multiline mode; the trailing line terminator
    (LF or CRLF) is not part of the text.
    """
    raw = _data_bytes(data["lines"])
    subs = [(s["start"], s["end"]) for s in data["submatches"]]
    pieces = raw.split(b"\n")
    if raw.endswith(b"\n"):
        pieces.pop()
    out = []
    pos = 0
    for i, piece in enumerate(pieces):
        body = piece[:-1] if piece.endswith(b"\r") else piece
        end = pos + len(body)
        spans = [
            (max(s, pos) - pos, min(e, end) - pos)
            for s, e in subs
            if (s < end and e > pos) or (s == e and pos <= s <= end)
        ]
        if body.isascii():
            text = body.decode("ascii")
        else:
            text = body.decode("utf-8", "replace")
            spans = [(_char_offset(body, s), _char_offset(body, e)) for s, e in spans]
        out.append((data["line_number"] + i, text, tuple(spans)))
        pos += len(piece) + 1
    return out


class PageCollector:
    """Collects, from a JSON stream, the matching lines a page shows plus their context.

    `ranges` maps a path to the `[start, stop)` indexes of its matching lines on the page
    (None: every line of every file). A matching line outside its range that falls inside
    a page line's context window is shown as context: context travels with its match,
    and each matching line belongs to exactly one page. Lines of other files, and lines
    before a range, are counted and kept as raw bytes at most `before` deep, never parsed.
    `names` renames the paths rg prints (files it was given as descriptors) as they are read.
    With `max_chars`, once the lines kept pass that many characters they are dropped and no
    more are kept (`capped`): the caller fetches a page instead.
    """

    def __init__(
        self,
        ranges: Mapping[str, LineRange] | None,
        *,
        before: int = 0,
        after: int = 0,
        multiline: bool = False,
        max_chars: int | None = None,
    ) -> None:
        self._ranges = ranges
        self._room = max_chars
        self.capped = False
        self._before = before
        self._after = after
        self._multiline = multiline
        self.ends: list[FileEnd] = []
        self.lines: dict[str, list[LineHit]] = {}
        self.names: Mapping[str, str] = {}
        self._reset(None, None)

    def _reset(self, path: str | None, rng: LineRange | None) -> None:
        self._path = path
        self._range = rng
        self._idx = 0
        self._pending: deque[bytes | tuple[int, str, tuple[Span, ...]]] = deque(maxlen=self._before or None)
        self._after_left = 0
        self._last = 0
        self._out: list[LineHit] = []

    def feed(self, line: bytes) -> None:
        if line.startswith(_MATCH):
            self._on_match(line)
        elif line.startswith(_CONTEXT):
            self._on_context(line)
        elif line.startswith(_BEGIN):
            path = decode_path(orjson.loads(line)["data"]["path"])
            path = self.names.get(path, path)
            self._reset(path, _EVERYTHING if self._ranges is None else self._ranges.get(path))
        elif line.startswith(_END):
            end = parse_end(line)
            if end.path in self.names:
                end = replace(end, path=self.names[end.path])
            self.ends.append(end)
            if self._out and not end.binary:
                self.lines[end.path] = self._out
            self._reset(None, None)

    def feed_all(self, lines: Iterable[bytes]) -> None:
        for line in lines:
            try:
                self.feed(line)
            except orjson.JSONDecodeError:
                # A line without its line feed is the last of a killed run (which the search reports): cut
                # off, not a message. Any other is damage.
                if line.endswith(b"\n"):
                    raise

    def _emit(self, number: int, text: str, spans: tuple[Span, ...], is_context: bool) -> None:
        if number <= self._last:
            return
        text, spans = cut_line(text, spans)
        self._out.append(LineHit(self._path or "", number, text, spans, is_context))
        self._last = number
        if self._room is not None:
            self._room -= len(text)
            if self._room < 0:
                self.capped = True
                self._out, self._range, self._ranges = [], None, {}
                self.lines.clear()

    def _flush_pending(self, first: int) -> None:
        for item in self._pending:
            lines = _split_lines(orjson.loads(item)["data"]) if isinstance(item, bytes) else [item]
            for number, text, spans in lines:
                if number >= first - self._before:
                    self._emit(number, text, spans, True)
        self._pending.clear()

    def _on_match(self, line: bytes) -> None:
        if self._range is None:
            self._idx += 1
            return
        start, stop = self._range
        if self._after_left == 0 and self._idx >= stop:
            return  # past the page: nothing later in this file is shown
        if not self._multiline and self._after_left == 0 and self._idx < start:
            if self._before:
                self._pending.append(line)
            self._idx += 1
            return
        for number, text, spans in _split_lines(orjson.loads(line)["data"]):
            idx = self._idx
            self._idx += 1
            if start <= idx < stop:
                self._flush_pending(number)
                self._emit(number, text, spans, False)
                self._after_left = self._after
            elif self._after_left > 0:
                self._emit(number, text, spans, True)
                self._after_left -= 1
            elif self._before and idx < start:
                self._pending.append((number, text, ()))

    def _on_context(self, line: bytes) -> None:
        if self._range is None:
            return
        if self._after_left > 0:
            for number, text, spans in _split_lines(orjson.loads(line)["data"]):
                self._emit(number, text, spans, True)
            self._after_left -= 1
        elif self._before and self._idx < self._range[1]:
            self._pending.append(line)
