"""Grep behaviour beyond the acceptance scenarios: order, pages, formats, filters, secrets, errors, skipped files."""

from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path

import pytest

import fstools
from fstools._grep import runs as _grep_search
from fstools._grep.results import MAX_LINE_CHARS
from tests.helpers.trees import run_tool, write


def lines_of(result) -> list[tuple[str, int, bool]]:
    return [(m["path"], m["line"], m["is_context"]) for m in result.metadata["matches"]]


# Order and pagination ------------------------------------------------------------


def test_order_is_newest_file_first_then_path(project, ctx):
    write(project / "old.txt", "hit\n", age=100)
    write(project / "new.txt", "hit\n", age=1)
    write(project / "b_same.txt", "hit\n", age=50)
    write(project / "a_same.txt", "hit\n", age=50)
    r = fstools.grep("hit", ctx=ctx)
    assert r.output.splitlines() == [str(project / n) for n in ("new.txt", "a_same.txt", "b_same.txt", "old.txt")]


@pytest.mark.parametrize("mode", ["files_with_matches", "count", "content"])
def test_pages_are_disjoint_and_cover_everything(project, ctx, mode):
    for i in range(12):
        write(project / f"d{i % 3}/f{i:02}.txt", "".join(f"hit {j}\nmiss\n" for j in range(i % 4 + 1)), age=i % 5)
    full = fstools.grep("hit", ctx=ctx, output_mode=mode, head_limit=0, **({"context": 1} if mode == "content" else {}))
    assert full.success and not full.metadata["truncated"]
    key = "matches" if mode == "content" else "files"

    def items(r):
        if mode == "content":
            return [(m["path"], m["line"]) for m in r.metadata[key] if not m["is_context"]]
        return [(f["path"], f["count"]) for f in r.metadata[key]]

    everything = items(full)
    assert len(everything) == (full.metadata["total_matches"] if mode == "content" else full.metadata["total_files"])
    for size in (1, 4, 7):
        pages, offset = [], 0
        while True:
            r = fstools.grep(
                "hit",
                ctx=ctx,
                output_mode=mode,
                head_limit=size,
                offset=offset,
                **({"context": 1} if mode == "content" else {}),
            )
            assert r.metadata["total_matches"] == full.metadata["total_matches"]
            pages.append(items(r))
            if not r.metadata["truncated"]:
                break
            offset = r.metadata["next_offset"]
        flat = [x for page in pages for x in page]
        assert flat == everything  # disjoint, complete, same order
        assert all(len(p) == size for p in pages[:-1])


def test_same_query_twice_gives_identical_pages(project, ctx):
    for i in range(30):
        write(project / f"f{i:02}.txt", "x\n" * (i % 3 + 1), age=i % 4)
    first = [fstools.grep("x", ctx=ctx, output_mode="content", head_limit=7, offset=o).output for o in (0, 7, 14)]
    again = [fstools.grep("x", ctx=ctx, output_mode="content", head_limit=7, offset=o).output for o in (0, 7, 14)]
    assert first == again


def test_context_travels_with_its_match_across_a_page_boundary(project, ctx):
    f = write(project / "a.txt", "m1\nm2\nc3\nm4\nc5\n")
    page2 = fstools.grep("^m", ctx=ctx, output_mode="content", head_limit=1, offset=1, context=1)
    # m2 is the page's match; m1 (a match of page 1) is shown as its context, not again as a match.
    assert page2.output.splitlines() == [
        f"{f}:1  m1",
        f"{f}:2> m2",
        f"{f}:3  c3",
        "(Showing matching lines 2-2 of 3: call again with offset=2 for more.)",
    ]
    assert page2.metadata["returned_matches"] == 1
    page3 = fstools.grep("^m", ctx=ctx, output_mode="content", head_limit=1, offset=2, before_context=1)
    assert page3.output.splitlines() == [f"{f}:3  c3", f"{f}:4> m4"]


def test_offset_past_the_end(project, ctx):
    write(project / "a.txt", "x\n")
    r = fstools.grep("x", ctx=ctx, offset=5)
    assert r.success and r.metadata["returned_matches"] == 0 and r.metadata["total_files"] == 1
    assert "offset 5 is past the last of 1" in r.output


def test_head_limit_zero_means_everything(project, ctx):
    for i in range(150):
        write(project / f"f{i:03}.txt", "x\n")
    assert fstools.grep("x", ctx=ctx).metadata["returned_matches"] == 100
    r = fstools.grep("x", ctx=ctx, head_limit=0)
    assert r.metadata["returned_matches"] == 150 and not r.metadata["truncated"]
    c = fstools.grep("x", ctx=ctx, head_limit=0, offset=140, output_mode="content")
    assert c.metadata["returned_matches"] == 10


# Formats ---------------------------------------------------------------------------


def test_content_format_without_line_numbers_and_separators(project, ctx):
    f = write(project / "a.txt", "hit\nctx\nfar\nfar\nfar\nctx\nhit\n")
    r = run_tool(ctx, pattern="hit", output_mode="content", **{"-n": "false", "-A": 1})
    assert r.output.splitlines() == [f"{f}> hit", f"{f}  ctx", "--", f"{f}> hit"]
    plain = fstools.grep("hit", ctx=ctx, output_mode="content")
    assert "--" not in plain.output.splitlines()


def test_separator_between_files_with_context(project, ctx):
    a = write(project / "a.txt", "hit\n", age=1)
    b = write(project / "b.txt", "hit\n", age=2)
    r = fstools.grep("hit", ctx=ctx, output_mode="content", context=1)
    assert r.output.splitlines() == [f"{a}:1> hit", "--", f"{b}:1> hit"]


def test_structured_matches_carry_submatch_spans(project, ctx):
    write(project / "a.txt", "café foo bar foo\n")
    r = fstools.grep("foo", ctx=ctx, output_mode="content")
    (m,) = r.metadata["matches"]
    assert m["submatches"] == [[5, 8], [13, 16]]  # characters, not bytes
    assert [m["text"][s:e] for s, e in m["submatches"]] == ["foo", "foo"]


def test_crlf_and_non_utf8_lines(project, ctx):
    write(project / "w.txt", b"first\r\nhit crlf\r\n")
    write(project / "l.txt", b"caf\xe9 hit\n")
    r = fstools.grep("hit", ctx=ctx, output_mode="content")
    texts = {Path(m["path"]).name: m["text"] for m in r.metadata["matches"]}
    assert texts == {"w.txt": "hit crlf", "l.txt": "caf\ufffd hit"}


def test_non_utf8_file_name(project, ctx):
    name = os.fsencode(str(project)) + b"/caf\xe9.txt"
    with open(name, "wb") as fh:
        fh.write(b"hit\n")
    expected = os.fsdecode(name)
    for mode in ("files_with_matches", "content"):
        r = fstools.grep("hit", ctx=ctx, output_mode=mode)
        assert r.success and r.metadata["total_files"] == 1
        assert (r.metadata.get("files") or r.metadata.get("matches"))[0]["path"] == expected


def test_long_lines_are_cut_with_a_marker_around_the_match(project, ctx):
    write(project / "min.js", "a" * 5000 + "NEEDLE" + "b" * 5000 + "\n")
    r = fstools.grep("NEEDLE", ctx=ctx, output_mode="content")
    (m,) = r.metadata["matches"]
    assert len(m["text"]) < MAX_LINE_CHARS + 100
    assert m["text"].startswith("[... ") and m["text"].endswith("more characters cut]")
    ((s, e),) = m["submatches"]
    assert m["text"][s:e] == "NEEDLE"
    short = write(project / "short.txt", "x" * 3000 + "\n")
    r = fstools.grep("^x", path=str(short), ctx=ctx, output_mode="content")
    assert r.metadata["matches"][0]["text"].endswith("[... 1000 more characters cut]")


# Parameters ------------------------------------------------------------------------


def test_fixed_strings_and_dash_pattern(project, ctx):
    write(project / "a.txt", "a.b\naxb\n-v flag\n")
    assert fstools.grep("a.b", ctx=ctx).metadata["total_matches"] == 2
    assert fstools.grep("a.b", fixed_strings=True, ctx=ctx).metadata["total_matches"] == 1
    assert fstools.grep("-v", ctx=ctx, output_mode="content").metadata["matches"][0]["line"] == 3
    assert fstools.grep("(", fixed_strings=True, ctx=ctx).metadata["total_matches"] == 0


def test_context_C_is_overridden_by_A_and_B(project, ctx):
    write(project / "a.txt", "1\n2\n3\nhit\n5\n6\n7\n")
    r = fstools.grep("hit", ctx=ctx, output_mode="content", context=2, after_context=0)
    assert [m["line"] for m in r.metadata["matches"]] == [2, 3, 4]


def test_several_types(project, ctx):
    for name in ("a.py", "b.js", "c.go", "d.md"):
        write(project / name, "word\n")
    r = fstools.grep("word", type="py, go", ctx=ctx)
    assert sorted(Path(p).name for p in r.output.splitlines()) == ["a.py", "c.go"]


@pytest.mark.parametrize("type_name", ["py", "js", "ts", "rust", "go", "java", "c", "cpp", "md", "json", "yaml"])
def test_seed_type_names_work(project, ctx, type_name):
    r = fstools.grep("x", type=type_name, ctx=ctx)
    assert r.success, r.error


def test_hidden_and_gitignore(project, ctx):
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    write(project / ".gitignore", "build/\n*.log\n")
    write(project / "src.txt", "needle\n")
    write(project / "build/out.txt", "needle\n")
    write(project / "x.log", "needle\n")
    write(project / ".hidden/h.txt", "needle\n")
    assert fstools.grep("needle", ctx=ctx).output == str(project / "src.txt")
    assert len(fstools.grep("needle", respect_gitignore=False, ctx=ctx).output.splitlines()) == 3
    assert len(fstools.grep("needle", hidden=True, ctx=ctx).output.splitlines()) == 2
    everything = fstools.grep("needle", hidden=True, respect_gitignore=False, ctx=ctx)
    assert everything.metadata["total_files"] == 4


def test_default_excludes_even_with_hidden_and_no_ignore(project, ctx):
    write(project / "app.py", "needle\n")
    for d in (".git", "node_modules/pkg", "__pycache__", ".venv/lib", "x.egg-info"):
        write(project / d / "f.txt", "needle\n")
    r = fstools.grep("needle", hidden=True, respect_gitignore=False, ctx=ctx)
    assert r.output == str(project / "app.py")


def test_sensitive_files_never_appear(project, ctx):
    secrets = [
        ".env",
        ".env.local",
        "certs/server.pem",
        "id_rsa",
        ".ssh/config",
        ".aws/credentials",
        "deep/er/.aws/config",
        "k.key",
        "terraform.tfstate",
        "credentials.json",
    ]
    for name in secrets:
        write(project / name, "needle\n")
    write(project / ".env.example", "needle\n")
    write(project / "ok.txt", "needle\n")
    for mode in ("files_with_matches", "count", "content"):
        for limit in (100, 0):
            r = fstools.grep(
                "needle", hidden=True, respect_gitignore=False, output_mode=mode, head_limit=limit, ctx=ctx
            )
            assert sorted(Path(p.split(":")[0]).name for p in r.output.splitlines()) == [".env.example", "ok.txt"]
            assert r.metadata["total_files"] == 2
    # The probe that explains an empty result must not reveal secrets either.
    r = fstools.grep("needle", glob="*.{env,local,key,json,pem}", hidden=True, ctx=ctx)
    assert r.output == "No matches found" and r.metadata["skipped"]["ignored"] == 0
    # Searching inside a secrets folder: its files are still secrets.
    aws = fstools.grep("needle", path=str(project / ".aws"), hidden=True, ctx=ctx)
    assert aws.success and aws.metadata["total_files"] == 0
    env = fstools.grep("needle", path=str(project / ".env"), ctx=ctx)
    assert env.error_code == "sensitive_path"


def test_custom_sensitive_patterns(project):
    ctx = fstools.ExecutionContext(
        working_dir=str(project), sensitive_patterns=["*.secret", "/tmp/nope", "!keep.secret"]
    )
    for name in ("a.secret", "keep.secret", "plain.txt", "sub/b.secret"):
        write(project / name, "needle\n")
    r = fstools.grep("needle", ctx=ctx)
    assert sorted(Path(p).name for p in r.output.splitlines()) == ["keep.secret", "plain.txt"]
    open_ctx = fstools.ExecutionContext(working_dir=str(project), sensitive_patterns=[])
    assert fstools.grep("needle", ctx=open_ctx).metadata["total_files"] == 4


# Sandbox and errors -----------------------------------------------------------------


def test_paths_outside_the_sandbox_are_refused_before_rg_runs(project, ctx, tmp_path, monkeypatch):
    def no_rg(*args, **kwargs):
        raise AssertionError("rg must not run")

    monkeypatch.setattr(_grep_search, "StreamingProcess", no_rg)
    outside = write(tmp_path / "outside.txt", "needle\n")
    assert fstools.grep("needle", path=str(outside), ctx=ctx).error_code == "path_outside_workspace"
    assert fstools.grep("needle", path=str(project / ".." / ".."), ctx=ctx).error_code == "path_outside_workspace"
    assert fstools.grep("needle", path="relative", ctx=ctx).error_code == "invalid_path"


def test_symlinks_are_not_followed_out_of_the_sandbox(project, ctx, tmp_path):
    outside = tmp_path / "outside"
    write(outside / "secret.txt", "needle\n")
    (project / "link").symlink_to(outside)
    (project / "flink.txt").symlink_to(outside / "secret.txt")
    write(project / "in.txt", "needle\n")
    r = fstools.grep("needle", ctx=ctx, head_limit=0)
    assert r.output == str(project / "in.txt")
    assert fstools.grep("needle", path=str(project / "link"), ctx=ctx).error_code == "path_outside_workspace"


def test_argument_errors(project, ctx):
    write(project / "a.txt", "x\n")
    assert fstools.grep("", ctx=ctx).error_code == "invalid_argument"
    assert fstools.grep("a\x00b", ctx=ctx).error_code == "invalid_argument"
    missing = fstools.grep("x", path=str(project / "nope"), ctx=ctx)
    assert missing.error_code == "file_not_found" and "Path not found" in missing.error
    bad_type = fstools.grep("x", type="nosuchtype", ctx=ctx)
    assert bad_type.error_code == "invalid_argument"
    assert "nosuchtype" in bad_type.error and "py, " in bad_type.error and "rust" in bad_type.error
    bad_glob = fstools.grep("x", glob="[oops", ctx=ctx)
    assert bad_glob.error_code == "invalid_argument" and "Invalid glob pattern" in bad_glob.error
    assert fstools.grep("x", output_mode="lines", ctx=ctx).error_code == "invalid_argument"
    assert fstools.grep("x", head_limit=-1, ctx=ctx).error_code == "invalid_argument"
    newline = fstools.grep(r"a\nb", ctx=ctx)
    assert newline.error_code == "invalid_regex" and "multiline" in newline.error


def test_tool_layer_coerces_strings_and_runs_async(project, ctx):
    write(project / "a.txt", "1\nhit\n3\n")
    r = run_tool(ctx, pattern="HIT", output_mode="content", **{"-i": "true", "-C": "1", "head_limit": "5"})
    assert [m["line"] for m in r.metadata["matches"]] == [1, 2, 3]
    tool = fstools.create_registry().get("Grep")
    r = asyncio.run(tool.execute(ctx, pattern="hit", offset="0"))
    assert r.success and r.output == str(project / "a.txt")
    assert run_tool(ctx, pattern="hit", bogus=1).error_code == "invalid_argument"


def test_default_path_is_the_working_directory(project, ctx):
    write(project / "sub/a.txt", "hit\n")
    r = fstools.grep("hit", ctx=ctx)
    assert r.output == str(project / "sub/a.txt") and r.metadata["path"] == str(project.resolve())


# Skipped files: "no match" versus "could not see" -----------------------------------


def test_nothing_found_reports_what_could_not_be_seen(project):
    ctx = fstools.ExecutionContext(working_dir=str(project), grep_max_filesize=1000)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    write(project / ".gitignore", "ignored.txt\n")
    write(project / "plain.txt", "nothing\n")
    write(project / "blob.bin", b"\x00needle\x00")
    write(project / "ignored.txt", "needle\n")
    write(project / ".hidden.txt", "needle\n")
    write(project / "huge.txt", "needle\n" * 500)
    r = fstools.grep("needle", ctx=ctx)
    assert r.success and r.output == "No matches found" and r.metadata["total_matches"] == 0
    assert r.metadata["skipped"] == {
        "binary": 1,
        "ignored": 2,
        "too_large": 1,
        "unreadable": 0,
        "changed": 0,
        "unsearched": 0,
    }
    assert r.metadata["skipped_paths"]["too_large"] == [str(project / "huge.txt")]
    warnings = "\n".join(r.metadata["warnings"])
    assert "blob.bin" in warnings and "huge.txt" in warnings and "respect_gitignore=false" in warnings
    clean = fstools.grep("absent-everywhere", ctx=ctx)
    assert clean.metadata["skipped"] == {
        "binary": 0,
        "ignored": 0,
        "too_large": 1,
        "unreadable": 0,
        "changed": 0,
        "unsearched": 0,
    }


def test_skipped_counts_are_not_claimed_when_not_checked(project, ctx):
    write(project / "a.txt", "needle\n")
    write(project / "blob.bin", b"\x00needle\x00")
    r = fstools.grep("needle", ctx=ctx)
    assert r.metadata["skipped"] == {
        "binary": None,
        "ignored": None,
        "too_large": None,
        "unreadable": 0,
        "changed": 0,
        "unsearched": 0,
    }


def test_single_file_binary_or_too_large(project):
    ctx = fstools.ExecutionContext(working_dir=str(project), grep_max_filesize=100)
    blob = write(project / "blob.bin", b"needle\x00\x01")
    r = fstools.grep("needle", path=str(blob), ctx=ctx, output_mode="content")
    assert r.success and r.output == "No matches found" and r.metadata["skipped"]["binary"] == 1
    big = write(project / "big.txt", "needle\n" * 100)
    r = fstools.grep("needle", path=str(big), ctx=ctx)
    assert r.output == "No matches found" and r.metadata["skipped"]["too_large"] == 1
    small = write(project / "small.txt", "a\nneedle\n")
    r = fstools.grep("needle", path=str(small), ctx=ctx, output_mode="count")
    assert r.output == f"{small}: 1"


def test_binary_file_that_starts_as_text_is_skipped(project, ctx):
    """rg stops at a NUL found after earlier matches; Grep skips the whole file, in every mode."""
    write(project / "late.bin", b"needle first\n" + b"x" * 200_000 + b"\n\x00 needle\n")
    write(project / "a.txt", "needle\n")
    for mode in ("files_with_matches", "content"):
        for multiline in (False, True):
            r = fstools.grep("needle", ctx=ctx, output_mode=mode, multiline=multiline)
            assert r.metadata["total_files"] == 1 and "late.bin" not in r.output


# Every line (head_limit 0): rg's line printer, structured matches for the first files ---


@pytest.mark.parametrize("context", [0, 1])
def test_every_line_text_equals_the_paged_text(project, ctx, monkeypatch, context):
    write(project / "a.txt", "hit one\nctx\nhit two\n\nfar\nfar\nhit three\n", age=1)
    write(project / "crlf.txt", b"x\r\nhit crlf\r\n", age=2)
    write(project / "latin.txt", b"caf\xe9 hit\n", age=3)
    write(project / "long.txt", "hit " + "y" * 3000 + "\n", age=4)
    write(project / "late.bin", b"hit first\n" + b"x" * 200_000 + b"\n\x00 hit\n", age=5)
    write(project / ".env.local", "hit secret\n", age=6)
    write(project / "sub/z.txt", "".join(f"hit {i}\n" for i in range(30)), age=7)
    kwargs = dict(output_mode="content", context=context, hidden=True)
    paged = fstools.grep("hit", ctx=ctx, head_limit=10_000, **kwargs)
    full = fstools.grep("hit", ctx=ctx, head_limit=0, **kwargs)
    assert full.output == paged.output and full.metadata["matches_complete"] is True
    monkeypatch.setattr(_grep_search, "STRUCTURED_LINES", 3)
    bulk = fstools.grep("hit", ctx=ctx, head_limit=0, **kwargs)
    assert bulk.output == paged.output
    assert "secret" not in bulk.output and "late.bin" not in bulk.output
    assert bulk.metadata["matches_complete"] is False
    # the first 3 output lines, structured, without match offsets (rg's line printer has none)
    expected = [{**m, "submatches": None} for m in paged.metadata["matches"][:3]]
    assert bulk.metadata["matches"] == expected
    for key in ("total_matches", "total_files", "returned_matches"):
        assert bulk.metadata[key] == paged.metadata[key]
    assert bulk.metadata["returned_matches"] == 3 + 1 + 1 + 1 + 30


def test_every_line_without_line_numbers_uses_the_json_path(project, ctx):
    write(project / "a.txt", "hit\n")
    r = fstools.grep("hit", ctx=ctx, head_limit=0, output_mode="content", line_numbers=False)
    assert r.output == f"{project / 'a.txt'}> hit" and r.metadata["matches_complete"] is True


def test_a_bad_gitignore_line_is_a_notice_not_an_error(project, ctx):
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    write(project / ".gitignore", "a[\n")
    write(project / "x.txt", "needle\n")
    r = fstools.grep("needle", ctx=ctx)
    assert r.success and r.output == str(project / "x.txt")
    assert r.metadata["skipped"]["unreadable"] == 0
    assert any(".gitignore" in w and "error parsing glob" in w for w in r.metadata["warnings"])


def test_dollar_anchor_matches_crlf_lines(tmp_path):
    root = tmp_path / "proj"
    root.mkdir()
    (root / "win.txt").write_bytes(b"match x\r\nother\r\n")
    (root / "unix.txt").write_bytes(b"match x\nother\n")
    ctx = fstools.ExecutionContext(working_dir=str(root))
    r = fstools.grep("x$", path=str(root), output_mode="count", ctx=ctx)
    assert r.metadata["total_matches"] == 2 and r.metadata["total_files"] == 2
    content = fstools.grep("x$", path=str(root / "win.txt"), output_mode="content", ctx=ctx)
    assert content.output == f"{root / 'win.txt'}:1> match x"


@pytest.mark.parametrize("mode", ["files_with_matches", "count", "content"])
@pytest.mark.parametrize("head_limit", [0, 1])
def test_hard_linked_files_shown_are_named(tmp_path, mode, head_limit):
    """A hard link inside the root may share its content with a file outside: Grep says so."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    write(outside / "shared.txt", "needle shared\n")
    write(root / "plain.txt", "needle plain\n", age=100)
    os.link(outside / "shared.txt", root / "linked.txt")
    ctx = fstools.ExecutionContext(working_dir=str(root))
    r = fstools.grep("needle", ctx=ctx, output_mode=mode, head_limit=head_limit)
    assert str(root / "linked.txt") in r.output  # the newer file: first on every page
    assert r.metadata["hard_links"] == {str(root / "linked.txt"): 2}
    assert any("1 file(s) shown have other hard links" in w and "linked.txt" in w for w in r.metadata["warnings"])
    plain = fstools.grep("plain", ctx=ctx, output_mode=mode, head_limit=head_limit)
    assert "hard_links" not in plain.metadata and not any("hard link" in w for w in plain.metadata["warnings"])
