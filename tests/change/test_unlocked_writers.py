"""Writers that do not take fstools' lock: the original is checked again right before the rename."""

from __future__ import annotations

import os

import pytest

import fstools
from fstools._change import atomic as _atomic
from tests.helpers.tools import agent_read


def _append(path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def test_an_append_while_the_new_version_is_written_is_not_lost(project, ctx, monkeypatch):
    path = project / "log.txt"
    path.write_bytes(b"first line\n")
    agent_read(ctx, path)
    copy_metadata = _atomic._copy_metadata

    def append_meanwhile(dst, src, st):
        copy_metadata(dst, src, st)
        _append(path, b"appended by another program\n")

    monkeypatch.setattr(_atomic, "_copy_metadata", append_meanwhile)
    r = fstools.edit(str(path), "first", "1st", ctx=ctx)
    assert r.error_code == "concurrent_modification" and "another program" in r.error
    assert path.read_bytes() == b"first line\nappended by another program\n"
    assert not [n for n in os.listdir(project) if n.endswith(".fstools.tmp")]


def test_a_same_size_rewrite_meanwhile_is_caught_by_its_times(project, ctx, monkeypatch):
    path = project / "a.txt"
    path.write_bytes(b"aaaa\n")
    agent_read(ctx, path)
    copy_metadata = _atomic._copy_metadata

    def rewrite_meanwhile(dst, src, st):
        copy_metadata(dst, src, st)
        with open(path, "r+b") as f:  # same size, new bytes
            f.write(b"bbbb\n")

    monkeypatch.setattr(_atomic, "_copy_metadata", rewrite_meanwhile)
    r = fstools.write(str(path), "cccc\n", ctx=ctx)
    assert r.error_code == "concurrent_modification" and path.read_bytes() == b"bbbb\n"


@pytest.mark.parametrize("linked", [False, True])
def test_an_append_during_the_backup_is_caught_before_an_in_place_or_renamed_write(project, ctx, monkeypatch, linked):
    path = project / "a.txt"
    path.write_bytes(b"old\n")
    if linked:
        os.link(path, project / "b.txt")
    agent_read(ctx, path)
    backup = _atomic._backup

    def append_meanwhile(dir_fd, name, src, st):
        made = backup(dir_fd, name, src, st)
        _append(path, b"more\n")
        return made

    monkeypatch.setattr(_atomic, "_backup", append_meanwhile)
    r = fstools.write(str(path), "new\n", backup=True, ctx=ctx)
    assert r.error_code == "concurrent_modification"
    assert path.read_bytes() == b"old\nmore\n" and not (project / "a.txt.bak").exists()


def test_an_untouched_file_still_commits(project, ctx):
    path = project / "a.txt"
    path.write_bytes(b"old\n")
    agent_read(ctx, path)
    assert fstools.edit(str(path), "old", "new", ctx=ctx).success and path.read_bytes() == b"new\n"
