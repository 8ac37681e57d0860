"""fstools' tools for smolagents: `Tool`s with Python identifiers as parameter names.

    from smolagents import CodeAgent
    from fstools.integrations import smolagents

    agent = CodeAgent(tools=smolagents.tools(ctx), model=model)

A CodeAgent calls tools as Python functions, so a parameter whose name is not an identifier
takes its Python name there (Grep's `-i` is `case_insensitive`, `-n` `line_numbers`, `-A`/`-B`/`-C`
`after_context`/`before_context`/`context`). A result is the text the model reads (output,
"there is more" notice, warnings); a Read of an image returns an `AgentImage`. A failure raises
`FstoolsToolError` with the error and its code, which the agent reports to the model as a failed
step. `await tool.acall(...)` runs a call without blocking the event loop (a cancelled task
stops the search); calling the tool runs it on the calling thread, as smolagents expects.
"""

from __future__ import annotations

import base64
from typing import Any

from smolagents import Tool
from smolagents.agent_types import AgentImage

from .._core.context import ExecutionContext
from .._core.result import ToolResult
from .._core.toolclass import BaseTool
from ._common import call, call_sync, keyword_names, parts, selected_tools

__all__ = ["FstoolsToolError", "tools"]


class FstoolsToolError(Exception):
    """A failed fstools call: its message is the error and its code, as the model reads it."""


def tools(ctx: ExecutionContext, *, include: list[str] | None = None) -> list[Tool]:
    """A smolagents `Tool` for every fstools tool (or those named in `include`), running in `ctx`."""
    return [FstoolsTool(tool, ctx) for tool in selected_tools(include)]


def _inputs(tool: BaseTool) -> dict[str, dict[str, Any]]:
    inputs: dict[str, dict[str, Any]] = {}
    for p in tool.parameters:
        entry: dict[str, Any] = {"type": p.type, "description": p.description}
        if p.enum is not None:
            entry["enum"] = list(p.enum)
        if not p.required:
            entry["nullable"] = True
        inputs[p.keyword] = entry
    return inputs


class FstoolsTool(Tool):  # type: ignore[misc]  # smolagents ships no type information
    """One fstools tool as a smolagents tool."""

    # forward takes **kwargs: the inputs come from the tool's parameters, not from a signature.
    skip_forward_signature_validation = True
    output_type = "any"

    def __init__(self, tool: BaseTool, ctx: ExecutionContext) -> None:
        self.name = tool.name
        self.description = tool.description
        self.inputs = _inputs(tool)
        self._fstool, self._ctx = tool, ctx
        self._names = keyword_names(tool)
        super().__init__()

    def _arguments(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        return {self._names.get(k, k): v for k, v in kwargs.items() if v is not None}

    def forward(self, **kwargs: Any) -> Any:
        return _answer(call_sync(self._fstool, self._ctx, self._arguments(kwargs)))

    async def acall(self, **kwargs: Any) -> Any:
        """The call for async code: the work runs off the event loop, and a cancelled task stops it."""
        return _answer(await call(self._fstool, self._ctx, self._arguments(kwargs)))


def _answer(result: ToolResult) -> str | AgentImage:
    answer = parts(result)
    if answer.failed:
        raise FstoolsToolError(answer.text)
    if result.metadata.get("is_image") and len(answer.images) == 1:
        return AgentImage(base64.b64decode(answer.images[0].data))
    return answer.text
