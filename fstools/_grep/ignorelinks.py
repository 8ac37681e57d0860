"""Grep's walks never apply an ignore file that is a link to a secret or out of the allowed directories.

rg follows a `.gitignore`, `.ignore` or `.rgignore` that is a symlink and applies its
target's lines as rules, so which files a search shows would depend on a file the agent
may not read. Before a search that walks the tree with ignore rules, Grep finds the ignore
files that are links (`linkscan`: a walk of directory entries remembered per directory, so
a later call costs one lstat per directory) and judges each by its resolved target
(`forbidden_link`). A forbidden one is put out of rg's reach before rg starts:

* in a directory below the searched one: that directory is not searched (`--glob !/dir`,
  so rg never enters it), and a warning names it;
* in the searched directory itself: rg uses no ignore file of that kind (`--no-ignore-vcs`
  for .gitignore, `--no-ignore-dot` for .ignore and .rgignore), and a warning says so;
* above the searched directory: `--no-ignore-parent` (rg still opens the ignore files above
  its root, but applies none of their rules);
* a repository's `info/exclude`, or the global git ignore file when it lies in the roots:
  `--no-ignore-exclude`, `--no-ignore-global`.

Cost (measured, CPU per Grep): one lstat per directory once the tree is remembered (+1% on
the Linux kernel's tree and on a 4.5k-file project), a full walk of directory entries on the
first call for a tree (+57 ms there, +3 ms on the project). Reading rg's own `--debug` log of
the ignore files it opens was measured too and not chosen: rg writes its log a piece at a
time (thousands of writes), +2% on the kernel's tree, +10% on the project, and ten times the
search's CPU on a tree of ignored build output. The check runs before rg starts: a link made
between it and rg's visit of that directory is applied for that one search.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from .._core.ignorefiles import IGNORE_NAMES, forbidden_link
from .._core.paths import is_within
from .._index.listing import outside_rule_files
from .command import GrepQuery
from .linkscan import linked_ignore_files

_EXCLUDE = "/.git/info/exclude"


@dataclass(frozen=True)
class LinkPolicy:
    """What an ignore file may link to: a file inside the allowed directories that is not a secret."""

    inside: Callable[[str], bool]
    secret: Callable[[str], bool]


@dataclass(frozen=True)
class _Finding:
    path: str
    reason: str


def _global_file(path: str) -> bool:
    """Whether rg read this file as the global git ignore file (any name: git's core.excludesFile)."""
    return os.path.basename(path) not in IGNORE_NAMES and not path.endswith(_EXCLUDE)


def _judge(paths: Iterable[str], policy: LinkPolicy) -> list[_Finding]:
    """The forbidden links among `paths` (one that vanished meanwhile is not read by rg either)."""
    findings: list[_Finding] = []
    for path in dict.fromkeys(paths):
        if _global_file(path) and not policy.inside(path):
            continue  # the user's own git configuration (often a link into a dotfiles checkout)
        try:
            reason = forbidden_link(path, policy.inside, policy.secret)
        except OSError:
            continue
        if reason is not None:
            findings.append(_Finding(path, reason))
    return findings


def _links(q: GrepQuery) -> list[str]:
    """The ignore files rg may read for q that are links: in the tree, above it, the global one."""
    # A caller's glob may reach into hidden directories (rg's overrides win over its hidden rule).
    inside = linked_ignore_files(q.root, hidden=q.hidden or q.glob is not None)
    around = [p for p in outside_rule_files(q.root) if os.path.basename(p) != ".git" and os.path.islink(p)]
    return [*around, *sorted(inside)]


_GLOB_SPECIAL = re.compile(r"([\\*?\[\]{}])")


def _remedy(q: GrepQuery, finding: _Finding) -> tuple[GrepQuery, str] | None:
    """q changed so that rg does not read (or, above the root, does not apply) the file; None if it already is."""
    directory, name = os.path.split(finding.path)
    what = f"{finding.path} is {finding.reason}"
    if name in IGNORE_NAMES and directory != q.root and is_within(directory, q.root):
        glob = "!/" + _GLOB_SPECIAL.sub(r"\\\1", os.path.relpath(directory, q.root))
        if glob in q.excludes:
            return None
        note = f"Not searched: {directory} ({what}; search that directory with respect_gitignore=false)"
        return replace(q, excludes=(*q.excludes, glob)), note
    if name in IGNORE_NAMES and directory == q.root:
        vcs = name == ".gitignore"
        flag, kind = ("--no-ignore-vcs", ".gitignore") if vcs else ("--no-ignore-dot", ".ignore/.rgignore")
        note = f"No {kind} rules were applied ({what})"
    elif name in IGNORE_NAMES and is_within(q.root, directory):
        flag, note = "--no-ignore-parent", f"No rules from ignore files above {q.root} were applied ({what})"
    elif finding.path.endswith(_EXCLUDE):
        flag, note = "--no-ignore-exclude", f"No rules from the repository's info/exclude were applied ({what})"
    else:
        flag, note = "--no-ignore-global", f"No rules from the global git ignore file were applied ({what})"
    if flag in q.ignore_flags:
        return None
    return replace(q, ignore_flags=(*q.ignore_flags, flag)), note


def keep_out(q: GrepQuery, policy: LinkPolicy) -> tuple[GrepQuery, list[str]]:
    """q with every forbidden ignore-file link out of rg's reach, and the warnings that say what was left out."""
    notes: list[str] = []
    left_out: list[str] = []
    for finding in _judge(_links(q), policy):
        if any(is_within(finding.path, d) for d in left_out):
            continue  # below a directory already left out (sorted: parents come first)
        remedy = _remedy(q, finding)
        if remedy is not None:
            excluded = q.excludes
            q, note = remedy
            notes.append(note)
            if q.excludes != excluded:
                left_out.append(os.path.dirname(finding.path))
    return q, notes
