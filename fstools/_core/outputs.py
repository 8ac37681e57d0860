"""What a tool's metadata holds, declared once: the MCP outputSchema comes from it.

MCP clients check a result's structuredContent (the metadata) against the tool's
outputSchema, so the schema declares the types of the fields a tool reports and requires
only those every successful call carries; the rest are optional (a Read of an image has
other fields than a Read of text), and fields not declared are allowed. A failed call's
structuredContent is its `error` and `error_code` instead: some clients (the TypeScript
SDK) check an error result against the schema too, so the schema accepts either shape.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .context import ExecutionContext
from .hints import setting
from .params import JSON_TYPES


@dataclass(frozen=True)
class ResultField:
    """One metadata field: its JSON type(s), what it means, and whether every successful result has it."""

    name: str
    type: str | tuple[str, ...]
    description: str
    always: bool = False

    def __post_init__(self) -> None:
        types = (self.type,) if isinstance(self.type, str) else self.type
        unknown = [t for t in types if t not in (*JSON_TYPES, "null")]
        if unknown:
            raise ValueError(f"unknown result field type(s) {unknown} for {self.name!r}")

    def json_schema(self) -> dict[str, Any]:
        kind = self.type if isinstance(self.type, str) else list(self.type)
        return {"type": kind, "description": self.description}


ERROR_FIELDS = (
    ResultField("error", "string", "Failed calls only: what went wrong and what to do next"),
    ResultField("error_code", "string", "Failed calls only: the stable error code, e.g. file_not_found"),
)


def output_schema(fields: Sequence[ResultField]) -> dict[str, Any]:
    """The JSON Schema of a tool's metadata (MCP structuredContent): a success's fields, or a failure's error."""
    return {
        "type": "object",
        "properties": {f.name: f.json_schema() for f in (*fields, *ERROR_FIELDS)},
        "anyOf": [
            {"required": [f.name for f in fields if f.always]},
            {"required": [f.name for f in ERROR_FIELDS]},
        ],
        "additionalProperties": True,
    }


def always_reported(schema: dict[str, Any]) -> list[str]:
    """The fields every successful result carries, read back from an output_schema()."""
    required: list[str] = schema["anyOf"][0]["required"]
    return required


def page_notice(ctx: ExecutionContext, unit: str, offset: int, returned: int, total: int) -> str | None:
    """A paged search's notice (Grep, Symbols, References) when results remain after the page, else None."""
    if offset + returned >= total:
        return None
    return (
        f"(Showing {unit} {offset + 1}-{offset + returned} of {total}: "
        f"call again with {setting(ctx, 'offset', offset + returned)} for more.)"
    )


# Fields several tools report, spelled once.
FILE_PATH = ResultField("file_path", "string", "The file, as an absolute path", always=True)
DIFF = ResultField("diff", "string", "Unified diff of the change")
DRY_RUN = ResultField("dry_run", "boolean", "True when nothing was changed because the context is a dry run")
TRUNCATED = ResultField("truncated", "boolean", "More results exist than were returned", always=True)
WARNINGS = ResultField("warnings", "array", "What the call could not look at (also shown in the text)")
NOTICE = ResultField("notice", "string", "How to get the results not returned (also shown in the text)")
JOURNAL = ResultField(
    "journal", "string", "What the change journal kept for undo and rewind: recorded, off, or 'not recorded: <why>'"
)
DIAGNOSTICS = ResultField(
    "diagnostics",
    "array",
    "Syntax errors the change introduced (and what the context's checkers and language servers found): path, "
    "line, column, message, severity, source; present when a changed file's kind is checked",
)
SEMANTIC_CHECK = ResultField(
    "semantic_check",
    "object",
    "The language server's check of the changed files (ExecutionContext.language_servers): state (done, not_done "
    "with the reason, no_server), server, version, server_ms, total_ms, errors, and one entry per file in files",
)
LANGUAGE_SERVER = ResultField(
    "language_server", "object", "The language server asked: name and state (starting, ready, restarted, unavailable)"
)
CHANGE_FIELDS = (
    FILE_PATH,
    ResultField("created", "boolean", "The file did not exist before", always=True),
    ResultField("bytes_written", "integer", "Encoded bytes of the new file content", always=True),
    ResultField("encoding", "string", "The file's text encoding"),
    ResultField("line_ending", "string", "The file's line ending (LF, CRLF, CR or mixed)"),
    ResultField("in_place", "boolean", "Written in place (a hard-linked file) rather than swapped"),
    DIFF,
    DRY_RUN,
    JOURNAL,
    DIAGNOSTICS,
    SEMANTIC_CHECK,
    LANGUAGE_SERVER,
)
