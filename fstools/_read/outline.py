"""Outline: the definitions in a source file, nested, with their line ranges; or those of a directory's files.

A file's outline is one line per definition, `  12-40  class Parser`, indented two spaces
a level. A directory's is the outline of each source file a Glob-style walk of it finds
(ignore files, hidden files and the usual build folders left out, secrets never read), in
path order, until the output would pass MAX_OUTLINE_CHARS; the notice says how many files
were left out. Reading an outline does not count as reading the file: it shows none of it.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from .._content.encodings import SNIFF_BYTES, looks_binary
from .._core.context import ExecutionContext
from .._core.errors import ErrorCode, ToolError
from .._core.outputs import NOTICE, TRUNCATED, ResultField
from .._core.params import ToolParameter
from .._core.paths import SafePath, resolve_path
from .._core.permissions import authorize
from .._core.public import session, tool
from .._core.result import ToolResult
from .._syntax.languages import LANGUAGES, Language, ParseTimeout, language_for_path
from .._syntax.outline import Symbol, extract, supports
from .._syntax.sources import MAX_SOURCE_BYTES, read_source
from .ahead import Ahead
from .window import MAX_READ_CHARS

MAX_OUTLINE_CHARS = MAX_READ_CHARS
NOTICE_ROOM = 300
PARSERS = 2  # threads: one reads the next files while one parses (tree-sitter holds the GIL: `_syntax/workers.py`)


@dataclass(frozen=True)
class FileOutline:
    path: str
    language: Language
    symbols: list[Symbol]
    error_lines: tuple[int, ...] = ()  # a partial parse: where the parser met errors

    def text(self) -> str:
        lines = [symbol.line() for symbol in self.symbols]
        if self.error_lines:
            lines.append(partial_parse_note(self.error_lines))
        return "\n".join(lines)


def partial_parse_note(error_lines: tuple[int, ...] | list[int]) -> str:
    """The line that says a parse was partial, and where."""
    shown = ", ".join(str(line) for line in error_lines[:10]) + (", ..." if len(error_lines) > 10 else "")
    return f"  [partial parse: syntax errors at line(s) {shown}; definitions near them may be missing or cut]"


def _outlined_languages() -> str:
    return ", ".join(sorted({lang.label for lang in LANGUAGES.values() if supports(lang)}))


def source_of(target: SafePath) -> bytes:
    """The bytes of the regular file `target`, opened beneath its root; ToolError if it cannot be outlined."""
    return read_source(
        target,
        MAX_SOURCE_BYTES,
        lambda size: f"File too large to outline: {target.display} is {size} bytes (at most {MAX_SOURCE_BYTES})",
    )[0]


def outline_file(target: SafePath, data: bytes | None = None, *, timeout: float | None = None) -> FileOutline:
    """The outline of one file; ToolError when its kind has none or its grammar is missing, or when it
    takes more than `timeout` seconds."""
    data = source_of(target) if data is None else data
    if looks_binary(data[:SNIFF_BYTES]):
        raise ToolError(ErrorCode.BINARY_FILE, f"Cannot outline binary file: {target.display}")
    language = language_for_path(target.path, data[:SNIFF_BYTES])
    if language is None or not supports(language):
        kind = f"{language.label} files" if language else "this kind of file"
        raise ToolError(
            ErrorCode.INVALID_ARGUMENT,
            f"No outline for {kind}: {target.display}. Outlines cover {_outlined_languages()}",
        )
    try:
        found = extract(language, data, deadline=None if timeout is None else time.monotonic() + timeout)
    except ParseTimeout:
        raise ToolError(
            ErrorCode.TIMEOUT,
            f"Finding the definitions of {target.display} took more than {timeout:g}s; read it by lines instead",
        ) from None
    if found is None:
        raise ToolError(
            ErrorCode.MISSING_BINARY,
            f"The {language.label} grammar is not installed ({language.package}): pip install 'fstools[syntax]'",
        )
    return FileOutline(target.display, language, found.symbols, tuple(found.error_lines))


@tool(
    name="Outline",
    description=(
        "Lists a source file's definitions (classes, functions, methods, structs, interfaces, Rust impl "
        "blocks, ...) nested, one a line with its line range: '  12-40  class Parser' then "
        "'  14-20    def feed(self, data)'. For a directory, each source file's outline (ignored, hidden and "
        "build folders left out), up to 100,000 characters with a notice. Find where things are before "
        'reading; Read symbol="Parser.feed" shows one.'
    ),
    parameters=(
        ToolParameter(
            "path", "string", "Absolute path of the file or directory (default: working directory)", path=True
        ),
    ),
    cli_help="Print the definitions of a source file (or of every source file under a directory) with their lines.",
    read_only=True,
    answers_to=("Read",),
    results=(
        ResultField("path", "string", "The file or directory outlined", always=True),
        ResultField("language", "string", "The file's language (a file)"),
        ResultField(
            "symbols",
            "array",
            "Each definition: name, kind, start_line, end_line, parent (and file, for a directory)",
            always=True,
        ),
        ResultField("count", "integer", "Definitions listed", always=True),
        ResultField("parse_errors", "array", "Lines where the parser met syntax errors: a partial outline (a file)"),
        ResultField("files", "integer", "Files outlined", always=True),
        ResultField("files_left_out", "integer", "Source files not outlined: the output limit was reached"),
        TRUNCATED,
        NOTICE,
    ),
)
def outline(path: str | None = None, *, ctx: ExecutionContext | None = None) -> ToolResult:
    """List the definitions of a source file, or of the source files under a directory."""
    ctx = session(ctx)
    target = resolve_path(ctx, path if path is not None else ctx.working_dir, param="path")
    if not target.exists:
        raise ToolError(ErrorCode.FILE_NOT_FOUND, f"Path not found: {target.display}")
    authorize(ctx, outline.spec, target.path)
    if target.is_dir:
        return _outline_directory(ctx, target)
    found = outline_file(target, timeout=ctx.timeout)
    text, shown = bounded_lines(found.symbols, MAX_OUTLINE_CHARS - NOTICE_ROOM)
    if found.error_lines:
        text = "\n".join(part for part in (text, partial_parse_note(found.error_lines)) if part)
    meta: dict[str, Any] = {}
    if shown < len(found.symbols):
        last = found.symbols[shown - 1].end_line if shown else 0
        meta["notice"] = (
            f"[{len(found.symbols) - shown:,} of {len(found.symbols):,} definitions left out: the outline stops "
            f"before {MAX_OUTLINE_CHARS:,} characters. Read the file from line {last + 1} for the rest]"
        )
        text = f"{text}\n\n{meta['notice']}"
    return ToolResult.ok(
        text or f"(no definitions found in {found.path})",
        path=found.path,
        language=found.language.name,
        symbols=[symbol.as_dict() for symbol in found.symbols[:shown]],
        count=len(found.symbols),
        files=1,
        truncated=shown < len(found.symbols),
        **({"parse_errors": list(found.error_lines)} if found.error_lines else {}),
        **meta,
    )


def bounded_lines(symbols: list[Symbol], budget: int) -> tuple[str, int]:
    """The outline lines of the first symbols that fit in `budget` characters, and how many those are."""
    lines, used = [], 0
    for symbol in symbols:
        line = symbol.line()
        if used + len(line) + 1 > budget:
            break
        lines.append(line)
        used += len(line) + 1
    return "\n".join(lines), len(lines)


def _source_files(ctx: ExecutionContext, directory: SafePath) -> list[str]:
    """The files of `directory` a Glob-style walk shows whose kind has an outline, in path order."""
    from .._walk.rules import visible_files

    listing = visible_files(ctx, outline.spec, directory.path)
    paths = sorted(p for p in listing.paths if (lang := language_for_path(p)) is not None and supports(lang))
    return paths


def _outline_of(ctx: ExecutionContext, path: str) -> FileOutline | None:
    """A file's outline, or None for one that cannot be outlined (gone, binary, too large, refused)."""
    try:
        return outline_file(resolve_path(ctx, path, param="path"), timeout=ctx.timeout)
    except ToolError:
        return None


def _outline_directory(ctx: ExecutionContext, directory: SafePath) -> ToolResult:
    paths = _source_files(ctx, directory)
    blocks: list[str] = []
    symbols: list[dict[str, object]] = []
    used, outlined, unreadable = 0, 0, 0
    budget = MAX_OUTLINE_CHARS - NOTICE_ROOM
    with ThreadPoolExecutor(PARSERS, thread_name_prefix="fstools-outline") as pool:
        files = Ahead(pool, lambda path: _outline_of(ctx, path), iter(paths), PARSERS * 2)
        for _, found in files:
            if found is None:
                unreadable += 1
                continue
            block = f"{found.path}\n{found.text()}"
            if found.symbols and used + len(block) + 2 > budget:
                break
            outlined += 1
            if found.symbols:  # a file without definitions is counted, not shown
                blocks.append(block)
                used += len(block) + 2
                symbols += [{**symbol.as_dict(), "file": found.path} for symbol in found.symbols]
        files.rest()
    left = len(paths) - outlined - unreadable
    output = "\n\n".join(blocks) or f"(no definitions found in the source files under {directory.display})"
    meta: dict[str, object] = {
        "path": directory.display,
        "symbols": symbols,
        "count": len(symbols),
        "files": outlined,
        "files_left_out": left,
        "truncated": left > 0,
    }
    if left:
        notice = (
            f"[{left} of {len(paths)} source files left out: the outline stops before {MAX_OUTLINE_CHARS:,} "
            "characters. Outline a subdirectory or a file to see them]"
        )
        meta["notice"] = notice
        output += "\n\n" + notice
    return ToolResult.ok(output, **meta)
