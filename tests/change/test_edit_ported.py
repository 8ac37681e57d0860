"""Edit and ApplyPatch against other agents' own test cases, and four defects those cases found.

Cases ported as data (inputs and expected results) from aider's edit-block tests
(tests/basic/test_editblock.py) and codex's apply-patch tests (codex-rs/apply-patch: lib.rs
tests and tests/fixtures/scenarios). Where fstools deliberately differs, the test says so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import fstools

# (file content, old_string, new_string, expected content)
AIDER_CASES = {
    # aider: test_replace_part_with_just_some_missing_leading_whitespace. A one-space offset is
    # not an indentation unit: the block moves by the constant 3 columns (new_line2: 5 -> 8),
    # never scaled to 20 spaces.
    "just_some_missing_leading_whitespace": (
        "    line1\n    line2\n    line3\n",
        " line1\n line2\n",
        " new_line1\n     new_line2\n",
        "    new_line1\n        new_line2\n    line3\n",
    ),
    # The same with a two-space offset: 6 -> 8, not 12.
    "two_space_offset": (
        "    line1\n    line2\n    line3\n",
        "  line1\n  line2\n",
        "  new_line1\n      new_line2\n",
        "    new_line1\n        new_line2\n    line3\n",
    ),
    # aider: test_replace_part_with_missing_leading_whitespace.
    "missing_leading_whitespace": (
        "    line1\n    line2\n    line3\n",
        "line1\nline2\n",
        "new_line1\nnew_line2\n",
        "    new_line1\n    new_line2\n    line3\n",
    ),
    # aider: test_replace_part_with_missing_varied_leading_whitespace (old_string is nested: levels).
    "missing_varied_leading_whitespace": (
        "\n    line1\n    line2\n        line3\n    line4\n",
        "line2\n    line3\n",
        "new_line2\n    new_line3\n",
        "\n    line1\n    new_line2\n        new_line3\n    line4\n",
    ),
    # aider: test_replace_part_with_missing_leading_whitespace_including_blank_line.
    "missing_leading_whitespace_including_blank_line": (
        "    line1\n    line2\n    line3\n",
        "\n  line1\n  line2\n",
        "  new_line1\n  new_line2\n",
        "    new_line1\n    new_line2\n    line3\n",
    ),
    # A leading blank line the file lacks at that place (aider drops it): accepted when the rest
    # matches once; a blank line new_string opens with goes with it.
    "leading_blank_line_the_file_lacks": (
        "def f():\n    x = 1\n    y = 2\n",
        "\n\n    x = 1\n    y = 2\n",
        "\n\n    x = 3\n    y = 2\n",
        "def f():\n    x = 3\n    y = 2\n",
    ),
    "leading_blank_line_at_the_top_of_the_file": (
        "x = 1\ny = 2\n",
        "\nx = 1\n",
        "\nx = 10\n",
        "x = 10\ny = 2\n",
    ),
    # A lone CR line ending in a file of mixed endings, edited ignoring trailing whitespace or
    # indentation (lines are split at CR too).
    "lone_cr_in_a_mixed_file": (
        "x = 1\r\ny = 2   \rz = 3\n",
        "y = 2\n",
        "y = 5\n",
        "x = 1\r\ny = 5\rz = 3\n",
    ),
    "lone_cr_with_other_indentation": (
        "def f():\r\n    a = 1\r    b = 2\n    return a\n",
        "\ta = 1\n\tb = 2\n",
        "\ta = 10\n\tb = 20\n",
        "def f():\r\n    a = 10\r    b = 20\n    return a\n",  # each line keeps its own break
    ),
    "only_cr_with_trailing_whitespace": (
        "x = 1\rdef f():\r    a = 1  \r    b = 2\r",
        "a = 1\n    b = 2",
        "a = 3\n    b = 2",
        "x = 1\rdef f():\r    a = 3\r    b = 2\r",
    ),
}


def _read_then_edit(project: Path, content: str, old: str, new: str) -> tuple[Path, fstools.ToolResult]:
    """f.txt holding `content`, read in a fresh context, then edited."""
    path = project / "f.txt"
    path.write_bytes(content.encode())
    ctx = fstools.ExecutionContext(working_dir=str(project))
    fstools.read(str(path), ctx=ctx)
    return path, fstools.edit(str(path), old, new, ctx=ctx)


@pytest.mark.parametrize("case", sorted(AIDER_CASES))
def test_edit_matches_as_aider_expects(project: Path, case: str) -> None:
    content, old, new, expected = AIDER_CASES[case]
    path, result = _read_then_edit(project, content, old, new)
    assert result.success, result.error
    assert path.read_bytes() == expected.encode()


def test_a_leading_blank_line_does_not_make_an_ambiguous_rest_unique(project: Path) -> None:
    path, result = _read_then_edit(project, "a\nx = 1\nb\nx = 1\n", "\n\nx = 1\n", "\n\nx = 2\n")
    assert result.error_code == "not_unique" and path.read_text() == "a\nx = 1\nb\nx = 1\n"


def test_an_offset_with_file_lines_at_different_depths_is_not_guessed(project: Path) -> None:
    # old_string's lines share one indentation but the file's matched lines do not: no one
    # shift; the line-by-line re-indent keeps each line's own depth.
    path, result = _read_then_edit(project, "if x:\n    a()\n        b()\n", " a()\n b()\n", " a2()\n b2()\n")
    assert result.success and path.read_text() == "if x:\n    a2()\n        b2()\n"


def test_aider_replaces_the_first_of_several_matches_fstools_refuses(project: Path) -> None:
    # aider: test_replace_multiple_matches replaces the first; an Edit must not guess.
    _, result = _read_then_edit(project, "line1\nline2\nline1\nline3\n", "line1\n", "new_line\n")
    assert result.error_code == "not_unique" and result.metadata["lines"] == [1, 3]


# codex apply-patch ------------------------------------------------------------------------
CODEX_CASES = {
    # lib.rs: test_pure_addition_chunk_followed_by_removal. The addition goes to the end of the
    # file and the next hunk still edits the top.
    "pure_addition_chunk_followed_by_removal": (
        "line1\nline2\nline3\n",
        "@@\n+after-context\n+second-line\n@@\n line1\n-line2\n-line3\n+line2-replacement\n",
        "line1\nline2-replacement\nafter-context\nsecond-line\n",
    ),
    # tests/fixtures/scenarios/016_pure_addition_update_chunk.
    "pure_addition_update_chunk": (
        "line1\nline2\n",
        "@@\n+added line 1\n+added line 2\n",
        "line1\nline2\nadded line 1\nadded line 2\n",
    ),
    # lib.rs: test_update_file_hunk_interleaved_changes.
    "interleaved_changes": (
        "a\nb\nc\nd\ne\nf\n",
        "@@\n a\n-b\n+B\n@@\n c\n d\n-e\n+E\n@@\n f\n+g\n*** End of File\n",
        "a\nB\nc\nd\nE\nf\ng\n",
    ),
    # lib.rs: test_multiple_update_chunks_apply_to_single_file.
    "multiple_update_chunks": (
        "foo\nbar\nbaz\nqux\n",
        "@@\n foo\n-bar\n+BAR\n@@\n baz\n-qux\n+QUX\n",
        "foo\nBAR\nbaz\nQUX\n",
    ),
    # Two pure additions keep their order at the end of the file.
    "two_pure_additions": (
        "a\nb\n",
        "@@\n+x\n@@\n+y\n@@\n a\n-b\n+B\n",
        "a\nB\nx\ny\n",
    ),
}


@pytest.mark.parametrize("case", sorted(CODEX_CASES))
def test_apply_patch_as_codex_applies_it(project: Path, case: str) -> None:
    content, hunks, expected = CODEX_CASES[case]
    path = project / "f.txt"
    path.write_text(content)
    patch = f"*** Begin Patch\n*** Update File: f.txt\n{hunks}*** End Patch"
    result = fstools.apply_patch(patch, ctx=fstools.ExecutionContext(working_dir=str(project)))
    assert result.success, result.error
    assert path.read_text() == expected
