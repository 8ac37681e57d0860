"""Grep: search file contents with rg, paged in a stable order."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._core.context import ExecutionContext
from .._core.errors import ErrorCode, ToolError
from .._core.hardlinks import hard_links_warning
from .._core.hints import setting
from .._core.outputs import NOTICE, TRUNCATED, WARNINGS, ResultField, page_notice
from .._core.params import ToolParameter
from .._core.paths import resolve_path
from .._core.permissions import authorize
from .._core.public import session, tool
from .._core.result import ToolResult

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .._index.status import IndexStatus
    from .._walk.rules import WalkRules
    from .command import GrepQuery
    from .results import FileHit
    from .runs import SearchOutcome
    from .seams import CandidateSource, SearchBackend

DEFAULT_HEAD_LIMIT = 100
# Context lines per side: more than any screen, and it keeps rg's argv and buffers sane.
MAX_CONTEXT = 10_000
# One argument of a child's command line may hold at most 128 KiB on Linux (MAX_ARG_STRLEN):
# past that rg cannot even start. The bounds stay well below, and say so.
MAX_PATTERN_BYTES = 65_536
MAX_GLOB_CHARS = 4096
MAX_TYPES = 64  # rg knows a few hundred; each becomes two arguments
OUTPUT_MODES = ("files_with_matches", "content", "count")
# Paths listed per kind of skipped file; the counts are complete.
_EXAMPLES = 20


def _types(value: str | None) -> tuple[str, ...]:
    if value and len(value) > MAX_GLOB_CHARS:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"type is longer than {MAX_GLOB_CHARS} characters")
    types = tuple(t for t in re.split(r"[,\s]+", value) if t) if value else ()
    if len(types) > MAX_TYPES:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"type names more than {MAX_TYPES} file types")
    return types


def _listing(paths: list[str]) -> str:
    more = f" and {len(paths) - _EXAMPLES} more" if len(paths) > _EXAMPLES else ""
    return ", ".join(paths[:_EXAMPLES]) + more


def _report_skipped(ctx: ExecutionContext, out: SearchOutcome, query: GrepQuery) -> tuple[dict[str, Any], list[str]]:
    """Metadata counts (None: not checked) and warnings for what the search could not show."""
    warnings: list[str] = []
    if out.timed_out:
        warnings.append(f"Search timed out after {ctx.timeout:g}s: results and totals cover only what was found")
    if out.unsearched:
        warnings.append(f"{out.unsearched} file(s) that may match were not searched before the time ran out")
    warnings += out.failures[:_EXAMPLES]
    changed = len(out.changed) + out.changed_elsewhere
    if changed:
        named = f": {_listing(out.changed)}" if out.changed else ""
        warnings.append(
            f"{changed} file(s) changed while the search ran (gone, replaced by something that is not a file, or "
            f"rewritten between its steps): they are missing from the results, or their lines may not match the "
            f"counts; search again to see them as they are now{named}"
        )
    if out.unreadable:
        warnings.append(f"Could not read {len(out.unreadable)} path(s): " + "; ".join(out.unreadable[:_EXAMPLES]))
    warnings += out.ignore_warnings[:_EXAMPLES]
    warnings += out.notices[:_EXAMPLES]
    if out.binary:
        warnings.append(
            f"{len(out.binary)} binary file(s) contain the pattern and are not shown: {_listing(out.binary)}"
        )
    if out.ignored:
        switches = [
            setting(ctx, name, value)
            for name, value, on in (
                ("respect_gitignore", False, query.respect_gitignore),
                ("hidden", True, not query.hidden),
            )
            if on
        ]
        warnings.append(
            f"{len(out.ignored)} file(s) skipped by ignore rules or as hidden contain the pattern "
            f"(search them with {' and '.join(switches)}): {_listing(out.ignored)}"
        )
    if out.too_large:
        warnings.append(
            f"{len(out.too_large)} file(s) larger than {query.max_filesize} bytes were not searched: "
            f"{_listing(out.too_large)}"
        )
    if out.capped:
        from .runs import MAX_ALL_LINES_BYTES

        warnings.append(
            f"The matching lines exceed {MAX_ALL_LINES_BYTES // (1024 * 1024)} MiB: only the first page is shown "
            "(narrow the pattern, or page with head_limit and offset)"
        )
    if out.probed and not out.probe_complete:
        warnings.append("The check for skipped files ran out of time; its counts are partial")

    def count(paths: list[str]) -> int | None:
        return len(paths) if out.probed or paths else None

    skipped = {
        "binary": count(out.binary),
        "ignored": count(out.ignored),
        "too_large": count(out.too_large),
        "unreadable": len(out.unreadable),
        "changed": changed,
        "unsearched": out.unsearched,
    }
    return skipped, warnings


def _validate(pattern: str, glob: str | None) -> None:
    """Refuse what rg could not take: an empty pattern, NUL bytes, a pattern or glob past its bound."""
    if not pattern:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, "pattern must not be empty")
    if "\x00" in pattern or (glob and "\x00" in glob):
        raise ToolError(ErrorCode.INVALID_ARGUMENT, "pattern and glob must not contain NUL bytes")
    if len(pattern.encode("utf-8", "surrogateescape")) > MAX_PATTERN_BYTES:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"pattern is longer than {MAX_PATTERN_BYTES} bytes")
    if glob and len(glob) > MAX_GLOB_CHARS:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"glob is longer than {MAX_GLOB_CHARS} characters")


def _search(
    ctx: ExecutionContext,
    query: GrepQuery,
    rules: WalkRules,
    *,
    content: bool,
    offset: int,
    head_limit: int,
    line_numbers: bool,
    asked: tuple[Sequence[str] | None, IndexStatus] | None = None,
) -> tuple[SearchOutcome, IndexStatus]:
    """The search (`seams`): the candidate source's files, else the query finished for a walk of
    the root, then the backend's outcome; and why no candidates came, if so.

    `asked`: the candidate source's answer to this query when the caller already has it (the
    source is asked once a call: an index's answer costs a lookup).
    """
    from .command import for_walk
    from .seams import Page

    source, backend = plugged()
    candidates, index_status = asked if asked is not None else source.candidates(ctx, query)
    notes: list[str] = []
    if candidates is None:
        query, notes = for_walk(query, rules)
    out = backend.search(ctx, query, rules, candidates, Page(content, offset, head_limit, line_numbers))
    out.ignore_warnings = notes
    return out, index_status


# The candidate source and the search backend every call uses (`seams`); None: the search index
# and rg, loaded on first use. A second implementation is set here (the tests plug in doubles).
candidate_source: CandidateSource | None = None
search_backend: SearchBackend | None = None


def plugged() -> tuple[CandidateSource, SearchBackend]:
    """The candidate source and the search backend a search uses now."""
    from .indexed import IndexCandidates
    from .runs import Ripgrep

    return candidate_source or IndexCandidates(), search_backend or Ripgrep()


@dataclass
class _Page:
    """The part of the results a call returns, and what it is cut from."""

    text: str
    returned: int  # matching lines (content mode) or files returned
    total: int  # matching lines (content mode) or files in all
    shown: list[FileHit]  # the files the page shows
    meta: dict[str, Any]


def _content_page(out: SearchOutcome, query: GrepQuery, line_numbers: bool) -> _Page:
    from .format import NO_MATCHES, format_content

    total = sum(f.lines for f in out.files)
    if out.text is None:
        returned = sum(not hit.is_context for hit in out.lines)
        text = format_content(out.lines, line_numbers=line_numbers, separators=bool(query.before or query.after))
        on_page = {hit.path for hit in out.lines}
        shown = [f for f in out.files if f.path in on_page]
    else:  # every line, printed by rg itself
        returned, text, shown = total, out.text or NO_MATCHES, out.files
    meta = {"matches": [hit.as_dict() for hit in out.lines], "matches_complete": out.lines_complete}
    return _Page(text, returned, total, shown, meta)


def _files_page(out: SearchOutcome, output_mode: str, offset: int, head_limit: int) -> _Page:
    from .format import format_counts, format_files

    page = out.files[offset : offset + head_limit] if head_limit else out.files[offset:]
    text = (format_counts if output_mode == "count" else format_files)(page)
    meta: dict[str, Any] = {"files": [{"path": f.path, "count": f.lines} for f in page]}
    return _Page(text, len(page), len(out.files), page, meta)


def _page(
    ctx: ExecutionContext,
    out: SearchOutcome,
    query: GrepQuery,
    output_mode: str,
    offset: int,
    head_limit: int,
    line_numbers: bool,
) -> _Page:
    """The page of results the call returns, its last line saying how to ask for more when cut."""
    content = output_mode == "content"
    page = _content_page(out, query, line_numbers) if content else _files_page(out, output_mode, offset, head_limit)
    if page.total and not page.returned:
        page.text = f"No more matches: offset {offset} is past the last of {page.total} results"
    notice = page_notice(ctx, "matching lines" if content else "files", offset, page.returned, page.total)
    if notice:
        page.meta["notice"] = notice
        page.text = f"{page.text}\n{notice}"  # the output's last line, as Read's and LS's notices are
    return page


def _result(
    ctx: ExecutionContext,
    query: GrepQuery,
    output_mode: str,
    offset: int,
    head_limit: int,
    out: SearchOutcome,
    page: _Page,
    index_status: IndexStatus,
) -> ToolResult:
    """The result: the page, the totals, and what the search could not show."""
    skipped, warnings = _report_skipped(ctx, out, query)
    linked = {f.path: f.links for f in page.shown if f.links > 1}
    if linked:
        page.meta["hard_links"] = linked
        warnings.append(hard_links_warning(linked, _EXAMPLES))
    truncated = offset + page.returned < page.total
    return ToolResult.ok(
        page.text,
        pattern=query.pattern,
        path=query.root,
        output_mode=output_mode,
        total_matches=sum(f.lines for f in out.files),
        total_files=len(out.files),
        returned_matches=page.returned,
        offset=offset,
        head_limit=head_limit,
        truncated=truncated,
        next_offset=offset + page.returned if truncated else None,
        timed_out=out.timed_out,
        skipped=skipped,
        skipped_paths={
            "binary": out.binary[:_EXAMPLES],
            "ignored": out.ignored[:_EXAMPLES],
            "too_large": out.too_large[:_EXAMPLES],
            "unreadable": out.unreadable[:_EXAMPLES],
            "changed": out.changed[:_EXAMPLES],
        },
        warnings=warnings,
        index=index_status,
        **page.meta,
    )


def _context(flag: str, where: str, py_name: str) -> ToolParameter:
    """One of rg's context flags -A, -B and -C."""
    return ToolParameter(
        flag,
        "integer",
        f"Context lines {where} each match (content mode)",
        minimum=0,
        maximum=MAX_CONTEXT,
        py_name=py_name,
    )


@tool(
    name="Grep",
    cli_match_count="total_matches",
    description=(
        "Searches file contents with ripgrep for a regex (Rust syntax).\n"
        "Output modes: files_with_matches (default; one absolute path per line), count ('path: N' matching "
        "lines per file), content ('path:N> line' for a match, 'path:N  line' for context, '--' between groups).\n"
        "Honors .gitignore; skips hidden and binary files, files over 10 MB, dependency/VCS folders "
        "(node_modules, .git, __pycache__, .venv).\n"
        "Newest file first, then path, then line; head_limit and offset page over files (matching lines in "
        "content mode): a final line says how many more and the next offset. Files not searched (binary, too "
        "large, ignored) are listed after the results."
    ),
    parameters=(
        ToolParameter("pattern", "string", "The regular expression", required=True),
        ToolParameter(
            "path",
            "string",
            "Absolute path of the file or directory (default: working directory)",
            path=True,
        ),
        ToolParameter("glob", "string", "Only files matching this glob: '*.py', 'src/**/*.{ts,tsx}'"),
        ToolParameter(
            "type",
            "string",
            "Only files of this rg type: py, js, ts, rust, go, java, c, cpp, md, json, yaml, ...",
        ),
        ToolParameter(
            "output_mode",
            "string",
            "See Output modes in the description",
            default="files_with_matches",
            enum=OUTPUT_MODES,
        ),
        ToolParameter("-i", "boolean", "Case insensitive search", default=False, py_name="case_insensitive"),
        ToolParameter("-n", "boolean", "Show line numbers (content mode)", default=True, py_name="line_numbers"),
        _context("-A", "after", "after_context"),
        _context("-B", "before", "before_context"),
        _context("-C", "before and after", "context"),
        ToolParameter("multiline", "boolean", "Let patterns span lines ('.' matches newlines too)", default=False),
        ToolParameter(
            "head_limit",
            "integer",
            "Most files (content mode: matching lines) returned; 0 = no limit",
            default=DEFAULT_HEAD_LIMIT,
            minimum=0,
        ),
        ToolParameter(
            "offset",
            "integer",
            "Files (or matching lines) to skip first: the next page",
            default=0,
            minimum=0,
        ),
        ToolParameter("fixed_strings", "boolean", "The pattern is a literal string, not a regex", default=False),
        ToolParameter("hidden", "boolean", "Also search hidden files and folders (names starting '.')", default=False),
        ToolParameter("respect_gitignore", "boolean", "Skip what .gitignore/.ignore files exclude", default=True),
    ),
    cli_help=(
        "Search the files under PATH (default: the current directory) for PATTERN, a regular expression "
        "(--fixed-strings for a literal), with ripgrep. Prints the matching files (default), the matching "
        "lines per file (--output-mode count) or the lines themselves (--output-mode content, with -A/-B/-C "
        "for context). Newest files first; --head-limit and --offset page through the results. Exit status: "
        "0 if a line matched, 1 if none did, 2 on error."
    ),
    read_only=True,
    results=(
        ResultField("pattern", "string", "The pattern searched for", always=True),
        ResultField("path", "string", "The file or directory searched", always=True),
        ResultField("output_mode", "string", "files_with_matches, count or content", always=True),
        ResultField("total_matches", "integer", "Matching lines in all files", always=True),
        ResultField("total_files", "integer", "Files with a match", always=True),
        ResultField("returned_matches", "integer", "Files or matching lines returned", always=True),
        ResultField("offset", "integer", "The offset of the call", always=True),
        ResultField("head_limit", "integer", "The head_limit of the call", always=True),
        TRUNCATED,
        ResultField("next_offset", ("integer", "null"), "Offset of the next page (null: none)", always=True),
        ResultField("timed_out", "boolean", "The search stopped at the time limit", always=True),
        ResultField("skipped", "object", "Counts of files not searched, per reason (null: not checked)", always=True),
        ResultField("skipped_paths", "object", "Some paths not searched, per reason", always=True),
        ResultField(
            "index",
            "string",
            'The search index: "used", or why the call walked instead (off, none, single file, options, stale, ...)',
            always=True,
        ),
        ResultField("files", "array", "Files returned with their matching-line counts (files and count modes)"),
        ResultField("matches", "array", "Lines returned, structured (content mode)"),
        ResultField("matches_complete", "boolean", "matches holds every returned line (content mode)"),
        ResultField("hard_links", "object", "Files shown that have more than one hard link, with their link counts"),
        NOTICE,
        WARNINGS,
    ),
)
def grep(
    pattern: str,
    path: str | None = None,
    *,
    glob: str | None = None,
    type: str | None = None,
    output_mode: str = "files_with_matches",
    case_insensitive: bool = False,
    line_numbers: bool = True,
    after_context: int | None = None,
    before_context: int | None = None,
    context: int | None = None,
    multiline: bool = False,
    head_limit: int = DEFAULT_HEAD_LIMIT,
    offset: int = 0,
    fixed_strings: bool = False,
    hidden: bool = False,
    respect_gitignore: bool = True,
    ctx: ExecutionContext | None = None,
) -> ToolResult:
    """Search file contents for a regular expression, with ripgrep."""
    ctx = session(ctx)
    # Validate, build the query, search, cut the page: each a step of its own.
    # The search machinery loads on first use, so `import fstools` stays light.
    from .._walk.rules import walk_rules
    from .command import GrepQuery

    _validate(pattern, glob)
    target = resolve_path(ctx, path or ctx.working_dir, param="path")
    if not target.exists:
        raise ToolError(ErrorCode.FILE_NOT_FOUND, f"Path not found: {target.display}")
    authorize(ctx, grep.spec, target.path)
    rules = walk_rules(ctx, grep.spec)
    query = GrepQuery(
        pattern=pattern,
        root=target.path,
        root_is_file=target.is_file,
        glob=glob or None,
        types=_types(type),
        case_insensitive=case_insensitive,
        fixed_strings=fixed_strings,
        multiline=multiline,
        hidden=hidden,
        respect_gitignore=respect_gitignore,
        before=before_context if before_context is not None else context or 0,
        after=after_context if after_context is not None else context or 0,
        max_filesize=ctx.grep_max_filesize,
        excludes=rules.rg_excludes(),
    )
    content = output_mode == "content"
    out, index_status = _search(
        ctx, query, rules, content=content, offset=offset, head_limit=head_limit, line_numbers=line_numbers
    )
    page = _page(ctx, out, query, output_mode, offset, head_limit, line_numbers)
    return _result(ctx, query, output_mode, offset, head_limit, out, page, index_status)
