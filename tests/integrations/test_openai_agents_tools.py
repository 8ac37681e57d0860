"""The OpenAI Agents SDK runs fstools' FunctionTools: a scripted model (no network) calls them through Runner."""

from __future__ import annotations

import json

import pytest

from tests.helpers.extras import skip_reason

pytest.importorskip("agents", reason=skip_reason("agents"))

from agents import Agent, FunctionTool, ModelResponse, Runner, Usage
from agents.models.interface import Model
from agents.strict_schema import ensure_strict_json_schema
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

from fstools.integrations import openai_agents


class ScriptedModel(Model):
    """A model that makes the given tool calls, then answers "done"; it records what the SDK sent it."""

    def __init__(self, calls: list[tuple[str, dict]]) -> None:
        self.calls = calls
        self.inputs: list = []
        self.tools: list = []

    async def get_response(self, system_instructions, input, model_settings, tools, *args, **kwargs):
        self.inputs.append(input)
        self.tools = tools
        if len(self.inputs) == 1:
            output = [
                ResponseFunctionToolCall(
                    type="function_call", call_id=f"call_{i}", name=name, arguments=json.dumps(args), id=f"fc_{i}"
                )
                for i, (name, args) in enumerate(self.calls)
            ]
        else:
            text = ResponseOutputText(type="output_text", text="done", annotations=[])
            output = [
                ResponseOutputMessage(type="message", id="m", role="assistant", status="completed", content=[text])
            ]
        return ModelResponse(output=output, usage=Usage(), response_id=None)

    def stream_response(self, *args, **kwargs):
        raise NotImplementedError


def _outputs(model: ScriptedModel) -> dict[str, object]:
    """call_id -> the function_call_output the SDK sent back to the model."""
    return {
        item["call_id"]: item["output"]
        for item in model.inputs[-1]
        if isinstance(item, dict) and item.get("type") == "function_call_output"
    }


def _run(ctx, calls: list[tuple[str, dict]]) -> dict[str, object]:
    model = ScriptedModel(calls)
    agent = Agent(name="coder", model=model, tools=openai_agents.tools(ctx))
    result = Runner.run_sync(agent, "go")
    assert result.final_output == "done"
    return _outputs(model)


def test_tools_run_through_the_runner_with_their_own_parameter_names(workspace, wctx):
    out = _run(wctx, [("Grep", {"pattern": "DEF F3", "-i": True, "output_mode": "content", "-n": True})])
    assert out["call_0"] == f"{workspace}/m3.py:1> def f3():"


def test_a_failure_reaches_the_model_as_its_error_and_the_run_goes_on(workspace, wctx):
    out = _run(wctx, [("Read", {"file_path": f"{workspace}/missing.py"}), ("Grep", {"pattern": "("})])
    assert out["call_0"] == f"File not found: {workspace}/missing.py (error_code: file_not_found)"
    assert "(error_code: invalid_regex)" in out["call_1"]


def test_an_image_reaches_the_model_as_an_input_image(workspace, wctx):
    out = _run(wctx, [("Read", {"file_path": f"{workspace}/dot.png"})])
    parts = out["call_0"]
    assert isinstance(parts, list)
    assert parts[0]["type"] == "input_text" and "dot.png" in parts[0]["text"]
    assert parts[1]["type"] == "input_image" and parts[1]["image_url"].startswith("data:image/png;base64,iVBOR")


def test_the_there_is_more_notice_is_kept(wctx):
    out = _run(wctx, [("Grep", {"pattern": "def", "head_limit": 2})])
    text = out["call_0"]
    assert len([line for line in text.splitlines() if line.endswith(".py")]) == 2
    assert "offset=2" in text  # how to get the next page


def test_strict_schemas_send_every_parameter_and_null_is_the_default(workspace, wctx):
    tools = openai_agents.tools(wctx)
    for tool in tools:
        assert isinstance(tool, FunctionTool) and tool.strict_json_schema
        schema = tool.params_json_schema
        assert schema["required"] == list(schema["properties"]) and schema["additionalProperties"] is False
        assert ensure_strict_json_schema(json.loads(json.dumps(schema))) == schema  # the SDK's own check
    grep = next(t for t in tools if t.name == "Grep")
    assert grep.params_json_schema["properties"]["-i"]["type"] == ["boolean", "null"]
    # A strict model sends every parameter; null ones take their defaults.
    nulls = {name: None for name in grep.params_json_schema["properties"]}
    out = _run(wctx, [("Grep", {**nulls, "pattern": "return 4"})])
    assert out["call_0"] == f"{workspace}/m4.py"


def test_arguments_that_are_not_an_object_are_an_error_the_model_can_fix(wctx):
    import asyncio

    from agents.tool_context import ToolContext

    read = openai_agents.tools(wctx, include=["Read"])[0]
    context = ToolContext(context=None, tool_name="Read", tool_call_id="c", tool_arguments="[]")
    answer = asyncio.run(read.on_invoke_tool(context, "[]"))
    assert answer.endswith("(error_code: invalid_argument)")
