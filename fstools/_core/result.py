"""The one result type every fstools call returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .errors import ErrorCode


@dataclass(frozen=True)
class Image:
    """An image a result carries for the model: every front end renders it as image content.

    `data` is the image base64-encoded (what every provider's content block takes); `width`
    and `height` are in pixels when known.
    """

    mime_type: str
    data: str
    width: int | None = None
    height: int | None = None

    @classmethod
    def from_bytes(cls, raw: bytes, mime_type: str, width: int | None = None, height: int | None = None) -> Image:
        """The image of the encoded file bytes `raw` (PNG, JPEG, ...)."""
        import base64

        return cls(mime_type, base64.b64encode(raw).decode("ascii"), width, height)


@dataclass
class ToolResult:
    """Outcome of a tool call: never an exception for user errors.

    Attributes:
        success: Whether the call did what it was asked.
        output: The text for the model (file lines, listing, diff summary...).
        error: On failure, a message that says what to do next.
        error_code: On failure, a stable ErrorCode value such as "file_not_found".
        metadata: Structured details: paths, counts, truncation, the diff, warnings.
        images: Images for the model (an image file, a PDF's page images), in order; `to_content`
            and the MCP server send them as image content, whichever tool returned them.
    """

    success: bool
    output: str = ""
    error: str | None = None
    error_code: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    images: list[Image] = field(default_factory=list)

    @classmethod
    def ok(cls, output: str = "", **metadata: Any) -> ToolResult:
        """A successful result with `output` text and `metadata` (images: `ToolResult(True, ..., images=[...])`)."""
        return cls(success=True, output=output, metadata=metadata)

    @classmethod
    def fail(cls, error: str, error_code: ErrorCode | str = ErrorCode.IO_ERROR, **metadata: Any) -> ToolResult:
        """A failed result: the `error` message, its machine-readable `error_code` and `metadata`."""
        return cls(success=False, error=error, error_code=str(error_code), metadata=metadata)

    def to_dict(self) -> dict[str, Any]:
        """The result as a plain dict (success, output, error, error_code, metadata), e.g. for JSON."""
        return {
            "success": self.success,
            "output": self.output,
            "error": self.error,
            "error_code": self.error_code,
            "metadata": self.metadata,
        }

    def to_text(self) -> str:
        """What a reader of text alone must see: output, then the notice, then the warnings.

        A failure reads "<error> (error_code: <code>)".
        """
        from .render import result_text

        return result_text(self)

    def to_content(self, provider: str) -> list[dict[str, Any]]:
        """The result as tool-result content blocks of "openai", "openai-responses", "anthropic" or "mcp"."""
        from .render import result_content

        return result_content(self, provider)
