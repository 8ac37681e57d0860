"""Unified diffs built from the regions an edit changed, so a 10 MB file costs what its change costs.

difflib over a whole file is quadratic in the worst case; the edit tools know exactly
which character ranges they replaced, so only those lines (plus context) are compared.
Edits made on a file's bytes (see document.py) give byte ranges: the same code finds the
lines on the bytes, and only the lines shown are decoded.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import AnyStr, Protocol, TypeVar

from .._content.encodings import breaks

CONTEXT = 3
MAX_DIFF_CHARS = 50_000
_MAX_DIFFLIB_CELLS = 4_000_000  # len(a) * len(b) beyond which a hunk is shown as plain replace
_CHUNK = 4096

_Part = TypeVar("_Part", str, bytes, covariant=True)


class Sliceable(Protocol[_Part]):
    """What a diff needs of the new content: its length and slices (text, bytes, or Spliced bytes)."""

    def __len__(self) -> int: ...

    def __getitem__(self, span: slice, /) -> _Part: ...


@dataclass(frozen=True)
class Change:
    """old[old_start:old_end] became new[new_start:new_end]; outside all changes the texts agree."""

    old_start: int
    old_end: int
    new_start: int
    new_end: int


class ChangeTracker:
    """The regions successive edits changed, kept as (current start, current end, original length)
    so later edits can overlap earlier ones and the result still maps back to the original."""

    def __init__(self) -> None:
        self._regions: list[tuple[int, int, int]] = []

    def apply(self, spans: Sequence[tuple[int, int, int]]) -> None:
        """Record one edit: sorted, disjoint (start, end, new_length) spans in current coordinates."""
        out: list[tuple[int, int, int]] = []
        regions, i, shift = self._regions, 0, 0
        group: _Group | None = None  # spans and earlier regions that overlap: one region in the end
        for start, end, new_len in spans:
            if group is not None and start > group.hi:
                shift = group.flush(out, shift)
                group = None
            if group is None:
                while i < len(regions) and regions[i][1] < start:
                    cs, ce, ol = regions[i]
                    out.append((cs + shift, ce + shift, ol))
                    i += 1
                group = _Group(start, end)
            group.hi = max(group.hi, end)
            group.delta += new_len - (end - start)
            while i < len(regions) and regions[i][0] <= group.hi:
                group.absorb(*regions[i])
                i += 1
        if group is not None:
            shift = group.flush(out, shift)
        for cs, ce, ol in regions[i:]:
            out.append((cs + shift, ce + shift, ol))
        self._regions = out

    def changes(self) -> list[Change]:
        result, offset = [], 0
        for cs, ce, ol in self._regions:
            start = cs - offset
            result.append(Change(start, start + ol, cs, ce))
            offset += (ce - cs) - ol
        return result


@dataclass
class _Group:
    """A run of overlapping spans and earlier regions, in coordinates before the edit."""

    lo: int
    hi: int
    covered_cur: int = 0  # characters of absorbed regions
    covered_old: int = 0  # the original characters those regions stand for
    delta: int = 0  # length change made by the spans

    def absorb(self, cs: int, ce: int, ol: int) -> None:
        self.lo, self.hi = min(self.lo, cs), max(self.hi, ce)
        self.covered_cur += ce - cs
        self.covered_old += ol

    def flush(self, out: list[tuple[int, int, int]], shift: int) -> int:
        old_len = (self.hi - self.lo) - self.covered_cur + self.covered_old
        out.append((self.lo + shift, self.hi + shift + self.delta, old_len))
        return shift + self.delta


def _common_prefix(a: str, b: str, limit: int) -> int:
    i = 0
    while i < limit:
        j = min(i + _CHUNK, limit)
        if a[i:j] != b[i:j]:
            while a[i] == b[i]:
                i += 1
            return i
        i = j
    return limit


def _common_suffix(a: str, b: str, limit: int) -> int:
    i = 0
    la, lb = len(a), len(b)
    while i < limit:
        j = min(i + _CHUNK, limit)
        if a[la - j : la - i] != b[lb - j : lb - i]:
            while a[la - i - 1] == b[lb - i - 1]:
                i += 1
            return i
        i = j
    return limit


def whole_text_changes(old: str, new: str) -> list[Change]:
    """The one region where two whole texts differ (after their common prefix and suffix)."""
    if old == new:
        return []
    shorter = min(len(old), len(new))
    p = _common_prefix(old, new, shorter)
    s = _common_suffix(old, new, shorter - p)
    return [Change(p, len(old) - s, p, len(new) - s)]


def _at_boundary(text: Sliceable[AnyStr], pos: int, lf: AnyStr) -> bool:
    return pos == 0 or pos == len(text) or text[pos - 1 : pos] == lf


def _line_window(old: AnyStr, new: Sliceable[AnyStr], c: Change, limit: int) -> list[int] | None:
    """[old_start, old_end, new_start, new_end] widened to whole lines on both sides, or None if
    that would reach past `limit` (where the next change starts): the two must then be merged."""
    lf = breaks(old).lf
    back = c.old_start - (old.rfind(lf, 0, c.old_start) + 1)
    ow, nw = c.old_end, c.new_end
    while not (_at_boundary(old, ow, lf) and _at_boundary(new, nw, lf)):
        k = old.find(lf, ow)
        end = k + 1 if k >= 0 else len(old)
        if end > limit or end == ow:
            return None
        ow, nw = end, nw + (end - ow)
    return [c.old_start - back, ow, c.new_start - back, nw]


def _next_start(changes: Sequence[Change], i: int, default: int) -> int:
    return changes[i + 1].old_start if i + 1 < len(changes) else default


def _windows(old: AnyStr, new: Sliceable[AnyStr], changes: Sequence[Change], context: int) -> list[list[int]]:
    lf, lined = breaks(old).lf, []
    i = 0
    while i < len(changes):
        c = changes[i]
        while (w := _line_window(old, new, c, _next_start(changes, i, len(old)))) is None:
            i += 1  # the next change shares a line with this one
            c = Change(c.old_start, changes[i].old_end, c.new_start, changes[i].new_end)
        lined.append(w)
        i += 1
    merged: list[list[int]] = []
    for w in lined:
        for _ in range(context):
            if w[0] == 0:
                break
            step = w[0] - (old.rfind(lf, 0, w[0] - 1) + 1)
            w[0], w[2] = w[0] - step, w[2] - step
        for _ in range(context):
            if w[1] == len(old):
                break
            k = old.find(lf, w[1])
            step = (k + 1 if k >= 0 else len(old)) - w[1]
            w[1], w[3] = w[1] + step, w[3] + step
        if merged and merged[-1][1] >= w[0]:
            merged[-1][1], merged[-1][3] = w[1], w[3]
        else:
            merged.append(w)
    return merged


def split_lines(text: str) -> list[str]:
    """Lines split on "\\n" only, each keeping its terminator (as Read numbers them)."""
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _emit(out: list[str], mark: str, lines: Sequence[str]) -> None:
    for line in lines:
        out.append(mark + line.rstrip("\n").removesuffix("\r"))
        if not line.endswith("\n"):
            out.append("\\ No newline at end of file")


def _span(start: int, count: int) -> str:
    return f"{start if count else start - 1},{count}"


def unified_diff(
    old: AnyStr,
    new: Sliceable[AnyStr],
    changes: Sequence[Change],
    *,
    old_label: str,
    new_label: str,
    context: int = CONTEXT,
    limit: int = MAX_DIFF_CHARS,
    decode: Callable[[AnyStr], str] = str,
) -> str:
    """A unified diff of `old` → `new`, given every region where they differ; cut at `limit` chars.
    For bytes, `decode` turns whole lines of them into text."""
    if not changes:
        return ""
    out = [f"--- {old_label}", f"+++ {new_label}"]
    size, old_line, old_pos, added, lf = 0, 1, 0, 0, breaks(old).lf
    for ows, owe, nws, nwe in _windows(old, new, changes, context):
        old_line += old.count(lf, old_pos, ows)  # between windows both texts agree: count once
        old_pos = ows
        new_line = old_line + added
        a, b = split_lines(decode(old[ows:owe])), split_lines(decode(new[nws:nwe]))
        added += len(b) - len(a)
        hunk = [f"@@ -{_span(old_line, len(a))} +{_span(new_line, len(b))} @@"]
        if len(a) * len(b) <= _MAX_DIFFLIB_CELLS:
            import difflib  # ~5 ms to import: only when a diff is made

            ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
        else:
            ops = [("replace", 0, len(a), 0, len(b))]
        for tag, i1, i2, j1, j2 in ops:
            if tag == "equal":
                _emit(hunk, " ", a[i1:i2])
            else:
                _emit(hunk, "-", a[i1:i2])
                _emit(hunk, "+", b[j1:j2])
        for line in hunk:
            size += len(line) + 1
            if size > limit:
                out.append(f"... (diff cut at {limit} characters)")
                return "\n".join(out)
            out.append(line)
    return "\n".join(out)
