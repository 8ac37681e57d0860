"""The one result type every fstools call returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ._errors import ErrorCode


@dataclass
class ToolResult:
    """Outcome of a tool call: never an exception for user errors."""

    success: bool
    output: str = ""
    error: str | None = None
    error_code: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def ok(cls, output: str = "", **metadata: Any) -> ToolResult:
        return cls(success=True, output=output, metadata=metadata)

    @classmethod
    def fail(cls, error: str, error_code: ErrorCode | str = ErrorCode.IO_ERROR, **metadata: Any) -> ToolResult:
        return cls(success=False, error=error, error_code=str(error_code), metadata=metadata)

    def to_dict(self) -> dict[str, Any]:
        return {
            "success": self.success,
            "output": self.output,
            "error": self.error,
            "error_code": self.error_code,
            "metadata": self.metadata,
        }


def with_notice(result: ToolResult) -> str:
    """The output as a text-only agent should see it: with the tool's "there is more" notice.

    Glob and Grep keep `output` machine-parseable (one path or line per line) and put the
    notice in metadata; the MCP server and the CLI, whose readers see only text, append it.
    """
    notice = result.metadata.get("notice")
    if not notice:
        return result.output
    return f"{result.output}\n{notice}" if result.output else notice
