"""Test helpers shared by the Write/Edit/MultiEdit/Delete tests.

`agent_read` is what an agent does before changing a file: a real Read in its context.
It returns the bytes as well, which the tests and the concurrency workers build on.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import fstools
from fstools import PermissionManager, PermissionRequest, PermissionRule
from fstools._content.fingerprints import content_digest
from fstools._core.context import ExecutionContext


def agent_read(ctx: ExecutionContext, path: str | os.PathLike[str]) -> bytes:
    """Read `path` with the Read tool in `ctx` (so later writes are allowed) and return the bytes
    that read saw: retried when another process changed the file between the two looks."""
    canonical = os.path.realpath(path)
    while True:
        with open(canonical, "rb") as f:
            data = f.read()
        result = fstools.read(canonical, ctx=ctx, limit=1)
        assert result.success, result.error
        record = ctx.read_record(canonical)
        if record is not None and record.digest == content_digest(data):
            return data


def edits(*pairs: tuple[str, str]) -> list[dict[str, str]]:
    """MultiEdit's `edits` argument from (old_string, new_string) pairs."""
    return [{"old_string": old, "new_string": new} for old, new in pairs]


def ask_rule(tool: str, confirm: Callable[[PermissionRequest], bool]) -> PermissionManager:
    """A PermissionManager that asks `confirm` before every call of `tool`."""
    return PermissionManager(rules=[PermissionRule(tool=tool, action="ask")], confirm=confirm)


ROOT = Path(__file__).resolve().parents[2]


def child_env() -> dict[str, str]:
    """Environment for a child Python that imports fstools and these helpers from this checkout."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env
