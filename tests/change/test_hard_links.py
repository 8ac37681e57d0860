"""A hard link reaches content a path sandbox cannot see: every file tool says so on its result."""

from __future__ import annotations

import os

import fstools
from tests.helpers.tools import agent_read


def test_read_write_edit_multiedit_report_hard_links(project, ctx, tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("secret line\n")
    inside = project / "h.txt"
    os.link(outside, inside)
    read = fstools.read(str(inside), ctx=ctx)
    assert read.metadata["hard_links"] == 2 and "2 hard links" in read.metadata["warnings"][-1]
    assert "(warning: This file has 2 hard links" in read.to_text()
    edit = fstools.edit(str(inside), "secret", "public", ctx=ctx)
    assert edit.success and edit.metadata["hard_links"] == 2 and edit.metadata["in_place"]
    multi = fstools.multi_edit(str(inside), [{"old_string": "public", "new_string": "open"}], ctx=ctx)
    assert multi.success and multi.metadata["hard_links"] == 2
    write = fstools.write(str(inside), "rewritten\n", ctx=ctx)
    assert write.success and write.metadata["hard_links"] == 2
    assert outside.read_text() == "rewritten\n"  # the limit, documented: the link is kept, the change shows there


def test_single_link_files_carry_no_note(project, ctx):
    path = project / "a.txt"
    path.write_text("x\n")
    agent_read(ctx, path)
    for r in (fstools.read(str(path), ctx=ctx), fstools.edit(str(path), "x", "y", ctx=ctx)):
        assert r.success and "hard_links" not in r.metadata and not r.metadata.get("warnings")
