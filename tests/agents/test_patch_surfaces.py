"""ApplyPatch through the MCP server (the SDK's client) and the CLI, in real subprocesses."""

from __future__ import annotations

from tests.helpers.processes import fstools_cmd, mcp_text, stdio_session
from tests.helpers.trees import write

PATCH = "*** Begin Patch\n*** Update File: src/a.py\n@@ def f():\n-    return 1\n+    return 2\n*** Add File: b.txt\n+b\n*** End Patch"


def test_over_mcp(project, tmp_path):
    write(project / "src/a.py", b"def f():\r\n    return 1\r\n")

    async def steps(session):
        tools = {t.name: t for t in (await session.list_tools()).tools}
        applied = await session.call_tool("ApplyPatch", {"patch": PATCH})
        again = await session.call_tool("ApplyPatch", {"patch": PATCH})
        return tools["ApplyPatch"], applied, again

    tool, applied, again = stdio_session(project, steps, errlog=tmp_path / "err.log")
    assert tool.annotations is None and tool.input_schema["required"] == ["patch"]  # MCP's defaults: destructive
    assert not applied.is_error and mcp_text(applied).startswith("Success. Updated the following files:\nM src/a.py")
    assert applied.structured_content["files"][0]["action"] == "update"
    assert (project / "src/a.py").read_bytes() == b"def f():\r\n    return 2\r\n"
    assert again.is_error and "does not apply" in mcp_text(again)  # applied once, the hunk no longer matches
    assert (project / "src/a.py").read_bytes() == b"def f():\r\n    return 2\r\n"


def test_on_the_command_line(project):
    write(project / "src/a.py", "def f():\n    return 1\n")
    dry = fstools_cmd("apply-patch", "--dry-run", PATCH, cwd=project)
    assert dry.returncode == 0 and "+    return 2" in dry.stdout and not (project / "b.txt").exists()
    done = fstools_cmd("apply-patch", "--patch-file", "-", cwd=project, stdin=PATCH)
    assert done.returncode == 0, done.stderr
    assert (project / "src/a.py").read_text() == "def f():\n    return 2\n" and (project / "b.txt").read_text() == "b\n"
    bad = fstools_cmd("apply-patch", "*** Begin Patch\n*** Nope\n*** End Patch", cwd=project)
    assert bad.returncode != 0 and "not a valid file header" in bad.stderr
