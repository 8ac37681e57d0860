"""The registry of fstools' own tools, made from the facade's list of tools."""

from __future__ import annotations

from .._core.registry import ToolRegistry
from .._core.spec import ToolSpec
from .._core.tool import BaseTool, FileTool


def tool_specs(*, journal: bool = False) -> list[ToolSpec]:
    """The spec of every tool in the facade's list, in its order (each tool's module imported here); with
    `journal`, the journal's tools instead (Checkpoint, Changes, Rewind, Undo)."""
    from importlib import import_module

    from .. import _JOURNAL_TOOLS, _TOOLS

    listed = _JOURNAL_TOOLS if journal else _TOOLS
    specs = [getattr(import_module(f"fstools.{module}"), function).spec for function, module in listed.items()]
    if not all(isinstance(spec, ToolSpec) for spec in specs):
        raise TypeError("every function in the list of tools must be declared with @tool")
    return specs


def file_tools() -> list[BaseTool]:
    """One instance of every working file tool, in the order agents usually meet them."""
    return [FileTool.of(spec) for spec in tool_specs()]


def journal_tools() -> list[BaseTool]:
    """The tools that take changes back through the change journal: Checkpoint, Changes, Rewind, Undo."""
    return [FileTool.of(spec) for spec in tool_specs(journal=True)]


def register_file_tools(registry: ToolRegistry, *, journal: bool = False) -> ToolRegistry:
    """Register every file tool (see file_tools) in `registry` and return it.

    Args:
        registry: The registry to add the tools to; ValueError if it already holds one of their names.
        journal: Also register Checkpoint, Changes, Rewind and Undo (see journal_tools).
    """
    for tool in file_tools() + (journal_tools() if journal else []):
        registry.register(tool)
    return registry


def create_registry(*, journal: bool = False) -> ToolRegistry:
    """A new ToolRegistry holding every fstools file tool (`file_tools()`, in that order); with
    `journal=True` also Checkpoint, Changes, Rewind and Undo, for a model that should take its own
    changes back (the CLI and the MCP server include them).

    Hand `get_all_schemas("openai")` or `get_all_schemas("anthropic")` to the model, then run each
    tool call it makes with `execute(name, context, **arguments)` (or `run` without an event loop).
    """
    return register_file_tools(ToolRegistry(), journal=journal)
