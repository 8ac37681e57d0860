"""Anthropic's text editor tool: calls as Claude emits them, answers checked with the official SDK's types."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest
from anthropic.types import ToolResultBlockParam, ToolUseBlock
from pydantic import TypeAdapter

import fstools
from tests.helpers.trees import write

RESULT = TypeAdapter(ToolResultBlockParam)
APP = b"def main():\r\n    print('hi')\r\n    return 0\r\n"
TABS = codecs.BOM_UTF8 + b'func main() {\n\tfmt.Println("hi")\n}\n'
LATIN1 = "Préface\nChapitre 1\nFin".encode("latin-1")


def use(n: int, **tool_input) -> dict:
    """A tool_use block as Claude sends it."""
    block = ToolUseBlock(id=f"toolu_{n:02d}", name="str_replace_based_edit_tool", input=tool_input, type="tool_use")
    return block.model_dump()


def run(ctx: fstools.ExecutionContext, n: int, **tool_input) -> dict:
    result = fstools.anthropic_text_editor(use(n, **tool_input), ctx=ctx)
    RESULT.validate_python(result)
    assert result["type"] == "tool_result" and result["tool_use_id"] == f"toolu_{n:02d}"
    return result


def ok(result: dict) -> str:
    assert result["is_error"] is False, result["content"]
    return result["content"]


def error(result: dict) -> str:
    assert result["is_error"] is True, result["content"]
    return result["content"]


@pytest.fixture
def repo(project: Path) -> Path:
    write(project / "app.py", APP)  # CRLF
    write(project / "go/main.go", TABS)  # BOM and tabs
    write(project / "docs/livre.txt", LATIN1)  # Latin-1, no final newline
    write(project / ".hidden/x", "x\n")
    return project


def test_a_recorded_conversation(repo, ctx):
    listing = ok(run(ctx, 1, command="view", path=str(repo)))
    assert listing.startswith(f"Here's the files and directories up to 2 levels deep in {repo}, excluding hidden")
    assert f"{repo}/go/main.go" in listing and f"{repo}/docs/" in listing and ".hidden" not in listing

    view = ok(run(ctx, 2, command="view", path=str(repo / "app.py")))
    assert view == (
        f"Here's the result of running `cat -n` on {repo}/app.py:\n"
        "     1\tdef main():\n     2\t    print('hi')\n     3\t    return 0\n"
    )
    assert ok(run(ctx, 3, command="view", path=str(repo / "app.py"), view_range=[2, 3])).endswith(
        "     2\t    print('hi')\n     3\t    return 0\n"
    )

    # Claude copies lines without their CRs; the file keeps its CRLF line breaks.
    edited = ok(
        run(
            ctx,
            4,
            command="str_replace",
            path=str(repo / "app.py"),
            old_str="    print('hi')\n    return 0",
            new_str="    print('hello')\n    return 1",
        )
    )
    assert edited.startswith(
        f"The file {repo}/app.py has been edited. Here's the result of running `cat -n` on a snippet"
    )
    assert "     2\t    print('hello')" in edited and edited.endswith("Edit the file again if necessary.")
    assert (repo / "app.py").read_bytes() == b"def main():\r\n    print('hello')\r\n    return 1\r\n"

    # No view first: the exact match proves the state. BOM and tabs are kept.
    ok(
        run(
            ctx,
            5,
            command="str_replace",
            path=str(repo / "go/main.go"),
            old_str='\tfmt.Println("hi")',
            new_str='\tfmt.Println("hello")',
        )
    )
    assert (repo / "go/main.go").read_bytes() == TABS.replace(b'"hi"', b'"hello"')

    # Latin-1 without a final newline: still Latin-1, still without one.
    ok(
        run(
            ctx,
            6,
            command="str_replace",
            path=str(repo / "docs/livre.txt"),
            old_str="Chapitre 1",
            new_str="Chapitre 1 — révisé".replace("—", "-"),
        )
    )
    inserted = ok(
        run(ctx, 7, command="insert", path=str(repo / "docs/livre.txt"), insert_line=3, insert_text="Épilogue")
    )
    assert "     4\tÉpilogue" in inserted and "(correct indentation, no duplicate lines, etc)" in inserted
    assert (repo / "docs/livre.txt").read_bytes() == "Préface\nChapitre 1 - révisé\nFin\nÉpilogue".encode("latin-1")

    # Older tool versions send insert's text as new_str; insert_line 0 is the top.
    ok(run(ctx, 8, command="insert", path=str(repo / "app.py"), insert_line=0, new_str="import sys\n"))
    assert (repo / "app.py").read_bytes().startswith(b"import sys\r\ndef main():\r\n")

    assert ok(run(ctx, 9, command="create", path="pkg/new.py", file_text="x = 1\n")) == (
        f"File created successfully at: {repo}/pkg/new.py"
    )
    assert (repo / "pkg/new.py").read_text() == "x = 1\n"


def test_str_replace_errors_in_claudes_words(repo, ctx):
    missing = error(run(ctx, 1, command="str_replace", path=str(repo / "app.py"), old_str="print('bye')", new_str="x"))
    assert missing.startswith(
        "Error: No match found for replacement. Please check your text and try again. No replacement was "
        f"performed, old_str `print('bye')` did not appear verbatim in {repo}/app.py."
    )
    assert "The closest region of the file" in missing
    write(repo / "dup.py", "x = 1\ny = 2\nx = 1\n")
    dup = error(run(ctx, 2, command="str_replace", path=str(repo / "dup.py"), old_str="x = 1", new_str="x = 3"))
    # Anthropic's documented text first, then where the matches are.
    assert dup == (
        "Error: Found 2 matches for replacement text. Please provide more context to make a unique match. "
        "No replacement was performed: old_str `x = 1` occurs in lines [1, 3]."
    )
    assert (repo / "dup.py").read_text() == "x = 1\ny = 2\nx = 1\n"
    # A failed str_replace does not count as a view: create still refuses to overwrite.
    assert "Cannot overwrite files using command `create`" in error(
        run(ctx, 3, command="create", path=str(repo / "dup.py"), file_text="z")
    )


def test_create_over_an_existing_file_needs_a_view(repo, ctx):
    refused = error(run(ctx, 1, command="create", path=str(repo / "app.py"), file_text="print(1)\n"))
    assert refused.startswith(
        f"Error: File already exists at: {repo}/app.py. Cannot overwrite files using command `create`"
    )
    assert (repo / "app.py").read_bytes() == APP
    ok(run(ctx, 2, command="view", path=str(repo / "app.py")))
    assert (
        ok(run(ctx, 3, command="create", path=str(repo / "app.py"), file_text="print(1)\n"))
        == f"File overwritten successfully at: {repo}/app.py"
    )
    assert (repo / "app.py").read_bytes() == b"print(1)\r\n"  # Write keeps the file's CRLF


def test_insert_needs_a_view_of_the_current_file(repo, ctx):
    refused = error(run(ctx, 1, command="insert", path=str(repo / "app.py"), insert_line=1, insert_text="# c"))
    assert "has not been read" in refused and (repo / "app.py").read_bytes() == APP
    ok(run(ctx, 2, command="view", path=str(repo / "app.py")))
    (repo / "app.py").write_bytes(APP + b"# changed elsewhere\r\n")
    assert "modified since it was read" in error(
        run(ctx, 3, command="insert", path=str(repo / "app.py"), insert_line=1, insert_text="# c")
    )
    ok(run(ctx, 4, command="view", path=str(repo / "app.py")))
    error_text = error(run(ctx, 5, command="insert", path=str(repo / "app.py"), insert_line=9, insert_text="# c"))
    assert (
        error_text
        == "Error: Invalid `insert_line` parameter: 9. It should be within the range of lines of the file: [0, 4]"
    )
    ok(run(ctx, 6, command="insert", path=str(repo / "app.py"), insert_line="1", insert_text="# one\n# two\n"))
    assert (repo / "app.py").read_bytes().startswith(b"def main():\r\n# one\r\n# two\r\n    print('hi')")


@pytest.mark.parametrize(
    "tool_input, words",
    [
        (
            {"command": "view", "path": "nope.py"},
            "The path {repo}/nope.py does not exist. Please provide a valid path.",
        ),
        (
            {"command": "view", "path": "app.py", "view_range": [1]},
            "Invalid `view_range`. It should be a list of two integers.",
        ),
        (
            {"command": "view", "path": "app.py", "view_range": [5, 6]},
            "Its first element `5` should be within the range of lines of the file: [1, 3]",
        ),
        (
            {"command": "view", "path": "app.py", "view_range": [3, 2]},
            "Its second element `2` should be larger or equal than its first `3`",
        ),
        (
            {"command": "view", "path": "app.py", "view_range": [1, 7]},
            "should be smaller than the number of lines in the file: `3`",
        ),
        ({"command": "view", "path": "app.py", "view_range": [0, 2]}, "Its first element `0`"),
        (
            {"command": "view", "path": "go", "view_range": [1, 2]},
            "The `view_range` parameter is not allowed when `path` points to a directory.",
        ),
        (
            {"command": "str_replace", "path": "go", "old_str": "a", "new_str": "b"},
            "is a directory and only the `view` command",
        ),
        (
            {"command": "str_replace", "path": "app.py", "new_str": "b"},
            "Parameter `old_str` is required for command: str_replace",
        ),
        ({"command": "str_replace", "path": "app.py", "old_str": "", "new_str": "b"}, "old_str is empty"),
        ({"command": "create", "path": "a.py"}, "Parameter `file_text` is required for command: create"),
        (
            {"command": "insert", "path": "app.py", "insert_text": "x"},
            "Parameter `insert_line` is required for command: insert",
        ),
        (
            {"command": "insert", "path": "app.py", "insert_line": 1},
            "Parameter `insert_text` (or `new_str`) is required",
        ),
        ({"command": "undo_edit", "path": "app.py"}, "No edit history found for"),
        (
            {"command": "delete", "path": "app.py"},
            "Unrecognized command delete. The allowed commands for the str_replace_based_edit_tool tool are: view, create, str_replace, insert",
        ),
        ({"command": "view"}, "Parameter `path` is required"),
        ({"command": "view", "path": "../outside.txt"}, "outside the allowed directories"),
        ({"command": "create", "path": ".env", "file_text": "KEY=1"}, "sensitive"),
        (
            {"command": "str_replace", "path": "app.py", "old_str": "def main", "new_str": "def main"},
            "must be different",
        ),
    ],
)
def test_errors_are_text_and_change_nothing(repo, ctx, tool_input, words):
    before = {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()}
    out = fstools.anthropic_text_editor(tool_input, ctx=ctx)
    assert out["is_error"] is True and set(out) == {"content", "is_error"}
    assert words.format(repo=repo) in out["content"]
    assert {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()} == before


def test_a_directory_outside_the_sandbox_is_not_revealed(repo, ctx, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    out = fstools.anthropic_text_editor({"command": "str_replace", "path": str(outside), "old_str": "a"}, ctx=ctx)
    assert out["is_error"] and "outside the allowed directories" in out["content"]


def test_long_views_are_bounded(project, ctx):
    write(project / "big.txt", "".join(f"line {i}\n" for i in range(1, 12001)))
    view = ok(run(ctx, 1, command="view", path=str(project / "big.txt")))
    # Read's character bound: as many whole lines as fit in 100,000 characters, and where to go on.
    assert "  5929\tline 5929\n" in view and "line 5930" not in view and len(view) < 100_300
    assert "[Showing lines 1-5929 of 12000: a view stops at 100,000 characters. Use view_range [5930, -1]" in view
    short = project / "short.txt"
    write(short, "".join(f"{i % 10}\n" for i in range(12000)))
    view = ok(run(ctx, 3, command="view", path=str(short)))
    assert " 10000\t9\n" in view and "[Showing lines 1-10000 of 12000. Use view_range [10001, -1] to see more.]" in view
    ranged = ok(run(ctx, 4, command="view", path=str(project / "big.txt"), view_range=[100, 9000]))
    assert "[Showing lines 100-6016 of 12000: a view stops at 100,000 characters. Use view_range [6017, 9000]" in ranged
    tail = ok(run(ctx, 2, command="view", path=str(project / "big.txt"), view_range=[11999, -1]))
    assert tail.endswith(" 11999\tline 11999\n 12000\tline 12000\n")
    cut = fstools.anthropic_text_editor({"command": "view", "path": "big.txt"}, ctx=ctx, max_characters=100)
    assert "[... output truncated: use view_range to see the rest]" in cut["content"] and len(cut["content"]) < 300


def test_dry_run_changes_nothing(repo):
    ctx = fstools.ExecutionContext(working_dir=str(repo), dry_run=True)
    out = fstools.anthropic_text_editor(
        {"command": "str_replace", "path": "app.py", "old_str": "return 0", "new_str": "return 2"}, ctx=ctx
    )
    assert out["is_error"] is False and "[Dry Run]" in out["content"] and "+    return 2" in out["content"]
    out = fstools.anthropic_text_editor({"command": "create", "path": "n.txt", "file_text": "n"}, ctx=ctx)
    assert out["is_error"] is False and "[Dry Run]" in out["content"]
    assert (repo / "app.py").read_bytes() == APP and not (repo / "n.txt").exists()


def test_a_directory_too_large_to_list_says_what_it_left_out(project, ctx):
    """LS lists at most `limit` entries a directory; the view says how many it did not show, never reads as whole."""
    for i in range(1003):
        (project / f"f{i:04}.txt").touch()
    (project / "sub").mkdir()
    for i in range(1002):
        (project / "sub" / f"g{i:04}.txt").touch()
    text = ok(run(ctx, 1, command="view", path=str(project)))
    lines = text.splitlines()
    assert f"[4 more entries in {project} not shown: view a subdirectory, or use Glob]" in lines
    assert f"[2 more entries in {project}/sub not shown: view a subdirectory, or use Glob]" in lines
    shown = len(lines) - 4  # header, two notes, the closing notice; 2001: the directory, 1000 + 1000 listed
    assert lines[-1] == (
        f"[{2001 - shown} of 2001 entries not shown: the answer is cut at 16,000 characters; "
        "view a subdirectory to see the rest]"
    )
    assert len(text) <= 16_000


def _tree(root: Path, dirs: int, files: int) -> set[str]:
    made = set()
    for d in range(dirs):
        for f in range(files):
            made.add(str(write(root / f"dir{d:02}" / f"file_{f:04}.txt", "")))
    return made


@pytest.mark.parametrize(("dirs", "files"), [(1, 1000), (50, 500)])
def test_a_directory_view_stays_under_16000_characters(project, ctx, dirs, files):
    """1,000 files (85 KB before the cap) and 50 x 500 (941 KB): cut at whole lines, the first level kept, said so."""
    made = _tree(project, dirs, files)
    text = ok(run(ctx, 1, command="view", path=str(project)))
    assert len(text) <= 16_000
    lines = text.splitlines()
    header, entries, notice = lines[0], lines[1:-1], lines[-1]
    assert header.startswith("Here's the files and directories up to 2 levels deep")
    first_level = {f"{project}/"} | {f"{project}/dir{d:02}/" for d in range(dirs)}
    assert entries == sorted(entries) and set(entries) <= made | first_level
    assert first_level <= set(entries)  # the first level survives the cut
    shown = len(entries) - len(first_level)
    assert notice == (
        f"[{len(made) - shown} of {len(made) + dirs + 1} entries not shown: the answer is cut at 16,000 "
        "characters; view a subdirectory to see the rest]"
    )


def test_a_directory_view_keeps_a_smaller_max_characters(project, ctx):
    _tree(project, 3, 40)
    whole = fstools.anthropic_text_editor({"command": "view", "path": str(project)}, ctx=ctx)["content"]
    assert "entries not shown" not in whole and whole.count("file_") == 120  # under the cap: the whole listing
    cut = fstools.anthropic_text_editor({"command": "view", "path": str(project)}, ctx=ctx, max_characters=600)
    assert len(cut["content"]) <= 600 and cut["is_error"] is False
    assert cut["content"].endswith("the answer is cut at 600 characters; view a subdirectory to see the rest]\n")
    assert f"{project}/dir02/" in cut["content"]


def test_a_long_notebook_view_says_which_view_range_comes_next(project, ctx):
    import json

    cells = [
        {"cell_type": "code", "id": f"c{n}", "metadata": {}, "source": f"v{n} = '{'z' * 1500}'", "outputs": []}
        | {"execution_count": None}
        for n in range(100)
    ]
    path = project / "long.ipynb"
    path.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}))
    view = ok(run(ctx, 1, command="view", path=str(path)))
    # The editor takes view_range, not Read's offset: the notice names the range that reads on.
    assert "offset=" not in view
    notice = view.strip().rsplit("\n", 1)[-1]
    assert notice.startswith("[Showing cells 1-") and "Use view_range [" in notice, notice
    start = int(notice.split("Use view_range [")[1].split(",")[0])
    more = ok(run(ctx, 2, command="view", path=str(path), view_range=[start, -1]))
    assert more.startswith(f"--- Cell c{start - 1} (code) ---")
