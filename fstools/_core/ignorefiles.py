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


def _readable(path: str, inside: Callable[[str], bool]) -> bool:
    """Whether the agent could read this ignore file itself: a regular file (not a link) inside the roots."""
    try:
        return not os.path.islink(path) and inside(os.path.realpath(path))
    except OSError:
        return False


def redact_ignore_messages(lines: Iterable[str], inside: Callable[[str], bool]) -> list[str]:
    """`lines` with the quoted text removed from messages about ignore files the agent may not read."""
    out = []
    for line in lines:
        m = _IGNORE_MESSAGE.match(line)
        if m is not None and not _readable(m["path"], inside):
            line = (
                f"{m['lead'] or ''}{m['path']}: line {m['line']}: not a valid glob "
                "(not shown: the ignore file is a link, or outside the allowed directories)"
            )
        out.append(line)
    return out
