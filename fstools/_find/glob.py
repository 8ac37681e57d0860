"""Glob: files whose path below a directory matches a glob, newest first.

Names with brackets (`file[1].txt`, Next.js's `app/[id]/page.tsx`) are found by the
pattern that spells them: when a pattern with `[...]` matches nothing, it is tried once
more with its brackets taken literally. `exclude` patterns are pruned by the walker when
they name a file or directory (`dist`, `*.min.js`), and matched against the path relative
to `path` when they have a directory part (`src/gen/**`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .._core import sandbox
from .._core.context import ExecutionContext
from .._core.errors import ErrorCode, ToolError
from .._core.hints import param
from .._core.outputs import NOTICE, TRUNCATED, WARNINGS, ResultField
from .._core.params import ToolParameter
from .._core.paths import resolve_path, root_of, within_roots
from .._core.permissions import authorize
from .._core.public import session, tool
from .._core.result import ToolResult
from .._globs.globmatch import MAGIC_CHARS, GlobError, byte_glob_superset, compile_glob, glob_to_regex
from .._walk.rules import walk_rules
from .._walk.walkers import Listing, WalkSpec, newest_first
from .indexed import index_listing

if TYPE_CHECKING:
    from .._index.status import IndexStatus

DEFAULT_LIMIT = 1000
_ABSOLUTE = re.compile(r"(?<![\w.])/[^\s:'\"]*")
MAX_PATTERN_LENGTH = 4096
MAX_EXCLUDE_CHARS = 65_536


@dataclass(frozen=True)
class GlobPlan:
    """Where to walk and what to match there.

    The pattern's leading literal directories are moved into `base` (`src/**/*.tsx` walks
    `src` for `**/*.tsx`), so the walker reads less and a pattern that climbs out of the
    allowed dirs is refused like any other path. `base` is None when that directory does
    not exist: nothing can match. `max_depth` is set when the pattern has no `**`.
    """

    base: str | None
    glob: str | None
    regex: str | None
    name_glob: str | None
    name_glob_exact: bool
    max_depth: int | None
    wants_hidden: bool
    root: str | None = None  # the directory relative patterns (and excludes) are rooted at
    case_sensitive: bool = True


def _components(pattern: str) -> list[str]:
    if not pattern.strip():
        raise ToolError(ErrorCode.INVALID_ARGUMENT, 'pattern must not be empty (use "**" or "*" to list files)')
    if len(pattern) > MAX_PATTERN_LENGTH:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"pattern is longer than {MAX_PATTERN_LENGTH} characters")
    if "\x00" in pattern:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, "pattern contains a NUL byte")
    if pattern.endswith("/"):
        pattern += "**"  # "src/" means the files below src
    return [c for c in pattern.split("/") if c not in ("", ".")]


def plan_glob(ctx: ExecutionContext, pattern: str, path: str | None, *, case_sensitive: bool = True) -> GlobPlan:
    """Split `pattern` into a directory to walk and a glob below it; raise ToolError when refused.

    Without case sensitivity only an absolute pattern's literal directories still name the
    walk's base exactly; a relative pattern is matched, all of it, below `path`.
    """
    parts = _components(pattern)
    start = "/" if os.path.isabs(pattern) else _directory(ctx, path)
    literal = 0
    while (
        (case_sensitive or start == "/") and literal < len(parts) - 1 and not MAGIC_CHARS.intersection(parts[literal])
    ):
        literal += 1
    rest = parts[literal:] or ["**"]
    if ".." in rest:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, "'..' may only come before the first wildcard of a pattern")
    base_path: str | None = start
    if literal or start == "/":
        base = resolve_path(ctx, os.path.join(start, *parts[:literal]), param="pattern")
        base_path = base.path if base.is_dir else None
    glob = "/".join(rest)
    regex = _regex(pattern, glob, case_sensitive)
    name_glob = byte_glob_superset(rest[-1]) if case_sensitive else None
    return GlobPlan(
        base=base_path,
        glob=None if regex is None else glob,
        case_sensitive=case_sensitive,
        regex=regex,
        name_glob=name_glob,
        # `*.c` or `**/*.c`: rg's name filter is the whole pattern when it was not widened.
        name_glob_exact=name_glob == rest[-1] and rest[:-1] in ([], ["**"]),
        max_depth=None if any("**" in c for c in rest) else len(rest),
        wants_hidden=any(c.startswith(".") for c in rest),
        root=None if start == "/" else start,
    )


def _directory(ctx: ExecutionContext, path: str | None) -> str:
    """The directory a relative pattern is matched below (the working directory by default)."""
    target = resolve_path(ctx, path or ctx.working_dir, param="path")
    if not target.exists:
        raise ToolError(ErrorCode.DIRECTORY_NOT_FOUND, f"Directory not found: {target.display}")
    if not target.is_dir:
        raise ToolError(ErrorCode.DIRECTORY_NOT_FOUND, f"Not a directory: {target.display}")
    return target.path


def _regex(pattern: str, glob: str, case_sensitive: bool) -> str | None:
    """The regex of the glob below the walk's base (None: `**` takes everything); a glob fstools cannot
    match is refused, naming the pattern as given."""
    if glob == "**":
        return None
    regex = glob_to_regex(glob)
    try:
        compile_glob(glob)
    except GlobError as exc:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"Invalid glob pattern {pattern!r}: {exc}") from None
    return regex if case_sensitive else f"(?i:{regex})"  # an inline group: valid in Python's re and in fd's Rust regex


def _shown_warnings(ctx: ExecutionContext, warnings: list[str]) -> list[str]:
    """The walker's messages, minus those naming a path outside the roots (a link's target, a loop out there)."""
    kept = []
    for line in warnings:
        # Where each named path lies (a link inside is inside), not where it leads.
        places = (
            os.path.join(os.path.realpath(os.path.dirname(p)), os.path.basename(p)) for p in _ABSOLUTE.findall(line)
        )
        if all(within_roots(ctx, place) for place in places):
            kept.append(line)
        else:
            kept.append("(a walker message about a path outside the allowed directories is not shown)")
    return kept


def literal_brackets(pattern: str) -> str | None:
    """`pattern` with its `[` and `]` escaped, so they match themselves; None without brackets."""
    if "[" not in pattern:
        return None
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            out.append(pattern[i : i + 2])
            i += 2
            continue
        out.append("\\" + c if c in "[]" else c)
        i += 1
    return "".join(out)


def _split_excludes(exclude: list[str] | None) -> tuple[tuple[str, ...], list[str]]:
    """The walker's name excludes (no `/`) and the path excludes matched below the root."""
    names: list[str] = []
    paths: list[str] = []
    if sum(len(item) for item in exclude or ()) > MAX_EXCLUDE_CHARS:
        # The walker gets them on its command line, which the kernel bounds.
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"exclude patterns hold more than {MAX_EXCLUDE_CHARS} characters")
    for item in exclude or ():
        stripped = item.strip("/")
        if not stripped.strip() or "\x00" in item or len(item) > MAX_PATTERN_LENGTH:
            raise ToolError(ErrorCode.INVALID_ARGUMENT, f"Invalid exclude pattern {item!r}: blank, too long or NUL")
        if "/" in stripped or byte_glob_superset(stripped) != stripped:
            # A name rg or fd would read otherwise (an unclosed `[` or `{` is literal here, an error
            # there; a class may need a multi-byte character) is matched here, at any depth.
            paths.append(stripped if "/" in stripped else f"**/{stripped}")
        else:
            names.append(stripped)
        try:
            compile_glob(stripped)
        except GlobError as exc:
            raise ToolError(ErrorCode.INVALID_ARGUMENT, f"Invalid exclude pattern {item!r}: {exc}") from None
    return tuple(names), paths


def _path_excluded(root: str, patterns: list[str]) -> Callable[[str], bool]:
    """Whether a file's path relative to `root`, or one of its directories, matches one of `patterns`."""
    matchers = [compile_glob(p).match for p in patterns]
    start = len(root.rstrip("/")) + 1

    def excluded(path: str) -> bool:
        rel = path[start:]
        cut = len(rel)
        while cut > 0:
            if any(match(rel, 0, cut) for match in matchers):
                return True
            cut = rel.rfind("/", 0, cut)
        return False

    return excluded


def _beneath_roots(ctx: ExecutionContext, page: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The page without paths that are not files beneath the roots now (checked through the
    sandbox): an unconfined walker may have listed a directory swapped in from outside."""
    kept = []
    for path, mtime in page:
        canonical = os.path.realpath(path)
        root = root_of(ctx, canonical)
        try:
            if root is not None and sandbox.stat_beneath(root, canonical):
                kept.append((path, mtime))
        except OSError:
            continue
    return kept


# The walker's name excludes, and the path excludes matched in Python.
Excludes = tuple[tuple[str, ...], list[str]]


def _walk(
    ctx: ExecutionContext,
    plan: GlobPlan,
    hidden: bool,
    respect_gitignore: bool,
    follow_symlinks: bool,
    excludes: Excludes,
) -> tuple[Listing, IndexStatus]:
    """The files `plan` matches, minus links out of the roots, secrets, denied paths and `excludes`,
    and metadata["index"]: from the search index when it holds this walk's files."""
    assert plan.base is not None
    rules = walk_rules(ctx, glob.spec)
    hidden = hidden or plan.wants_hidden
    following = rules.following(plan.base, follow_symlinks)
    listing, index_status = index_listing(
        ctx,
        rules,
        plan.base,
        plan.regex,
        glob=plan.glob,
        glob_ignore_case=not plan.case_sensitive,
        hidden=hidden,
        respect_gitignore=respect_gitignore,
        follow_symlinks=following.follow,
        name_excludes=excludes[0],
    )
    if listing is not None:  # an index that answered holds no forbidden ignore-file link
        listing.warnings[:0] = following.notes
    else:
        spec = WalkSpec(
            base=plan.base,
            glob=plan.glob,
            regex=plan.regex,
            name_glob=plan.name_glob,
            name_glob_exact=plan.name_glob_exact,
            max_depth=plan.max_depth,
            hidden=hidden,
            respect_gitignore=respect_gitignore,
            excludes=excludes[0],
            glob_ignore_case=not plan.case_sensitive,
            roots=ctx.roots,
            root=root_of(ctx, plan.base),
        )
        listing = rules.walk(spec, following, timeout=ctx.timeout)
    rules.keep_visible(listing, plan.base, following)
    if excludes[1]:
        excluded = _path_excluded(plan.root or plan.base, excludes[1])
        listing.keep([p for p in listing.paths if not excluded(p)])
    return listing, index_status


@tool(
    name="Glob",
    description=(
        'Finds files by name pattern: "**/*.py", "src/**/*.{ts,tsx}", "*.md" (top level only), `?`, `[abc]`, '
        '`[!abc]`; a name with brackets ("app/[id]/page.tsx") is found too. Relative patterns start at `path`. '
        "Returns absolute file paths, newest first (at most limit; a final line says when more matched), "
        "leaving out hidden and .gitignore'd files and folders such as .git, node_modules, __pycache__, .venv. "
        "Grep searches contents."
    ),
    parameters=(
        ToolParameter("pattern", "string", "The glob pattern", required=True),
        ToolParameter("path", "string", "Directory to search (default: working directory)", path=True),
        ToolParameter(
            "limit", "integer", "Most paths returned (the newest)", default=DEFAULT_LIMIT, minimum=1, maximum=100000
        ),
        ToolParameter("hidden", "boolean", "Include hidden files and folders (names starting '.')", default=False),
        ToolParameter("respect_gitignore", "boolean", "Leave out files matched by .gitignore/.ignore", default=True),
        ToolParameter(
            "follow_symlinks", "boolean", "Follow symlinks (never outside the allowed directories)", default=False
        ),
        ToolParameter(
            "case_sensitive", "boolean", "Match letter case exactly (false: *.txt also finds NOTES.TXT)", default=True
        ),
        ToolParameter(
            "exclude",
            "array",
            "Globs to leave out: a name anywhere (`dist`, `*.min.js`), or a path below `path` (`src/gen/**`)",
            item_type="string",
        ),
    ),
    cli_help=(
        "Print the files matching PATTERN (e.g. '**/*.py', 'src/**/*.{ts,tsx}') under PATH (default: the "
        "current directory), newest first. Quote the pattern so that the shell leaves it alone. Hidden and "
        "git-ignored files are left out unless --hidden / --no-respect-gitignore."
    ),
    read_only=True,
    results=(
        ResultField("pattern", "string", "The glob pattern", always=True),
        ResultField("path", ("string", "null"), "The directory searched (null: the pattern's base is missing)"),
        ResultField("limit", "integer", "The limit of the call", always=True),
        ResultField("count", "integer", "All matching files", always=True),
        ResultField("returned", "integer", "Paths returned (the newest)", always=True),
        ResultField("files", "array", "The paths returned, newest first (the output without its notice)", always=True),
        TRUNCATED,
        ResultField("backend", ("string", "null"), "What listed the files"),
        ResultField(
            "index",
            "string",
            'The search index: "used", or why the call walked instead (off, none, options, not a git work tree, '
            "stale, ...)",
            always=True,
        ),
        ResultField("timed_out", "boolean", "The listing stopped at the time limit"),
        ResultField(
            "literal_brackets",
            "boolean",
            "The pattern's [brackets] were taken literally: as classes they matched nothing",
        ),
        NOTICE,
        WARNINGS,
    ),
)
def glob(
    pattern: str,
    path: str | None = None,
    *,
    limit: int = DEFAULT_LIMIT,
    hidden: bool = False,
    respect_gitignore: bool = True,
    follow_symlinks: bool = False,
    case_sensitive: bool = True,
    exclude: list[str] | None = None,
    ctx: ExecutionContext | None = None,
) -> ToolResult:
    """Find files whose paths match a glob pattern, newest first."""
    ctx = session(ctx)
    plan = plan_glob(ctx, pattern, path, case_sensitive=case_sensitive)
    excludes = _split_excludes(exclude)
    meta: dict[str, object] = {"pattern": pattern, "path": plan.base, "limit": limit}
    listing = None
    index_status: IndexStatus = "none"  # no directory to walk: no index covers it
    if plan.base is not None:
        authorize(ctx, glob.spec, plan.base)
        listing, index_status = _walk(ctx, plan, hidden, respect_gitignore, follow_symlinks, excludes)
    literal = literal_brackets(pattern)
    if literal is not None and (listing is None or not listing.paths):
        # `file[1].txt`, `app/[id]/page.tsx`: the class matched nothing; the name may be literal.
        retry = plan_glob(ctx, literal, path, case_sensitive=case_sensitive)
        if retry.base is not None:
            authorize(ctx, glob.spec, retry.base)
            found, found_status = _walk(ctx, retry, hidden, respect_gitignore, follow_symlinks, excludes)
            if found.paths:
                listing, meta["path"], meta["literal_brackets"] = found, retry.base, True
                index_status = found_status
    meta["index"] = index_status
    if listing is None:
        return ToolResult.ok("", count=0, returned=0, truncated=False, backend=None, files=[], **meta)
    top = newest_first(listing, limit)
    if not listing.confined:
        top = _beneath_roots(ctx, top)
    count = len(listing.paths)
    warnings = _shown_warnings(ctx, listing.warnings)
    extra: dict[str, object] = {"warnings": warnings} if warnings else {}
    if listing.timed_out:
        extra["timed_out"] = True
    files = [p for p, _ in top]
    lines = list(files)
    if count > len(top):
        notice = (
            f"(Showing the {len(top)} newest of {count} matching files: "
            f"narrow the pattern or raise {param(ctx, 'limit')}.)"
        )
        extra["notice"] = notice
        lines.append(notice)  # the output's last line, as Read's and LS's notices are
    return ToolResult.ok(
        "\n".join(lines),
        files=files,
        count=count,
        returned=len(top),
        truncated=count > len(top),
        backend=listing.backend,
        **meta,
        **extra,
    )
