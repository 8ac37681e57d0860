"""fstools' tools for PydanticAI: `Tool`s built from each tool's JSON Schema.

    from pydantic_ai import Agent
    from fstools.integrations import pydantic_ai

    agent = Agent("openai:gpt-5.2", tools=pydantic_ai.tools(ctx))

A result is the text the model reads (output, "there is more" notice, warnings) and, for a
Read of an image or a PDF's page images, `BinaryContent` images. A failure raises
`ToolFailed`, so the model sees a failed tool result with the error and its code and adapts
(nothing is retried behind its back). The schemas are strict-mode compatible (every parameter
listed, null meaning its default), so providers that support strict tools use them.
"""

from __future__ import annotations

import base64
from typing import Any

from pydantic_ai import BinaryContent, Tool
from pydantic_ai.exceptions import ToolFailed

from .._core.context import ExecutionContext
from .._core.toolclass import BaseTool
from ._common import call, parts, selected_tools, strict_arguments

__all__ = ["tools"]


def tools(ctx: ExecutionContext, *, include: list[str] | None = None) -> list[Tool[Any]]:
    """A PydanticAI `Tool` for every fstools tool (or those named in `include`), running in `ctx`."""
    return [_tool(tool, ctx) for tool in selected_tools(include)]


def _tool(tool: BaseTool, ctx: ExecutionContext) -> Tool[Any]:
    async def invoke(**arguments: Any) -> str | list[str | BinaryContent]:
        answer = parts(await call(tool, ctx, arguments))
        if answer.failed:
            raise ToolFailed(answer.text)
        if not answer.images:
            return answer.text
        images = [BinaryContent(data=base64.b64decode(i.data), media_type=i.mime_type) for i in answer.images]
        return [answer.text, *images]

    made: Tool[Any] = Tool.from_schema(
        invoke, name=tool.name, description=tool.description, json_schema=strict_arguments(tool)
    )
    return made
