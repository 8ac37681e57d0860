"""The journal on another filesystem than the project (a tmpfs, a container volume, ~/.cache on its
own mount): every content is copied there, a Delete stays undoable, and a content that cannot be
kept stops the Delete (a full disk: disk_full) instead of letting it go ahead unkept."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

import fstools
from fstools._journal import store
from fstools._journal.store import Journal
from tests.helpers.tools import agent_read
from tests.helpers.trees import tmpfs_mount

pytestmark = pytest.mark.usefixtures("fresh_journals")


@pytest.fixture
def tmpfs_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    with tmpfs_mount(tmp_path / "cache") as cache:
        monkeypatch.setenv("FSTOOLS_CACHE_DIR", str(cache))
        yield cache
        store.forget_open()  # the journal's descriptors hold the mount


@pytest.fixture
def tiny_tmpfs_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    with tmpfs_mount(tmp_path / "cache", size="64k") as cache:
        monkeypatch.setenv("FSTOOLS_CACHE_DIR", str(cache))
        yield cache
        store.forget_open()


def test_a_delete_with_the_journal_on_a_tmpfs_is_undoable(project, ctx, tmpfs_cache):
    assert os.stat(tmpfs_cache).st_dev != os.stat(project).st_dev
    path = project / "d.txt"
    path.write_text("precious\n")
    r = fstools.delete(str(path), ctx=ctx)
    assert r.success and r.metadata["journal"] == "recorded", r.metadata.get("journal")
    u = fstools.undo(str(path), ctx=ctx)
    assert u.success, u.error
    assert path.read_text() == "precious\n"


def test_a_tree_deleted_with_the_journal_on_a_tmpfs_comes_back_on_rewind(project, ctx, tmpfs_cache):
    (project / "tree" / "sub").mkdir(parents=True)
    for n in range(5):
        (project / "tree" / "sub" / f"{n}.bin").write_bytes(os.urandom(3000 * (n + 1)))
    before = {p: p.read_bytes() for p in (project / "tree").rglob("*.bin")}
    mark = fstools.checkpoint(ctx=ctx).metadata["checkpoint"]
    r = fstools.delete(str(project / "tree"), recursive=True, ctx=ctx)
    assert r.success and r.metadata["journal"] == "recorded"
    assert fstools.rewind(mark, ctx=ctx).success
    assert {p: p.read_bytes() for p in (project / "tree").rglob("*.bin")} == before


def test_an_edit_with_the_journal_on_a_tmpfs_is_undoable(project, ctx, tmpfs_cache):
    path = project / "e.txt"
    path.write_text("one\n")
    agent_read(ctx, path)
    r = fstools.edit(str(path), "one", "two", ctx=ctx)
    assert r.success and r.metadata["journal"] == "recorded"
    assert fstools.undo(str(path), ctx=ctx).success
    assert path.read_text() == "one\n"


def test_a_delete_with_the_journals_disk_full_fails_and_deletes_nothing(project, ctx, tiny_tmpfs_cache):
    path = project / "big.bin"
    data = os.urandom(256 * 1024)  # four times what the journal's disk holds
    path.write_bytes(data)
    r = fstools.delete(str(path), ctx=ctx)
    assert r.error_code == "disk_full", (r.error, r.metadata.get("journal"))
    assert path.read_bytes() == data
    assert not [n for n in os.listdir(store.journal_for(str(project.resolve())).blobs_fd)]  # no partial blob


def _exdev(*args, **kwargs):
    raise OSError(errno.EXDEV, os.strerror(errno.EXDEV))


@pytest.mark.parametrize("refusal", [errno.EXDEV, errno.EINVAL, errno.EOPNOTSUPP, errno.ENOSYS])
def test_a_copy_refused_by_the_kernel_falls_back_to_reading_and_writing(project, ctx, monkeypatch, refusal):
    def refused(*args, **kwargs):
        raise OSError(refusal, os.strerror(refusal))

    monkeypatch.setattr(Journal, "link_blob", lambda *a, **k: False)  # as on another filesystem
    monkeypatch.setattr(store.fcntl, "ioctl", refused)  # no reflink
    monkeypatch.setattr(store.os, "copy_file_range", refused)
    path = project / "d.txt"
    path.write_bytes(b"precious\n" * 50_000)
    r = fstools.delete(str(path), ctx=ctx)
    assert r.success and r.metadata["journal"] == "recorded", r.metadata.get("journal")
    assert fstools.undo(str(path), ctx=ctx).success
    assert path.read_bytes() == b"precious\n" * 50_000


def test_a_full_disk_during_the_fallback_copy_stops_the_delete(project, ctx, monkeypatch):
    def full(fd, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(Journal, "link_blob", lambda *a, **k: False)
    monkeypatch.setattr(store.fcntl, "ioctl", _exdev)
    monkeypatch.setattr(store.os, "copy_file_range", _exdev)
    monkeypatch.setattr(store, "_write_all", full)
    path = project / "d.txt"
    path.write_text("precious\n")
    r = fstools.delete(str(path), ctx=ctx)
    assert r.error_code == "disk_full", r.error
    assert path.read_text() == "precious\n"


def test_a_delete_whose_content_cannot_be_kept_is_refused(project, ctx, monkeypatch):
    def broken(*args, **kwargs):
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(Journal, "link_blob", lambda *a, **k: False)
    monkeypatch.setattr(store, "_clone_or_copy", broken)
    (project / "tree").mkdir()
    (project / "tree" / "a.txt").write_text("a\n")
    (project / "tree" / "b.txt").write_text("b\n")
    r = fstools.delete(str(project / "tree"), recursive=True, ctx=ctx)
    assert r.error_code == "io_error", r.error
    assert "could not keep" in r.error and "Nothing was deleted" in r.error
    assert "tree/a.txt" in r.error or "tree/b.txt" in r.error
    assert sorted(p.name for p in (project / "tree").iterdir()) == ["a.txt", "b.txt"]


def test_an_edit_whose_content_cannot_be_kept_goes_ahead_and_says_so(project, ctx, monkeypatch):
    def broken(*args, **kwargs):
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(Journal, "link_blob", lambda *a, **k: False)
    monkeypatch.setattr(Journal, "copy_blob", broken)
    path = project / "e.txt"
    path.write_text("one\n")
    agent_read(ctx, path)
    r = fstools.edit(str(path), "one", "two", ctx=ctx)
    assert r.success and r.metadata["journal"].startswith("not recorded: could not keep")
    assert path.read_text() == "two\n"
