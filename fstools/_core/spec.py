"""A tool's declaration (`ToolSpec`) and the pipeline every call runs through, whichever front end it comes from."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .audit import audit
from .cancel import Cancelled
from .context import ExecutionContext, default_context
from .errors import ErrorCode, ToolError, error_from_oserror
from .outputs import ResultField
from .params import ToolParameter, validate_arguments
from .result import ToolResult


@dataclass(frozen=True)
class ToolSpec:
    """A tool's single source of truth: everything about it is declared here, once.

    `run(ctx, **kwargs)` receives validated arguments keyed by each parameter's keyword;
    `results` declares the metadata its results carry. `answers_to` names the other tools whose
    permission rules also govern this one (a batch of edits obeys the rules written for Edit).
    For the command line: `cli_help` is its help for people (paths relative or absolute,
    `--flag` names), where `description` is for models; `cli_match_count` names the metadata
    count of a search, whose zero exits 1 as grep does (0 found, 1 none, 2 an error).
    """

    name: str
    description: str
    parameters: Sequence[ToolParameter]
    run: Callable[..., ToolResult]
    read_only: bool
    destructive: bool = False
    results: Sequence[ResultField] = ()
    cli_help: str = ""
    answers_to: Sequence[str] = ()
    cli_match_count: str | None = None

    def __reduce_ex__(self, protocol: Any) -> Any:
        """A declared tool's spec pickles as a reference to the function that declares it (its
        `run` is a closure): a pickled tool object or registry comes back with the same spec."""
        declared = DECLARED_AT.get(id(self))
        if declared is None or declared[0] is not self:
            return super().__reduce_ex__(protocol)
        return declared_spec, declared[1:]


# id(spec) -> (spec, module, name) of the public function `@tool` made it for (`public.tool`).
DECLARED_AT: dict[int, tuple[ToolSpec, str, str]] = {}


def declared_spec(module: str, name: str) -> ToolSpec:
    """The spec of the public tool function `name` of `module` (how a declared spec unpickles)."""
    from importlib import import_module

    spec: ToolSpec = getattr(import_module(module), name).spec
    return spec


def named_paths(
    parameters: Sequence[ToolParameter], args: Mapping[str, Any], *, by_keyword: bool = False
) -> Iterator[str]:
    """Every path `args` give to a path parameter, in declaration order (each item of a list of paths)."""
    for p in parameters:
        if not p.path:
            continue
        value = args.get(p.keyword if by_keyword else p.name)
        if isinstance(value, str):
            yield value
        elif isinstance(value, (list, tuple)):
            yield from (item for item in value if isinstance(item, str))


def call_validated(spec: ToolSpec, ctx: ExecutionContext, kwargs: dict[str, Any], started: float) -> ToolResult:
    """Run a tool on already-validated arguments: policy checks, the implementation, the audit."""
    paths = list(named_paths(spec.parameters, kwargs, by_keyword=True))
    first = paths[0] if paths else None
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
        err = error_from_oserror(exc, first or exc.filename or "?")
        result = ToolResult.fail(err.message, err.code)
    except Cancelled:  # an async call's task was cancelled: nobody awaits this result, the audit records it
        result = ToolResult.fail(f"{spec.name} was cancelled before it finished", ErrorCode.TIMEOUT)
    if ctx.dry_run and not spec.read_only:
        result.metadata.setdefault("dry_run", True)
    listed = any(p.path_list for p in spec.parameters)
    audit(ctx, spec.name, first, result, started, paths=tuple(paths) if listed else ())
    return result


def invoke(spec: ToolSpec, ctx: ExecutionContext | None, args: Mapping[str, Any]) -> ToolResult:
    """Validate `args` (keyed by tool parameter names) and run the tool."""
    started = time.perf_counter()
    try:
        kwargs = validate_arguments(spec.parameters, args)
    except ToolError as exc:
        return ToolResult.fail(exc.message, exc.code)
    return call_validated(spec, ctx or default_context(), kwargs, started)
