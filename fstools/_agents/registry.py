"""The registry of fstools' own tools, made from the facade's list of tools."""

from __future__ import annotations

from .._core.registry import ToolRegistry
from .._core.spec import ToolSpec
from .._core.tool import BaseTool, FileTool


def tool_specs() -> list[ToolSpec]:
    """The spec of every tool in the facade's list, in its order (each tool's module imported here)."""
    from importlib import import_module

    from .. import _TOOLS

    specs = [getattr(import_module(f"fstools.{module}"), function).spec for function, module in _TOOLS.items()]
    if not all(isinstance(spec, ToolSpec) for spec in specs):
        raise TypeError("every function in the list of tools must be declared with @tool")
    return specs


def file_tools() -> list[BaseTool]:
    """One instance of every working file tool, in the order agents usually meet them."""
    return [FileTool.of(spec) for spec in tool_specs()]


def register_file_tools(registry: ToolRegistry) -> ToolRegistry:
    """Register every file tool (see file_tools) in `registry` and return it.

    Args:
        registry: The registry to add the tools to; ValueError if it already holds one of their names.
    """
    for tool in file_tools():
        registry.register(tool)
    return registry


def create_registry() -> ToolRegistry:
    """A new ToolRegistry holding every fstools tool (`file_tools()`, in that order).

    Hand `get_all_schemas("openai")` or `get_all_schemas("anthropic")` to the model, then run each
    tool call it makes with `execute(name, context, **arguments)` (or `run` without an event loop).
    """
    return register_file_tools(ToolRegistry())
