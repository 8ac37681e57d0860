"""The path sandbox against a list of known attacks, on real files, links, FIFOs and devices."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import fstools
from fstools._core import sandbox
from fstools._core.errors import ErrorCode, ToolError
from fstools._core.paths import is_within, resolve_path


def refused(ctx, raw, code: ErrorCode) -> str:
    with pytest.raises(ToolError) as info:
        resolve_path(ctx, raw)
    assert info.value.code == code, info.value.message
    return info.value.message


@pytest.fixture
def tree(tmp_path: Path):
    """proj plus siblings whose names share its prefix, each holding a secret-looking file."""
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "inside.txt").write_text("ok")
    for sibling in ["proj2", "proj-old", "proj.bak", "proj'", "proj "]:
        d = tmp_path / sibling
        d.mkdir()
        (d / "secret.txt").write_text("no")
    (tmp_path / "outside.txt").write_text("no")
    return tmp_path, proj, fstools.ExecutionContext(working_dir=str(proj))


def test_inside_file_resolves(tree):
    _, proj, ctx = tree
    sp = resolve_path(ctx, str(proj / "inside.txt"))
    assert sp.path == str(proj / "inside.txt") and sp.is_file and sp.exists and not sp.is_dir


def test_root_itself_is_inside(tree):
    _, proj, ctx = tree
    assert resolve_path(ctx, str(proj)).is_dir


@pytest.mark.parametrize("sibling", ["proj2", "proj-old", "proj.bak", "proj'", "proj "])
def test_sibling_prefix_refused(tree, sibling):
    tmp, _, ctx = tree
    msg = refused(ctx, str(tmp / sibling / "secret.txt"), ErrorCode.PATH_OUTSIDE_WORKSPACE)
    assert sibling in msg


@pytest.mark.parametrize(
    "suffix",
    ["../outside.txt", "../../etc/passwd", "./../outside.txt", "sub/../../outside.txt", "../proj2/secret.txt", ".."],
)
def test_dotdot_escapes_refused(tree, suffix):
    _, proj, ctx = tree
    refused(ctx, f"{proj}/{suffix}", ErrorCode.PATH_OUTSIDE_WORKSPACE)


def test_dotdot_that_stays_inside_is_allowed(tree):
    _, proj, ctx = tree
    (proj / "sub").mkdir()
    assert resolve_path(ctx, f"{proj}/sub/../inside.txt").path == str(proj / "inside.txt")
    assert resolve_path(ctx, f"{proj}/../proj/inside.txt").path == str(proj / "inside.txt")


@pytest.mark.parametrize("name", ["...", "..x", "x..", "..hidden", "a..b"])
def test_dot_names_are_ordinary(tree, name):
    _, proj, ctx = tree
    (proj / name).write_text("fine")
    assert resolve_path(ctx, str(proj / name)).is_file


def test_nul_byte_and_long_path(tree):
    _, proj, ctx = tree
    assert "NUL" in refused(ctx, f"{proj}/a\x00b", ErrorCode.INVALID_PATH)
    assert "4096" in refused(ctx, f"{proj}/" + "a/" * 2100, ErrorCode.INVALID_PATH)


def test_relative_path_refused_unless_allowed(tree):
    _, proj, ctx = tree
    assert "must be an absolute path" in refused(ctx, "inside.txt", ErrorCode.INVALID_PATH)
    rel = fstools.ExecutionContext(working_dir=str(proj), allow_relative_paths=True)
    assert resolve_path(rel, "inside.txt").path == str(proj / "inside.txt")
    with pytest.raises(ToolError) as info:
        resolve_path(rel, "../outside.txt")
    assert info.value.code == ErrorCode.PATH_OUTSIDE_WORKSPACE


def test_empty_or_non_string(tree):
    _, _, ctx = tree
    refused(ctx, "", ErrorCode.INVALID_ARGUMENT)
    refused(ctx, None, ErrorCode.INVALID_ARGUMENT)


def test_symlink_to_outside_file(tree):
    tmp, proj, ctx = tree
    (proj / "link").symlink_to(tmp / "outside.txt")
    message = refused(ctx, str(proj / "link"), ErrorCode.PATH_OUTSIDE_WORKSPACE)
    assert "a symbolic link on the way leads out" in message and "outside.txt" not in message


def test_symlink_chain_ending_outside(tree):
    tmp, proj, ctx = tree
    (proj / "c").symlink_to(tmp / "outside.txt")
    (proj / "b").symlink_to(proj / "c")
    (proj / "a").symlink_to("b")
    refused(ctx, str(proj / "a"), ErrorCode.PATH_OUTSIDE_WORKSPACE)


def test_symlink_inside_is_resolved(tree):
    _, proj, ctx = tree
    (proj / "alias").symlink_to("inside.txt")
    assert resolve_path(ctx, str(proj / "alias")).path == str(proj / "inside.txt")


def test_symlinked_parent_for_new_file(tree):
    tmp, proj, ctx = tree
    (proj / "out").symlink_to(tmp / "proj2")
    refused(ctx, str(proj / "out" / "new.txt"), ErrorCode.PATH_OUTSIDE_WORKSPACE)
    refused(ctx, str(proj / "out" / "deeper" / "new.txt"), ErrorCode.PATH_OUTSIDE_WORKSPACE)


def test_new_file_inside_is_allowed(tree):
    _, proj, ctx = tree
    sp = resolve_path(ctx, str(proj / "new" / "dir" / "f.txt"))
    assert not sp.exists and sp.path == str(proj / "new" / "dir" / "f.txt")


def test_dangling_symlink_pointing_outside(tree):
    tmp, proj, ctx = tree
    (proj / "dangling").symlink_to(tmp / "does-not-exist.txt")
    refused(ctx, str(proj / "dangling"), ErrorCode.PATH_OUTSIDE_WORKSPACE)


def test_symlink_loop_is_invalid_not_a_hang(tree):
    _, proj, ctx = tree
    (proj / "loop1").symlink_to(proj / "loop2")
    (proj / "loop2").symlink_to(proj / "loop1")
    with pytest.raises(ToolError) as info:
        resolve_path(ctx, str(proj / "loop1"))
    assert info.value.code in (ErrorCode.INVALID_PATH, ErrorCode.PATH_OUTSIDE_WORKSPACE)


def test_symlinked_allowed_root(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (real / "f.txt").write_text("x")
    link = tmp_path / "rootlink"
    link.symlink_to(real)
    ctx = fstools.ExecutionContext(working_dir=str(link))
    assert ctx.roots == (str(real),)
    assert resolve_path(ctx, str(link / "f.txt")).path == str(real / "f.txt")
    assert resolve_path(ctx, str(real / "f.txt")).is_file


def test_several_allowed_dirs(tree):
    tmp, proj, _ = tree
    ctx = fstools.ExecutionContext(working_dir=str(proj), allowed_dirs=[str(proj), str(tmp / "proj2")])
    assert resolve_path(ctx, str(tmp / "proj2" / "secret.txt")).is_file
    refused(ctx, str(tmp / "proj-old" / "secret.txt"), ErrorCode.PATH_OUTSIDE_WORKSPACE)


def test_hard_link_reported_by_inode_count(tree):
    _, proj, ctx = tree
    os.link(proj / "inside.txt", proj / "twin.txt")
    sp = resolve_path(ctx, str(proj / "twin.txt"))
    assert sp.stat is not None and sp.stat.st_nlink == 2


@pytest.mark.parametrize(
    "rel",
    [
        ".env",
        ".env.local",
        ".envrc",
        "config/.env.production",
        "key.pem",
        "server.key",
        ".ssh/id_rsa",
        "id_ed25519",
        ".aws/credentials",
        "deploy/.git-credentials",
        "terraform.tfstate",
    ],
)
def test_sensitive_refused(tree, rel):
    _, proj, ctx = tree
    target = proj / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("SECRET=1")
    assert "sensitive" in refused(ctx, str(target), ErrorCode.SENSITIVE_PATH)
    assert ctx.sensitive.matches(str(target))  # and so filtered from LS/Glob/Grep


@pytest.mark.parametrize(
    "rel", [".env.example", ".env.sample", "id_rsa.pub", "keys.py", "environment.yml", "monkey.txt"]
)
def test_not_sensitive(tree, rel):
    _, proj, ctx = tree
    (proj / rel).write_text("fine")
    assert resolve_path(ctx, str(proj / rel)).is_file
    assert not ctx.sensitive.matches(str(proj / rel))


def test_symlink_to_secret_refused(tree):
    _, proj, ctx = tree
    (proj / ".env").write_text("S=1")
    (proj / "harmless").symlink_to(".env")
    refused(ctx, str(proj / "harmless"), ErrorCode.SENSITIVE_PATH)


def test_sensitive_list_can_be_changed_or_emptied(tree):
    _, proj, _ = tree
    (proj / ".env").write_text("S=1")
    (proj / "notes.secret").write_text("S=1")
    open_ctx = fstools.ExecutionContext(working_dir=str(proj), sensitive_patterns=())
    assert resolve_path(open_ctx, str(proj / ".env")).is_file
    custom = fstools.ExecutionContext(working_dir=str(proj), sensitive_patterns=["*.secret"])
    refused(custom, str(proj / "notes.secret"), ErrorCode.SENSITIVE_PATH)
    assert resolve_path(custom, str(proj / ".env")).is_file


def test_fifo_refused_without_hanging(tree):
    _, proj, ctx = tree
    os.mkfifo(proj / "pipe")
    assert "FIFO" in refused(ctx, str(proj / "pipe"), ErrorCode.INVALID_PATH)


def test_socket_refused(tree):
    import socket

    _, proj, ctx = tree
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(proj / "s.sock"))
        assert "socket" in refused(ctx, str(proj / "s.sock"), ErrorCode.INVALID_PATH)
    finally:
        sock.close()


def test_dev_zero_refused(tree):
    _, proj, _ = tree
    ctx = fstools.ExecutionContext(working_dir=str(proj), allowed_dirs=[str(proj), "/dev"])
    assert "character device" in refused(ctx, "/dev/zero", ErrorCode.INVALID_PATH)
    (proj / "zero").symlink_to("/dev/zero")
    refused(ctx, str(proj / "zero"), ErrorCode.INVALID_PATH)
    refused(fstools.ExecutionContext(working_dir=str(proj)), "/dev/zero", ErrorCode.PATH_OUTSIDE_WORKSPACE)


def test_unsearchable_parent_is_permission_denied(tree, monkeypatch):
    # Injected fault: CI runs as root, which can search any directory.
    _, proj, ctx = tree
    target = str(proj / "locked" / "f")
    real_stat = sandbox.stat_beneath

    def denying_stat(root, path):
        if str(path) == target:
            raise PermissionError(13, "Permission denied", path)
        return real_stat(root, path)

    monkeypatch.setattr(sandbox, "stat_beneath", denying_stat)
    assert target in refused(ctx, target, ErrorCode.PERMISSION_DENIED)


def test_other_stat_error_is_invalid_path(tree, monkeypatch):
    _, proj, ctx = tree
    target = str(proj / "odd")

    def failing_stat(root, path):
        raise OSError(5, "Input/output error", path)

    monkeypatch.setattr(sandbox, "stat_beneath", failing_stat)
    assert "Input/output error" in refused(ctx, target, ErrorCode.INVALID_PATH)


def test_is_within_is_separator_aware():
    assert is_within("/a/proj/x", "/a/proj")
    assert is_within("/a/proj", "/a/proj")
    assert not is_within("/a/proj2", "/a/proj")
    assert is_within("/anything", "/")


def test_working_dir_must_be_absolute():
    with pytest.raises(ValueError):
        fstools.ExecutionContext(working_dir="relative")


def _outcome(ctx, raw):
    try:
        sp = resolve_path(ctx, raw)
    except ToolError as exc:
        return ("error", exc.code, exc.message)
    st = sp.stat
    return (sp.path, sp.display, sp.root, None if st is None else (st.st_ino, st.st_mode))


def test_a_path_taken_as_written_resolves_as_realpath_resolves_it(tmp_path, monkeypatch):
    """Differential: the path taken as written when openat2 proves it has no link gives the same
    SafePath (or the same refusal) as resolving every link, over links in the middle, at the end,
    into the root from outside, out of it, `..`, `.`, missing names and secrets."""
    from fstools._core import paths

    if not sandbox.openat2.usable():
        pytest.skip("no openat2 here: every path is resolved")
    proj, elsewhere = tmp_path / "proj", tmp_path / "elsewhere"
    (proj / "src" / "pkg").mkdir(parents=True)
    elsewhere.mkdir()
    (proj / "src" / "pkg" / "mod.py").write_text("x = 1\n")
    (proj / ".env").write_text("KEY=1\n")
    (elsewhere / "out.txt").write_text("no\n")
    (proj / "src" / "alias").symlink_to(proj / "src" / "pkg")
    (proj / "src" / "link.py").symlink_to(proj / "src" / "pkg" / "mod.py")
    (proj / "src" / "env").symlink_to(proj / ".env")
    (proj / "out").symlink_to(elsewhere)
    (elsewhere / "in").symlink_to(proj / "src")
    ctx = fstools.ExecutionContext(working_dir=str(proj))
    raws = [
        f"{proj}/src/pkg/mod.py", f"{proj}/src/alias/mod.py", f"{proj}/src/link.py", f"{proj}/src/env",
        f"{proj}/.env", f"{proj}/out/out.txt", f"{elsewhere}/in/pkg/mod.py", f"{proj}/src/pkg/../link.py",
        f"{proj}/./src//pkg/mod.py", f"{proj}/src/pkg/", f"{proj}/src/missing/new.py", f"{proj}/src/alias/new.py",
        f"{proj}/src/pkg/mod.py/x", "src/pkg/mod.py", "src/alias/../pkg/mod.py", f"{proj}", f"//{proj}/src",
    ]  # fmt: skip
    taken = [_outcome(ctx, raw) for raw in raws]
    monkeypatch.setattr(paths, "_without_links", lambda *_: None)
    assert taken == [_outcome(ctx, raw) for raw in raws]


def test_a_path_with_no_link_is_proven_by_one_open_not_a_stat_per_component(tree, monkeypatch):
    _, proj, ctx = tree
    if not sandbox.openat2.usable():
        pytest.skip("no openat2 here: every path is resolved")
    calls = []
    monkeypatch.setattr(os.path, "realpath", lambda p, **kw: calls.append(p) or p)
    assert resolve_path(ctx, str(proj / "inside.txt")).is_file
    assert calls == []
