"""The registry of fstools' own file tools."""

from __future__ import annotations

from .._core.registry import ToolRegistry
from .._core.tool import BaseTool


def file_tools() -> list[BaseTool]:
    """One instance of every working file tool, in the order agents usually meet them."""
    from .._change.delete import DeleteTool
    from .._change.edit import EditTool, MultiEditTool
    from .._change.move import MoveTool
    from .._change.patch import ApplyPatchTool
    from .._change.write import WriteTool
    from .._find.glob import GlobTool
    from .._find.ls import LSTool
    from .._grep.grep import GrepTool
    from .._read.tool import ReadTool

    return [
        ReadTool(),
        WriteTool(),
        EditTool(),
        MultiEditTool(),
        ApplyPatchTool(),
        DeleteTool(),
        MoveTool(),
        LSTool(),
        GlobTool(),
        GrepTool(),
    ]


def register_file_tools(registry: ToolRegistry) -> ToolRegistry:
    """Register every file tool (see file_tools) in `registry` and return it.

    Args:
        registry: The registry to add the tools to; ValueError if it already holds one of their names.
    """
    for tool in file_tools():
        registry.register(tool)
    return registry


def create_registry() -> ToolRegistry:
    """A new ToolRegistry holding every file tool: Read, Write, Edit, MultiEdit, Delete, LS, Glob, Grep.

    Hand `get_all_schemas("openai")` or `get_all_schemas("anthropic")` to the model, then run each
    tool call it makes with `execute(name, context, **arguments)` (or `run` without an event loop).
    """
    return register_file_tools(ToolRegistry())
