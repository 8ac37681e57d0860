"""Read's output bound: a page holds at most 100,000 characters, in every front end.

A page left at the default limit stops at the last whole line that fits (a partial view whose
notice says where to continue); a limit the caller chose whose lines would pass the bound is
refused with the limit that fits.
"""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

import fstools
from fstools._read.many import DEFAULT_MAX_CHARS
from fstools._read.outline import MAX_OUTLINE_CHARS
from fstools._read.window import MAX_READ_CHARS
from tests.helpers.processes import fstools_cmd

WIDE = "x" * 1990  # 49 such lines fit in a page


def numbered(output: str) -> list[int]:
    return [int(line.split("\t", 1)[0]) for line in output.split("\n") if line[:6].strip().isdigit() and "\t" in line]


@pytest.fixture
def wide(project: Path) -> Path:
    f = project / "w.txt"
    f.write_text((WIDE + "\n") * 3000)
    return f


def test_a_default_page_of_long_lines_is_a_partial_view(wide, ctx):
    r = fstools.read(str(wide), ctx=ctx)
    assert r.success and len(r.output) <= MAX_READ_CHARS
    assert numbered(r.output) == list(range(1, 50))
    assert r.metadata["partial"] is True and r.metadata["truncated"] is True and r.metadata["lines_read"] == 49
    assert r.metadata["next_offset"] == 50
    assert r.output.endswith(
        "[Showing lines 1-49 of 3000, a partial view: a page stops at 100,000 characters. Use offset=50 to read more.]"
    )
    assert ctx.read_record(str(wide)) is not None  # a partial view is a read, as any page is
    # The notice's offset continues, again as a partial view: no refusal on the way.
    after = fstools.read(str(wide), offset=50, ctx=ctx)
    assert after.success and numbered(after.output)[0] == 50 and after.metadata["partial"]
    last = fstools.read(str(wide), offset=-10, ctx=ctx)
    assert numbered(last.output) == list(range(2991, 3001)) and "partial" not in last.metadata


def test_a_chosen_limit_over_the_bound_is_refused_with_the_limit_that_fits(project, wide):
    ctx = fstools.ExecutionContext(working_dir=str(project))
    r = fstools.read(str(wide), limit=100, ctx=ctx)
    assert r.error_code == "invalid_argument" and r.metadata["max_limit"] == 49
    assert "Use limit=49 (the most lines from 1 that fit), or leave limit out for a partial view" in r.error
    assert len(r.error) < 400 and ctx.read_record(str(wide)) is None  # nothing shown, nothing read
    fitting = fstools.read(str(wide), limit=49, ctx=ctx)
    assert fitting.success and numbered(fitting.output) == list(range(1, 50)) and "partial" not in fitting.metadata
    middle = fstools.read(str(wide), offset=1000, limit=60, ctx=ctx)
    assert middle.metadata["max_limit"] == 49 and "from 1000 that fit" in middle.error


def test_lines_cut_counts_only_the_lines_shown(project, ctx):
    f = project / "cut.txt"
    f.write_text(("y" * 5000 + "\n") * 100)
    r = fstools.read(str(f), ctx=ctx)
    assert r.metadata["lines_read"] == 49 and r.metadata["lines_cut"] == 49 and len(r.output) <= MAX_READ_CHARS


def test_a_definition_longer_than_a_page_keeps_the_notice(project, ctx):
    f = project / "huge.py"
    body = "".join(f"    v{i} = '{'z' * 1500}'\n" for i in range(200))
    f.write_text(f"def small():\n    return 1\n\n\ndef huge():\n{body}")
    r = fstools.read(str(f), symbol="huge", ctx=ctx)
    assert r.success and r.metadata["partial"] and r.metadata["truncated"] and len(r.output) <= MAX_READ_CHARS
    assert numbered(r.output)[0] == 5 and "a partial view" in r.output
    whole = fstools.read(str(f), symbol="small", ctx=ctx)
    assert whole.output == "     1\tdef small():\n     2\t    return 1" and not whole.metadata["truncated"]


def test_read_many_and_outline_share_the_bound(wide, ctx):
    assert DEFAULT_MAX_CHARS == MAX_OUTLINE_CHARS == MAX_READ_CHARS
    r = fstools.read_many([str(wide)], max_chars=1_000_000, ctx=ctx)
    block = r.output.split("\n", 1)[1]
    assert block == fstools.read(str(wide), ctx=ctx).output  # Read's own partial view, not 2000 lines
    with_limit = fstools.read_many([str(wide)], limit=500, max_chars=1_000_000, ctx=ctx)
    assert with_limit.metadata["files"] == [str(wide)] and "a partial view" in with_limit.output


@pytest.mark.parametrize("provider", ["mcp", "anthropic", "openai", "openai-responses"])
def test_every_rendering_holds_the_bound(wide, ctx, provider):
    content = fstools.read(str(wide), ctx=ctx).to_content(provider)
    assert sum(len(json.dumps(block)) for block in content) < MAX_READ_CHARS + 1_000


def test_the_cli_prints_one_page_and_refuses_a_chosen_limit(wide):
    done = fstools_cmd("read", wide.name, cwd=wide.parent)
    assert done.returncode == 0 and len(done.stdout) <= MAX_READ_CHARS + 1
    assert done.stdout.rstrip("\n").endswith("Use --offset 50 to read more.]")
    refused = fstools_cmd("read", wide.name, "--limit", "100", cwd=wide.parent)
    assert refused.returncode == 1 and refused.stdout == ""
    assert "Use --limit 49" in refused.stderr and "[invalid_argument]" in refused.stderr


def test_the_mcp_server_sends_one_page(wide):
    from mcp import Client

    from fstools._agents.mcp import create_server
    from fstools._agents.settings import SessionSettings
    from tests.helpers.processes import mcp_text

    async def main():
        async with Client(create_server(SessionSettings(roots=(str(wide.parent),))), mode="legacy") as client:
            return (
                await client.call_tool("Read", {"file_path": str(wide)}),
                await client.call_tool("Read", {"file_path": str(wide), "limit": 100}),
            )

    page, refused = anyio.run(main)
    assert not page.is_error and len(mcp_text(page)) <= MAX_READ_CHARS
    assert page.structured_content["partial"] is True and page.structured_content["next_offset"] == 50
    assert refused.is_error and "Use limit=49" in mcp_text(refused)
