"""ReadMany: each file byte for byte as Read shows it, refusals in one line, the budget, read records."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from PIL import Image

import fstools
from fstools._read.many import read_many
from tests.helpers.samples import make_notebook, make_pdf
from tests.helpers.trees import write


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (32, 24), (200, 10, 10)).save(out, "PNG")
    return out.getvalue()


@pytest.fixture
def mixed(project: Path) -> dict[str, Path]:
    files = {
        "code": write(project / "src/app.py", "".join(f"def f{i}():\n    return {i}\n" for i in range(300))),
        "crlf": write(project / "src/win.txt", b"a\r\nb\r\n\xe9t\xe9\r\n"),
        "long": write(project / "src/long.txt", "x" * 5000 + "\nshort\n"),
        "empty": write(project / "src/empty.txt", ""),
        "image": write(project / "img/dot.png", _png()),
        "pdf": write(project / "doc/paper.pdf", make_pdf(["First page", "Second page"])),
        "notebook": write(project / "nb/analysis.ipynb", make_notebook()),
    }
    return files


def _expected(ctx: fstools.ExecutionContext, path: Path, limit: int = 2000) -> str:
    result = fstools.read(str(path), ctx=fstools.ExecutionContext(working_dir=ctx.working_dir), limit=limit)
    assert result.success, result.error
    return f"==> {path} <==\n{result.output}"


def test_each_file_is_exactly_what_read_shows(project, ctx, mixed):
    paths = [str(p) for p in mixed.values()]
    r = read_many(paths, ctx=ctx)
    assert r.success, r.error
    assert r.output == "\n\n".join(_expected(ctx, p) for p in mixed.values())
    assert r.metadata["files"] == paths and r.metadata["skipped"] == [] and r.metadata["not_shown"] == []
    assert r.metadata["truncated"] is False and "notice" not in r.metadata


def test_limit_applies_to_each_file_as_read_s_limit(project, ctx, mixed):
    r = read_many([str(mixed["code"]), str(mixed["crlf"])], ctx=ctx, limit=7)
    assert r.output == _expected(ctx, mixed["code"], 7) + "\n\n" + _expected(ctx, mixed["crlf"], 7)
    assert "[Showing lines 1-7 of 600." in r.output  # Read's own notice, per file


def test_relative_paths_and_duplicates(project, ctx, mixed):
    r = read_many(["src/app.py", str(mixed["code"]), "src/../src/app.py", "src/win.txt"], ctx=ctx)
    assert r.metadata["files"] == [str(mixed["code"]), str(mixed["crlf"])]
    assert r.output == _expected(ctx, mixed["code"]) + "\n\n" + _expected(ctx, mixed["crlf"])


def test_refused_files_get_one_line_each_and_are_not_read(project, ctx, tmp_path, mixed):
    write(project / "blob.bin", bytes(range(256)) * 4)
    write(project / ".env", "TOKEN=secret\n")
    write(tmp_path / "outside.txt", "outside\n")
    (project / "dir").mkdir()
    paths = ["blob.bin", ".env", "gone.py", str(tmp_path / "outside.txt"), "dir", "src/empty.txt"]
    r = read_many(paths, ctx=ctx)
    assert r.success
    lines = r.output.split("\n\n")
    assert lines[:5] == [
        f"==> {project}/blob.bin <== (binary file, not shown)",
        f"==> {project}/.env <== (sensitive file, not read)",
        f"==> {project}/gone.py <== (not found)",
        f"==> {tmp_path}/outside.txt <== (outside the allowed directories, not read)",
        f"==> {project}/dir <== (a directory: name its files, or a pattern such as dir/**/*.py)",
    ]
    assert lines[5] == _expected(ctx, mixed["empty"])
    codes = [s["error_code"] for s in r.metadata["skipped"]]
    assert codes == ["binary_file", "sensitive_path", "file_not_found", "path_outside_workspace", "is_directory"]
    assert "TOKEN" not in r.output and ctx.read_record(str(project / ".env")) is None


def test_the_budget_keeps_files_whole_and_names_the_rest(project, ctx):
    files = [write(project / f"f{i}.txt", "".join(f"row {i}.{j}\n" for j in range(100))) for i in range(10)]
    one = len(_expected(ctx, files[0]))
    max_chars = 3 * one + 2_000  # three files and the notice's room
    r = read_many([str(p) for p in files], ctx=ctx, max_chars=max_chars)
    assert len(r.output) <= max_chars
    shown = [str(p) for p in files[:3]]
    assert r.metadata["files"] == shown and r.metadata["not_shown"] == [str(p) for p in files[3:]]
    assert r.output.startswith("\n\n".join(_expected(ctx, p) for p in files[:3]) + "\n\n[7 file(s) not shown")
    assert r.metadata["truncated"] is True and r.output.endswith(r.metadata["notice"])
    for p in files[3:]:
        assert f'  Read file_path="{p}"' in r.metadata["notice"]
    # Only what was shown counts as read: the files read ahead and dropped were put back as unread.
    assert [ctx.read_record(str(p)) is not None for p in files] == [True] * 3 + [False] * 7


def test_a_file_left_out_keeps_the_read_record_it_had(project, ctx):
    big = write(project / "big.txt", "y" * 3000 + "\n")
    small = write(project / "small.txt", "s\n")
    fstools.read(str(big), ctx=ctx)
    before = ctx.read_record(str(big))
    r = read_many([str(small), str(big)], ctx=ctx, max_chars=2_000)
    assert r.metadata["not_shown"] == [str(big)] and ctx.read_record(str(big)) == before


def _the_call(notice: str) -> list[str]:
    """The paths of the ReadMany call a notice gives."""
    line = next(line for line in notice.splitlines() if line.startswith("  ReadMany paths="))
    return json.loads(line.removeprefix("  ReadMany paths=").rstrip("]") + "]")


def test_when_read_calls_do_not_fit_one_call_reads_every_file_left_out(project, ctx):
    early = [write(project / f"a{i}.txt", "a" * 50 + "\n") for i in range(3)]
    patterned = [write(project / f"src/pkg/m{i:02}.py", "m" * 300 + "\n") for i in range(40)]
    later = [write(project / f"docs/d{i}.md", "d" * 300 + "\n") for i in range(5)]
    paths = [str(p) for p in early] + ["src/**/*.py", "docs/*.md"]
    r = read_many(paths, ctx=ctx, max_chars=3_000)
    assert len(r.output) <= 3_000
    left = r.metadata["not_shown"]
    assert left and set(left) <= {str(p) for p in early + patterned + later}
    notice = r.metadata["notice"]
    assert "metadata" not in notice and "One call reads them all:" in notice
    call = _the_call(notice)
    assert call[-1] == "docs/*.md"  # a pattern none of whose files was shown is the pattern itself
    assert any(c.startswith("src/pkg/m") for c in call), notice  # files of the pattern cut in the middle, by name
    again = read_many(call, ctx=ctx, max_chars=1_000_000)
    assert again.metadata["files"] == left  # exactly the files left out, in order


def test_a_notice_too_small_for_the_call_says_where_the_rest_begins(project, ctx):
    files = [write(project / f"n{i:03}.txt", "z" * 600 + "\n") for i in range(200)]
    paths = [str(p) for p in files]
    r = read_many(paths, ctx=ctx, max_chars=2_000)
    assert len(r.output) <= 2_000 and len(r.metadata["not_shown"]) == 200
    notice = r.metadata["notice"]
    assert "metadata" not in notice
    call = _the_call(notice)
    assert call == [f"n{i:03}.txt" for i in range(len(call))] and len(call) > 20
    rest = len(paths) - len(call)
    assert f'and the {rest} entries of paths from "{paths[len(call)]}" on: {rest} file(s)' in notice


def test_every_shown_file_counts_as_read_for_edit(project, ctx, mixed):
    read_many(["src/app.py", "src/win.txt"], ctx=ctx)
    assert fstools.edit(str(mixed["code"]), "return 299", "return -1", ctx=ctx).success
    assert fstools.edit(str(mixed["crlf"]), "b", "B", ctx=ctx).success
    assert fstools.edit(str(mixed["long"]), "short", "long", ctx=ctx).error_code == "not_read"


def test_images_pdfs_and_notebooks_as_read_renders_them(project, ctx, mixed):
    r = read_many([str(mixed["image"]), str(mixed["pdf"]), str(mixed["notebook"])], ctx=ctx)
    assert f"==> {mixed['image']} <==\nImage {mixed['image']}: image/png, 32x24 px" in r.output
    assert "--- Page 2 ---\nSecond page" in r.output and "--- Cell " in r.output and " (markdown) ---" in r.output


def test_bad_arguments(project, ctx):
    assert read_many([], ctx=ctx).error_code == "invalid_argument"
    r = read_many(["a"] * 1001, ctx=ctx)
    assert r.error_code == "invalid_argument" and "at most 1000" in r.error
    assert read_many(["a.txt"], ctx=ctx, max_chars=10).error_code == "invalid_argument"


def test_a_permission_rule_that_refuses_a_file_refuses_the_call_and_reads_nothing(project, mixed):
    rules = fstools.PermissionManager([fstools.PermissionRule("Read", "**/win.txt", "deny")])  # Read's rules apply
    ctx = fstools.ExecutionContext(working_dir=str(project), permissions=rules)
    r = read_many(["src/empty.txt", "src/app.py", "src/win.txt"], ctx=ctx)
    assert r.error_code == "permission_denied" and "win.txt" in r.error
    assert ctx.read_record(str(mixed["empty"])) is None and ctx.read_record(str(mixed["code"])) is None


def test_images_travel_as_image_content_up_to_ten(project, ctx, mixed):
    r = read_many(["img/dot.png", "src/empty.txt"], ctx=ctx)
    assert [image.mime_type for image in r.images] == ["image/png"]
    blocks = r.to_content("anthropic")
    assert [b["type"] for b in blocks] == ["text", "image"] and blocks[1]["source"]["data"] == r.images[0].data
    pngs = [write(project / f"many/p{i:02}.png", _png()) for i in range(12)]
    r = read_many([str(p) for p in pngs], ctx=ctx)
    assert len(r.images) == 10 and r.metadata["not_shown"] == [str(p) for p in pngs[10:]]
    assert "or 10 images" in r.metadata["notice"]


def test_glob_patterns_expand_by_globs_walk_rules_in_path_order(project, ctx):
    made = [
        write(project / "src/b.py", "b = 1\n"),
        write(project / "src/a.py", "a = 1\n"),
        write(project / "src/pkg/c.py", "c = 1\n"),
        write(project / "src/notes.txt", "n\n"),
    ]
    write(project / "src/.hidden.py", "h = 1\n")
    write(project / "src/build/gen.py", "g = 1\n")
    write(project / ".gitignore", "src/build/\n")
    write(project / "node_modules/x/index.py", "x = 1\n")
    (project / ".git").mkdir()
    r = read_many(["src/**/*.py", "src/notes.txt", str(project / "src/*.py")], ctx=ctx)
    expected = [made[1], made[0], made[2], made[3]]  # path order; src/*.py adds nothing new
    assert r.metadata["files"] == [str(p) for p in expected]
    assert r.output == "\n\n".join(_expected(ctx, p) for p in expected)


def test_a_pattern_that_finds_nothing_is_one_line(project, ctx, mixed):
    r = read_many(["src/*.rs", "nowhere/*.py", "src/empty.txt"], ctx=ctx)
    assert r.output.split("\n\n")[:2] == [
        "==> src/*.rs <== (No files match src/*.rs)",
        f"==> nowhere/*.py <== (No files match nowhere/*.py: {project}/nowhere is not a directory)",
    ]
    assert r.metadata["files"] == [str(mixed["empty"])]


def test_a_pattern_never_reads_a_secret(project, ctx):
    write(project / "conf/app.ini", "a = 1\n")
    write(project / "conf/id_rsa", "PRIVATE KEY\n")
    r = read_many(["conf/*"], ctx=ctx)
    assert r.metadata["files"] == [str(project / "conf/app.ini")] and "PRIVATE" not in r.output


@pytest.mark.parametrize(
    "name",
    ["plain,comma.txt", "back\\slash.txt", "close]bracket.txt", "star*name.txt", ".hidden.txt", "out/ignored.txt"],
)
def test_the_call_for_the_files_left_out_reads_names_glob_would_not(project, ctx, name):
    """Files named one by one (a comma, a backslash, a glob character, a hidden or an ignored file) are read
    again by the call the notice gives: each is written so that it reads that very file."""
    write(project / ".gitignore", "out/\n")
    odd = write(project / name, "o" * 300 + "\n")
    files = [write(project / f"n{i:03}.txt", "z" * 300 + "\n") for i in range(30)]
    paths = [str(p) for p in files[:20]] + [str(odd)] + [str(p) for p in files[20:]]
    r = read_many(paths, ctx=ctx, max_chars=3_000)
    left = r.metadata["not_shown"]
    assert str(odd) in left
    call = _the_call(r.metadata["notice"])
    again = read_many(call, ctx=ctx, max_chars=1_000_000)
    assert again.metadata["files"] == left, (call, again.output[-500:])


def _named_tree(project: Path) -> None:
    for n in range(30):
        write(project / f"d{n % 3}" / f"file_{n}_{'a' * 30}.txt", f"{n}\n")


def test_many_patterns_share_one_walk(project, ctx, monkeypatch):
    from fstools._walk import rules

    _named_tree(project)
    walks = []
    real = rules.visible_files
    monkeypatch.setattr(rules, "visible_files", lambda *a, **k: walks.append(a[2]) or real(*a, **k))
    patterns = [f"**/file_{n}_*.txt" for n in range(30)]
    r = fstools.read_many(patterns, ctx=ctx)
    assert r.success and len(r.metadata["files"]) == 30
    assert walks == [str(project.resolve())]  # one walk for the thirty patterns
    alone = fstools.read_many(["**/file_1?_*.txt"], ctx=ctx)  # a pattern alone: its own narrowed walk
    assert len(alone.metadata["files"]) == 10


def test_a_pattern_with_too_many_wildcards_is_refused_before_any_walk(project, ctx, monkeypatch):
    from fstools._walk import rules

    _named_tree(project)
    real = rules.visible_files
    walks = []
    monkeypatch.setattr(rules, "visible_files", lambda *a, **k: walks.append(a[2]) or real(*a, **k))
    pattern = "*a" * 65
    r = fstools.read_many([pattern, "*a" * 60 + "*"], ctx=ctx)  # the second checked, then walked: fine
    assert r.success and r.metadata["skipped"], r.output
    assert "wildcards" in r.output and len(walks) == 1
    g = fstools.glob(pattern, ctx=ctx)
    assert g.error_code == "invalid_argument" and "wildcards" in g.error


def test_a_run_of_stars_means_one_star(project, ctx):
    from fstools._globs.globmatch import compile_glob

    _named_tree(project)
    assert compile_glob("*" * 200 + "a.txt").safe  # one regex, no automaton of 200 states
    many = fstools.read_many(["d1/" + "*" * 200 + "a.txt"], ctx=ctx)
    assert many.metadata["files"] == fstools.read_many(["d1/*a.txt"], ctx=ctx).metadata["files"]
    assert len(many.metadata["files"]) == 10


def test_pattern_expansion_honours_the_timeout(project):
    _named_tree(project)
    ctx = fstools.ExecutionContext(working_dir=str(project), timeout=1e-9)
    r = fstools.read_many(["d0/*.txt", "d1/*.txt"], ctx=ctx)
    assert "ran out of its time" in r.output, r.output


def test_read_inline_or_on_the_pool_the_answer_is_the_same(project, ctx, mixed, monkeypatch):
    """Differential: the files read in the calling thread (warm, nothing sleeps) and all on the pool (as
    from the first read that waits for the disk) give the same answer, byte for byte, and read records."""
    from fstools._read import ahead

    paths = [str(p) for name, p in mixed.items() if name != "code"] + [str(project / "missing.py"), str(mixed["code"])]
    inline = read_many(paths, ctx=ctx, max_chars=10_000)
    inline_records = {p: ctx.read_record(p) for p in paths}
    monkeypatch.setattr(ahead, "_THREAD_USAGE", None)  # as where a thread's sleeps cannot be told: the pool
    pooled_ctx = fstools.ExecutionContext(working_dir=ctx.working_dir)
    pooled = read_many(paths, ctx=pooled_ctx, max_chars=10_000)
    assert inline.output == pooled.output and inline.metadata == pooled.metadata
    assert inline.metadata["not_shown"]  # the budget cut the list: what was read ahead was handed back
    assert {p: pooled_ctx.read_record(p) is None for p in paths} == {p: r is None for p, r in inline_records.items()}
