"""Move on real trees: renames, both ends' policy, no clobbering, overwrite, directories, across filesystems."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest

import fstools
from fstools._change import move as _move
from fstools._change import renames
from fstools._change.tree import remove_tree
from tests.helpers.processes import fstools_cmd
from tests.helpers.tools import agent_read
from tests.helpers.trees import deep_tree, other_filesystem


def files(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def src(project: Path) -> Path:
    path = project / "a.txt"
    path.write_text("alpha\n")
    path.chmod(0o640)
    return path


# Files -------------------------------------------------------------------------------------------


def test_rename_a_file(project, ctx, src):
    mtime = src.stat().st_mtime_ns
    r = fstools.move(str(src), str(project / "b.txt"), ctx=ctx)
    assert r.success, r.error
    assert files(project) == {"b.txt": "alpha\n"}
    moved = project / "b.txt"
    assert stat.S_IMODE(moved.stat().st_mode) == 0o640 and moved.stat().st_mtime_ns == mtime
    assert r.output == f"Moved file {src} -> {moved}"
    assert r.metadata["type"] == "file" and not r.metadata["overwritten"] and not r.metadata["cross_device"]
    assert r.metadata["source"] == str(src) and r.metadata["destination"] == str(moved)


def test_missing_parents_of_the_destination_are_created(project, ctx, src):
    r = fstools.move(str(src), str(project / "x" / "y" / "a.txt"), ctx=ctx)
    assert r.success, r.error
    assert files(project) == {"x/y/a.txt": "alpha\n"}
    assert r.metadata["created_dirs"] == [str(project / "x"), str(project / "x" / "y")]


def test_an_existing_destination_is_never_replaced_without_overwrite(project, ctx, src):
    (project / "b.txt").write_text("beta\n")
    r = fstools.move(str(src), str(project / "b.txt"), ctx=ctx)
    assert r.error_code == "invalid_argument" and "already exists" in r.error and "overwrite=true" in r.error
    assert files(project) == {"a.txt": "alpha\n", "b.txt": "beta\n"}


def test_overwrite_replaces_a_file_that_was_read(project, ctx, src):
    dst = project / "b.txt"
    dst.write_text("beta\n")
    r = fstools.move(str(src), str(dst), overwrite=True, ctx=ctx)
    assert r.error_code == "not_read" and files(project) == {"a.txt": "alpha\n", "b.txt": "beta\n"}
    agent_read(ctx, dst)
    dst.write_text("changed\n")
    assert fstools.move(str(src), str(dst), overwrite=True, ctx=ctx).error_code == "concurrent_modification"
    agent_read(ctx, dst)
    r = fstools.move(str(src), str(dst), overwrite=True, ctx=ctx)
    assert r.success and r.metadata["overwritten"] and "replacing the existing file" in r.output
    assert files(project) == {"b.txt": "alpha\n"}


def test_overwrite_never_replaces_a_directory(project, ctx, src):
    (project / "d").mkdir()
    (project / "d" / "keep.txt").write_text("k")
    r = fstools.move(str(src), str(project / "d"), overwrite=True, ctx=ctx)
    assert r.error_code == "is_directory" and "full path inside it" in r.error
    assert files(project) == {"a.txt": "alpha\n", "d/keep.txt": "k"}


@pytest.mark.parametrize("overwrite", [False, True])
def test_what_overwrite_cannot_replace_is_said_without_suggesting_it(project, ctx, src, overwrite):
    (project / "d").mkdir()
    r = fstools.move(str(src), str(project / "d"), overwrite=overwrite, ctx=ctx)
    assert r.error_code == "is_directory" and "full path inside it" in r.error and "overwrite=true" not in r.error
    r = fstools.move(str(project / "d"), str(src), overwrite=overwrite, ctx=ctx)
    assert r.error_code == "invalid_argument" and "with a directory" in r.error and "overwrite=true" not in r.error
    assert files(project) == {"a.txt": "alpha\n"} and (project / "d").is_dir()


def test_the_read_record_follows_the_file(project, ctx, src):
    agent_read(ctx, src)
    assert fstools.move(str(src), str(project / "b.txt"), ctx=ctx).success
    assert ctx.read_record(str(src)) is None
    r = fstools.edit(str(project / "b.txt"), "alpha", "omega", ctx=ctx)  # no second read needed
    assert r.success, r.error
    assert fstools.edit(str(src), "alpha", "omega", ctx=ctx).error_code == "file_not_found"


def test_a_stale_read_record_does_not_follow(project, ctx, src):
    agent_read(ctx, src)
    src.write_text("changed meanwhile\n")
    assert fstools.move(str(src), str(project / "b.txt"), ctx=ctx).success
    assert fstools.edit(str(project / "b.txt"), "changed", "x", ctx=ctx).error_code == "not_read"


def test_same_path_and_hard_links(project, ctx, src):
    assert fstools.move(str(src), str(src), ctx=ctx).error_code == "no_change"
    os.link(src, project / "twin.txt")
    r = fstools.move(str(src), str(project / "twin.txt"), overwrite=True, ctx=ctx)
    assert r.error_code == "invalid_argument" and "same file" in r.error


@pytest.mark.parametrize("target", ["absolute", "relative", "chained"])
def test_a_symlink_never_replaces_its_own_target(project, ctx, src, target):
    # mv refuses too: the file would become a link to itself, its content lost.
    link = project / "link"
    if target == "chained":
        (project / "hop").symlink_to(src)
        link.symlink_to("hop")
    else:
        link.symlink_to(src if target == "absolute" else "a.txt")
    agent_read(ctx, src)
    r = fstools.move(str(link), str(src), overwrite=True, ctx=ctx)
    assert r.error_code == "invalid_argument" and "same file" in r.error
    assert src.read_text() == "alpha\n" and not src.is_symlink() and link.is_symlink()


def test_missing_source_and_special_files(project, ctx):
    assert fstools.move(str(project / "nope"), str(project / "b"), ctx=ctx).error_code == "file_not_found"
    os.mkfifo(project / "pipe")
    assert fstools.move(str(project / "pipe"), str(project / "b"), ctx=ctx).error_code == "invalid_path"
    (project / "c").write_text("c")
    r = fstools.move(str(project / "c"), str(project / "pipe"), overwrite=True, ctx=ctx)  # must not open the FIFO
    assert r.error_code == "invalid_path" and (project / "c").exists()


# Directories and links -------------------------------------------------------------------------


def test_move_a_directory_with_its_records(project, ctx):
    for rel in ("pkg/a.py", "pkg/sub/b.py"):
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text(f"# {rel}\n")
    agent_read(ctx, project / "pkg/sub/b.py")
    r = fstools.move(str(project / "pkg"), str(project / "lib" / "pkg2"), ctx=ctx)
    assert r.success, r.error
    assert files(project) == {"lib/pkg2/a.py": "# pkg/a.py\n", "lib/pkg2/sub/b.py": "# pkg/sub/b.py\n"}
    assert r.metadata["type"] == "directory" and r.metadata["moved_count"] == 4
    assert fstools.edit(str(project / "lib/pkg2/sub/b.py"), "# pkg", "# lib", ctx=ctx).success


def test_a_directory_cannot_move_into_itself_nor_replace_a_file(project, ctx, src):
    (project / "d").mkdir()
    assert fstools.move(str(project / "d"), str(project / "d" / "e"), ctx=ctx).error_code == "invalid_argument"
    agent_read(ctx, src)
    r = fstools.move(str(project / "d"), str(src), overwrite=True, ctx=ctx)
    assert r.error_code == "invalid_argument" and "with a directory" in r.error


def test_an_allowed_root_is_never_moved(project, ctx, tmp_path):
    r = fstools.move(str(project), str(tmp_path / "elsewhere"), ctx=ctx)
    assert r.error_code in ("permission_denied", "path_outside_workspace") and project.is_dir()
    inner = project / "inner"
    inner.mkdir()
    ctx2 = fstools.ExecutionContext(working_dir=str(project), allowed_dirs=[str(project), str(inner)])
    r = fstools.move(str(inner), str(project / "renamed"), ctx=ctx2)
    assert r.error_code == "permission_denied" and "allowed root" in r.error and inner.is_dir()


def test_a_symlink_moves_as_itself(project, ctx, tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("secret-ish\n")
    link = project / "link"
    link.symlink_to(outside)
    r = fstools.move(str(link), str(project / "moved-link"), ctx=ctx)
    assert r.success, r.error
    assert os.readlink(project / "moved-link") == str(outside) and outside.read_text() == "secret-ish\n"
    assert r.metadata["type"] == "symlink"


# Policy at both ends -----------------------------------------------------------------------------


def test_both_ends_are_inside_the_sandbox(project, ctx, src, tmp_path):
    r = fstools.move(str(src), str(tmp_path / "out.txt"), ctx=ctx)
    assert r.error_code == "path_outside_workspace" and src.exists()
    outside = tmp_path / "o.txt"
    outside.write_text("o")
    assert fstools.move(str(outside), str(project / "o.txt"), ctx=ctx).error_code == "path_outside_workspace"
    (project / "via").symlink_to(tmp_path)
    r = fstools.move(str(src), str(project / "via" / "x.txt"), ctx=ctx)
    assert r.error_code == "path_outside_workspace" and src.exists() and not (tmp_path / "x.txt").exists()


def test_secrets_at_either_end(project, ctx, src):
    (project / ".env").write_text("KEY=1\n")
    assert fstools.move(str(project / ".env"), str(project / "env.txt"), ctx=ctx).error_code == "sensitive_path"
    assert fstools.move(str(src), str(project / ".env.local"), ctx=ctx).error_code == "sensitive_path"
    (project / "conf").mkdir()
    (project / "conf" / "id_rsa").write_text("k")
    r = fstools.move(str(project / "conf"), str(project / "conf2"), ctx=ctx)
    assert r.error_code == "sensitive_path" and "contains a sensitive file" in r.error
    assert (project / ".env").exists() and src.exists() and (project / "conf/id_rsa").exists()


def test_a_directory_whose_files_would_be_secrets_at_the_destination(project, ctx):
    # x/credentials is nothing; .aws/credentials is a secret Write would refuse to create.
    (project / "x").mkdir()
    (project / "x" / "credentials").write_text("[default]\n")
    r = fstools.move(str(project / "x"), str(project / ".aws"), ctx=ctx)
    assert r.error_code == "sensitive_path" and str(project / ".aws" / "credentials") in r.error
    assert files(project) == {"x/credentials": "[default]\n"}
    assert fstools.move(str(project / "x"), str(project / "y"), ctx=ctx).success


def test_deny_rules_apply_to_the_destination(project, src):
    rules = fstools.PermissionManager(rules=[fstools.PermissionRule("Move", "**/locked/**", "deny")])
    ctx = fstools.ExecutionContext(working_dir=str(project), permissions=rules)
    r = fstools.move(str(src), str(project / "locked" / "a.txt"), ctx=ctx)
    assert r.error_code == "permission_denied" and "locked" in r.error
    assert files(project) == {"a.txt": "alpha\n"} and not (project / "locked").exists()


def test_ask_rules_see_the_move(project, src):
    asked: list[fstools.PermissionRequest] = []
    manager = fstools.PermissionManager(
        rules=[fstools.PermissionRule("Move", "**", "ask")], confirm=lambda r: asked.append(r) or False
    )
    ctx = fstools.ExecutionContext(working_dir=str(project), permissions=manager)
    r = fstools.move(str(src), str(project / "b.txt"), ctx=ctx)
    assert r.error_code == "user_rejected" and src.exists()
    assert len(asked) == 1 and f"{src} -> {project / 'b.txt'}" in asked[0].diff


def test_dry_run_changes_nothing(project, src):
    ctx = fstools.ExecutionContext(working_dir=str(project), dry_run=True)
    r = fstools.move(str(src), str(project / "new" / "b.txt"), ctx=ctx)
    assert (
        r.success
        and r.metadata["dry_run"]
        and r.output == f"[Dry Run] Would move file {src} -> {project / 'new/b.txt'}"
    )
    assert files(project) == {"a.txt": "alpha\n"}


# Never clobbering ------------------------------------------------------------------------------


def _create_meanwhile(monkeypatch, dst: Path, text: str) -> None:
    """Fault injection: another process creates `dst` between Move's checks and its rename."""
    real_rename = _move._rename

    def rename(plan, src_fd: int, dst_fd: int) -> bool:
        if not dst.exists():
            dst.write_text(text)
        return real_rename(plan, src_fd, dst_fd)

    monkeypatch.setattr(_move, "_rename", rename)


@pytest.mark.parametrize("kernel", ["renameat2", "link-fallback"])
def test_a_destination_created_meanwhile_is_not_clobbered(project, ctx, src, monkeypatch, kernel):
    if kernel == "link-fallback":
        monkeypatch.setattr(renames, "_renameat2", lambda: None)
    dst = project / "b.txt"
    _create_meanwhile(monkeypatch, dst, "theirs\n")
    r = fstools.move(str(src), str(dst), ctx=ctx)
    assert r.error_code == "concurrent_modification" and "nothing was moved" in r.error
    assert files(project) == {"a.txt": "alpha\n", "b.txt": "theirs\n"}


def test_directory_fallback_without_renameat2(project, ctx, monkeypatch):
    monkeypatch.setattr(renames, "_renameat2", lambda: None)
    (project / "d").mkdir()
    (project / "d" / "f").write_text("f")
    assert fstools.move(str(project / "d"), str(project / "e"), ctx=ctx).success
    assert files(project) == {"e/f": "f"}


# Across filesystems ----------------------------------------------------------------------------


def _exdev(monkeypatch) -> None:
    """Fault injection: the rename fails with EXDEV, as between two filesystems."""
    real = renames.rename_at

    def rename_at(src_fd, src, dst_fd, dst, *, replace, is_dir):
        if not src.startswith(".") or ".fstools-move-" not in src:
            raise OSError(errno.EXDEV, os.strerror(errno.EXDEV))
        return real(src_fd, src, dst_fd, dst, replace=replace, is_dir=is_dir)

    monkeypatch.setattr(_move, "rename_at", rename_at)


def test_exdev_copies_then_removes_the_source(project, ctx, src, monkeypatch):
    _exdev(monkeypatch)
    agent_read(ctx, src)
    mtime = src.stat().st_mtime_ns
    r = fstools.move(str(src), str(project / "b.txt"), ctx=ctx)
    assert r.success and r.metadata["cross_device"] and "across filesystems" in r.output
    moved = project / "b.txt"
    assert files(project) == {"b.txt": "alpha\n"}
    assert stat.S_IMODE(moved.stat().st_mode) == 0o640 and moved.stat().st_mtime_ns == mtime
    assert fstools.edit(str(moved), "alpha", "beta", ctx=ctx).success  # the record followed the copy


def test_exdev_for_a_directory_with_a_link(project, ctx, monkeypatch):
    _exdev(monkeypatch)
    (project / "d" / "s").mkdir(parents=True)
    (project / "d" / "s" / "f.txt").write_text("f")
    (project / "d" / "ln").symlink_to("s/f.txt")
    (project / "d" / "s").chmod(0o750)
    mtime = (project / "d" / "s").stat().st_mtime_ns
    r = fstools.move(str(project / "d"), str(project / "e"), ctx=ctx)
    assert r.success and r.metadata["cross_device"]
    copied = (project / "e" / "s").stat()
    assert stat.S_IMODE(copied.st_mode) == 0o750 and copied.st_mtime_ns == mtime
    assert files(project) == {"e/s/f.txt": "f", "e/ln": "f"} and os.readlink(project / "e" / "ln") == "s/f.txt"
    assert not (project / "d").exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another user")
def test_exdev_keeps_owner_and_extended_attributes(project, ctx, monkeypatch):
    _exdev(monkeypatch)
    (project / "d" / "s").mkdir(parents=True)
    for path in (project / "d" / "s", project / "d" / "s" / "f.txt", project / "g.txt"):
        if not path.exists():
            path.write_text("x")
        os.chown(path, 1234, 5678)
        os.setxattr(path, "user.origin", b"kept")
    assert fstools.move(str(project / "d"), str(project / "e"), ctx=ctx).success
    assert fstools.move(str(project / "g.txt"), str(project / "h.txt"), ctx=ctx).success
    for path in (project / "e" / "s", project / "e" / "s" / "f.txt", project / "h.txt"):
        st = path.stat()
        assert (st.st_uid, st.st_gid) == (1234, 5678) and os.getxattr(path, "user.origin") == b"kept", path


def test_a_failed_copy_leaves_the_source_and_no_debris(project, ctx, src, monkeypatch):
    _exdev(monkeypatch)

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(renames.os, "fsync", full)
    r = fstools.move(str(src), str(project / "b.txt"), ctx=ctx)
    assert r.error_code == "disk_full"
    assert sorted(os.listdir(project)) == ["a.txt"] and src.read_text() == "alpha\n"


@pytest.mark.parametrize("kind", ["file", "directory"])
def test_a_source_that_cannot_be_removed_after_the_copy_is_reported(project, ctx, src, monkeypatch, kind):
    _exdev(monkeypatch)
    (project / "d").mkdir()
    (project / "d" / "f.txt").write_text("f")
    source = src if kind == "file" else project / "d"

    def refused(*args, **kwargs):  # fault injection: the source directory is not writable
        raise OSError(errno.EACCES, os.strerror(errno.EACCES))

    monkeypatch.setattr(renames.os, "unlink", refused)
    monkeypatch.setattr(renames, "remove_tree", refused)
    r = fstools.move(str(source), str(project / "new"), ctx=ctx)
    assert r.error_code == "permission_denied" and "both exist now" in r.error and f"to {project / 'new'}" in r.error
    copied = {"new": "alpha\n"} if kind == "file" else {"new/f.txt": "f"}
    assert files(project) == {"a.txt": "alpha\n", "d/f.txt": "f", **copied}


@pytest.mark.parametrize("across", [False, True])
def test_a_tree_deeper_than_the_recursion_limit(project, ctx, monkeypatch, across):
    if across:
        _exdev(monkeypatch)
    deep_tree(project / "top", 1200)
    try:
        r = fstools.move(str(project / "top"), str(project / "moved"), ctx=ctx)
        assert r.success, r.error
        assert r.metadata["moved_count"] == 1202 and r.metadata["cross_device"] == across
        assert (project / "moved" / ("d/" * 1200) / "f.txt").is_file() and not (project / "top").exists()
    finally:
        parent = os.open(project, os.O_RDONLY | os.O_DIRECTORY)
        try:
            for name in ("top", "moved"):  # pytest's own cleanup (shutil.rmtree) recurses
                if (project / name).exists():
                    remove_tree(parent, name)
        finally:
            os.close(parent)


@pytest.fixture
def other_fs(project: Path):
    with other_filesystem(project) as root:
        yield root


def test_a_real_move_between_filesystems(project, src, other_fs):
    ctx = fstools.ExecutionContext(working_dir=str(project), allowed_dirs=[str(project), str(other_fs)])
    (project / "tree" / "sub").mkdir(parents=True)
    (project / "tree" / "sub" / "x.txt").write_text("x")
    r = fstools.move(str(src), str(other_fs / "a.txt"), ctx=ctx)
    assert r.success and r.metadata["cross_device"], r.error
    r = fstools.move(str(project / "tree"), str(other_fs / "tree"), ctx=ctx)
    assert r.success and r.metadata["cross_device"], r.error
    assert files(other_fs) == {"a.txt": "alpha\n", "tree/sub/x.txt": "x"} and files(project) == {}


# Front ends ------------------------------------------------------------------------------------


def test_the_tool_is_registered_destructive_and_in_the_cli(project, src):
    tool = fstools.create_registry().get("Move")
    assert tool.spec is fstools.move.spec and tool.spec.destructive and not tool.read_only
    proc = fstools_cmd("move", "a.txt", "sub/b.txt", cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert files(project) == {"sub/b.txt": "alpha\n"}


# Arguments and fallbacks -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "source,destination,code",
    [
        ("", "/x", "invalid_argument"),
        ("a.txt", "b.txt", "invalid_path"),  # relative, and the context does not allow that
        ("/", "/x", "invalid_path"),
        ("{p}/a.txt", "{p}/a\x00b", "invalid_path"),
        ("{p}/a.txt", "{p}/a.txt/inside", "directory_not_found"),
    ],
)
def test_bad_arguments(project, ctx, src, source, destination, code):
    r = fstools.move(source.format(p=project), destination.format(p=project), ctx=ctx)
    assert r.error_code == code, r.error
    assert files(project) == {"a.txt": "alpha\n"}


def test_relative_paths_when_the_context_allows_them(project, src):
    ctx = fstools.ExecutionContext(working_dir=str(project), allow_relative_paths=True)
    assert fstools.move("a.txt", "b/c.txt", ctx=ctx).success
    assert files(project) == {"b/c.txt": "alpha\n"}


@pytest.mark.parametrize("failure", [errno.EINVAL, errno.ENOSYS])
def test_a_filesystem_without_renameat2_flags_falls_back(project, ctx, src, monkeypatch, failure):
    def unsupported(*args):  # fault injection: the kernel or filesystem refuses the flag
        import ctypes

        ctypes.set_errno(failure)
        return -1

    monkeypatch.setattr(renames, "_renameat2", lambda: unsupported)
    (project / "d").mkdir()
    assert fstools.move(str(src), str(project / "b.txt"), ctx=ctx).success
    assert fstools.move(str(project / "d"), str(project / "e"), ctx=ctx).success
    assert files(project) == {"b.txt": "alpha\n"} and (project / "e").is_dir()


def test_a_filesystem_without_hard_links_falls_back_to_rename(project, ctx, src, monkeypatch):
    monkeypatch.setattr(renames, "_renameat2", lambda: None)

    def no_links(*args, **kwargs):  # fault injection: vfat and the like refuse link()
        raise OSError(errno.EPERM, os.strerror(errno.EPERM))

    monkeypatch.setattr(renames.os, "link", no_links)
    assert fstools.move(str(src), str(project / "b.txt"), ctx=ctx).success
    assert files(project) == {"b.txt": "alpha\n"}


def test_renameat2_errors_are_reported(project, ctx, src, monkeypatch):
    def denied(*args):
        import ctypes

        ctypes.set_errno(errno.EACCES)
        return -1

    monkeypatch.setattr(renames, "_renameat2", lambda: denied)
    r = fstools.move(str(src), str(project / "b.txt"), ctx=ctx)
    assert r.error_code == "permission_denied" and src.exists()


def test_a_rename_stands_when_the_filesystem_refuses_to_fsync_a_directory(project, ctx, src, monkeypatch):
    """Some filesystems refuse fsync on a directory (EINVAL): the rename is done, the Move succeeds."""

    def refuse(fd):
        raise OSError(errno.EINVAL, os.strerror(errno.EINVAL))

    monkeypatch.setattr(renames.os, "fsync", refuse)
    r = fstools.move(str(src), str(project / "b.txt"), ctx=ctx)
    assert r.success, r.error
    assert sorted(os.listdir(project)) == ["b.txt"] and (project / "b.txt").read_text() == "alpha\n"
