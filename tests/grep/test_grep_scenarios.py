"""Every Grep acceptance scenario (Gherkin), on real files with the real rg."""

from __future__ import annotations

import re

import fstools
from tests.helpers.trees import run_tool, write


def test_search_with_simple_pattern(project, ctx):
    lines = [f"line {i}" for i in range(1, 60)]
    lines[41] = "    # TODO: fix this bug"
    code = write(project / "code.py", "\n".join(lines) + "\n")
    r = run_tool(ctx, pattern="TODO", path=str(code), output_mode="content")
    assert r.success
    assert "code.py:42" in r.output
    assert "TODO: fix this bug" in r.output
    assert r.output == f"{code}:42>     # TODO: fix this bug"


def test_search_case_insensitive(project, ctx):
    for name, word in [("a.txt", "Error"), ("b.txt", "ERROR"), ("c.txt", "error")]:
        write(project / name, f"an {word} happened\n")
    r = run_tool(ctx, pattern="error", **{"-i": True})
    assert r.success
    assert sorted(r.output.splitlines()) == sorted(str(project / n) for n in ("a.txt", "b.txt", "c.txt"))
    assert r.metadata["total_matches"] == 3
    assert run_tool(ctx, pattern="error").metadata["total_files"] == 1


def test_search_with_context_lines(project, ctx):
    body = [f"filler {i}" for i in range(1, 21)]
    body[9] = "here is match_text"
    f = write(project / "ctx.txt", "\n".join(body) + "\n")
    r = run_tool(ctx, pattern="match_text", output_mode="content", **{"-B": 2, "-A": 2})
    assert r.success
    assert r.output.splitlines() == [
        f"{f}:8  filler 8",
        f"{f}:9  filler 9",
        f"{f}:10> here is match_text",
        f"{f}:11  filler 11",
        f"{f}:12  filler 12",
    ]
    marks = {m["line"]: m["is_context"] for m in r.metadata["matches"]}
    assert marks == {8: True, 9: True, 10: False, 11: True, 12: True}


def test_search_files_with_matches_mode(project, ctx):
    for i in range(5):
        write(project / f"f{i}.txt", "pattern\npattern again\n")
    write(project / "other.txt", "nothing here\n")
    r = run_tool(ctx, pattern="pattern", output_mode="files_with_matches")
    paths = r.output.splitlines()
    assert r.success and len(paths) == len(set(paths)) == 5
    assert all(p.startswith(str(project) + "/") for p in paths)
    assert r.metadata["total_matches"] == 10 and r.metadata["total_files"] == 5


def test_search_count_mode(project, ctx):
    for i in range(1, 4):
        write(project / f"f{i}.txt", "pattern\n" * i, age=i)
    r = run_tool(ctx, pattern="pattern", output_mode="count")
    assert r.success
    assert r.output.splitlines() == [f"{project}/f{i}.txt: {i}" for i in (1, 2, 3)]
    assert all(re.fullmatch(r"/.+: \d+", line) for line in r.output.splitlines())


def test_search_with_file_type_filter(project, ctx):
    for name in ("a.py", "b.js", "c.ts", "d.tsx"):
        write(project / name, "function here\n")
    r = run_tool(ctx, pattern="function", type="py")
    assert r.success and r.output == str(project / "a.py")
    assert ".js" not in r.output and ".ts" not in r.output


def test_search_with_glob_filter(project, ctx):
    for name in ("a.tsx", "b.ts", "src/c.tsx", "d.py"):
        write(project / name, "import x\n")
    r = run_tool(ctx, pattern="import", glob="*.tsx")
    assert r.success
    assert sorted(r.output.splitlines()) == [str(project / "a.tsx"), str(project / "src/c.tsx")]


def test_search_with_regex_pattern(project, ctx):
    src = (
        "def alpha():\n    pass\ndef beta(x, y):\n    return x\nclass C:\n    def gamma(self):\n        pass\nalpha()\n"
    )
    f = write(project / "m.py", src)
    r = run_tool(ctx, pattern=r"def \w+\([^)]*\):", output_mode="content")
    assert r.success
    assert [m["line"] for m in r.metadata["matches"]] == [1, 3, 6]
    assert f"{f}:3> def beta(x, y):" in r.output.splitlines()


def test_search_with_invalid_regex(project, ctx):
    write(project / "a.txt", "x\n")
    r = run_tool(ctx, pattern="[invalid(regex")
    assert not r.success and r.error_code == "invalid_regex"
    assert "Invalid regex pattern" in r.error
    assert "unclosed character class" in r.error  # rg's own explanation


def test_search_with_multiline_mode(project, ctx):
    f = write(project / "s.py", 'x = """start of\nthe middle\nthe end"""\nend\n')
    assert run_tool(ctx, pattern="start.*end").metadata["total_matches"] == 0
    r = run_tool(ctx, pattern="start.*end", multiline=True, output_mode="content")
    assert r.success
    assert [m["line"] for m in r.metadata["matches"]] == [1, 2, 3, 4]
    assert r.output.splitlines()[0] == f'{f}:1> x = """start of'
    assert r.metadata["total_matches"] == 4


def test_search_with_pagination(project, ctx):
    for i in range(50):
        write(project / f"f{i:02}.txt", "TODO: a\nnot me\n" * 10, age=i)
    r = run_tool(ctx, pattern="TODO", head_limit=20, offset=0)
    assert r.success
    # 20 paths, then the notice that says how to get the rest.
    assert r.output.splitlines()[:20] == [f["path"] for f in r.metadata["files"]] and len(r.metadata["files"]) == 20
    assert r.output.splitlines()[20:] == ["(Showing files 1-20 of 50: call again with offset=20 for more.)"]
    assert r.metadata["total_matches"] == 500
    assert r.metadata["returned_matches"] == 20
    content = run_tool(ctx, pattern="TODO", head_limit=20, offset=0, output_mode="content")
    assert len(content.output.splitlines()) == 21 and content.output.splitlines()[:20] == [
        f"{m['path']}:{m['line']}> {m['text']}" for m in content.metadata["matches"]
    ]
    assert (
        content.output.splitlines()[-1] == "(Showing matching lines 1-20 of 500: call again with offset=20 for more.)"
    )
    assert content.metadata["total_matches"] == 500 and content.metadata["returned_matches"] == 20
    assert content.metadata["truncated"] is True and content.metadata["next_offset"] == 20


def test_search_no_matches_found(project, ctx):
    write(project / "a.py", "print('hello')\n")
    r = run_tool(ctx, pattern="xyznonexistent")
    assert r.success
    assert r.output == "No matches found"
    assert r.metadata["total_matches"] == 0


def test_search_binary_files_skipped(project, ctx):
    write(project / "text.txt", "a pattern here\n")
    write(project / "blob.bin", b"\x00\x01pattern\x00\xff" * 10)
    write(project / "image.png", b"\x89PNG\r\n\x1a\n\x00\x00pattern")
    r = run_tool(ctx, pattern="pattern")
    assert r.success and r.output == str(project / "text.txt")


def test_glob_grep_workflow(project, ctx):
    """Integration: find the .py files (Glob), then the class definitions in them (Grep)."""
    write(project / "a.py", "class A:\n    pass\n")
    write(project / "pkg/b.py", "import os\nclass B(A):\n    pass\n")
    write(project / "pkg/c.py", "# no classes\n")
    write(project / "notes.md", "class Z is not python\n")
    glob = getattr(fstools, "glob", None)
    if glob is not None:
        found = glob("**/*.py", ctx=ctx).output.splitlines()
    else:  # Glob lands on another branch; rg --files is the same walk
        found = fstools.grep(".", glob="*.py", head_limit=0, ctx=ctx).output.splitlines()
    assert sorted(found) == sorted(str(project / p) for p in ("a.py", "pkg/b.py", "pkg/c.py"))
    classes = {}
    for path in found:
        r = fstools.grep(r"^class \w+", path, output_mode="content", ctx=ctx)
        assert r.success
        classes.update({m["path"]: m["text"] for m in r.metadata["matches"]})
    assert classes == {str(project / "a.py"): "class A:", str(project / "pkg/b.py"): "class B(A):"}


def test_registry_contains_grep_with_seed_parameters():
    registry = fstools.create_registry()
    tool = registry.get("Grep")
    assert tool.spec is fstools.grep.spec and tool.category == fstools.ToolCategory.FILE
    assert tool.read_only
    names = [p.name for p in tool.parameters]
    seed = [
        "pattern",
        "path",
        "glob",
        "type",
        "output_mode",
        "-i",
        "-n",
        "-A",
        "-B",
        "-C",
        "multiline",
        "head_limit",
        "offset",
    ]
    assert names[: len(seed)] == seed
    assert {"fixed_strings", "hidden", "respect_gitignore"} <= set(names)
    schema = tool.schema("openai")["function"]["parameters"]
    assert schema["required"] == ["pattern"]
    assert schema["properties"]["output_mode"]["enum"] == ["files_with_matches", "content", "count"]
    assert schema["properties"]["-n"]["default"] is True
