"""LS with respect_gitignore: off by default (a directory listing shows what is there), fd decides when on."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

import fstools
from fstools._core.binaries import find_binary
from tests.find.test_ls import names
from tests.helpers.binaries import requires_fd


@pytest.fixture
def repo(project: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / ".gitignore").write_text("build/\n*.log\n!keep.log\n/local.txt\n")
    for rel in ("a.log", "keep.log", "b.txt", "local.txt", "build/out.o", "src/local.txt", "empty/.keep"):
        path = project / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(rel)
    return project


def test_off_by_default_lists_everything(repo, ctx):
    r = fstools.ls(str(repo), ctx=ctx)
    assert names(r) == ["build", "empty", "src", "a.log", "b.txt", "keep.log", "local.txt"]


@requires_fd
def test_on_leaves_out_what_gitignore_excludes(repo, ctx):
    r = fstools.ls(str(repo), ctx=ctx, respect_gitignore=True)
    assert r.success, r.error
    assert names(r) == ["empty", "src", "b.txt", "keep.log"]
    assert r.metadata["count"] == 4 and "warnings" not in r.metadata


@requires_fd
def test_rules_of_a_parent_directory_apply_below(repo, ctx):
    (repo / "src" / "x.log").write_text("x")
    r = fstools.ls(str(repo / "src"), ctx=ctx, respect_gitignore=True)
    # `/local.txt` is anchored at the repository root, `*.log` is not.
    assert names(r) == ["local.txt"]


@requires_fd
def test_combines_with_hidden_and_ignore(repo, ctx):
    r = fstools.create_registry().run("LS", ctx, path=str(repo), respect_gitignore="true", hidden=True, ignore=["src"])
    assert names(r) == ["empty", ".gitignore", "b.txt", "keep.log"]


def test_missing_fd_is_a_clear_error(repo, ctx, monkeypatch):
    monkeypatch.setenv("FSTOOLS_FD", "")
    monkeypatch.setenv("PATH", "/nonexistent")
    find_binary.cache_clear()
    try:
        r = fstools.ls(str(repo), ctx=ctx, respect_gitignore=True)
    finally:
        find_binary.cache_clear()
    assert r.error_code == "missing_binary" and "fd" in r.error
    assert fstools.ls(str(repo), ctx=ctx).success
