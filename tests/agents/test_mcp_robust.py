"""The MCP server under hostile input and concurrent load: every call answered, slow calls do not block others."""

from __future__ import annotations

import json
import select
import subprocess
import sys
import threading

import anyio
import pytest
from mcp import Client

import fstools
from fstools._agents.mcp import create_server
from fstools._agents.settings import SessionSettings
from fstools._core.params import ToolParameter
from fstools._core.spec import ToolSpec
from tests.helpers.processes import ENV, mcp_text


def _raw_server(root):
    proc = subprocess.Popen(
        [sys.executable, "-m", "fstools", "mcp", "--root", str(root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=ENV,
        cwd=str(root),
    )
    hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}
    _send(proc, json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}))
    assert b'"id":0' in _reply(proc)
    _send(proc, json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    return proc


def _send(proc, line: str) -> None:
    proc.stdin.write(line.encode("ascii") + b"\n")
    proc.stdin.flush()


def _reply(proc, seconds: float = 20.0) -> bytes:
    ready, _, _ = select.select([proc.stdout], [], [], seconds)
    assert ready, "the server did not answer"
    return proc.stdout.readline()


def test_lone_surrogates_and_reserved_argument_names_over_raw_stdio(project):
    (project / "a.txt").write_text("hello\n")
    proc = _raw_server(project)
    try:
        calls = [
            ("Read", '{"file_path": "\\ud800"}', "invalid_path"),
            ("Read", '{"\\udfff": "x"}', "invalid_argument"),
            ("Grep", '{"pattern": "h", "glob": "\\ud800x"}', "invalid_argument"),
            ("Grep", f'{{"pattern": "hello", "path": "{project}", "context": 1}}', "invalid_argument"),
            ("Grep", f'{{"pattern": "hello", "path": "{project}", "name": "x", "self": 1}}', "invalid_argument"),
            (
                "Grep",
                f'{{"pattern": "hello", "path": "{project}", "-C": 100000000000000000000000000000}}',
                "invalid_argument",
            ),
        ]
        for n, (tool, args, code) in enumerate(calls, 1):
            _send(
                proc,
                f'{{"jsonrpc": "2.0", "id": {n}, "method": "tools/call", "params": {{"name": "{tool}", "arguments": {args}}}}}',
            )
            reply = json.loads(_reply(proc))
            assert reply["id"] == n and reply["result"]["isError"], reply
            assert f"error_code: {code}" in reply["result"]["content"][0]["text"]
    finally:
        proc.stdin.close()
        proc.wait(10)
    assert b"Traceback" not in proc.stderr.read()


def _waiting_tool(name: str, read_only: bool, started: threading.Event, release: threading.Event, order: list):
    def run(ctx, file_path):
        started.set()
        release.wait(2.0)  # times out (and goes on) when nobody releases it
        order.append(name)
        return fstools.ToolResult.ok(name, file_path=file_path)

    spec = ToolSpec(
        name=name,
        description="Waits for a release.",
        parameters=(ToolParameter("file_path", "string", "a path", required=True, path=True),),
        run=run,
        read_only=read_only,
    )
    return type(f"{name}Tool", (fstools.FileTool,), {"spec": spec})()


def _releasing_tool(name: str, release: threading.Event, order: list):
    def run(ctx, file_path):
        order.append(name)
        release.set()
        return fstools.ToolResult.ok(name, file_path=file_path)

    spec = ToolSpec(
        name=name,
        description="Releases the waiting tool.",
        parameters=(ToolParameter("file_path", "string", "a path", required=True, path=True),),
        run=run,
        read_only=True,
    )
    return type(f"{name}Tool", (fstools.FileTool,), {"spec": spec})()


def _concurrent_calls(project, first_path: str, second_path: str) -> list[str]:
    started, release, order = threading.Event(), threading.Event(), []
    registry = fstools.ToolRegistry()
    registry.register(_waiting_tool("Slow", True, started, release, order))
    registry.register(_releasing_tool("Quick", release, order))

    async def main():
        async with Client(create_server(SessionSettings(), registry), mode="legacy") as client:
            results = {}

            async def call(name, path):
                results[name] = await client.call_tool(name, {"file_path": path})

            with anyio.fail_after(30):
                async with anyio.create_task_group() as tg:
                    tg.start_soon(call, "Slow", first_path)
                    await anyio.to_thread.run_sync(started.wait, 10.0)
                    tg.start_soon(call, "Quick", second_path)
            assert mcp_text(results["Slow"]) == "Slow" and mcp_text(results["Quick"]) == "Quick"

    anyio.run(main)
    return order


def test_a_slow_call_does_not_block_a_call_on_another_file(project, monkeypatch):
    monkeypatch.chdir(project)
    order = _concurrent_calls(project, str(project / "a.txt"), str(project / "b.txt"))
    assert order == ["Quick", "Slow"]  # Quick ran while Slow waited, and released it


def test_calls_on_the_same_file_run_in_arrival_order(project, monkeypatch):
    monkeypatch.chdir(project)
    order = _concurrent_calls(project, str(project / "a.txt"), str(project / "a.txt"))
    assert order == ["Slow", "Quick"]  # Quick waited for Slow, which nobody released


def test_a_read_only_call_is_abandoned_past_its_deadline(project, monkeypatch):
    monkeypatch.chdir(project)
    started, release, order = threading.Event(), threading.Event(), []
    registry = fstools.ToolRegistry()
    registry.register(_waiting_tool("Slow", True, started, release, order))
    monkeypatch.setattr("fstools._agents.mcp.CALL_GRACE_SECONDS", 0.0)

    async def main():
        async with Client(create_server(SessionSettings(timeout=0.2), registry), mode="legacy") as client:
            result = await client.call_tool("Slow", {"file_path": str(project / "a.txt")})
            return result, list(order)

    result, finished = anyio.run(main)
    release.set()
    assert result.is_error and "error_code: timeout" in mcp_text(result) and finished == []


def test_tolerant_stream_reparses_what_the_strict_parser_refused():
    import mcp_types
    from mcp.shared.message import SessionMessage
    from pydantic import ValidationError

    from fstools._agents.mcpwire import TolerantReadStream, reparse

    line = '{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "Read", "arguments": {"file_path": "\\ud800"}}}'
    try:
        mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValidationError as exc:
        refused = exc
    assert isinstance(reparse(refused), SessionMessage)
    try:
        mcp_types.jsonrpc_message_adapter.validate_json("{not json", by_name=False)
    except ValidationError as exc:
        garbage = exc
    assert reparse(garbage) is garbage and reparse(KeyError("x")).args == ("x",)

    async def main():
        send, receive = anyio.create_memory_object_stream(4)
        async with TolerantReadStream(receive) as stream:
            await send.send(refused)
            await send.send(garbage)
            await send.aclose()
            items = [item async for item in stream]
            assert stream.last_context is None
        return items

    first, second = anyio.run(main)
    assert first.message.params["arguments"]["file_path"] == "\ud800" and second is garbage


@pytest.mark.parametrize(
    ("name", "text"),
    [
        # a few kilobytes of C that take seconds to parse (each `(a)(b)` a cast or a call), one tree-sitter call
        ("ambiguous.c", "void f(void) {" + "(a)(b)*(c)&(d)-" * 320 + "1;}\n"),
        ("data.py", "x = [" + "1, " * 1_000_000 + "]\n"),  # seconds of parsing, no definitions
    ],
    ids=["small-ambiguous-c", "large-python"],
)
def test_a_slow_outline_does_not_hold_up_a_small_read(tmp_path, name, text):
    """tree-sitter parses holding the GIL: the server's loop and a Read's thread must still run meanwhile.
    Small Reads sent one after another while the Outline runs each wait a small part of its time, not
    the rest of its parse."""
    import time

    import anyio

    from tests.helpers.processes import stdio_session

    root = tmp_path / "proj"
    root.mkdir()
    (root / name).write_text(text)
    (root / "small.txt").write_text("small\n")

    async def steps(session):
        await session.call_tool("Read", {"file_path": str(root / "small.txt")})  # the server warmed up
        outline: list[float] = []
        waits: list[float] = []

        async def call_outline():
            start = time.monotonic()
            result = await session.call_tool("Outline", {"path": str(root / name)})
            assert not result.is_error, result.content
            outline.append(time.monotonic() - start)

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(call_outline)
            while not outline:
                start = time.monotonic()
                result = await session.call_tool("Read", {"file_path": str(root / "small.txt")})
                assert not result.is_error, result.content
                waits.append(time.monotonic() - start)  # sent while the Outline ran
        return outline[0], waits

    took, waits = stdio_session(root, steps, errlog=tmp_path / "err.log")
    assert len(waits) >= 3, f"{len(waits)} Reads answered during a {took:.2f}s Outline"
    assert max(waits) < took / 4, f"a Read waited {max(waits):.2f}s of a {took:.2f}s Outline"
