"""ToolRegistry: tools by name, with their schemas for each provider."""

from __future__ import annotations

from typing import Any

from .context import ExecutionContext
from .errors import ErrorCode
from .result import ToolResult
from .tool import BaseTool


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

    # `name` and `context` are positional-only: a tool argument may be called either (Grep's -C is `context`).
    async def execute(self, name: str, context: ExecutionContext | None = None, /, **kwargs: Any) -> ToolResult:
        tool = self._tools.get(name)
        return self._unknown(name) if tool is None else await tool.execute(context, **kwargs)

    def run(self, name: str, context: ExecutionContext | None = None, /, **kwargs: Any) -> ToolResult:
        tool = self._tools.get(name)
        return self._unknown(name) if tool is None else tool.run(context, **kwargs)
