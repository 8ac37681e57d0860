"""What the text editor tool's commands need beyond the tools: its `insert` command (whole lines put
after a line number, in the file's line breaks and encoding), and the read that `str_replace` proves.

A line number proves nothing about the file, so Insert needs it read (and unchanged since), like
Edit; it answers to Edit's permission rules, read-only switch and audit log, and its change is
journaled under the text editor tool's name. An old_str that occurs exactly once does prove what
the model replaces, so `str_replace` runs Edit on a file `vouch` records as read.
"""

from __future__ import annotations

from dataclasses import replace

from .._content.fingerprints import remember
from .._core.context import ExecutionContext
from .._core.errors import ErrorCode, ToolError
from .._core.params import ToolParameter
from .._core.paths import SafePath, resolve_file_path
from .._core.result import ToolResult
from .._syntax.review import review_change
from .diff import Change, unified_diff
from .document import decode_document, encode_document, eol_of, with_line_breaks
from .edit import edit
from .guard import load, one_at_a_time, require_fresh_read
from .landing import Landing, OneFile, land

TOOL_NAME = "str_replace_based_edit_tool"  # the tool whose command this is: the journal names its changes so


def _insert_run(ctx: ExecutionContext, file_path: str, insert_line: int, text: str) -> ToolResult:
    """Insert whole lines after line `insert_line` (0: at the top), in the file's line breaks and encoding."""
    target = resolve_file_path(ctx, file_path)
    with one_at_a_time(ctx, target.path):
        return _insert_loaded(ctx, target, insert_line, text)


def _insert_loaded(ctx: ExecutionContext, target: SafePath, insert_line: int, text: str) -> ToolResult:
    seen = load(ctx, target, max_bytes=ctx.max_edit_bytes)
    if seen is None:
        raise ToolError(ErrorCode.FILE_NOT_FOUND, f"File not found: {target.display}")
    if seen.data is None:
        raise ToolError(ErrorCode.FILE_TOO_LARGE, f"File is too large to edit: {target.display}")
    doc = decode_document(seen.data, target.display)
    require_fresh_read(ctx, target, seen)
    old = doc.text
    count = old.count("\n") + (1 if old and not old.endswith("\n") else 0)
    if not 0 <= insert_line <= count:
        raise ToolError(
            ErrorCode.INVALID_ARGUMENT,
            f"Invalid `insert_line` parameter: {insert_line}. It should be within the range of lines of the file: "
            f"{[0, count]}",
        )
    eol = eol_of(doc.line_ending) or "\n"
    body = with_line_breaks(text.removesuffix("\n"), eol)
    if insert_line == count and old and not old.endswith("\n"):  # after a last line without a break
        pos, piece = len(old), eol + body
    else:
        pos = 0 if insert_line == 0 else _line_end(old, insert_line)
        piece = body + eol
    new = old[:pos] + piece + old[pos:]
    diff = unified_diff(
        old, new, [Change(pos, pos, pos, pos + len(piece))], old_label=target.display, new_label=target.display
    )
    data = encode_document(new, doc.encoding, target.display)
    change = Landing(
        edit.spec,
        diff,
        [review_change(ctx, target.display, old, new)],
        {"file_path": target.path, "diff": diff, "lines_inserted": body.count("\n") + 1},
        preview=f"[Dry Run] Would insert after line {insert_line} of {target.display}\n{diff}",
        done=f"Inserted after line {insert_line} of {target.display}\n{diff}",
        writes=OneFile(target, data, seen),
        journal_as=TOOL_NAME,
    )
    return land(ctx, change)


def _line_end(text: str, line: int) -> int:
    """The position just after the break ending line `line` (1-based)."""
    pos = -1
    for _ in range(line):
        pos = text.find("\n", pos + 1)
    return pos + 1


# Insert is an Edit as far as permissions, the read-only switch and the audit log are concerned.
INSERT_SPEC = replace(
    edit.spec,
    description="Inserts lines after a line number (the text editor tool's insert command).",
    parameters=(
        ToolParameter("file_path", "string", "Path of the file", required=True, path=True),
        ToolParameter("insert_line", "integer", "The line to insert after (0: at the top)", required=True),
        ToolParameter("text", "string", "The lines to insert", required=True, text=True),
    ),
    run=_insert_run,
)


def vouch(ctx: ExecutionContext, path: str) -> None:
    """Record the file as read, as it is now: for a change whose own argument proves the file's state
    (the text editor's str_replace, whose old_str occurs exactly once). A path that cannot be loaded is
    left for the change to report."""
    try:
        target = resolve_file_path(ctx, path)
        seen = load(ctx, target, max_bytes=ctx.max_edit_bytes)
    except ToolError:
        return
    if seen is not None:
        remember(ctx, target.path, seen.stat, seen.data)
