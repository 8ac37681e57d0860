"""metadata["index"] says why a call walked, in words that hold for that call; `--index off` per command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import fstools
from fstools._index.build import build
from tests.helpers.indexed import MAX_FILESIZE, make_tree, write
from tests.helpers.processes import fstools_cmd


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    make_tree(root, seed=3, files=8)
    return root.resolve()


def context(root: Path) -> fstools.ExecutionContext:
    return fstools.ExecutionContext(working_dir=str(root), grep_max_filesize=MAX_FILESIZE)


def test_without_an_index_the_reason_is_none_whatever_the_options(tmp_path: Path) -> None:
    write(tmp_path / "a.h", "needle\n")
    ctx = context(tmp_path)
    assert fstools.grep("needle", str(tmp_path), glob="*.h", ctx=ctx).metadata["index"] == "none"
    assert fstools.grep("needle", str(tmp_path), hidden=True, ctx=ctx).metadata["index"] == "none"
    assert fstools.glob("**", str(tmp_path), hidden=True, ctx=ctx).metadata["index"] == "none"
    assert fstools.glob("nowhere/**", str(tmp_path), ctx=ctx).metadata["index"] == "none"


def test_a_grep_of_one_file_says_single_file(tree: Path) -> None:
    one = tree / "src" / "one.c"
    write(one, "needle\n")
    ctx = context(tree)
    assert fstools.grep("needle", str(one), ctx=ctx).metadata["index"] == "single file"
    build(str(tree), max_filesize=MAX_FILESIZE)
    assert fstools.grep("needle", str(one), ctx=ctx).metadata["index"] == "single file"


def test_with_an_index_the_options_it_was_not_built_for_say_options(tree: Path) -> None:
    build(str(tree), max_filesize=MAX_FILESIZE)
    ctx = context(tree)
    assert fstools.grep("PM_RESUME", str(tree), ctx=ctx).metadata["index"] == "used"
    assert fstools.grep("PM_RESUME", str(tree), glob="*.h", ctx=ctx).metadata["index"] == "options"
    assert fstools.grep("PM_RESUME", str(tree), type="c", ctx=ctx).metadata["index"] == "options"
    assert fstools.glob("**", str(tree), follow_symlinks=True, ctx=ctx).metadata["index"] == "options"
    # An ignored directory is one the index's walk never entered.
    assert fstools.grep("PM_RESUME", str(tree / "ignored"), ctx=ctx).metadata["index"] == "not indexed"


def test_glob_outside_a_git_work_tree_says_so(tmp_path: Path) -> None:
    plain = (tmp_path / "plain").resolve()
    for name in ("a.txt", "b/c.txt"):
        write(plain / name, "x\n")
    build(str(plain), max_filesize=MAX_FILESIZE)
    ctx = context(plain)
    found = fstools.glob("**/*.txt", str(plain), ctx=ctx)
    assert found.metadata["index"] == "not a git work tree" and found.metadata["count"] == 2
    assert fstools.grep("x", str(plain), ctx=ctx).metadata["index"] in ("used", "unselective")


def test_the_index_status_literal_lists_every_reason() -> None:
    from typing import get_args

    from fstools._index.status import IndexStatus

    reasons = set(get_args(IndexStatus))
    assert {"none", "single file", "not a git work tree", "options", "numpy missing"} <= reasons
    assert "unsupported" not in reasons
    contract = (Path(fstools.__file__).parent.parent / "docs" / "contract.md").read_text()
    listed = contract[contract.index('`metadata["index"]` on Grep and Glob') :][:1500]
    for reason in reasons:
        assert f'`"{reason}"`' in listed, reason


def test_the_cli_turns_the_index_off_per_command(tree: Path) -> None:
    build(str(tree), max_filesize=MAX_FILESIZE)
    used = fstools_cmd("grep", "PM_RESUME", ".", "--json", cwd=tree)  # the CLI's size limit: "other filters"
    off = fstools_cmd("grep", "PM_RESUME", ".", "--json", "--index", "off", cwd=tree)
    assert off.returncode == 0, off.stderr
    assert json.loads(off.stdout)["metadata"]["index"] == "off"
    assert json.loads(used.stdout)["metadata"]["index"] != "off"
    listed = fstools_cmd("glob", "**/*.c", "--index", "off", cwd=tree)
    assert listed.returncode == 0 and "searched without the index" not in listed.stderr
    globbed = fstools_cmd("grep", "PM_RESUME", ".", "--glob", "*.c", cwd=tree)
    assert "searched without the index (options)" in globbed.stderr
    alone = fstools_cmd("grep", "PM_RESUME", "run.log", "--no-respect-gitignore", cwd=tree)
    assert "searched without the index" not in alone.stderr
    # Only the searches take it.
    assert fstools_cmd("read", "run.log", "--index", "off", cwd=tree).returncode == 2
