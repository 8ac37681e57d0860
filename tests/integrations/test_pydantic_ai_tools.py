"""PydanticAI runs fstools' tools in an Agent driven by a FunctionModel (a scripted model, no network)."""

from __future__ import annotations

import pytest

from tests.helpers.extras import skip_reason

pytest.importorskip("pydantic_ai", reason=skip_reason("pydantic_ai"))

from pydantic_ai import Agent, BinaryContent
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from fstools.integrations import pydantic_ai


def _run(ctx, calls: list[tuple[str, dict]]) -> tuple[dict[str, ToolReturnPart], AgentInfo]:
    seen: list[AgentInfo] = []

    def model(messages, info: AgentInfo) -> ModelResponse:
        seen.append(info)
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart(n, a, tool_call_id=f"c{i}") for i, (n, a) in enumerate(calls)])
        return ModelResponse(parts=[TextPart("done")])

    result = Agent(FunctionModel(model), tools=pydantic_ai.tools(ctx)).run_sync("go")
    assert result.output == "done"
    returns = {
        part.tool_call_id: part
        for message in result.all_messages()
        for part in message.parts
        if isinstance(part, ToolReturnPart)
    }
    return returns, seen[0]


def test_a_call_returns_the_text_the_model_reads(workspace, wctx):
    returns, _ = _run(wctx, [("Grep", {"pattern": "DEF F2", "-i": True, "output_mode": "content", "-n": True})])
    assert returns["c0"].content == f"{workspace}/m2.py:1> def f2():"
    assert returns["c0"].outcome == "success"


def test_a_failure_is_a_failed_tool_return_and_no_retry(workspace, wctx):
    returns, _ = _run(wctx, [("Read", {"file_path": f"{workspace}/missing.py"})])
    part = returns["c0"]
    assert part.outcome == "failed"
    assert part.content == f"File not found: {workspace}/missing.py (error_code: file_not_found)"


def test_an_image_is_binary_content(workspace, wctx):
    returns, _ = _run(wctx, [("Read", {"file_path": f"{workspace}/dot.png"})])
    text, image = returns["c0"].content
    assert "dot.png" in text
    assert isinstance(image, BinaryContent) and image.media_type == "image/png"
    assert image.data == (workspace / "dot.png").read_bytes()


def test_the_there_is_more_notice_is_kept(wctx):
    returns, _ = _run(wctx, [("Grep", {"pattern": "def", "head_limit": 2})])
    assert "offset=2" in returns["c0"].content


def test_every_tool_is_offered_with_a_strict_compatible_schema(wctx):
    _, info = _run(wctx, [])
    definitions = {d.name: d for d in info.function_tools}
    assert list(definitions) == [t.name for t in pydantic_ai.tools(wctx)]
    for definition in definitions.values():
        schema = definition.parameters_json_schema
        assert schema["required"] == list(schema["properties"]) and schema["additionalProperties"] is False
    assert definitions["Grep"].parameters_json_schema["properties"]["-A"]["type"] == ["integer", "null"]


def test_null_arguments_take_the_defaults(workspace, wctx):
    grep = next(t for t in pydantic_ai.tools(wctx) if t.name == "Grep")
    nulls = {name: None for name in grep.tool_def.parameters_json_schema["properties"]}
    returns, _ = _run(wctx, [("Grep", {**nulls, "pattern": "return 4"})])
    assert returns["c0"].content == f"{workspace}/m4.py"
