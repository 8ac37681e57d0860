"""The Claude Agent SDK serves fstools' tools in process: its own bridge (what carries Claude Code's MCP
messages to an SDK server) lists and calls them over a real MCP session in memory."""

from __future__ import annotations

import pytest

from tests.helpers.extras import skip_reason

pytest.importorskip("claude_agent_sdk", reason=skip_reason("claude_agent_sdk"))

import anyio
from claude_agent_sdk._internal.sdk_mcp_bridge import SdkMcpBridge

import fstools
from fstools.integrations import claude_agent_sdk


async def handshake(bridge: SdkMcpBridge) -> None:
    hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}
    answer = await bridge.handle({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello})
    assert answer["result"]["serverInfo"]["name"] == "fstools"
    await bridge.handle({"jsonrpc": "2.0", "method": "notifications/initialized"})


def _session(ctx, *requests: dict) -> list[dict]:
    """The answers of the SDK's bridge to `requests` (JSON-RPC, as Claude Code sends them)."""

    async def run() -> list[dict]:
        config = claude_agent_sdk.server(ctx)
        assert config["type"] == "sdk" and config["name"] == "fstools"
        bridge = SdkMcpBridge("fstools", config["instance"])
        try:
            await handshake(bridge)
            return [await bridge.handle({"jsonrpc": "2.0", "id": i + 1, **r}) for i, r in enumerate(requests)]
        finally:
            await bridge.aclose()

    return anyio.run(run)


def _call(ctx, name: str, arguments: dict) -> dict:
    (answer,) = _session(ctx, {"method": "tools/call", "params": {"name": name, "arguments": arguments}})
    return answer["result"]


def test_a_call_returns_the_text(workspace, wctx):
    result = _call(wctx, "Grep", {"pattern": "DEF F2", "-i": True})
    assert result == {"content": [{"type": "text", "text": f"{workspace}/m2.py"}], "isError": False}


def test_null_optionals_pass_the_sdks_schema_check(workspace, wctx):
    result = _call(wctx, "Grep", {"pattern": "return 3", "glob": None, "-i": None, "head_limit": None})
    assert result["isError"] is False and result["content"][0]["text"] == f"{workspace}/m3.py"
    refused = _call(wctx, "Grep", {"pattern": None})
    assert refused["isError"] is True and "Input validation error" in refused["content"][0]["text"]


def test_a_failure_is_an_error_result(workspace, wctx):
    result = _call(wctx, "Read", {"file_path": f"{workspace}/missing.py"})
    assert result["isError"] is True
    assert result["content"][0]["text"] == f"File not found: {workspace}/missing.py (error_code: file_not_found)"


def test_an_image_is_image_content(workspace, wctx):
    text, image = _call(wctx, "Read", {"file_path": f"{workspace}/dot.png"})["content"]
    assert text["type"] == "text" and "dot.png" in text["text"]
    assert image["type"] == "image" and image["mimeType"] == "image/png" and image["data"].startswith("iVBOR")


def test_the_there_is_more_notice_is_kept(wctx):
    assert "offset=2" in _call(wctx, "Grep", {"pattern": "def", "head_limit": 2})["content"][0]["text"]


def test_the_listing_has_every_tool_with_its_hints(wctx):
    (listing,) = _session(wctx, {"method": "tools/list"})
    tools = {t["name"]: t for t in listing["result"]["tools"]}
    registry = fstools.create_registry()
    assert list(tools) == registry.names()
    for name, tool in tools.items():
        assert tool["annotations"]["readOnlyHint"] is registry.get(name).read_only
        assert tool["annotations"]["destructiveHint"] is registry.get(name).destructive
        assert set(tool["inputSchema"]["properties"]) == {p.name for p in registry.get(name).parameters}
