"""Every tool's change taken back byte for byte by Undo and Rewind: content, mode and existence.

Real files in tmp, the real journal in the session's private cache directory.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest

import fstools
from tests.helpers.tools import agent_read

SAMPLES = {
    "crlf.txt": b"first\r\nsecond\r\nthird\r\n",
    "latin1.txt": b"caf\xe9 cr\xe8me\nna\xefve\n",
    "no_newline.txt": b"alpha\nbeta",
    "empty.txt": b"",
    "bom.txt": b"\xef\xbb\xbfhello\nworld\n",
}


def snapshot(root: Path) -> dict[str, tuple[int, bytes | str | None]]:
    """Every entry under `root`: its mode and content (a link's target; None for a directory)."""
    out: dict[str, tuple[int, bytes | str | None]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                value: bytes | str | None = os.readlink(path)
            elif stat.S_ISREG(st.st_mode):
                value = Path(path).read_bytes()
            else:
                value = None
            out[os.path.relpath(path, root)] = (st.st_mode, value)
    return out


@pytest.fixture
def tree(project: Path) -> Path:
    for name, data in SAMPLES.items():
        (project / name).write_bytes(data)
    (project / "script.sh").write_bytes(b"#!/bin/sh\necho hi\n")
    os.chmod(project / "script.sh", 0o750)
    deep = project / "pkg" / "sub" / "deeper"
    deep.mkdir(parents=True)
    (deep / "leaf.py").write_bytes(b"x = 1\r\n")
    (project / "pkg" / "mod.py").write_bytes(b"def f():\n    return 1\n")
    os.chmod(project / "pkg" / "sub", 0o711)
    os.symlink("mod.py", project / "pkg" / "link.py")
    return project


def test_undo_of_each_edit_restores_the_exact_bytes(tree, ctx):
    for name, data in SAMPLES.items():
        path = tree / name
        agent_read(ctx, path)
        r = fstools.write(str(path), "replaced\n", ctx=ctx)
        assert r.success, r.error
        assert r.metadata["journal"] == "recorded"
        u = fstools.undo(str(path), ctx=ctx)
        assert u.success, u.error
        assert path.read_bytes() == data, name


def test_edit_multiedit_keep_mode_and_undo_twice_walks_back(tree, ctx):
    script = tree / "script.sh"
    agent_read(ctx, script)
    assert fstools.edit(str(script), "hi", "hello", ctx=ctx).success
    assert fstools.multi_edit(str(script), [{"old_string": "echo", "new_string": "printf"}], ctx=ctx).success
    assert script.read_bytes() == b"#!/bin/sh\nprintf hello\n"
    first = fstools.undo(str(script), ctx=ctx)
    assert first.success and "MultiEdit" in first.metadata["undone"]
    assert script.read_bytes() == b"#!/bin/sh\necho hello\n"
    second = fstools.undo(str(script), ctx=ctx)
    assert second.success and "Edit" in second.metadata["undone"]
    assert script.read_bytes() == b"#!/bin/sh\necho hi\n"
    assert stat.S_IMODE(script.stat().st_mode) == 0o750
    third = fstools.undo(str(script), ctx=ctx)
    assert third.error_code == "not_found"
    assert script.read_bytes() == b"#!/bin/sh\necho hi\n"


def test_undo_of_an_undo_restores_once_another_change_followed(tree, ctx):
    path = tree / "crlf.txt"
    agent_read(ctx, path)
    assert fstools.edit(str(path), "second", "SECOND", ctx=ctx).success
    assert fstools.undo(str(path), ctx=ctx).success  # back to the original
    assert path.read_bytes() == SAMPLES["crlf.txt"]
    agent_read(ctx, path)
    assert fstools.edit(str(path), "third", "THIRD", ctx=ctx).success
    assert fstools.undo(str(path), ctx=ctx).success  # takes back THIRD
    again = fstools.undo(str(path), ctx=ctx)  # the run goes on to the undo before: SECOND comes back
    assert again.success, again.error
    assert path.read_bytes() == b"first\r\nSECOND\r\nthird\r\n"


def test_undo_of_a_created_file_removes_it_and_the_directories_made_for_it(tree, ctx):
    new = tree / "made" / "for" / "it.txt"
    assert fstools.write(str(new), "new\n", ctx=ctx).success
    r = fstools.undo(str(new), ctx=ctx)
    assert r.success, r.error
    assert not (tree / "made").exists()


def test_nothing_to_undo_is_not_found(tree, ctx):
    r = fstools.undo(str(tree / "crlf.txt"), ctx=ctx)
    assert r.error_code == "not_found"
    assert "Nothing to undo" in r.error


def test_undo_of_a_tree_delete_brings_back_modes_links_and_bytes(tree, ctx):
    before = snapshot(tree)
    r = fstools.delete(str(tree / "pkg"), recursive=True, ctx=ctx)
    assert r.success and r.metadata["journal"] == "recorded"
    assert not (tree / "pkg").exists()
    u = fstools.undo(str(tree / "pkg"), ctx=ctx)
    assert u.success, u.error
    assert snapshot(tree) == before


def test_undo_of_a_directory_move_moves_it_back(tree, ctx):
    before = snapshot(tree)
    r = fstools.move(str(tree / "pkg"), str(tree / "new" / "place"), ctx=ctx)
    assert r.success and r.metadata["journal"] == "recorded"
    u = fstools.undo(str(tree / "new" / "place"), ctx=ctx)
    assert u.success, u.error
    assert snapshot(tree) == before


def test_undo_of_a_move_over_a_file_brings_the_replaced_file_back(tree, ctx):
    before = snapshot(tree)
    agent_read(ctx, tree / "latin1.txt")
    r = fstools.move(str(tree / "crlf.txt"), str(tree / "latin1.txt"), overwrite=True, ctx=ctx)
    assert r.success, r.error
    u = fstools.undo(str(tree / "latin1.txt"), ctx=ctx)
    assert u.success, u.error
    assert snapshot(tree) == before


def test_rewind_takes_every_tool_back_byte_for_byte(tree, ctx):
    before = snapshot(tree)
    cp = fstools.checkpoint(label="start", ctx=ctx)
    assert cp.success and cp.metadata["label"] == "start"
    mark = cp.metadata["checkpoint"]
    for name in SAMPLES:
        agent_read(ctx, tree / name)
    assert fstools.write(str(tree / "crlf.txt"), "one\ntwo\n", ctx=ctx).success
    assert fstools.edit(str(tree / "latin1.txt"), "naïve", "naive", ctx=ctx).success
    assert fstools.multi_edit(
        str(tree / "no_newline.txt"), [{"old_string": "beta", "new_string": "gamma"}], ctx=ctx
    ).success
    assert fstools.write(str(tree / "empty.txt"), "now full\n", ctx=ctx).success
    patch = (
        "*** Begin Patch\n*** Add File: added/by/patch.txt\n+hi\n*** Delete File: bom.txt\n"
        "*** Update File: pkg/mod.py\n*** Move to: pkg/renamed.py\n@@\n-    return 1\n+    return 2\n*** End Patch"
    )
    assert fstools.apply_patch(patch, ctx=ctx).success
    assert fstools.move(str(tree / "pkg" / "sub"), str(tree / "moved" / "sub"), ctx=ctx).success
    assert fstools.delete(str(tree / "script.sh"), ctx=ctx).success
    assert fstools.delete(str(tree / "moved"), recursive=True, ctx=ctx).success
    editor = fstools.anthropic_text_editor(
        {"command": "create", "path": str(tree / "te.txt"), "file_text": "x\n"}, ctx=ctx
    )
    assert not editor["is_error"]
    listed = fstools.changes(since=mark, ctx=ctx)
    assert listed.success
    changed = {f["path"]: f["change"] for f in listed.metadata["files"]}
    assert changed[str(tree / "crlf.txt")] == "modified"
    assert changed[str(tree / "bom.txt")] == "deleted"
    assert changed[str(tree / "te.txt")] == "added"
    assert "-caf" not in listed.metadata["diff"] or "naive" in listed.metadata["diff"]
    dry = fstools.rewind(mark, dry_run=True, ctx=ctx)
    assert dry.success and dry.metadata["dry_run"] is True
    assert (tree / "te.txt").exists()
    r = fstools.rewind(mark, ctx=ctx)
    assert r.success, r.error
    assert snapshot(tree) == before
    assert r.metadata["journal"] == "recorded"


@pytest.mark.parametrize("mode", [0o750, 0o600], ids=["rwxr-x---", "rw-------"])
def test_a_rewind_past_a_patch_that_moves_a_file_of_its_own_mode_with_changes(tree, ctx, mode):
    os.chmod(tree / "script.sh", mode)  # the moved file's mode is not what a new file gets
    before = snapshot(tree)
    mark = fstools.checkpoint(ctx=ctx).metadata["checkpoint"]
    patch = (
        "*** Begin Patch\n*** Add File: added.txt\n+hi\n*** Update File: pkg/mod.py\n@@\n-    return 1\n+    return 2\n"
        "*** Update File: script.sh\n*** Move to: bin/run.sh\n@@\n-echo hi\n+echo bye\n*** Delete File: crlf.txt\n*** End Patch"
    )
    assert fstools.apply_patch(patch, ctx=ctx).success
    assert stat.S_IMODE((tree / "bin" / "run.sh").stat().st_mode) == mode
    r = fstools.rewind(mark, ctx=ctx)
    assert r.success, r.error
    assert snapshot(tree) == before


def test_a_rewind_can_be_rewound(tree, ctx):
    start = fstools.checkpoint(ctx=ctx).metadata["checkpoint"]
    agent_read(ctx, tree / "crlf.txt")
    assert fstools.edit(str(tree / "crlf.txt"), "first", "FIRST", ctx=ctx).success
    assert fstools.delete(str(tree / "pkg"), recursive=True, ctx=ctx).success
    changed = snapshot(tree)
    before_rewind = fstools.checkpoint(ctx=ctx).metadata["checkpoint"]
    assert fstools.rewind(start, ctx=ctx).success
    assert (tree / "pkg" / "sub" / "deeper" / "leaf.py").read_bytes() == b"x = 1\r\n"
    r = fstools.rewind(before_rewind, ctx=ctx)
    assert r.success, r.error
    assert snapshot(tree) == changed


def test_no_prior_read_is_needed_and_reads_are_forgotten(tree, ctx):
    other = fstools.ExecutionContext(working_dir=str(tree))
    agent_read(other, tree / "crlf.txt")
    assert fstools.edit(str(tree / "crlf.txt"), "first", "1st", ctx=other).success
    r = fstools.undo(str(tree / "crlf.txt"), ctx=ctx)  # another context, never read it
    assert r.success, r.error
    stale = fstools.edit(str(tree / "crlf.txt"), "first", "one", ctx=other)
    assert stale.error_code == "concurrent_modification"  # the editing session's read is out of date
    again = fstools.edit(str(tree / "crlf.txt"), "first", "one", ctx=ctx)
    assert again.error_code == "not_read"  # the undo proves nothing to the model: read before writing


def test_journal_off_records_nothing_and_the_calls_name_the_journal(tree):
    ctx = fstools.ExecutionContext(working_dir=str(tree), journal="off")
    agent_read(ctx, tree / "crlf.txt")
    r = fstools.edit(str(tree / "crlf.txt"), "first", "1st", ctx=ctx)
    assert r.success and r.metadata["journal"] == "off"
    for result in (
        fstools.undo(str(tree / "crlf.txt"), ctx=ctx),
        fstools.checkpoint(ctx=ctx),
        fstools.rewind("1-abc", ctx=ctx),
        fstools.changes(ctx=ctx),
    ):
        assert not result.success and "journal" in result.error
    with pytest.raises(ValueError, match="journal"):
        fstools.ExecutionContext(working_dir=str(tree), journal="maybe")


def test_unknown_and_malformed_checkpoints(tree, ctx):
    assert fstools.rewind("999-000000000000", ctx=ctx).error_code == "not_found"
    assert fstools.changes(since="999-000000000000", ctx=ctx).error_code == "not_found"
    assert fstools.rewind("not an id", ctx=ctx).error_code == "invalid_argument"
    mine = fstools.checkpoint(ctx=ctx).metadata["checkpoint"]
    seq, nonce = mine.split("-")
    assert fstools.rewind(f"{int(seq) + 50}-{nonce}", ctx=ctx).error_code == "not_found"


def test_dry_run_context_and_permissions_apply(tree, ctx):
    agent_read(ctx, tree / "crlf.txt")
    assert fstools.edit(str(tree / "crlf.txt"), "first", "1st", ctx=ctx).success
    dry = fstools.ExecutionContext(working_dir=str(tree), dry_run=True)
    r = fstools.undo(str(tree / "crlf.txt"), ctx=dry)
    assert r.success and r.metadata["dry_run"] is True and "-1st" in r.metadata["diff"]
    assert b"1st" in (tree / "crlf.txt").read_bytes()
    denied = fstools.ExecutionContext(
        working_dir=str(tree),
        permissions=fstools.PermissionManager(rules=[fstools.PermissionRule(tool="Undo", path="**", action="deny")]),
    )
    assert fstools.undo(str(tree / "crlf.txt"), ctx=denied).error_code == "permission_denied"
    read_only = fstools.ExecutionContext(working_dir=str(tree), read_only=True)
    assert fstools.undo(str(tree / "crlf.txt"), ctx=read_only).error_code == "permission_denied"
    assert fstools.changes(ctx=read_only).success
    assert b"1st" in (tree / "crlf.txt").read_bytes()


def test_secrets_are_never_journaled_or_restored(tree, ctx):
    r = fstools.undo(str(tree / ".env"), ctx=ctx)
    assert r.error_code == "sensitive_path"


def test_text_editor_undo_edit_is_undo(tree, ctx):
    path = str(tree / "no_newline.txt")
    editor = fstools.anthropic_text_editor
    assert not editor({"command": "str_replace", "path": path, "old_str": "beta", "new_str": "BETA"}, ctx=ctx)[
        "is_error"
    ]
    agent_read(ctx, path)
    assert not editor({"command": "insert", "path": path, "insert_line": 0, "insert_text": "top"}, ctx=ctx)["is_error"]
    answer = editor({"command": "undo_edit", "path": path}, ctx=ctx)
    assert not answer["is_error"] and "undone successfully" in answer["content"]
    assert Path(path).read_bytes() == b"alpha\nBETA"
    assert not editor({"command": "undo_edit", "path": path}, ctx=ctx)["is_error"]
    assert Path(path).read_bytes() == SAMPLES["no_newline.txt"]
    assert editor({"command": "undo_edit", "path": path}, ctx=ctx)["is_error"]


def test_openai_apply_patch_is_journaled(tree, ctx):
    call = {
        "type": "apply_patch_call",
        "call_id": "c",
        "operation": {"type": "create_file", "path": "oa.md", "diff": "+x\n"},
    }
    assert fstools.openai_apply_patch(call, ctx=ctx)["status"] == "completed"
    assert fstools.undo(str(tree / "oa.md"), ctx=ctx).success
    assert not (tree / "oa.md").exists()


def test_undo_takes_a_notebook_edit_back_byte_for_byte(project, ctx):
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("x = 1\n", id="a1"), nbformat.v4.new_markdown_cell("# Title", id="b2")]
    path = project / "analysis.ipynb"
    path.write_text(nbformat.writes(nb), encoding="utf-8")
    before = path.read_bytes()
    assert fstools.read(str(path), ctx=ctx).success
    edited = fstools.notebook_edit(str(path), "y = 2\n", cell_id="a1", ctx=ctx)
    assert edited.success, edited.error
    assert edited.metadata["journal"] == "recorded"
    assert path.read_bytes() != before
    undone = fstools.undo(str(path), ctx=ctx)
    assert undone.success, undone.error
    assert path.read_bytes() == before


def _edit_inside(project, ctx):
    path = project / "sub" / "a.txt"
    agent_read(ctx, path)
    assert fstools.edit(str(path), "a", "b", ctx=ctx).success
    return path


def _delete_the_tree(project, ctx):
    assert fstools.delete(str(project / "sub"), recursive=True, ctx=ctx).success
    return project / "sub" / "a.txt"


def _create_in_a_new_directory(project, ctx):
    shutil.rmtree(project / "sub")
    path = project / "sub" / "b.txt"
    assert fstools.write(str(path), "b\n", ctx=ctx).success
    return path


def _delete_the_file(project, ctx):
    path = project / "sub" / "a.txt"
    assert fstools.delete(str(path), ctx=ctx).success
    return path


@pytest.mark.parametrize("how", ["rewind", "undo"])
@pytest.mark.parametrize(
    "change", [_edit_inside, _delete_the_tree, _create_in_a_new_directory, _delete_the_file], ids=lambda f: f.__name__
)
def test_a_directory_replaced_by_a_file_is_named_as_another_programs_change(project, ctx, change, how):
    (project / "sub").mkdir()
    (project / "sub" / "a.txt").write_text("a\n")
    mark = fstools.checkpoint(ctx=ctx).metadata["checkpoint"]
    path = change(project, ctx)
    if (project / "sub").exists():
        shutil.rmtree(project / "sub")
    (project / "sub").write_text("someone else's file\n")  # another program put a file where the directory was
    before = snapshot(project)
    r = fstools.rewind(mark, ctx=ctx) if how == "rewind" else fstools.undo(str(path), ctx=ctx)
    assert r.error_code == "concurrent_modification", r.error
    sub = str((project / "sub").resolve())
    assert str(path.resolve()) in r.error and f"{sub} was a directory and is now a file" in r.error
    assert r.metadata["blocked_by"] == sub and r.metadata["paths"] == [str(path.resolve())]
    assert snapshot(project) == before  # nothing changed
