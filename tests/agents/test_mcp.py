"""The MCP server: in process through the SDK's own Client, and end to end over stdio in a subprocess."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
from mcp import Client, types

import fstools
from fstools._agents.mcp import call_result, create_server
from fstools._agents.settings import SessionSettings
from fstools._core.permissions import PermissionRule
from tests.helpers.probes import probe_registry
from tests.helpers.processes import mcp_text as text
from tests.helpers.processes import stdio_session


def session_with(server, steps, **client_options):
    """Run `steps(client)` against `server` in process, over the initialize handshake that clients use today."""

    async def main():
        async with Client(server, mode="legacy", **client_options) as client:
            return await steps(client)

    return anyio.run(main)


def roots_callback(*dirs: Path | str):
    async def list_roots(context):
        uris = [Path(d).as_uri() if isinstance(d, Path) else d for d in dirs]
        return types.ListRootsResult(roots=[types.Root(uri=uri) for uri in uris])

    return list_roots


def elicitation(action: str, content=None, seen: list | None = None):
    async def elicit(context, params):
        if seen is not None:
            seen.append(params.message)
        return types.ElicitResult(action=action, content=content)

    return elicit


@pytest.fixture
def in_project(project, monkeypatch):
    monkeypatch.chdir(project)
    (project / "a.txt").write_text("hello\n")
    return project


class ContextProbe(fstools.BaseTool):
    """Reports which ExecutionContext served the call, to show one context per session."""

    name = "ContextProbe"
    description = "Reports the context"
    category = fstools.ToolCategory.FILE
    parameters: list = []
    read_only = True

    async def _execute(self, context, **kwargs):
        return fstools.ToolResult.ok(str(id(context)))


class Crash(ContextProbe):
    name = "Crash"

    async def _execute(self, context, **kwargs):
        raise RuntimeError("bug in a tool")


def test_lists_every_tool_with_its_schema_and_annotations(in_project):
    registry = fstools.create_registry()

    async def steps(client):
        return (await client.list_tools()).tools

    listed = session_with(create_server(SessionSettings(), registry), steps)
    assert [t.name for t in listed] == registry.names()
    for t in listed:
        tool = registry.get(t.name)
        assert t.input_schema == tool.input_schema()
        assert t.description == tool.description
        assert hinted(t.annotations) == (tool.read_only, tool.destructive)
        assert t.output_schema is None and t.title is None and (t.annotations is None or t.annotations.title is None)


def hinted(hints):
    """(read-only, destructive) as a client reads the hints: absent ones take MCP's defaults (not
    read-only, destructive), and destructiveHint means nothing for a read-only tool."""
    read_only = bool(hints is not None and hints.read_only_hint)
    return read_only, not read_only and (hints is None or hints.destructive_hint is not False)


def test_hints_follow_the_spec_flags(in_project):
    async def steps(client):
        return {t.name: t.annotations for t in (await client.list_tools()).tools}

    hints = session_with(create_server(SessionSettings(), probe_registry()), steps)
    assert hinted(hints["Scan"]) == (True, False)
    assert hinted(hints["Probe"]) == (False, False)
    assert hinted(hints["BatchEdit"]) == (False, True)
    # A hint is listed only where it differs from MCP's default.
    listed = {name: h and h.model_dump(exclude_none=True) for name, h in hints.items()}
    assert listed == {"Scan": {"read_only_hint": True}, "Probe": {"destructive_hint": False}, "BatchEdit": None}


def test_read_only_server_offers_only_read_only_tools_and_refuses_the_rest(in_project):
    async def steps(client):
        names = [t.name for t in (await client.list_tools()).tools]
        refused = await client.call_tool(
            "Probe", {"file_path": str(in_project / "a.txt"), "old_string": "a", "new_string": "b"}
        )
        return names, refused

    names, refused = session_with(create_server(SessionSettings(read_only=True), probe_registry()), steps)
    assert names == ["Scan"]
    assert refused.is_error and "read-only" in text(refused) and "permission_denied" in text(refused)


def test_results_and_tool_errors(in_project):
    async def steps(client):
        return (
            await client.call_tool("LS", {"path": str(in_project)}),
            await client.call_tool("LS", {"path": "/"}),
            await client.call_tool("LS", {"path": str(in_project), "bogus": 1}),
            await client.call_tool("Nope", {}),
        )

    ok, escape, bad_arg, unknown = session_with(create_server(SessionSettings()), steps)
    assert not ok.is_error and "a.txt" in text(ok)
    assert escape.is_error and text(escape).endswith("(error_code: path_outside_workspace)")
    assert bad_arg.is_error and "Unknown parameter(s): bogus" in text(bad_arg)
    assert unknown.is_error and "Unknown tool: Nope" in text(unknown)


def test_string_encoded_arguments_are_accepted(in_project):
    async def steps(client):
        return await client.call_tool("LS", {"path": str(in_project), "limit": "1", "hidden": "false"})

    assert not session_with(create_server(SessionSettings()), steps).is_error


def test_one_context_per_session_and_a_bug_is_a_tool_error(in_project):
    registry = fstools.ToolRegistry()
    registry.register(ContextProbe())
    registry.register(Crash())

    async def steps(client):
        first = await client.call_tool("ContextProbe", {})
        second = await client.call_tool("ContextProbe", {})
        crash = await client.call_tool("Crash", {})
        return text(first), text(second), crash

    first, second, crash = session_with(create_server(SessionSettings(), registry), steps)
    assert first == second
    assert crash.is_error and "Internal error in Crash" in text(crash) and "bug in a tool" in text(crash)
    # A second session (a second server process in real life) gets a context of its own.
    other, _, _ = session_with(create_server(SessionSettings(), registry), steps)
    assert other != first


@pytest.mark.parametrize("root_option", [False, True], ids=["client-roots", "root-option-wins"])
def test_client_roots_are_the_sandbox_only_without_root_option(in_project, tmp_path, root_option):
    client_root = tmp_path / "client_root"
    client_root.mkdir()

    async def steps(client):
        return (
            await client.call_tool("LS", {"path": str(client_root)}),
            await client.call_tool("LS", {"path": str(in_project)}),
        )

    settings = SessionSettings(roots=(str(in_project),)) if root_option else SessionSettings()
    in_client_root, in_project_dir = session_with(
        create_server(settings), steps, list_roots_callback=roots_callback(client_root)
    )
    refused = in_client_root if root_option else in_project_dir
    allowed = in_project_dir if root_option else in_client_root
    assert refused.is_error and "path_outside_workspace" in text(refused)
    assert not allowed.is_error


def test_unusable_client_roots_fall_back_to_the_current_directory(in_project, tmp_path):
    async def steps(client):
        return await client.call_tool("LS", {"path": str(in_project)})

    roots = roots_callback("https://example.invalid/repo", tmp_path / "does-not-exist")
    assert not session_with(create_server(SessionSettings()), steps, list_roots_callback=roots).is_error

    async def failing_roots(context):
        return types.ErrorData(code=types.INTERNAL_ERROR, message="no roots today")

    assert not session_with(create_server(SessionSettings()), steps, list_roots_callback=failing_roots).is_error


@pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")
def test_roots_list_changed_is_honoured(in_project, tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    current = [first]

    async def list_roots(context):
        return types.ListRootsResult(roots=[types.Root(uri=current[0].as_uri())])

    async def steps(client):
        before = await client.call_tool("LS", {"path": str(first)})
        current[0] = second
        await client.send_roots_list_changed()
        await anyio.sleep(0.05)
        after_old = await client.call_tool("LS", {"path": str(first)})
        after_new = await client.call_tool("LS", {"path": str(second)})
        return before, after_old, after_new

    before, after_old, after_new = session_with(create_server(SessionSettings()), steps, list_roots_callback=list_roots)
    assert not before.is_error
    assert after_old.is_error and "path_outside_workspace" in text(after_old)
    assert not after_new.is_error


ASK = SessionSettings(rules=(PermissionRule("Probe", "**", "ask"),))


def probe_call(project: Path):
    async def steps(client):
        return await client.call_tool(
            "Probe", {"file_path": str(project / "a.txt"), "old_string": "hello", "new_string": "bye"}
        )

    return steps


def test_ask_is_an_elicitation_with_the_diff(in_project):
    seen: list[str] = []
    accepted = session_with(
        create_server(ASK, probe_registry()),
        probe_call(in_project),
        elicitation_callback=elicitation("accept", {"approve": True}, seen),
    )
    assert not accepted.is_error
    assert seen == [f"fstools: allow Probe on {in_project.resolve() / 'a.txt'}:\n-hello\n+bye"]


@pytest.mark.parametrize(("action", "content"), [("decline", None), ("cancel", None), ("accept", {"approve": False})])
def test_refused_elicitation_is_user_rejected(in_project, action, content):
    refused = session_with(
        create_server(ASK, probe_registry()), probe_call(in_project), elicitation_callback=elicitation(action, content)
    )
    assert refused.is_error and "user_rejected" in text(refused)


def test_ask_without_elicitation_support_is_denied(in_project):
    denied = session_with(create_server(ASK, probe_registry()), probe_call(in_project))
    assert denied.is_error and "permission_denied" in text(denied) and "no elicitation support" in text(denied)

    async def broken(context, params):
        return types.ErrorData(code=types.INTERNAL_ERROR, message="dialog crashed")

    failed = session_with(create_server(ASK, probe_registry()), probe_call(in_project), elicitation_callback=broken)
    assert failed.is_error and "permission_denied" in text(failed) and "Could not ask the user" in text(failed)


@pytest.mark.parametrize(
    ("action", "content", "error"), [("accept", {"approve": True}, None), ("decline", None, "user_rejected")]
)
def test_ask_over_the_2026_protocol_is_an_input_required_round(in_project, action, content, error):
    """The SDK's default client speaks 2026-07-28: no server-to-client requests, the answer comes in a retry."""
    seen: list[str] = []

    async def main():
        server = create_server(ASK, probe_registry())
        async with Client(server, elicitation_callback=elicitation(action, content, seen)) as client:
            assert client.protocol_version == "2026-07-28"
            return await probe_call(in_project)(client)

    result = anyio.run(main)
    assert seen == [f"fstools: allow Probe on {in_project.resolve() / 'a.txt'}:\n-hello\n+bye"]
    assert result.is_error is (error is not None)
    assert error is None or error in text(result)


def test_a_retried_answer_only_approves_the_change_it_was_asked_about(in_project):
    arguments = {"file_path": str(in_project / "a.txt"), "old_string": "hello", "new_string": "bye"}
    yes = {"fstools_confirm": types.ElicitResult(action="accept", content={"approve": True})}

    async def main():
        async with Client(create_server(ASK, probe_registry()), elicitation_callback=elicitation("decline")) as client:
            first = await client.session.call_tool("Probe", arguments, allow_input_required=True)
            other = {**arguments, "new_string": "something else"}
            stale = await client.session.call_tool(
                "Probe", other, input_responses=yes, request_state=first.request_state, allow_input_required=True
            )
            fresh = await client.session.call_tool(
                "Probe", arguments, input_responses=yes, request_state=first.request_state, allow_input_required=True
            )
            return first, stale, fresh

    first, stale, fresh = anyio.run(main)
    assert isinstance(first, types.InputRequiredResult) and list(first.input_requests) == ["fstools_confirm"]
    assert isinstance(stale, types.InputRequiredResult) and stale.request_state != first.request_state
    assert isinstance(fresh, types.CallToolResult) and not fresh.is_error


def test_deny_rule(in_project):
    settings = SessionSettings(rules=(PermissionRule("*", "**", "allow"), PermissionRule("LS", "**/proj", "deny")))

    async def steps(client):
        return await client.call_tool("LS", {"path": str(in_project)})

    denied = session_with(create_server(settings), steps)
    assert denied.is_error and "permission_denied" in text(denied)


def test_rate_limit_and_audit_log(in_project, tmp_path):
    log = tmp_path / "audit.jsonl"
    settings = SessionSettings(rate_limit=2, audit_log=str(log))

    async def steps(client):
        return [await client.call_tool("LS", {"path": p}) for p in (str(in_project), "/", str(in_project))]

    ok, escape, limited = session_with(create_server(settings), steps)
    assert not ok.is_error and escape.is_error
    assert limited.is_error and "rate_limited" in text(limited)
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(r["tool"], r["success"], r["error_code"]) for r in records] == [
        ("LS", True, None),
        ("LS", False, "path_outside_workspace"),
        ("LS", False, "rate_limited"),
    ]
    assert records[0]["path"] == str(in_project.resolve()) and records[0]["duration_ms"] >= 0


def test_image_results_become_image_content():
    image = fstools.ToolResult.ok("Image: /p/x.png", base64_data="iVBORw0KGgo=", mime_type="image/png", is_image=True)
    image.images.append(fstools.Image("image/png", "iVBORw0KGgo=", 1, 1))
    result = call_result(image)
    assert [c.type for c in result.content] == ["text", "image"]
    assert (result.content[1].data, result.content[1].mime_type) == ("iVBORw0KGgo=", "image/png")
    # structuredContent does not repeat the image's data, wherever the metadata holds it.
    assert result.structured_content == {"mime_type": "image/png", "is_image": True}
    pdf_like = fstools.ToolResult.ok("text", base64_data="JVBERi0=", mime_type="application/pdf")
    pdf_like.images.append(fstools.Image("application/pdf", "JVBERi0="))
    assert [c.type for c in call_result(pdf_like).content] == ["text"]
    failed = call_result(fstools.ToolResult.fail("File not found: /p/x", "file_not_found"))
    assert failed.is_error and failed.content[0].text == "File not found: /p/x (error_code: file_not_found)"


# A real server process, spoken to by the SDK's own stdio client --------------------------


def test_stdio_server_end_to_end(project, tmp_path):
    (project / "src").mkdir()
    (project / "src" / "m.py").write_text("def f():\n    return 1\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("no")
    link = project / "escape"
    link.symlink_to(outside)
    (project / "private").mkdir()

    async def steps(session):
        tools = (await session.list_tools()).tools
        listed = await session.call_tool("LS", {"path": str(project / "src")})
        dotdot = await session.call_tool("LS", {"path": str(project / ".." / "outside")})
        via_link = await session.call_tool("LS", {"path": str(link)})
        denied = await session.call_tool("LS", {"path": str(project / "private")})
        limited = await session.call_tool("LS", {"path": str(project)})
        return tools, listed, dotdot, via_link, denied, limited

    options = ("--deny", "LS:**/private", "--rate-limit", "4", "--audit-log", str(tmp_path / "audit.jsonl"))
    tools, listed, dotdot, via_link, denied, limited = stdio_session(
        project, steps, *options, errlog=tmp_path / "server.log"
    )
    registry = fstools.create_registry(journal=True)  # the server offers the journal tools too
    assert [t.name for t in tools] == registry.names()
    assert all(t.input_schema == registry.get(t.name).input_schema() for t in tools)
    assert not listed.is_error and "m.py" in text(listed)
    for escape in (dotdot, via_link):
        assert escape.is_error and "path_outside_workspace" in text(escape)
    assert denied.is_error and "permission_denied" in text(denied)
    assert limited.is_error and "rate_limited" in text(limited)
    assert len((tmp_path / "audit.jsonl").read_text().splitlines()) == 5
    assert "Traceback" not in (tmp_path / "server.log").read_text()


# A client sends the tool list to the model on every turn: it stays small. The nineteen tools measure
# 19,9xx characters, each fact of their descriptions said once (docs/decisions/fresh-process.md).
TOOL_LIST_CHARS = 20_000


def test_the_tool_list_is_small_and_keeps_what_a_model_needs(in_project):
    registry = fstools.create_registry(journal=True)

    async def steps(client):
        return await client.list_tools()

    listed = session_with(create_server(SessionSettings(), registry), steps)
    wire = listed.model_dump_json(by_alias=True, exclude_none=True)  # as the server writes it
    assert len(wire) <= TOOL_LIST_CHARS, f"{len(wire)} characters"
    for t in listed.tools:  # every description and input schema whole
        tool = registry.get(t.name)
        assert (t.description, t.input_schema) == (tool.description, tool.input_schema())


def test_output_schemas_are_listed_when_asked(in_project):
    registry = fstools.create_registry()

    async def steps(client):
        return (await client.list_tools()).tools

    listed = session_with(create_server(SessionSettings(output_schemas=True), registry), steps)
    assert all(t.output_schema == registry.get(t.name).output_schema() for t in listed)
