"""What every adapter shares: no framework imported before it is asked for, every tool offered, `include`."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest

from fstools.integrations import _common
from tests.helpers.extras import skip_reason
from tests.helpers.processes import ENV
from tests.integrations.conftest import FRAMEWORK_MODULES, registry_names

ADAPTERS = {
    "openai_agents": "agents",
    "langchain": "langchain_core",
    "pydantic_ai": "pydantic_ai",
    "llama_index": "llama_index",
    "smolagents": "smolagents",
    "claude_agent_sdk": "claude_agent_sdk",
}


def _loaded_after(statement: str) -> set[str]:
    """The framework packages a fresh interpreter has loaded after `statement`."""
    probe = f"{statement}\nimport json, sys\nprint(json.dumps(sorted(m for m in {list(FRAMEWORK_MODULES)!r} if m in sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=ENV, check=True)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_fstools_and_its_integrations_package_import_no_framework():
    assert _loaded_after("import fstools, fstools.integrations; fstools.create_registry()") == set()


@pytest.mark.parametrize("adapter", sorted(ADAPTERS))
def test_each_adapter_imports_only_its_own_framework(adapter):
    pytest.importorskip(ADAPTERS[adapter], reason=skip_reason(ADAPTERS[adapter]))
    assert _loaded_after(f"import fstools.integrations.{adapter}") == {ADAPTERS[adapter]}


def test_every_registered_tool_is_offered_and_include_filters():
    assert [t.name for t in _common.selected_tools()] == registry_names()
    assert [t.name for t in _common.selected_tools(["Grep", "Read"])] == ["Read", "Grep"]  # registry order
    with pytest.raises(ValueError, match="unknown tool names \\['Nope'\\]"):
        _common.selected_tools(["Read", "Nope"])
    with pytest.raises(TypeError):
        _common.selected_tools("Read")  # type: ignore[arg-type]


@pytest.mark.parametrize("adapter", sorted(ADAPTERS))
def test_each_adapter_offers_every_tool_and_filters_by_name(adapter, wctx):
    pytest.importorskip(ADAPTERS[adapter], reason=skip_reason(ADAPTERS[adapter]))
    module = importlib.import_module(f"fstools.integrations.{adapter}")
    if adapter == "claude_agent_sdk":
        import anyio

        async def listed(config):
            from claude_agent_sdk._internal.sdk_mcp_bridge import SdkMcpBridge

            from tests.integrations.test_claude_agent_sdk_server import handshake

            bridge = SdkMcpBridge("fstools", config["instance"])
            try:
                await handshake(bridge)
                answer = await bridge.handle({"jsonrpc": "2.0", "id": 9, "method": "tools/list"})
            finally:
                await bridge.aclose()
            return [t["name"] for t in answer["result"]["tools"]]

        assert anyio.run(listed, module.server(wctx)) == registry_names()
        assert anyio.run(listed, module.server(wctx, include=["Read", "Grep"])) == ["Read", "Grep"]
        return
    names = [_name(t) for t in module.tools(wctx)]
    assert names == registry_names()
    assert [_name(t) for t in module.tools(wctx, include=["Grep", "Read"])] == ["Read", "Grep"]


def _name(tool) -> str:
    return tool.metadata.name if hasattr(tool, "metadata") and hasattr(tool.metadata, "get_name") else tool.name


def test_nullable_optionals_leave_required_ones_alone():
    schema = {
        "type": "object",
        "properties": {
            "pattern": {"type": "string"},
            "mode": {"type": "string", "enum": ["a", "b"]},
            "edits": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"old": {"type": "string"}, "all": {"type": "boolean"}},
                    "required": ["old"],
                },
            },
        },
        "required": ["pattern"],
    }
    out = _common.nullable_optionals(schema)
    assert out["properties"]["pattern"] == {"type": "string"}
    assert out["properties"]["mode"] == {"type": ["string", "null"], "enum": ["a", "b", None]}
    items = out["properties"]["edits"]["items"]["properties"]
    assert items["old"] == {"type": "string"} and items["all"] == {"type": ["boolean", "null"]}
    assert schema["properties"]["mode"] == {"type": "string", "enum": ["a", "b"]}  # a copy


def test_arguments_text_must_be_an_object():
    assert _common.parse_arguments('{"a": 1}') == {"a": 1}
    assert _common.parse_arguments("") == {} and _common.parse_arguments(None) == {}
    with pytest.raises(ValueError):
        _common.parse_arguments("[1]")
