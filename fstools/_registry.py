"""ToolRegistry and the registration of fstools' file tools."""

from __future__ import annotations

from typing import Any

from ._context import ExecutionContext
from ._errors import ErrorCode
from ._result import ToolResult
from ._tool import BaseTool


class ToolRegistry:
    """Tools by name, in registration order, with their schemas for each provider."""

    def __init__(self) -> None:
        self._tools: dict[str, BaseTool] = {}

    def register(self, tool: BaseTool) -> None:
        if tool.name in self._tools:
            raise ValueError(f"a tool named {tool.name!r} is already registered")
        self._tools[tool.name] = tool

    def get(self, name: str) -> BaseTool | None:
        return self._tools.get(name)

    def list(self) -> list[BaseTool]:
        return list(self._tools.values())

    def names(self) -> list[str]:
        return list(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def get_all_schemas(self, provider: str = "openai") -> list[dict[str, Any]]:
        return [tool.schema(provider) for tool in self._tools.values()]

    def _unknown(self, name: str) -> ToolResult:
        return ToolResult.fail(
            f"Unknown tool: {name}. Available tools: {', '.join(self._tools)}", ErrorCode.INVALID_ARGUMENT
        )

    async def execute(self, name: str, context: ExecutionContext | None = None, **kwargs: Any) -> ToolResult:
        tool = self._tools.get(name)
        return self._unknown(name) if tool is None else await tool.execute(context, **kwargs)

    def run(self, name: str, context: ExecutionContext | None = None, **kwargs: Any) -> ToolResult:
        tool = self._tools.get(name)
        return self._unknown(name) if tool is None else tool.run(context, **kwargs)


def file_tools() -> list[BaseTool]:
    """One instance of every working file tool, in the order agents usually meet them."""
    from ._delete import DeleteTool
    from ._edit import EditTool, MultiEditTool
    from ._glob import GlobTool
    from ._grep import GrepTool
    from ._ls import LSTool
    from ._read import ReadTool
    from ._write import WriteTool

    return [ReadTool(), WriteTool(), EditTool(), MultiEditTool(), DeleteTool(), LSTool(), GlobTool(), GrepTool()]


def register_file_tools(registry: ToolRegistry) -> ToolRegistry:
    for tool in file_tools():
        registry.register(tool)
    return registry


def create_registry() -> ToolRegistry:
    return register_file_tools(ToolRegistry())
