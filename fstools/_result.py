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
