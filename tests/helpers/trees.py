"""Helpers shared by the Grep tests: files with chosen mtimes, the tool as an agent calls it, raw rg."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import fstools
from fstools._core.binaries import find_binary

BASE_MTIME = 1_700_000_000


def write(path: Path, text: str | bytes, *, age: int | None = None) -> Path:
    """Create a file (and its parents); `age` seconds before BASE_MTIME fixes its mtime."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    if age is not None:
        os.utime(path, (BASE_MTIME - age, BASE_MTIME - age))
    return path


def run_tool(ctx: fstools.ExecutionContext, **args) -> fstools.ToolResult:
    """Call Grep the way an agent does: through the registry, with the tool-layer parameter names (-i, -n, -A, ...)."""
    return fstools.create_registry().run("Grep", ctx, **args)


def raw_rg(*args: str) -> bytes:
    """Raw rg output, for differential tests (no config file, stdin closed)."""
    rg = find_binary("rg")
    assert rg is not None
    proc = subprocess.run([rg, "--no-config", *args], stdin=subprocess.DEVNULL, capture_output=True)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.stdout
