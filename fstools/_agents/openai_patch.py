"""OpenAI's built-in `apply_patch` tool (Responses API): one `apply_patch_call` operation, with ApplyPatch's guarantees.

The model sends `{"type": "create_file" | "update_file" | "delete_file", "path": ..., "diff": ...}`:
a new file's diff is its lines prefixed with "+", an update's diff is V4A hunks (`@@` lines
and " ", "-", "+" lines, no `*** Begin Patch` envelope), a deletion has no diff. The answer
is what goes back to the model: an `apply_patch_call_output` item's status and output.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from .._change.patch import apply_patch, run_operations
from .._change.v4a import DeleteFile, FileOperation, PatchSyntaxError, parse_add_diff, parse_update_diff
from .._core.context import ExecutionContext, default_context
from .._core.errors import ErrorCode, ToolError
from .._core.params import ToolParameter
from .._core.result import ToolResult
from .._core.spec import call_validated
from .._core.textsafe import printable

OPERATION_TYPES = ("create_file", "update_file", "delete_file")


def _operation(operation: Mapping[str, Any]) -> tuple[str, FileOperation]:
    kind, path, diff = operation.get("type"), operation.get("path"), operation.get("diff")
    if kind not in OPERATION_TYPES:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"operation type must be one of {', '.join(OPERATION_TYPES)}")
    if not isinstance(path, str) or not path:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, "operation path must be a non-empty string")
    if kind == "delete_file":
        return path, DeleteFile(path, 0)
    if not isinstance(diff, str):
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"a {kind} operation needs a diff (a string)")
    try:
        return path, parse_add_diff(diff, path) if kind == "create_file" else parse_update_diff(diff, path)
    except PatchSyntaxError as exc:
        where = f" (diff line {exc.line})" if exc.line else ""
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"Invalid diff for {path}{where}: {exc.message}") from None


_DONE = {"AddFile": "Created", "UpdateFile": "Updated", "DeleteFile": "Deleted"}


def _run(ctx: ExecutionContext, path: str, operation: FileOperation) -> ToolResult:
    result = run_operations(ctx, [operation])
    if not ctx.dry_run:
        result.output = f"{_DONE[type(operation).__name__]} {path}"
    return result


# The same tool as far as permissions, the read-only switch and the audit log are concerned.
_OPERATION_SPEC = replace(
    apply_patch.spec,
    parameters=(
        ToolParameter("path", "string", "The file the operation changes", required=True, path=True),
        ToolParameter("operation", "object", "The parsed operation", required=True),
    ),
    run=_run,
)


def openai_apply_patch(
    operation: Mapping[str, Any], *, ctx: ExecutionContext | None = None, call_id: str | None = None
) -> dict[str, Any]:
    """Apply one Responses API `apply_patch_call` operation; return the `apply_patch_call_output` to send back.

    `operation` is the call's `operation` dict, or the whole `apply_patch_call` item (whose
    `call_id` is then used). With a call id the answer is a complete input item
    (`type`, `call_id`, `status`, `output`), else just `status` ("completed" or "failed") and `output`.
    """
    if isinstance(operation.get("operation"), Mapping):
        call_id = call_id or operation.get("call_id")
        operation = operation["operation"]
    started = time.perf_counter()
    ctx = ctx or default_context()
    try:
        path, op = _operation(operation)
    except ToolError as exc:
        result = ToolResult.fail(exc.message, exc.code)
    else:
        result = call_validated(_OPERATION_SPEC, ctx, {"path": path, "operation": op}, started)
    answer: dict[str, Any] = {
        "status": "completed" if result.success else "failed",
        "output": result.to_text() if result.success else printable(f"Error: {result.error}"),
    }
    if call_id is not None:
        answer = {"type": "apply_patch_call_output", "call_id": call_id, **answer}
    return answer
