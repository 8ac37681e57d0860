"""LS on real directories: order, types, excludes, hidden, ignore, sensitive filter, cap, errors."""

from __future__ import annotations

import os
from pathlib import Path

import fstools


def names(result) -> list[str]:
    return [e["name"] for e in result.metadata["entries"]]


def test_directories_first_with_type_size_mtime(project, ctx):
    (project / "b.txt").write_text("12345")
    (project / "A.md").write_text("x")
    (project / "zdir").mkdir()
    (project / "adir").mkdir()
    (project / "link").symlink_to("b.txt")
    os.utime(project / "b.txt", (1_700_000_000, 1_700_000_000))
    r = fstools.ls(str(project), ctx=ctx)
    assert r.success
    assert names(r) == ["adir", "zdir", "A.md", "b.txt", "link"]
    by_name = {e["name"]: e for e in r.metadata["entries"]}
    assert by_name["b.txt"]["type"] == "file" and by_name["b.txt"]["size"] == 5
    assert by_name["b.txt"]["mtime"] == 1_700_000_000
    assert by_name["adir"]["type"] == "dir" and by_name["link"]["type"] == "symlink"
    lines = r.output.splitlines()
    assert lines[0] == f"{project}/"
    assert lines[1].startswith("dir") and lines[1].endswith("adir/")
    assert "5" in lines[4] and lines[4].endswith("b.txt")


def test_excludes_hidden_and_sensitive(project, ctx):
    for d in [".git", "node_modules", "__pycache__", ".venv", "src"]:
        (project / d).mkdir()
    (project / ".hidden").write_text("h")
    (project / ".env").write_text("S=1")
    (project / "id_rsa").write_text("k")
    r = fstools.ls(str(project), ctx=ctx)
    assert names(r) == ["src"]
    assert r.metadata["hidden_skipped"] == 4  # .git .venv .hidden .env
    r = fstools.ls(str(project), hidden=True, ctx=ctx)
    assert names(r) == ["src", ".hidden"]


def test_ignore_globs(project, ctx):
    for n in ["a.log", "b.log", "keep.py", "build"]:
        (project / n).write_text("x")
    r = fstools.ls(str(project), ignore=["*.log", "build"], ctx=ctx)
    assert names(r) == ["keep.py"]


def test_cap_with_notice(project, ctx):
    for i in range(12):
        (project / f"f{i:02}.txt").write_text("x")
    r = fstools.ls(str(project), limit=5, ctx=ctx)
    assert r.metadata["count"] == 12 and r.metadata["returned"] == 5 and r.metadata["truncated"] is True
    assert "7 more entries not shown" in r.output.splitlines()[-1]


def test_errors(project, ctx, tmp_path: Path):
    missing = fstools.ls(str(project / "nope"), ctx=ctx)
    assert missing.error_code == "directory_not_found" and missing.error == f"Directory not found: {project / 'nope'}"
    (project / "f.txt").write_text("x")
    assert fstools.ls(str(project / "f.txt"), ctx=ctx).error_code == "directory_not_found"
    assert fstools.ls(str(tmp_path), ctx=ctx).error_code == "path_outside_workspace"
    assert fstools.ls("relative", ctx=ctx).error_code == "invalid_path"


def test_permission_denied(project, ctx, monkeypatch):
    def denied(path):
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(os, "scandir", denied)
    r = fstools.ls(str(project), ctx=ctx)
    assert r.error_code == "permission_denied" and str(project) in r.error


def test_empty_directory(project, ctx):
    r = fstools.ls(str(project), ctx=ctx)
    assert r.success and r.metadata["count"] == 0 and r.output == f"{project}/"


def test_symlink_target_is_shown(project, ctx):
    (project / "b.txt").write_text("x")
    (project / "link").symlink_to("b.txt")
    (project / "dangling").symlink_to("nowhere")
    r = fstools.ls(str(project), ctx=ctx)
    by_name = {e["name"]: e for e in r.metadata["entries"]}
    assert by_name["link"]["target"] == "b.txt" and by_name["b.txt"]["target"] is None
    assert by_name["dangling"]["type"] == "symlink"
    assert any(line.endswith("link -> b.txt") for line in r.output.splitlines())


def test_entry_vanishing_while_listing(project, ctx, monkeypatch):
    for n in ["a.txt", "b.txt", "c.txt"]:
        (project / n).write_text("x")
    real_scandir = os.scandir

    class Snapshot:
        """The directory as read, then b.txt deleted before LS stats it (fault injection)."""

        def __init__(self, path):
            with real_scandir(path) as it:
                self.entries = list(it)
            (project / "b.txt").unlink()

        def __enter__(self):
            return iter(self.entries)

        def __exit__(self, *exc):
            return False

    monkeypatch.setattr(os, "scandir", Snapshot)
    r = fstools.ls(str(project), ctx=ctx)
    assert names(r) == ["a.txt", "c.txt"] and r.metadata["count"] == 2 and not r.metadata["truncated"]


def test_large_directory_stats_only_what_it_shows(project, ctx):
    for i in range(300):
        (project / f"f{i:03}.txt").write_text("x")
    (project / "zdir").mkdir()
    r = fstools.ls(str(project), ctx=ctx, limit=10)
    assert names(r)[:2] == ["zdir", "f000.txt"] and r.metadata["count"] == 301 and r.metadata["returned"] == 10


def test_fifo_is_listed_as_other(project, ctx):
    os.mkfifo(project / "pipe")
    r = fstools.ls(str(project), ctx=ctx)
    assert r.metadata["entries"][0]["type"] == "other"
