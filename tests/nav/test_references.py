"""References: every use of an identifier, as the parser reads it, grouped by file."""

from __future__ import annotations

import fstools
from fstools._nav import resolve
from fstools._nav.resolve import Location
from tests.helpers.trees import write


def test_uses_grouped_by_file_never_in_comments_strings_or_longer_names(tree, nav_ctx):
    result = fstools.references("parse_config", ctx=nav_ctx)
    assert result.success, result.error
    assert result.output.splitlines() == [
        f"{tree}/main.c:3:5  def  in (top level)  int parse_config(const char *s) {{ return 0; }}",
        f'{tree}/main.c:4:25  ref  in main  int main(void) {{ return parse_config("parse_config"); }}',
        "",
        f"{tree}/parser.py:9:16  ref  in Parser.feed  return parse_config(data)",
        f"{tree}/parser.py:15:5  def  in (top level)  def parse_config(text, *, strict=False):",
        f"{tree}/parser.py:21:12  ref  in parse_config_v2  return parse_config(text)",
        "",
        f"{tree}/util.py:1:20  import  in (top level)  from parser import parse_config",
        f"{tree}/util.py:5:12  ref  in helper  return parse_config(x)",
        "(Matched by name: every identifier 'parse_config' is listed, whichever definition it means; "
        "2 definitions share it.)",
    ]
    meta = result.metadata
    assert meta["total"] == 7 and meta["total_files"] == 3 and meta["definitions"] == 2
    assert meta["resolution"] == "name" and meta["index"] == "none"
    assert meta["references"][0] == {
        "path": f"{tree}/main.c",
        "line": 3,
        "column": 5,
        "kind": "def",
        "enclosing": None,
    }


def test_a_dotted_name_looks_for_its_last_part(tree, nav_ctx):
    result = fstools.references("Parser.feed", ctx=nav_ctx)
    assert [(r["line"], r["kind"], r["enclosing"]) for r in result.metadata["references"]] == [(7, "def", "Parser")]


def test_pages_as_grep_does(tree, nav_ctx):
    first = fstools.references("parse_config", limit=3, ctx=nav_ctx)
    assert first.metadata["next_offset"] == 3 and first.metadata["truncated"] is True
    assert "(Showing uses 1-3 of 7: call again with offset=3 for more.)" in first.output
    rest = fstools.references("parse_config", offset=3, limit=10, ctx=nav_ctx)
    everything = fstools.references("parse_config", ctx=nav_ctx).metadata["references"]
    assert first.metadata["references"] + rest.metadata["references"] == everything
    assert "past the last of 7" in fstools.references("parse_config", offset=50, ctx=nav_ctx).output


def test_file_path_ranks_that_file_first(tree, nav_ctx):
    result = fstools.references("parse_config", file_path=str(tree / "util.py"), line=5, ctx=nav_ctx)
    paths = [r["path"] for r in result.metadata["references"]]
    assert paths[:2] == [f"{tree}/util.py"] * 2 and paths[2] == f"{tree}/parser.py"
    assert result.metadata["resolution"] == "name" and "Matched by name" in result.output


def test_nothing_found_and_bad_input(tree, nav_ctx):
    none = fstools.references("documented", ctx=nav_ctx)
    assert none.success and none.metadata["total"] == 0
    assert "No uses of the identifier 'documented'" in none.output and "Grep" in none.output
    assert fstools.references(" ", ctx=nav_ctx).error_code == "invalid_argument"
    write(tree / "x.bin", b"\x00\x00binary")
    assert fstools.references("a", file_path=str(tree / "x.bin"), line=1, ctx=nav_ctx).error_code == "binary_file"


def test_a_resolver_gives_the_resolved_uses(tree, nav_ctx):
    class Known:
        def definitions(self, ctx, file_path, line, name):
            return None

        def references(self, ctx, file_path, line, name):
            return [Location(str(tree / "main.c"), 4, 25)]

    known = Known()
    resolve.register(known)
    try:
        result = fstools.references("parse_config", file_path=str(tree / "main.c"), line=4, ctx=nav_ctx)
    finally:
        resolve.unregister(known)
    assert result.metadata["resolution"] == "language_server"
    assert [(r["path"], r["line"]) for r in result.metadata["references"]] == [(f"{tree}/main.c", 4)]
    assert "Matched by name" not in result.output


def test_c_macro_bodies_and_attribute_macros_are_uses(project):
    write(
        project / "k.h",
        "#define KMALLOC(n) kmalloc_array(n, 1, GFP)  /* kmalloc_array */\n"
        "static inline __alloc_size(1, 2) void *kmalloc_array(int n, int s, int f) { return 0; }\n"
        "void *g(void) { return __alloc_size_user(kmalloc_array); }\n",
    )
    ctx = fstools.ExecutionContext(working_dir=str(project))
    found = fstools.references("kmalloc_array", ctx=ctx).metadata["references"]
    assert [(r["line"], r["column"], r["kind"], r["enclosing"]) for r in found] == [
        (1, 20, "ref", "KMALLOC"),
        (2, 40, "def", None),
        (3, 42, "ref", "g"),
    ]
    sizes = fstools.references("__alloc_size", ctx=ctx).metadata["references"]
    assert [(r["line"], r["column"]) for r in sizes] == [(2, 15)]


def test_a_use_on_a_long_line_and_a_file_that_cannot_be_read_again(project, monkeypatch):
    from fstools._nav import store

    monkeypatch.setattr(store, "RACY_NS", 0)  # the names stay stored: only the lines are read again
    write(project / "long.py", "x = 1\n" + "y = [" + "1, " * 3000 + "target]\n" + "z = target\n")
    ctx = fstools.ExecutionContext(working_dir=str(project))
    result = fstools.references("target", ctx=ctx)
    lines = result.output.splitlines()
    assert lines[0].startswith(f"{project}/long.py:2:9006  ref  in (top level)  y = [1, 1, ")
    assert lines[0].endswith("...") and lines[1].endswith("z = target")
    from fstools._core.paths import SafePath

    def refuse(self, flags, mode=0o666):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(SafePath, "open", refuse)  # a fault: the file cannot be opened to show its lines
    result = fstools.references("target", path=str(project), ctx=ctx)
    assert result.metadata["total"] == 2
    assert any("Could not read" in w and "long.py" in w for w in result.metadata.get("warnings", []))
