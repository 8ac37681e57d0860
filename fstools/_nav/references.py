"""References: every use of an identifier across the tree, as the parser reads the files that hold it."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from .._core.context import ExecutionContext
from .._core.hints import setting
from .._core.outputs import NOTICE, TRUNCATED, WARNINGS, ResultField, page_notice
from .._core.params import ToolParameter
from .._core.paths import SafePath, root_of
from .._core.public import session, tool
from .._core.result import ToolResult
from .._syntax.names import Occurrence
from . import common
from .common import DEFAULT_LIMIT, MAX_LIMIT, Seen, finish, paged, parts_of, searched
from .files import ranking_names, sources
from .resolve import rank, resolvers

MAX_SOURCE_CHARS = 200  # of each use's line in the output


@dataclass(frozen=True)
class Use:
    path: str
    at: Occurrence

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "line": self.at.line,
            "column": self.at.column,
            "kind": self.at.kind,
            "enclosing": self.at.enclosing,
        }


@tool(
    name="References",
    description=(
        "Lists the uses of an identifier in the source files under path, parsed: never in a comment or "
        "string, never a longer name. One line a use: 'path:line:col  def|ref|import  in "
        "<enclosing>  <line>'. Matched by name (Parser.feed: uses of feed); the notice says how many "
        "definitions share it. file_path+line (where you saw it) ranks that file and its imports first."
    ),
    parameters=(
        ToolParameter("name", "string", "The identifier (dotted: its last part)", required=True),
        ToolParameter("path", "string", "Directory or file (default: working directory)", path=True),
        ToolParameter("file_path", "string", "File where the name is used (ranking)", path=True),
        ToolParameter("line", "integer", "Line of that use in file_path", minimum=1),
        ToolParameter("offset", "integer", "Uses to skip (paging)", default=0, minimum=0),
        ToolParameter("limit", "integer", "Most uses shown", default=DEFAULT_LIMIT, minimum=1, maximum=MAX_LIMIT),
    ),
    cli_help="Print every use of the identifier NAME in the source files under a directory, with its kind.",
    read_only=True,
    answers_to=("Grep", "Read"),
    cli_match_count="total",
    results=(
        ResultField("name", "string", "The identifier looked for", always=True),
        ResultField("path", "string", "The directory or file searched", always=True),
        ResultField(
            "references",
            "array",
            "Each use shown: path, line, column, kind (def, ref or import), enclosing (null at the top level)",
            always=True,
        ),
        ResultField("total", "integer", "Uses found", always=True),
        ResultField("total_files", "integer", "Files with a use", always=True),
        *common.paging_fields("Uses"),
        ResultField("definitions", "integer", "Definitions with this name among the files", always=True),
        ResultField("resolution", "string", "How uses were matched: name, or language_server", always=True),
        common.INDEX,
        common.PARSE_ERRORS,
        common.TIMED_OUT,
        TRUNCATED,
        NOTICE,
        WARNINGS,
    ),
)
def references(
    name: str,
    *,
    path: str | None = None,
    file_path: str | None = None,
    line: int | None = None,
    offset: int = 0,
    limit: int = DEFAULT_LIMIT,
    ctx: ExecutionContext | None = None,
) -> ToolResult:
    """List every use of an identifier in the source files under a directory."""
    ctx = session(ctx)
    identifier = parts_of(name, "name")[-1]
    target, seen = searched(ctx, references.spec, path, file_path, line)
    found = sources(ctx, references.spec, target, identifier, whole_word=True, case_insensitive=False)
    ranking = ranking_names(ctx, found, seen.path if seen else None)
    uses: list[tuple[tuple[Any, ...], Use]] = []
    definitions = 0
    for where, names in found.names.items():
        order = rank(seen.path if seen else None, ranking, where)
        for at in names.occurrences(identifier):
            uses.append(((order, where, at.byte), Use(where, at)))
        definitions += len(names.named(identifier))
    uses.sort(key=lambda item: item[0])
    everything = [use for _, use in uses]
    resolved = _resolved(ctx, seen, identifier, everything) if seen is not None else None
    if resolved is not None:
        everything = resolved
    page = everything[offset : offset + limit]
    files = len({use.path for use in everything})
    meta: dict[str, Any] = {
        "name": name,
        "path": target.display,
        "references": [use.as_dict() for use in page],
        "total": len(everything),
        "total_files": files,
        **paged(offset, limit, len(page), len(everything)),
        "definitions": definitions,
        "resolution": "language_server" if resolved is not None else "name",
    }
    warnings = found.report()
    text = _render(ctx, page, warnings) if page else _nothing(ctx, identifier, target.display, len(everything))
    notes = [page_notice(ctx, "uses", offset, len(page), len(everything))]
    if everything and resolved is None:
        notes.append(_by_name(identifier, definitions))
    return finish(text, meta, found, " ".join(note for note in notes if note), warnings)


def _resolved(ctx: ExecutionContext, seen: Seen, name: str, uses: list[Use]) -> list[Use] | None:
    """The uses a resolver names (those of `uses` on its lines), or None when no resolver answers."""
    if seen.line is None:
        return None
    for resolver in resolvers():
        places = resolver.references(ctx, seen.path, seen.line, name)
        if places is not None:
            wanted = {(p.path, p.line) for p in places}
            return [use for use in uses if (use.path, use.at.line) in wanted]
    return None


def _by_name(identifier: str, definitions: int) -> str:
    shared = {0: "no definition of it is in these files", 1: "1 definition has it"}.get(
        definitions, f"{definitions} definitions share it"
    )
    return f"(Matched by name: every identifier {identifier!r} is listed, whichever definition it means; {shared}.)"


def _render(ctx: ExecutionContext, page: list[Use], warnings: list[str]) -> str:
    """The page grouped by file (a blank line between files), each use with its source line."""
    blocks: list[str] = []
    current: str | None = None
    reader: _Lines | None = None
    try:
        for use in page:
            if use.path != current:
                current = use.path
                if reader is not None:
                    reader.close()
                reader = _Lines(ctx, use.path, warnings)
                if blocks:
                    blocks.append("")
            text = reader.line_at(use.at.byte).strip() if reader is not None else ""
            if len(text) > MAX_SOURCE_CHARS:
                text = text[: MAX_SOURCE_CHARS - 3] + "..."
            enclosing = use.at.enclosing or "(top level)"
            blocks.append(f"{use.path}:{use.at.line}:{use.at.column}  {use.at.kind}  in {enclosing}  {text}")
    finally:
        if reader is not None:
            reader.close()
    return "\n".join(blocks)


class _Lines:
    """The lines of one file around given bytes, read beneath its root a window at a time."""

    WINDOW = 4096

    def __init__(self, ctx: ExecutionContext, path: str, warnings: list[str]) -> None:
        root = root_of(ctx, path)
        self.fd: int | None = None
        try:
            if root is None:
                raise OSError("outside the allowed directories")
            # The path came from a listing of the canonical root: opened beneath it, through no link.
            self.fd = SafePath(path, path, None, root).open(os.O_RDONLY | os.O_NONBLOCK)
        except OSError as exc:
            warnings.append(f"Could not read {path} to show its lines: {exc.strerror or exc}")

    def line_at(self, byte: int) -> str:
        if self.fd is None:
            return ""
        start = max(0, byte - self.WINDOW // 2)
        data = os.pread(self.fd, self.WINDOW, start)
        at = byte - start
        begin = data.rfind(b"\n", 0, at) + 1
        end = data.find(b"\n", at)
        if (begin == 0 and start > 0) or end == -1 and len(data) == self.WINDOW:  # a longer line: read it whole
            size = os.fstat(self.fd).st_size
            data, at = os.pread(self.fd, size, 0), byte
            begin, end = data.rfind(b"\n", 0, at) + 1, data.find(b"\n", at)
        line = data[begin : end if end != -1 else len(data)]
        return line.decode("utf-8", "replace").rstrip("\r")

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def _nothing(ctx: ExecutionContext, identifier: str, where: str, total: int) -> str:
    if total:
        return f"No more uses: the offset is past the last of {total}"
    return (
        f"No uses of the identifier {identifier!r} in the source files under {where} (comments and strings do "
        f"not count): check the spelling, Symbols with {setting(ctx, 'exact', False)} finds names that contain "
        "it, Grep finds the text anywhere"
    )
