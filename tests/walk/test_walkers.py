"""The walkers under Glob: strategies, argument building, ordering shortcuts and their fallbacks."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from fstools._core.binaries import find_binary
from fstools._core.errors import ToolError
from fstools._globs.globmatch import glob_to_regex
from fstools._walk import walkers as _walk
from fstools._walk.walkers import (
    ContainmentFilter,
    Listing,
    Strategy,
    WalkSpec,
    choose_strategy,
    in_git_worktree,
    is_small_tree,
    list_files,
    newest_first,
)
from tests.helpers.binaries import requires_fd

T0 = 1_700_000_000


@pytest.fixture(autouse=True)
def fresh_binaries():
    find_binary.cache_clear()
    _walk.fd_version.cache_clear()
    yield
    find_binary.cache_clear()
    _walk.fd_version.cache_clear()


def tree(root: Path, n: int, mtime_of=lambda i: T0) -> list[str]:
    paths = []
    for i in range(n):
        p = root / f"d{i % 3}" / f"f{i:03}.txt"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("x")
        os.utime(p, (mtime_of(i), mtime_of(i)))
        paths.append(str(p))
    return paths


def fake_binary(tmp_path: Path, name: str, script: str) -> str:
    path = tmp_path / name
    path.write_text("#!/bin/sh\n" + script + "\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


@pytest.mark.parametrize(
    "strategy",
    [
        Strategy("rg", 1),
        Strategy("rg", 2),
        Strategy("rg", 1, walker_sorts=True),
        pytest.param(Strategy("fd", 1), marks=requires_fd),
        pytest.param(Strategy("fd", 2), marks=requires_fd),
    ],
)
def test_every_strategy_lists_the_same_files(tmp_path, strategy):
    expected = sorted(tree(tmp_path, 30, lambda i: T0 + i % 4))
    spec = WalkSpec(base=str(tmp_path), regex=glob_to_regex("**/*.txt"), name_glob="*.txt")
    listing = list_files(spec, strategy)
    assert sorted(listing.paths) == expected and listing.backend == strategy.backend
    assert (listing.neg_mtimes is None) is strategy.walker_sorts
    top = newest_first(listing, 10)
    assert top == sorted(((p, os.stat(p).st_mtime_ns) for p in expected), key=lambda t: (-t[1], t[0]))[:10]


def big_tree(root: Path) -> None:
    """240 directories: over the small-tree probe's bound."""
    for i in range(12):
        for j in range(20):
            (root / f"d{i}" / f"e{j}").mkdir(parents=True)
    assert not is_small_tree(str(root))


def test_strategy_by_tree_size_and_binaries(tmp_path, monkeypatch):
    spec = WalkSpec(base=str(tmp_path))
    assert choose_strategy(spec) == Strategy("rg", 1)
    big_tree(tmp_path)
    assert choose_strategy(spec) == Strategy("rg", 1, walker_sorts=True)
    monkeypatch.setenv("FSTOOLS_RG", "")
    monkeypatch.setenv("FSTOOLS_FD", "")
    find_binary.cache_clear()
    with pytest.raises(ToolError) as info:
        choose_strategy(spec)
    assert info.value.code == "missing_binary"
    monkeypatch.delenv("FSTOOLS_RG")
    find_binary.cache_clear()
    assert choose_strategy(WalkSpec(base=str(tmp_path / "d0"))) == Strategy("rg", 1)


@requires_fd
def test_fd_walks_a_big_tree_with_every_core_when_rg_is_missing(tmp_path, monkeypatch):
    big_tree(tmp_path)
    monkeypatch.setenv("FSTOOLS_RG", "")
    find_binary.cache_clear()
    assert choose_strategy(WalkSpec(base=str(tmp_path))) == Strategy("fd", max(os.cpu_count() or 1, 1))


def test_small_tree_probe_counts_entries_too(tmp_path):
    for i in range(999):
        (tmp_path / f"f{i}").touch()
    assert is_small_tree(str(tmp_path))
    (tmp_path / "last").touch()
    assert not is_small_tree(str(tmp_path))


def test_small_tree_probe_skips_unreadable(tmp_path, monkeypatch):
    (tmp_path / "sub").mkdir()
    real_scandir = os.scandir

    def flaky(path):
        if str(path).endswith("sub"):
            raise PermissionError(13, "denied", path)
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", flaky)
    assert is_small_tree(str(tmp_path)) is True


def test_in_git_worktree(tmp_path):
    assert not in_git_worktree(str(tmp_path))
    (tmp_path / ".git").mkdir()
    (tmp_path / "a" / "b").mkdir(parents=True)
    assert in_git_worktree(str(tmp_path / "a" / "b"))


@requires_fd
def test_installed_fd_reports_its_version():
    assert _walk.fd_version(find_binary("fd")) >= (8, 0, 0)


def test_fd_version_parsing_and_new_fd_flags(tmp_path):
    assert _walk.fd_version(fake_binary(tmp_path, "weird", "echo no version here")) == (0,)
    assert _walk.fd_version(str(tmp_path / "absent")) == (0,)
    new = fake_binary(tmp_path, "fd", "echo fd 10.2.0")
    spec = WalkSpec(base=str(tmp_path))
    assert "--no-require-git" in _walk.fd_argv(spec, new, Strategy("fd", 1))
    assert _walk.fd_honours_gitignore(spec, new)
    assert "--no-ignore" in _walk.fd_argv(WalkSpec(base=str(tmp_path), respect_gitignore=False), new, Strategy("fd", 1))


def test_timeout_returns_what_was_found(tmp_path, monkeypatch):
    slow = fake_binary(tmp_path, "rg", "printf './a.txt\\0'; exec sleep 30")
    monkeypatch.setenv("FSTOOLS_RG", slow)
    find_binary.cache_clear()
    (tmp_path / "a.txt").write_text("x")
    listing = list_files(WalkSpec(base=str(tmp_path)), Strategy("rg", 1), timeout=0.5)
    assert listing.timed_out and listing.paths == [f"{tmp_path}/a.txt"]


@pytest.mark.parametrize("backend", [pytest.param("fd", marks=requires_fd), "rg"])
def test_names_that_are_not_utf8_are_left_out(tmp_path, backend):
    good = tmp_path / "good.txt"
    good.write_text("x")
    with open(os.path.join(os.fsencode(tmp_path), b"bad\xff.txt"), "w") as f:
        f.write("x")
    listing = list_files(WalkSpec(base=str(tmp_path)), Strategy(backend, 1))
    assert listing.paths == [str(good)]


def test_stream_is_split_across_chunks_and_vanished_files_are_dropped(tmp_path):
    paths = tree(tmp_path, 40, lambda i: T0 + (0 if i < 30 else 10 + i))
    rel = [os.path.relpath(p, tmp_path).encode() for p in paths]
    chunks = [
        b"\0".join(b"./" + r for r in rel[:25]) + b"\0" + rel[25][:3],  # rg writes "./x", fd "x"
        rel[25][3:7],  # a chunk inside one name: held until the name ends
        rel[25][7:] + b"\0" + b"gone.txt\0",
        b"\0".join(rel[26:]) + b"\0" + rel[0],
    ]  # cut off: dropped
    base_fd = os.open(tmp_path, os.O_PATH | os.O_DIRECTORY)
    got, neg_mtimes = _walk._read_stream(chunks, str(tmp_path), None, base_fd)
    os.close(base_fd)
    assert got == paths and neg_mtimes == [-os.stat(p).st_mtime_ns for p in paths]
    listing = Listing(got, "fd", neg_mtimes)
    expected = sorted(((p, os.stat(p).st_mtime_ns) for p in paths), key=lambda t: (-t[1], t[0]))
    assert newest_first(listing, 15) == expected[:15] and newest_first(listing, 100) == expected
    listing.keep(got[:3])
    assert listing.paths == got[:3] and listing.neg_mtimes == neg_mtimes[:3]
    unstated, none = _walk._read_stream(chunks, str(tmp_path), None, None)
    assert none is None and unstated == [*paths[:26], str(tmp_path / "gone.txt"), *paths[26:]]


def test_page_of_a_walker_sorted_listing(tmp_path):
    paths = tree(tmp_path, 40, lambda i: T0 + (0 if i < 30 else 10 + i))
    by_walker = sorted(paths, key=lambda p: -os.stat(p).st_mtime_ns)  # ties in arbitrary order
    expected = sorted(((p, os.stat(p).st_mtime_ns) for p in paths), key=lambda t: (-t[1], t[0]))

    def page(order, limit=15):
        return newest_first(Listing(list(order), "rg"), limit)

    assert page(by_walker) == expected[:15]
    assert page(by_walker, 100) == expected
    assert page([*by_walker[:5], str(tmp_path / "gone.txt"), *by_walker[5:]]) == expected[:15]  # falls back
    assert page([*by_walker[:20], str(tmp_path / "gone.txt"), *by_walker[20:]]) == expected[:15]  # never stat-ed
    assert page([*by_walker[:28], str(tmp_path / "gone.txt"), *by_walker[28:]]) == expected[:15]  # probed: falls back
    assert page([*by_walker[:12], *by_walker[14:], *by_walker[12:14]])[:12] == expected[:12]
    os.utime(by_walker[12], (T0 + 99, T0 + 99))  # changed after the walker sorted: not monotonic, falls back
    assert page(by_walker)[0] == (by_walker[12], (T0 + 99) * 10**9)


def test_containment_filter(tmp_path):
    root, outside = tmp_path / "root", tmp_path / "out"
    (root / "d").mkdir(parents=True)
    outside.mkdir()
    (root / "d" / "f").write_text("x")
    (outside / "o").write_text("x")
    (root / "ext").symlink_to(outside)
    (root / "lnk").symlink_to(root / "d" / "f")
    base = str(root)
    inside = ContainmentFilter(base, lambda p: p == base or p.startswith(base + "/"))
    assert inside.canonical(str(root / "d" / "f")) == str(root / "d" / "f")
    assert inside.canonical(str(root / "lnk")) == str(root / "d" / "f")
    assert inside.canonical(str(root / "ext" / "o")) is None
    assert inside.canonical(str(root / "d" / "vanished")) is None
