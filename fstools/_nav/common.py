"""What Symbols and References share: the name asked for, the place it was seen, the page cut, the result."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._content.encodings import SNIFF_BYTES, looks_binary
from .._core.context import ExecutionContext
from .._core.errors import ErrorCode, ToolError
from .._core.outputs import ResultField
from .._core.paths import SafePath, resolve_path
from .._core.permissions import authorize
from .._core.result import ToolResult
from .._core.spec import ToolSpec

if TYPE_CHECKING:
    from .files import Sources

DEFAULT_LIMIT = 100
MAX_LIMIT = 10_000
MAX_NAME_CHARS = 1000


def parts_of(query: str, param: str) -> list[str]:
    """A dotted name's parts (`Parser.feed`, `ns::Parser::feed` and `Parser#feed` alike); ToolError when empty."""
    text = query.strip()
    if not text:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"{param} must not be empty")
    if len(text) > MAX_NAME_CHARS or "\x00" in text or "\n" in text:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"{param} must be one name of at most {MAX_NAME_CHARS} characters")
    parts = [part for part in text.replace("::", ".").replace("#", ".").split(".") if part.strip()]
    if not parts:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"{param} names no identifier: {query!r}")
    return [part.strip() for part in parts]


@dataclass(frozen=True)
class Seen:
    """Where the model saw the name used: a source file (checked as Read checks it) and a line."""

    path: str
    line: int | None


def seen_at(ctx: ExecutionContext, spec: ToolSpec, file_path: str | None, line: int | None) -> Seen | None:
    """The checked `file_path` (and `line`), or None without one; ToolError as Read's for a bad file."""
    from .._core.permissions import denied_test

    if file_path is None or not file_path.strip():
        if line is not None:
            raise ToolError(ErrorCode.INVALID_ARGUMENT, "line needs file_path: the file where the name is used")
        return None
    target = resolve_path(ctx, file_path, param="file_path")
    if not target.exists:
        raise ToolError(ErrorCode.FILE_NOT_FOUND, f"File not found: {target.display}")
    if target.is_dir:
        raise ToolError(ErrorCode.INVALID_PATH, f"Cannot read directory: {target.display}")
    denied = denied_test(ctx, spec)  # read as a search reads its files: a deny rule refuses, an ask rule asked
    if denied is not None and denied(target.path):
        raise ToolError(ErrorCode.PERMISSION_DENIED, f"Permission denied by rule for {spec.name}: {target.display}")
    _refuse_binary(target)
    return Seen(target.path, line)


def _refuse_binary(target: SafePath) -> None:
    from .files import read_source

    try:
        fd = target.open(os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        read_source(target)  # says why, as the read would
        return
    try:
        head = os.pread(fd, SNIFF_BYTES, 0)
    finally:
        os.close(fd)
    if looks_binary(head):
        raise ToolError(ErrorCode.BINARY_FILE, f"Cannot read binary file: {target.display}")


def paging_fields(unit: str) -> tuple[ResultField, ...]:
    """The page's metadata fields, `unit` naming what is counted ("Uses", "Definitions")."""
    return (
        ResultField("returned", "integer", f"{unit} shown", always=True),
        ResultField("offset", "integer", f"{unit} skipped", always=True),
        ResultField("limit", "integer", "The call's limit", always=True),
        ResultField("next_offset", ("integer", "null"), "Offset of the next page (null: none)", always=True),
    )


INDEX = ResultField("index", "string", "Whether the search index chose the files, or why not")
PARSE_ERRORS = ResultField("parse_errors", "object", "Files parsed in part: path -> lines of syntax errors")
TIMED_OUT = ResultField("timed_out", "boolean", "True: the call's timeout ran out before every file was found and read")


def searched(
    ctx: ExecutionContext, spec: ToolSpec, path: str | None, file_path: str | None, line: int | None
) -> tuple[SafePath, Seen | None]:
    """The directory or file searched (checked and authorised) and where the name was seen."""
    target = resolve_path(ctx, path if path is not None else ctx.working_dir, param="path")
    if not target.exists:
        raise ToolError(ErrorCode.FILE_NOT_FOUND, f"Path not found: {target.display}")
    authorize(ctx, spec, target.path)
    return target, seen_at(ctx, spec, file_path, line)


def paged(offset: int, limit: int, returned: int, total: int) -> dict[str, Any]:
    """The page's metadata: what was shown of `total` and where the next page starts."""
    more = offset + returned < total
    return {
        "returned": returned,
        "offset": offset,
        "limit": limit,
        "truncated": more,
        "next_offset": offset + returned if more else None,
    }


def finish(
    text: str,
    meta: dict[str, Any],
    found: Sources,
    notice: str | None,
    warnings: list[str],
    **after_index: Any,
) -> ToolResult:
    """The result: `meta` with what the search and parse said, the notice as the text's last line, the warnings."""
    if found.index is not None:
        meta["index"] = found.index
    meta.update(after_index)
    if found.partial:
        meta["parse_errors"] = found.partial
    if found.timed_out or found.search_cut:
        meta["timed_out"] = True
    if notice:
        meta["notice"] = notice
        text = f"{text}\n{notice}"
    if warnings:
        meta["warnings"] = warnings
    return ToolResult.ok(text, **meta)
