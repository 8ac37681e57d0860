"""LangChain runs fstools' tools as it runs any tool: a tool call in, a ToolMessage out."""

from __future__ import annotations

import asyncio

import pytest

from tests.helpers.extras import skip_reason

pytest.importorskip("langchain_core", reason=skip_reason("langchain_core"))

from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from fstools.integrations import langchain


def _call(tool: BaseTool, args: dict, call_id: str = "call_1") -> ToolMessage:
    message = tool.invoke({"type": "tool_call", "id": call_id, "name": tool.name, "args": args})
    assert isinstance(message, ToolMessage) and message.tool_call_id == call_id
    return message


def _tool(ctx, name: str) -> BaseTool:
    return langchain.tools(ctx, include=[name])[0]


def test_a_tool_call_gives_a_tool_message_with_the_metadata_as_artifact(workspace, wctx):
    message = _call(_tool(wctx, "Grep"), {"pattern": "DEF F2", "-i": True})
    assert message.status == "success" and message.content == f"{workspace}/m2.py"
    assert message.artifact["total_matches"] == 1


def test_a_failure_is_a_tool_message_with_status_error(workspace, wctx):
    message = _call(_tool(wctx, "Read"), {"file_path": f"{workspace}/missing.py"})
    assert message.status == "error"
    assert message.content == f"File not found: {workspace}/missing.py (error_code: file_not_found)"
    bad = _call(_tool(wctx, "Grep"), {"pattern": "x", "nonsense": 1})
    assert bad.status == "error" and "(error_code: invalid_argument)" in bad.content


def test_async_invocation_gives_the_same_message(workspace, wctx):
    tool = _tool(wctx, "Glob")
    call = {"type": "tool_call", "id": "c", "name": "Glob", "args": {"pattern": "m1.py"}}
    message = asyncio.run(tool.ainvoke(call))
    assert message.status == "success" and message.content == f"{workspace}/m1.py"


def test_an_image_is_a_standard_image_block(workspace, wctx):
    message = _call(_tool(wctx, "Read"), {"file_path": f"{workspace}/dot.png"})
    text, image = message.content
    assert text["type"] == "text" and "dot.png" in text["text"]
    assert image["type"] == "image" and image["mime_type"] == "image/png" and image["base64"].startswith("iVBOR")


def test_the_there_is_more_notice_is_kept(wctx):
    message = _call(_tool(wctx, "Grep"), {"pattern": "def", "head_limit": 2})
    assert "offset=2" in message.content


def test_the_schema_is_the_tools_own(wctx):
    for tool in langchain.tools(wctx):
        definition = convert_to_openai_tool(tool)["function"]
        assert definition["name"] == tool.name
        assert set(definition["parameters"]["properties"]) == set(tool.args)
    grep = convert_to_openai_tool(_tool(wctx, "Grep"))["function"]["parameters"]
    assert {"-i", "-n", "-A", "-B", "-C"} <= set(grep["properties"]) and grep["required"] == ["pattern"]
