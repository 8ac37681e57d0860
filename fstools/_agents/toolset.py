"""The registry of fstools' own tools, made from the facade's list of tools."""

from __future__ import annotations

from collections.abc import Callable

from .._core.spec import ToolSpec
from .._core.toolclass import BaseTool, FileTool
from .._core.toolregistry import ToolRegistry


def file_tools() -> list[BaseTool]:
    """One instance of every tool of the facade's list, in its order (each tool's module imported here).

    A module that defines its own FileTool subclass for the tool (GrepTool) gets an instance of
    it; any other tool is a FileTool of its spec.
    """

    from .. import _TOOLS

    return _tools_of(_TOOLS)


def journal_tools() -> list[BaseTool]:
    """The tools that take changes back through the change journal: Checkpoint, Changes, Rewind, Undo."""
    from .. import _JOURNAL_TOOLS

    return _tools_of(_JOURNAL_TOOLS)


def tool_of(function: str) -> BaseTool | None:
    """The tool of either list whose public function is `function` (`read_many`), only its module imported."""
    from .. import _JOURNAL_TOOLS, _TOOLS

    module = _TOOLS.get(function) or _JOURNAL_TOOLS.get(function)
    return None if module is None else _tools_of({function: module})[0]


def _tools_of(listed: dict[str, str]) -> list[BaseTool]:
    from importlib import import_module

    tools: list[BaseTool] = []
    for function, name in listed.items():
        module = import_module(f"fstools.{name}")
        spec = getattr(module, function).spec
        if not isinstance(spec, ToolSpec):
            raise TypeError(f"fstools.{function} must be declared with @tool")
        tools.append(_own_class(vars(module), spec)())
    return tools


def _own_class(namespace: dict[str, object], spec: ToolSpec) -> Callable[[], FileTool]:
    """The class a tool's module defines for `spec`, or a maker of FileTool(spec)."""
    for value in namespace.values():
        # The spec first: Python 3.10 counts an alias such as `dict[str, int]` as a type, which issubclass() refuses.
        if isinstance(value, type) and value.__dict__.get("spec") is spec and issubclass(value, FileTool):
            return value
    return lambda: FileTool(spec)


def register_file_tools(registry: ToolRegistry, *, journal: bool = False) -> ToolRegistry:
    """Register every file tool (see file_tools) in `registry` and return it.

    Args:
        registry: The registry to add the tools to; ValueError if it already holds one of their names.
        journal: Also register the change journal's tools (see journal_tools).
    """
    for tool in file_tools() + (journal_tools() if journal else []):
        registry.register(tool)
    return registry


def create_registry(*, journal: bool = False) -> ToolRegistry:
    """A new ToolRegistry holding every fstools file tool (`file_tools()`, in that order); with
    `journal=True` also the change journal's tools (`journal_tools()`), for a model that should
    take its own changes back (the CLI and the MCP server include them).

    Hand `get_all_schemas("openai")` or `get_all_schemas("anthropic")` to the model, then run each
    tool call it makes with `execute(name, context, **arguments)` (or `run` without an event loop).
    """
    return register_file_tools(ToolRegistry(), journal=journal)
