"""fstools: fast, safe file tools for AI coding agents.

Read, Write, Edit, MultiEdit, Delete, LS, Glob and Grep as plain functions returning a
ToolResult, as agent tools with OpenAI/Anthropic schemas, as an MCP server and a CLI.
"""

from ._audit import AuditRecord
from ._context import ExecutionContext, ReadRecord, default_context
from ._errors import ErrorCode
from ._grep import GrepTool, grep
from ._ls import LSTool, ls
from ._params import ToolParameter
from ._permissions import PermissionManager, PermissionRequest, PermissionRule
from ._registry import ToolRegistry, create_registry, file_tools, register_file_tools
from ._result import ToolResult
from ._tool import BaseTool, FileTool, ToolCategory

__version__ = "0.1.0"

__all__ = [
    "AuditRecord",
    "BaseTool",
    "ErrorCode",
    "ExecutionContext",
    "FileTool",
    "GrepTool",
    "LSTool",
    "PermissionManager",
    "PermissionRequest",
    "PermissionRule",
    "ReadRecord",
    "ToolCategory",
    "ToolParameter",
    "ToolRegistry",
    "ToolResult",
    "create_registry",
    "default_context",
    "file_tools",
    "grep",
    "ls",
    "register_file_tools",
]
