"""fstools' tools for LlamaIndex: `FunctionTool`s that return `ToolOutput`s.

    from llama_index.core.agent.workflow import FunctionAgent
    from fstools.integrations import llama_index

    agent = FunctionAgent(tools=llama_index.tools(ctx), llm=llm)

A result is a `ToolOutput` whose blocks are the text the model reads (output, "there is
more" notice, warnings) and, for a Read of an image or a PDF's page images, `ImageBlock`s;
`raw_output` is the `ToolResult`. A failure has `is_error=True`. The schemas are the tools'
own JSON Schemas; descriptions stay within `to_openai_tool`'s 1,024 characters.
"""

from __future__ import annotations

import base64
from typing import Any

from llama_index.core.base.llms.types import ContentBlock, ImageBlock, TextBlock
from llama_index.core.tools import FunctionTool, ToolMetadata, ToolOutput

from .._core.context import ExecutionContext
from .._core.result import ToolResult
from .._core.toolclass import BaseTool
from ._common import call, call_sync, parts, selected_tools

__all__ = ["tools"]

# What `ToolMetadata.to_openai_tool` accepts (it raises beyond).
DESCRIPTION_LIMIT = 1024


def tools(ctx: ExecutionContext, *, include: list[str] | None = None) -> list[FunctionTool]:
    """A LlamaIndex `FunctionTool` for every fstools tool (or those named in `include`), running in `ctx`."""
    return [_FstoolsFunctionTool(tool, ctx) for tool in selected_tools(include)]


class _SchemaMetadata(ToolMetadata):
    """ToolMetadata whose parameters are a given JSON Schema rather than a pydantic model's."""

    def __init__(self, name: str, description: str, schema: dict[str, Any]) -> None:
        super().__init__(description=fit_description(description), name=name, fn_schema=None)
        self.schema = schema

    def get_parameters_dict(self) -> dict[str, Any]:
        return self.schema

    @property
    def fn_schema_str(self) -> str:
        import json

        return json.dumps(self.schema, ensure_ascii=False)


def fit_description(text: str, limit: int = DESCRIPTION_LIMIT) -> str:
    """`text`, or its longest run of whole sentences (lines) that fits in `limit` characters."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    end = max(cut.rfind("\n"), cut.rfind(". ") + 1)
    return cut[:end].rstrip() if end > 0 else cut


class _FstoolsFunctionTool(FunctionTool):
    def __init__(self, tool: BaseTool, ctx: ExecutionContext) -> None:
        self._fstool, self._ctx = tool, ctx

        async def run(**arguments: Any) -> ToolResult:
            return await call(tool, ctx, arguments)

        super().__init__(
            fn=lambda **arguments: call_sync(tool, ctx, arguments),
            async_fn=run,
            metadata=_SchemaMetadata(tool.name, tool.description, tool.input_schema()),
        )

    def call(self, *args: Any, **kwargs: Any) -> ToolOutput:
        return self._output(call_sync(self._fstool, self._ctx, kwargs), kwargs)

    async def acall(self, *args: Any, **kwargs: Any) -> ToolOutput:
        return self._output(await call(self._fstool, self._ctx, kwargs), kwargs)

    def _output(self, result: ToolResult, arguments: dict[str, Any]) -> ToolOutput:
        answer = parts(result)
        blocks: list[ContentBlock] = [TextBlock(text=answer.text)]
        blocks += [ImageBlock(image=base64.b64decode(i.data), image_mimetype=i.mime_type) for i in answer.images]
        return ToolOutput(
            tool_name=self._fstool.name,
            blocks=blocks,
            raw_input={"args": (), "kwargs": arguments},
            raw_output=result,
            is_error=answer.failed,
        )
