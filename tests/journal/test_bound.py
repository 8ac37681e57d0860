"""The journal's bound holds at every step: the blobs it keeps never exceed FSTOOLS_JOURNAL_MAX_BYTES plus
the newest entry's, whichever tool made the changes, and the newest change can always be taken back.

Real files in tmp, the real journal in the session's private cache directory.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

import fstools
from fstools._journal import store
from fstools._journal.store import Journal, journal_for
from tests.helpers.tools import agent_read

LIMIT = 200_000
SIZE = 50_000  # each version: a quarter of the bound


@pytest.fixture(autouse=True)
def _bounded(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("FSTOOLS_JOURNAL_MAX_BYTES", str(LIMIT))
    store.forget_open()
    yield
    store.forget_open()


def version(n: int) -> str:
    """A distinct SIZE-byte text per n (distinct blobs: none is shared)."""
    head = f"version {n:06d}\n"
    body = "".join(f"line {i:07d} of the filler\n" for i in range(SIZE // 26 + 1))
    return (head + body)[:SIZE]


def blob_bytes(project: Path) -> int:
    blobs = Path(journal_for(str(project.resolve())).directory) / "blobs"
    return sum(p.stat().st_size for p in blobs.iterdir() if not p.name.startswith("."))


def test_forty_writes_of_one_file_stay_within_the_bound_at_every_step(project, ctx):
    path = project / "f.txt"
    path.write_text(version(0))
    for n in range(1, 41):
        agent_read(ctx, path)
        r = fstools.write(str(path), version(n), ctx=ctx)
        assert r.success and r.metadata["journal"] == "recorded", r.metadata
        assert blob_bytes(project) <= LIMIT + SIZE, n  # the bound, plus the newest entry's content
    assert blob_bytes(project) <= LIMIT
    u = fstools.undo(str(path), ctx=ctx)  # the newest change is always kept
    assert u.success, u.error
    assert path.read_text() == version(39)


def test_every_tool_keeps_the_bound_and_the_newest_change_comes_back(project, ctx):
    names = [f"f{n}.txt" for n in range(4)]
    for n, name in enumerate(names):
        (project / name).write_text(version(100 + n))
    steps = 0

    def check() -> None:
        nonlocal steps
        steps += 1
        assert blob_bytes(project) <= LIMIT + 2 * SIZE, steps  # the newest entry keeps at most two files here

    for n in range(6):
        a, b, c, d = (project / name for name in names)
        agent_read(ctx, a)
        assert fstools.edit(str(a), f"version {a.read_text()[8:14]}", f"version {n:06d}", ctx=ctx).success
        check()
        patch = (
            f"*** Begin Patch\n*** Update File: {b.name}\n@@\n-{b.read_text().splitlines()[0]}\n+patched {n}\n"
            f"*** Update File: {c.name}\n@@\n-{c.read_text().splitlines()[0]}\n+patched {n}\n*** End Patch"
        )
        assert fstools.apply_patch(patch, ctx=ctx).success
        check()
        assert fstools.delete(str(d), ctx=ctx).success
        check()
        d.write_text(version(200 + n))
        agent_read(ctx, d)
        agent_read(ctx, a)
        assert fstools.move(str(d), str(a), overwrite=True, ctx=ctx).success  # a is replaced: kept
        check()
        a.rename(d)
        a.write_text(version(300 + n))
    assert blob_bytes(project) <= LIMIT
    before = a.read_bytes()
    agent_read(ctx, a)
    assert fstools.write(str(a), "last\n", ctx=ctx).success
    u = fstools.undo(str(a), ctx=ctx)
    assert u.success, u.error
    assert a.read_bytes() == before


def _held_by_another(journal: Journal) -> bool:
    """Whether the journal's lock is held (by this process's change in flight), seen from a new descriptor."""
    fd = os.open("lock", os.O_RDWR, dir_fd=journal.dir_fd)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


@pytest.mark.parametrize("tool", ["Write", "Delete", "Move"])
def test_a_content_kept_before_its_begin_line_is_kept_under_the_journal_lock(project, ctx, monkeypatch, tool):
    """No other process's bound runs between keeping a replaced file and the begin line that names it, so
    the bound may remove every blob the log does not name, at once."""
    src, dst = project / "src.txt", project / "dst.txt"
    src.write_text(version(1))
    dst.write_text(version(2))
    agent_read(ctx, dst)
    assert fstools.write(str(dst), version(3), ctx=ctx).success  # the journal exists
    journal = journal_for(str(project.resolve()))
    held: list[bool] = []
    real = Journal.link_blob

    def link_blob(self: Journal, *args: object, **kwargs: object) -> bool:
        held.append(_held_by_another(self))
        return real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Journal, "link_blob", link_blob)
    agent_read(ctx, src)
    agent_read(ctx, dst)
    if tool == "Write":
        assert fstools.write(str(dst), version(4), ctx=ctx).success
    elif tool == "Delete":
        assert fstools.delete(str(dst), ctx=ctx).success
    else:
        assert fstools.move(str(src), str(dst), overwrite=True, ctx=ctx).success
    assert held and all(held), held
    assert journal.read().entries[-1].tool == tool


def test_a_rewind_whose_own_entries_pass_the_bound_still_restores_every_byte(project, ctx):
    """The rewind's own entries keep what it replaces; the bound they set off must not drop the entries
    the rewind has still to revert (it checked them all before it began)."""
    path = project / "f.txt"
    path.write_text(version(0))
    mark = fstools.checkpoint(ctx=ctx).metadata["checkpoint"]
    for n in range(1, 5):
        agent_read(ctx, path)
        assert fstools.write(str(path), version(n), ctx=ctx).success
    r = fstools.rewind(mark, ctx=ctx)
    assert r.success, r.error
    assert path.read_text() == version(0)
    agent_read(ctx, path)
    assert fstools.write(str(path), version(5), ctx=ctx).success
    assert blob_bytes(project) <= LIMIT + SIZE  # what the rewind held is released
