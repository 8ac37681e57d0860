"""The copy of a move across filesystems, on real trees: links stay links, metadata is kept,
any depth under a small descriptor limit, entries that change meanwhile stop it, and a fault
mid-copy leaves the source whole and nothing behind."""

from __future__ import annotations

import errno
import os
import resource
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

import fstools
from fstools._change import copying
from fstools._change.tree import remove_tree
from tests.helpers.trees import deep_tree, other_filesystem


@pytest.fixture
def other(project: Path) -> Iterator[Path]:
    with other_filesystem(project) as root:
        yield root


def _fd(path: Path) -> int:
    return os.open(path, os.O_RDONLY | os.O_DIRECTORY)


def copy(src: Path, dst_parent: Path, name: str) -> Path:
    src_fd, dst_fd = _fd(src), _fd(dst_parent)
    try:
        copying.copy_tree(src_fd, dst_fd, name)
    finally:
        os.close(src_fd)
        os.close(dst_fd)
    return dst_parent / name


def state(top: Path) -> dict[str, tuple[object, ...]]:
    """Every entry below `top` (links not followed): kind, mode, times, owner, content or target, xattrs."""
    found: dict[str, tuple[object, ...]] = {}
    for dirpath, dirnames, filenames in os.walk(top):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            st = os.lstat(p)
            if stat.S_ISLNK(st.st_mode):
                body: object = os.readlink(p)
            elif stat.S_ISDIR(st.st_mode):
                body = None
            else:
                body = Path(p).read_bytes()
            xattrs = {} if stat.S_ISLNK(st.st_mode) else {k: os.getxattr(p, k) for k in os.listxattr(p)}
            key = os.path.relpath(p, top)
            found[key] = (stat.S_IFMT(st.st_mode), stat.S_IMODE(st.st_mode), st.st_mtime_ns, st.st_uid, body, xattrs)
    return found


def sample(top: Path, outside: Path) -> None:
    """A tree with files, modes, times, links of every kind (inside, to a directory, outside, dangling)."""
    (top / "s" / "t").mkdir(parents=True)
    (top / "a.txt").write_text("a")
    (top / "s" / "b.bin").write_bytes(bytes(range(256)) * 5000)  # more than one read chunk
    (top / "s" / "t" / "c.txt").write_text("c")
    (top / "to-file").symlink_to("s/b.bin")
    (top / "to-dir").symlink_to("s", target_is_directory=True)
    (top / "s" / "to-outside").symlink_to(outside)
    (top / "dangling").symlink_to("nowhere")
    (top / "a.txt").chmod(0o604)
    (top / "s" / "t").chmod(0o750)
    for i, p in enumerate([top / "a.txt", top / "s" / "t" / "c.txt", top / "s" / "t", top / "s", top / "to-dir"]):
        os.utime(p, ns=(1_600_000_000_000_000_000 + i, 1_650_000_000_000_000_000 + i), follow_symlinks=False)


def test_a_copy_keeps_links_as_links_and_all_metadata(project, other, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("outside")
    sample(project / "top", outside)
    os.setxattr(project / "top" / "s" / "t" / "c.txt", "user.origin", b"kept")
    os.setxattr(project / "top" / "s", "user.dir", b"also")
    copied = copy(project / "top", other, "copy")
    assert state(copied) == state(project / "top")
    assert os.readlink(copied / "s" / "to-outside") == str(outside)  # a link, never followed
    assert not any("outside" in p.name for p in copied.rglob("*") if not p.is_symlink())
    top = os.stat(copied)
    assert stat.S_IMODE(top.st_mode) == stat.S_IMODE(os.stat(project / "top").st_mode)


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another user")
def test_a_copy_keeps_owners(project, other):
    (project / "top" / "s").mkdir(parents=True)
    (project / "top" / "s" / "f").write_text("f")
    (project / "top" / "ln").symlink_to("s/f")
    for p in (project / "top" / "s", project / "top" / "s" / "f"):
        os.chown(p, 1234, 5678)
    os.chown(project / "top" / "ln", 4321, 8765, follow_symlinks=False)
    copied = copy(project / "top", other, "copy")
    assert state(copied) == state(project / "top")
    assert os.lstat(copied / "ln").st_uid == 4321


def test_a_deep_tree_copies_under_a_small_descriptor_limit(project, other):
    """1,200 levels need 2,400 descriptors held at once; the copy holds at most the top and a window."""
    deep_tree(project / "top", 1200)
    (project / "top" / "side").mkdir()  # visited after the deep chain: the way back up must reopen
    (project / "top" / "side" / "g.txt").write_text("g")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    highest = max(int(n) for n in os.listdir("/proc/self/fd"))
    limit = highest + 256  # a quarter of the usual default (1024), far below the 2,400
    resource.setrlimit(resource.RLIMIT_NOFILE, (limit, hard))
    try:
        copied = copy(project / "top", other, "copy")
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    try:
        assert (copied / ("d/" * 1200) / "f.txt").is_file() and (copied / "side" / "g.txt").read_text() == "g"
    finally:
        for parent, name in ((project, "top"), (other, "copy")):  # the fixtures' cleanup recurses
            if (parent / name).exists():
                fd = _fd(parent)
                remove_tree(fd, name)
                os.close(fd)


def test_a_directory_moved_while_its_descriptors_were_given_up_stops_the_copy(project, other, monkeypatch):
    """On the way back up a level is opened again by name: a different directory there is refused."""
    monkeypatch.setattr(copying, "WINDOW", 1)
    (project / "top" / "a" / "b" / "c").mkdir(parents=True)
    (project / "top" / "a" / "b" / "c" / "f.txt").write_text("f")
    real = copying.copy_entry

    def swap_a(src_fd, name, dst_fd, new):  # fault injection: `a` is replaced while `c` is copied
        if name == "f.txt":
            os.rename(project / "top" / "a", project / "top" / "old-a")
            os.mkdir(project / "top" / "a")
        real(src_fd, name, dst_fd, new)

    monkeypatch.setattr(copying, "copy_entry", swap_a)
    with pytest.raises(OSError) as caught:
        copy(project / "top", other, "copy")
    assert caught.value.errno == errno.ESTALE


def test_an_entry_that_changed_kind_since_it_was_listed(project, tmp_path):
    (project / "d").mkdir()
    (project / "f").write_text("f")
    (project / "ln").symlink_to(project / "d")
    os.mkfifo(project / "fifo")
    src, dst = _fd(project), _fd(tmp_path)
    try:
        with pytest.raises(OSError) as caught:
            copying.copy_entry(src, "d", dst, "x")  # listed as a file, a directory now
        assert caught.value.errno == errno.ESTALE
        with pytest.raises(OSError) as caught:
            copying.copy_entry(src, "fifo", dst, "x")
        assert caught.value.errno == errno.EINVAL
        with pytest.raises(OSError) as caught:  # a file put in a FIFO's place: never blocks, never read
            copying._open_regular(src, "fifo", os.lstat(project / "fifo"))
        assert caught.value.errno == errno.ESTALE
        with pytest.raises(OSError) as caught:  # another file than the one checked
            copying._open_regular(src, "f", os.lstat(project / "d"))
        assert caught.value.errno == errno.ESTALE
        with pytest.raises(OSError) as caught:  # a directory swapped for a link: never followed
            copying._open_dir(src, "ln")
        assert caught.value.errno == errno.ELOOP
        with pytest.raises(NotADirectoryError):
            copying._open_dir(src, "f")
        assert not (tmp_path / "x").exists()
    finally:
        os.close(src)
        os.close(dst)


@pytest.mark.parametrize("fault", ["write", "fsync", "mkdir"])
def test_a_fault_mid_copy_leaves_the_source_whole_and_nothing_behind(project, other, tmp_path, monkeypatch, fault):
    sample(project / "top", tmp_path)
    before = state(project / "top")
    calls = {"n": 0}
    real = getattr(os, fault)

    def failing(*args, **kwargs):  # fault injection: the disk fills up on the third call
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(*args, **kwargs)

    ctx = fstools.ExecutionContext(working_dir=str(project), allowed_dirs=[str(project), str(other)])
    monkeypatch.setattr(copying.os, fault, failing)
    r = fstools.move(str(project / "top"), str(other / "moved"), ctx=ctx)
    monkeypatch.undo()
    assert r.error_code == "disk_full", r.error
    assert state(project / "top") == before
    assert os.listdir(other) == []


def test_a_real_move_of_a_tree_across_filesystems_keeps_it_all(project, other, tmp_path):
    sample(project / "top", tmp_path)
    before = state(project / "top")
    ctx = fstools.ExecutionContext(working_dir=str(project), allowed_dirs=[str(project), str(other)])
    r = fstools.move(str(project / "top"), str(other / "moved"), ctx=ctx)
    assert r.success and r.metadata["cross_device"], r.error
    assert state(other / "moved") == before and not (project / "top").exists()
    assert os.listdir(other) == ["moved"]


def test_owner_and_extended_attributes_the_process_may_not_set_are_left_out(project, other, monkeypatch):
    """As mv: a refused chown or an unsupported attribute is skipped, any other failure stops the copy."""
    (project / "top" / "s").mkdir(parents=True)
    (project / "top" / "s" / "f").write_text("f")
    (project / "top" / "ln").symlink_to("s/f")
    os.setxattr(project / "top" / "s" / "f", "user.origin", b"kept")

    def refused(*args, **kwargs):  # fault injection: an unprivileged process, a filesystem without xattrs
        raise PermissionError(errno.EPERM, os.strerror(errno.EPERM))

    def unsupported(*args, **kwargs):
        raise OSError(errno.ENOTSUP, os.strerror(errno.ENOTSUP))

    monkeypatch.setattr(copying.os, "fchown", refused)
    monkeypatch.setattr(copying.os, "chown", refused)
    monkeypatch.setattr(copying.os, "setxattr", unsupported)
    copied = copy(project / "top", other, "copy")
    monkeypatch.undo()
    assert (copied / "s" / "f").read_text() == "f" and os.listxattr(copied / "s" / "f") == []
    assert os.readlink(copied / "ln") == "s/f"

    def broken(*args, **kwargs):
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(copying.os, "setxattr", broken)
    with pytest.raises(OSError) as caught:
        copy(project / "top", other, "again")
    assert caught.value.errno == errno.EIO
