"""new_string moved into the file's indentation when old_string matched it only ignoring indentation.

Models write new_string at old_string's indentation, which may differ from the file's (tabs
for spaces, a different depth, code pasted flush left). The matched lines pair old_string's
indentation with the file's; new_string follows the one shift between them, in levels of the
file's own indentation unit when old_string's nesting shows its unit, else by a constant, or
line by line when old_string's lines carry no structure at all.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

TAB_WIDTH = 4
MAX_REALIGNED_PAIRS = 1_000_000  # old lines x new lines aligned by difflib for a line-by-line re-indent


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


def reindent(pairs: list[tuple[str, str]], new_lines: list[str], content: list[str]) -> str | None:
    """Whole new lines moved into the file's indentation, given (given indent, file indent) pairs of
    the lines matched ignoring indentation; None if those differ by more than one constant shift."""
    return reindent_block(pairs, new_lines, False, content)


def reindent_block(
    pairs: list[tuple[str, str]], new_lines: list[str], mid_line: bool, content: list[str]
) -> str | None:
    """new_string moved into the file's indentation, or None if the matched lines' indentation
    does not differ from old_string's by one constant number of levels.

    When old_string's lines all share one indentation they say nothing about an indentation
    unit (a one-space offset is not a one-space unit): new_string is then shifted by the
    constant that separates them from the file's lines, or refused (None), never scaled.
    """
    if pairs and len({o for o, _ in pairs}) == 1:
        return _constant_shift(pairs, new_lines, mid_line, content)
    file_style = _file_style(pairs, content)
    our_style = _IndentStyle.of([o for o, _ in pairs] + [indent_of(n) for n in new_lines])
    ours, theirs = our_style or file_style, file_style or our_style
    if ours is None or theirs is None:  # no indentation anywhere
        return "\n".join(new_lines)
    shifts = {theirs.level(f)[0] - ours.level(o)[0] for o, f in pairs}
    if len(shifts) > 1:
        return _column_shift(pairs, new_lines, mid_line)
    shift = shifts.pop() if shifts else 0
    if shift and _already_shifted(pairs, new_lines, mid_line, ours, theirs):
        shift = 0
    return _moved_levels(new_lines, mid_line, shift, ours, theirs)


def _file_style(pairs: list[tuple[str, str]], content: list[str]) -> _IndentStyle | None:
    """The file's indentation style: from the matched lines, else the whole file; a unit that two lines
    or one suggest (one line at 8 spaces: 8, or 2 levels of 4?) yields to the file's usual step."""
    file_style = _IndentStyle.of(f for _, f in pairs) or _IndentStyle.of(map(indent_of, content))
    if file_style is not None and not file_style.tabs and len(pairs) < 3:
        step = _space_step(content)
        if step and file_style.unit % step == 0:
            file_style = _IndentStyle(False, step)
    return file_style


def _moved_levels(new_lines: list[str], mid_line: bool, shift: int, ours: _IndentStyle, theirs: _IndentStyle) -> str:
    """new_string's lines moved `shift` levels, from its style into the file's."""
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


def _column_shift(pairs: list[tuple[str, str]], new_lines: list[str], mid_line: bool) -> str | None:
    """new_string moved by the one number of columns that separates each of old_string's lines
    from the file's, all indented with spaces: an offset that is no whole level (one column, or
    six against a unit of four) says nothing about a unit, but the nesting old_string shows is
    the file's, so new_string keeps its own. None when the offsets differ or a line has tabs."""
    shifts = {len(f) - len(o) for o, f in pairs}
    if len(shifts) != 1 or any("\t" in o + f for o, f in pairs):
        return None
    shift = shifts.pop()
    body = [len(indent_of(line)) for n, line in enumerate(new_lines) if line.strip() and (n or not mid_line)]
    if body and min(body) == min(len(f) for _, f in pairs) != min(len(o) for o, _ in pairs):
        shift = 0  # new_string is written at the file's indentation already (old_string was not)
    out = []
    for n, line in enumerate(new_lines):
        ind = indent_of(line)
        if n == 0 and mid_line:  # goes after the indentation the file's line keeps
            out.append(line.lstrip(" \t"))
        elif not line.strip():
            out.append("")
        elif "\t" in ind or len(ind) + shift < 0:
            return None
        else:
            out.append(" " * (len(ind) + shift) + line[len(ind) :])
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


def reindent_lines(olines: list[str], flines: list[str], new_lines: list[str], mid_line: bool) -> str | None:
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


def _constant_shift(
    pairs: list[tuple[str, str]], new_lines: list[str], mid_line: bool, content: list[str]
) -> str | None:
    """new_string moved by the one shift from old_string's indentation to the file's lines' (None if
    the file's lines differ among themselves, or a line of new_string cannot be moved so)."""
    targets = {f for _, f in pairs}
    if len(targets) != 1:
        return None
    (base,), (target,) = {o for o, _ in pairs}, targets
    body = [indent_of(line) for n, line in enumerate(new_lines) if line.strip() and (n or not mid_line)]
    if body and len(base) != len(target) and min(body, key=len) == target:
        base = target  # new_string is written at the file's indentation already (old_string was not)
    relative = [indent_of(line)[len(base) :] for line in new_lines if line.strip() and indent_of(line).startswith(base)]
    out = []
    for n, line in enumerate(new_lines):
        if n == 0 and mid_line:  # goes after the indentation the file's line keeps
            out.append(line.lstrip(" \t"))
        elif not line.strip():
            out.append("")
        else:
            ind = indent_of(line)
            moved = _shifted(ind, base, target, relative, content)
            if moved is None:
                return None
            out.append(moved + line[len(ind) :])
    return "\n".join(out)


def _shifted(ind: str, base: str, target: str, relative: list[str], content: list[str]) -> str | None:
    """One line's indentation `ind`, written against `base`, moved to stand against `target`."""
    for pad in (" ", "\t"):
        if not (ind + base + target).strip(pad):  # all one kind: add the difference in columns
            width = len(ind) + len(target) - len(base)
            return pad * width if width >= 0 else None
    if not ind.startswith(base):
        return None  # less indented than old_string, in another kind of whitespace: no shift says where
    extra = ind[len(base) :]
    if not extra or not target or not (extra + target).strip(target[0]):
        return target + extra
    if target[0] == "\t":  # nested in spaces below a tab-indented line: in tabs, by new_string's own step
        step = math.gcd(*(len(r) for r in relative if r and not r.strip(" "))) or TAB_WIDTH
        levels, rest = divmod(len(extra.expandtabs(step)), step)
        return target + "\t" * levels + " " * rest
    return target + extra.expandtabs(_space_step(content) or TAB_WIDTH)
