"""Grep's `glob` with a directory part is relative to the searched `path`, whatever the process's cwd."""

from __future__ import annotations

from pathlib import Path

import pytest

import fstools
from tests.helpers.trees import write


@pytest.fixture
def tree(project: Path) -> Path:
    write(project / "src/a.ts", "hit\n", age=4)
    write(project / "src/sub/b.ts", "hit\n", age=3)
    write(project / "tool/c.ts", "hit\n", age=2)
    write(project / "d.ts", "hit\n", age=1)
    return project


def _paths(result: fstools.ToolResult, root: Path) -> set[str]:
    assert result.success, result.error
    return {m["path"] if isinstance(m, dict) else m for m in result.metadata.get("matches", [])} | {
        line.split(":", 1)[0] for line in result.output.splitlines() if line.startswith(str(root))
    }


CASES = [
    ("src/**", {"src/a.ts", "src/sub/b.ts"}),
    ("tool/*.ts", {"tool/c.ts"}),
    ("src/*.ts", {"src/a.ts"}),
    ("/src/*.ts", {"src/a.ts"}),
    ("!src/**", {"tool/c.ts", "d.ts"}),
    ("*.ts", {"src/a.ts", "src/sub/b.ts", "tool/c.ts", "d.ts"}),
]


@pytest.mark.parametrize("where", ["elsewhere", "root", "inside"])
@pytest.mark.parametrize(
    "mode,head_limit", [("files_with_matches", 100), ("count", 100), ("content", 0), ("content", 2)]
)
@pytest.mark.parametrize("glob,expected", CASES)
def test_directory_globs_are_relative_to_the_searched_path(
    tree, ctx, tmp_path, monkeypatch, where, mode, head_limit, glob, expected
):
    cwd = {"elsewhere": tmp_path / "elsewhere", "root": tree, "inside": tree / "src/sub"}[where]
    cwd.mkdir(exist_ok=True)
    monkeypatch.chdir(cwd)
    r = fstools.grep("hit", path=str(tree), glob=glob, output_mode=mode, head_limit=head_limit, ctx=ctx)
    want = {str(tree / p) for p in expected}
    if mode == "content" and head_limit:
        assert r.metadata["total_files"] == len(want)
        assert _paths(r, tree) <= want and len(_paths(r, tree)) == min(head_limit, len(want))
    else:
        assert _paths(r, tree) == want


def test_a_subdirectory_search_roots_the_glob_there(tree, ctx, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = fstools.grep("hit", path=str(tree / "src"), glob="sub/*.ts", ctx=ctx)
    assert r.output.splitlines() == [str(tree / "src/sub/b.ts")]


def test_a_glob_that_matches_nothing_relative_to_the_path_finds_nothing(tree, ctx, tmp_path, monkeypatch):
    # `src/**` named from the project would be `**` from src: relative to the path, src/src/** is empty.
    monkeypatch.chdir(tree)
    r = fstools.grep("hit", path=str(tree / "src"), glob="src/**", ctx=ctx)
    assert r.success and r.metadata["total_matches"] == 0


def test_a_file_path_is_searched_whatever_the_cwd(tree, ctx, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = fstools.grep("hit", path=str(tree / "src/a.ts"), ctx=ctx, output_mode="content")
    assert r.output == f"{tree / 'src/a.ts'}:1> hit"


@pytest.mark.parametrize("glob", ["*.ts", "*.py", "src/*.ts", "sub/*.ts", "!*.ts"])
@pytest.mark.parametrize("mode", ["files_with_matches", "count", "content"])
def test_a_file_path_is_searched_whatever_the_glob(tree, ctx, tmp_path, monkeypatch, glob, mode):
    # The caller named the file: as rg does for a file it is given, no glob filters it out, from any cwd.
    for cwd in (tmp_path, tree, tree / "src"):
        monkeypatch.chdir(cwd)
        r = fstools.grep("hit", path=str(tree / "src/a.ts"), glob=glob, output_mode=mode, ctx=ctx)
        assert r.metadata["total_matches"] == 1 and str(tree / "src/a.ts") in r.output, (cwd, r.output)
