"""fstools: fast, safe file tools for AI coding agents.

Read, Write, Edit, MultiEdit, Delete, LS, Glob and Grep as plain functions returning a
ToolResult, as agent tools with OpenAI/Anthropic schemas, as an MCP server and a CLI.
"""

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

__version__ = "0.1.0"

__all__ = [
    "AuditRecord",
    "BaseTool",
    "DeleteTool",
    "EditTool",
    "ErrorCode",
    "ExecutionContext",
    "FileTool",
    "GlobTool",
    "GrepTool",
    "LSTool",
    "MultiEditTool",
    "PermissionManager",
    "PermissionRequest",
    "PermissionRule",
    "ReadTool",
    "ReadRecord",
    "ToolCategory",
    "ToolParameter",
    "ToolRegistry",
    "ToolResult",
    "WriteTool",
    "create_registry",
    "default_context",
    "delete",
    "edit",
    "file_tools",
    "glob",
    "grep",
    "ls",
    "multi_edit",
    "read",
    "register_file_tools",
    "write",
]
