"""Where a V4A patch's hunks go in a file's text, and the text they make: pure, no I/O.

Hunks are located in order, each below the previous one. A hunk's `@@` anchors jump, one after
the other, to the next line that matches them; its context and removed lines must then follow.
Lines are compared exactly first, then ignoring trailing whitespace, then ignoring indentation,
then with typographic dashes, quotes and spaces read as ASCII (codex's `seek_sequence` rules),
then with Read's U+FFFD standing for undecodable bytes; a looser level is used only when no
stricter one matches. Lines that start with the last anchor's own text may start at the
anchored line itself (models repeat it); if they also match below it, the hunk is refused.
A hunk is never placed by guess: when its first anchor (or, without anchors, its lines) has
another place from which it and the later hunks still apply, the patch is ambiguous and refused.

The file keeps what the patch does not say: context lines are kept as they are in the file,
added lines take the line breaks of the lines they replace (else of their neighbours), a line
matched ignoring indentation gets its added lines re-indented in the file's style, and the
file's final line break (or its absence) stays as it was.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import accumulate, chain, takewhile
from operator import add

from .._core.errors import ErrorCode, ToolError
from .diff import Change
from .nearmiss import describe_not_found
from .reindent import indent_of, reindent
from .tolerance import (
    EXACT,
    INDENTATION,
    PATCH_LADDER,
    TRAILING_WHITESPACE,
    UNDECODABLE,
    UNICODE_PUNCTUATION,
    fold_undecodable,
)
from .v4a import Hunk

_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212"
_SINGLE_QUOTES = "\u2018\u2019\u201a\u201b"
_DOUBLE_QUOTES = "\u201c\u201d\u201e\u201f"
_SPACES = "\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"
_ASCII = str.maketrans(
    {
        **dict.fromkeys(_DASHES, "-"),
        **dict.fromkeys(_SINGLE_QUOTES, "'"),
        **dict.fromkeys(_DOUBLE_QUOTES, '"'),
        **dict.fromkeys(_SPACES, " "),
    }
)
MAX_LISTED = 10
MAX_ALTERNATIVES = 20  # other places of an ambiguous-looking hunk tried one by one; past this, refused


def _normalised(line: str) -> str:
    return line.strip().translate(_ASCII)


def _undecodable(line: str) -> str:
    """Read shows a byte the file's encoding cannot decode as U+FFFD; the text kept for editing holds the
    byte itself (a surrogate escape). A run of either reads as one U+FFFD."""
    return fold_undecodable(_normalised(line))


# Each level's key: lines match at a level when their keys are equal; the first level with a match decides.
_KEYS: dict[str, Callable[[str], str]] = {
    EXACT: lambda s: s,
    TRAILING_WHITESPACE: str.rstrip,
    INDENTATION: str.strip,
    UNICODE_PUNCTUATION: _normalised,
    UNDECODABLE: _undecodable,
}
LEVELS: tuple[tuple[str, Callable[[str], str]], ...] = tuple((name, _KEYS[name]) for name in PATCH_LADDER)
_REINDENTED = {INDENTATION, UNICODE_PUNCTUATION, UNDECODABLE}
# An anchor also matches the line it starts ("@@ class Foo" names "class Foo(Base):"), only when no level matches.
ANCHOR_PREFIX = len(LEVELS)


@dataclass
class Lines:
    """A text's lines: their bodies, and their breaks ("\n", "\r\n", "\r", or "" for a last line without one)."""

    bodies: list[str]
    eols: list[str]

    def text(self) -> str:
        return "".join(chain.from_iterable(zip(self.bodies, self.eols, strict=True)))


_EVERY_BREAK = re.compile(r"(\r\n|\r|\n)")


def split_lines(text: str, every_break: bool = False) -> Lines:
    """The text's lines: split on LF (a CR before it belongs to the break), or on CR in a file without LF;
    with `every_break`, on a lone CR among LFs too."""
    if every_break:
        parts = _EVERY_BREAK.split(text)
        last = parts.pop()
        return Lines(parts[0::2] + ([last] if last else []), parts[1::2] + ([""] if last else []))
    sep = "\r" if "\n" not in text and "\r" in text else "\n"
    parts = text.split(sep)
    last = parts.pop()  # what follows the final break: "" when the text ends with one
    if sep == "\n" and "\r\n" not in text:
        bodies, eols = parts, ["\n"] * len(parts)
    elif sep == "\n" and text.count("\r\n") == len(parts):
        bodies, eols = [part[:-1] for part in parts], ["\r\n"] * len(parts)
    elif sep == "\n":
        crlf = [part.endswith("\r") for part in parts]
        bodies = [part[:-1] if cr else part for part, cr in zip(parts, crlf, strict=True)]
        eols = ["\r\n" if cr else "\n" for cr in crlf]
    else:
        bodies, eols = parts, [sep] * len(parts)
    if last:
        bodies.append(last)
        eols.append("")
    return Lines(bodies, eols)


@dataclass
class _Keys:
    """The file's lines under each level's key, computed once per level."""

    bodies: list[str]
    cache: dict[int, list[str]] = field(default_factory=dict)

    def at(self, level: int) -> list[str]:
        if level == 0:
            return self.bodies
        if level not in self.cache:
            key = LEVELS[level][1]
            self.cache[level] = [key(b) for b in self.bodies]
        return self.cache[level]

    def find(self, pattern: list[str], start: int, level: int, end_of_file: bool = False) -> list[int]:
        """Every index at or after `start` where `pattern` matches at `level` (only the last possible one for
        an end-of-file hunk)."""
        if level == ANCHOR_PREFIX:
            keys, head = self.at(ANCHOR_PREFIX - 1), LEVELS[-1][1](pattern[0])
            return [i for i in range(start, len(keys)) if head and keys[i].startswith(head)]
        keys, key = self.at(level), LEVELS[level][1]
        want = [key(p) for p in pattern]
        last = len(keys) - len(want)
        first = max(start, last) if end_of_file else start
        found, i = [], first
        while i <= last:
            try:
                i = keys.index(want[0], i, last + 1)  # a scan at C speed for the first line
            except ValueError:
                break
            if keys[i : i + len(want)] == want:
                found.append(i)
            i += 1
        return found

    def seek(
        self, pattern: list[str], start: int, end_of_file: bool = False, anchor: bool = False
    ) -> tuple[list[int], int] | None:
        """(matches, level) of the strictest level that matches below `start`."""
        for level in range(len(LEVELS) + (1 if anchor else 0)):
            found = self.find(pattern, start, level, end_of_file)
            if found:
                return found, level
        return None


@dataclass
class _Placed:
    hunk: Hunk
    number: int
    first_step: list[str]  # the first anchor, or the hunk's lines when it has none
    first_level: int
    first_at: int
    cursor: int  # where the search for this hunk began
    start: int  # index of the first replaced line
    level: int  # how the hunk's lines matched
    old: list[str]

    @property
    def next_cursor(self) -> int:
        """Where the next hunk's search begins: below this hunk's lines. A pure addition with no
        anchor goes to the end of the file without moving the search (as codex applies it): a
        hunk after it may still change lines above."""
        if not self.old and not self.hunk.anchors:
            return self.cursor
        return self.start + len(self.old)


@dataclass(frozen=True)
class Applied:
    """The text the hunks make, the regions they changed, and how loosely each one matched."""

    text: str
    changes: list[Change]
    strategies: list[str]


class HunkError(ToolError):
    pass


def _where(name: str, hunk: Hunk, number: int) -> str:
    return f"Hunk {number} of {name} ({hunk.header()}, patch line {hunk.line})"


def _listed(indexes: list[int]) -> str:
    shown = ", ".join(str(i + 1) for i in indexes[:MAX_LISTED])
    return shown + (f", ... {len(indexes) - MAX_LISTED} more" if len(indexes) > MAX_LISTED else "")


class _Miss(Exception):
    """A step of a hunk found nowhere below the cursor (cheap: trying alternatives raises it often)."""

    def __init__(self, what: str, pattern: list[str], cursor: int, anchor: bool, after: str = "") -> None:
        super().__init__(what)
        self.what, self.pattern, self.cursor, self.anchor = what, pattern, cursor, anchor
        self.after = after or "the previous hunk"  # what the search started below


class _Locator:
    def __init__(self, text: str, bodies: list[str], name: str) -> None:
        self.text, self.name = text, name
        self.count = len(bodies)
        self.keys = _Keys(bodies)

    def not_found(self, hunk: Hunk, number: int, miss: _Miss) -> HunkError:
        below = f" (searched below line {miss.cursor})" if miss.cursor else ""
        earlier = self.keys.seek(miss.pattern, 0, anchor=miss.anchor) if miss.cursor else None
        order = ""
        if earlier is not None:
            if miss.after == "the previous hunk":
                rule = "hunks must be in the order of the file and must not overlap"
            elif miss.anchor:
                rule = "each '@@' line must come after the one before it"
            else:
                rule = "a hunk's lines must come after its '@@' lines"
            order = f" It occurs at line {earlier[0][0] + 1}, above {miss.after}: {rule}."
        detail = describe_not_found(self.text, "\n".join(miss.pattern), what=miss.what)
        return HunkError(
            ErrorCode.NOT_FOUND,
            f"{_where(self.name, hunk, number)} does not apply{below}.{order}\n{detail}",
            hunk=number,
            patch_line=hunk.line,
        )

    def place(self, hunk: Hunk, number: int, cursor: int, forced: _Placed | None = None, at: int = 0) -> _Placed:
        """The hunk placed below `cursor`: each step at its first match (the first step at `at` when
        `forced` is the placement being second-guessed)."""
        first_step: list[str] | None = None
        first_level, first_at = 0, cursor
        start_cursor, previous = cursor, ""
        for anchor in hunk.anchors:
            if forced is not None and first_step is None:
                found: tuple[list[int], int] | None = ([at], forced.first_level)
            else:
                found = self.keys.seek([anchor], cursor, anchor=True)
            if found is None:
                after = f"the anchor '@@ {previous}'" if previous else ""
                raise _Miss(f"The anchor '@@ {anchor}'", [anchor], cursor, anchor=True, after=after)
            if first_step is None:
                first_step, first_level, first_at = [anchor], found[1], found[0][0]
            cursor, previous = found[0][0] + 1, anchor
        old = hunk.old
        if not old:  # a pure addition: after the anchors, else at the end of the file
            start = self.count if hunk.end_of_file or not hunk.anchors else cursor
            step = first_step or []
            return _Placed(hunk, number, step, first_level, first_at, start_cursor, start, 0, old)
        if forced is not None and first_step is None:
            old, found = forced.old, ([at], forced.level)
        else:
            old, found = self._seek_lines(hunk, cursor)
            if previous and _normalised(old[0]) == _normalised(previous):
                old, found = self._at_anchor(hunk, number, cursor - 1, (old, found))
        if found is None:
            what = "The hunk's lines at the end of the file" if hunk.end_of_file else "The hunk's context and '-' lines"
            after = f"its anchor '@@ {previous}'" if previous else ""
            raise _Miss(what, hunk.old, cursor, anchor=False, after=after)
        (start, *_), level = found
        if first_step is None:
            first_step, first_level, first_at = old, level, start
        return _Placed(hunk, number, first_step, first_level, first_at, start_cursor, start, level, old)

    def _seek_lines(self, hunk: Hunk, cursor: int) -> tuple[list[str], tuple[list[int], int] | None]:
        """(the lines searched, where they match) for a hunk's context and '-' lines below `cursor`."""
        old = hunk.old
        found = self.keys.seek(old, cursor, hunk.end_of_file)
        droppable = sum(1 for _ in takewhile(lambda line: line == (" ", ""), reversed(hunk.lines)))
        while found is None and droppable and len(old) > 1:
            # Trailing empty context lines: blank separators before the next header, or the final line break.
            old, droppable = old[:-1], droppable - 1
            found = self.keys.seek(old, cursor, hunk.end_of_file)
        return old, found

    def _at_anchor(
        self, hunk: Hunk, number: int, line: int, below: tuple[list[str], tuple[list[int], int] | None]
    ) -> tuple[list[str], tuple[list[int], int] | None]:
        """Lines that start with the anchor's own text ("@@ def f():" then " def f():") may start at the
        anchored line itself; when they also match below it, the hunk means two things and is refused."""
        old, found = self._seek_lines(hunk, line)
        if found is None or found[0][0] != line:
            return below
        if below[1] is not None:
            spots = [line, below[1][0][0]]
            raise HunkError(
                ErrorCode.NOT_UNIQUE,
                f"{_where(self.name, hunk, number)} is ambiguous: its lines start with its anchor's line and match "
                f"both at the anchored line and below it (lines {_listed(spots)}). Add context lines, or an '@@' "
                "line that names the enclosing block, so that the hunk matches one place.",
                hunk=number,
                patch_line=hunk.line,
                lines=[s + 1 for s in spots],
            )
        return old, found

    def check_unique(self, placed: list[_Placed]) -> None:
        """No hunk may have another place from which it and every later hunk still apply in order: the
        patch would then mean two different things. Only a hunk's first step (its first anchor, or its
        lines) is second-guessed; the steps after it take the first match by the format's definition."""
        for i, p in enumerate(placed):
            if not p.first_step or (p.hunk.end_of_file and not p.hunk.anchors):
                continue
            others = [s for s in self.keys.find(p.first_step, p.cursor, p.first_level) if s != p.first_at]
            viable = [s for s in others[:MAX_ALTERNATIVES] if self._rest_fits(placed, i, s)]
            if viable or len(others) > MAX_ALTERNATIVES:
                spots = sorted({p.first_at, *(viable or others)})
                what = f"its anchor '@@ {p.first_step[0]}'" if p.hunk.anchors else "its context and '-' lines"
                raise HunkError(
                    ErrorCode.NOT_UNIQUE,
                    f"{_where(self.name, p.hunk, p.number)} is ambiguous: {what} match {len(spots)} places where "
                    f"the patch applies (lines {_listed(spots)}). Add an '@@' line naming the enclosing class or "
                    "function, or more context lines, so that the hunk matches one place.",
                    hunk=p.number,
                    patch_line=p.hunk.line,
                    lines=[s + 1 for s in spots],
                )

    def _rest_fits(self, placed: list[_Placed], i: int, at: int) -> bool:
        """Whether hunk i placed with its first step at `at`, and every later hunk after it, still applies."""
        try:
            p = placed[i]
            alt = self.place(p.hunk, p.number, p.cursor, forced=p, at=at)
            cursor = alt.next_cursor
            for q in placed[i + 1 :]:
                cursor = self.place(q.hunk, q.number, cursor).next_cursor
        except _Miss:
            return False
        return True


def _style(lines: Lines) -> str:
    """The file's most common line break ("\n" for a file without one)."""
    counts = {eol: lines.eols.count(eol) for eol in ("\n", "\r\n", "\r")}
    best = max(counts, key=counts.__getitem__)
    return best if counts[best] else "\n"


def _added(placed: _Placed, matched: list[str], everything: list[str]) -> list[str]:
    """The hunk's added lines, re-indented when its lines matched the file only ignoring indentation."""
    plus = [text for mark, text in placed.hunk.lines if mark == "+"]
    if LEVELS[placed.level][0] not in _REINDENTED or not plus:
        return plus
    pairs = [(indent_of(o), indent_of(f)) for o, f in zip(placed.old, matched, strict=True) if o.strip()]
    moved = reindent(pairs, plus, everything)
    return plus if moved is None else moved.split("\n")


def _replacement(placed: _Placed, lines: Lines, style: str) -> tuple[int, Lines]:
    """(lines replaced, the lines that replace them)."""
    start, end = placed.start, placed.start + len(placed.old)
    bodies, eols = lines.bodies[start:end], lines.eols[start:end]
    counted = Counter(eol for eol in eols if eol)
    neighbour = lines.eols[start - 1] if start else ""
    eol = counted.most_common(1)[0][0] if counted else (neighbour or style)
    added = iter(_added(placed, bodies, lines.bodies))
    out, i = Lines([], []), 0
    for mark, _ in placed.hunk.lines:
        if i >= len(bodies) and mark != "+":
            continue  # the dropped trailing empty context line
        if mark == " ":
            out.bodies.append(bodies[i])
            out.eols.append(eols[i])
            i += 1
        elif mark == "-":
            i += 1
        else:
            out.bodies.append(next(added))
            out.eols.append(eol)
    return len(bodies), out


def apply_hunks(text: str, hunks: tuple[Hunk, ...], name: str) -> Applied:
    """The text after `hunks`; HunkError (not_found, not_unique) names the hunk that does not apply.

    Lines end at LF; when that places no hunk and the file also has lone CRs (old Mac breaks mixed in),
    its lines are split at those too, as codex splits them."""
    try:
        return _apply_hunks(text, split_lines(text), hunks, name)
    except HunkError as exc:
        if exc.code != ErrorCode.NOT_FOUND or "\n" not in text or text.count("\r") == text.count("\r\n"):
            raise
        try:
            return _apply_hunks(text, split_lines(text, every_break=True), hunks, name)
        except HunkError:
            raise exc from None


def _apply_hunks(text: str, lines: Lines, hunks: tuple[Hunk, ...], name: str) -> Applied:
    locator = _Locator(text, lines.bodies, name)
    placed, cursor = [], 0
    for n, hunk in enumerate(hunks, 1):
        try:
            p = locator.place(hunk, n, cursor)
        except _Miss as miss:
            raise locator.not_found(hunk, n, miss) from None
        placed.append(p)
        cursor = p.next_cursor
    locator.check_unique(placed)
    style = _style(lines)
    final_break = not lines.eols or bool(lines.eols[-1])
    out = Lines([], [])
    regions: list[tuple[int, int, int, int]] = []  # old and new line ranges
    pos = 0
    for p in sorted(placed, key=lambda p: p.start):  # stable: additions at the end keep their order
        out.bodies += lines.bodies[pos : p.start]
        out.eols += lines.eols[pos : p.start]
        count, new = _replacement(p, lines, style)
        at = len(out.bodies)
        regions.append((p.start, p.start + count, at, at + len(new.bodies)))
        out.bodies += new.bodies
        out.eols += new.eols
        pos = p.start + count
    out.bodies += lines.bodies[pos:]
    out.eols += lines.eols[pos:]
    _settle_breaks(out, style, final_break, regions, len(lines.bodies))
    return Applied(out.text(), _changes(lines, out, regions), [LEVELS[p.level][0] for p in placed])


def _settle_breaks(
    out: Lines, style: str, final_break: bool, regions: list[tuple[int, int, int, int]], old_count: int
) -> None:
    """Every line but the last ends with a break; the last keeps the file's final-break state. A line that
    gains or loses its break this way joins the region next to it, so the diff shows it."""
    eols, last = out.eols, len(out.eols) - 1
    i = 0
    while True:
        try:
            i = eols.index("", i, max(last, 0))  # a line without a break that is no longer the last
        except ValueError:
            break
        eols[i] = style
        _cover(regions, i, old_count)
    if last >= 0:
        want = (eols[last] or style) if final_break else ""
        if want != eols[last]:
            eols[last] = want
            _cover(regions, last, old_count)


def _cover(regions: list[tuple[int, int, int, int]], new_index: int, old_count: int) -> None:
    """Widen the region nearest to `new_index` (a line whose break changed) to include it."""
    best = min(range(len(regions)), key=lambda k: min(abs(regions[k][2] - new_index), abs(regions[k][3] - new_index)))
    os_, oe, ns, ne = regions[best]
    if new_index < ns:
        regions[best] = (os_ - (ns - new_index), oe, new_index, ne)
    elif new_index >= ne:
        grow = new_index + 1 - ne
        regions[best] = (os_, min(oe + grow, old_count), ns, ne + grow)


def _changes(old: Lines, new: Lines, regions: list[tuple[int, int, int, int]]) -> list[Change]:
    """The regions as character ranges of the old and new text, merged where they touch. Outside them the
    two texts hold the same lines, so a region's new start is its old start moved by the regions before it."""
    merged: list[list[int]] = []
    for os_, oe, ns, ne in regions:
        if merged and merged[-1][1] >= os_:
            merged[-1][1], merged[-1][3] = max(merged[-1][1], oe), max(merged[-1][3], ne)
        else:
            merged.append([os_, oe, ns, ne])
    old_at = list(accumulate(map(add, map(len, old.bodies), map(len, old.eols)), initial=0))
    changes, delta = [], 0
    for os_, oe, ns, ne in merged:
        new_len = sum(map(len, new.bodies[ns:ne])) + sum(map(len, new.eols[ns:ne]))
        start = old_at[os_] + delta
        changes.append(Change(old_at[os_], old_at[oe], start, start + new_len))
        delta += new_len - (old_at[oe] - old_at[os_])
    return changes
