"""A ToolResult as a model reads it: one text, and that text plus images as each API's content blocks.

`output` is what the tool produced, ending with its "there is more" notice when there is
one (Read, LS, Glob, Grep); the warnings (what a search could not look at) travel in
metadata. `result_text` puts them in one text in that order (a notice that is only in
metadata too); `result_content` wraps it, and the result's `images` (an image file, a
PDF's page images), in the content blocks of one provider's API.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .textsafe import printable

if TYPE_CHECKING:
    from .result import Image, ToolResult

CONTENT_PROVIDERS = ("openai", "openai-responses", "anthropic", "mcp")
# Some APIs refuse an empty text block (Anthropic does): an empty result still says what it is.
EMPTY = "(no output)"


def result_text(result: ToolResult) -> str:
    """Output, then the notice, then one line per warning; for a failure, the error and its code."""
    if not result.success:
        return printable(f"{result.error} (error_code: {result.error_code})")
    notice = result.metadata.get("notice") or ""
    notes = [] if result.output.endswith(notice) else [notice]
    notes += [f"(warning: {w})" for w in result.metadata.get("warnings") or ()]
    return printable("\n".join(part for part in [result.output, *notes] if part))


def result_images(result: ToolResult) -> list[Image]:
    """The images a successful result carries, in order (a failure shows none)."""
    return [image for image in result.images if image.mime_type.startswith("image/")] if result.success else []


def _text_block(provider: str, text: str) -> dict[str, Any]:
    kind = "input_text" if provider == "openai-responses" else "text"
    return {"type": kind, "text": text}


def _image_block(provider: str, image: Image) -> dict[str, Any]:
    mime, data = image.mime_type, image.data
    if provider == "openai-responses":
        return {"type": "input_image", "image_url": f"data:{mime};base64,{data}", "detail": "auto"}
    if provider == "anthropic":
        return {"type": "image", "source": {"type": "base64", "media_type": mime, "data": data}}
    return {"type": "image", "data": data, "mimeType": mime}  # mcp


def result_content(result: ToolResult, provider: str) -> list[dict[str, Any]]:
    """The result as `provider`'s tool-result content blocks (plain dicts, JSON-ready).

    "openai": the content parts of a Chat Completions `tool` message, which take text only;
    "openai-responses": the `output` items of a `function_call_output` (input_text, input_image);
    "anthropic": the `content` of a `tool_result` block (text, base64 image);
    (in the last three, the result's images follow the text, in order)
    "mcp": CallToolResult content in the protocol's wire form (text, image with mimeType).
    """
    if provider not in CONTENT_PROVIDERS:
        raise ValueError(f"unknown content provider {provider!r}; use one of {', '.join(CONTENT_PROVIDERS)}")
    blocks = [_text_block(provider, result_text(result) or EMPTY)]
    if provider != "openai":
        blocks += [_image_block(provider, image) for image in result_images(result)]
    return blocks
