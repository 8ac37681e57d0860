"""fstools' tools for the Claude Agent SDK: one in-process MCP server holding every tool.

    from claude_agent_sdk import ClaudeAgentOptions
    from fstools.integrations import claude_agent_sdk

    options = ClaudeAgentOptions(mcp_servers={"fstools": claude_agent_sdk.server(ctx)})

Claude sees the tools as `mcp__fstools__Read`, `mcp__fstools__Grep`, ... A result is the text
the model reads (output, "there is more" notice, warnings) and, for a Read of an image or a
PDF's page images, image content; a failure is an `isError` result with the error and its
code. Optional parameters also accept null (meaning their default): the SDK checks arguments
against the schema before the call, and models send null for what they leave out.
"""

from __future__ import annotations

from typing import Any

from claude_agent_sdk import McpSdkServerConfig, SdkMcpTool, create_sdk_mcp_server
from mcp.types import ToolAnnotations

from ..__version__ import __version__
from .._core.context import ExecutionContext
from .._core.toolclass import BaseTool
from ._common import call, nullable_optionals, selected_tools

__all__ = ["server"]


def server(ctx: ExecutionContext, *, include: list[str] | None = None, name: str = "fstools") -> McpSdkServerConfig:
    """The SDK's in-process MCP server config for every fstools tool (or those in `include`), running in `ctx`."""
    return create_sdk_mcp_server(name, __version__, [_sdk_tool(tool, ctx) for tool in selected_tools(include)])


def _sdk_tool(tool: BaseTool, ctx: ExecutionContext) -> SdkMcpTool[Any]:
    async def handler(arguments: dict[str, Any]) -> dict[str, Any]:
        result = await call(tool, ctx, arguments)
        return {"content": result.to_content("mcp"), "is_error": not result.success}

    hints = ToolAnnotations(
        title=tool.name, read_only_hint=tool.read_only, destructive_hint=tool.destructive, open_world_hint=False
    )
    return SdkMcpTool(tool.name, tool.description, nullable_optionals(tool.input_schema()), handler, hints)
