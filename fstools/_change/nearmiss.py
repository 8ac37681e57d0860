"""A near miss explained: where in the file old_string (or a patch hunk) most nearly is, and how it differs.

The not_found message shows the closest region of the file next to the text as given, with
tabs, spaces and carriage returns made visible, so a model can copy the exact text. Finding
that region stays bounded on any file: whole-line votes first, then a similarity score of
the few windows that share old_string's rarest words.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter, defaultdict
from itertools import accumulate
from operator import itemgetter

SNIPPET_LINES = 30
SNIPPET_WIDTH = 300
FUZZY_SEARCH_LINES = 20_000
FUZZY_CUTOFF = 0.5  # least similarity (difflib ratio) a closest region needs
MAX_COUNTED_WORDS = 32  # old_string's words whose frequency in the file is counted
MAX_FUZZY_WORDS = 8  # the rarest of them, whose occurrences vote for windows
MAX_WORD_HITS = 200  # occurrences of one word that vote
MAX_FUZZY_WINDOWS = 40  # most voted windows scored with difflib
FUZZY_COMPARE_LINES = SNIPPET_LINES  # lines of each window compared
MAX_KEY_VOTES = 8
MAX_COMPARED_LINES = 2_000  # old_string's first lines that look for the closest region
_WORD = re.compile(r"\w+")


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
