"""fstools: fast, safe file tools for AI coding agents.

Tools to read (one file, many, or an outline), write, edit (text and notebooks), patch, move,
delete, list and search files, and to take changes back, as plain functions returning a
ToolResult, as agent tools with OpenAI/Anthropic schemas, as an MCP server and a CLI
(`file_tools()` and `journal_tools()` list them).

The public names live in private subpackages and load on first use, so `import fstools`
costs about a millisecond and an agent that only greps never loads the PDF or image code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .__version__ import __version__

__all__ = [
    "AuditRecord",
    "BaseTool",
    "ErrorCode",
    "ExecutionContext",
    "FileTool",
    "Image",
    "PermissionManager",
    "PermissionRequest",
    "PermissionRule",
    "ReadRecord",
    "ToolCategory",
    "ToolParameter",
    "ToolRegistry",
    "ToolResult",
    "__version__",
    "anthropic_text_editor",
    "apply_patch",
    "build_index",
    "changes",
    "checkpoint",
    "create_registry",
    "default_context",
    "delete",
    "edit",
    "file_tools",
    "glob",
    "grep",
    "journal_tools",
    "ls",
    "move",
    "multi_edit",
    "notebook_edit",
    "openai_apply_patch",
    "outline",
    "read",
    "read_many",
    "references",
    "register_file_tools",
    "rewind",
    "symbols",
    "undo",
    "write",
]

# Public name -> the private module that defines it, imported on first use. The tools' functions
# are in the list of tools (`_agents/toolset.py`), which says which module declares each.
_EXPORTS: dict[str, str] = {
    "journal_tools": "_agents.toolset",
    "AuditRecord": "_core.audit",
    "BaseTool": "_core.toolclass",
    "ErrorCode": "_core.errors",
    "ExecutionContext": "_core.context",
    "FileTool": "_core.toolclass",
    "Image": "_core.result",
    "PermissionManager": "_core.permissions",
    "PermissionRequest": "_core.permissions",
    "PermissionRule": "_core.permissions",
    "ReadRecord": "_core.context",
    "ToolCategory": "_core.toolclass",
    "ToolParameter": "_core.params",
    "ToolRegistry": "_core.toolregistry",
    "ToolResult": "_core.result",
    "anthropic_text_editor": "_agents.text_editor",
    "build_index": "_index.service",
    "create_registry": "_agents.toolset",
    "default_context": "_core.context",
    "file_tools": "_agents.toolset",
    "openai_apply_patch": "_agents.openai_patch",
    "register_file_tools": "_agents.toolset",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name) or _tool_module(name)
    if module is None:
        return _former_tool_class(name)
    from importlib import import_module

    value = getattr(import_module(f"fstools.{module}"), name)
    globals()[name] = value
    return value


def _tool_module(name: str) -> str | None:
    """The module of a tool's public function (`grep`), from the list of tools."""
    if name not in __all__:
        return None
    from ._agents.toolset import FILE_TOOLS, JOURNAL_TOOLS

    return FILE_TOOLS.get(name) or JOURNAL_TOOLS.get(name)


def _former_tool_class(name: str) -> Any:
    """`GrepTool` and the other tool classes of earlier releases: deprecated, each still a FileTool of its spec."""
    if name.endswith("Tool"):
        from ._agents.toolset import former_tool_class

        cls = former_tool_class(name)
        if cls is not None:
            import warnings

            message = f"fstools.{name} is deprecated: use fstools.FileTool(fstools.{cls.__dict__['former']}.spec)"
            warnings.warn(message, DeprecationWarning, stacklevel=3)
            return cls
    raise AttributeError(f"module 'fstools' has no attribute {name!r}")


def __dir__() -> list[str]:
    return list(__all__)


if TYPE_CHECKING:
    from ._agents.openai_patch import openai_apply_patch
    from ._agents.text_editor import anthropic_text_editor
    from ._agents.toolset import create_registry, file_tools, journal_tools, register_file_tools
    from ._change.checkpoint import changes, checkpoint
    from ._change.delete import delete
    from ._change.edit import edit, multi_edit
    from ._change.move import move
    from ._change.notebook import notebook_edit
    from ._change.patch import apply_patch
    from ._change.rewind import rewind
    from ._change.undo import undo
    from ._change.write import write
    from ._core.audit import AuditRecord
    from ._core.context import ExecutionContext, ReadRecord, default_context
    from ._core.errors import ErrorCode
    from ._core.params import ToolParameter
    from ._core.permissions import PermissionManager, PermissionRequest, PermissionRule
    from ._core.result import Image, ToolResult
    from ._core.toolclass import BaseTool, FileTool, ToolCategory
    from ._core.toolregistry import ToolRegistry
    from ._find.glob import glob
    from ._find.ls import ls
    from ._grep.grep import grep
    from ._index.service import build_index
    from ._nav.references import references
    from ._nav.symbols import symbols
    from ._read.many import read_many
    from ._read.outline import outline
    from ._read.read import read

if TYPE_CHECKING:
    # The deprecated tool classes (served by __getattr__ with a DeprecationWarning), for type checkers:
    # one alias a line (mypy takes a chained assignment for variables, not usable as a type or a base).
    ApplyPatchTool = FileTool
    ChangesTool = FileTool
    CheckpointTool = FileTool
    DeleteTool = FileTool
    EditTool = FileTool
    GlobTool = FileTool
    GrepTool = FileTool
    LSTool = FileTool
    MoveTool = FileTool
    MultiEditTool = FileTool
    NotebookEditTool = FileTool
    OutlineTool = FileTool
    ReadManyTool = FileTool
    ReadTool = FileTool
    ReferencesTool = FileTool
    RewindTool = FileTool
    SymbolsTool = FileTool
    UndoTool = FileTool
    WriteTool = FileTool
