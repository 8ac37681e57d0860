"""fstools' tools for LangChain: `BaseTool`s whose results are `ToolMessage`s.

    from fstools.integrations import langchain

    tools = langchain.tools(ctx)
    model_with_tools = chat_model.bind_tools(tools)

Invoked with a tool call (`tool.invoke(call)`, or by an agent), a tool returns a
`ToolMessage`: the text the model reads (output, "there is more" notice, warnings) and, for a
Read of an image or a PDF's page images, standard image content blocks; the whole
`ToolResult.metadata` is its `artifact`. A failure is a `ToolMessage` with `status="error"`.
"""

from __future__ import annotations

from typing import Any, Literal

from langchain_core.tools import BaseTool as LangChainTool
from langchain_core.tools import ToolException

from .._core.context import ExecutionContext
from .._core.result import ToolResult
from .._core.toolclass import BaseTool
from ._common import call, call_sync, parts, selected_tools

__all__ = ["FstoolsTool", "tools"]


def tools(ctx: ExecutionContext, *, include: list[str] | None = None) -> list[LangChainTool]:
    """A LangChain tool for every fstools tool (or those named in `include`), running in `ctx`."""
    return [FstoolsTool.of(tool, ctx) for tool in selected_tools(include)]


class FstoolsTool(LangChainTool):
    """One fstools tool as a LangChain tool (its schema is the tool's own JSON Schema)."""

    response_format: Literal["content", "content_and_artifact"] = "content_and_artifact"
    handle_tool_error: bool = True
    fstool: Any = None
    ctx: Any = None

    @classmethod
    def of(cls, tool: BaseTool, ctx: ExecutionContext) -> FstoolsTool:
        return cls(name=tool.name, description=tool.description, args_schema=tool.input_schema(), fstool=tool, ctx=ctx)

    def _run(self, *args: Any, run_manager: Any = None, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        return _answer(call_sync(self.fstool, self.ctx, kwargs))

    async def _arun(self, *args: Any, run_manager: Any = None, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        return _answer(await call(self.fstool, self.ctx, kwargs))


def _answer(result: ToolResult) -> tuple[Any, dict[str, Any]]:
    answer = parts(result)
    if answer.failed:
        raise ToolException(answer.text)  # LangChain turns it into a ToolMessage with status="error"
    if not answer.images:
        return answer.text, result.metadata
    images = [{"type": "image", "base64": i.data, "mime_type": i.mime_type} for i in answer.images]
    return [{"type": "text", "text": answer.text}, *images], result.metadata
