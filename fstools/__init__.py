"""fstools: fast, safe file tools for AI coding agents.

Read, Write, Edit, MultiEdit, Delete, LS, Glob and Grep as plain functions returning a
ToolResult, as agent tools with OpenAI/Anthropic schemas, as an MCP server and a CLI.

The public names live in private modules and load on first use, so `import fstools`
costs about a millisecond and an agent that only greps never loads the PDF or image code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# Public name -> the private module that defines it.
_EXPORTS: dict[str, str] = {
    "AuditRecord": "_audit",
    "BaseTool": "_tool",
    "DeleteTool": "_delete",
    "EditTool": "_edit",
    "ErrorCode": "_errors",
    "ExecutionContext": "_context",
    "FileTool": "_tool",
    "GlobTool": "_glob",
    "GrepTool": "_grep",
    "LSTool": "_ls",
    "MultiEditTool": "_edit",
    "PermissionManager": "_permissions",
    "PermissionRequest": "_permissions",
    "PermissionRule": "_permissions",
    "ReadRecord": "_context",
    "ReadTool": "_read",
    "ToolCategory": "_tool",
    "ToolParameter": "_params",
    "ToolRegistry": "_registry",
    "ToolResult": "_result",
    "WriteTool": "_write",
    "create_registry": "_registry",
    "default_context": "_context",
    "delete": "_delete",
    "edit": "_edit",
    "file_tools": "_registry",
    "glob": "_glob",
    "grep": "_grep",
    "ls": "_ls",
    "multi_edit": "_edit",
    "read": "_read",
    "register_file_tools": "_registry",
    "write": "_write",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'fstools' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f"fstools.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])


if TYPE_CHECKING:
    from ._audit import AuditRecord
    from ._context import ExecutionContext, ReadRecord, default_context
    from ._delete import DeleteTool, delete
    from ._edit import EditTool, MultiEditTool, edit, multi_edit
    from ._errors import ErrorCode
    from ._glob import GlobTool, glob
    from ._grep import GrepTool, grep
    from ._ls import LSTool, ls
    from ._params import ToolParameter
    from ._permissions import PermissionManager, PermissionRequest, PermissionRule
    from ._read import ReadTool, read
    from ._registry import ToolRegistry, create_registry, file_tools, register_file_tools
    from ._result import ToolResult
    from ._tool import BaseTool, FileTool, ToolCategory
    from ._write import WriteTool, write
