"""LlamaIndex calls fstools' FunctionTools the way its agents do (`call_tool_with_selection`), sync and async."""

from __future__ import annotations

import asyncio

import pytest

from tests.helpers.extras import skip_reason

pytest.importorskip("llama_index.core", reason=skip_reason("llama_index.core"))

from llama_index.core.base.llms.types import ImageBlock, TextBlock
from llama_index.core.llms.llm import ToolSelection
from llama_index.core.tools import FunctionTool, ToolOutput
from llama_index.core.tools.calling import acall_tool_with_selection, call_tool_with_selection

import fstools
from fstools.integrations import llama_index


def _call(ctx, name: str, kwargs: dict) -> ToolOutput:
    selection = ToolSelection(tool_id="c1", tool_name=name, tool_kwargs=kwargs)
    return call_tool_with_selection(selection, llama_index.tools(ctx))


def test_a_call_gives_a_tool_output_with_the_result(workspace, wctx):
    out = _call(wctx, "Grep", {"pattern": "DEF F1", "-i": True})
    assert not out.is_error and out.content == f"{workspace}/m1.py"
    assert isinstance(out.raw_output, fstools.ToolResult) and out.raw_output.metadata["total_matches"] == 1
    assert out.tool_name == "Grep"


def test_a_failure_sets_is_error(workspace, wctx):
    out = _call(wctx, "Read", {"file_path": f"{workspace}/missing.py"})
    assert out.is_error
    assert out.content == f"File not found: {workspace}/missing.py (error_code: file_not_found)"


def test_async_calls_go_through_acall(workspace, wctx):
    selection = ToolSelection(tool_id="c", tool_name="Glob", tool_kwargs={"pattern": "m3.py"})
    out = asyncio.run(acall_tool_with_selection(selection, llama_index.tools(wctx)))
    assert not out.is_error and out.content == f"{workspace}/m3.py"


def test_an_image_is_an_image_block(workspace, wctx):
    out = _call(wctx, "Read", {"file_path": f"{workspace}/dot.png"})
    text, image = out.blocks
    assert isinstance(text, TextBlock) and "dot.png" in text.text
    assert isinstance(image, ImageBlock) and image.image_mimetype == "image/png"
    assert image.resolve_image().read() == (workspace / "dot.png").read_bytes()


def test_the_there_is_more_notice_is_kept(wctx):
    assert "offset=2" in _call(wctx, "Grep", {"pattern": "def", "head_limit": 2}).content


def test_every_tool_converts_to_an_openai_tool(wctx):
    for tool in llama_index.tools(wctx):
        assert isinstance(tool, FunctionTool)
        definition = tool.metadata.to_openai_tool()["function"]  # raises past 1,024 description characters
        registered = fstools.create_registry().get(definition["name"])
        assert definition["parameters"] == registered.input_schema()
        assert registered.description.startswith(definition["description"])
        assert tool.metadata.fn_schema_str.startswith('{"type": "object"')


def test_a_long_description_is_cut_at_a_sentence_within_the_limit():
    text = "First sentence. " * 50 + "\nSecond block line."
    cut = llama_index.fit_description(text, 100)
    assert len(cut) <= 100 and cut.endswith("sentence.") and text.startswith(cut)
    assert llama_index.fit_description("short", 100) == "short"
    assert llama_index.fit_description("x" * 150, 100) == "x" * 100
