"""Delete: files, links, trees only when asked, never a root, never a secret, dry run."""

from __future__ import annotations

import errno
import os

import pytest

import fstools
from tests.helpers.tools import agent_read, ask_rule


def test_delete_a_file(project, ctx):
    path = project / "a.txt"
    path.write_text("bye\n")
    agent_read(ctx, path)
    r = fstools.delete(str(path), ctx=ctx)
    assert r.success, r.error
    assert not path.exists()
    assert r.metadata["removed"] == [str(path)] and r.metadata["type"] == "file"
    assert "-bye" in r.metadata["diff"] and "Deleted file" in r.output
    assert ctx.read_record(str(path)) is None


def test_delete_needs_no_read(project, ctx):
    path = project / "unread.bin"
    path.write_bytes(b"\x00\x01")
    r = fstools.delete(str(path), ctx=ctx)
    assert r.success and not path.exists() and "diff" not in r.metadata


def test_delete_missing(project, ctx):
    r = fstools.delete(str(project / "nope"), ctx=ctx)
    assert r.error_code == "file_not_found" and "File not found" in r.error


def test_directory_needs_recursive(project, ctx):
    d = project / "pkg"
    (d / "sub").mkdir(parents=True)
    (d / "a.py").write_text("a")
    (d / "sub" / "b.py").write_text("b")
    r = fstools.delete(str(d), ctx=ctx)
    assert r.error_code == "is_directory" and "recursive=true" in r.error
    assert d.exists()
    r = fstools.delete(str(d), recursive=True, ctx=ctx)
    assert r.success, r.error
    assert not d.exists()
    assert sorted(r.metadata["removed"]) == sorted(str(p) for p in (d, d / "a.py", d / "sub", d / "sub" / "b.py"))
    assert (r.metadata["files"], r.metadata["directories"], r.metadata["removed_count"]) == (2, 2, 4)
    assert "2 files, 1 subdirectories" in r.output


def test_empty_directory_also_needs_recursive(project, ctx):
    (project / "empty").mkdir()
    assert fstools.delete(str(project / "empty"), ctx=ctx).error_code == "is_directory"
    assert fstools.delete(str(project / "empty"), recursive=True, ctx=ctx).success


def test_never_an_allowed_root(project, tmp_path):
    inner = project / "inner"
    inner.mkdir()
    ctx = fstools.ExecutionContext(working_dir=str(project), allowed_dirs=[str(project), str(inner)])
    for target in (project, inner):
        r = fstools.delete(str(target), recursive=True, ctx=ctx)
        assert r.error_code == "permission_denied" and "allowed root" in r.error
    assert inner.exists()


def test_never_outside(project, ctx, tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("x")
    assert fstools.delete(str(outside), ctx=ctx).error_code == "path_outside_workspace"
    assert fstools.delete(str(project / ".." / "outside.txt"), ctx=ctx).error_code == "path_outside_workspace"
    assert outside.exists()


def test_symlink_is_removed_not_its_target(project, ctx):
    real = project / "real.txt"
    real.write_text("keep")
    link = project / "link.txt"
    link.symlink_to(real)
    r = fstools.delete(str(link), ctx=ctx)
    assert r.success and r.metadata["type"] == "symlink"
    assert not link.is_symlink() and real.read_text() == "keep"


def test_symlinked_directory_inside_a_tree_is_not_followed(project, ctx):
    keep = project / "keep"
    keep.mkdir()
    (keep / "precious.txt").write_text("x")
    tree = project / "tree"
    tree.mkdir()
    (tree / "to_keep").symlink_to(keep)
    r = fstools.delete(str(tree), recursive=True, ctx=ctx)
    assert r.success and not tree.exists()
    assert (keep / "precious.txt").exists()
    assert str(tree / "to_keep") in r.metadata["removed"]


def test_link_placed_outside_pointing_inside_is_refused(project, ctx, tmp_path):
    target = project / "t.txt"
    target.write_text("x")
    link = tmp_path / "outside-link"
    link.symlink_to(target)
    r = fstools.delete(str(link), ctx=ctx)
    assert r.error_code == "path_outside_workspace"
    assert link.is_symlink() and target.exists()


def test_tree_with_a_secret_is_refused(project, ctx):
    d = project / "conf"
    d.mkdir()
    (d / ".env").write_text("SECRET=1")
    r = fstools.delete(str(d), recursive=True, ctx=ctx)
    assert r.error_code == "sensitive_path" and ".env" in r.error
    assert (d / ".env").exists()
    assert fstools.delete(str(d / ".env"), ctx=ctx).error_code == "sensitive_path"


def test_dry_run_lists_and_keeps(project):
    d = project / "build"
    d.mkdir()
    for n in range(150):
        (d / f"f{n:03}.o").write_text("x")
    dry = fstools.ExecutionContext(working_dir=str(project), dry_run=True)
    r = fstools.delete(str(d), recursive=True, ctx=dry)
    assert r.success and r.output.startswith("[Dry Run] Would delete directory")
    assert "... and 51 more" in r.output
    assert r.metadata["removed_count"] == 151 and len(r.metadata["removed"]) == 100
    assert r.metadata["dry_run"] is True
    assert len(os.listdir(d)) == 150


def test_human_confirmation_and_deny(project):
    path = project / "a.txt"
    path.write_text("content\n")
    requests = []

    def refuse(request):
        requests.append(request)
        return False

    ctx = fstools.ExecutionContext(
        working_dir=str(project),
        permissions=ask_rule("Delete", refuse),
    )
    assert fstools.delete(str(path), ctx=ctx).error_code == "user_rejected"
    assert path.exists() and "-content" in requests[0].diff and requests[0].details["removed"] == 1


def test_partial_failure_is_reported(project, ctx, monkeypatch):
    d = project / "d"
    d.mkdir()
    (d / "a").write_text("x")

    def fail(path, *args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied", str(path))

    monkeypatch.setattr(os, "unlink", fail)
    r = fstools.delete(str(d), recursive=True, ctx=ctx)
    monkeypatch.undo()
    assert r.error_code == "permission_denied" and "0 of 2 entries deleted" in r.error
    assert (d / "a").exists()


def test_delete_then_write_a_new_file_needs_no_read(project, ctx):
    path = project / "a.txt"
    path.write_text("old")
    agent_read(ctx, path)
    assert fstools.delete(str(path), ctx=ctx).success
    assert fstools.write(str(path), "new", ctx=ctx).success


@pytest.mark.parametrize("recursive", ["true", "false"])
def test_tool_layer(project, ctx, recursive):
    (project / "x").write_text("x")
    r = fstools.create_registry().run("Delete", ctx, path=str(project / "x"), recursive=recursive)
    assert r.success


def test_large_file_is_deleted_without_a_diff(project):
    ctx = fstools.ExecutionContext(working_dir=str(project), max_edit_bytes=4)
    path = project / "big.txt"
    path.write_text("0123456789")
    r = fstools.delete(str(path), ctx=ctx)
    assert r.success and "diff" not in r.metadata and not path.exists()


def _rules(*rules: fstools.PermissionRule, confirm=None) -> fstools.PermissionManager:
    return fstools.PermissionManager(rules=list(rules), confirm=confirm)


def _lock_tree(project):
    pkg = project / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "a.js").write_text("x")
    (pkg / "sub" / "yarn.lock").write_text("lock")
    return pkg


@pytest.mark.parametrize("dry_run", [False, True])
def test_recursive_delete_refused_when_a_file_inside_is_denied(project, dry_run):
    pkg = _lock_tree(project)
    deny = _rules(fstools.PermissionRule(tool="Delete", path="**/*.lock", action="deny"))
    ctx = fstools.ExecutionContext(working_dir=str(project), permissions=deny, dry_run=dry_run)
    r = fstools.delete(str(pkg), recursive=True, ctx=ctx)
    assert r.error_code == "permission_denied" and str(pkg / "sub" / "yarn.lock") in r.error
    assert (pkg / "a.js").exists() and (pkg / "sub" / "yarn.lock").exists()


@pytest.mark.parametrize("answer", [True, False])
def test_recursive_delete_asks_once_when_a_file_inside_needs_asking(project, answer):
    pkg = _lock_tree(project)
    asked: list[fstools.PermissionRequest] = []

    def confirm(request: fstools.PermissionRequest) -> bool:
        asked.append(request)
        return answer

    rules = _rules(
        fstools.PermissionRule(tool="Delete", path="**/*.lock", action="ask"),
        fstools.PermissionRule(tool="Delete", path="**/*.js", action="ask"),
        confirm=confirm,
    )
    r = fstools.delete(
        str(pkg), recursive=True, ctx=fstools.ExecutionContext(working_dir=str(project), permissions=rules)
    )
    assert len(asked) == 1 and asked[0].path == str(pkg)
    assert str(pkg / "sub" / "yarn.lock") in asked[0].diff and str(pkg / "a.js") in asked[0].diff
    assert r.success is answer and pkg.exists() is not answer
    if not answer:
        assert r.error_code == "user_rejected"


def test_recursive_delete_ask_inside_is_not_consulted_in_a_dry_run(project):
    pkg = _lock_tree(project)
    rules = _rules(fstools.PermissionRule(tool="Delete", path="**/*.lock", action="ask"))
    dry = fstools.ExecutionContext(working_dir=str(project), permissions=rules, dry_run=True)
    r = fstools.delete(str(pkg), recursive=True, ctx=dry)
    assert r.success and (pkg / "sub" / "yarn.lock").exists()


def test_recursive_delete_without_matching_rules_asks_no_one(project):
    pkg = _lock_tree(project)
    rules = _rules(fstools.PermissionRule(tool="Write", path="**", action="deny"), confirm=lambda _: False)
    r = fstools.delete(
        str(pkg), recursive=True, ctx=fstools.ExecutionContext(working_dir=str(project), permissions=rules)
    )
    assert r.success and not pkg.exists()


def test_symlink_pointing_outside_is_removed_not_followed(project, ctx, tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("keep")
    link = project / "out-link"
    link.symlink_to(outside)
    r = fstools.delete(str(link), ctx=ctx)
    assert r.success, r.error
    assert r.metadata["type"] == "symlink" and r.metadata["path"] == str(link)
    assert not os.path.lexists(link) and outside.read_text() == "keep"


def test_symlink_loop_is_removed(project, ctx):
    a, b = project / "a", project / "b"
    a.symlink_to(b)
    b.symlink_to(a)
    r = fstools.delete(str(a), ctx=ctx)
    assert r.success and r.metadata["type"] == "symlink", r.error
    assert not os.path.lexists(a) and os.path.lexists(b)


def test_symlink_to_a_secret_is_removed_but_the_secret_kept(project, ctx):
    secret = project / ".env"
    secret.write_text("SECRET=1")
    link = project / "settings"
    link.symlink_to(secret)
    r = fstools.delete(str(link), ctx=ctx)
    assert r.success and not os.path.lexists(link) and secret.read_text() == "SECRET=1"


def test_symlink_with_a_sensitive_name_is_refused(project, ctx):
    plain = project / "plain.txt"
    plain.write_text("x")
    link = project / ".env"
    link.symlink_to(plain)
    assert fstools.delete(str(link), ctx=ctx).error_code == "sensitive_path"
    assert link.is_symlink()


def test_symlink_reached_through_a_linked_directory_outside_is_refused(project, ctx, tmp_path):
    away = tmp_path / "away"
    away.mkdir()
    (away / "l").symlink_to(away)
    (project / "door").symlink_to(away)
    r = fstools.delete(str(project / "door" / "l"), ctx=ctx)
    assert r.error_code == "path_outside_workspace"
    assert (away / "l").is_symlink()


def test_symlink_deny_rule_is_judged_on_the_link(project, tmp_path):
    outside = tmp_path / "t.txt"
    outside.write_text("x")
    link = project / "keep.link"
    link.symlink_to(outside)
    rules = _rules(fstools.PermissionRule(tool="Delete", path="**/*.link", action="deny"))
    r = fstools.delete(str(link), ctx=fstools.ExecutionContext(working_dir=str(project), permissions=rules))
    assert r.error_code == "permission_denied" and link.is_symlink()
