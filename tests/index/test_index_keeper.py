"""The long-lived process's keeper, the watch's limits, and the index without numpy."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import fstools
from fstools._index import opened
from fstools._index.build import build
from fstools._index.keeper import Keeper
from fstools._index.location import current_file
from fstools._index.service import open_live
from tests.helpers.indexed import MAX_FILESIZE, comparable, make_tree, write


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    make_tree(root, seed=4, files=10)
    return root.resolve()


def contexts(root: Path) -> tuple[fstools.ExecutionContext, fstools.ExecutionContext]:
    on = fstools.ExecutionContext(working_dir=str(root), grep_max_filesize=MAX_FILESIZE)
    return on, fstools.ExecutionContext(working_dir=str(root), grep_max_filesize=MAX_FILESIZE, search_index="off")


def test_the_keeper_rebuilds_a_stale_index(tree: Path) -> None:
    build(str(tree), max_filesize=MAX_FILESIZE)
    on, off = contexts(tree)
    keeper = Keeper([str(tree)], tuple(on.sensitive_patterns), MAX_FILESIZE)
    keeper.tick()
    assert open_live(str(tree)).watcher is not None
    before = current_file(str(tree))
    with open(tree / ".gitignore", "a") as f:
        f.write("docs/\n")
    assert fstools.grep("foo", ctx=on).metadata["index"] == "stale"
    keeper.tick()
    assert current_file(str(tree)) != before
    with_index, without = fstools.grep("foo", ctx=on), fstools.grep("foo", ctx=off)
    assert with_index.metadata["index"] == "used"
    assert comparable(with_index) == comparable(without)


def test_the_keeper_thread_starts_and_stops(tree: Path) -> None:
    keeper = Keeper([str(tree)], (), MAX_FILESIZE).start()  # no index here: it only looks
    keeper.stop()
    keeper._thread.join(timeout=5)
    assert not keeper._thread.is_alive()


def test_an_overflowing_watch_falls_back_to_a_stat_check(tree: Path) -> None:
    build(str(tree), max_filesize=MAX_FILESIZE)
    on, off = contexts(tree)
    fstools.grep("foo", ctx=on)
    live = opened.open_indexes[str(tree)]
    assert live.watcher is not None
    live.watcher.complete = False  # as after a watch that could not be added
    write(tree / "src" / "late.c", "foo late\n")
    with_index, without = fstools.grep("foo", ctx=on), fstools.grep("foo", ctx=off)
    assert with_index.metadata["index"] == "used"
    assert comparable(with_index) == comparable(without)


def test_without_numpy_grep_and_glob_scan(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    build(str(tree), max_filesize=MAX_FILESIZE)
    with opened.lock:
        opened.forget(str(tree))
    monkeypatch.setitem(sys.modules, "numpy", None)
    on, off = contexts(tree)
    with_index, without = fstools.grep("foo", ctx=on), fstools.grep("foo", ctx=off)
    assert with_index.metadata["index"] == "numpy missing"
    assert comparable(with_index) == comparable(without)
    assert fstools.glob("**", ctx=on).metadata["index"] == "numpy missing"
