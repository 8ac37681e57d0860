"""Ignore files the agent may not read: what walkers may quote of them, and which links they must not follow.

rg and fd quote a line of a `.gitignore`/`.ignore`/`.rgignore`/`.fdignore` they cannot
parse. When that file is a symlink (to a secret, or out of the allowed directories) or
lies outside them, the quote would show the agent a line of a file it may not read: the
message keeps the file and line number and drops the quoted text.

An ignore file that is a link to a secret or to a file out of the allowed directories
must not be applied at all (`forbidden_link`): its lines would decide which files a
search shows, and so tell the agent something about a file it may not read.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Iterable

# The ignore files rg reads in every directory it enters.
IGNORE_NAMES = (".gitignore", ".ignore", ".rgignore")
# Above the root, a new `.git` changes whether rg reads .gitignore at all.
ANCESTOR_NAMES = (*IGNORE_NAMES, ".git")

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


def forbidden_link(path: str, inside: Callable[[str], bool], secret: Callable[[str], bool]) -> str | None:
    """Why a walker must not read the ignore file at `path`: it is a symlink whose target is
    out of the allowed directories or a secret; None when it is no link or a harmless one.

    OSError when `path` cannot be examined (it is gone, or names no file).
    """
    if not stat.S_ISLNK(os.lstat(path).st_mode):
        return None
    target = os.path.realpath(path)
    if not inside(target):
        return "a link to a file outside the allowed directories"
    if secret(target):
        return "a link to a sensitive file"
    return None


def outside_rule_files(root: str) -> list[str]:
    """Files outside the tree whose existence or content changes rg's ignore rules inside it."""
    found = []
    path = os.path.dirname(root)
    while True:
        found += [os.path.join(path, name) for name in ANCESTOR_NAMES]
        parent = os.path.dirname(path)
        if parent == path:
            break
        path = parent
    from .parents import repository_of

    repo = repository_of(root)
    git = repo.common_dir if repo is not None else None  # a worktree's is the main repository's
    if git is not None:
        found.append(os.path.join(git, "info", "exclude"))
    config = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    found.append(os.path.join(config, "git", "ignore"))
    found.append(os.path.join(root, ".git"))
    return found
