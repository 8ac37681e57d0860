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
    "ApplyPatchTool",
    "AuditRecord",
    "BaseTool",
    "ChangesTool",
    "CheckpointTool",
    "DeleteTool",
    "EditTool",
    "ErrorCode",
    "ExecutionContext",
    "FileTool",
    "GlobTool",
    "GrepTool",
    "Image",
    "LSTool",
    "MoveTool",
    "MultiEditTool",
    "NotebookEditTool",
    "OutlineTool",
    "PermissionManager",
    "PermissionRequest",
    "PermissionRule",
    "ReadManyTool",
    "ReadRecord",
    "ReadTool",
    "ReferencesTool",
    "RewindTool",
    "SymbolsTool",
    "ToolCategory",
    "ToolParameter",
    "ToolRegistry",
    "ToolResult",
    "UndoTool",
    "WriteTool",
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

# The list of tools: each tool's public function -> the module that declares it, in the order
# agents usually meet them. The registry (so the CLI, the MCP server and the schemas) is made
# from this list; a new tool is a line here, its name in __all__ and its TYPE_CHECKING import.
_TOOLS: dict[str, str] = {
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
_JOURNAL_TOOLS: dict[str, str] = {
    "checkpoint": "_change.checkpoint",
    "changes": "_change.checkpoint",
    "rewind": "_change.rewind",
    "undo": "_change.undo",
}

# Public name -> the private module that defines it, imported on first use.
_EXPORTS: dict[str, str] = {
    **_TOOLS,
    **_JOURNAL_TOOLS,
    "ChangesTool": "_change.checkpoint",
    "CheckpointTool": "_change.checkpoint",
    "RewindTool": "_change.rewind",
    "UndoTool": "_change.undo",
    "journal_tools": "_agents.toolset",
    "ApplyPatchTool": "_change.patch",
    "AuditRecord": "_core.audit",
    "BaseTool": "_core.toolclass",
    "DeleteTool": "_change.delete",
    "EditTool": "_change.edit",
    "ErrorCode": "_core.errors",
    "ExecutionContext": "_core.context",
    "FileTool": "_core.toolclass",
    "GlobTool": "_find.glob",
    "GrepTool": "_grep.grep",
    "Image": "_core.result",
    "LSTool": "_find.ls",
    "MoveTool": "_change.move",
    "MultiEditTool": "_change.edit",
    "NotebookEditTool": "_change.notebook",
    "OutlineTool": "_read.outline",
    "PermissionManager": "_core.permissions",
    "PermissionRequest": "_core.permissions",
    "PermissionRule": "_core.permissions",
    "ReadManyTool": "_read.many",
    "ReferencesTool": "_nav.references",
    "SymbolsTool": "_nav.symbols",
    "ReadRecord": "_core.context",
    "ReadTool": "_read.read",
    "ToolCategory": "_core.toolclass",
    "ToolParameter": "_core.params",
    "ToolRegistry": "_core.toolregistry",
    "ToolResult": "_core.result",
    "WriteTool": "_change.write",
    "anthropic_text_editor": "_agents.text_editor",
    "build_index": "_index.service",
    "create_registry": "_agents.toolset",
    "default_context": "_core.context",
    "file_tools": "_agents.toolset",
    "openai_apply_patch": "_agents.openai_patch",
    "register_file_tools": "_agents.toolset",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'fstools' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f"fstools.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return list(__all__)


if TYPE_CHECKING:
    from ._agents.openai_patch import openai_apply_patch
    from ._agents.text_editor import anthropic_text_editor
    from ._agents.toolset import create_registry, file_tools, journal_tools, register_file_tools
    from ._change.checkpoint import ChangesTool, CheckpointTool, changes, checkpoint
    from ._change.delete import DeleteTool, delete
    from ._change.edit import EditTool, MultiEditTool, edit, multi_edit
    from ._change.move import MoveTool, move
    from ._change.notebook import NotebookEditTool, notebook_edit
    from ._change.patch import ApplyPatchTool, apply_patch
    from ._change.rewind import RewindTool, rewind
    from ._change.undo import UndoTool, undo
    from ._change.write import WriteTool, write
    from ._core.audit import AuditRecord
    from ._core.context import ExecutionContext, ReadRecord, default_context
    from ._core.errors import ErrorCode
    from ._core.params import ToolParameter
    from ._core.permissions import PermissionManager, PermissionRequest, PermissionRule
    from ._core.result import Image, ToolResult
    from ._core.toolclass import BaseTool, FileTool, ToolCategory
    from ._core.toolregistry import ToolRegistry
    from ._find.glob import GlobTool, glob
    from ._find.ls import LSTool, ls
    from ._grep.grep import GrepTool, grep
    from ._index.service import build_index
    from ._nav.references import ReferencesTool, references
    from ._nav.symbols import SymbolsTool, symbols
    from ._read.many import ReadManyTool, read_many
    from ._read.outline import OutlineTool, outline
    from ._read.read import ReadTool, read
