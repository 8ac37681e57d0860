"""Correctness checks run before anything is timed: a fast wrong answer is not a result.

Each check parses fstools' documented output format (docs/contract.md) and compares it with what
the reference produced on the same corpus.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

from fstools import ToolResult

from .api import ok

_READ_LINE = re.compile(r"^\s*(\d+)\t(.*)$")
_GREP_MATCH = re.compile(r"^(/.*?):(\d+)> ")
_GREP_COUNT = re.compile(r"^(/.*): (\d+)$")
_RG_LINE = re.compile(r"^(.*?):(\d+):")
_RG_COUNT = re.compile(r"^(.*):(\d+)$")


def read_window(result: ToolResult, path: str, offset: int, limit: int) -> None:
    """The numbered lines are exactly lines offset..offset+limit-1 of the file."""
    ok(result)
    got = [(int(m[1]), m[2]) for m in map(_READ_LINE.match, result.output.split("\n")) if m]
    with open(path, encoding="utf-8", newline="") as f:
        text = f.read()
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()  # the newline ends the last line; it does not start another
    expected = list(enumerate(lines[offset - 1 : offset - 1 + limit], offset))
    assert got == expected, f"Read {path} offset={offset} limit={limit}: {len(got)} lines, expected {len(expected)}"


def file_content(path: str, expected: bytes) -> None:
    with open(path, "rb") as f:
        assert f.read() == expected, f"{path} does not hold the expected bytes"


def paths(result: ToolResult) -> list[str]:
    """Absolute paths listed one per line (Glob, Grep files_with_matches), notices left out."""
    return [line for line in ok(result).output.split("\n") if line.startswith("/")]


def glob_order(result: ToolResult, expected: Sequence[str], total: int) -> None:
    got = paths(result)
    assert got == list(expected), (
        f"Glob returned {len(got)} paths, expected {len(expected)} (first diff at {_first_diff(got, expected)})"
    )
    assert result.metadata["count"] == total, f"Glob count {result.metadata['count']}, expected {total}"


def _first_diff(a: Sequence[str], b: Sequence[str]) -> int:
    return next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))


def grep_matches(result: ToolResult) -> set[tuple[str, int]]:
    """(path, line) of every matching line of a content-mode result with -n."""
    return {(m[1], int(m[2])) for m in map(_GREP_MATCH.match, ok(result).output.split("\n")) if m}


def rg_matches(rg_lines: Sequence[str]) -> set[tuple[str, int]]:
    return {(m[1], int(m[2])) for m in map(_RG_LINE.match, rg_lines) if m}


def grep_content(result: ToolResult, rg_lines: Sequence[str], expected_count: int | None = None) -> None:
    """Same matching lines as `rg -n`, and total_matches counts them exactly."""
    want = rg_matches(rg_lines)
    # A search cut by the call's timeout says so; name it, not a wrong answer (a cold tree read from the disk).
    assert not result.metadata.get("timed_out"), f"Grep timed out: {result.metadata.get('warnings')}"
    if expected_count is not None:
        assert len(want) == expected_count, f"rg found {len(want)} lines, the corpus should give {expected_count}"
    got = grep_matches(result)
    if result.metadata.get("truncated") and len(got) < len(want):
        # Past its every-line output cap Grep answers with a first page (real lines, exact totals).
        assert got <= want and len(got) == result.metadata["returned_matches"], "a capped page of lines rg did not find"
        assert any("MiB" in w for w in result.metadata.get("warnings", [])), "cut without saying so"
    else:
        assert got == want, f"Grep returned {len(got)} matching lines, rg -n {len(want)}"
    assert result.metadata["total_matches"] == len(want), (
        f"total_matches {result.metadata['total_matches']} != {len(want)}"
    )


def grep_page(result: ToolResult, rg_lines: Sequence[str], head_limit: int) -> None:
    """A first page: head_limit matching lines, all real, with the exact total."""
    want = rg_matches(rg_lines)
    got = grep_matches(result)
    assert len(got) == min(head_limit, len(want)) and got <= want, f"page of {len(got)} lines, not {head_limit} of rg's"
    assert result.metadata["total_matches"] == len(want), (
        f"total_matches {result.metadata['total_matches']} != {len(want)}"
    )
    assert result.metadata["truncated"] is (len(want) > head_limit)


def grep_files(result: ToolResult, rg_files: Sequence[str]) -> None:
    got = paths(result)
    assert sorted(got) == sorted(rg_files), f"Grep listed {len(got)} files, rg -l {len(rg_files)}"


def grep_counts(result: ToolResult, rg_lines: Sequence[str]) -> None:
    got = {m[1]: int(m[2]) for m in map(_GREP_COUNT.match, ok(result).output.split("\n")) if m}
    want = {m[1]: int(m[2]) for m in map(_RG_COUNT.match, rg_lines) if m}
    assert got == want, (
        f"Grep counted {len(got)} files / {sum(got.values())} lines, rg -c {len(want)} / {sum(want.values())}"
    )
    assert result.metadata["total_matches"] == sum(want.values())


def ls_names(result: ToolResult, expected: Sequence[str]) -> None:
    got = [e["name"] for e in ok(result).metadata["entries"]]
    assert got == list(expected), f"LS listed {len(got)} entries, expected {len(expected)}"


def deleted(result: ToolResult, path: str) -> None:
    ok(result)
    assert not os.path.lexists(path), f"{path} still exists after Delete"
