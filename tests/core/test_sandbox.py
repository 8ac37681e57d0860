"""The sandbox API: opening beneath a root through no symlink, with openat2 and with the walk."""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path

import pytest

import fstools
from fstools._core import sandbox
from fstools._core.errors import ErrorCode, ToolError
from fstools._core.paths import resolve_path


@pytest.fixture(params=["openat2", "walk"])
def mode(request, monkeypatch):
    """Every test runs twice: with openat2 (where the kernel has it) and with the fallback walk forced."""
    if request.param == "openat2":
        if not sandbox.openat2.usable():
            pytest.skip("this kernel has no openat2")
    else:
        monkeypatch.setattr(sandbox.openat2, "available", False)
    return request.param


@pytest.fixture
def tree(tmp_path: Path):
    proj, outside = tmp_path / "proj", tmp_path / "outside"
    (proj / "sub").mkdir(parents=True)
    outside.mkdir()
    (proj / "sub" / "file.txt").write_text("inside\n")
    (outside / "secret.txt").write_text("outside\n")
    ctx = fstools.ExecutionContext(working_dir=str(proj))
    return proj, outside, ctx


def test_openat2_is_used_where_the_kernel_has_it():
    if sys.platform != "linux" or os.uname().release.split(".")[:2] < ["5", "6"]:
        pytest.skip("openat2 needs Linux 5.6")
    assert sandbox.openat2.usable()


def test_open_at_reads_a_plain_path(tree, mode):
    proj, _, _ = tree
    root = sandbox.open_root(str(proj))
    try:
        fd = sandbox.open_at(root, "sub/file.txt", os.O_RDONLY)
        assert os.read(fd, 100) == b"inside\n"
        os.close(fd)
    finally:
        os.close(root)


@pytest.mark.parametrize("rel", ["link/file.txt", "flink", "sub/../sub/file.txt", "../outside/secret.txt"])
def test_open_at_follows_no_symlink_and_no_dotdot(tree, mode, rel):
    proj, outside, _ = tree
    (proj / "link").symlink_to(proj / "sub")  # inside, but open_at itself follows nothing
    (proj / "flink").symlink_to(proj / "sub" / "file.txt")
    root = sandbox.open_root(str(proj))
    try:
        with pytest.raises(OSError) as err:
            sandbox.open_at(root, rel, os.O_RDONLY)
        assert err.value.errno in sandbox.RACE_ERRNOS
    finally:
        os.close(root)


def test_open_at_with_o_path_refuses_a_final_symlink(tree, mode):
    proj, outside, _ = tree
    (proj / "out").symlink_to(outside / "secret.txt")
    with pytest.raises(OSError) as err:
        sandbox.stat_beneath(str(proj), str(proj / "out"))
    assert err.value.errno == errno.ELOOP


def test_open_root_refuses_a_root_that_is_a_symlink(tree, mode, tmp_path):
    proj, _, _ = tree
    (tmp_path / "alias").symlink_to(proj)
    with pytest.raises(OSError):
        sandbox.open_root(str(tmp_path / "alias"))
    with pytest.raises(ValueError):
        sandbox.open_root("relative/root")
    fd = sandbox.open_root("/")
    os.close(fd)


def test_stat_beneath_is_the_file_itself(tree, mode):
    proj, _, _ = tree
    st = sandbox.stat_beneath(str(proj), str(proj / "sub" / "file.txt"))
    assert (st.st_ino, st.st_dev) == ((s := os.stat(proj / "sub" / "file.txt")).st_ino, s.st_dev)
    assert sandbox.stat_beneath(str(proj), str(proj)).st_ino == os.stat(proj).st_ino


def test_parent_of_creates_missing_directories_one_by_one(tree, mode):
    proj, _, _ = tree
    target = str(proj / "new" / "deeper" / "f.txt")
    with sandbox.parent_of(str(proj), target, create=True) as parent:
        assert parent.name == "f.txt" and len(parent.created) == 2
        fd = os.open(parent.name, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=parent.fd)
        os.close(fd)
    assert (proj / "new" / "deeper" / "f.txt").exists()
    with sandbox.parent_of(str(proj), str(proj / "gone" / "x"), create=True) as parent:
        parent.remove_created()
    assert not (proj / "gone").exists()


def test_parent_of_refuses_a_symlinked_directory_on_the_way(tree, mode):
    proj, outside, _ = tree
    (proj / "out").symlink_to(outside)
    for create in (False, True):
        with pytest.raises(OSError) as err:
            with sandbox.parent_of(str(proj), str(proj / "out" / "x" / "f"), create=create):
                pass
        assert err.value.errno in sandbox.RACE_ERRNOS
    assert not (outside / "x").exists()
    with pytest.raises(OSError) as err:
        with sandbox.parent_of(str(proj), str(proj)):
            pass
    assert err.value.errno == errno.EBUSY


def test_fsync_dir_tolerates_a_bad_descriptor():
    sandbox.fsync_dir(-1)


def test_fsync_dir_strict_raises():
    with pytest.raises(OSError):
        sandbox.fsync_dir(-1, strict=True)


# Through the path policy and the tools ----------------------------------------------------


def _refused(ctx, raw, code):
    with pytest.raises(ToolError) as err:
        resolve_path(ctx, raw)
    assert err.value.code == code, err.value.message


def test_symlinks_inside_the_root_keep_working(tree, mode):
    proj, _, ctx = tree
    (proj / "link").symlink_to("sub/file.txt")
    (proj / "dirlink").symlink_to("sub", target_is_directory=True)
    (proj / "chain1").symlink_to("chain2")
    (proj / "chain2").symlink_to(proj / "link")  # absolute, then relative
    for name in ("link", "dirlink/file.txt", "chain1", "sub/../link"):
        r = fstools.read(str(proj / name), ctx=ctx)
        assert r.success and "inside" in r.output, (name, r.error)
        assert r.metadata["file_path"] == os.path.abspath(proj / name)


def test_symlinks_out_of_the_root_are_refused(tree, mode):
    proj, outside, ctx = tree
    (proj / "out").symlink_to(outside / "secret.txt")
    (proj / "outdir").symlink_to(outside)
    (proj / "hop").symlink_to("out")  # a chain that ends outside
    (proj / "dangle_out").symlink_to(outside / "nothing")
    for name in ("out", "outdir/secret.txt", "hop", "dangle_out", "../outside/secret.txt"):
        _refused(ctx, str(proj / name), ErrorCode.PATH_OUTSIDE_WORKSPACE)
        r = fstools.read(str(proj / name), ctx=ctx)
        assert r.error_code == "path_outside_workspace" and "outside\n" not in r.output


def test_dangling_link_inside_is_not_found(tree, mode):
    proj, _, ctx = tree
    (proj / "dangle").symlink_to("nothing-here")
    assert fstools.read(str(proj / "dangle"), ctx=ctx).error_code == "file_not_found"


def test_a_root_reached_through_a_symlink(tree, mode, tmp_path):
    proj, _, _ = tree
    (tmp_path / "alias").symlink_to(proj)
    ctx = fstools.ExecutionContext(working_dir=str(tmp_path / "alias"))
    r = fstools.read(str(tmp_path / "alias" / "sub" / "file.txt"), ctx=ctx)
    assert r.success and r.metadata["file_path"] == str(tmp_path / "alias" / "sub" / "file.txt")


def test_new_file_whose_parent_links_out_is_refused(tree, mode):
    proj, outside, ctx = tree
    (proj / "outdir").symlink_to(outside)
    r = fstools.write(str(proj / "outdir" / "new.txt"), "x", ctx=ctx)
    assert r.error_code == "path_outside_workspace"
    assert not (outside / "new.txt").exists()


def test_a_component_swapped_after_the_check_is_not_followed(tree, mode, monkeypatch):
    """The race staged deterministically: the check sees a directory, the open finds a symlink out."""
    proj, outside, ctx = tree

    def then_swap(check):
        def checked(*args, **kwargs):
            found = check(*args, **kwargs)
            if (proj / "sub").is_dir() and not (proj / "sub").is_symlink():
                os.rename(proj / "sub", proj / "moved")
                (proj / "sub").symlink_to(outside)
            return found

        return checked

    # The check is realpath, or (a path proven to hold no link) the stat beneath the root.
    monkeypatch.setattr(os.path, "realpath", then_swap(os.path.realpath))
    monkeypatch.setattr(sandbox, "stat_beneath", then_swap(sandbox.stat_beneath))
    (outside / "file.txt").write_text("outside\n")
    r = fstools.read(str(proj / "sub" / "file.txt"), ctx=ctx)
    assert not r.success and "outside" not in r.output
    assert r.error_code in ("invalid_path", "path_outside_workspace", "concurrent_modification")


def test_a_component_swapped_after_realpath_on_a_path_through_a_link_is_not_followed(tree, mode, monkeypatch):
    """The same race on a path that holds a link (resolved by realpath in both modes): the stat
    after realpath meets the swapped component, and the path resolved again leads out."""
    proj, outside, ctx = tree
    (proj / "alias").symlink_to(proj / "sub")
    real_realpath = os.path.realpath

    def check_then_swap(path, *args, **kwargs):
        canonical = real_realpath(path, *args, **kwargs)
        if (proj / "sub").is_dir() and not (proj / "sub").is_symlink():
            os.rename(proj / "sub", proj / "moved")
            (proj / "sub").symlink_to(outside)
        return canonical

    monkeypatch.setattr(os.path, "realpath", check_then_swap)
    (outside / "file.txt").write_text("outside\n")
    r = fstools.read(str(proj / "alias" / "file.txt"), ctx=ctx)
    assert not r.success and "outside" not in r.output
    assert r.error_code == "path_outside_workspace"
