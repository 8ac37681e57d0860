"""Walker messages that quote ignore files, and what an agent may see of them.

rg and fd quote a line of a `.gitignore`/`.ignore`/`.rgignore`/`.fdignore` they cannot
parse. When that file is a symlink (to a secret, or out of the allowed directories) or
lies outside them, the quote would show the agent a line of a file it may not read: the
message keeps the file and line number and drops the quoted text.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable

_IGNORE_MESSAGE = re.compile(
    r"^(?P<lead>rg: |\[fd error\]: )?(?P<path>/.*?/\.(?:gitignore|ignore|rgignore|fdignore)): line (?P<line>\d+): "
)
_GLOB_QUOTE = "error parsing glob '"


def _readable(path: str, inside: Callable[[str], bool]) -> bool:
    """Whether the agent could read this ignore file itself: a regular file (not a link) inside the roots."""
    try:
        return not os.path.islink(path) and inside(os.path.realpath(path))
    except OSError:
        return False


def _quote_holds(rest: str, line: str | None) -> bool:
    """Whether what a message quotes after `line N: ` is part of `line`, the ignore file's line as
    the sandbox reads it. rg quotes `error parsing glob '<glob>': <why>`, the glob being the line
    without its trailing blanks; anything else quoted is not vouched for."""
    if "'" not in rest:
        return True
    if line is None or not rest.startswith(_GLOB_QUOTE):
        return False
    quoted = rest[len(_GLOB_QUOTE) :].rpartition("': ")[0]  # all of the glob, whatever quotes it holds
    return bool(quoted) and quoted in line


def redact_ignore_messages(
    lines: Iterable[str], inside: Callable[[str], bool], line_of: Callable[[str, int], str | None] | None = None
) -> list[str]:
    """`lines` with the quoted text removed from messages about ignore files the agent may not read.

    `line_of(path, n)` is given for a walker that may have been led outside (no Landlock): the
    file it read may not be the one at its path now, so a quote stays only if that path's line
    `n`, read through the sandbox, holds it.
    """
    out = []
    for line in lines:
        m = _IGNORE_MESSAGE.match(line)
        if m is not None and (
            not _readable(m["path"], inside)
            or (line_of is not None and not _quote_holds(line[m.end() :], line_of(m["path"], int(m["line"]))))
        ):
            line = (
                f"{m['lead'] or ''}{m['path']}: line {m['line']}: not a valid glob "
                "(not shown: the ignore file is a link, or outside the allowed directories)"
            )
        out.append(line)
    return out
