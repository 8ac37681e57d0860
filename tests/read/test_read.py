"""Read: every acceptance scenario of "Feature: Read Tool", then errors, security and the tool layer."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import fstools
from fstools._content.fingerprints import unchanged_since
from fstools._core import sandbox
from fstools._core.paths import SafePath
from tests.helpers.samples import make_notebook, make_pdf

NUMBERED = re.compile(r"^ *(\d+)\t(.*)$")
ROOT = Path(__file__).resolve().parents[2]


def numbered(output: str) -> list[tuple[int, str]]:
    """The numbered lines of a Read output (what the scenarios count), ignoring notices."""
    return [(int(m[1]), m[2]) for m in map(NUMBERED.match, output.split("\n")) if m]


# --- Feature: Read Tool --------------------------------------------------------------


def test_scenario_read_entire_text_file(project, ctx):
    f = project / "test.txt"
    f.write_text("Line 1\nLine 2\nLine 3")
    r = fstools.read(str(f), ctx=ctx)
    assert r.success
    assert r.output == "     1\tLine 1\n     2\tLine 2\n     3\tLine 3"
    assert r.metadata["lines_read"] == 3
    assert r.metadata["total_lines"] == 3 and r.metadata["truncated"] is False


def test_scenario_read_file_with_offset_and_limit(project, ctx):
    f = project / "large.txt"
    f.write_text("".join(f"line {i}\n" for i in range(1, 1001)))
    r = fstools.FileTool(fstools.read.spec).run(ctx, file_path=str(f), offset=100, limit=50)
    assert r.success
    lines = numbered(r.output)
    assert lines[0] == (100, "line 100") and len(lines) == 50 and lines[-1] == (149, "line 149")
    assert {k: r.metadata[k] for k in ("lines_read", "offset", "limit", "truncated")} == {
        "lines_read": 50,
        "offset": 100,
        "limit": 50,
        "truncated": True,
    }
    assert r.metadata["next_offset"] == 150
    assert r.output.split("\n")[-1] == "[Showing lines 100-149 of 1000. Use offset=150 to read more.]"


def test_scenario_read_non_existent_file(project, ctx):
    missing = project / "missing.txt"
    r = fstools.read(str(missing), ctx=ctx)
    assert not r.success
    assert r.error == f"File not found: {missing}" and r.error_code == "file_not_found"


def test_scenario_read_directory_instead_of_file(project, ctx):
    (project / "mydir").mkdir()
    r = fstools.read(str(project / "mydir"), ctx=ctx)
    assert not r.success and "Cannot read directory" in r.error and r.error_code == "is_directory"
    assert r.error == f"Cannot read directory: {project / 'mydir'}"


def test_scenario_read_file_with_relative_path(project, ctx):
    (project / "test.txt").write_text("x")
    r = fstools.read("test.txt", ctx=ctx)
    assert not r.success and "must be an absolute path" in r.error and r.error_code == "invalid_path"


def test_scenario_read_file_with_long_lines(project, ctx):
    f = project / "long.txt"
    f.write_text("short\n" + "x" * 2999 + "Y\nafter\n")
    r = fstools.read(str(f), ctx=ctx)
    assert r.success
    lines = dict(numbered(r.output))
    assert lines[2] == "x" * 2000 + "..." and lines[1] == "short" and lines[3] == "after"
    assert all(len(text) <= 2003 for text in lines.values())
    assert r.metadata["lines_cut"] == 1 and r.metadata["truncated"] is False


def test_scenario_read_binary_file(project, ctx):
    f = project / "binary.exe"
    f.write_bytes(b"MZ\x90\x00\x03\x00\x00\x00" + bytes(range(256)))
    r = fstools.read(str(f), ctx=ctx)
    assert not r.success and "binary file" in r.error
    assert r.error == f"Cannot read binary file: {f}" and r.error_code == "binary_file"


def test_scenario_read_image_file(project, ctx):
    from PIL import Image

    f = project / "photo.png"
    Image.new("RGB", (32, 24), (200, 30, 30)).save(f)
    r = fstools.read(str(f), ctx=ctx)
    assert r.success
    assert r.metadata["is_image"] is True and r.metadata["mime_type"] == "image/png"
    assert r.metadata["base64_data"]


def test_scenario_read_pdf_file(project, ctx):
    f = project / "document.pdf"
    f.write_bytes(make_pdf(["First page", "Second page", "Third page"]))
    r = fstools.read(str(f), ctx=ctx)
    assert r.success
    for n in (1, 2, 3):
        assert f"--- Page {n} ---" in r.output
    assert r.metadata["is_pdf"] is True and r.metadata["page_count"] == 3


def test_scenario_read_jupyter_notebook(project, ctx):
    f = project / "analysis.ipynb"
    f.write_text(make_notebook())
    r = fstools.read(str(f), ctx=ctx)
    assert r.success
    first = json.loads(f.read_text())["cells"][0]["id"]
    assert f"--- Cell {first} (markdown) ---" in r.output
    assert "(code) ---" in r.output and "(markdown) ---" in r.output
    assert "Output:\nhello from the notebook" in r.output
    assert r.metadata["is_notebook"] is True and r.metadata["cell_count"] == 5


def _open_fails(monkeypatch, target: Path, error: OSError) -> None:
    """Fault injection: opening `target` fails with `error` (root cannot make chmod fail, nor stage a race)."""
    real_open = sandbox.open_beneath

    def failing_open(root, path, flags, *args, **kwargs):
        if os.fspath(path) == str(target) and not flags & os.O_PATH:
            raise error
        return real_open(root, path, flags, *args, **kwargs)

    monkeypatch.setattr(sandbox, "open_beneath", failing_open)


def test_scenario_read_file_with_permission_denied(project, ctx, monkeypatch):
    shadow = project / "shadow"
    shadow.write_text("root:*:19000:0:99999:7:::\n")
    _open_fails(monkeypatch, shadow, PermissionError(errno.EACCES, "Permission denied", str(shadow)))
    r = fstools.read(str(shadow), ctx=ctx)
    assert not r.success
    assert r.error == f"Permission denied: {shadow}" and r.error_code == "permission_denied"


def test_scenario_read_file_with_encoding_issues(project, ctx):
    f = project / "mixed.txt"
    f.write_bytes("naïve café ☕ — ünïcödé\n".encode() * 5 + b"legacy caf\xe9 line\n" + "tail ☕\n".encode())
    r = fstools.read(str(f), ctx=ctx)
    assert r.success
    lines = dict(numbered(r.output))
    assert lines[1] == "naïve café ☕ — ünïcödé" and lines[7] == "tail ☕"
    assert lines[6] == "legacy caf\ufffd line"
    assert r.metadata["encoding"] == "utf-8"


# --- the text view in detail ------------------------------------------------------------


def test_empty_file(project, ctx):
    f = project / "empty.txt"
    f.write_bytes(b"")
    r = fstools.read(str(f), ctx=ctx)
    assert r.success and r.output == ""
    assert r.metadata["total_lines"] == 0 and r.metadata["lines_read"] == 0 and r.metadata["truncated"] is False
    assert r.metadata["line_ending"] == "none"
    past = fstools.read(str(f), offset=2, ctx=ctx)
    assert past.error_code == "invalid_argument" and "0 line(s)" in past.error


def test_offset_past_the_end_gives_the_line_count(project, ctx):
    f = project / "three.txt"
    f.write_text("a\nb\nc\n")
    r = fstools.read(str(f), offset=4, ctx=ctx)
    assert not r.success and r.error_code == "invalid_argument"
    assert r.error == f"offset 4 is past the end of {f}: it has 3 line(s)"
    assert r.metadata["total_lines"] == 3
    last = fstools.read(str(f), offset=3, ctx=ctx)
    assert numbered(last.output) == [(3, "c")] and last.metadata["truncated"] is False


def test_lines_split_on_newline_only(project, ctx):
    f = project / "odd.txt"
    f.write_bytes("a\x0cb\u0085c\u2028d\r\ne\rf\n\n".encode())
    r = fstools.read(str(f), ctx=ctx)
    assert numbered(r.output) == [(1, "a\x0cb\u0085c\u2028d"), (2, "e\rf"), (3, "")]
    assert r.metadata["total_lines"] == 3 and r.metadata["line_ending"] == "mixed"


@pytest.mark.parametrize(
    "data,style",
    [(b"a\nb\n", "LF"), (b"a\r\nb\r\n", "CRLF"), (b"a\rb\r", "CR"), (b"a\r\nb\n", "mixed"), (b"abc", "none")],
)
def test_line_ending_reported(project, ctx, data, style):
    f = project / "le.txt"
    f.write_bytes(data)
    assert fstools.read(str(f), ctx=ctx).metadata["line_ending"] == style


def test_crlf_lines_shown_without_cr(project, ctx):
    f = project / "win.txt"
    f.write_bytes(b"one\r\ntwo\r\nthree")
    r = fstools.read(str(f), ctx=ctx)
    assert r.output == "     1\tone\n     2\ttwo\n     3\tthree"
    assert r.metadata["line_ending"] == "CRLF"


def test_notice_is_not_a_numbered_line(project, ctx):
    f = project / "many.txt"
    f.write_text("x\n" * 30)
    r = fstools.read(str(f), limit=10, ctx=ctx)
    assert len(numbered(r.output)) == 10 == len(r.output.split("\n")) - 1
    assert fstools.read(str(f), offset=21, limit=10, ctx=ctx).metadata["truncated"] is False


def test_default_and_maximum_limit(project, ctx):
    f = project / "big.txt"
    f.write_text("".join(f"{i % 10}\n" for i in range(12000)))  # 10,000 short lines fit in one page
    r = fstools.read(str(f), ctx=ctx)
    assert r.metadata["lines_read"] == 2000 and r.metadata["limit"] == 2000 and r.metadata["truncated"]
    r = fstools.read(str(f), limit=10000, offset=2001, ctx=ctx)
    assert r.metadata["lines_read"] == 10000 and numbered(r.output)[-1] == (12000, "9")
    assert r.metadata["truncated"] is False
    over = fstools.read(str(f), limit=10001, ctx=ctx)
    assert over.error_code == "invalid_argument" and "limit" in over.error
    assert fstools.read(str(f), offset=0, ctx=ctx).error_code == "invalid_argument"


# --- read-before-write state ---------------------------------------------------------------


def test_successful_read_records_size_mtime_inode_and_hash(project, ctx):
    f = project / "rec.txt"
    f.write_bytes(b"alpha\nbeta\n")
    assert fstools.read(str(f), limit=1, ctx=ctx).success
    record = ctx.read_record(str(f))
    st = os.stat(f)
    assert (record.size, record.mtime_ns, record.ino) == (st.st_size, st.st_mtime_ns, st.st_ino)
    assert record.digest == hashlib.sha256(b"alpha\nbeta\n").digest()
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    assert unchanged_since(record, os.stat(f), f.read_bytes())  # a bare touch is not a change
    other = fstools.ExecutionContext(working_dir=str(project))
    assert other.read_record(str(f)) is None


def test_record_is_under_the_canonical_path(project, ctx):
    (project / "real.txt").write_text("x\n")
    (project / "alias.txt").symlink_to(project / "real.txt")
    r = fstools.read(str(project / "alias.txt"), ctx=ctx)
    assert r.success and r.metadata["file_path"] == str(project / "alias.txt")
    assert ctx.read_record(str(project / "real.txt")) is not None


def test_failed_reads_record_nothing(project, ctx):
    f = project / "short.txt"
    f.write_text("one line\n")
    assert fstools.read(str(f), offset=5, ctx=ctx).error_code == "invalid_argument"
    assert ctx.read_record(str(f)) is None


@pytest.mark.parametrize(
    ("name", "data", "code"),
    [
        ("bin.dat", b"\x00\x01\x02", "binary_file"),
        ("broken.pdf", b"%PDF-1.4\nnot really a pdf\n", "encoding_error"),
        ("broken.png", b"\x89PNG\r\n\x1a\n" + b"garbage" * 10, "encoding_error"),
    ],
)
def test_reads_refused_for_the_files_kind_are_recorded(project, ctx, name, data, code):
    f = project / name
    f.write_bytes(data)
    r = fstools.read(str(f), ctx=ctx)
    assert not r.success and r.error_code == code
    record = ctx.read_record(str(f))
    assert record is not None and record.digest == hashlib.sha256(data).digest()


def test_media_over_the_size_limit_is_recorded(project, ctx):
    ctx.max_media_bytes = 16
    f = project / "big.pdf"
    data = make_pdf(["one"])
    f.write_bytes(data)
    assert fstools.read(str(f), ctx=ctx).error_code == "file_too_large"
    assert ctx.read_record(str(f)).digest == hashlib.sha256(data).digest()


def test_media_reads_are_recorded(project, ctx):
    f = project / "d.pdf"
    f.write_bytes(make_pdf(["one"]))
    assert fstools.read(str(f), ctx=ctx).success
    assert ctx.read_record(str(f)).digest == hashlib.sha256(f.read_bytes()).digest()


# --- security and odd files ----------------------------------------------------------------


def test_path_traversal_is_refused(project, ctx):
    r = fstools.read(str(project) + "/../../../etc/passwd", ctx=ctx)
    assert r.error_code == "path_outside_workspace"


def test_symlink_out_of_the_workspace_is_refused(project, ctx):
    (project / "link").symlink_to("/etc/passwd")
    r = fstools.read(str(project / "link"), ctx=ctx)
    assert not r.success and r.error_code == "path_outside_workspace"


def test_secrets_are_refused(project, ctx):
    (project / ".env").write_text("TOKEN=1\n")
    assert fstools.read(str(project / ".env"), ctx=ctx).error_code == "sensitive_path"


def test_fifo_is_refused_without_hanging(project, ctx):
    os.mkfifo(project / "pipe")
    assert fstools.read(str(project / "pipe"), ctx=ctx).error_code == "invalid_path"


def test_permission_rules_apply(project):
    f = project / "secret.txt"
    f.write_text("x\n")
    rules = fstools.PermissionManager(rules=[fstools.PermissionRule(tool="Read", path="**/secret.txt", action="deny")])
    ctx = fstools.ExecutionContext(working_dir=str(project), permissions=rules)
    r = fstools.read(str(f), ctx=ctx)
    assert r.error_code == "permission_denied" and ctx.read_record(str(f)) is None


def test_read_works_in_a_read_only_context(project):
    f = project / "a.txt"
    f.write_text("x\n")
    assert fstools.read(str(f), ctx=fstools.ExecutionContext(working_dir=str(project), read_only=True)).success


def _path_check_saw_a_file(monkeypatch, project: Path) -> None:
    """Fault injection for a race we cannot stage: the path check saw a regular file, the open finds something else."""
    regular = project / "regular.txt"
    regular.write_text("x")

    def saw_a_file(ctx, raw):
        return SafePath(raw, raw, os.stat(regular), ctx.roots[0])

    monkeypatch.setattr(fstools._read.read, "resolve_path", saw_a_file)


def test_file_swapped_for_a_directory_after_the_check(project, ctx, monkeypatch):
    d = project / "d"
    d.mkdir()
    _path_check_saw_a_file(monkeypatch, project)
    r = fstools.read(str(d), ctx=ctx)
    assert r.error_code == "is_directory" and r.error == f"Cannot read directory: {d}"


def test_file_swapped_for_a_fifo_after_the_check_does_not_hang(project, ctx, monkeypatch):
    os.mkfifo(project / "pipe")
    _path_check_saw_a_file(monkeypatch, project)
    r = fstools.read(str(project / "pipe"), ctx=ctx)
    assert r.error_code == "invalid_path" and "Not a regular file" in r.error


def test_file_deleted_after_the_check(project, ctx, monkeypatch):
    f = project / "gone.txt"
    f.write_text("x")
    _open_fails(monkeypatch, f, FileNotFoundError(errno.ENOENT, "No such file", str(f)))
    assert fstools.read(str(f), ctx=ctx).error == f"File not found: {f}"


# --- tool layer ------------------------------------------------------------------------------


def test_registry_has_read_with_its_schema(project, ctx):
    registry = fstools.create_registry()
    tool = registry.get("Read")
    assert tool.spec is fstools.read.spec and tool.read_only and tool.category == fstools.ToolCategory.FILE
    params = tool.schema("openai")["function"]["parameters"]
    assert params["required"] == ["file_path"]
    assert params["properties"]["limit"] == {
        "type": "integer",
        "description": "Maximum number of lines to read",
        "minimum": 1,
        "maximum": 10000,
        "default": 2000,
    }
    # offset may be negative (lines from the end); 0 is refused by the tool itself
    assert "minimum" not in params["properties"]["offset"] and params["properties"]["pages"]["type"] == "string"


def test_tool_accepts_string_encoded_integers(project, ctx):
    f = project / "n.txt"
    f.write_text("a\nb\nc\n")
    r = fstools.create_registry().run("Read", ctx, file_path=str(f), offset="2", limit="1")
    assert numbered(r.output) == [(2, "b")]
    assert fstools.create_registry().run("Read", ctx, file_path=str(f), bogus=1).error_code == "invalid_argument"


def test_write_read_roundtrip_text_is_exact(project, ctx):
    content = "def f():\n\treturn 'é'  \n\n# end"
    f = project / "rt.py"
    f.write_text(content, encoding="utf-8")
    r = fstools.read(str(f), ctx=ctx)
    assert "\n".join(text for _, text in numbered(r.output)) == content


def test_pages_is_for_pdfs_only(project, ctx):
    f = project / "t.txt"
    f.write_text("x\n")
    r = fstools.read(str(f), pages="1", ctx=ctx)
    assert r.error_code == "invalid_argument" and "PDF" in r.error


def test_default_context(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.txt").write_text("hi\n")
    assert fstools.read(str(tmp_path / "a.txt")).output == "     1\thi"


def test_result_is_json_serialisable(project, ctx):
    f = project / "t.txt"
    f.write_text("x\n")
    result = fstools.read(str(f), ctx=ctx).to_dict()
    assert json.loads(json.dumps(result)) == result


def test_relative_path_when_the_context_allows_it(project):
    (project / "rel.txt").write_text("ok\n")
    ctx = fstools.ExecutionContext(working_dir=str(project), allow_relative_paths=True)
    r = fstools.read("rel.txt", ctx=ctx)
    assert r.success and r.metadata["file_path"] == str(project / "rel.txt")
    assert Path(r.metadata["file_path"]).is_absolute()


def test_import_stays_light():
    """PIL, pypdf, pypdfium2, nbformat and charset_normalizer load on the first file that needs them, not on import."""
    code = (
        "import sys, fstools; heavy = ('PIL', 'pypdf', 'nbformat', 'charset_normalizer', "
        "'fstools._read.image', 'fstools._read.pdf', 'fstools._read.notebook', 'pypdfium2', 'fstools._read.pdfpages'); print([m for m in heavy if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"
