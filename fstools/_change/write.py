"""Write: create a file or replace its whole content, atomically, keeping what made it that file.

Overwriting keeps the file's encoding, BOM and (when the content has no CR at all) its CRLF
line breaks, because models write text as they saw it in Read, without the CRs.
"""

from __future__ import annotations

from .._content.encodings import UTF8
from .._core.context import ExecutionContext
from .._core.errors import ErrorCode, ToolError
from .._core.hardlinks import note_hard_links
from .._core.outputs import CHANGE_FIELDS, ResultField
from .._core.params import ToolParameter
from .._core.paths import SafePath, resolve_file_path
from .._core.permissions import authorize
from .._core.public import session, tool
from .._core.result import ToolResult
from .._syntax.review import review_change
from .diff import unified_diff, whole_text_changes
from .document import Document, decode_document, encode_document, eol_of, text_style, with_line_breaks
from .guard import load, one_at_a_time, require_fresh_read
from .landing import Landing, OneFile, land
from .placeholders import refuse_new_placeholders

NEW_FILE_LABEL = "/dev/null"


def _previous(data: bytes | None, display: str) -> Document | None:
    """The current content as text, or None when there is none to keep (binary, undecodable, too large)."""
    if data is None:
        return None
    try:
        return decode_document(data, display)
    except ToolError:
        return None


def _fit(content: str, previous: Document | None) -> str:
    """Content in the existing file's conventions: no doubled BOM, its CRLF/CR line breaks."""
    if previous is None:
        return content
    if previous.encoding.bom and content.startswith("\ufeff"):
        content = content[1:]
    eol = eol_of(previous.line_ending)
    if eol is not None and eol != "\n" and "\r" not in content:
        content = with_line_breaks(content, eol)
    return content


@tool(
    name="Write",
    description=(
        "Writes a file, creating it (and missing parent directories) or replacing its whole content. "
        "Overwriting needs a Read of it first in this session, and no change since. Atomic; keeps the "
        "file's permissions, encoding, BOM and CRLF line endings. Prefer Edit or MultiEdit to change part of a file."
    ),
    parameters=(
        ToolParameter("file_path", "string", "Absolute path of the file to write", required=True, path=True),
        ToolParameter("content", "string", "The file's whole new content", required=True, text=True),
        ToolParameter(
            "backup", "boolean", "Keep the previous version as <file>.bak (.bak.1, ... if taken)", default=False
        ),
        ToolParameter(
            "allow_placeholders",
            "boolean",
            "Accept lines like '// rest of the code ...' (refused by default: the file would lose that code)",
            default=False,
        ),
    ),
    cli_help=(
        "Create FILE_PATH, or replace its whole content, with CONTENT (or --content-file PATH; '-' reads stdin). "
        "The write is atomic and keeps the file's permissions, encoding, BOM and line endings. --backup keeps "
        "the previous version as FILE_PATH.bak; --dry-run shows the diff and writes nothing."
    ),
    read_only=False,
    destructive=True,
    results=(
        *CHANGE_FIELDS,
        ResultField("backup_path", ("string", "null"), "Where the previous version was kept (backup=true)"),
    ),
)
@note_hard_links
def write(
    file_path: str,
    content: str,
    *,
    backup: bool = False,
    allow_placeholders: bool = False,
    ctx: ExecutionContext | None = None,
) -> ToolResult:
    """Create a file or replace its whole content, atomically."""
    ctx = session(ctx)
    target = resolve_file_path(ctx, file_path)
    with one_at_a_time(ctx, target.path):
        return _write_loaded(ctx, target, content, backup, allow_placeholders)


def _write_loaded(
    ctx: ExecutionContext, target: SafePath, content: str, backup: bool, allow_placeholders: bool
) -> ToolResult:
    seen = load(ctx, target, max_bytes=ctx.max_edit_bytes)
    require_fresh_read(ctx, target, seen)
    previous = _previous(seen.data if seen else None, target.display)
    if not allow_placeholders:
        refuse_new_placeholders(
            content, "content", lambda line: previous is not None and line in previous.text, target.path
        )
    content = _fit(content, previous)
    encoding = previous.encoding if previous else UTF8
    data = encode_document(content, encoding, target.display)
    if len(data) > ctx.max_write_bytes:
        raise ToolError(
            ErrorCode.FILE_TOO_LARGE,
            f"Content is {len(data)} bytes; Write accepts at most {ctx.max_write_bytes} "
            f"(ExecutionContext.max_write_bytes): {target.display}",
        )
    created = seen is None
    meta = {
        "file_path": target.path,
        "created": created,
        "encoding": encoding.label,
        "line_ending": text_style(content),
    }
    if seen is not None and seen.data == data:
        authorize(ctx, write.spec, target.path, ask=False)  # a no-op asks no one, but a deny still refuses
        prefix = "[Dry Run] " if ctx.dry_run else ""
        return ToolResult.ok(f"{prefix}Unchanged: {target.display} already has this content", bytes_written=0, **meta)
    if previous is None and not created:
        diff = f"(previous content not shown: binary or larger than {ctx.max_edit_bytes} bytes)"
    else:
        old_text = previous.text if previous else ""
        diff = unified_diff(
            old_text,
            content,
            whole_text_changes(old_text, content),
            old_label=NEW_FILE_LABEL if created else target.display,
            new_label=target.display,
        )
    verb = "create" if created else "update"
    change = Landing(
        write.spec,
        diff,
        [review_change(ctx, target.display, previous.text if previous else None, content)],
        meta,
        preview=f"[Dry Run] Would {verb} {target.display} ({len(data)} bytes)\n{diff}",
        done=f"{verb.capitalize()}d {target.display} ({len(data)} bytes)",
        writes=OneFile(target, data, seen, backup=backup),
        asked={"bytes": len(data), "created": created},
        lead={"bytes_written": len(data), "diff": diff},
    )
    return land(ctx, change)
