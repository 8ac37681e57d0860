"""Test helpers shared by the Write/Edit/MultiEdit/Delete tests.

`agent_read` stands in for the Read tool until it is merged: it records, exactly as a
successful Read does, that `ctx` has seen the file's current content. Swap its body for
`fstools.read(str(path), ctx=ctx)` once Read lands.
"""

from __future__ import annotations

import os
from pathlib import Path

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


def read_text(path: str | os.PathLike[str]) -> str:
    return Path(path).read_text(encoding="utf-8")


ROOT = Path(__file__).resolve().parent.parent


def child_env() -> dict[str, str]:
    """Environment for a child Python that imports fstools and these helpers from this checkout."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env
