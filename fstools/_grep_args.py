"""What Grep asks rg: one query description, and the command line of each kind of rg run.

Every run starts with `--no-config` (a user's ripgreprc must not change results), gives
the pattern with `-e` (a pattern starting with `-` is not an option) and the path after
`--`. Default excludes and sensitive-file patterns become `--glob !pattern` overrides so
rg never even reads those files; they come after the caller's glob because rg lets the
last matching glob win.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from ._excludes import DEFAULT_EXCLUDES
from ._globmatch import glob_to_regex as _translate
from ._sensitive import SensitiveMatcher

_GLOB_META = re.compile(r"[*?\[\]{}]")


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


def _rg_glob(pattern: str) -> str | None:
    """A sensitive pattern as an rg exclusion glob, or None when rg's semantics differ.

    Our patterns with a `/` match trailing path components at any depth; rg anchors such
    globs at the search root, so they get a `**/` prefix. Absolute patterns are left to
    the post-filter.
    """
    if pattern.startswith("/"):
        return None
    if "/" in pattern and not pattern.startswith("**/"):
        pattern = "**/" + pattern
    return "!" + pattern


@dataclass(frozen=True)
class SensitivePlan:
    """How the sensitive patterns are enforced: rg exclusion globs, and what is left to check.

    A name pattern (no `/`) means the same to rg as to our matcher, so rg enforces it
    alone. A deny pattern an exemption could overlap (`.env.*` vs `!.env.example`) cannot
    be an rg glob; patterns with a `/` are anchored differently when the search root is
    inside them (a search of `~/.aws` sees `credentials`, not `.aws/credentials`). Those
    are `residual`: checked on every result path.
    """

    globs: tuple[str, ...]
    residual: tuple[str, ...]


@lru_cache(maxsize=32)
def sensitive_plan(sensitive_patterns: tuple[str, ...]) -> SensitivePlan:
    """rg `--glob` values for the default excludes and the secrets, plus the residual patterns."""
    allow = [p[1:] for p in sensitive_patterns if p.startswith("!")]
    globs = ["!" + name for name in DEFAULT_EXCLUDES]
    residual = []
    for deny in (p for p in sensitive_patterns if not p.startswith("!")):
        if any(_GLOB_META.search(a) or SensitiveMatcher([deny]).matches(a) for a in allow):
            residual.append(deny)
            continue
        glob = _rg_glob(deny)
        if glob is not None:
            globs.append(glob)
        if glob is None or "/" in deny:
            residual.append(deny)
    return SensitivePlan(tuple(dict.fromkeys(globs)), tuple(residual))


def _longest_literal(pattern: str) -> str:
    return max(_GLOB_META.split(pattern), key=len)


class SensitiveFilter:
    """Drops the secrets rg could not exclude by itself from result paths.

    Only the residual patterns are tried: first one search for their literal parts (a
    path holding none of them cannot match; about 0.4 µs), then two combined regexes
    (names against the last component, patterns with a `/` against the path); a hit is
    confirmed by the context's full matcher, exemptions included.
    """

    def __init__(self, matcher: SensitiveMatcher, residual: tuple[str, ...]) -> None:
        self._matcher = matcher
        names = [p for p in residual if "/" not in p]
        paths = [p for p in residual if "/" in p]
        self._names = re.compile("(?:%s)\\Z" % "|".join(map(_translate, names)), re.DOTALL) if names else None
        self._paths = (
            re.compile(
                "|".join(f"^(?:{_translate(p)})\\Z" if p.startswith("/") else f"(?:^|/)(?:{_translate(p)})\\Z" for p in paths),
                re.DOTALL,
            )
            if paths
            else None
        )
        literals = [_longest_literal(p) for p in residual]
        usable = literals and all(len(lit) >= 2 for lit in literals)
        self._literals = re.compile("|".join(map(re.escape, literals))) if usable else None

    def is_sensitive(self, path: str) -> bool:
        if self._literals is not None and self._literals.search(path) is None:
            return False
        hit = self._names is not None and self._names.match(path, path.rfind("/") + 1) is not None
        if not hit and self._paths is not None:
            hit = self._paths.search(path) is not None
        return hit and self._matcher.matches(path)


def _matcher_args(q: GrepQuery) -> list[str]:
    args: list[str] = []
    if q.case_insensitive:
        args.append("--ignore-case")
    if q.fixed_strings:
        args.append("--fixed-strings")
    if q.multiline:
        args += ["--multiline", "--multiline-dotall"]
    return args


def _filter_args(q: GrepQuery, *, ignore_rules: bool = True, size_limit: bool = True) -> list[str]:
    args: list[str] = []
    if q.hidden or not ignore_rules:
        args.append("--hidden")
    if not q.respect_gitignore or not ignore_rules:
        args.append("--no-ignore")
    if size_limit:
        args += ["--max-filesize", str(q.max_filesize)]
    if q.glob:
        args += ["--glob", q.glob]
    for name in q.types:
        args += ["--type", name]
    for glob in q.excludes:
        args += ["--glob", glob]
    return args


def _tail(q: GrepQuery, paths: Sequence[str] | None = None) -> list[str]:
    return ["-e", q.pattern, "--", *(paths if paths is not None else [q.root])]


def count_argv(rg: str, q: GrepQuery) -> list[str]:
    """Matching lines per file (`path NUL count`), one line per file as soon as it is searched."""
    return [rg, "--no-config", "--count", "--with-filename", "--null", "--line-buffered",
            *_matcher_args(q), *_filter_args(q), *_tail(q)]


def json_argv(
    rg: str, q: GrepQuery, paths: Sequence[str] | None = None, *, context: bool = False, max_count: int | None = None
) -> list[str]:
    """The JSON event stream, over the root or over explicit files (a page)."""
    args = [rg, "--no-config", "--json", *_matcher_args(q)]
    if context:
        args += ["--before-context", str(q.before), "--after-context", str(q.after)]
    if max_count is not None:
        args += ["--max-count", str(max_count)]
    return [*args, *_filter_args(q), *_tail(q, paths)]


def lines_argv(rg: str, q: GrepQuery) -> list[str]:
    """rg's line printer, one `path NUL` headed block per file, lines already `N> text` / `N  text`."""
    return [rg, "--no-config", "--line-number", "--heading", "--null",
            "--field-match-separator", "> ", "--field-context-separator", "  ",
            "--before-context", str(q.before), "--after-context", str(q.after),
            *_matcher_args(q), *_filter_args(q), *_tail(q)]


def probe_argv(rg: str, q: GrepQuery) -> list[str]:
    """Where the pattern occurs in files the search could not show: binary, ignored or hidden.

    `--binary` searches binary files instead of quitting at their first NUL;
    `--no-ignore --hidden` reaches what ignore rules hid. One match per file is enough.
    """
    return [rg, "--no-config", "--json", "--binary", "--max-count", "1",
            *_matcher_args(q), *_filter_args(q, ignore_rules=False), *_tail(q)]


def files_argv(rg: str, q: GrepQuery) -> list[str]:
    """Every file the search would consider, whatever its size (to find the oversized ones)."""
    return [rg, "--no-config", "--files", "--null", *_filter_args(q, size_limit=False), "--", q.root]


def type_list_argv(rg: str) -> list[str]:
    return [rg, "--no-config", "--type-list"]
