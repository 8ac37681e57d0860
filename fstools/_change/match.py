"""Where old_string is in a file: exactly, else ignoring line endings, else ignoring whitespace.

Models copy text out of Read's output, which hides CRs and can blur tabs and trailing
spaces, so an exact miss is retried tolerantly. A tolerant match is used only when it is
unambiguous, and the replacement is then written in the file's own line endings and
indentation. Edit and MultiEdit both plan their replacements here.

The exact match (`plan_exact`) runs alike on text and on the bytes of a bytewise encoding
(see BYTEWISE_CODECS): there old_string's bytes occur exactly where its text does, and line
breaks are the same bytes, so a large file need not be decoded to be edited.
"""

from __future__ import annotations

import math
import re
from array import array
from bisect import bisect_left, bisect_right
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import accumulate
from operator import itemgetter
from typing import AnyStr, Generic, TypeVar

from .._content.encodings import breaks
from .._content.spliced import Buffer
from .._core.errors import ErrorCode, ToolError
from .document import with_line_breaks

EXACT = "exact"
LINE_ENDINGS = "line_endings"
TRAILING_WHITESPACE = "trailing_whitespace"
INDENTATION = "indentation"
LINE_INDENTATION = "line_indentation"
UNDECODABLE = "undecodable_bytes"

MAX_LISTED_LINES = 20
SNIPPET_LINES = 30
SNIPPET_WIDTH = 300
FUZZY_SEARCH_LINES = 20_000
FUZZY_CUTOFF = 0.5  # least similarity (difflib ratio) a closest region needs
MAX_COUNTED_WORDS = 32  # old_string's words whose frequency in the file is counted
MAX_FUZZY_WORDS = 8  # the rarest of them, whose occurrences vote for windows
MAX_WORD_HITS = 200  # occurrences of one word that vote
MAX_FUZZY_WINDOWS = 40  # most voted windows scored with difflib
FUZZY_COMPARE_LINES = SNIPPET_LINES  # lines of each window compared
TAB_WIDTH = 4
# Bounds that keep every argument linear in the file: occurrences one replace_all may change,
# tolerant matches collected before the answer is "ambiguous", and the places in old_string a
# repeated line votes from when the closest region is sought.
MAX_REPLACEMENTS = 100_000
MAX_TOLERANT_CANDIDATES = 100
MAX_TOLERANT_TRIES = 1_000  # line runs whose indentation is compared (a failed re-indent is not a candidate)
MAX_KEY_VOTES = 8
MAX_COMPARED_LINES = 2_000  # old_string's first lines that look for the closest region
MAX_REALIGNED_PAIRS = 1_000_000  # old lines x new lines aligned by difflib for a line-by-line re-indent
_WORD = re.compile(r"\w+")
_LOOSE = {
    LINE_ENDINGS: "line endings",
    TRAILING_WHITESPACE: "whitespace",
    INDENTATION: "whitespace",
    LINE_INDENTATION: "whitespace",
    UNDECODABLE: "undecodable bytes",
}
# Read shows a byte its encoding cannot decode as U+FFFD; the text Edit works on keeps the
# byte itself (a surrogate escape), so a line copied from Read must match it through this.
_STANDS_FOR_U_FFFD = "[\udc80-\udcff\ufffd]+"


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
    for find in (_line_endings, _whitespace, _undecodable):
        candidates = find(text, old, new)
        if candidates:
            return _decide(text, candidates, new, replace_all)
    raise ToolError(ErrorCode.NOT_FOUND, describe_not_found(text, old))


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
    limit = total if replace_all else min(total, MAX_LISTED_LINES + 1)
    return _decide(text, _exact(text, old, limit), new, replace_all, total)


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
    pattern = re.compile(_STANDS_FOR_U_FFFD.join(map(re.escape, old.split("\ufffd"))))
    return [_Candidate(m.start(), m.end(), UNDECODABLE) for m in pattern.finditer(text)]


def indent_of(line: str) -> str:
    """The line's leading spaces and tabs."""
    return line[: len(line) - len(line.lstrip(" \t"))]


@dataclass(frozen=True)
class _IndentStyle:
    tabs: bool
    unit: int  # columns per level

    @classmethod
    def of(cls, indents: Iterable[str]) -> _IndentStyle | None:
        tabbed, widths = 0, []
        for ind in indents:
            if "\t" in ind:
                tabbed += 1
            elif ind:
                widths.append(len(ind))
        if not tabbed and not widths:
            return None
        if tabbed >= len(widths):
            return cls(True, TAB_WIDTH)
        return cls(False, math.gcd(*widths))

    def level(self, indent: str) -> tuple[int, int]:
        """(levels, leftover alignment columns) of an indentation string."""
        return divmod(len(indent.expandtabs(self.unit)), self.unit)

    def render(self, level: int, rest: int) -> str:
        return "\t" * level + " " * rest if self.tabs else " " * (level * self.unit + rest)


def _whitespace(text: str, old: str, new: str) -> list[_Candidate[str]]:
    """Whole-line matches that differ from old_string only in indentation or trailing whitespace."""
    olines = old.replace("\r\n", "\n").split("\n")
    keeps_break = len(olines) > 1 and olines[-1] == ""
    if keeps_break:
        olines.pop()
    keys = [line.strip() for line in olines]
    if not any(keys):
        return []
    mid_line = not indent_of(olines[0])  # copied from the first non-blank character of its line
    # "\nfoo": old_string starts with a line break, i.e. at the end of whatever line precedes foo.
    lead_break = len(olines) > 1 and olines[0] == ""
    if len(olines) > text.count("\n") + 1:
        return []  # more lines than the file has
    flines = text.split("\n")
    content = [line.removesuffix("\r") for line in flines]
    starts = list(accumulate((len(line) + 1 for line in flines), initial=0))
    last = len(flines) - (1 if keeps_break else 0)  # a matched block must end before this line
    k = len(olines)
    found: list[_Candidate[str]] = []
    new_lines = new.replace("\r\n", "\n").split("\n")
    # The first line is not compared when old_string opens with a line break (any line ends so).
    runs = _line_runs([line.strip() for line in content[:last]], keys[lead_break:])
    for tried, i in enumerate(r - lead_break for r in runs if r >= lead_break):
        if len(found) > MAX_TOLERANT_CANDIDATES or tried > MAX_TOLERANT_TRIES:
            break  # each try costs old_string's length: the count stays bounded, not the file x old_string
        pairs = [(indent_of(olines[j]), indent_of(content[i + j])) for j in range(k) if keys[j] and (j or not mid_line)]
        replacement = _reindent(pairs, new_lines, mid_line, content)
        strategy = TRAILING_WHITESPACE if all(o == f for o, f in pairs) else INDENTATION
        if replacement is None:
            replacement = _reindent_lines(olines, content[i : i + k], new_lines, mid_line)
            strategy = LINE_INDENTATION
        if replacement is None:
            continue
        start = starts[i] + (len(content[i]) if lead_break else len(indent_of(content[i])) if mid_line else 0)
        end = starts[i + k] if keeps_break else starts[i + k - 1] + len(content[i + k - 1])
        found.append(_Candidate(start, end, strategy, None if strategy == TRAILING_WHITESPACE else replacement))
    return found


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


def reindent(pairs: list[tuple[str, str]], new_lines: list[str], content: list[str]) -> str | None:
    """Whole new lines moved into the file's indentation, given (given indent, file indent) pairs of
    the lines matched ignoring indentation; None if those differ by more than one constant shift."""
    return _reindent(pairs, new_lines, False, content)


def _reindent(pairs: list[tuple[str, str]], new_lines: list[str], mid_line: bool, content: list[str]) -> str | None:
    """new_string moved into the file's indentation, or None if the matched lines' indentation
    does not differ from old_string's by one constant number of levels."""
    file_style = _IndentStyle.of(f for _, f in pairs) or _IndentStyle.of(map(indent_of, content))
    if file_style is not None and not file_style.tabs and len(pairs) < 3:
        # Two lines or one say little about the unit (one line at 8 spaces: 8, or 2 levels of 4?).
        step = _space_step(content)
        if step and file_style.unit % step == 0:
            file_style = _IndentStyle(False, step)
    our_style = _IndentStyle.of([o for o, _ in pairs] + [indent_of(n) for n in new_lines])
    ours, theirs = our_style or file_style, file_style or our_style
    if ours is None or theirs is None:  # no indentation anywhere
        return "\n".join(new_lines)
    shifts = {theirs.level(f)[0] - ours.level(o)[0] for o, f in pairs}
    if len(shifts) > 1:
        return None
    shift = shifts.pop() if shifts else 0
    if shift and _already_shifted(pairs, new_lines, mid_line, ours, theirs):
        shift = 0
    out = []
    for n, line in enumerate(new_lines):
        if n == 0 and mid_line:  # goes after the indentation the file's line keeps
            out.append(line.lstrip(" \t"))
            continue
        if not line.strip():
            out.append("")
            continue
        ind = indent_of(line)
        level, rest = ours.level(ind)
        out.append(theirs.render(max(level + shift, 0), rest) + line[len(ind) :])
    return "\n".join(out)


def _space_step(content: list[str]) -> int | None:
    """The file's usual indentation step in spaces: the commonest increase from one indented line to
    the next, among 2, 3, 4 and 8 (odd alignments, such as the " *" of block comments, do not count)."""
    steps: Counter[int] = Counter()
    prev = 0
    for line in content:
        if not line.strip():
            continue
        width = len(line) - len(line.lstrip(" "))
        if width - prev in (2, 3, 4, 8) and not line.startswith("\t"):
            steps[width - prev] += 1
        prev = width
    return steps.most_common(1)[0][0] if steps else None


def _already_shifted(
    pairs: list[tuple[str, str]], new_lines: list[str], mid_line: bool, ours: _IndentStyle, theirs: _IndentStyle
) -> bool:
    """Whether new_string is written at the file's indentation although old_string was not: its
    least indented line sits at the level of the file's matched lines, not at old_string's."""
    levels = [
        ours.level(indent_of(line))[0] for n, line in enumerate(new_lines) if line.strip() and (n or not mid_line)
    ]
    if not levels:
        return False
    file_level = min(theirs.level(f)[0] for _, f in pairs)
    return min(levels) == file_level != min(ours.level(o)[0] for o, _ in pairs)


def _reindent_lines(olines: list[str], flines: list[str], new_lines: list[str], mid_line: bool) -> str | None:
    """new_string indented line by line like the file lines it replaces, when old_string's lines
    all share one indentation (typically none: pasted flush-left against nested code) and so say
    nothing about structure. A line of new_string equal to a line of old_string takes the
    indentation of that file line; a changed line that of the line it replaces; an added line
    that of the line before it, plus whatever it has more than the new line before it."""
    body = range(1 if mid_line else 0, len(olines))
    if len({indent_of(olines[j]) for j in body if olines[j].strip()}) > 1:
        return None
    if len(olines) * len(new_lines) > MAX_REALIGNED_PAIRS:  # difflib's alignment grows with the product
        return None
    import difflib  # only when the constant-shift match failed

    okeys = [line.strip() for line in olines]
    nkeys = [line.strip() for line in new_lines]
    source: list[int | None] = [None] * len(new_lines)  # the old line each new line stands in for
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, okeys, nkeys, autojunk=False).get_opcodes():
        if tag in ("equal", "replace"):
            for n in range(j1, j2):
                source[n] = min(i1 + n - j1, i2 - 1)
    out: list[str] = []
    indent = ""
    for n, line in enumerate(new_lines):
        if n == 0 and mid_line:  # goes after the indentation the file's line keeps
            out.append(line.lstrip(" \t"))
            indent = indent_of(flines[0])
            continue
        if not line.strip():
            out.append("")
            continue
        j = source[n]
        if j is not None and flines[j].strip():
            indent = indent_of(flines[j])
        elif n:
            extra = len(indent_of(line)) - len(indent_of(new_lines[n - 1]))
            indent += indent_of(line)[-extra:] if extra > 0 else ""
        out.append(indent + line.lstrip(" \t"))
    return "\n".join(out)


def line_numbers(text: AnyStr, positions: Iterable[int]) -> list[int]:
    """1-based line numbers of sorted positions."""
    numbers, line, prev, lf = [], 1, 0, breaks(text).lf
    for pos in positions:
        line += text.count(lf, prev, pos)
        prev = pos
        numbers.append(line)
    return numbers


def _listed(numbers: list[int], total: int) -> str:
    shown = ", ".join(map(str, numbers[:MAX_LISTED_LINES]))
    more = f", ... {total - MAX_LISTED_LINES} more" if total > MAX_LISTED_LINES else ""
    return f"[{shown}{more}]"


def _decide(
    text: AnyStr, candidates: list[_Candidate[AnyStr]], new: AnyStr, replace_all: bool, total: int | None = None
) -> Plan[AnyStr]:
    """The plan for `candidates` (the first of `total` occurrences, if given), or NOT_UNIQUE."""
    strategy = candidates[0].strategy
    count = total if total is not None else len(candidates)
    if strategy != EXACT and count > MAX_TOLERANT_CANDIDATES:
        count_text = f"more than {MAX_TOLERANT_CANDIDATES}"
    else:
        count_text = str(count)
    if count > 1 and not (replace_all and strategy in (EXACT, LINE_ENDINGS)):
        numbers = line_numbers(text, (c.start for c in candidates[: MAX_LISTED_LINES + 1]))
        lines = _listed(numbers, count)
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
            f"old_string is not in the file exactly; ignoring {_LOOSE[strategy]} it was found "
            f"{count_text} times (lines: {lines}). Copy old_string exactly from the file, "
            "with more surrounding lines, so that it matches once.",
            lines=numbers,
        )
    replacements: list[Replacement[AnyStr]] = []
    prev_end = 0
    for c in candidates:
        start, end = c.start, c.end
        body = with_line_breaks(c.text if c.text is not None else new, _break_at(text, start, end))
        if not body:
            start, end = _whole_lines(text, start, end, prev_end)
        replacements.append(Replacement(start, end, body))
        prev_end = end
    return Plan(strategy, replacements)


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


def visible(line: str) -> str:
    """Whitespace made visible, so a model can see tabs vs spaces and trailing blanks."""
    return line.replace(" ", "·").replace("\t", "→").replace("\r", "␍")


def _closest_line(text: str, flines: list[str], olines: list[str]) -> int | None:
    """Start of the window of the file that best matches old_string, by whole stripped lines,
    else by similarity (files up to FUZZY_SEARCH_LINES lines only)."""
    keys = [line.strip() for line in olines]
    at: defaultdict[str, list[int]] = defaultdict(list)  # where each non-blank key is in old_string
    for j, key in enumerate(keys):
        if key and len(at[key]) < MAX_KEY_VOTES:
            at[key].append(j)
    votes: Counter[int] = Counter()
    for i, line in enumerate(map(str.strip, flines)):
        if line in at:
            votes.update(i - j for j in at[line])
    if votes:
        return min(votes, key=lambda i: (-votes[i], i))
    if len(flines) > FUZZY_SEARCH_LINES:
        return None
    return _similar_window(text, flines, keys)


def _similar_window(text: str, flines: list[str], keys: list[str]) -> int | None:
    """Start of the window most similar to old_string's stripped lines `keys`, or None below FUZZY_CUTOFF.

    Scoring every window (or every line) with difflib takes seconds on a large file, so only
    windows that share old_string's rarest words are scored: each occurrence of one of those
    words votes for the window it would sit in, weighted by the word's rarity, and the
    MAX_FUZZY_WINDOWS most voted are compared. Every step is bounded by a constant.
    """
    first_line: dict[str, int] = {}
    for j, key in enumerate(keys):
        for word in _WORD.findall(key):
            first_line.setdefault(word, j)
    counted = sorted(first_line, key=len, reverse=True)[:MAX_COUNTED_WORDS]  # longer words are rarer
    rarity = {word: text.count(word) for word in counted}
    rare = sorted((w for w in counted if rarity[w]), key=rarity.__getitem__)[:MAX_FUZZY_WORDS]
    if not rare:
        return None
    starts = list(accumulate((len(line) + 1 for line in flines), initial=0))
    votes: defaultdict[int, float] = defaultdict(float)  # weighted votes: not a Counter, whose counts are ints
    for word in rare:
        pos, hits = text.find(word), 0
        while pos >= 0 and hits < MAX_WORD_HITS:
            votes[max(bisect_right(starts, pos) - 1 - first_line[word], 0)] += 1 / rarity[word]
            pos, hits = text.find(word, pos + len(word)), hits + 1
    import difflib  # only on the not_found path
    import heapq

    width = min(len(keys), FUZZY_COMPARE_LINES)
    matcher = difflib.SequenceMatcher(None, autojunk=False)
    matcher.set_seq2("\n".join(keys[:width]))
    best, best_ratio = None, FUZZY_CUTOFF
    for start, _ in heapq.nlargest(MAX_FUZZY_WINDOWS, votes.items(), key=itemgetter(1)):  # as Counter.most_common
        matcher.set_seq1("\n".join(line.strip() for line in flines[start : start + width]))
        if matcher.real_quick_ratio() >= best_ratio and matcher.quick_ratio() >= best_ratio:
            ratio = matcher.ratio()
            if ratio > best_ratio or (ratio == best_ratio and best is None):
                best, best_ratio = start, ratio
    return best


def _numbered(lines: list[str], first: int) -> list[str]:
    return [f"{first + n:>6}\t{visible(line)[:SNIPPET_WIDTH]}" for n, line in enumerate(lines)]


def describe_not_found(text: str, old: str, *, what: str = "old_string") -> str:
    """The not_found message: the closest region of the file and `what` was given (old_string,
    or a patch hunk's lines), whitespace visible."""
    message, mid = f"{what} not found in the file.", what[:1].lower() + what[1:]
    olines = old.split("\n")
    flines = text.split("\n")
    best = _closest_line(text, flines, olines[:MAX_COMPARED_LINES])
    if best is None:
        return f"{message} Read the file and copy the exact text, including indentation and whitespace."
    lo = max(best - 1, 0)
    hi = min(best + len(olines) + 1, len(flines), lo + SNIPPET_LINES)
    legend = "(spaces shown as ·, tabs as →, carriage returns as ␍)"
    return "\n".join(
        [
            message,
            f"The closest region of the file, lines {lo + 1}-{hi} {legend}:",
            *_numbered(flines[lo:hi], lo + 1),
            f"{what} as given:",
            *("  " + visible(line)[:SNIPPET_WIDTH] for line in olines[:SNIPPET_LINES]),
            f"Copy {mid} exactly from the file (Read it again if it may have changed).",
        ]
    )
