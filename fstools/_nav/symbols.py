"""Symbols: where a name is defined, across the tree, from the parsed definitions of the files that hold it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._core.context import ExecutionContext
from .._core.errors import ErrorCode, ToolError
from .._core.hints import setting
from .._core.outputs import NOTICE, TRUNCATED, WARNINGS, ResultField, page_notice
from .._core.params import ToolParameter
from .._core.public import session, tool
from .._core.result import ToolResult
from .._syntax.names import Definition, FileNames
from . import common
from .common import DEFAULT_LIMIT, MAX_LIMIT, Seen, finish, paged, parts_of, searched
from .files import Sources, ranking_names, sources
from .resolve import rank, resolvers

# The kinds Outline reports, in every language.
KINDS = (
    "class",
    "constructor",
    "enum",
    "function",
    "impl",
    "interface",
    "macro",
    "method",
    "module",
    "namespace",
    "struct",
    "trait",
    "type",
    "typedef",
    "union",
)


@dataclass(frozen=True)
class Match:
    path: str
    definition: Definition
    order: tuple[Any, ...]

    def line(self) -> str:
        d = self.definition
        return f"{self.path}:{d.start_line}-{d.end_line}  {d.kind}  {d.qualified_name}  — {d.first_line}"

    def as_dict(self) -> dict[str, Any]:
        d = self.definition
        return {
            "path": self.path,
            "name": d.name,
            "qualified_name": d.qualified_name,
            "kind": d.kind,
            "start_line": d.start_line,
            "end_line": d.end_line,
        }


@tool(
    name="Symbols",
    description=(
        "Finds definitions (functions, classes, methods, structs, types, macros, ...) by name in the source "
        "files under path, parsed: comments and strings never match. query: a case-insensitive substring of "
        "the name (exact=true: the whole name); Parser.feed matches the qualified name's end. Lines "
        "'path:start-end  kind  qualified.name  — first line', exact matches first. file_path+line (a use) "
        "ranks the likely definition first. Read symbol= shows one; References lists uses."
    ),
    parameters=(
        ToolParameter("query", "string", "The name (or Parser.feed)", required=True),
        ToolParameter("path", "string", "Directory or file (default: working directory)", path=True),
        ToolParameter("kind", "string", "Only this kind: function, class, method, struct, macro, ..."),
        ToolParameter("exact", "boolean", "Whole name, case-sensitive", default=False),
        ToolParameter("file_path", "string", "File where the name is used (ranking)", path=True),
        ToolParameter("line", "integer", "Line of that use in file_path", minimum=1),
        ToolParameter("offset", "integer", "Definitions to skip (paging)", default=0, minimum=0),
        ToolParameter(
            "limit", "integer", "Most definitions shown", default=DEFAULT_LIMIT, minimum=1, maximum=MAX_LIMIT
        ),
    ),
    cli_help="Print the definitions whose name matches QUERY in the source files under a directory.",
    read_only=True,
    answers_to=("Grep", "Read"),
    cli_match_count="total",
    results=(
        ResultField("query", "string", "The name looked for", always=True),
        ResultField("path", "string", "The directory or file searched", always=True),
        ResultField(
            "symbols",
            "array",
            "Each definition shown: path, name, qualified_name, kind, start_line, end_line",
            always=True,
        ),
        ResultField("total", "integer", "Definitions that match", always=True),
        *common.paging_fields("Definitions"),
        ResultField("files", "integer", "Source files parsed or taken from the store", always=True),
        common.INDEX,
        ResultField("resolution", "string", "With file_path: how the definition was chosen (name, language_server)"),
        common.PARSE_ERRORS,
        common.TIMED_OUT,
        TRUNCATED,
        NOTICE,
        WARNINGS,
    ),
)
def symbols(
    query: str,
    *,
    path: str | None = None,
    kind: str | None = None,
    exact: bool = False,
    file_path: str | None = None,
    line: int | None = None,
    offset: int = 0,
    limit: int = DEFAULT_LIMIT,
    ctx: ExecutionContext | None = None,
) -> ToolResult:
    """Find the definitions of a name in the source files under a directory."""
    ctx = session(ctx)
    parts = parts_of(query, "query")
    kind = kind.strip().lower() if kind and kind.strip() else None
    if kind is not None and kind not in KINDS:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"Unknown kind {kind!r}: one of {', '.join(KINDS)}")
    target, seen = searched(ctx, symbols.spec, path, file_path, line)
    uses = seen is not None  # ranking by imports needs each file's import names; definitions alone do otherwise
    found = sources(ctx, symbols.spec, target, parts[-1], whole_word=exact, case_insensitive=not exact, uses=uses)
    ranking = ranking_names(ctx, found, seen.path if seen else None)  # its imports rank the others
    matches = _matches(found, ranking, parts, kind, exact, seen.path if seen else None)
    resolution = _resolved(ctx, seen, parts[-1], matches) if seen is not None else None
    if resolution is not None:
        matches = resolution
    page = matches[offset : offset + limit]
    meta: dict[str, Any] = {
        "query": query,
        "path": target.display,
        "symbols": [m.as_dict() for m in page],
        "total": len(matches),
        **paged(offset, limit, len(page), len(matches)),
        "files": len(found.names),
    }
    text = "\n".join(m.line() for m in page) if page else _nothing(ctx, query, target.display, exact, kind, matches)
    notice = page_notice(ctx, "definitions", offset, len(page), len(matches))
    how = {} if seen is None else {"resolution": "language_server" if resolution is not None else "name"}
    return finish(text, meta, found, notice, found.report(), **how)


def _matches(
    found: Sources, ranking: dict[str, FileNames], parts: list[str], kind: str | None, exact: bool, seen: str | None
) -> list[Match]:
    last = parts[-1]
    parents = [p if exact else p.lower() for p in parts[:-1]]
    matches = []
    for path, names in found.names.items():
        candidates = names.named(last) if exact else names.containing(last.lower())
        if not candidates:
            continue
        where = rank(seen, ranking, path)
        for d in candidates:
            if (kind is not None and d.kind != kind) or (parents and not _parents_match(d, parents, exact)):
                continue
            closeness = 0 if d.name == last else 1 if d.name.lower() == last.lower() else 2
            matches.append(Match(path, d, (closeness, where, path, d.start_line, d.name_byte)))
    matches.sort(key=lambda m: m.order)
    return matches


def _parents_match(d: Definition, parents: list[str], exact: bool) -> bool:
    """Whether the query's dotted parents are the end of the definition's own parents."""
    qualified = d.qualified_name.split(".")[:-1]
    if len(qualified) < len(parents):
        return False
    ending = qualified[-len(parents) :]
    return (ending if exact else [q.lower() for q in ending]) == parents


def _resolved(ctx: ExecutionContext, seen: Seen, name: str, matches: list[Match]) -> list[Match] | None:
    """The definitions a resolver says the use refers to (those of `matches` holding its places), or None."""
    if seen.line is None:
        return None
    for resolver in resolvers():
        places = resolver.definitions(ctx, seen.path, seen.line, name)
        if places is not None:
            return [
                m
                for m in matches
                if any(p.path == m.path and m.definition.start_line <= p.line <= m.definition.end_line for p in places)
            ]
    return None


def _nothing(ctx: ExecutionContext, query: str, where: str, exact: bool, kind: str | None, matches: list[Match]) -> str:
    if matches:
        return f"No more definitions: the offset is past the last of {len(matches)}"
    kinds = f" of kind {kind}" if kind else ""
    hint = (
        f"call again with {setting(ctx, 'exact', False)} for names that contain it, or Grep for the text"
        if exact
        else "try a shorter part of the name, or Grep for text in comments, strings and other files"
    )
    return f"No definitions{kinds} match {query!r} in the source files under {where}: {hint}"
