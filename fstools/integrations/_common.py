"""What every framework adapter shares: the tools to offer, their schemas, one call, the result's parts.

Nothing here imports a framework. A call always goes through the tool's async `execute`
(validation, policy, audit, a worker thread that a cancelled task stops with its children).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._agents.toolset import create_registry
from .._core.context import ExecutionContext, front_end_language_servers
from .._core.render import EMPTY, result_images, result_text
from .._core.result import Image, ToolResult
from .._core.schemas import strict_schema
from .._core.toolclass import BaseTool


def selected_tools(include: Sequence[str] | None = None) -> list[BaseTool]:
    """Every registered tool, or those named in `include` (in registry order); an unknown name is a ValueError."""
    tools = create_registry().list()
    if include is None:
        return tools
    if isinstance(include, str):
        raise TypeError("include takes a list of tool names, e.g. ['Read', 'Grep']")
    known = {tool.name for tool in tools}
    unknown = [name for name in include if name not in known]
    if unknown:
        raise ValueError(f"unknown tool names {unknown}; the tools are {', '.join(sorted(known))}")
    return [tool for tool in tools if tool.name in include]


async def call(tool: BaseTool, ctx: ExecutionContext, arguments: Mapping[str, Any]) -> ToolResult:
    """Run `tool` on a model's `arguments` (keyed by parameter name) without blocking the event loop.

    Language servers are on ("auto") unless the context says otherwise (`language_servers`).
    """
    return await tool.execute(front_end_language_servers(ctx), **arguments)


def call_sync(tool: BaseTool, ctx: ExecutionContext, arguments: Mapping[str, Any]) -> ToolResult:
    """`call` for a caller without an event loop in its thread."""
    return tool.run(front_end_language_servers(ctx), **arguments)


def parse_arguments(raw: str | Mapping[str, Any] | None) -> dict[str, Any]:
    """A model's arguments, given as a JSON object text or a mapping; anything else is a ValueError."""
    if raw is None or raw == "":
        return {}
    value = json.loads(raw) if isinstance(raw, str) else dict(raw)
    if not isinstance(value, dict):
        raise ValueError("tool arguments must be a JSON object")
    return value


@dataclass(frozen=True)
class Parts:
    """A result as a model reads it: one text (output, notice, warnings, or the error) and its images."""

    text: str
    images: list[Image]  # base64 data and mime type each
    failed: bool


def parts(result: ToolResult) -> Parts:
    return Parts(result_text(result) or EMPTY, result_images(result), not result.success)


def strict_arguments(tool: BaseTool) -> dict[str, Any]:
    """The tool's argument schema in OpenAI's strict mode: every parameter required, null = its default."""
    return strict_schema(tool.input_schema())


def nullable_optionals(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of `schema` whose optional properties (at any depth) also accept null, the default.

    Models send null for a parameter they leave out; a validator that checks the schema
    before the call (the Claude Agent SDK's does) must not refuse it.
    """
    node = copy.deepcopy(dict(schema))
    properties = node.get("properties")
    if isinstance(properties, dict):
        required = set(node.get("required", ()))
        for name, prop in properties.items():
            prop = nullable_optionals(prop)
            if name not in required and isinstance(prop.get("type"), str):
                prop["type"] = [prop["type"], "null"]
                if "enum" in prop:
                    prop["enum"] = [*prop["enum"], None]
            properties[name] = prop
    if isinstance(node.get("items"), dict):
        node["items"] = nullable_optionals(node["items"])
    return node


def keyword_names(tool: BaseTool) -> dict[str, str]:
    """Python identifier -> parameter name, for frameworks that need identifiers (Grep's -i is case_insensitive)."""
    return {p.keyword: p.name for p in tool.parameters}
