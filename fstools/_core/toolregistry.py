"""ToolRegistry: tools by name, with their schemas for each provider."""

from __future__ import annotations

import builtins
from typing import Any

from .context import ExecutionContext
from .errors import ErrorCode
from .result import ToolResult
from .toolclass import BaseTool


class ToolRegistry:
    """Tools by name, in registration order, with their schemas for each provider."""

    def __init__(self) -> None:
        self._tools: dict[str, BaseTool] = {}

    def register(self, tool: BaseTool) -> None:
        """Add `tool`; ValueError if a tool of the same name is already registered."""
        if tool.name in self._tools:
            raise ValueError(f"a tool named {tool.name!r} is already registered")
        self._tools[tool.name] = tool

    def get(self, name: str) -> BaseTool | None:
        """The tool called `name`, or None."""
        return self._tools.get(name)

    def list(self) -> builtins.list[BaseTool]:
        """Every tool, in registration order."""
        return builtins.list(self._tools.values())

    def names(self) -> builtins.list[str]:
        """Every tool's name, in registration order."""
        return builtins.list(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def get_all_schemas(self, provider: str = "openai", strict: bool = False) -> builtins.list[dict[str, Any]]:
        """Every tool's definition in `provider`'s format, to hand to the model: "openai" (Chat
        Completions), "openai-responses" or "anthropic".

        strict=True gives OpenAI strict-mode schemas (a model's null means "use the default").
        """
        return [tool.schema(provider, strict) for tool in self._tools.values()]

    def _unknown(self, name: str) -> ToolResult:
        return ToolResult.fail(
            f"Unknown tool: {name}. Available tools: {', '.join(self._tools)}", ErrorCode.INVALID_ARGUMENT
        )

    # `name` and `context` are positional-only: a tool argument may be called either (Grep's -C is `context`).
    async def execute(self, name: str, context: ExecutionContext | None = None, /, **kwargs: Any) -> ToolResult:
        """Run the tool called `name` with the model's arguments `kwargs` (validated first) in `context`.

        An unknown name is an invalid_argument result listing the available tools; None as
        `context` uses default_context().
        """
        tool = self._tools.get(name)
        return self._unknown(name) if tool is None else await tool.execute(context, **kwargs)

    def run(self, name: str, context: ExecutionContext | None = None, /, **kwargs: Any) -> ToolResult:
        """`execute` for callers without an event loop."""
        tool = self._tools.get(name)
        return self._unknown(name) if tool is None else tool.run(context, **kwargs)
