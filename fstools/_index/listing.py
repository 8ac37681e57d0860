"""The files an index covers and the directories and ignore files whose change it must notice.

The files are what Grep's default search walks: `rg --files` with Grep's ignore rules
and excludes (no size limit: Glob lists big files too; Grep's limit is applied from the
recorded sizes), minus sensitive files. The directories are a superset of those rg
enters (every directory below the root except hidden and excluded ones): a create,
delete or rename changes one of their mtimes. The ignore files are the ones rg reads:
`.gitignore`, `.ignore`, `.rgignore` in those directories and above the root, the
repository's `info/exclude` and the global git ignore file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import lru_cache

from .._core.sensitive import SensitiveMatcher
from .._globs.globmatch import GlobSet
from .._walk.excludes import exclusion_globs, is_hidden
from .._walk.ignorefiles import IGNORE_NAMES as IGNORE_NAMES  # the index's users take it from here
from .._walk.ignorefiles import forbidden_link
from .._walk.rules import WalkRules
from .._walk.walkers import grep_walk
from .location import inside


@dataclass(frozen=True)
class Filters:
    """The file set's definition; an index answers only queries with the same one."""

    excludes: tuple[str, ...]
    sensitive_patterns: tuple[str, ...]
    max_filesize: int

    @classmethod
    def of(cls, sensitive_patterns: tuple[str, ...], max_filesize: int) -> Filters:
        """The file set of a build given its secret patterns (no context: `fstools index build`)."""
        return cls(exclusion_globs(SensitiveMatcher(sensitive_patterns)), tuple(sensitive_patterns), max_filesize)

    @classmethod
    def of_rules(cls, rules: WalkRules, max_filesize: int) -> Filters:
        """The file set a tool's walk rules give: the excludes its walks hand rg, its secret patterns."""
        return cls(rules.rg_excludes(), tuple(rules.ctx.sensitive_patterns), max_filesize)

    def as_json(self) -> dict[str, object]:
        return {
            "excludes": list(self.excludes),
            "sensitive_patterns": list(self.sensitive_patterns),
            "max_filesize": self.max_filesize,
        }

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Filters:
        excludes, patterns, size = data["excludes"], data["sensitive_patterns"], data["max_filesize"]
        assert isinstance(excludes, list) and isinstance(patterns, list) and isinstance(size, int)
        return cls(tuple(excludes), tuple(patterns), size)


def tree_files(
    root: str, filters: Filters, *, timeout: float = 120.0, max_depth: int | None = None, everything: bool = False
) -> list[str]:
    """Absolute paths of the files Grep's walk reaches below `root` (`_walk.walkers.grep_walk`), secrets
    left out (`everything`: ignored and hidden files too, as the probe after an empty result walks)."""
    paths = grep_walk(root, filters.excludes, timeout=timeout, max_depth=max_depth, everything=everything)
    secret = SensitiveMatcher(filters.sensitive_patterns).walker_split[1]
    return secret.exclude(paths) if secret else paths


@dataclass
class Tree:
    """Directories (with their lstat) and the ignore files found in them; `hidden_dirs`, the hidden
    directories (and all below them) that only the probe for ignored and hidden files walks."""

    dirs: dict[str, os.stat_result] = field(default_factory=dict)
    ignore_files: list[str] = field(default_factory=list)
    hidden_dirs: dict[str, os.stat_result] = field(default_factory=dict)
    # The ignore files' signatures, taken before rg reads them (a builder records these).
    ignore_sigs: dict[str, tuple[int, int, int, int]] = field(default_factory=dict)


def _pruned(name: str, patterns: GlobSet) -> bool:
    return is_hidden(name) or patterns.matches(name)


# Past this many ignored and hidden files, the index does not record them: the probe walks.
MAX_PROBE_FILES = 20_000


def probe_files(root: str, filters: Filters, indexed: list[str]) -> list[str] | None:
    """The files the probe after an empty result searches beyond the indexed ones: ignored and
    hidden files (secrets and excluded names left out), sorted; None when there are too many."""
    known = set(indexed)
    extra = sorted(p for p in tree_files(root, filters, everything=True) if p not in known)
    return extra if len(extra) <= MAX_PROBE_FILES else None


@lru_cache(maxsize=16)
def _name_patterns(filters: Filters) -> GlobSet:
    """The excludes that prune a directory by its name, in the glob dialect rg matches them in."""
    return GlobSet(g[1:] for g in filters.excludes if g.startswith("!") and "/" not in g)


def entered(name: str, filters: Filters) -> bool:
    """Whether walk_dirs goes into a directory of this name."""
    return not _pruned(name, _name_patterns(filters))


def walk_dirs(root: str, filters: Filters) -> Tree:
    """Every directory below `root` (itself included) that is not hidden or excluded by name, and
    apart the hidden ones that are not excluded by name."""
    patterns = _name_patterns(filters)
    tree = Tree()
    pending = [(root, False)]
    while pending:
        directory, hidden = pending.pop()
        try:
            (tree.hidden_dirs if hidden else tree.dirs)[directory] = os.lstat(directory)
            with os.scandir(directory) as it:
                for entry in it:
                    if entry.name in IGNORE_NAMES and not hidden:
                        tree.ignore_files.append(entry.path)
                    elif entry.is_dir(follow_symlinks=False) and not patterns.matches(entry.name):
                        pending.append((entry.path, hidden or is_hidden(entry.name)))
        except OSError:
            continue
    return tree


def ignore_files_above(root: str, rule_files: list[str]) -> list[str]:
    """The ignore files among `outside_rule_files` that are checked for links: those of the directories
    above the root and the repository's info/exclude. The global git ignore file is the user's own
    configuration (often a link into a dotfiles checkout): it is checked only when it lies in the tree."""
    return [
        p
        for p in rule_files
        if os.path.basename(p) in IGNORE_NAMES
        or p.endswith("/info/exclude")
        or (inside(p, root) and p != root + "/.git")
    ]


def refuse_ignore_links(root: str, filters: Filters, paths: list[str]) -> None:
    """ValueError when one of these ignore files is a link to a secret or out of the tree: rg would
    apply its lines to the listing, and the index would answer from a file set they shaped."""
    secret = SensitiveMatcher(filters.sensitive_patterns)
    for path in paths:
        try:
            reason = forbidden_link(path, lambda target: inside(target, root), secret.matches)
        except OSError:
            continue
        if reason is not None:
            raise ValueError(f"{path} is {reason}: remove the link to index {root} (Grep and Glob walk meanwhile)")
