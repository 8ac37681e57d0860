"""Ignore files that are links: a call made twice, with the linked file hiding a file and then
hiding nothing. A walker that never applies the link gives the same result both times."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import fstools

HIDES = "hidden.txt\n"
HIDES_NOTHING = "API_KEY=not-a-rule-for-any-file\n"


def twice(target: Path, call: Callable[[], fstools.ToolResult]) -> tuple[fstools.ToolResult, fstools.ToolResult]:
    """`call` with `target` hiding `hidden.txt`, then with it hiding nothing."""
    target.write_text(HIDES)
    first = call()
    target.write_text(HIDES_NOTHING)
    return first, call()


def lines(r: fstools.ToolResult) -> list[str]:
    """A successful result's output lines, sorted."""
    assert r.success, r.error
    return sorted(r.output.splitlines())
