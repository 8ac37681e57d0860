"""What is planted in the journal's directory never hangs nor crashes a change: FIFOs and other
files that are not regular ones, odd log lines, lock files that are links or directories."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

import fstools
from fstools._core.cachedir import root_dir
from fstools._journal import store
from fstools._journal.store import DIR_KIND, journal_for
from tests.helpers.tools import agent_read

WATCHDOG = 60.0  # far beyond any call here; a call still running then is hung


pytestmark = pytest.mark.usefixtures("fresh_journals")


@pytest.fixture
def journal_dir(project: Path) -> Path:
    return Path(root_dir(DIR_KIND, str(project.resolve())))


def _returns(call: Callable[[], fstools.ToolResult]) -> fstools.ToolResult:
    """`call()`'s result; fails (instead of hanging the test run) when it does not return in time."""
    out: list[fstools.ToolResult] = []
    thread = threading.Thread(target=lambda: out.append(call()), daemon=True)
    thread.start()
    thread.join(WATCHDOG)
    assert not thread.is_alive(), "the call hung"
    assert out, "the call raised"
    return out[0]


def _history(project: Path, ctx: fstools.ExecutionContext) -> tuple[Path, str]:
    """A file changed twice since a checkpoint: something to take back."""
    path = project / "f.txt"
    path.write_text("one\n")
    mark = fstools.checkpoint(ctx=ctx).metadata["checkpoint"]
    agent_read(ctx, path)
    assert fstools.edit(str(path), "one", "two", ctx=ctx).success
    assert fstools.edit(str(path), "two", "three", ctx=ctx).success
    store.forget_open()
    return path, mark


def _every_tool(project: Path, ctx: fstools.ExecutionContext, path: Path, mark: str) -> dict[str, fstools.ToolResult]:
    other = project / "other.txt"
    other.write_text("other\n")
    agent_read(ctx, other)
    return {
        "Edit": _returns(lambda: fstools.edit(str(other), "other", "edited", ctx=ctx)),
        "Write": _returns(lambda: fstools.write(str(project / "new.txt"), "new\n", ctx=ctx)),
        "Delete": _returns(lambda: fstools.delete(str(project / "new.txt"), ctx=ctx)),
        "Changes": _returns(lambda: fstools.changes(since=mark, ctx=ctx)),
        "Undo": _returns(lambda: fstools.undo(str(path), ctx=ctx)),
        "Rewind": _returns(lambda: fstools.rewind(mark, ctx=ctx)),
    }


@pytest.mark.parametrize("name", ["log", "lock", "version", "root"])
def test_a_fifo_in_the_journal_directory_hangs_nothing(project, ctx, journal_dir, name):
    path, mark = _history(project, ctx)
    os.unlink(journal_dir / name)
    os.mkfifo(journal_dir / name)
    results = _every_tool(project, ctx, path, mark)
    assert results["Edit"].success and results["Edit"].metadata["journal"].startswith("not recorded:")
    assert "not a regular file" in results["Edit"].metadata["journal"]
    assert results["Write"].success and results["Delete"].success
    for tool in ("Changes", "Undo", "Rewind"):
        r = results[tool]
        if name == "lock":  # the log still reads: Undo takes back, unjournaled, so Rewind then sees a change
            assert r.success or r.error_code == "concurrent_modification", (tool, r.error)
            assert tool != "Undo" or "not a regular file" in r.metadata["journal"], r.metadata
            continue
        assert r.error_code == "io_error" and "not a regular file" in r.error, (tool, r.error)
    assert (project / "other.txt").read_text() == "edited\n"
    assert not (project / "new.txt").exists()


def test_a_fifo_in_place_of_a_blob_hangs_nothing(project, ctx, journal_dir):
    path, mark = _history(project, ctx)
    for blob in (journal_dir / "blobs").iterdir():
        blob.unlink()
        os.mkfifo(blob)
    results = _every_tool(project, ctx, path, mark)
    assert results["Edit"].success and results["Edit"].metadata["journal"] == "recorded"
    assert results["Changes"].success and "not shown" in results["Changes"].output
    assert results["Undo"].error_code == "not_found", results["Undo"].error
    assert results["Rewind"].error_code == "not_found", results["Rewind"].error
    assert path.read_text() == "three\n"


def test_a_fifo_where_a_kept_content_goes_is_replaced(project, ctx, journal_dir):
    path = project / "f.txt"
    path.write_text("one\n")
    agent_read(ctx, path)
    assert fstools.edit(str(path), "one", "two", ctx=ctx).success  # the journal now exists
    digest = fstools._content.fingerprints.content_digest(b"two\n").hex()
    os.mkfifo(journal_dir / "blobs" / digest)  # where the next change keeps "two"
    assert _returns(lambda: fstools.edit(str(path), "two", "three", ctx=ctx)).metadata["journal"] == "recorded"
    u = _returns(lambda: fstools.undo(str(path), ctx=ctx))
    assert u.success, u.error
    assert path.read_text() == "two\n"


def test_journal_opens_refuse_what_is_not_a_regular_file(project, journal_dir):
    journal_for(str(project.resolve()))
    os.mkdir(journal_dir / "log")
    with pytest.raises(store.NotRegular):
        journal_for(str(project.resolve())).read()


ODD_LINES = [
    b"5",
    b"[1, 2]",
    b'"begin"',
    b"null",
    b'{"op": "begin", "seq": 90, "tool": "Edit", "time": 1, "paths": '
    b'[{"path": 5, "before": {"kind": "absent"}, "after": {"kind": "absent"}}]}',
    b'{"op": "begin", "seq": 91, "tool": "Edit", "time": 1, "paths": 7}',
    b'{"op": "begin", "seq": 92, "tool": "Edit", "time": 1, "paths": [{"path": "/x", "before": {"kind": "file", '
    b'"size": "big"}, "after": {"kind": "absent"}}]}',
    b'{"op": "begin", "seq": 93, "tool": "Move", "time": 1, "paths": [], "move": "ab"}',
    b'{"op": "end", "seq": 1, "after": {"/x": 5}}',
    b'{"op": "end", "seq": 1, "after": [1]}',
    b'{"op": "checkpoint", "seq": "a", "time": 1}',
    b'{"op": "base", "first_kept": 1, "dropped": [1]}',
    b'{"op": "abort", "seq": null}',
]


@pytest.mark.parametrize("line", ODD_LINES, ids=range(len(ODD_LINES)))
@pytest.mark.parametrize("last", [False, True], ids=["inside", "last"])
def test_an_odd_log_line_crashes_no_tool(project, ctx, journal_dir, line, last):
    path, mark = _history(project, ctx)
    with open(journal_dir / "log", "ab") as log:
        log.write(line + b"\n")
        if not last:  # a line followed by others is damage, not a line torn by a crash
            log.write(b'{"op": "checkpoint", "seq": 100, "label": null, "time": 1.0}\n')
    moved = project / "moved.txt"
    moved.write_text("m\n")
    results = _every_tool(project, ctx, path, mark)
    results["Move"] = _returns(lambda: fstools.move(str(moved), str(project / "there.txt"), ctx=ctx))
    for tool in ("Edit", "Write", "Delete", "Move"):
        r = results[tool]
        assert r.success, (tool, r.error)
        assert r.metadata["journal"] == "recorded" or "damaged" in r.metadata["journal"], (tool, r.metadata)
    for tool in ("Changes", "Undo", "Rewind"):
        r = results[tool]
        assert r.success or (r.error_code == "io_error" and "damaged" in r.error), (tool, r.error)
    edited = "other\n" if results["Rewind"].success else "edited\n"  # a rewind that worked took the Edit back
    assert (project / "other.txt").read_text() == edited and (project / "there.txt").exists()


def _lock_held_elsewhere(project: Path, ctx_timeout: float, where: Path) -> fstools.ToolResult:
    """An Edit of a file whose stripe's lock file (at `where`) another holder has flocked."""
    import fcntl

    from fstools._journal import locks

    path = project / "locked.txt"
    path.write_text("one\n")
    ctx = fstools.ExecutionContext(working_dir=str(project), timeout=ctx_timeout)
    agent_read(ctx, path)
    fd = os.open(where / f"{locks._stripe_of(str(path.resolve())):03d}", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # as another process would: its own open file description
        return _returns(lambda: fstools.edit(str(path), "one", "two", ctx=ctx))
    finally:
        os.close(fd)


def _cache() -> Path:
    return Path(os.environ["FSTOOLS_CACHE_DIR"])


def test_the_cross_process_lock_holds(project):
    (_cache() / "journal-v1" / ".locks").mkdir(parents=True, exist_ok=True)
    r = _lock_held_elsewhere(project, 0.5, _cache() / "journal-v1" / ".locks")
    assert r.error_code == "timeout", r.error


@pytest.mark.parametrize("planted", ["symlink", "directory", "fifo"])
def test_a_lock_file_planted_as_something_else_is_replaced_and_the_lock_holds(project, tmp_path, planted):
    from fstools._journal import locks

    path = project / "locked.txt"
    lock_dir = _cache() / "journal-v1" / ".locks"
    lock_dir.mkdir(parents=True, exist_ok=True)
    lock = lock_dir / f"{locks._stripe_of(str(path.resolve())):03d}"
    outside = tmp_path / "outside"
    outside.write_text("not a lock\n")
    if os.path.lexists(lock):  # an earlier test's path may share the stripe
        lock.unlink()
    {"symlink": lambda: lock.symlink_to(outside), "directory": lock.mkdir, "fifo": lambda: os.mkfifo(lock)}[planted]()
    assert _returns(lambda: fstools.write(str(path), "x\n", ctx=fstools.ExecutionContext(working_dir=str(project))))
    assert lock.is_file() and not lock.is_symlink()
    assert outside.read_text() == "not a lock\n"
    r = _lock_held_elsewhere(project, 0.5, lock_dir)
    assert r.error_code == "timeout", r.error


def test_a_journal_directory_that_is_a_symlink_takes_no_lock_file_through_it(project, tmp_path):
    target = tmp_path / "elsewhere"
    target.mkdir()
    kind = _cache() / "journal-v1"
    if kind.exists():
        os.rename(kind, tmp_path / "journal-v1.before")
    kind.symlink_to(target)
    try:
        store.forget_open()
        (_cache() / ".journal-v1-locks").mkdir(exist_ok=True)
        r = _lock_held_elsewhere(project, 0.5, _cache() / ".journal-v1-locks")
        assert r.error_code == "timeout", r.error
        assert list(target.iterdir()) == []  # nothing made through the link
    finally:
        kind.unlink()
        store.forget_open()
        if (tmp_path / "journal-v1.before").exists():
            os.rename(tmp_path / "journal-v1.before", kind)
