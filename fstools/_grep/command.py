"""What Grep asks rg: one query description, and the command line of each kind of rg run.

Every run starts with `--no-config` (a user's ripgreprc must not change results), gives
the pattern with `-e` (a pattern starting with `-` is not an option) and the path after
`--`. Default excludes and sensitive-file patterns become `--glob !pattern` overrides so
rg never even reads those files while it walks; they come after the caller's glob because
rg lets the last matching glob win. A run over named files gets none: rg applies no glob to
a file it is named, and those files were chosen by a walk or the index that applied them.

rg matches a `--glob` that has a directory part (`src/**`) against the path relative to
its own working directory, so every run starts in the searched directory (`run_dir`):
the caller's glob is then relative to the searched `path`, whatever the process's cwd.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .._walk.ignorelinks import LinkPlan
    from .._walk.rules import WalkRules


@dataclass(frozen=True)
class GrepQuery:
    """A validated search: the pattern, the canonical root and every filter."""

    pattern: str
    root: str
    root_is_file: bool
    glob: str | None = None
    types: tuple[str, ...] = ()
    case_insensitive: bool = False
    fixed_strings: bool = False
    multiline: bool = False
    hidden: bool = False
    respect_gitignore: bool = True
    before: int = 0
    after: int = 0
    max_filesize: int = 10 * 1024 * 1024
    excludes: tuple[str, ...] = ()
    # rg switches that keep ignore files of some kind out of the search (`_walk.ignorelinks`).
    ignore_flags: tuple[str, ...] = ()
    # The rules of the directories above `root`, which rg 14 misapplies itself (`_walk.parents`):
    # rg reads none of them and gets this file of their rewritten rules instead (None: no rule applies).
    parent_ignore: str | None = None

    def keeping_out(self, plan: LinkPlan) -> GrepQuery:
        """This query with the ignore-file links `plan` forbids out of rg's reach: `--glob !/dir`
        overrides for the directories left out, `--no-ignore-*` switches for the rest."""
        excludes = [glob for glob in ("!" + g for g in plan.excludes) if glob not in self.excludes]
        flags = [flag for flag in plan.flags if flag not in self.ignore_flags]
        return replace(self, excludes=(*self.excludes, *excludes), ignore_flags=(*self.ignore_flags, *flags))


def for_walk(query: GrepQuery, rules: WalkRules) -> tuple[GrepQuery, list[str]]:
    """The query finished for a walk of its root, and the notes on ignore files it keeps out.

    A walk that reads ignore files must not apply one that is a link the rules forbid (a
    secret, out of the roots: `_walk.ignorelinks`), and rg 14 misapplies the rules of the
    directories above the root, so it gets them rewritten instead (`_walk.parents`). A query
    answered by the index needs neither: the index is never built over such a link, and goes
    stale when one appears.
    """
    if query.root_is_file or not query.respect_gitignore:
        return query, []
    # A caller's glob may reach into hidden directories (rg's overrides win over its hidden rule).
    hidden = query.hidden or query.glob is not None
    plan = rules.ignore_links(query.root, hidden=hidden)
    query = query.keeping_out(plan)
    flags = query.ignore_flags
    parents, switches = rules.parent_ignore(query.root, flags=flags, gitignore_outside=False, hidden=hidden)
    return replace(query, parent_ignore=parents, ignore_flags=(*query.ignore_flags, *switches)), list(plan.notes)


def run_dir(query: GrepQuery) -> str:
    """The working directory of the query's rg runs: the searched directory (a file's own directory)."""
    return os.path.dirname(query.root) if query.root_is_file else query.root


def _matcher_args(query: GrepQuery) -> list[str]:
    # --crlf: `$` matches before a CRLF line end too; Read shows such lines without their
    # `\r`, so a model's `x$` must find them.
    args: list[str] = ["--crlf"]
    if query.case_insensitive:
        args.append("--ignore-case")
    if query.fixed_strings:
        args.append("--fixed-strings")
    if query.multiline:
        args += ["--multiline", "--multiline-dotall"]
    return args


def _filter_args(
    query: GrepQuery, *, ignore_rules: bool = True, size_limit: bool = True, named: bool = False
) -> list[str]:
    """The walk's filters. `named`: rg is given files, not a directory to walk; it applies no
    `--glob` to a file it is named, so the excludes are left out (each costs its compile at
    every start: the secret patterns' alternations took ~1.7 ms of a 4 ms rg run). The files
    were chosen by a walk or an index that applied them."""
    args: list[str] = []
    if query.hidden or not ignore_rules:
        args.append("--hidden")
    if not query.respect_gitignore or not ignore_rules:
        args.append("--no-ignore")
    else:
        args += query.ignore_flags
        args.append("--no-ignore-parent")
        if query.parent_ignore is not None:
            args += ["--ignore-file", query.parent_ignore]
    if size_limit:
        args += ["--max-filesize", str(query.max_filesize)]
    if query.glob:
        args += ["--glob", query.glob]
    for name in query.types:
        args += ["--type", name]
    if not named:
        for glob in query.excludes:
            args += ["--glob", glob]
    return args


def _named(query: GrepQuery, paths: Sequence[str] | None) -> bool:
    return paths is not None or query.root_is_file


def _tail(query: GrepQuery, paths: Sequence[str] | None = None) -> list[str]:
    return ["-e", query.pattern, "--", *(paths if paths is not None else [query.root])]


def count_argv(rg: str, query: GrepQuery, paths: Sequence[str] | None = None) -> list[str]:
    """Matching lines per file (`path NUL count`), one line per file as soon as it is searched."""
    return [
        rg,
        "--no-config",
        "--count",
        "--with-filename",
        "--null",
        "--line-buffered",
        *_matcher_args(query),
        *_filter_args(query, named=_named(query, paths)),
        *_tail(query, paths),
    ]


def json_argv(
    rg: str,
    query: GrepQuery,
    paths: Sequence[str] | None = None,
    *,
    context: bool = False,
    max_count: int | None = None,
) -> list[str]:
    """The JSON event stream, over the root or over explicit files (a page)."""
    args = [rg, "--no-config", "--json", *_matcher_args(query)]
    if context:
        args += ["--before-context", str(query.before), "--after-context", str(query.after)]
    if max_count is not None:
        args += ["--max-count", str(max_count)]
    return [*args, *_filter_args(query, named=_named(query, paths)), *_tail(query, paths)]


def lines_argv(rg: str, query: GrepQuery, paths: Sequence[str] | None = None) -> list[str]:
    """rg's line printer, one `path NUL` headed block per file, lines already `N> text` / `N  text`."""
    return [
        rg,
        "--no-config",
        "--line-number",
        "--with-filename",  # rg leaves the heading out when it is given a single file
        "--heading",
        "--null",
        "--field-match-separator",
        "> ",
        "--field-context-separator",
        "  ",
        "--before-context",
        str(query.before),
        "--after-context",
        str(query.after),
        *_matcher_args(query),
        *_filter_args(query, named=_named(query, paths)),
        *_tail(query, paths),
    ]


def proposed_argv(rg: str, query: GrepQuery) -> list[str]:
    """The files that appear to match (`path NUL` each): the walk's proposal when rg cannot be confined."""
    return [
        rg,
        "--no-config",
        "--files-with-matches",
        "--null",
        *_matcher_args(query),
        *_filter_args(query),
        *_tail(query),
    ]


def probe_argv(rg: str, query: GrepQuery, paths: Sequence[str] | None = None) -> list[str]:
    """Where the pattern occurs in files the search could not show: binary, ignored or hidden.

    `--binary` searches binary files instead of quitting at their first NUL;
    `--no-ignore --hidden` reaches what ignore rules hid. One match per file is enough.
    """
    return [
        rg,
        "--no-config",
        "--json",
        "--binary",
        "--max-count",
        "1",
        *_matcher_args(query),
        *_filter_args(query, ignore_rules=False, named=_named(query, paths)),
        *_tail(query, paths),
    ]


def files_argv(rg: str, query: GrepQuery) -> list[str]:
    """Every file the search would consider, whatever its size (to find the oversized ones)."""
    from .._walk.walkers import rg_files_argv

    return rg_files_argv(rg, _filter_args(query, size_limit=False), query.root)


def type_list_argv(rg: str) -> list[str]:
    return [rg, "--no-config", "--type-list"]
