"""Test-only tools whose parameters have every shape the CLI and MCP layers must handle.

Each probe returns the arguments it received as JSON, so a test sees exactly what a
command line or an MCP call turned into. They are real FileTools over real ToolSpecs.
"""

from __future__ import annotations

import json
import os
from typing import Any

import fstools
from fstools._core.params import ToolParameter
from fstools._core.paths import resolve_path
from fstools._core.permissions import authorize
from fstools._core.public import tool
from fstools._core.spec import ToolSpec


def _echo(name: str, *, mutating: bool):
    def run(ctx: fstools.ExecutionContext, **kwargs: Any) -> fstools.ToolResult:
        path = kwargs.get("file_path") or kwargs.get("path")
        seen = False
        if path is not None:
            target = resolve_path(ctx, path)
            seen = ctx.read_record(target.path) is not None
            if mutating and not ctx.dry_run:
                authorize(
                    ctx, SPECS[name], target.path, diff=f"-{kwargs.get('old_string')}\n+{kwargs.get('new_string')}"
                )
        return fstools.ToolResult.ok(json.dumps(kwargs, sort_keys=True), file_path=path, was_read=seen)

    return run


EDIT_EDITS = (
    ToolParameter("old_string", "string", "text to replace", required=True),
    ToolParameter("new_string", "string", "replacement", required=True),
    ToolParameter("replace_all", "boolean", "every occurrence", default=False),
)

PROBE = ToolSpec(
    name="Probe",
    description="Probes the command line. Second sentence.",
    parameters=(
        ToolParameter("file_path", "string", "Absolute path of the file", required=True, path=True),
        ToolParameter("old_string", "string", "Text to replace", required=True),
        ToolParameter("new_string", "string", "Replacement text (100% literal)", required=True),
        ToolParameter("replace_all", "boolean", "Replace every occurrence", default=False),
        ToolParameter("-i", "boolean", "Case insensitive", py_name="case_insensitive"),
        ToolParameter("-n", "boolean", "Line numbers", default=True, py_name="line_numbers"),
        ToolParameter("-A", "integer", "Lines after", py_name="after", minimum=0),
        ToolParameter("-x", "boolean", "A short flag without a long form"),
        ToolParameter("output_mode", "string", "Mode", enum=("content", "count"), default="content"),
        ToolParameter("tags", "array", "Tags"),
        ToolParameter("ratio", "number", "A number"),
        ToolParameter("options", "object", "Free-form options"),
    ),
    run=_echo("Probe", mutating=True),
    read_only=False,
)

BATCH = ToolSpec(
    name="BatchEdit",
    description="Applies edits",
    parameters=(
        ToolParameter("file_path", "string", "Absolute path", required=True, path=True),
        ToolParameter("edits", "array", "Edits to apply", required=True, items=EDIT_EDITS),
    ),
    run=_echo("BatchEdit", mutating=True),
    read_only=False,
    destructive=True,
)

SCAN = ToolSpec(
    name="Scan",
    description="Scans a tree",
    parameters=(
        ToolParameter("pattern", "string", "What to look for", required=True),
        ToolParameter("path", "string", "Where to look", path=True),
    ),
    run=_echo("Scan", mutating=False),
    read_only=True,
)


SPECS = {spec.name: spec for spec in (PROBE, BATCH, SCAN)}


def _tool(spec: ToolSpec) -> fstools.FileTool:
    return type(f"{spec.name}Tool", (fstools.FileTool,), {"spec": spec})()


def probe_registry() -> fstools.ToolRegistry:
    registry = fstools.ToolRegistry()
    for spec in (PROBE, BATCH, SCAN):
        registry.register(_tool(spec))
    return registry


@tool(
    name="Gather",
    description="Looks at several files",
    parameters=(
        ToolParameter("paths", "array", "Absolute paths of the files", required=True, path=True),
        ToolParameter("limit", "integer", "At most this many", default=2, minimum=1),
    ),
    read_only=True,
    cli_match_count="found",
)
def gather(paths: list[str], limit: int = 2, *, ctx: fstools.ExecutionContext | None = None) -> fstools.ToolResult:
    """A tool declared with @tool whose one path parameter is a list of paths."""
    found = [p for p in paths if os.path.exists(p)]
    return fstools.ToolResult.ok(json.dumps({"paths": paths, "limit": limit}, sort_keys=True), found=len(found))


def gather_registry() -> fstools.ToolRegistry:
    registry = fstools.ToolRegistry()
    registry.register(fstools.FileTool(gather.spec))
    return registry
