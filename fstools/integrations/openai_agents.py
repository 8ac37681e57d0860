"""fstools' tools for the OpenAI Agents SDK: `FunctionTool`s with strict schemas.

    from agents import Agent
    from fstools.integrations import openai_agents

    agent = Agent(name="coder", tools=openai_agents.tools(ctx))

A result is the text the model reads (output, "there is more" notice, warnings) and, for a
Read of an image or a PDF's page images, `ToolOutputImage`s. A failure is returned to the
model as its error text (`<error> (error_code: <code>)`), which is how the SDK reports a tool
error it can recover from; the run goes on.
"""

from __future__ import annotations

from typing import Any

from agents import FunctionTool, ToolOutputImage, ToolOutputText
from agents.tool_context import ToolContext

from .._core.context import ExecutionContext
from .._core.toolclass import BaseTool
from ._common import call, parse_arguments, parts, selected_tools, strict_arguments

__all__ = ["tools"]


def tools(ctx: ExecutionContext, *, include: list[str] | None = None) -> list[FunctionTool]:
    """A strict `FunctionTool` for every fstools tool (or those named in `include`), running in `ctx`."""
    return [_function_tool(tool, ctx) for tool in selected_tools(include)]


def _function_tool(tool: BaseTool, ctx: ExecutionContext) -> FunctionTool:
    async def invoke(_: ToolContext[Any], arguments: str) -> list[ToolOutputText | ToolOutputImage] | str:
        try:
            result = await call(tool, ctx, parse_arguments(arguments))
        except ValueError as exc:  # not a JSON object: the model can correct it
            return f"Invalid arguments: {exc} (error_code: invalid_argument)"
        answer = parts(result)
        if not answer.images:
            return answer.text
        images = [ToolOutputImage(image_url=f"data:{i.mime_type};base64,{i.data}") for i in answer.images]
        return [ToolOutputText(text=answer.text), *images]

    return FunctionTool(
        name=tool.name,
        description=tool.description,
        params_json_schema=strict_arguments(tool),
        on_invoke_tool=invoke,
        strict_json_schema=True,
    )
