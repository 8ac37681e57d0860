"""Write: the acceptance scenarios, read-before-write, backups, limits, conventions kept."""

from __future__ import annotations

import codecs
import errno
import os

import pytest

import fstools
from fstools._content.fingerprints import remember
from tests.helpers.tools import agent_read, ask_rule


def temp_files(directory) -> list[str]:
    return [n for n in os.listdir(directory) if n.endswith(".fstools.tmp")]


# --- Feature: Write Tool (acceptance scenarios) -----------------------------------------------


def test_write_new_file(project, ctx):
    target = project / "new.txt"
    r = fstools.write(str(target), "Hello, World!", ctx=ctx)
    assert r.success, r.error
    assert target.read_text() == "Hello, World!"
    assert "Created" in r.output
    assert r.metadata["bytes_written"] == 13
    assert r.metadata["created"] is True


def test_overwrite_existing_file(project, ctx):
    target = project / "existing.txt"
    target.write_text("Old content")
    agent_read(ctx, target)
    r = fstools.write(str(target), "New content", ctx=ctx)
    assert r.success, r.error
    assert target.read_text() == "New content"
    assert "Updated" in r.output
    assert r.metadata["created"] is False
    assert "-Old content" in r.metadata["diff"] and "+New content" in r.metadata["diff"]


def test_write_creates_parent_directories(project, ctx):
    target = project / "new" / "nested" / "dir" / "file.txt"
    r = fstools.write(str(target), "Content here", ctx=ctx)
    assert r.success, r.error
    assert (project / "new" / "nested" / "dir").is_dir()
    assert target.read_text() == "Content here"


def test_write_relative_path_is_refused(ctx):
    r = fstools.write("relative/path.txt", "Content", ctx=ctx)
    assert not r.success
    assert "must be an absolute path" in r.error


def test_write_dry_run(project):
    dry = fstools.ExecutionContext(working_dir=str(project), dry_run=True)
    target = project / "dryrun.txt"
    r = fstools.write(str(target), "Test content", ctx=dry)
    assert r.success, r.error
    assert "[Dry Run]" in r.output and "+Test content" in r.output
    assert not target.exists()
    assert r.metadata["dry_run"] is True
    assert os.listdir(project) == []


def test_write_permission_denied(project, ctx, monkeypatch):
    """As root chmod cannot make the directory unwritable: the EACCES the kernel would give is injected."""
    protected = project / "protected"
    protected.mkdir()
    real_open = os.open

    def deny_in_protected(path, flags, mode=0o777, **kw):
        where = os.readlink(f"/proc/self/fd/{kw['dir_fd']}") if kw.get("dir_fd") is not None else os.fspath(path)
        if where.startswith(str(protected)) and flags & os.O_CREAT:
            raise PermissionError(errno.EACCES, "Permission denied", path)
        return real_open(path, flags, mode, **kw)

    monkeypatch.setattr(os, "open", deny_in_protected)
    r = fstools.write(str(protected / "sub" / "file.txt"), "Content", ctx=ctx)
    monkeypatch.undo()
    assert not r.success
    assert "Permission denied" in r.error and r.error_code == "permission_denied"
    assert os.listdir(protected) == []  # neither the temp file nor the parent it tried to create remain


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write to a mode-0555 directory")
def test_write_permission_denied_for_real(project, ctx):  # pragma: no cover - runs only as non-root
    protected = project / "protected"
    protected.mkdir(mode=0o555)
    r = fstools.write(str(protected / "file.txt"), "Content", ctx=ctx)
    assert r.error_code == "permission_denied" and "Permission denied" in r.error


def test_write_empty_content(project, ctx):
    target = project / "empty.txt"
    r = fstools.write(str(target), "", ctx=ctx)
    assert r.success, r.error
    assert target.exists() and target.read_bytes() == b""
    assert r.metadata["bytes_written"] == 0


# --- Read-before-write ------------------------------------------------------------------------


def test_overwrite_without_read_is_refused(project, ctx):
    target = project / "a.txt"
    target.write_text("mine")
    r = fstools.write(str(target), "theirs", ctx=ctx)
    assert r.error_code == "not_read"
    assert "File has not been read yet. Read it first" in r.error
    assert target.read_text() == "mine"


def test_a_read_in_another_context_does_not_count(project, ctx):
    target = project / "a.txt"
    target.write_text("mine")
    agent_read(fstools.ExecutionContext(working_dir=str(project)), target)
    assert fstools.write(str(target), "theirs", ctx=ctx).error_code == "not_read"


def test_content_changed_since_read_is_a_conflict(project, ctx):
    target = project / "a.txt"
    target.write_text("v1")
    agent_read(ctx, target)
    target.write_text("v2 from someone else")
    r = fstools.write(str(target), "v3", ctx=ctx)
    assert r.error_code == "concurrent_modification" and "modified since it was read" in r.error
    assert target.read_text() == "v2 from someone else"


def test_mtime_only_change_is_not_a_conflict(project, ctx):
    target = project / "a.txt"
    target.write_text("same")
    agent_read(ctx, target)
    st = target.stat()
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns + 7_000_000_000))
    r = fstools.write(str(target), "new", ctx=ctx)
    assert r.success, r.error
    assert target.read_text() == "new"


def test_identical_rewrite_after_touch_by_ide_autosave(project, ctx):
    """An IDE autosave that rewrites identical bytes (new inode, new mtime) is not a conflict either."""
    target = project / "a.txt"
    target.write_text("same")
    agent_read(ctx, target)
    tmp = project / "autosave"
    tmp.write_text("same")
    os.replace(tmp, target)
    assert fstools.write(str(target), "new", ctx=ctx).success


def test_own_write_counts_as_read(project, ctx):
    target = project / "a.txt"
    assert fstools.write(str(target), "one", ctx=ctx).success
    assert fstools.write(str(target), "two", ctx=ctx).success
    assert fstools.edit(str(target), "two", "three", ctx=ctx).success
    assert target.read_text() == "three"


def test_dry_run_needs_no_read_and_changes_nothing(project):
    target = project / "a.txt"
    target.write_text("old\n")
    dry = fstools.ExecutionContext(working_dir=str(project), dry_run=True)
    r = fstools.write(str(target), "new\n", ctx=dry)
    assert r.success and "[Dry Run] Would update" in r.output
    assert "-old" in r.output and "+new" in r.output
    assert target.read_text() == "old\n"
    assert dry.read_record(str(target)) is None


# --- Behaviour ---------------------------------------------------------------------------------


def test_backup_keeps_every_previous_version(project, ctx):
    target = project / "config.json"
    target.write_text("v1")
    os.chmod(target, 0o640)
    agent_read(ctx, target)
    r1 = fstools.write(str(target), "v2", backup=True, ctx=ctx)
    r2 = fstools.write(str(target), "v3", backup=True, ctx=ctx)
    assert r1.metadata["backup_path"] == str(target) + ".bak"
    assert r2.metadata["backup_path"] == str(target) + ".bak.1"
    assert (project / "config.json.bak").read_text() == "v1"
    assert (project / "config.json.bak.1").read_text() == "v2"
    assert os.stat(r1.metadata["backup_path"]).st_mode & 0o777 == 0o640
    assert "previous version kept at" in r1.output
    assert target.read_text() == "v3"
    assert temp_files(project) == []


def test_backup_of_a_new_file_is_none(project, ctx):
    r = fstools.write(str(project / "n.txt"), "x", backup=True, ctx=ctx)
    assert r.success and r.metadata["backup_path"] is None
    assert "backup_path" not in fstools.write(str(project / "m.txt"), "x", ctx=ctx).metadata


def test_max_write_bytes(project):
    small = fstools.ExecutionContext(working_dir=str(project), max_write_bytes=10)
    r = fstools.write(str(project / "big.txt"), "x" * 11, ctx=small)
    assert r.error_code == "file_too_large" and "max_write_bytes" in r.error
    assert not (project / "big.txt").exists()
    assert fstools.write(str(project / "ok.txt"), "x" * 10, ctx=small).success


def test_identical_content_is_not_rewritten(project, ctx):
    target = project / "a.txt"
    target.write_text("same\n")
    agent_read(ctx, target)
    before = target.stat()
    r = fstools.write(str(target), "same\n", ctx=ctx)
    assert r.success and "Unchanged" in r.output and r.metadata["bytes_written"] == 0
    assert (target.stat().st_ino, target.stat().st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_overwrite_keeps_crlf_bom_and_encoding(project, ctx):
    crlf = project / "win.txt"
    crlf.write_bytes(codecs.BOM_UTF8 + b"one\r\ntwo\r\n")
    agent_read(ctx, crlf)
    r = fstools.write(str(crlf), "uno\ndos\ntres\n", ctx=ctx)
    assert r.success, r.error
    assert crlf.read_bytes() == codecs.BOM_UTF8 + b"uno\r\ndos\r\ntres\r\n"
    assert r.metadata["encoding"] == "utf-8-sig" and r.metadata["line_ending"] == "CRLF"
    assert r.metadata["bytes_written"] == len(crlf.read_bytes())

    legacy = project / "ru.txt"
    text = "Съешь же ещё этих мягких французских булок, да выпей чаю.\n" * 3
    legacy.write_bytes(text.encode("cp1251"))
    agent_read(ctx, legacy)
    assert fstools.write(str(legacy), text + "Готово.\n", ctx=ctx).success
    assert legacy.read_bytes() == (text + "Готово.\n").encode("cp1251")


def test_content_the_files_encoding_cannot_hold_is_refused(project, ctx):
    legacy = project / "ru.txt"
    original = ("Съешь же ещё этих мягких французских булок, да выпей чаю.\n" * 3).encode("cp1251")
    legacy.write_bytes(original)
    agent_read(ctx, legacy)
    r = fstools.write(str(legacy), "emoji 🎉\n", ctx=ctx)
    assert r.error_code == "encoding_error" and "cp1251" in r.error and "🎉" in r.error
    assert legacy.read_bytes() == original


def test_content_with_its_own_crs_is_written_as_given(project, ctx):
    target = project / "a.txt"
    target.write_bytes(b"a\r\nb\r\n")
    agent_read(ctx, target)
    assert fstools.write(str(target), "x\r\ny\n", ctx=ctx).success
    assert target.read_bytes() == b"x\r\ny\n"


def test_leading_bom_in_content_is_not_doubled(project, ctx):
    target = project / "a.txt"
    target.write_bytes(codecs.BOM_UTF8 + b"a\n")
    agent_read(ctx, target)
    assert fstools.write(str(target), "\ufeffb\n", ctx=ctx).success
    assert target.read_bytes() == codecs.BOM_UTF8 + b"b\n"


def test_binary_file_is_replaced_without_a_text_diff(project, ctx):
    # Read refuses binary files, so the agent cannot have read it: without a read Write refuses,
    # and a context whose ledger records the bytes (the state a read leaves) may replace it.
    target = project / "blob.bin"
    target.write_bytes(b"\x00\x01\x02binary")
    assert fstools.write(str(target), "text now\n", ctx=ctx).error_code == "not_read"
    remember(ctx, str(target), target.stat(), target.read_bytes())
    r = fstools.write(str(target), "text now\n", ctx=ctx)
    assert r.success, r.error
    assert "previous content not shown" in r.metadata["diff"]
    assert target.read_bytes() == b"text now\n"


def test_write_to_a_directory(project, ctx):
    (project / "d").mkdir()
    r = fstools.write(str(project / "d"), "x", ctx=ctx)
    assert r.error_code == "is_directory"


def test_write_below_a_file(project, ctx):
    (project / "f").write_text("x")
    r = fstools.write(str(project / "f" / "g.txt"), "x", ctx=ctx)
    assert r.error_code == "directory_not_found" and "Not a directory" in r.error


def test_write_outside_and_sensitive(project, ctx, tmp_path):
    assert fstools.write(str(tmp_path / "outside.txt"), "x", ctx=ctx).error_code == "path_outside_workspace"
    assert fstools.write(str(project / ".env"), "SECRET=1", ctx=ctx).error_code == "sensitive_path"
    assert not (tmp_path / "outside.txt").exists() and not (project / ".env").exists()


def test_read_only_context(project):
    ro = fstools.ExecutionContext(working_dir=str(project), read_only=True)
    r = fstools.write(str(project / "a.txt"), "x", ctx=ro)
    assert r.error_code == "permission_denied" and not (project / "a.txt").exists()


def test_human_in_the_loop_sees_the_diff(project):
    asked = []

    def confirm(request):
        asked.append(request)
        return request.details["created"]  # approve creations, reject overwrites

    ctx = fstools.ExecutionContext(
        working_dir=str(project),
        permissions=ask_rule("Write", confirm),
    )
    target = project / "a.txt"
    assert fstools.write(str(target), "hello\n", ctx=ctx).success
    agent_read(ctx, target)
    r = fstools.write(str(target), "bye\n", ctx=ctx)
    assert r.error_code == "user_rejected"
    assert target.read_text() == "hello\n"
    assert [a.tool for a in asked] == ["Write", "Write"]
    assert "+hello" in asked[0].diff and "-hello" in asked[1].diff and "+bye" in asked[1].diff


def test_deny_rule(project):
    ctx = fstools.ExecutionContext(
        working_dir=str(project),
        permissions=fstools.PermissionManager(rules=[fstools.PermissionRule(path="**/*.lock", action="deny")]),
    )
    r = fstools.write(str(project / "poetry.lock"), "x", ctx=ctx)
    assert r.error_code == "permission_denied" and not (project / "poetry.lock").exists()


def test_tool_layer_write(project, ctx):
    tool = fstools.create_registry().get("Write")
    r = tool.run(ctx, file_path=str(project / "t.txt"), content="hi", backup="false")
    assert r.success and (project / "t.txt").read_text() == "hi"
    assert tool.destructive and not tool.read_only
    assert tool.run(ctx, file_path=str(project / "t.txt")).error_code == "invalid_argument"


def test_own_large_write_is_remembered_with_its_content_digest(project, ctx):
    """The digest of a large write is computed alongside the fsync; a later touch must still not be a conflict."""
    target = project / "large.txt"
    body = "HEAD\n" + "row\n" * 600_000  # 2.4 MB
    assert fstools.write(str(target), body, ctx=ctx).success
    record = ctx.read_record(str(target))
    assert record is not None and record.digest is not None and record.size == len(body)
    st = target.stat()
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    assert fstools.edit(str(target), "HEAD", "TOP!", ctx=ctx).success
    assert target.read_text().startswith("TOP!\nrow\n")
    target.write_text(body.replace("row", "ROW", 1).replace("HEAD", "TOP!"))  # same size, other bytes
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns + 9_000_000_000))  # a distinct mtime on any kernel
    assert fstools.edit(str(target), "TOP!", "x", ctx=ctx).error_code == "concurrent_modification"


# --- Read-before-write: ctime, files Read refuses, trailing separators ----------------------------


def test_same_size_change_with_restored_mtime_is_a_conflict(project, ctx):
    """cp -p, touch -r, rsync -a and tar x put the old mtime back; ctime still moves."""
    target = project / "p.txt"
    target.write_text("AA\nB\n")
    agent_read(ctx, target)
    st = target.stat()
    target.write_text("AA\nC\n")
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert (target.stat().st_size, target.stat().st_mtime_ns) == (st.st_size, st.st_mtime_ns)
    r = fstools.edit(str(target), "AA", "Z", ctx=ctx)
    assert r.error_code == "concurrent_modification"
    assert target.read_text() == "AA\nC\n"


def test_touch_without_a_content_change_is_still_not_a_conflict(project, ctx):
    target = project / "p.txt"
    target.write_text("AA\nB\n")
    agent_read(ctx, target)
    st = target.stat()
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))  # moves ctime only
    r = fstools.edit(str(target), "AA", "Z", ctx=ctx)
    assert r.success, r.error
    assert target.read_text() == "Z\nB\n"


def test_binary_file_refused_by_read_can_be_overwritten(project, ctx):
    target = project / "data.bin"
    target.write_bytes(b"\x00\x01binary\x02")
    assert fstools.read(str(target), ctx=ctx).error_code == "binary_file"
    r = fstools.write(str(target), "text", ctx=ctx)
    assert r.success, r.error
    assert target.read_text() == "text"


def test_binary_file_changed_after_the_refused_read_is_a_conflict(project, ctx):
    target = project / "data.bin"
    target.write_bytes(b"\x00\x01binary\x02")
    assert fstools.read(str(target), ctx=ctx).error_code == "binary_file"
    target.write_bytes(b"\x00\x01BINARY\x02")
    r = fstools.write(str(target), "text", ctx=ctx)
    assert r.error_code == "concurrent_modification"
    assert target.read_bytes() == b"\x00\x01BINARY\x02"


def test_large_media_refused_by_read_can_be_overwritten(project, ctx):
    ctx.max_media_bytes = 8
    target = project / "scan.pdf"
    target.write_bytes(b"%PDF-1.4\n" + b"x" * 64)
    assert fstools.read(str(target), ctx=ctx).error_code == "file_too_large"
    assert fstools.write(str(target), "replaced", ctx=ctx).success
    assert target.read_text() == "replaced"


@pytest.mark.parametrize("tool", ["write", "edit", "multi_edit"])
def test_trailing_separator_is_invalid_path(project, ctx, tool):
    path = str(project / "newdir") + os.sep
    if tool == "write":
        r = fstools.write(path, "x", ctx=ctx)
    elif tool == "edit":
        r = fstools.edit(path, "", "x", ctx=ctx)
    else:
        r = fstools.multi_edit(path, [{"old_string": "", "new_string": "x"}], ctx=ctx)
    assert r.error_code == "invalid_path" and "ends with a path separator" in r.error
    assert not (project / "newdir").exists()


def test_trailing_separator_on_an_existing_file_is_invalid_path(project, ctx):
    target = project / "a.txt"
    target.write_text("a")
    agent_read(ctx, target)
    assert fstools.write(str(target) + "/", "b", ctx=ctx).error_code == "invalid_path"
    assert target.read_text() == "a"
