"""Faults: a full disk while journaling, a journal directory that is damaged, from another version,
unwritable or holding planted symlinks, the bound, and rewinds that cannot be completed."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

import fstools
from fstools._change import restore
from fstools._core.cachedir import root_dir
from fstools._journal import store
from fstools._journal.store import DIR_KIND, Journal, journal_for
from tests.helpers.tools import agent_read


@pytest.fixture
def journal_dir(project: Path) -> Path:
    return Path(root_dir(DIR_KIND, str(project.resolve())))


pytestmark = pytest.mark.usefixtures("fresh_journals")


def _enospc(*args, **kwargs):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.mark.parametrize("where", ["link_blob", "copy_blob", "append"])
def test_a_full_disk_while_journaling_stops_the_change(project, ctx, monkeypatch, where):
    path = project / "f.txt"
    path.write_bytes(b"before\n")
    agent_read(ctx, path)
    monkeypatch.setattr(Journal, "link_blob", lambda *a, **k: False)  # as on another filesystem: copy
    monkeypatch.setattr(Journal, where, _enospc)
    r = fstools.edit(str(path), "before", "after", ctx=ctx)
    assert r.error_code == "disk_full", r.error
    assert path.read_bytes() == b"before\n"
    assert sorted(os.listdir(project)) == ["f.txt"]  # no temp file left


def test_a_full_disk_while_journaling_a_delete_deletes_nothing(project, ctx, monkeypatch):
    (project / "tree" / "sub").mkdir(parents=True)
    (project / "tree" / "sub" / "a.txt").write_text("a\n")
    monkeypatch.setattr(Journal, "link_blob", _enospc)
    r = fstools.delete(str(project / "tree"), recursive=True, ctx=ctx)
    assert r.error_code == "disk_full", r.error
    assert (project / "tree" / "sub" / "a.txt").read_text() == "a\n"


def _edit_works(project: Path, ctx: fstools.ExecutionContext) -> str:
    path = project / "f.txt"
    path.write_text("one\n")
    agent_read(ctx, path)
    r = fstools.edit(str(path), "one", "two", ctx=ctx)
    assert r.success, r.error
    assert path.read_text() == "two\n"
    return r.metadata["journal"]


def test_a_damaged_log_is_reported_and_changes_still_work(project, ctx, journal_dir):
    assert _edit_works(project, ctx) == "recorded"
    store.forget_open()
    with open(journal_dir / "log", "ab") as f:
        f.write(b'{not json}\n{"op": "begin"}\n')
    note = _edit_works(project, ctx)
    assert note.startswith("not recorded:") and "damaged" in note
    assert "damaged" in fstools.undo(str(project / "f.txt"), ctx=ctx).error


def test_a_journal_from_another_version_is_left_alone(project, ctx, journal_dir):
    _edit_works(project, ctx)
    store.forget_open()
    (journal_dir / "version").write_text("fstools-journal 99 abc\n")
    note = _edit_works(project, ctx)
    assert note.startswith("not recorded:") and "another version" in note
    assert (journal_dir / "version").read_text() == "fstools-journal 99 abc\n"


def test_an_unwritable_journal_is_reported(project, ctx, monkeypatch):
    def refused(*args, **kwargs):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))

    monkeypatch.setattr(Journal, "append", refused)  # as a read-only cache directory (root ignores modes)
    note = _edit_works(project, ctx)
    assert note.startswith("not recorded:") and "Permission denied" in note


def test_an_unusable_cache_directory_is_reported(project, ctx, monkeypatch, tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    monkeypatch.setenv("FSTOOLS_CACHE_DIR", str(blocker / "cache"))
    note = _edit_works(project, ctx)
    assert note.startswith("not recorded:")


@pytest.mark.parametrize("planted", ["blobs", "log", "journal"])
def test_a_symlink_planted_in_the_journal_is_never_followed(project, ctx, journal_dir, tmp_path, planted):
    _edit_works(project, ctx)
    store.forget_open()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "log").write_text("")
    target = journal_dir / planted if planted != "journal" else journal_dir
    moved = tmp_path / "moved-away"
    os.rename(target, moved)
    os.symlink(outside / ("log" if planted == "log" else ""), target)
    before = sorted(os.listdir(outside)), (outside / "log").read_text()
    note = _edit_works(project, ctx)
    assert note.startswith("not recorded:"), note
    assert (sorted(os.listdir(outside)), (outside / "log").read_text()) == before


def test_the_bound_drops_the_oldest_changes_and_says_what_cannot_be_restored(project, ctx, monkeypatch):
    monkeypatch.setenv("FSTOOLS_JOURNAL_MAX_BYTES", "20000")
    old = project / "old.txt"
    old.write_text("o" * 6000)
    early = fstools.checkpoint(ctx=ctx).metadata["checkpoint"]
    agent_read(ctx, old)
    assert fstools.write(str(old), "x" * 6000, ctx=ctx).success
    for n in range(6):  # distinct 6 KB versions push the bound
        path = project / f"f{n}.txt"
        path.write_text(str(n) * 6000)
        agent_read(ctx, path)
        assert fstools.write(str(path), "y" * 6000, ctx=ctx).success
    recent = fstools.checkpoint(ctx=ctx).metadata["checkpoint"]
    agent_read(ctx, project / "f5.txt")
    assert fstools.edit(str(project / "f5.txt"), "y", "z", replace_all=True, ctx=ctx).success
    state = {p.name: p.read_bytes() for p in project.iterdir()}
    r = fstools.rewind(early, ctx=ctx)
    assert r.error_code == "not_found" and "dropped" in r.error
    assert str(old.resolve()) in r.metadata["paths"]
    assert {p.name: p.read_bytes() for p in project.iterdir()} == state  # nothing changed
    assert fstools.rewind(recent, ctx=ctx).success
    assert (project / "f5.txt").read_text() == "y" * 6000
    blobs = Path(journal_for(str(project.resolve())).directory) / "blobs"
    assert sum(p.stat().st_size for p in blobs.iterdir()) <= 20000 + 6000  # the newest entry always stays


def test_a_file_larger_than_the_bound_is_changed_and_says_it_was_not_kept(project, ctx, monkeypatch):
    monkeypatch.setenv("FSTOOLS_JOURNAL_MAX_BYTES", "1000")
    path = project / "big.txt"
    path.write_text("b" * 5000)
    agent_read(ctx, path)
    r = fstools.edit(str(path), "b", "c", replace_all=True, ctx=ctx)
    assert r.success and "not kept" in r.metadata["journal"]
    u = fstools.undo(str(path), ctx=ctx)
    assert u.error_code == "not_found" and "no longer holds" in u.error
    assert path.read_text() == "c" * 5000


def test_rewind_is_all_or_none_when_a_content_is_missing(project, ctx):
    for name in ("a.txt", "b.txt"):
        (project / name).write_text(f"{name}\n")
    mark = fstools.checkpoint(ctx=ctx).metadata["checkpoint"]
    for name in ("a.txt", "b.txt"):
        agent_read(ctx, project / name)
        assert fstools.write(str(project / name), "changed\n", ctx=ctx).success
    journal = journal_for(str(project.resolve()))
    entry = journal.read().entries[-1]
    blob = Path(journal.directory) / "blobs" / entry.paths[-1].before.hash
    blob.write_bytes(b"damaged")  # the content of b.txt no longer matches its hash
    r = fstools.rewind(mark, ctx=ctx)
    assert not r.success and r.error_code == "not_found"
    assert (project / "a.txt").read_text() == "changed\n" and (project / "b.txt").read_text() == "changed\n"


def test_rewind_is_all_or_none_when_a_step_fails_halfway(project, ctx, monkeypatch):
    (project / "keep.txt").write_text("keep\n")
    mark = fstools.checkpoint(ctx=ctx).metadata["checkpoint"]
    agent_read(ctx, project / "keep.txt")
    assert fstools.write(str(project / "keep.txt"), "edited\n", ctx=ctx).success
    assert fstools.write(str(project / "newdir" / "n.txt"), "new\n", ctx=ctx).success
    assert fstools.delete(str(project / "keep.txt"), ctx=ctx).success
    state = {str(p.relative_to(project)): p.read_bytes() if p.is_file() else None for p in project.rglob("*")}

    def failing_rmdir(self, target, mode, *, undoable=True):
        raise OSError(errno.EIO, os.strerror(errno.EIO), target.path)

    monkeypatch.setattr(restore.Reverter, "_rmdir", failing_rmdir)
    r = fstools.rewind(mark, ctx=ctx)
    assert not r.success and r.error_code == "io_error", r.error
    after = {str(p.relative_to(project)): p.read_bytes() if p.is_file() else None for p in project.rglob("*")}
    assert after == state
    monkeypatch.undo()
    assert fstools.rewind(mark, ctx=ctx).success  # the aborted steps do not count: a rewind still works
    assert {p.name for p in project.iterdir()} == {"keep.txt"}
    assert (project / "keep.txt").read_text() == "keep\n"


def test_external_change_refusal_names_the_paths_and_force_keeps_it(project, ctx):
    path = project / "f.txt"
    path.write_text("one\n")
    mark = fstools.checkpoint(ctx=ctx).metadata["checkpoint"]
    agent_read(ctx, path)
    assert fstools.edit(str(path), "one", "two", ctx=ctx).success
    path.write_text("someone else's work\n")
    r = fstools.rewind(mark, ctx=ctx)
    assert r.error_code == "concurrent_modification" and r.metadata["paths"] == [str(path.resolve())]
    assert path.read_text() == "someone else's work\n"
    forced = fstools.rewind(mark, force=True, ctx=ctx)
    assert forced.success, forced.error
    assert path.read_text() == "one\n"
    back = fstools.undo(str(path), ctx=ctx)  # the forced rewind kept the other work: take it back
    assert back.success, back.error
    assert path.read_text() == "someone else's work\n"
