"""smolagents runs fstools' tools: a CodeAgent's code calls them by Python names, an agent executes tool calls."""

from __future__ import annotations

import asyncio
import os
import time

import pytest

from tests.helpers.extras import skip_reason

pytest.importorskip("smolagents", reason=skip_reason("smolagents"))

from smolagents import CodeAgent, ToolCallingAgent
from smolagents.agent_types import AgentImage
from smolagents.models import ChatMessage, Model
from smolagents.utils import AgentToolExecutionError

import fstools
from fstools.integrations import smolagents


class ScriptedModel(Model):
    """Answers with the given texts in turn (a CodeAgent's code blocks), no network."""

    def __init__(self, replies: list[str]) -> None:
        super().__init__(model_id="scripted")
        self.replies = list(replies)

    def generate(self, messages, stop_sequences=None, response_format=None, tools_to_call_from=None, **kwargs):
        return ChatMessage(role="assistant", content=self.replies.pop(0))


def _agent(ctx) -> ToolCallingAgent:
    return ToolCallingAgent(tools=smolagents.tools(ctx), model=ScriptedModel([]))


def test_a_code_agent_calls_grep_with_identifier_names(workspace, wctx):
    code = (
        "Thought: search\n<code>\nfound = Grep(pattern='DEF F4', case_insensitive=True, output_mode='content', "
        "line_numbers=True)\nfinal_answer(found)\n</code>"
    )
    agent = CodeAgent(tools=smolagents.tools(wctx), model=ScriptedModel([code]), max_steps=2)
    assert agent.run("find f4") == f"{workspace}/m4.py:1> def f4():"


def test_the_code_prompt_shows_only_identifiers(wctx):
    grep = smolagents.tools(wctx, include=["Grep"])[0]
    signature = grep.to_code_prompt().split("\n", 2)[0]
    for name in ("case_insensitive", "line_numbers", "after_context", "before_context", "context"):
        assert f"{name}: " in signature
    assert all(name.isidentifier() for name in grep.inputs)
    for tool in smolagents.tools(wctx):
        assert list(tool.inputs) == [p.keyword for p in fstools.create_registry().get(tool.name).parameters]


def test_a_failure_is_an_agent_error_with_the_message(workspace, wctx):
    with pytest.raises(AgentToolExecutionError) as info:
        _agent(wctx).execute_tool_call("Read", {"file_path": f"{workspace}/missing.py"})
    assert f"File not found: {workspace}/missing.py (error_code: file_not_found)" in str(info.value)


def test_an_image_is_an_agent_image(workspace, wctx):
    image = _agent(wctx).execute_tool_call("Read", {"file_path": f"{workspace}/dot.png"})
    assert isinstance(image, AgentImage) and image.to_raw().size == (3, 2)


def test_the_there_is_more_notice_is_kept(wctx):
    assert "offset=2" in _agent(wctx).execute_tool_call("Grep", {"pattern": "def", "head_limit": 2})


def test_none_means_the_default(workspace, wctx):
    found = _agent(wctx).execute_tool_call("Grep", {"pattern": "return 0", "case_insensitive": None, "glob": None})
    assert found == f"{workspace}/m0.py"


def test_acall_keeps_the_event_loop_running_during_a_slow_search(tmp_path):
    """A search of several seconds awaited with acall: other tasks keep ticking meanwhile."""
    kernel = os.environ.get("FSTOOLS_KERNEL_TREE")
    if kernel:
        root, pattern = kernel, r"\w{5}\s+\w{5}\s+\w{5}\s+\w{5}\s+\w{5}"
    else:
        from tests.core.test_cancel import SLOW_PATTERN, write_slow_tree

        root, pattern = str(write_slow_tree(tmp_path / "slow", files=4)), SLOW_PATTERN
    ctx = fstools.ExecutionContext(working_dir=root, search_index="off")
    grep = smolagents.tools(ctx, include=["Grep"])[0]

    async def main() -> tuple[int, float]:
        ticks = 0
        search = asyncio.create_task(grep.acall(pattern=pattern, output_mode="count", head_limit=0))
        started = time.monotonic()
        while not search.done():
            await asyncio.sleep(0.01)
            ticks += 1
        await search
        return ticks, time.monotonic() - started

    ticks, seconds = asyncio.run(main())
    assert ticks >= 5 and ticks >= seconds * 5  # a blocked loop would tick once
