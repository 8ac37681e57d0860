"""The pipeline every call runs through, whether from Python, the tool layer, MCP or the CLI."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .audit import audit
from .context import ExecutionContext, default_context
from .errors import ErrorCode, ToolError, error_from_oserror
from .outputs import ResultField
from .params import ToolParameter, validate_arguments
from .permissions import PermissionRequest
from .result import ToolResult


@dataclass(frozen=True)
class ToolSpec:
    """A tool's single source of truth: name, description, parameters and implementation.

    `run(ctx, **kwargs)` receives validated arguments keyed by each parameter's keyword;
    `results` declares the metadata its results carry; `cli_help` is its help for people at
    the command line (paths relative or absolute, `--flag` names), where `description` is for models.
    """

    name: str
    description: str
    parameters: Sequence[ToolParameter]
    run: Callable[..., ToolResult]
    read_only: bool
    destructive: bool = False
    results: Sequence[ResultField] = ()
    cli_help: str = ""


def _path_arg(args: Mapping[str, Any]) -> str | None:
    value = args.get("file_path", args.get("path", args.get("source")))
    return value if isinstance(value, str) else None


def call_validated(spec: ToolSpec, ctx: ExecutionContext, kwargs: dict[str, Any], started: float) -> ToolResult:
    """Run a tool on already-validated arguments: policy checks, the implementation, the audit."""
    try:
        if not ctx.take_rate_token(time.monotonic()):
            raise ToolError(
                ErrorCode.RATE_LIMITED,
                f"Rate limit reached: at most {ctx.rate_limit_per_minute} operations per minute",
            )
        if ctx.read_only and not spec.read_only and not ctx.dry_run:
            raise ToolError(ErrorCode.PERMISSION_DENIED, f"{spec.name} is not allowed: the context is read-only")
        result = spec.run(ctx, **kwargs)
    except ToolError as exc:
        result = ToolResult.fail(exc.message, exc.code, **exc.metadata)
    except OSError as exc:
        err = error_from_oserror(exc, _path_arg(kwargs) or exc.filename or "?")
        result = ToolResult.fail(err.message, err.code)
    if ctx.dry_run and not spec.read_only:
        result.metadata.setdefault("dry_run", True)
    audit(ctx, spec.name, _path_arg(kwargs), result, started)
    return result


def invoke(spec: ToolSpec, ctx: ExecutionContext | None, args: Mapping[str, Any]) -> ToolResult:
    """Validate `args` (keyed by tool parameter names) and run the tool."""
    started = time.perf_counter()
    try:
        kwargs = validate_arguments(spec.parameters, args)
    except ToolError as exc:
        return ToolResult.fail(exc.message, exc.code)
    return call_validated(spec, ctx or default_context(), kwargs, started)


def authorize(
    ctx: ExecutionContext,
    tool: str,
    path: str,
    diff: str | None = None,
    *,
    ask: bool = True,
    covers: Iterable[str] = (),
    **details: Any,
) -> None:
    """Ask the context's PermissionManager, if any, whether `tool` may act on `path` (and `covers`).

    A deny rule refuses even a dry run or a no-op; `ask` rules consult the human only for a real
    change (`ask=False` for a no-op, and never in a dry run).
    """
    if ctx.permissions is not None:
        request = PermissionRequest(tool, path, diff, details)
        ctx.permissions.authorize(request, dry_run=ctx.dry_run or not ask, covers=covers)


def denied_test(ctx: ExecutionContext, tool: str) -> Callable[[str], bool] | None:
    """Whether a deny rule forbids `tool` a path; None (nothing to test) without such rules."""
    return ctx.permissions.denied(tool) if ctx.permissions is not None else None


def drop_denied(ctx: ExecutionContext, tool: str, paths: list[str]) -> list[str]:
    """`paths` minus those a deny rule forbids `tool`: a listing must not show what reading would refuse."""
    denied = denied_test(ctx, tool)
    return paths if denied is None else [p for p in paths if not denied(p)]
