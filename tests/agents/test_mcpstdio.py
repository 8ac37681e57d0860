"""The MCP server's stdio: the event loop's own pipes where it can, the SDK's transport elsewhere."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.helpers.processes import ENV

INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def call(i: int, name: str, arguments: dict) -> dict:
    return {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": name, "arguments": arguments}}


def server(root, stdin) -> subprocess.Popen:
    argv = [sys.executable, "-m", "fstools", "mcp", "--root", str(root), "--index", "off"]
    return subprocess.Popen(argv, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV, cwd=root)


def replies(stdout: bytes) -> dict:
    return {m["id"]: m for m in map(json.loads, stdout.splitlines()) if "id" in m}


def ask(proc: subprocess.Popen, message: dict) -> dict:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(message).encode() + b"\n")
    proc.stdin.flush()
    return json.loads(proc.stdout.readline())


def test_over_pipes_long_lines_and_the_standard_descriptors_kept_off_the_wire(tmp_path):
    (tmp_path / "a.txt").write_text("alpha\nbeta\n")
    big = "x" * (3 << 20) + "\n"  # one 3 MiB line: far past a stream reader's default limit
    proc = server(tmp_path, subprocess.PIPE)
    try:
        assert ask(proc, INIT)["id"] == 0
        # The event loop's thread alone reads and writes the wire (no tool has run yet to start others).
        assert len(os.listdir(f"/proc/{proc.pid}/task")) == 1
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(INITIALIZED).encode() + b"\n")
        read = ask(proc, call(1, "Read", {"file_path": str(tmp_path / "a.txt")}))
        assert read["id"] == 1 and "     1\talpha" in read["result"]["content"][0]["text"]
        # While serving, a tool or child that reads stdin or prints cannot touch the wire.
        assert os.readlink(f"/proc/{proc.pid}/fd/0") == os.devnull
        assert os.readlink(f"/proc/{proc.pid}/fd/1") == os.readlink(f"/proc/{proc.pid}/fd/2")
        write = ask(proc, call(2, "Write", {"file_path": str(tmp_path / "big.txt"), "content": big}))
        assert write["id"] == 2 and write["result"]["isError"] is False
        assert (tmp_path / "big.txt").read_text() == big
        reread = ask(proc, call(3, "Read", {"file_path": str(tmp_path / "big.txt"), "limit": 1}))
        assert reread["result"]["structuredContent"]["total_lines"] == 1
    finally:
        proc.communicate(timeout=60)
    assert proc.returncode == 0


def test_stdin_from_a_file_is_served_by_the_sdk_transport(tmp_path):
    requests = tmp_path / "requests.jsonl"
    requests.write_text(json.dumps(INIT) + "\n")
    with open(requests, "rb") as stdin:
        proc = server(tmp_path, stdin)
        out, err = proc.communicate(timeout=60)
    assert replies(out)[0]["result"]["serverInfo"]["name"] == "fstools", err
