"""Test helpers shared by the Write/Edit/MultiEdit/Delete tests.

`agent_read` stands in for the Read tool until it is merged: it records, exactly as a
successful Read does, that `ctx` has seen the file's current content. Once Read lands,
replace its `remember(...)` line by `assert fstools.read(canonical, ctx=ctx).success` and keep
returning the bytes (the tests and the concurrency workers use them).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from fstools import PermissionManager, PermissionRequest, PermissionRule
from fstools._context import ExecutionContext
from fstools._fingerprint import remember


def agent_read(ctx: ExecutionContext, path: str | os.PathLike[str]) -> bytes:
    """Record that `ctx` read `path` (stat and content from one open file); returns the bytes."""
    canonical = os.path.realpath(path)
    with open(canonical, "rb") as f:
        st = os.fstat(f.fileno())
        data = f.read()
    remember(ctx, canonical, st, data)
    return data


def edits(*pairs: tuple[str, str]) -> list[dict[str, str]]:
    """MultiEdit's `edits` argument from (old_string, new_string) pairs."""
    return [{"old_string": old, "new_string": new} for old, new in pairs]


def ask_rule(tool: str, confirm: Callable[[PermissionRequest], bool]) -> PermissionManager:
    """A PermissionManager that asks `confirm` before every call of `tool`."""
    return PermissionManager(rules=[PermissionRule(tool=tool, action="ask")], confirm=confirm)


ROOT = Path(__file__).resolve().parent.parent


def child_env() -> dict[str, str]:
    """Environment for a child Python that imports fstools and these helpers from this checkout."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env
