"""fstools' own tools: the list of tools, in order, and the registry made from it."""

from __future__ import annotations

import re
from functools import cache
from importlib import import_module
from typing import Any

from .._core.spec import ToolSpec
from .._core.toolclass import BaseTool, FileTool
from .._core.toolregistry import ToolRegistry

# The list of tools: each tool's public function -> the module that declares it, in the order
# agents usually meet them. The registry (so the CLI, the MCP server and the schemas) is made
# from this list; the facade (`fstools/__init__.py`) names each function for its users.
FILE_TOOLS: dict[str, str] = {
    "read": "_read.read",
    "read_many": "_read.many",
    "outline": "_read.outline",
    "write": "_change.write",
    "edit": "_change.edit",
    "multi_edit": "_change.edit",
    "notebook_edit": "_change.notebook",
    "apply_patch": "_change.patch",
    "delete": "_change.delete",
    "move": "_change.move",
    "ls": "_find.ls",
    "glob": "_find.glob",
    "grep": "_grep.grep",
    "symbols": "_nav.symbols",
    "references": "_nav.references",
}

# The change journal's tools: in the CLI and the MCP server, in a registry with create_registry(journal=True).
JOURNAL_TOOLS: dict[str, str] = {
    "checkpoint": "_change.checkpoint",
    "changes": "_change.checkpoint",
    "rewind": "_change.rewind",
    "undo": "_change.undo",
}


def file_tools() -> list[BaseTool]:
    """One `FileTool` of every tool of the list, in its order (each tool's module imported here)."""
    return _tools_of(FILE_TOOLS)


def journal_tools() -> list[BaseTool]:
    """The tools that take changes back through the change journal: Checkpoint, Changes, Rewind, Undo."""
    return _tools_of(JOURNAL_TOOLS)


def tool_of(function: str) -> BaseTool | None:
    """The tool of either list whose public function is `function` (`read_many`), only its module imported."""
    module = FILE_TOOLS.get(function) or JOURNAL_TOOLS.get(function)
    return None if module is None else _tools_of({function: module})[0]


def spec_of(function: str, module: str) -> ToolSpec:
    """The spec of the tool whose public function `function` lives in `fstools.<module>`."""
    spec = getattr(import_module(f"fstools.{module}"), function).spec
    if not isinstance(spec, ToolSpec):
        raise TypeError(f"fstools.{function} must be declared with @tool")
    return spec


def _tools_of(listed: dict[str, str]) -> list[BaseTool]:
    return [FileTool(spec_of(function, module)) for function, module in listed.items()]


class _FormerToolClass(type(FileTool)):  # type: ignore[misc]
    """The metaclass of a tool class of earlier releases: a FileTool of the same spec counts as an instance."""

    spec: ToolSpec

    def __instancecheck__(cls, instance: Any) -> bool:
        if cls.__dict__.get("former"):
            return isinstance(instance, FileTool) and instance.spec is cls.spec
        return bool(super().__instancecheck__(instance))


@cache
def former_tool_class(name: str) -> type[FileTool] | None:
    """The class `name` (`GrepTool`) that earlier releases defined for one tool, or None.

    Every tool is now `FileTool(spec)`, `FileTool(fstools.grep.spec)`; the class stays for code
    that builds, subclasses or checks it (`isinstance(tool, GrepTool)` holds for any FileTool of
    Grep's spec). The facade warns that it is deprecated.
    """
    stem = name.removesuffix("Tool")
    function = re.sub(r"(?<!^)(?=[A-Z][a-z])", "_", stem).lower()
    module = FILE_TOOLS.get(function) or JOURNAL_TOOLS.get(function)
    if module is None or stem == name:
        return None
    spec = spec_of(function, module)
    if spec.name != stem:
        return None
    doc = f"Deprecated: use FileTool(fstools.{function}.spec). {spec.name} as an agent tool."
    namespace = {"spec": spec, "former": function, "__doc__": doc, "__module__": "fstools"}
    return _FormerToolClass(name, (FileTool,), namespace)


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
