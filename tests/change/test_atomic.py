"""The atomic commit: metadata kept, links respected, failures leave the file untouched and no temp file."""

from __future__ import annotations

import errno
import fcntl
import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

import fstools
from fstools import PermissionManager, PermissionRule
from fstools._change import atomic as _atomic
from tests.helpers.tools import agent_read, child_env


def temp_files(directory) -> list[str]:
    return [n for n in os.listdir(directory) if n.endswith(".fstools.tmp")]


@pytest.fixture
def seen(project, ctx):
    """A file with known content that the agent has read."""
    path = project / "data.txt"
    path.write_bytes(b"original content\n")
    agent_read(ctx, path)
    return path


@pytest.fixture
def linked(project, ctx):
    """A file with a second hard link, read by the agent."""
    path = project / "a.txt"
    path.write_bytes(b"linked original\n")
    os.link(path, project / "b.txt")
    agent_read(ctx, path)
    return path


def ask_then(action):
    """A context whose human confirmation runs `action` first: a stand-in for another process
    changing the file while the human looks at the diff."""

    def confirm(request):
        action()
        return True

    return confirm


def ctx_with_confirm(project, action) -> fstools.ExecutionContext:
    # Only the mutating tools ask: the agent's Read must not trigger the injected action.
    rules = [PermissionRule(tool=tool, action="ask") for tool in ("Write", "Edit", "MultiEdit", "Delete")]
    return fstools.ExecutionContext(
        working_dir=str(project), permissions=PermissionManager(rules=rules, confirm=ask_then(action))
    )


# --- Metadata and links --------------------------------------------------------------------------


def test_mode_owner_and_setuid_are_kept(seen, ctx):
    if os.geteuid() == 0:
        os.chown(seen, 12345, 54321)
    os.chmod(seen, 0o4755)  # after chown, which clears set-id bits
    inode = seen.stat().st_ino
    assert fstools.edit(str(seen), "original", "edited", ctx=ctx).success
    st = seen.stat()
    assert st.st_ino != inode  # replaced, not rewritten in place
    assert st.st_mode & 0o7777 == 0o4755
    if os.geteuid() == 0:
        assert (st.st_uid, st.st_gid) == (12345, 54321)


def test_xattrs_are_kept_and_foreign_ones_dropped(seen, ctx):
    try:
        os.setxattr(seen, "user.origin", b"kept")
    except OSError as exc:  # pragma: no cover - depends on the filesystem under tmp
        pytest.skip(f"user xattrs unsupported here: {exc}")
    assert fstools.write(str(seen), "new\n", ctx=ctx).success
    assert os.getxattr(seen, "user.origin") == b"kept"
    os.removexattr(seen, "user.origin")
    assert fstools.write(str(seen), "newer\n", ctx=ctx).success
    assert os.listxattr(seen) == [] or "user.origin" not in os.listxattr(seen)


def test_new_files_follow_the_umask(project, ctx):
    old = os.umask(0o027)
    try:
        assert fstools.write(str(project / "n" / "new.txt"), "x", ctx=ctx).success
    finally:
        os.umask(old)
    assert (project / "n" / "new.txt").stat().st_mode & 0o777 == 0o640
    assert (project / "n").stat().st_mode & 0o777 == 0o750


def test_symlink_stays_a_symlink(project, ctx):
    real = project / "real.txt"
    real.write_text("v1\n")
    link = project / "link.txt"
    link.symlink_to("real.txt")
    agent_read(ctx, link)
    r = fstools.write(str(link), "v2\n", ctx=ctx)
    assert r.success, r.error
    assert link.is_symlink() and os.readlink(link) == "real.txt"
    assert real.read_text() == "v2\n"
    assert r.metadata["file_path"] == str(real)


def test_hard_link_is_written_in_place_not_split(project, ctx):
    a = project / "a.txt"
    a.write_text("shared v1\n")
    b = project / "b.txt"
    os.link(a, b)
    inode = a.stat().st_ino
    agent_read(ctx, a)
    r = fstools.edit(str(a), "v1", "version two, longer", ctx=ctx)
    assert r.success and r.metadata["in_place"] is True
    assert a.stat().st_ino == inode and a.stat().st_nlink == 2
    assert b.read_text() == "shared version two, longer\n"
    assert fstools.edit(str(a), "version two, longer", "3", ctx=ctx).success  # shrinking truncates
    assert b.read_text() == "shared 3\n"
    assert temp_files(project) == []


@pytest.mark.skipif(os.geteuid() != 0, reason="needs a file owned by another user")
def test_foreign_owner_that_cannot_be_kept_means_in_place(seen, ctx, monkeypatch):
    """Without the right to chown (a non-root user editing a group-writable file of a colleague),
    a new inode would change the owner: the file is written in place instead."""
    os.chown(seen, 12345, 54321)
    inode = seen.stat().st_ino
    monkeypatch.setattr(os, "fchown", _raise(errno.EPERM))
    r = fstools.edit(str(seen), "original", "changed", ctx=ctx)
    monkeypatch.undo()
    assert r.success and r.metadata["in_place"] is True
    assert seen.stat().st_ino == inode and seen.read_text() == "changed content\n"
    assert (seen.stat().st_uid, seen.stat().st_gid) == (12345, 54321)
    assert temp_files(seen.parent) == []


def test_xattr_that_cannot_be_copied_means_in_place(seen, ctx, monkeypatch):
    try:
        os.setxattr(seen, "user.tag", b"v")
    except OSError as exc:  # pragma: no cover - depends on the filesystem under tmp
        pytest.skip(f"user xattrs unsupported here: {exc}")
    inode = seen.stat().st_ino
    monkeypatch.setattr(os, "setxattr", _raise(errno.EPERM))
    r = fstools.edit(str(seen), "original", "changed", ctx=ctx)
    monkeypatch.undo()
    assert r.success and r.metadata["in_place"] is True and seen.stat().st_ino == inode
    assert os.getxattr(seen, "user.tag") == b"v"


def test_unwritable_directory_with_writable_file_means_in_place(seen, ctx, monkeypatch):
    real_open = os.open

    def no_create(path, flags, mode=0o777, **kw):
        if flags & os.O_CREAT:
            raise PermissionError(errno.EACCES, "Permission denied", path)
        return real_open(path, flags, mode, **kw)

    monkeypatch.setattr(os, "open", no_create)
    r = fstools.edit(str(seen), "original", "changed", ctx=ctx)
    monkeypatch.undo()
    assert r.success and r.metadata["in_place"] is True
    assert seen.read_text() == "changed content\n"


def _at(path):
    """(directory descriptor, name) of `path`, as the atomic layer takes a file (closed at test end)."""
    fd = os.open(os.path.dirname(os.fspath(path)), os.O_PATH | os.O_DIRECTORY)
    _open_dirs.append(fd)
    return fd, os.path.basename(os.fspath(path))


_open_dirs: list[int] = []


@pytest.fixture(autouse=True)
def _close_dirs():
    yield
    while _open_dirs:
        os.close(_open_dirs.pop())


def _raise(code):
    def fail(*args, **kwargs):
        raise OSError(code, os.strerror(code))

    return fail


def test_create_falls_back_when_hard_links_are_unsupported(project, ctx, monkeypatch):
    monkeypatch.setattr(os, "link", _raise(errno.EPERM))
    r = fstools.write(str(project / "n.txt"), "new", ctx=ctx)
    monkeypatch.undo()
    assert r.success and (project / "n.txt").read_text() == "new"
    assert temp_files(project) == []


# --- Failures leave the file untouched and no temp file ------------------------------------------


def _write_then_fail(real_write, code, after):
    """os.write that accepts `after` bytes, then fails with `code`, like a filling disk."""
    state = {"left": after}

    def write(fd, data):
        if state["left"] <= 0:
            raise OSError(code, os.strerror(code))
        n = real_write(fd, bytes(data[: state["left"]]))
        state["left"] -= n
        return n

    return write


@pytest.mark.parametrize(
    "code,error_code,words",
    [
        (errno.ENOSPC, "disk_full", "No space left"),
        (errno.EDQUOT, "disk_full", "quota"),
        (errno.EFBIG, "file_too_large", "File too large"),
        (errno.EIO, "io_error", "error"),
    ],
)
def test_write_failures_leave_nothing_behind(seen, ctx, monkeypatch, code, error_code, words):
    inode = seen.stat().st_ino
    monkeypatch.setattr(os, "write", _write_then_fail(os.write, code, after=4))
    r = fstools.write(str(seen), "x" * 100_000, ctx=ctx)
    monkeypatch.undo()
    assert r.error_code == error_code and words in r.error and str(seen) in r.error
    assert seen.read_bytes() == b"original content\n" and seen.stat().st_ino == inode
    assert temp_files(seen.parent) == []


@pytest.mark.parametrize("code,error_code", [(errno.EROFS, "permission_denied"), (errno.EIO, "io_error")])
def test_fsync_or_rename_failure(seen, ctx, monkeypatch, code, error_code):
    monkeypatch.setattr(os, "fsync", _raise(code))
    r = fstools.write(str(seen), "new\n", ctx=ctx)
    monkeypatch.undo()
    assert r.error_code == error_code
    assert seen.read_bytes() == b"original content\n" and temp_files(seen.parent) == []
    monkeypatch.setattr(os, "replace", _raise(code))
    r = fstools.write(str(seen), "new\n", ctx=ctx)
    monkeypatch.undo()
    assert r.error_code == error_code
    assert seen.read_bytes() == b"original content\n" and temp_files(seen.parent) == []


def test_read_only_filesystem_message(seen, ctx, monkeypatch):
    monkeypatch.setattr(os, "write", _raise(errno.EROFS))
    r = fstools.write(str(seen), "new\n", ctx=ctx)
    monkeypatch.undo()
    assert r.error_code == "permission_denied" and "read-only file system" in r.error


def test_failed_create_removes_temp_and_new_parents(project, ctx, monkeypatch):
    monkeypatch.setattr(os, "write", _write_then_fail(os.write, errno.ENOSPC, after=1))
    r = fstools.write(str(project / "a" / "b" / "c.txt"), "content", ctx=ctx)
    monkeypatch.undo()
    assert r.error_code == "disk_full"
    assert os.listdir(project) == []


def test_failed_write_removes_its_backup(seen, ctx, monkeypatch):
    monkeypatch.setattr(os, "replace", _raise(errno.ENOSPC))
    r = fstools.write(str(seen), "new\n", backup=True, ctx=ctx)
    monkeypatch.undo()
    assert r.error_code == "disk_full"
    assert sorted(os.listdir(seen.parent)) == ["data.txt"]


def test_in_place_failures_restore_the_file(linked, ctx, monkeypatch):
    a = linked
    monkeypatch.setattr(os, "posix_fallocate", _raise(errno.ENOSPC))
    r = fstools.write(str(a), "much longer replacement content\n", ctx=ctx)
    monkeypatch.undo()
    assert r.error_code == "disk_full" and a.read_bytes() == b"linked original\n"

    real_pwrite = os.pwrite
    calls = []

    def pwrite_fails_once(fd, data, offset):
        calls.append(len(data))
        if len(calls) == 1:
            real_pwrite(fd, bytes(data[:3]), offset)  # a partial write, then the disk fails
            raise OSError(errno.EIO, "I/O error")
        return real_pwrite(fd, data, offset)

    monkeypatch.setattr(os, "pwrite", pwrite_fails_once)
    r = fstools.write(str(a), "short\n", ctx=ctx)
    monkeypatch.undo()
    assert r.error_code == "io_error" and a.read_bytes() == b"linked original\n"
    assert len(calls) >= 2  # the old bytes were written back


def test_fallocate_unsupported_is_not_an_error(linked, ctx, monkeypatch):
    monkeypatch.setattr(os, "posix_fallocate", _raise(errno.EOPNOTSUPP))
    r = fstools.write(str(linked), "longer content than before\n", ctx=ctx)
    monkeypatch.undo()
    assert r.success and (linked.parent / "b.txt").read_text() == "longer content than before\n"


_EFBIG_CHILD = """
import json, os, resource, sys
import fstools
from tests.helpers.tools import agent_read
path, size = sys.argv[1], int(sys.argv[2])
ctx = fstools.ExecutionContext(working_dir=os.path.dirname(path))
agent_read(ctx, path)
resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
r = fstools.write(path, "y" * (2 * size), ctx=ctx)
print(json.dumps([r.error_code, r.error]))
"""


@pytest.mark.parametrize("linked", [False, True])
def test_file_size_limit_for_real(project, linked):
    """RLIMIT_FSIZE makes the kernel refuse the write (EFBIG) in a child process."""
    path = project / "limited.txt"
    path.write_bytes(b"old bytes\n")
    if linked:
        os.link(path, project / "other.txt")
    out = subprocess.run(
        [sys.executable, "-c", _EFBIG_CHILD, str(path), str(64 * 1024)],
        capture_output=True,
        text=True,
        env=child_env(),
        timeout=60,
        check=True,
    )
    code, message = json.loads(out.stdout)
    assert code == "file_too_large" and "File too large" in message
    assert path.read_bytes() == b"old bytes\n"
    assert temp_files(project) == []


_KILL_CHILD = """
import os, sys
import fstools
from tests.helpers.tools import agent_read
path, size = sys.argv[1], int(sys.argv[2])
ctx = fstools.ExecutionContext(working_dir=os.path.dirname(path), max_write_bytes=size)
agent_read(ctx, path)
content = "N" * size
print("ready", flush=True)
fstools.write(path, content, ctx=ctx)
print("done", flush=True)
"""


def test_sigkill_in_the_middle_of_a_large_write(project):
    """The file is the old or the new version, never a mix, whenever the writer dies."""
    path = project / "big.txt"
    old = b"old version\n" * 1000
    size = 48 * 1024 * 1024
    killed_mid_write = False
    for _ in range(3):
        path.write_bytes(old)
        child = subprocess.Popen(
            [sys.executable, "-c", _KILL_CHILD, str(path), str(size)],
            stdout=subprocess.PIPE,
            env=child_env(),
            text=True,
        )
        assert child.stdout.readline() == "ready\n"
        deadline = time.monotonic() + 20
        while not temp_files(project) and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.0005)
        killed_mid_write = bool(temp_files(project)) and child.poll() is None
        child.send_signal(signal.SIGKILL)
        child.wait()
        child.stdout.close()
        data = path.read_bytes()
        assert data == old or (len(data) == size and data == b"N" * size)
        for name in temp_files(project):  # the orphan a killed writer leaves; never the target
            os.unlink(project / name)
        if killed_mid_write:
            assert data == old
            break
    assert killed_mid_write


# --- Locking and conflicts -----------------------------------------------------------------------


def test_change_between_check_and_commit_is_caught(project, seen):
    ctx = ctx_with_confirm(project, lambda: seen.write_text("someone else's change\n"))
    agent_read(ctx, seen)
    r = fstools.edit(str(seen), "original", "mine", ctx=ctx)
    assert r.error_code == "concurrent_modification" and "was modified" in r.error
    assert seen.read_text() == "someone else's change\n"


def test_file_deleted_before_commit(project, seen):
    ctx = ctx_with_confirm(project, seen.unlink)
    agent_read(ctx, seen)
    r = fstools.write(str(seen), "mine\n", ctx=ctx)
    assert r.error_code == "concurrent_modification" and "was deleted" in r.error
    assert not seen.exists()


def test_file_created_by_someone_else_is_not_overwritten(project):
    target = project / "new.txt"
    ctx = ctx_with_confirm(project, lambda: target.write_text("theirs\n"))
    r = fstools.write(str(target), "mine\n", ctx=ctx)
    assert r.error_code == "concurrent_modification" and "created by another process" in r.error
    assert target.read_text() == "theirs\n" and temp_files(project) == []


def test_create_race_detected_without_hard_links(project, monkeypatch):
    target = project / "new.txt"
    ctx = ctx_with_confirm(project, lambda: target.write_text("theirs\n"))
    monkeypatch.setattr(os, "link", _raise(errno.EPERM))
    r = fstools.write(str(target), "mine\n", ctx=ctx)
    monkeypatch.undo()
    assert r.error_code == "concurrent_modification" and target.read_text() == "theirs\n"


def test_touch_between_check_and_commit_is_fine(project, seen):
    def touch():
        st = seen.stat()
        os.utime(seen, ns=(st.st_atime_ns, st.st_mtime_ns + 3_000_000_000))

    ctx = ctx_with_confirm(project, touch)
    agent_read(ctx, seen)
    assert fstools.edit(str(seen), "original", "mine", ctx=ctx).success
    assert seen.read_text() == "mine content\n"


def test_lock_held_too_long_times_out(project, seen):
    ctx = fstools.ExecutionContext(working_dir=str(project), timeout=0.2)
    agent_read(ctx, seen)
    with open(seen, "rb") as holder:
        fcntl.flock(holder, fcntl.LOCK_EX)
        r = fstools.edit(str(seen), "original", "mine", ctx=ctx)
    assert r.error_code == "timeout" and "lock" in r.error
    assert seen.read_text() == "original content\n"


def test_commit_waits_for_the_lock_holder(project, seen, ctx):
    holder = open(seen, "rb")
    fcntl.flock(holder, fcntl.LOCK_EX)
    release = threading.Timer(0.15, holder.close)
    release.start()
    started = time.monotonic()
    r = fstools.edit(str(seen), "original", "mine", ctx=ctx)
    release.join()
    assert r.success and time.monotonic() - started >= 0.1


def test_locked_retries_when_the_file_is_replaced_while_waiting(project, seen):
    """A writer that renames a new file over the path while we wait leaves us the old inode: retry."""
    holder = open(seen, "rb")
    fcntl.flock(holder, fcntl.LOCK_EX)

    def swap():
        replacement = project / "swap.tmp"
        replacement.write_text("replaced\n")
        os.replace(replacement, seen)
        holder.close()

    timer = threading.Timer(0.05, swap)
    timer.start()
    with _atomic.locked(*_at(seen), shared=False, timeout=5) as held:
        fd, st = held
        assert os.pread(fd, 100, 0) == b"replaced\n"
    timer.join()


def test_snapshot_of_a_missing_file_and_a_directory(project):
    assert _atomic.snapshot(*_at(project / "none"), max_bytes=None, timeout=1) is None
    with pytest.raises(IsADirectoryError):
        _atomic.snapshot(*_at(project), max_bytes=None, timeout=1)
    big = project / "big"
    big.write_bytes(b"x" * 10)
    assert _atomic.snapshot(*_at(big), max_bytes=5, timeout=1).data is None


def test_stat_only_snapshot_is_checked_by_stat(project, ctx):
    """A file too large to keep in memory is overwritten after a stat comparison."""
    small = fstools.ExecutionContext(working_dir=str(project), max_edit_bytes=8)
    big = project / "big.log"
    big.write_bytes(b"0123456789" * 3)
    agent_read(small, big)
    r = fstools.write(str(big), "short\n", ctx=small)
    assert r.success and "previous content not shown" in r.metadata["diff"]
    assert big.read_text() == "short\n"
    seen = _atomic.snapshot(*_at(big), max_bytes=1, timeout=1)
    big.write_text("changed\n")
    with pytest.raises(_atomic.Conflict):
        _atomic.commit(*_at(big), b"mine", seen, timeout=1)


def test_backup_numbering_skips_taken_names(project, seen, ctx):
    (project / "data.txt.bak").write_text("older backup")
    r = fstools.write(str(seen), "new\n", backup=True, ctx=ctx)
    assert r.metadata["backup_path"] == str(project / "data.txt.bak.1")
    assert (project / "data.txt.bak").read_text() == "older backup"
    assert (project / "data.txt.bak.1").read_bytes() == b"original content\n"


def test_lock_timeout_while_loading(project, seen):
    ctx = fstools.ExecutionContext(working_dir=str(project), timeout=0.1)
    with open(seen, "rb") as holder:
        fcntl.flock(holder, fcntl.LOCK_EX)
        r = fstools.edit(str(seen), "original", "mine", ctx=ctx)
    assert r.error_code == "timeout"


def test_temp_names_are_bounded_and_unique(project):
    long_name = "é" * 120 + ".txt"  # 244 bytes: the temp name must still fit in NAME_MAX
    target = project / long_name
    with _atomic._TempFile(*_at(target), 0o600) as a, _atomic._TempFile(*_at(target), 0o600) as b:
        assert a.name != b.name
        assert all(len(os.fsencode(t.name)) <= 255 for t in (a, b))
    assert temp_files(project) == []


def test_temp_name_collision_is_retried(project, monkeypatch):
    tokens = iter([b"\x00" * 4, b"\x00" * 4, b"\x01" * 4])
    monkeypatch.setattr(os, "urandom", lambda n: next(tokens))
    with _atomic._TempFile(*_at(project / "f"), 0o600) as first:
        with _atomic._TempFile(*_at(project / "f"), 0o600) as second:
            assert first.name != second.name and second.name.endswith(".01010101.fstools.tmp")


def test_directory_fsync_is_best_effort(project, ctx, monkeypatch):
    real_open = os.open

    def no_dir_open(path, flags, mode=0o777, **kw):
        if flags & os.O_DIRECTORY:
            raise PermissionError(errno.EACCES, "denied")
        return real_open(path, flags, mode, **kw)

    monkeypatch.setattr(os, "open", no_dir_open)
    assert fstools.write(str(project / "a.txt"), "x", ctx=ctx).success
    monkeypatch.undo()
    real_fsync = os.fsync

    def file_fsync_only(fd):
        if os.path.isdir(f"/proc/self/fd/{fd}"):
            raise OSError(errno.EINVAL, "Invalid argument")
        return real_fsync(fd)

    monkeypatch.setattr(os, "fsync", file_fsync_only)
    assert fstools.write(str(project / "b.txt"), "x", ctx=ctx).success


def test_unsupported_xattrs_are_not_an_error(seen, ctx, monkeypatch):
    monkeypatch.setattr(os, "listxattr", _raise(errno.ENOTSUP))
    assert fstools.write(str(seen), "new\n", ctx=ctx).success
    monkeypatch.setattr(os, "listxattr", _raise(errno.EIO))
    r = fstools.write(str(seen), "newer\n", ctx=ctx)
    assert r.error_code == "io_error" and temp_files(seen.parent) == []


def _acl(entries) -> bytes:
    import struct

    return struct.pack("<I", 2) + b"".join(struct.pack("<HHI", tag, perm, ident) for tag, perm, ident in entries)


def test_inherited_default_acl_does_not_leak_onto_the_file(seen, ctx):
    """The directory's default ACL is given to the new temp file; the original had no ACL, so neither may the result."""
    anyone = 0xFFFFFFFF
    default_acl = _acl([(0x01, 7, anyone), (0x02, 6, 1234), (0x04, 5, anyone), (0x10, 7, anyone), (0x20, 5, anyone)])
    try:
        os.setxattr(seen.parent, "system.posix_acl_default", default_acl)
    except OSError as exc:  # pragma: no cover - depends on the filesystem under tmp
        pytest.skip(f"POSIX ACLs unsupported here: {exc}")
    mode = seen.stat().st_mode & 0o777
    assert fstools.write(str(seen), "new\n", ctx=ctx).success
    assert "system.posix_acl_access" not in os.listxattr(seen)
    assert seen.stat().st_mode & 0o777 == mode


def test_other_xattr_errors_fail_cleanly(seen, ctx, monkeypatch):
    try:
        os.setxattr(seen, "user.tag", b"v")
    except OSError as exc:  # pragma: no cover - depends on the filesystem under tmp
        pytest.skip(f"user xattrs unsupported here: {exc}")
    monkeypatch.setattr(os, "setxattr", _raise(errno.ENOSPC))
    r = fstools.write(str(seen), "new\n", ctx=ctx)
    monkeypatch.undo()
    assert r.error_code == "disk_full" and seen.read_bytes() == b"original content\n"
    assert temp_files(seen.parent) == []


def test_link_failure_on_create(project, ctx, monkeypatch):
    monkeypatch.setattr(os, "link", _raise(errno.EIO))
    r = fstools.write(str(project / "n.txt"), "x", ctx=ctx)
    monkeypatch.undo()
    assert r.error_code == "io_error" and os.listdir(project) == []


def test_in_place_restore_is_best_effort(linked, ctx, monkeypatch):
    monkeypatch.setattr(os, "pwrite", _raise(errno.EIO))
    r = fstools.write(str(linked), "new\n", ctx=ctx)
    monkeypatch.undo()
    assert r.error_code == "io_error"


@pytest.mark.skipif(os.geteuid() != 0, reason="needs a file owned by another user")
def test_backup_of_a_foreign_file_is_still_made(seen, ctx, monkeypatch):
    os.chown(seen, 12345, 54321)
    monkeypatch.setattr(os, "fchown", _raise(errno.EPERM))
    r = fstools.write(str(seen), "new\n", backup=True, ctx=ctx)
    monkeypatch.undo()
    assert r.success and r.metadata["in_place"] is True
    assert (seen.parent / "data.txt.bak").read_bytes() == b"original content\n"
    assert os.stat(seen.parent / "data.txt.bak").st_uid == os.geteuid()


def test_file_deleted_while_waiting_for_the_lock(project, seen):
    """Someone holds the lock when the commit starts, then deletes the file and lets go."""
    timers = []

    def lock_then_delete_later():
        holder = open(seen, "rb")
        fcntl.flock(holder, fcntl.LOCK_EX)
        timers.append(threading.Timer(0.05, lambda: (seen.unlink(), holder.close())))
        timers[0].start()

    ctx = ctx_with_confirm(project, lock_then_delete_later)
    agent_read(ctx, seen)
    r = fstools.write(str(seen), "mine\n", ctx=ctx)
    timers[0].join()
    assert r.error_code == "concurrent_modification" and "was deleted" in r.error
    assert not seen.exists()


def test_lock_taken_while_the_human_decides(project, seen):
    holder = {}

    def someone_locks():
        holder["f"] = open(seen, "rb")
        fcntl.flock(holder["f"], fcntl.LOCK_EX)

    ctx = ctx_with_confirm(project, someone_locks)
    ctx.timeout = 0.1
    agent_read(ctx, seen)
    r = fstools.write(str(seen), "mine\n", ctx=ctx)
    holder["f"].close()
    assert r.error_code == "timeout" and seen.read_bytes() == b"original content\n"


def test_unreadable_file(seen, ctx, monkeypatch):
    real_open = os.open

    def deny_read(path, flags, mode=0o777, **kw):
        if os.fspath(path) == seen.name and kw.get("dir_fd") is not None:
            raise PermissionError(errno.EACCES, "Permission denied", path)
        return real_open(path, flags, mode, **kw)

    monkeypatch.setattr(os, "open", deny_read)
    r = fstools.edit(str(seen), "original", "x", ctx=ctx)
    monkeypatch.undo()
    assert r.error_code == "permission_denied" and "Permission denied" in r.error


def test_created_parents_that_cannot_be_removed_are_left(project, ctx, monkeypatch):
    monkeypatch.setattr(os, "write", _raise(errno.ENOSPC))
    monkeypatch.setattr(os, "rmdir", _raise(errno.ENOTEMPTY))
    r = fstools.write(str(project / "a" / "b.txt"), "x", ctx=ctx)
    monkeypatch.undo()
    assert r.error_code == "disk_full" and os.listdir(project / "a") == []


def test_temp_file_removed_by_someone_else(project):
    with _atomic._TempFile(*_at(project / "f"), 0o600) as temp:
        os.unlink(temp.name, dir_fd=temp.dir_fd)
    assert os.listdir(project) == []


def test_read_only_file_is_not_replaced(seen, ctx, monkeypatch):
    """A file without write permission is refused, although renaming over it would work.
    (As root every file is writable, so the non-root answer of access(2) is injected.)"""
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: False if p == seen.name else real_access(p, mode, **kw))
    r = fstools.write(str(seen), "new\n", ctx=ctx)
    monkeypatch.undo()
    assert r.error_code == "permission_denied" and "Permission denied" in r.error
    assert seen.read_bytes() == b"original content\n" and temp_files(seen.parent) == []


def test_same_size_change_before_commit_is_caught(project):
    path = project / "f.txt"
    path.write_bytes(b"abc" * 1000)
    seen = _atomic.snapshot(*_at(path), max_bytes=None, timeout=1)
    with open(path, "r+b") as f:  # same size, one byte different, same inode
        f.seek(2000)
        f.write(b"X")
    with pytest.raises(_atomic.Conflict):
        _atomic.commit(*_at(path), b"mine", seen, timeout=1)
    assert path.read_bytes()[2000:2001] == b"X"


# --- a large edit's result is written as pieces (writev/pwritev): the same guarantees -------------


@pytest.fixture
def spliced(monkeypatch):
    """Edits leave their result in pieces, as they do for files of SPLICE_MIN bytes and more."""
    monkeypatch.setattr(fstools._change.edit, "SPLICE_MIN", 0)


def _short_vectored(monkeypatch):
    """writev/pwritev that take at most 3 bytes of the first buffer per call, as a kernel may."""
    real_write, real_pwrite = os.write, os.pwrite
    monkeypatch.setattr(os, "writev", lambda fd, bufs: real_write(fd, bytes(bufs[0][:3])))
    monkeypatch.setattr(os, "pwritev", lambda fd, bufs, offset: real_pwrite(fd, bytes(bufs[0][:3]), offset))


def test_edit_pieces_short_writes_are_resumed(seen, linked, ctx, monkeypatch, spliced):
    with monkeypatch.context() as m:
        _short_vectored(m)
        assert fstools.edit(str(seen), "content", "text, longer", ctx=ctx).success
        assert fstools.edit(str(linked), "linked", "still linked", ctx=ctx).success  # in place
    assert seen.read_bytes() == b"original text, longer\n"
    assert (linked.parent / "b.txt").read_bytes() == b"still linked original\n"


def test_edit_pieces_write_failure_leaves_nothing_behind(seen, ctx, monkeypatch, spliced):
    with monkeypatch.context() as m:
        m.setattr(os, "writev", _raise(errno.ENOSPC))
        r = fstools.edit(str(seen), "content", "text", ctx=ctx)
    assert r.error_code == "disk_full"
    assert seen.read_bytes() == b"original content\n" and temp_files(seen.parent) == []


def test_edit_pieces_in_place_failure_restores_the_file(linked, ctx, monkeypatch, spliced):
    real_pwrite = os.pwrite

    def pwritev_fails(fd, bufs, offset):
        real_pwrite(fd, bytes(bufs[0][:3]), offset)  # a partial write, then the disk fails
        raise OSError(errno.EIO, "I/O error")

    with monkeypatch.context() as m:
        m.setattr(os, "pwritev", pwritev_fails)
        r = fstools.edit(str(linked), "original", "changed", ctx=ctx)
    assert r.error_code == "io_error" and linked.read_bytes() == b"linked original\n"
