"""rg's regex errors in terms of the pattern the caller wrote.

rg compiles the pattern wrapped as `(?:PATTERN)` and echoes that wrapper in its parse
errors, with carets counted in the wrapped text. The caller never wrote `(?:`: the echo is
unwrapped and the carets moved back under the caller's characters. Where the wrapper makes a
caret point somewhere the caller cannot see (an unclosed group is reported at the wrapper's
own parenthesis), or the pattern spans several lines, the excerpt is left out and the
message keeps rg's explanation.
"""

from __future__ import annotations

_INDENT = "    "
_WRAP = "(?:"
_FRAME = "~"
# Errors about parentheses count the wrapper's own: their position says nothing about the caller's.
_GROUP_ERRORS = ("unclosed group", "unopened group")


def _without_prefix(line: str) -> str:
    return line[4:] if line.startswith("rg: ") else line


def _caret_line(line: str, pattern: str) -> str | None:
    """The caret line moved under the unwrapped pattern, or None if a caret lies outside it."""
    marks = line[len(_INDENT) :]
    columns = [i for i, ch in enumerate(marks) if ch == "^"]
    if not line.startswith(_INDENT) or not columns or marks.strip("^ "):
        return None
    if min(columns) < len(_WRAP) or max(columns) >= len(_WRAP) + len(pattern):
        return None
    return _INDENT + marks[len(_WRAP) :]


def explain_regex_error(stderr: str, pattern: str) -> str:
    """rg's message about a pattern that does not compile, with the pattern as the caller wrote it."""
    lines = [_without_prefix(line) for line in stderr.strip().splitlines()]
    if any(line.startswith(_FRAME * 3) for line in lines):  # a multi-line pattern, shown in a frame
        inside = False
        kept = []
        for line in lines:
            if line.startswith(_FRAME * 3):
                inside = not inside
            elif not inside:
                kept.append(line)
        return "\n".join(kept)
    wrapped = _INDENT + _WRAP + pattern + ")"
    group_error = any(line.startswith("error: ") and line.endswith(_GROUP_ERRORS) for line in lines)
    out: list[str] = []
    for i, line in enumerate(lines):
        if line == wrapped:
            out.append(_INDENT + pattern)
        elif i > 0 and lines[i - 1] == wrapped:
            caret = None if group_error else _caret_line(line, pattern)
            if caret is not None:
                out.append(caret)
        else:
            out.append(line)
    return "\n".join(out)
