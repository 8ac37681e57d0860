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
    from .._grep.tool import GrepTool
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


def journal_tools() -> list[BaseTool]:
    """The tools that take changes back through the change journal: Checkpoint, Changes, Rewind, Undo."""
    from .._change.checkpoint import ChangesTool, CheckpointTool
    from .._change.rewind import RewindTool
    from .._change.undo import UndoTool

    return [CheckpointTool(), ChangesTool(), RewindTool(), UndoTool()]


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
    """A new ToolRegistry holding every file tool: Read, Write, Edit, MultiEdit, ApplyPatch, Delete, Move,
    LS, Glob, Grep; with `journal=True` also Checkpoint, Changes, Rewind and Undo, for a model that should
    take its own changes back.

    Hand `get_all_schemas("openai")` or `get_all_schemas("anthropic")` to the model, then run each
    tool call it makes with `execute(name, context, **arguments)` (or `run` without an event loop).
    """
    return register_file_tools(ToolRegistry(), journal=journal)
