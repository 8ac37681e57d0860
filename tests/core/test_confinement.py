"""Starting rg/fd confined: in the verified directory, and with Landlock unable to read outside the roots."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import fstools
from fstools._core import confinement
from fstools._core.binaries import find_binary
from fstools._core.confinement import _runtime_files, confined, landlock
from fstools._core.runner import StreamingProcess

needs_landlock = pytest.mark.skipif(not landlock.usable(), reason="this kernel has no Landlock")


@pytest.fixture
def tree(tmp_path: Path):
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "d").mkdir(parents=True)
    outside.mkdir()
    (root / "d" / "in.txt").write_text("needle inside\n")
    (outside / "out.txt").write_text("needle outside\n")
    (root / "link").symlink_to(outside, target_is_directory=True)
    (root / "flink").symlink_to(outside / "out.txt")
    return root, outside


def _run(argv: list[str], root: Path, start: Path) -> tuple[str, str, bool]:
    with (
        confined([str(root)], str(root), str(start), argv[0]) as c,
        StreamingProcess(argv, timeout=10, confinement=c) as proc,
    ):
        out = proc.read_all().decode()
    return out, proc.stderr, c.confined


@needs_landlock
def test_rg_cannot_read_outside_even_when_told_to(tree):
    root, outside = tree
    rg = find_binary("rg")
    out, err, was_confined = _run([rg, "--no-config", "-L", "needle", ".", str(outside / "out.txt")], root, root)
    assert was_confined
    assert "needle inside" in out and "outside" not in out
    assert "Permission denied" in err


@needs_landlock
def test_fd_cannot_list_outside(tree):
    root, _ = tree
    fd = find_binary("fd")
    if fd is None:
        pytest.skip("fd is not installed")
    out, _, was_confined = _run([fd, "-L", "."], root, root)
    assert was_confined and "in.txt" in out and "out.txt" not in out


def test_the_walker_starts_in_the_verified_directory(tree):
    root, _ = tree
    out, _, _ = _run(["/bin/sh", "-c", "pwd"], root, root / "d")
    assert out.strip() == str(root / "d")


def test_without_landlock_only_the_directory_is_pinned(tree, monkeypatch):
    root, _ = tree
    monkeypatch.setattr(landlock, "abi", 0)
    rg = find_binary("rg")
    out, _, was_confined = _run([rg, "--no-config", "-L", "needle", "."], root, root)
    assert not was_confined and "needle outside" in out  # what Grep's re-check is for


def test_scripts_and_unknown_binaries_run_unconfined(tmp_path):
    script = tmp_path / "tool.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o755)
    assert _runtime_files(str(script)) is None
    assert _runtime_files(str(tmp_path / "missing")) is None
    rg = find_binary("rg")
    files = _runtime_files(rg)
    assert files is not None and os.path.realpath(rg) in files


def test_a_failing_landlock_probe_means_unavailable(monkeypatch):
    probe = confinement._Landlock()
    monkeypatch.setattr(probe, "_load", lambda: (_ for _ in ()).throw(OSError("no libc")))
    assert not probe.usable()


def test_grep_works_when_the_process_working_directory_is_gone(tree, tmp_path, monkeypatch):
    """rg starts in the searched directory's descriptor, never in the caller's working directory."""
    root, _ = tree
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    monkeypatch.delenv("PWD", raising=False)
    ctx = fstools.ExecutionContext(working_dir=str(root))
    r = fstools.grep("needle", str(root), output_mode="content", ctx=ctx)
    assert r.success and "needle inside" in r.output and "outside" not in r.output
    g = fstools.glob("**/*.txt", str(root), ctx=ctx)
    assert g.success and g.output == str(root / "d" / "in.txt")


@pytest.mark.parametrize("mode", ["content", "files_with_matches", "count"])
def test_grep_without_landlock_reads_only_what_it_pinned(tree, monkeypatch, mode):
    """The swap staged after the walk proposed the file: the run that reports reads descriptors
    opened through the sandbox, so the file swapped for a link out is not read at all."""
    from fstools._grep import runs

    root, outside = tree
    (root / "d" / "other.txt").write_text("needle kept\n")
    monkeypatch.setattr(landlock, "abi", 0)
    real_proposed = runs.Searcher.proposed

    def propose_then_swap(*args, **kwargs):
        proposed = real_proposed(*args, **kwargs)
        assert str(root / "d" / "in.txt") in proposed
        os.rename(root / "d" / "in.txt", root / "moved")
        (root / "d" / "in.txt").symlink_to(outside / "out.txt")
        return proposed

    monkeypatch.setattr(runs.Searcher, "proposed", propose_then_swap)
    ctx = fstools.ExecutionContext(working_dir=str(root))
    r = fstools.grep("needle", str(root / "d"), output_mode=mode, head_limit=0, ctx=ctx)
    assert r.success and "in.txt" not in r.output and "other.txt" in r.output and "outside" not in r.output
    assert r.metadata["total_files"] == 1


@pytest.mark.parametrize("tool", ["grep", "glob"])
def test_ignore_files_above_the_root_still_apply(tmp_path, tool):
    """rg reads .gitignore files in the directories above the search: they are granted, one by one."""
    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    (repo / ".git" / "info").mkdir(parents=True)  # Grep reads .gitignore inside a git repository only
    (repo / ".git" / "info" / "exclude").write_text("excluded.txt\n")
    (repo / "sub" / "excluded.txt").write_text("needle\n")
    (repo / ".gitignore").write_text("ignored.txt\n")
    (repo / "sub" / "ignored.txt").write_text("needle\n")
    (repo / "sub" / "kept.txt").write_text("needle\n")
    ctx = fstools.ExecutionContext(working_dir=str(repo / "sub"))
    if tool == "grep":
        r = fstools.grep("needle", str(repo / "sub"), ctx=ctx)
    else:
        r = fstools.glob("*.txt", str(repo / "sub"), ctx=ctx)
    assert r.success and "kept.txt" in r.output and "ignored.txt" not in r.output and "excluded" not in r.output


def test_where_a_thread_cannot_own_its_directory_the_walker_gets_the_path(tree, monkeypatch):
    """Not Linux (or unshare forbidden): no pinning and no ruleset, the directory by path, results still checked."""
    root, _ = tree
    monkeypatch.setattr(landlock, "pinnable", False)
    out, _, was_confined = _run(["/bin/sh", "-c", "pwd"], root, root / "d")
    assert out.strip() == str(root / "d") and not was_confined
    ctx = fstools.ExecutionContext(working_dir=str(root))
    r = fstools.grep("needle", str(root), output_mode="content", ctx=ctx)
    assert r.success and "needle inside" in r.output


def test_pinning_is_probed_once(monkeypatch):
    probe = confinement._Landlock()
    assert probe.can_pin() is (os.uname().sysname == "Linux")
    monkeypatch.setattr(probe, "_probe_unshare", lambda: (_ for _ in ()).throw(AssertionError("probed again")))
    probe.can_pin()
    broken = confinement._Landlock()
    monkeypatch.setattr(broken, "_load", lambda: (_ for _ in ()).throw(OSError("no libc")))
    assert broken.can_pin() is False


@needs_landlock
def test_glob_following_links_is_refused_what_leaves_the_roots(tree):
    root, _ = tree
    ctx = fstools.ExecutionContext(working_dir=str(root))
    r = fstools.glob("**/*.txt", str(root), follow_symlinks=True, ctx=ctx)
    assert r.success and r.output == str(root / "d" / "in.txt")
    assert any("never followed" in w for w in r.metadata["warnings"])
    assert not any("outside" in w and str(root.parent / "outside") in w for w in r.metadata["warnings"])


def test_walker_messages_name_absolute_paths_so_ignore_file_quotes_are_redacted(tmp_path, monkeypatch):
    """Walkers run in '.', so they report './sub/.gitignore'; the message is made absolute before
    the check that hides lines of ignore files that are links (here: without Landlock). A link to
    a readable file inside is read (one to a secret or outside is never read at all)."""
    monkeypatch.setattr(landlock, "abi", 0)
    project = tmp_path / "proj"
    (project / "sub").mkdir(parents=True)
    (project / "sub" / "a.txt").write_text("hello\n")
    (project / "rules.txt").write_text("TOKEN=abc{def\n")
    os.symlink(project / "rules.txt", project / "sub" / ".gitignore")
    r = fstools.glob("**/*.txt", str(project), ctx=fstools.ExecutionContext(working_dir=str(project)))
    said = " ".join(r.metadata.get("warnings", []))
    assert "TOKEN" not in said and f"{project}/sub/.gitignore: line 1" in said and "a.txt" in r.output
