"""The tolerance levels of the change tools: each level's name (what a result's `match_strategy`
or `levels` says), the words a message uses for what it ignored, the one rule both ladders share
for bytes Read showed as U+FFFD, and each ladder as the tuple of its levels in the order tried.

Edit's ladder and ApplyPatch's stay different on purpose: Edit matches a string, so line endings
and the leading blank lines or missing final line break of old_string are its own levels; a
patch's hunk is whole lines, compared line by line, where typographic punctuation is a level of
its own (codex's `seek_sequence`). A looser level is tried only when no stricter one matches.
"""

from __future__ import annotations

import re

EXACT = "exact"
LINE_ENDINGS = "line_endings"
WHITESPACE = "whitespace"  # Edit's whole-line level; its matches say which of the three below
TRAILING_WHITESPACE = "trailing_whitespace"
INDENTATION = "indentation"
LINE_INDENTATION = "line_indentation"
UNICODE_PUNCTUATION = "unicode_punctuation"
UNDECODABLE = "undecodable_bytes"
LEADING_BLANK_LINES = "leading_blank_lines"
FINAL_LINE_BREAK = "final_line_break"

# Edit and MultiEdit: old_string exactly, then each level on the whole of old_string.
EDIT_LADDER = (EXACT, LINE_ENDINGS, WHITESPACE, UNDECODABLE, LEADING_BLANK_LINES, FINAL_LINE_BREAK)
# ApplyPatch: a hunk's lines against the file's, each pair compared by the level's key.
PATCH_LADDER = (EXACT, TRAILING_WHITESPACE, INDENTATION, UNICODE_PUNCTUATION, UNDECODABLE)

# What a tolerant match ignored, in a message's words ("matched ignoring whitespace").
IGNORED = {
    LINE_ENDINGS: "line endings",
    TRAILING_WHITESPACE: "whitespace",
    INDENTATION: "whitespace",
    LINE_INDENTATION: "whitespace",
    UNDECODABLE: "undecodable bytes",
    LEADING_BLANK_LINES: "leading blank lines",
    FINAL_LINE_BREAK: "the missing final line break",
}

# Read shows a byte its encoding cannot decode as U+FFFD; the text a change works on keeps the
# byte itself (a surrogate escape), so a line copied from Read must match it through this: a run
# of either stands for one U+FFFD.
STANDS_FOR_U_FFFD = "[\udc80-\udcff\ufffd]+"
_U_FFFD_RUN = re.compile(STANDS_FOR_U_FFFD)


def undecodable_pattern(copied: str) -> re.Pattern[str]:
    """The text `copied` from Read, each of its U+FFFD standing for the undecodable bytes it showed."""
    return re.compile(STANDS_FOR_U_FFFD.join(map(re.escape, copied.split("\ufffd"))))


def fold_undecodable(line: str) -> str:
    """`line` with each run of undecodable bytes (or of U+FFFD) read as one U+FFFD."""
    return _U_FFFD_RUN.sub("\ufffd", line)
