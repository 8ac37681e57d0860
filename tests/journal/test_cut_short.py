"""A change cut short between keeping the old version and renaming the new one over it.

The journal keeps a file about to be replaced by a hard link to its inode; the rename that
follows leaves that inode to the journal alone. A process killed (or a rename that fails) in
between leaves the file and its blob one inode, and a later write in place (fstools' own, for a
file with two links, or another program's) would change the kept content under its name.
"""

from __future__ import annotations

import errno
import hashlib
import os
from pathlib import Path

import pytest

import fstools
from fstools._change import atomic
from fstools._journal.store import journal_for
from tests.helpers.tools import agent_read

pytestmark = pytest.mark.usefixtures("fresh_journals")


def _cut_short_write(ctx: fstools.ExecutionContext, path: Path, content: str, monkeypatch) -> None:
    """A Write whose rename fails after the journal kept the old version (as a kill at that instant)."""

    def failing_rename(self, name):
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    with monkeypatch.context() as m:
        m.setattr(atomic._TempFile, "rename_to", failing_rename)
        agent_read(ctx, path)
        assert not fstools.write(str(path), content, ctx=ctx).success


def _blob_of(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


def test_a_write_after_a_cut_short_one_keeps_the_earlier_content(project, ctx, monkeypatch):
    path = project / "f.txt"
    path.write_text("first\n")
    _cut_short_write(ctx, path, "lost\n", monkeypatch)
    assert path.read_text() == "first\n"
    agent_read(ctx, path)
    assert fstools.write(str(path), "second\n", ctx=ctx).success
    journal = journal_for(str(project.resolve()))
    assert journal.read_blob(_blob_of(b"first\n")) == b"first\n"
    undone = fstools.undo(str(path), ctx=ctx)
    assert undone.success, undone.error
    assert path.read_text() == "first\n"


def test_another_program_writing_in_place_after_a_cut_short_change_cannot_change_a_later_change(
    project, ctx, monkeypatch
):
    path = project / "f.txt"
    path.write_text("first\n")
    _cut_short_write(ctx, path, "lost\n", monkeypatch)
    path.write_text("other\n")  # in place: the inode the journal linked
    replacement = project / "f.new"
    replacement.write_text("first\n")
    os.replace(replacement, path)  # "first" again, in a new inode
    agent_read(ctx, path)
    assert fstools.write(str(path), "second\n", ctx=ctx).success
    undone = fstools.undo(str(path), ctx=ctx)
    assert undone.success, undone.error
    assert path.read_text() == "first\n"
