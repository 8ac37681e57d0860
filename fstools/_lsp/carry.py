"""Which of a server's errors after a change were already there before it.

An error before the change explains one after it with the same code and message on the
line the edit moved it to: unchanged above the changed lines, shifted by the lines added or
removed below them, anywhere in the new lines if it was inside the old ones. Each error
before explains one error after, at most (two new "x is not defined" where there was one
are one new error).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .protocol import ServerDiagnostic

ERROR = 1


@dataclass(frozen=True)
class LineWindow:
    """The changed lines: `start` (0-based, same in both texts), and where they end in each."""

    start: int
    old_end: int  # exclusive
    new_end: int

    def carried(self, line: int) -> tuple[int, int]:
        """The range of new lines (start, exclusive end) an old line can be on after the change."""
        if line < self.start:
            return line, line + 1
        if line >= self.old_end:
            shifted = line + self.new_end - self.old_end
            return shifted, shifted + 1
        return self.start, max(self.new_end, self.start + 1)


def line_window(before: str, after: str) -> LineWindow:
    """The lines that differ between `before` and `after` (common leading and trailing lines apart)."""
    old, new = before.split("\n"), after.split("\n")
    start = 0
    limit = min(len(old), len(new))
    while start < limit and old[start] == new[start]:
        start += 1
    tail = 0
    while tail < limit - start and old[len(old) - 1 - tail] == new[len(new) - 1 - tail]:
        tail += 1
    return LineWindow(start, len(old) - tail, len(new) - tail)


def introduced(
    before: Sequence[ServerDiagnostic], after: Sequence[ServerDiagnostic], window: LineWindow | None
) -> list[ServerDiagnostic]:
    """The errors of `after` that no error of `before` explains (`window` None: the text did not change)."""
    unused = [d for d in before if d.severity == ERROR]
    found = []
    for diagnostic in (d for d in after if d.severity == ERROR):
        match = next((old for old in unused if _explains(old, diagnostic, window)), None)
        if match is None:
            found.append(diagnostic)
        else:
            unused.remove(match)
    return found


def _explains(old: ServerDiagnostic, new: ServerDiagnostic, window: LineWindow | None) -> bool:
    if (old.code, old.message) != (new.code, new.message):
        return False
    if window is None:
        return old.line == new.line
    start, end = window.carried(old.line)
    return start <= new.line < end
