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


def test_a_pdf_stops_at_the_last_whole_page_that_fits(project, ctx):
    from tests.helpers.samples import make_pdf

    f = project / "long.pdf"
    f.write_bytes(make_pdf([" ".join(["word"] * 4000) + f" page{n}" for n in range(1, 11)]))
    r = fstools.read(str(f), ctx=ctx)
    assert r.success and len(r.output) <= MAX_READ_CHARS and r.metadata["partial"] and r.metadata["truncated"]
    shown = r.metadata["pages_read"]
    assert 1 <= shown < 10 and f"--- Page {shown} ---" in r.output and f"--- Page {shown + 1} ---" not in r.output
    notice = f'a page of output stops at 100,000 characters). Use pages="{shown + 1}-10" to read the next ones.]'
    assert notice in r.output
    rest = fstools.read(str(f), pages=f"{shown + 1}-10", ctx=ctx)
    assert f"--- Page {shown + 1} ---" in rest.output and len(rest.output) <= MAX_READ_CHARS


def _notebook(cells: list[str]) -> str:
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    nb = new_notebook(cells=[new_code_cell(source) for source in cells])
    nb.nbformat_minor = 4
    for cell in nb.cells:
        del cell["id"]
    return nbformat.writes(nb)


def test_a_notebook_page_holds_whole_cells_and_offset_reads_on(project, ctx):
    f = project / "big.ipynb"
    f.write_text(_notebook([f"cell_{n} = '{'q' * 1500}'\n" * 10 for n in range(40)]))
    r = fstools.read(str(f), ctx=ctx)
    assert r.success and len(r.output) <= MAX_READ_CHARS and r.metadata["partial"] and r.metadata["truncated"]
    shown = r.metadata["cell_ids"]
    assert shown == [f"cell-{n}" for n in range(len(shown))] and 1 < len(shown) < 40
    n = len(shown)
    assert r.output.endswith(
        f"[Showing cells 1-{n} of 40, a partial view: a page stops at 100,000 characters. "
        f"Use offset={n + 1} to read on from cell cell-{n}.]"
    )
    assert r.metadata["next_offset"] == n + 1 and f"--- Cell cell-{n} " not in r.output
    after = fstools.read(str(f), offset=n + 1, ctx=ctx)
    assert after.metadata["cell_ids"][0] == f"cell-{n}" and after.output.startswith(f"--- Cell cell-{n} (code) ---")
    tail = fstools.read(str(f), offset=-2, ctx=ctx)
    assert tail.metadata["cell_ids"] == ["cell-38", "cell-39"] and not tail.metadata["truncated"]
    few = fstools.read(str(f), limit=2, ctx=ctx)
    assert few.metadata["cell_ids"] == ["cell-0", "cell-1"] and "partial" not in few.metadata
    assert few.output.endswith("Use offset=3 to read on from cell cell-2.]")
    past = fstools.read(str(f), offset=41, ctx=ctx)
    assert past.error_code == "invalid_argument" and "it has 40 cell(s)" in past.error


def test_one_notebook_cell_over_the_bound_is_cut_at_a_line(project, ctx):
    f = project / "one.ipynb"
    f.write_text(_notebook(["".join(f"line_{n} = '{'r' * 1000}'\n" for n in range(300)), "after = 1"]))
    r = fstools.read(str(f), ctx=ctx)
    assert len(r.output) <= MAX_READ_CHARS and r.metadata["cell_ids"] == ["cell-0"]
    assert "[... the rest of this cell is not shown: a page holds at most 100,000 characters]" in r.output
    assert "Use offset=2 to read on from cell cell-1.]" in r.output


def test_one_pdf_page_over_the_bound_is_cut(project, ctx):
    from tests.helpers.samples import make_pdf

    f = project / "dense.pdf"
    f.write_bytes(make_pdf([" ".join(["dense"] * 20000), "second"]))
    r = fstools.read(str(f), ctx=ctx)
    assert len(r.output) <= MAX_READ_CHARS and r.metadata["pages"] == "1" and r.metadata["partial"]
    assert "[... the rest of page 1 is not shown: a page holds at most 100,000 characters]" in r.output
    assert r.output.endswith('Use pages="2" to read the next ones.]')


def test_the_framework_adapters_pass_on_one_page(wide, ctx):
    from fstools.integrations._common import call, parts

    tool = fstools.FileTool(fstools.read.spec)
    page = parts(anyio.run(call, tool, ctx, {"file_path": str(wide)}))
    assert not page.failed and len(page.text) <= MAX_READ_CHARS and page.text.endswith("Use offset=50 to read more.]")
    refused = parts(anyio.run(call, tool, ctx, {"file_path": str(wide), "limit": 100}))
    assert refused.failed and "Use limit=49" in refused.text
