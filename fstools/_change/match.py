"""Where old_string is in a file: exactly, else ignoring line endings, else ignoring whitespace.

Models copy text out of Read's output, which hides CRs and can blur tabs and trailing
spaces, so an exact miss is retried tolerantly. A tolerant match is used only when it is
unambiguous, and the replacement is then written in the file's own line endings and
indentation (`reindent`). Edit and MultiEdit both plan their replacements here; a miss is
explained by `nearmiss`.

The exact match (`plan_exact`) runs alike on text and on the bytes of a bytewise encoding
(see BYTEWISE_CODECS): there old_string's bytes occur exactly where its text does, and line
breaks are the same bytes, so a large file need not be decoded to be edited.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import accumulate
from typing import AnyStr, Generic, TypeVar

from .._content.encodings import breaks
from .._content.spliced import Buffer
from .._core.errors import ErrorCode, ToolError
from .document import with_line_breaks
from .nearmiss import describe_not_found
from .reindent import indent_of, reindent_block, reindent_lines
from .tolerance import (
    EDIT_LADDER,
    EXACT,
    FINAL_LINE_BREAK,
    IGNORED,
    INDENTATION,
    LEADING_BLANK_LINES,
    LINE_ENDINGS,
    LINE_INDENTATION,
    TRAILING_WHITESPACE,
    UNDECODABLE,
    WHITESPACE,
    undecodable_pattern,
)

MAX_LISTED_LINES = 20
# Bounds that keep every argument linear in the file: occurrences one replace_all may change,
# tolerant matches collected before the answer is "ambiguous".
MAX_REPLACEMENTS = 100_000
MAX_TOLERANT_CANDIDATES = 100
MAX_SCANNED = 10_000  # occurrences a not_unique error looks at to list its lines
MAX_TOLERANT_TRIES = 1_000  # line runs whose indentation is compared (a failed re-indent is not a candidate)
_BREAK = re.compile(r"\r\n|\r|\n")


_View = TypeVar("_View", str, memoryview)  # what a plan cuts: the text itself, or a view of the bytes


@dataclass(frozen=True)
class Replacement(Generic[AnyStr]):
    start: int
    end: int
    text: AnyStr


@dataclass(frozen=True)
class Plan(Generic[AnyStr]):
    """The replacements one edit makes, sorted and disjoint, and how old_string was matched."""

    strategy: str
    replacements: list[Replacement[AnyStr]]

    def pieces(self: Plan[bytes], text: bytes) -> list[Buffer]:
        """`text` with the replacements made, as pieces in order: views of `text`, not copies."""
        return self._cut(memoryview(text))

    def apply(self, text: AnyStr) -> AnyStr:
        if isinstance(text, str):
            return "".join(self._cut(text))
        return b"".join(self.pieces(text))

    def _cut(self, view: _View) -> list[_View | AnyStr]:
        pieces: list[_View | AnyStr] = []
        pos = 0
        for r in self.replacements:
            pieces += (view[pos : r.start], r.text)
            pos = r.end
        pieces.append(view[pos:])
        return pieces

    def spans(self) -> list[tuple[int, int, int]]:
        return [(r.start, r.end, len(r.text)) for r in self.replacements]


@dataclass(frozen=True)
class _Candidate(Generic[AnyStr]):
    start: int
    end: int
    strategy: str
    text: AnyStr | None = None  # None: new_string as given


def plan_replacement(text: str, old: str, new: str, replace_all: bool) -> Plan[str]:
    """Find `old` in `text` and plan its replacement by `new`; ToolError NOT_FOUND / NOT_UNIQUE otherwise."""
    plan = plan_exact(text, old, new, replace_all)
    if plan is not None:
        return plan
    for level in EDIT_LADDER[1:4]:
        candidates = _TOLERANT[level](text, old, new)
        if candidates:
            return _decide(text, candidates, new, replace_all)
    trimmed = _without_leading_blank_lines(old, new)
    if trimmed is not None:
        try:
            plan = plan_replacement(text, *trimmed, replace_all)
        except ToolError as exc:
            if exc.code != ErrorCode.NOT_FOUND:
                raise
        else:
            return Plan(LEADING_BLANK_LINES, plan.replacements)
    at_end = _at_unterminated_end(text, old, new, replace_all)
    if at_end is not None:
        return at_end
    raise ToolError(ErrorCode.NOT_FOUND, describe_not_found(text, old))


def _at_unterminated_end(text: str, old: str, new: str, replace_all: bool) -> Plan[str] | None:
    """old_string that ends with a line break, found where the file ends without one: the break stands for
    the end of the file. The file keeps ending without a break (new_string's own final break is dropped),
    and an empty new_string removes the last line with the break before it."""
    if not old.endswith(("\n", "\r")) or not text or text.endswith(("\n", "\r")):
        return None
    virtual = text + _break_at(text, len(text), len(text))
    try:
        plan = plan_replacement(virtual, old, new, replace_all)
    except ToolError as exc:
        if exc.code != ErrorCode.NOT_FOUND:
            raise
        return None
    *kept, last = plan.replacements
    if last.end <= len(text):
        return None  # matched away from the end: not this case (the search proper said no)
    cut = 2 if last.text.endswith("\r\n") else 1 if last.text.endswith(("\n", "\r")) else 0
    body = last.text[: len(last.text) - cut]
    start, end = last.start, len(text)
    if not body:
        start, end = _whole_lines(text, start, end, kept[-1].end if kept else 0)
    return Plan(FINAL_LINE_BREAK, [*kept, Replacement(start, end, body)])


def _without_leading_blank_lines(old: str, new: str) -> tuple[str, str] | None:
    """old_string without the blank lines it opens with (models add one the file may not have
    there), and new_string without as many of its own; None when old_string opens with none."""
    olines = _BREAK.split(old)
    blank = next((n for n, line in enumerate(olines) if line.strip()), 0)
    if not blank:
        return None
    nlines = _BREAK.split(new)
    dropped = next((n for n, line in enumerate(nlines) if line.strip() or n == blank), len(nlines))
    return _after_lines(old, blank), _after_lines(new, min(dropped, blank))


def _after_lines(text: str, count: int) -> str:
    """`text` from its line `count` (0-based) on."""
    pos = 0
    for _ in range(count):
        found = _BREAK.search(text, pos)
        if found is None:
            return ""
        pos = found.end()
    return text[pos:]


def plan_exact(text: AnyStr, old: AnyStr, new: AnyStr, replace_all: bool) -> Plan[AnyStr] | None:
    """The plan if `old` occurs in `text` as it is (NOT_UNIQUE if ambiguous), else None.

    Occurrences are counted before any is collected, so an ambiguous or oversized
    replace_all costs one scan, not one object per occurrence.
    """
    total = text.count(old) if old else 0
    if total == 0:
        return None
    if replace_all and total > MAX_REPLACEMENTS:
        raise ToolError(
            ErrorCode.INVALID_ARGUMENT,
            f"old_string occurs {total} times; replace_all changes at most {MAX_REPLACEMENTS} occurrences in one "
            "call: use a longer old_string, or rewrite the file with Write",
        )
    if replace_all or total == 1:
        return _decide(text, _exact(text, old, total), new, replace_all, total)
    return _decide(text, _exact(text, old, 1), new, replace_all, total, occurrence_lines(text, old))


def _exact(text: AnyStr, old: AnyStr, limit: int) -> list[_Candidate[AnyStr]]:
    found: list[_Candidate[AnyStr]] = []
    pos = text.find(old)
    while pos >= 0 and len(found) < limit:
        found.append(_Candidate(pos, pos + len(old), EXACT))
        pos = text.find(old, pos + len(old))
    return found


def _line_endings(text: str, old: str, new: str) -> list[_Candidate[str]]:
    """old_string found once every line break (CRLF, CR, LF) counts as LF, on both sides.

    Plain substring search over normalised copies (linear, memory proportional to the file);
    positions map back through the offsets of the CRs that CRLF lost.
    """
    if "\r" not in text and "\r" not in old:
        return []  # nothing to normalise: the exact search already said no
    norm_old = old.replace("\r\n", "\n").replace("\r", "\n")
    if "\n" not in norm_old:
        return []
    dropped = array("q")  # normalised index of each LF whose CR was dropped
    for m in re.finditer("\r\n", text):
        dropped.append(m.start() - len(dropped))
    norm = text.replace("\r\n", "\n").replace("\r", "\n")

    def original(n: int) -> int:
        return n + bisect_right(dropped, n)

    found: list[_Candidate[str]] = []
    pos = norm.find(norm_old)
    while pos >= 0 and len(found) <= MAX_TOLERANT_CANDIDATES:
        start, end = original(pos), original(pos + len(norm_old) - 1) + 1
        at = bisect_left(dropped, pos)
        if at < len(dropped) and dropped[at] == pos:
            start -= 1  # the match opens with the LF of a CRLF: take its CR too
        found.append(_Candidate(start, end, LINE_ENDINGS))
        pos = norm.find(norm_old, pos + len(norm_old))
    return found


def _undecodable(text: str, old: str, new: str) -> list[_Candidate[str]]:
    if "\ufffd" not in old:
        return []
    return [_Candidate(m.start(), m.end(), UNDECODABLE) for m in undecodable_pattern(old).finditer(text)]


@dataclass(frozen=True)
class _Shape:
    """old_string as lines: what whole-line matching compares, and how its ends sit in the file."""

    lines: list[str]
    keys: list[str]  # the lines stripped
    keeps_break: bool  # ends with a line break: the match takes the last line's break too
    mid_line: bool  # copied from the first non-blank character of its first line
    lead_break: bool  # "\nfoo": starts at the end of whatever line precedes foo

    @classmethod
    def of(cls, old: str) -> _Shape | None:
        lines = old.replace("\r\n", "\n").split("\n")
        keeps_break = len(lines) > 1 and lines[-1] == ""
        if keeps_break:
            lines.pop()
        keys = [line.strip() for line in lines]
        if not any(keys):
            return None
        lead_break = len(lines) > 1 and lines[0] == ""
        return cls(lines, keys, keeps_break, not indent_of(lines[0]), lead_break)


@dataclass(frozen=True)
class _FileLines:
    """A text's lines without their breaks (LF, CRLF or a lone CR), and the offset each starts at."""

    content: list[str]
    starts: list[int]  # one more than lines: the last is len(text) + 1, as if a break followed

    @classmethod
    def of(cls, text: str) -> _FileLines:
        if "\r" not in text:
            content = text.split("\n")
            return cls(content, list(accumulate((len(line) + 1 for line in content), initial=0)))
        content, starts = [], [0]
        for found in _BREAK.finditer(text):
            content.append(text[starts[-1] : found.start()])
            starts.append(found.end())
        content.append(text[starts[-1] :])
        starts.append(len(text) + 1)
        return cls(content, starts)


def _whitespace(text: str, old: str, new: str) -> list[_Candidate[str]]:
    """Whole-line matches that differ from old_string only in indentation or trailing whitespace."""
    shape = _Shape.of(old)
    if shape is None:
        return []
    lines = _FileLines.of(text)
    if len(shape.lines) > len(lines.content):
        return []  # more lines than the file has
    new_lines = new.replace("\r\n", "\n").split("\n")
    last = len(lines.content) - (1 if shape.keeps_break else 0)  # a matched block must end before this line
    # The first line is not compared when old_string opens with a line break (any line ends so).
    runs = _line_runs([line.strip() for line in lines.content[:last]], shape.keys[shape.lead_break :])
    found: list[_Candidate[str]] = []
    for tried, i in enumerate(r - shape.lead_break for r in runs if r >= shape.lead_break):
        if len(found) > MAX_TOLERANT_CANDIDATES or tried > MAX_TOLERANT_TRIES:
            break  # each try costs old_string's length: the count stays bounded, not the file x old_string
        candidate = _whitespace_at(shape, lines, i, new_lines)
        if candidate is not None:
            found.append(candidate)
    return found


def _whitespace_at(shape: _Shape, lines: _FileLines, i: int, new_lines: list[str]) -> _Candidate[str] | None:
    """The candidate where old_string's lines match the file's from line i, re-indented; None if
    new_string cannot be moved into the file's indentation there."""
    k, content, olines = len(shape.lines), lines.content, shape.lines
    pairs = [
        (indent_of(olines[j]), indent_of(content[i + j]))
        for j in range(k)
        if shape.keys[j] and (j or not shape.mid_line)
    ]
    replacement = reindent_block(pairs, new_lines, shape.mid_line, content)
    strategy = TRAILING_WHITESPACE if all(o == f for o, f in pairs) else INDENTATION
    if replacement is None:
        replacement = reindent_lines(olines, content[i : i + k], new_lines, shape.mid_line)
        strategy = LINE_INDENTATION
    if replacement is None:
        return None
    first = content[i]
    start = lines.starts[i] + (len(first) if shape.lead_break else len(indent_of(first)) if shape.mid_line else 0)
    end = lines.starts[i + k] if shape.keeps_break else lines.starts[i + k - 1] + len(content[i + k - 1])
    return _Candidate(start, end, strategy, None if strategy == TRAILING_WHITESPACE else replacement)


def _line_runs(lines: list[str], keys: list[str]) -> Iterable[int]:
    """Every i where lines[i : i + len(keys)] == keys, in linear time: each distinct line becomes
    one fixed-width code, and str.find searches the file's codes for old_string's."""
    distinct = dict.fromkeys(keys)
    distinct.update(dict.fromkeys(lines))
    # Two characters per distinct line, none of them a surrogate.
    codes = {line: chr(0xE000 + n // 0x8000) + chr(0x10000 + n % 0x8000) for n, line in enumerate(distinct)}
    needle = "".join(map(codes.__getitem__, keys))
    haystack = "".join(map(codes.__getitem__, lines))
    pos = haystack.find(needle)
    while pos >= 0:
        if pos % 2 == 0:
            yield pos // 2
        pos = haystack.find(needle, pos + 1)


def line_numbers(text: AnyStr, positions: Iterable[int]) -> list[int]:
    """1-based line numbers of sorted positions."""
    numbers, line, prev, lf = [], 1, 0, breaks(text).lf
    for pos in positions:
        line += text.count(lf, prev, pos)
        prev = pos
        numbers.append(line)
    return numbers


def occurrence_lines(text: AnyStr, old: AnyStr) -> list[int]:
    """The lines of `old`'s occurrences in order (non-overlapping, as str.count counts them), up
    to the first on a line past MAX_LISTED_LINES distinct ones, or MAX_SCANNED occurrences."""
    numbers: list[int] = []
    line, prev, lf, lines = 1, 0, breaks(text).lf, 0
    pos = text.find(old)
    while pos >= 0 and len(numbers) < MAX_SCANNED:
        line += text.count(lf, prev, pos)
        prev = pos
        if not numbers or line != numbers[-1]:
            lines += 1
        numbers.append(line)
        if lines > MAX_LISTED_LINES:  # the first line not listed: the listed ones are complete
            break
        pos = text.find(old, pos + len(old))
    return numbers


def _listed(numbers: list[int], total: int) -> tuple[str, list[int]]:
    """The lines of `total` occurrences (`numbers`: the lines of the first ones, in order), each line
    once, as the error shows them, and that list; occurrences on lines not listed are counted."""
    distinct = list(dict.fromkeys(numbers))[:MAX_LISTED_LINES]
    covered = sum(n <= distinct[-1] for n in numbers) if distinct else 0
    shown = ", ".join(map(str, distinct))
    more = f", ... {total - covered} more" if total > covered else ""
    # The last listed line may hold more occurrences than were scanned.
    open_line = distinct[-1] if distinct and numbers[-1] == distinct[-1] and len(numbers) < total else None
    repeated = [n for n in distinct if numbers.count(n) > 1 or n == open_line]
    again = "; ".join(f"{'at least ' if n == open_line else ''}{numbers.count(n)} on line {n}" for n in repeated[:3])
    return f"[{shown}{more}]" + (f"; {again}" if again else ""), distinct


def _decide(
    text: AnyStr,
    candidates: list[_Candidate[AnyStr]],
    new: AnyStr,
    replace_all: bool,
    total: int | None = None,
    listed: list[int] | None = None,
) -> Plan[AnyStr]:
    """The plan for `candidates` (the first of `total` occurrences, if given), or NOT_UNIQUE
    (listing `listed`, the occurrences' lines, else the candidates')."""
    strategy = candidates[0].strategy
    count = total if total is not None else len(candidates)
    if strategy != EXACT and count > MAX_TOLERANT_CANDIDATES:
        count_text = f"more than {MAX_TOLERANT_CANDIDATES}"
    else:
        count_text = str(count)
    if count > 1 and not (replace_all and strategy in (EXACT, LINE_ENDINGS)):
        found = listed if listed is not None else line_numbers(text, (c.start for c in candidates))
        lines, numbers = _listed(found, count)
        if strategy == EXACT:
            raise ToolError(
                ErrorCode.NOT_UNIQUE,
                f"old_string found {count_text} times in the file (lines: {lines}). Without replace_all "
                "it must match exactly once: add more context (surrounding lines) to old_string to make it unique, "
                "or set replace_all=true to replace every occurrence.",
                lines=numbers,
            )
        raise ToolError(
            ErrorCode.NOT_UNIQUE,
            f"old_string is not in the file exactly; ignoring {IGNORED[strategy]} it was found "
            f"{count_text} times (lines: {lines}). Copy old_string exactly from the file, "
            "with more surrounding lines, so that it matches once.",
            lines=numbers,
        )
    replacements: list[Replacement[AnyStr]] = []
    prev_end = 0
    mixed = _mixed_breaks(text)
    for c in candidates:
        start, end = c.start, c.end
        given = c.text if c.text is not None else new
        body = _with_breaks(text, start, end, given) if mixed else with_line_breaks(given, _break_at(text, start, end))
        if not body:
            start, end = _whole_lines(text, start, end, prev_end)
        replacements.append(Replacement(start, end, body))
        prev_end = end
    return Plan(strategy, replacements)


_BREAKS = re.compile(r"\r\n|\r|\n")
_BYTE_BREAKS = re.compile(rb"\r\n|\r|\n")
_NEW_BREAKS = re.compile(r"(\r\n|\r|\n)")  # kept in the split: new_string's own breaks
_NEW_BYTE_BREAKS = re.compile(rb"(\r\n|\r|\n)")
MAX_ALIGNED = 1_000_000  # line pairs compared to align new_string with a region of mixed breaks


def _mixed_breaks(text: AnyStr) -> bool:
    """Whether the text's lines end in more than one way (else one break serves every new line)."""
    lf, cr, crlf = breaks(text)
    if cr not in text:
        return False
    pairs = text.count(crlf)
    return pairs != text.count(cr) or pairs != text.count(lf)


def _with_breaks(text: AnyStr, start: int, end: int, new: AnyStr) -> AnyStr:
    """`new` written in the line breaks of the region [start, end) it replaces: each line of it keeps the
    break of the line it stands for when the region's lines end differently (a lone CR among LFs)."""
    bodies, eols = _region_lines(text, start, end)
    if len(set(eols)) <= 1:
        return with_line_breaks(new, _break_at(text, start, end))
    # new_string's lines end at every break, as the region's do (a lone CR it writes ends a line too, so
    # the lines after it align with theirs); its LFs and CRLFs take the break of the line they stand for,
    # its lone CRs stay as written.
    split = (_NEW_BREAKS if isinstance(new, str) else _NEW_BYTE_BREAKS).split(new)
    parts, given = split[0::2], split[1::2]
    cr = breaks(new).cr
    fallback = next((eol for eol in reversed(eols) if eol), _break_at(text, start, end))
    pieces: list[AnyStr] = []
    for line, brk, i in zip(parts[:-1], given, _aligned(bodies, parts)[:-1], strict=True):
        pieces += (line, brk if brk == cr else eols[i] or fallback)
    pieces.append(parts[-1])
    return new[:0].join(pieces)


def _region_lines(text: AnyStr, start: int, end: int) -> tuple[list[AnyStr], list[AnyStr]]:
    """The lines [start, end) touches and the break that ends each in the file ("" at the end of the file)."""
    pattern = _BREAKS if isinstance(text, str) else _BYTE_BREAKS
    bodies, eols, pos = [], [], start
    for found in pattern.finditer(text, start, end):
        bodies.append(text[pos : found.start()])
        eols.append(found.group())
        pos = found.end()
    if pos < end or not eols:  # the region ends inside a line: that line's break follows it
        after = pattern.search(text, end)
        bodies.append(text[pos:end])
        eols.append(after.group() if after else text[:0])
    return bodies, eols


def _aligned(old: list[AnyStr], new: list[AnyStr]) -> list[int]:
    """For each line of `new`, the line of `old` it stands for: its counterpart where the two agree
    (ignoring whitespace), the line it replaces, else the line above where it was inserted."""
    if len(old) * len(new) > MAX_ALIGNED:
        return [min(j, len(old) - 1) for j in range(len(new))]
    from difflib import SequenceMatcher  # only for regions of mixed line breaks

    keys = SequenceMatcher(None, [line.strip() for line in old], [line.strip() for line in new], autojunk=False)
    chosen: list[int] = []
    for _tag, i1, i2, j1, j2 in keys.get_opcodes():
        chosen += [min(i1 + k, i2 - 1) if i2 > i1 else max(i1 - 1, 0) for k in range(j2 - j1)]
    return chosen


def _break_of(text: AnyStr, newline_at: int) -> AnyStr:
    lf, cr, crlf = breaks(text)
    return crlf if newline_at > 0 and text[newline_at - 1 : newline_at] == cr else lf


def _break_at(text: AnyStr, start: int, end: int) -> AnyStr:
    """The line break new lines get at [start, end): the region's own, else its line's, else the file's."""
    region, (lf, cr, crlf) = text[start:end], breaks(text)
    pairs = region.count(crlf)
    counts = {crlf: pairs, lf: region.count(lf) - pairs, cr: region.count(cr) - pairs}
    if any(counts.values()):
        return max(counts, key=counts.__getitem__)
    after = text.find(lf, end)
    if after >= 0:
        return _break_of(text, after)
    before = text.rfind(lf, 0, start)
    if before >= 0:
        return _break_of(text, before)
    return cr if cr in text else lf


def _whole_lines(text: AnyStr, start: int, end: int, floor: int) -> tuple[int, int]:
    """Deleting whole lines also deletes their line break, so no blank line is left behind."""
    lf, cr, crlf = breaks(text)
    if (start and text[start - 1 : start] != lf) or text[end - 1 : end] == lf:
        return start, end
    for eol in (lf, crlf):
        if text.startswith(eol, end):
            return start, end + len(eol)
    if end == len(text) and start > floor:  # the last line: take the break before it
        start -= 2 if start >= floor + 2 and text[start - 2 : start - 1] == cr else 1
    return start, end


# The levels of Edit's ladder between the exact match and the retries of old_string's ends, each a
# search for candidates (used only when unambiguous).
_TOLERANT = {LINE_ENDINGS: _line_endings, WHITESPACE: _whitespace, UNDECODABLE: _undecodable}
