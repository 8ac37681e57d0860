"""Which errors of the text after a change were not in the text before it.

The change is seen as one window: the texts share a prefix and a suffix, and differ between
(for several edits, the window spans them all). A position before the window keeps its
offset, one after it shifts by the change in length, and one inside it (or on its edge) may
now be anywhere in the new window. An error before the change, carried through that mapping,
explains every error after the change of the same kind (missing token or unexpected text)
that overlaps it: tree-sitter's error recovery may grow, shrink or move an error node around
the change, and such an error was there before, unless it now starts in the changed text.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .problems import Problem


@dataclass(frozen=True)
class Window:
    """Bytes [start, old_end) of the text before became [start, new_end) of the text after."""

    start: int
    old_end: int
    new_end: int

    def span(self, offset: int, *, low: bool) -> int:
        """Where a before-offset lies after the change: its lowest (`low`) or highest possible place."""
        if offset < self.start:
            return offset
        if offset > self.old_end:
            return offset + self.new_end - self.old_end
        return self.start if low else self.new_end

    def contains_new(self, offset: int) -> bool:
        """Whether an after-offset is in (or on the edge of) the changed window."""
        return self.start <= offset <= self.new_end


def window(before: bytes, after: bytes) -> Window:
    """The window the texts differ in, from their common prefix and suffix (C-speed comparisons)."""
    limit = min(len(before), len(after))
    prefix = _common(limit, lambda n: before[:n] == after[:n])
    room = limit - prefix
    suffix = _common(room, lambda n: n == 0 or before[len(before) - n :] == after[len(after) - n :])
    return Window(prefix, len(before) - suffix, len(after) - suffix)


def _common(limit: int, same: object) -> int:
    """The largest n <= limit with same(n), for a predicate true up to some n and false after."""
    assert callable(same)
    low, high = 0, limit
    while low < high:
        mid = (low + high + 1) // 2
        if same(mid):
            low = mid
        else:
            high = mid - 1
    return low


def introduced(before: list[Problem], after: list[Problem], changed: Window) -> list[Problem]:
    """The problems after the change that no problem before it explains.

    A missing token floats: tree-sitter puts it after the last token it could still attach,
    so text added after that token moves it. Missing tokens no earlier one explains by place
    are matched, one for one, with earlier ones of the same message still unmatched: only
    the surplus was introduced. An unexpected-text error that spans the start of the change
    is placed there: the parser went wrong where the text changed.
    """
    carried = [(changed.span(p.start, low=True), changed.span(p.end, low=False), p) for p in before]
    unexplained = [p for p in after if not any(_explains(c, p, changed) for c in carried)]
    spare = Counter(p.message for p in before if p.missing) - Counter(
        p.message for p in after if p.missing and p not in unexplained
    )
    found = []
    for problem in unexplained:
        if problem.missing and spare[problem.message] > 0:
            spare[problem.message] -= 1
            continue
        found.append(_at_change(problem, changed))
    return found


def _at_change(problem: Problem, changed: Window) -> Problem:
    if problem.missing or not problem.start < changed.start <= problem.end:
        return problem
    return Problem(changed.start, problem.end, problem.message)


def _explains(carried: tuple[int, int, Problem], problem: Problem, changed: Window) -> bool:
    """Same kind, overlapping, and starting on the same side of the change: an error that now
    starts in the changed text, or before it when it started after it, grew across the change
    and is the change's; one that only swallowed the changed text (an appended comment, say)
    still starts where it did."""
    start, end, earlier = carried
    if earlier.missing != problem.missing or problem.start > end or problem.end < start:
        return False
    if start > changed.new_end >= problem.start:
        return False
    return not changed.contains_new(problem.start) or _touches(changed, start, end)


def _touches(changed: Window, start: int, end: int) -> bool:
    return start <= changed.new_end and end >= changed.start


def first_introduced(before: Problem | None, after: Problem | None, changed: Window) -> Problem | None:
    """For parsers that stop at the first error: the error after the change, if the change made it.

    Everything before the first error of the old text was valid; an error of the new text
    that comes earlier than where that one lies now (or any error, when the old text was
    valid) is the change's doing. One at or past it may be the same error: not blamed.
    """
    if after is None:
        return None
    if before is None:
        return after
    if after.start < changed.span(before.start, low=True):
        return after
    return None
