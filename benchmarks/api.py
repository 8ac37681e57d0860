"""Calling fstools tools by their tool-level names, and knowing which tools have landed.

Benchmarks name arguments as agents send them ("-n", "head_limit"); the tool's own
parameter declarations map them to the Python keywords, so a renamed keyword never
silently breaks a benchmark.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

import fstools


def function_of(tool: str) -> str:
    """The public function of the tool `tool`: MultiEdit -> multi_edit, LS -> ls (also in older checkouts)."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])", "_", tool).lower()


def missing_reason(tool: str) -> str | None:
    """Why `tool` cannot be benchmarked in this checkout, or None when it can."""
    if not callable(getattr(fstools, function_of(tool), None)):
        return f"tool {tool} is missing: fstools.{function_of(tool)} has not landed in this checkout"
    return None


@functools.cache
def _keywords(tool: str) -> dict[str, str]:
    for spec_tool in fstools.file_tools():
        if spec_tool.name == tool:
            return {p.name: p.keyword for p in spec_tool.parameters}
    return {}


def bind(tool: str, ctx: fstools.ExecutionContext, **args: Any) -> Callable[[], fstools.ToolResult]:
    """A no-argument call of `tool` with `args` keyed by tool parameter names."""
    names = _keywords(tool)
    kwargs = {names.get(name, name): value for name, value in args.items()}
    return functools.partial(getattr(fstools, function_of(tool)), ctx=ctx, **kwargs)


def call(tool: str, ctx: fstools.ExecutionContext, **args: Any) -> fstools.ToolResult:
    return bind(tool, ctx, **args)()


def ok(result: fstools.ToolResult) -> fstools.ToolResult:
    """`result`, asserting it succeeded (the error text makes a failed check readable)."""
    assert result.success, f"{result.error_code}: {result.error}"
    return result
