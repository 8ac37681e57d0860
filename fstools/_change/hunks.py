"""Where a V4A patch's hunks go in a file's text, and the text they make: pure, no I/O.

Hunks are located in order, each below the previous one. A hunk's `@@` anchors jump, one after
the other, to the next line that matches them; its context and removed lines must then follow.
Lines are compared exactly first, then ignoring trailing whitespace, then ignoring indentation,
then with typographic dashes, quotes and spaces read as ASCII (codex's `seek_sequence` rules,
whose least strict match wins only when no stricter one exists). A hunk is never placed by
guess: when its first anchor (or, without anchors, its lines) occur more than once below the
previous hunk, and later hunks do not account for the other places, it is ambiguous.

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

from .._core.errors import ErrorCode, ToolError
from .diff import Change
from .match import describe_not_found, reindent
from .v4a import Hunk

_LINE = re.compile(r"[^\n]*\n|[^\n]+")
_CR_LINE = re.compile(r"[^\r]*\r|[^\r]+")
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


def _normalised(line: str) -> str:
    return line.strip().translate(_ASCII)


# (name, key): lines match at a level when their keys are equal; the first level with a match decides.
LEVELS: tuple[tuple[str, Callable[[str], str]], ...] = (
    ("exact", lambda s: s),
    ("trailing_whitespace", str.rstrip),
    ("indentation", str.strip),
    ("unicode_punctuation", _normalised),
)
_REINDENTED = {"indentation", "unicode_punctuation"}
# An anchor also matches the line it starts ("@@ class Foo" names "class Foo(Base):"), only when no level matches.
ANCHOR_PREFIX = len(LEVELS)


@dataclass
class Line:
    body: str
    eol: str  # "\n", "\r\n", "\r" or "" (the last line without a line break)


def split_lines(text: str) -> list[Line]:
    """The text's lines with their breaks: LF or CRLF, or CR in a file that has no LF at all."""
    if "\n" not in text and "\r" in text:
        return [
            Line(m.group().removesuffix("\r"), "\r" if m.group().endswith("\r") else "")
            for m in _CR_LINE.finditer(text)
        ]
    lines = []
    for m in _LINE.finditer(text):
        raw = m.group()
        if raw.endswith("\r\n"):
            lines.append(Line(raw[:-2], "\r\n"))
        elif raw.endswith("\n"):
            lines.append(Line(raw[:-1], "\n"))
        else:
            lines.append(Line(raw, ""))
    return lines


@dataclass
class _Keys:
    """The file's lines under each level's key, computed once per level."""

    bodies: list[str]
    cache: dict[int, list[str]] = field(default_factory=dict)

    def at(self, level: int) -> list[str]:
        if level not in self.cache:
            key = LEVELS[level][1]
            self.cache[level] = [key(b) for b in self.bodies]
        return self.cache[level]

    def find(self, pattern: list[str], start: int, level: int, end_of_file: bool = False) -> list[int]:
        """Every index at or after `start` where `pattern` matches at `level` (only the last possible one for
        an end-of-file hunk)."""
        if level == ANCHOR_PREFIX:
            keys, head = self.at(ANCHOR_PREFIX - 1), _normalised(pattern[0])
            return [i for i in range(start, len(keys)) if head and keys[i].startswith(head)]
        keys, key = self.at(level), LEVELS[level][1]
        want = [key(p) for p in pattern]
        last = len(keys) - len(want)
        first = max(start, last) if end_of_file else start
        return [i for i in range(first, last + 1) if keys[i] == want[0] and keys[i : i + len(want)] == want]

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


class _Locator:
    def __init__(self, text: str, lines: list[Line], name: str) -> None:
        self.text, self.lines, self.name = text, lines, name
        self.keys = _Keys([line.body for line in lines])

    def _not_found(
        self, hunk: Hunk, number: int, what: str, pattern: list[str], cursor: int, anchor: bool = False
    ) -> ToolError:
        below = f" (searched below line {cursor})" if cursor else ""
        earlier = self.keys.seek(pattern, 0, anchor=anchor) if cursor else None
        order = ""
        if earlier is not None:
            order = (
                f" It occurs at line {earlier[0][0] + 1}, above the previous hunk: hunks must be in the order "
                "of the file and must not overlap."
            )
        detail = describe_not_found(self.text, "\n".join(pattern), what=what)
        return HunkError(
            ErrorCode.NOT_FOUND,
            f"{_where(self.name, hunk, number)} does not apply{below}.{order}\n{detail}",
            hunk=number,
            patch_line=hunk.line,
        )

    def place(self, hunk: Hunk, number: int, cursor: int) -> _Placed:
        first_step: list[str] | None = None
        first_level, first_at = 0, cursor
        start_cursor = cursor
        for anchor in hunk.anchors:
            found = self.keys.seek([anchor], cursor, anchor=True)
            if found is None:
                raise self._not_found(hunk, number, f"The anchor '@@ {anchor}'", [anchor], cursor, anchor=True)
            if first_step is None:
                first_step, first_level, first_at = [anchor], found[1], found[0][0]
            cursor = found[0][0] + 1
        old = hunk.old
        if not old:  # a pure addition: after the anchors, else at the end of the file
            start = len(self.lines) if hunk.end_of_file or not hunk.anchors else cursor
            step = first_step or []
            return _Placed(hunk, number, step, first_level, first_at, start_cursor, start, 0, old)
        found = self.keys.seek(old, cursor, hunk.end_of_file)
        if found is None and old[-1] == "" and hunk.lines[-1][0] == " ":
            old = old[:-1]  # a trailing empty context line standing for the file's final line break
            found = self.keys.seek(old, cursor, hunk.end_of_file) if old else None
        if found is None:
            what = "The hunk's lines at the end of the file" if hunk.end_of_file else "The hunk's context and '-' lines"
            raise self._not_found(hunk, number, what, hunk.old, cursor)
        (start, *_), level = found
        if first_step is None:
            first_step, first_level, first_at = old, level, start
        return _Placed(hunk, number, first_step, first_level, first_at, start_cursor, start, level, old)

    def check_unique(self, placed: list[_Placed]) -> None:
        """Each hunk's first step must have one place below the previous hunk, other than the places
        later hunks take."""
        for i, p in enumerate(placed):
            if not p.first_step or p.hunk.end_of_file and not p.hunk.anchors:
                continue
            claimed = {at for q in placed[i + 1 :] for at in (q.first_at, q.start)}
            spots = [s for s in self.keys.find(p.first_step, p.cursor, p.first_level) if s not in claimed]
            if len(spots) > 1:
                what = f"its anchor '@@ {p.first_step[0]}'" if p.hunk.anchors else "its context and '-' lines"
                raise HunkError(
                    ErrorCode.NOT_UNIQUE,
                    f"{_where(self.name, p.hunk, p.number)} is ambiguous: {what} match {len(spots)} places "
                    f"(lines {_listed(spots)}). Add an '@@' line naming the enclosing class or function, or more "
                    "context lines, so that the hunk matches one place.",
                    hunk=p.number,
                    patch_line=p.hunk.line,
                    lines=[s + 1 for s in spots],
                )


def _style(lines: list[Line]) -> str:
    """The file's most common line break ("\n" for a file without one)."""
    eols = Counter(line.eol for line in lines if line.eol)
    return eols.most_common(1)[0][0] if eols else "\n"


def _added(placed: _Placed, matched: list[Line], everything: list[Line]) -> list[str]:
    """The hunk's added lines, re-indented when its lines matched the file only ignoring indentation."""
    plus = [text for mark, text in placed.hunk.lines if mark == "+"]
    if LEVELS[placed.level][0] not in _REINDENTED or not plus:
        return plus
    pairs = [(_indent(o), _indent(f.body)) for o, f in zip(placed.old, matched, strict=True) if o.strip()]
    moved = reindent(pairs, plus, [line.body for line in everything])
    return plus if moved is None else moved.split("\n")


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _replacement(placed: _Placed, lines: list[Line], style: str) -> tuple[int, list[Line]]:
    """(lines replaced, the lines that replace them)."""
    matched = lines[placed.start : placed.start + len(placed.old)]
    eols = Counter(line.eol for line in matched if line.eol)
    neighbour = lines[placed.start - 1].eol if placed.start else ""
    eol = eols.most_common(1)[0][0] if eols else (neighbour or style)
    added = iter(_added(placed, matched, lines))
    out, i = [], 0
    for mark, _ in placed.hunk.lines:
        if i >= len(matched) and mark != "+":
            continue  # the dropped trailing empty context line
        if mark == " ":
            out.append(Line(matched[i].body, matched[i].eol))
            i += 1
        elif mark == "-":
            i += 1
        else:
            out.append(Line(next(added), eol))
    return len(matched), out


def apply_hunks(text: str, hunks: tuple[Hunk, ...], name: str) -> Applied:
    """The text after `hunks`; HunkError (not_found, not_unique) names the hunk that does not apply."""
    lines = split_lines(text)
    locator = _Locator(text, lines, name)
    placed, cursor = [], 0
    for n, hunk in enumerate(hunks, 1):
        p = locator.place(hunk, n, cursor)
        placed.append(p)
        cursor = p.start + len(p.old)
    locator.check_unique(placed)
    style = _style(lines)
    final_break = not lines or bool(lines[-1].eol)
    out: list[Line] = []
    regions: list[tuple[int, int, int, int]] = []  # old and new line ranges
    pos = 0
    for p in placed:
        out += lines[pos : p.start]
        count, new = _replacement(p, lines, style)
        regions.append((p.start, p.start + count, len(out), len(out) + len(new)))
        out += new
        pos = p.start + count
    out += lines[pos:]
    _settle_breaks(out, style, final_break, regions, len(lines))
    new_text = "".join(line.body + line.eol for line in out)
    return Applied(new_text, _changes(lines, out, regions), [LEVELS[p.level][0] for p in placed])


def _settle_breaks(
    out: list[Line], style: str, final_break: bool, regions: list[tuple[int, int, int, int]], old_count: int
) -> None:
    """Every line but the last ends with a break; the last keeps the file's final-break state. A line that
    gains or loses its break this way joins the region next to it, so the diff shows it."""
    for i, line in enumerate(out):
        last = i == len(out) - 1
        want = (line.eol or style) if not last or final_break else ""
        if want != line.eol:
            line.eol = want
            _cover(regions, i, old_count, len(out))


def _cover(regions: list[tuple[int, int, int, int]], new_index: int, old_count: int, new_count: int) -> None:
    """Widen the region nearest to `new_index` (a line whose break changed) to include it."""
    best = min(range(len(regions)), key=lambda k: min(abs(regions[k][2] - new_index), abs(regions[k][3] - new_index)))
    os_, oe, ns, ne = regions[best]
    if new_index < ns:
        regions[best] = (os_ - (ns - new_index), oe, new_index, ne)
    elif new_index >= ne:
        grow = new_index + 1 - ne
        regions[best] = (os_, min(oe + grow, old_count), ns, ne + grow)


def _changes(old: list[Line], new: list[Line], regions: list[tuple[int, int, int, int]]) -> list[Change]:
    """The regions as character ranges of the old and new text, merged where they touch."""
    old_at, new_at = _offsets(old), _offsets(new)
    merged: list[list[int]] = []
    for os_, oe, ns, ne in regions:
        if merged and merged[-1][1] >= os_:
            merged[-1][1], merged[-1][3] = max(merged[-1][1], oe), max(merged[-1][3], ne)
        else:
            merged.append([os_, oe, ns, ne])
    return [Change(old_at[a], old_at[b], new_at[c], new_at[d]) for a, b, c, d in merged]


def _offsets(lines: list[Line]) -> list[int]:
    at = [0]
    for line in lines:
        at.append(at[-1] + len(line.body) + len(line.eol))
    return at
