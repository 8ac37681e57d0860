"""All or nothing: a patch whose later write fails leaves every earlier file as it was, bytes and metadata."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest

import fstools
from fstools._change import transaction
from tests.helpers.trees import write

PATCH = """*** Begin Patch
*** Update File: one.txt
@@
-one
+ONE
*** Update File: sub/two.txt
@@
-two
+TWO
*** Update File: three.txt
@@
-three
+THREE
*** Add File: fresh/dir/new.txt
+new
*** Delete File: gone.txt
*** End Patch"""


def tree(root: Path) -> dict[str, tuple[bytes, int]]:
    return {
        str(p.relative_to(root)): (p.read_bytes(), stat.S_IMODE(p.stat().st_mode))
        for p in root.rglob("*")
        if p.is_file()
    }


@pytest.fixture
def files(project: Path) -> Path:
    write(project / "one.txt", "one\n")
    write(project / "sub/two.txt", "two\r\n")
    write(project / "three.txt", "three\n")
    write(project / "gone.txt", "gone\n")
    os.chmod(project / "one.txt", 0o600)
    os.chmod(project / "sub/two.txt", 0o751)
    return project


def failing_on(call: int, real, exc: BaseException):
    """`real`, except that its `call`-th call raises `exc` (the injected fault)."""
    calls = []

    def wrapper(*args, **kwargs):
        calls.append(args)
        if len(calls) == call:
            raise exc
        return real(*args, **kwargs)

    return wrapper


def test_a_failure_in_the_third_file_leaves_the_first_two_untouched(files, ctx, monkeypatch):
    os.setxattr(files / "one.txt", "user.note", b"keep me")
    before = tree(files)
    monkeypatch.setattr(transaction, "save", failing_on(3, transaction.save, OSError(errno.ENOSPC, "No space left")))
    result = fstools.apply_patch(PATCH, ctx=ctx)
    assert result.error_code == "disk_full" and "three.txt" in result.error
    assert tree(files) == before  # bytes and modes
    assert os.getxattr(files / "one.txt", "user.note") == b"keep me"
    assert not (files / "fresh").exists()
    assert not list(files.rglob("*.fstools.tmp"))
    # The context's read records were put back: the undone files still need a Read before a Write.
    assert fstools.write(str(files / "one.txt"), "x", ctx=ctx).error_code == "not_read"


def test_a_failure_after_the_writes_undoes_them_and_restores_deleted_files(files, ctx, monkeypatch):
    write(files / "gone2.txt", "gone too\n")
    patch = PATCH.replace("*** End Patch", "*** Delete File: gone2.txt\n*** End Patch")
    before = tree(files)
    fault = OSError(errno.EACCES, "Permission denied")
    monkeypatch.setattr(transaction.Transaction, "_stash", failing_on(2, transaction.Transaction._stash, fault))
    result = fstools.apply_patch(patch, ctx=ctx)
    assert result.error_code == "permission_denied" and "gone2.txt" in result.error
    assert tree(files) == before
    assert not (files / "fresh").exists() and not list(files.rglob("*.fstools.tmp"))


def test_a_file_changed_by_someone_else_meanwhile_aborts_everything(files, ctx, monkeypatch):
    """No fault injected: another writer changes three.txt while the first file is being written."""
    before = tree(files)
    real_save = transaction.save

    def save_while_someone_edits(ctx, target, data, seen, **kw):
        if target.path.endswith("one.txt"):
            (files / "three.txt").write_text("three, edited elsewhere\n")
        return real_save(ctx, target, data, seen, **kw)

    monkeypatch.setattr(transaction, "save", save_while_someone_edits)
    result = fstools.apply_patch(PATCH, ctx=ctx)
    assert result.error_code == "concurrent_modification" and "three.txt" in result.error
    before["three.txt"] = (b"three, edited elsewhere\n", before["three.txt"][1])
    assert tree(files) == before


def test_the_success_path_leaves_no_stash(files, ctx):
    result = fstools.apply_patch(PATCH, ctx=ctx)
    assert result.success, result.error
    after = tree(files)
    assert after["one.txt"] == (b"ONE\n", 0o600) and after["sub/two.txt"] == (b"TWO\r\n", 0o751)
    assert after["fresh/dir/new.txt"][0] == b"new\n" and "gone.txt" not in after
    assert not list(files.rglob("*.fstools.tmp"))


def test_an_undo_that_cannot_complete_says_where_the_original_is(files, ctx, monkeypatch):
    """A deleted file whose path was taken meanwhile is left aside, and the error says where."""
    patch = "*** Begin Patch\n*** Delete File: gone.txt\n*** Update File: one.txt\n-one\n+ONE\n*** End Patch"
    real_save = transaction.save
    done = transaction.Transaction._stash

    def stash_then_squat(self, entry):
        done(self, entry)
        (files / "gone.txt").write_text("squatter\n")
        raise OSError(errno.EIO, "I/O error")

    monkeypatch.setattr(transaction, "save", real_save)
    monkeypatch.setattr(transaction.Transaction, "_stash", stash_then_squat)
    result = fstools.apply_patch(patch, ctx=ctx)
    assert result.error_code == "io_error" and "Undoing the earlier changes also failed" in result.error
    # The update was undone; gone.txt's original is kept aside since a new file took its name.
    assert (files / "one.txt").read_text() == "one\n"
    kept = list(files.glob(".gone.txt.*.fstools.tmp"))
    assert len(kept) == 1 and kept[0].read_text() == "gone\n" and str(kept[0]) in result.error
