"""Helpers for tests that run this checkout's code in real subprocesses (CLI, MCP server, example)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import fstools

# The checkout under test: subprocesses get it on PYTHONPATH, whatever copy is installed.
WORKTREE = Path(fstools.__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(WORKTREE)}


def fstools_cmd(*args: str, cwd: Path, stdin: str | None = None, timeout: float = 30) -> subprocess.CompletedProcess:
    """Run `python -m fstools ARGS` in `cwd`."""
    return subprocess.run(
        [sys.executable, "-m", "fstools", *args],
        cwd=cwd,
        env=ENV,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def mcp_text(result) -> str:
    """The text content of an MCP CallToolResult."""
    return "\n".join(c.text for c in result.content if c.type == "text")


def stdio_session(root: Path, steps, *extra: str, errlog: Path):
    """Start `python -m fstools mcp --root ROOT`, talk to it with the SDK's stdio client, run `steps(session)`."""
    import anyio
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "fstools", "mcp", "--root", str(root), *extra], env=ENV, cwd=str(root)
    )

    async def main():
        with open(errlog, "w") as log:
            async with stdio_client(params, errlog=log) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    with anyio.fail_after(60):
                        return await steps(session)

    return anyio.run(main)


def run_python(code: str, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess:
    """Run `code` verbatim in a fresh interpreter in `cwd`, its temporary files under `cwd` too."""
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        env={**ENV, "TMPDIR": str(cwd)},
        capture_output=True,
        text=True,
        timeout=timeout,
    )
