"""Globs an agent can send that a backtracking regex would take minutes on, and trees deeper than the recursion limit."""

from __future__ import annotations

import os

import fstools
from fstools._change.tree import remove_tree
from tests.helpers.trees import deep_tree, write


def test_ls_ignore_with_many_stars_next_to_a_long_name(project, ctx):
    (project / ("a" * 60)).write_text("x")
    (project / ("a" * 59 + "b")).write_text("x")
    r = fstools.ls(str(project), ignore=["*a" * 8 + "b"], ctx=ctx)
    assert r.success and [e["name"] for e in r.metadata["entries"]] == ["a" * 60]


def test_glob_with_many_stars_next_to_a_long_directory_name(project, ctx):
    write(project / ("a" * 40 + "c") / "x", "1")
    write(project / ("a" * 40) / "x", "1")
    r = fstools.glob("*a" * 11 + "/x", str(project), ctx=ctx)
    assert r.success and r.output.splitlines() == [str(project / ("a" * 40) / "x")]


def test_bad_globs_are_invalid_arguments(project, ctx):
    assert fstools.ls(str(project), ignore=["[z-a]"], ctx=ctx).error_code == "invalid_argument"
    assert fstools.ls(str(project), ignore=["{a,b}" * 13], ctx=ctx).error_code == "invalid_argument"
    assert fstools.glob("[z-a]/*", str(project), ctx=ctx).error_code == "invalid_argument"


def test_glob_following_links_in_a_tree_deeper_than_the_recursion_limit(project, ctx):
    deep_tree(project / "top", 1200)
    try:
        r = fstools.glob("**/*.txt", str(project), follow_symlinks=True, ctx=ctx)
        assert r.success and r.metadata["count"] == 1 and r.output.endswith("/d/f.txt")
    finally:
        parent = os.open(project, os.O_RDONLY | os.O_DIRECTORY)
        try:
            remove_tree(parent, "top")  # pytest's own cleanup (shutil.rmtree) recurses
        finally:
            os.close(parent)


def test_delete_a_tree_deeper_than_the_recursion_limit(project, ctx):
    deep_tree(project / "top", 1200)
    dry = fstools.delete(
        str(project / "top"), recursive=True, ctx=fstools.ExecutionContext(working_dir=str(project), dry_run=True)
    )
    assert dry.success and dry.metadata["removed_count"] == 1202 and (project / "top").exists()
    r = fstools.delete(str(project / "top"), recursive=True, ctx=ctx)
    assert r.success and r.metadata["files"] == 1 and r.metadata["directories"] == 1201
    assert not (project / "top").exists()
