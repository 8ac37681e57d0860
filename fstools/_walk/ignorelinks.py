"""Walks never apply an ignore file that is a link to a secret or out of the allowed directories.

rg and fd follow a `.gitignore`, `.ignore`, `.rgignore` or `.fdignore` that is a symlink and
apply its target's lines as rules, so which files a search or a listing shows would depend
on a file the agent may not read. Before a walk with ignore rules, Grep and Glob find the
ignore files that are links (`linkscan`: a walk of directory entries remembered per
directory, so a later call costs one lstat per directory) and judge each by its resolved
target (`forbidden_link`). `plan_links` says how to put a forbidden one out of the walker's
reach before it starts:

* in a directory below the walked one: that directory is left out (the anchored glob
  `/dir`, so the walker never enters it), and a warning names it;
* in the walked directory itself: no ignore file of that kind is used (`--no-ignore-vcs`
  for .gitignore, `--no-ignore-dot` for the others), and a warning says so;
* above the walked directory: `--no-ignore-parent` (rg still opens the ignore files above
  its root, but applies none of their rules);
* a repository's `info/exclude`, or the global git ignore file when it lies in the roots:
  `--no-ignore-exclude`, `--no-ignore-global`.

Cost (measured, CPU per Grep): one lstat per directory once the tree is remembered (+1% on
the Linux kernel's tree and on a 4.5k-file project), a full walk of directory entries on the
first call for a tree (about 90 ms there, 3 ms on the project). Reading rg's own `--debug`
log of the ignore files it opens was measured too and not chosen: rg writes its log a piece
at a time (thousands of writes), +2% on the kernel's tree, +10% on the project, and ten
times the search's CPU on a tree of ignored build output. The check runs before the walker
starts: a link made between it and the walker's visit of that directory is applied for that
one call.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from .._core.context import ExecutionContext
from .._core.paths import is_within, root_of
from .._core.permissions import denied_test
from .._core.spec import ToolSpec
from .ignorefiles import IGNORE_NAMES, forbidden_link, outside_rule_files
from .linkscan import linked_ignore_files

_EXCLUDE = "/.git/info/exclude"
# What a walker reads in each directory: rg the first three, fd all four.
_WALKER_NAMES = (*IGNORE_NAMES, ".fdignore")
_GLOB_SPECIAL = re.compile(r"([\\*?\[\]{}])")


@dataclass(frozen=True)
class LinkPolicy:
    """What an ignore file may link to: a file inside the allowed directories that is not a secret."""

    inside: Callable[[str], bool]
    secret: Callable[[str], bool]


def link_policy(ctx: ExecutionContext, tool: ToolSpec) -> LinkPolicy:
    """What an ignore file `tool`'s walker reads may link to: a file beneath the roots that the tool may show."""
    denied = denied_test(ctx, tool)
    return LinkPolicy(
        inside=lambda p: root_of(ctx, p) is not None,
        secret=lambda p: ctx.sensitive.matches(p) or (denied is not None and denied(p)),
    )


@dataclass(frozen=True)
class LinkPlan:
    """How a walk of a directory keeps forbidden ignore-file links out of the walker's reach."""

    excludes: tuple[str, ...] = ()  # directories left out, as globs anchored at the walked directory (`/dir`)
    flags: tuple[str, ...] = ()  # rg's --no-ignore-* switches
    notes: tuple[str, ...] = ()  # one warning per link kept out


@dataclass(frozen=True)
class _Finding:
    path: str
    reason: str


def _global_file(path: str) -> bool:
    """Whether the walker read this file as the global git ignore file (any name: git's core.excludesFile)."""
    return os.path.basename(path) not in _WALKER_NAMES and not path.endswith(_EXCLUDE)


def _judge(paths: Iterable[str], policy: LinkPolicy) -> list[_Finding]:
    """The forbidden links among `paths` (one that vanished meanwhile is not read by the walker either)."""
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


def _links_around(root: str) -> list[str]:
    """The rule files outside `root`'s tree a walker reads (above it, info/exclude, the global one) that are links."""
    return [p for p in outside_rule_files(root) if os.path.basename(p) != ".git" and os.path.islink(p)]


def _remedy(root: str, finding: _Finding) -> tuple[str, str, str]:
    """("exclude", glob, note) or ("flag", switch, note): what keeps the walker from the file."""
    directory, name = os.path.split(finding.path)
    what = f"{finding.path} is {finding.reason}"
    if name in _WALKER_NAMES and directory != root and is_within(directory, root):
        glob = "/" + _GLOB_SPECIAL.sub(r"\\\1", os.path.relpath(directory, root))
        return "exclude", glob, f"Not searched: {directory} ({what}; search it with respect_gitignore=false)"
    if name in _WALKER_NAMES and directory == root:
        vcs = name == ".gitignore"
        flag, kind = ("--no-ignore-vcs", ".gitignore") if vcs else ("--no-ignore-dot", ".ignore/.rgignore")
        return "flag", flag, f"No {kind} rules were applied ({what})"
    if name in _WALKER_NAMES and is_within(root, directory):
        return "flag", "--no-ignore-parent", f"No rules from ignore files above {root} were applied ({what})"
    if finding.path.endswith(_EXCLUDE):
        return "flag", "--no-ignore-exclude", f"No rules from the repository's info/exclude were applied ({what})"
    return "flag", "--no-ignore-global", f"No rules from the global git ignore file were applied ({what})"


def plan_links(root: str, *, hidden: bool, policy: LinkPolicy) -> LinkPlan:
    """What a walk of `root` (hidden directories too when `hidden`) must leave out so that it
    applies no ignore file that is a link `policy` forbids."""
    return _plan(root, [*_links_around(root), *sorted(linked_ignore_files(root, hidden=hidden))], policy)


def plan_links_here(directory: str, *, policy: LinkPolicy) -> LinkPlan:
    """The same for a listing of `directory` alone (one level: its own ignore files, `.fdignore`
    too, and those around it), with no walk of the tree below."""
    own = [os.path.join(directory, name) for name in _WALKER_NAMES]
    return _plan(directory, [*_links_around(directory), *(p for p in own if os.path.islink(p))], policy)


def _plan(root: str, links: list[str], policy: LinkPolicy) -> LinkPlan:
    excludes: list[str] = []
    flags: list[str] = []
    notes: list[str] = []
    left_out: list[str] = []
    for finding in _judge(links, policy):
        if any(is_within(finding.path, d) for d in left_out):
            continue  # below a directory already left out (sorted: parents come first)
        kind, value, note = _remedy(root, finding)
        chosen = excludes if kind == "exclude" else flags
        if value in chosen:
            continue
        chosen.append(value)
        if kind == "exclude":
            left_out.append(os.path.dirname(finding.path))
        notes.append(note)
    return LinkPlan(tuple(excludes), tuple(flags), tuple(notes))
