"""The V4A grammar as codex and opencode accept it: every construct, the lenient habits, and malformed input."""

from __future__ import annotations

import pytest

from fstools._change.v4a import (
    AddFile,
    DeleteFile,
    Hunk,
    PatchSyntaxError,
    UpdateFile,
    parse_add_diff,
    parse_patch,
    parse_update_diff,
)
from tests.helpers.samples import GPT41_GUIDE_PATCH

# The shape of codex's own parser test (codex-rs/apply-patch/src/parser.rs): all three operations and a move.
EVERY_OPERATION = """*** Begin Patch
*** Add File: path/add.py
+abc
+def
*** Delete File: path/delete.py
*** Update File: path/update.py
*** Move to: path/update2.py
@@ def f():
-    pass
+    return 123
*** End Patch"""

# OpenAI's GPT-4.1 prompting guide's example: nested @@ anchors, blank lines between hunks.
NESTED_ANCHORS = GPT41_GUIDE_PATCH


def test_every_operation():
    assert parse_patch(EVERY_OPERATION) == [
        AddFile("path/add.py", ("abc", "def"), 2),
        DeleteFile("path/delete.py", 5),
        UpdateFile(
            "path/update.py",
            "path/update2.py",
            (Hunk(("def f():",), (("-", "    pass"), ("+", "    return 123")), False, 8),),
            6,
        ),
    ]


def test_nested_anchors_and_blank_lines():
    (op,) = parse_patch(NESTED_ANCHORS)
    assert isinstance(op, UpdateFile)
    first, second = op.hunks
    assert first.anchors == ("class BaseClass", "def search():")
    assert second.anchors == ("class Subclass", "def search():")
    # A blank line inside a hunk is an empty context line (codex reads it so too).
    assert first.lines == (("-", "          pass"), ("+", "          raise NotImplementedError()"), (" ", ""))
    assert first.old == ["          pass", ""] and first.new == ["          raise NotImplementedError()", ""]


def test_first_hunk_may_omit_its_header_and_end_of_file_marks_the_hunk():
    (op,) = parse_patch("*** Begin Patch\n*** Update File: a.txt\n import foo\n+bar\n*** End of File\n*** End Patch")
    assert isinstance(op, UpdateFile)
    assert op.hunks == (Hunk((), ((" ", "import foo"), ("+", "bar")), True, 3),)


@pytest.mark.parametrize(
    "header, anchors",
    [
        ("@@", ()),
        ("@@ def f():", ("def f():",)),
        ("@@ def f(): @@", ("def f():",)),  # a closing @@ as some models write it
        ("@@ -3,4 +3,5 @@", ()),  # a unified-diff range names no line
        ("@@ -3,4 +3,5 @@ def f():", ("def f():",)),
        ("  @@   class A  ", ("class A",)),
    ],
)
def test_hunk_headers(header, anchors):
    (op,) = parse_patch(f"*** Begin Patch\n*** Update File: a\n{header}\n-x\n+y\n*** End Patch")
    assert isinstance(op, UpdateFile) and op.hunks[0].anchors == anchors


def test_lenient_envelopes():
    body = "*** Begin Patch\n*** Delete File: gone.txt\n*** End Patch"
    expected = [DeleteFile("gone.txt", 2)]
    assert parse_patch(f"\n\n  {body}  \n\n") == [DeleteFile("gone.txt", 4)]
    assert parse_patch(f"<<'EOF'\n{body}\nEOF\n") == [DeleteFile("gone.txt", 3)]  # lines of the text as given
    assert parse_patch(f"```\n{body}\n```") == [DeleteFile("gone.txt", 3)]
    assert parse_patch(body.replace("\n", "\r\n")) == [DeleteFile("gone.txt", 2)]
    assert parse_patch("  *** Begin Patch  \n   *** Delete File:   gone.txt  \n *** End Patch ") == expected


def test_add_file_lines_keep_their_text_and_an_empty_add_is_an_empty_file():
    ops = parse_patch("*** Begin Patch\n*** Add File: a\n+  x  \n+\n*** Add File: b\n*** End Patch")
    assert ops == [AddFile("a", ("  x  ", ""), 2), AddFile("b", (), 5)]


def test_a_pure_rename_needs_no_hunk():
    (op,) = parse_patch("*** Begin Patch\n*** Update File: a\n*** Move to: b\n*** End Patch")
    assert op == UpdateFile("a", "b", (), 2)


@pytest.mark.parametrize(
    "patch, message, line",
    [
        ("", "first line of the patch must be '*** Begin Patch'", 0),
        ("*** Update File: a\n-x\n+y\n*** End Patch", "first line of the patch must be '*** Begin Patch'", 1),
        ("*** Begin Patch\n*** Update File: a\n-x\n+y\n", "last line of the patch must be '*** End Patch'", 4),
        ("*** Begin Patch\n*** End Patch", "no file operation", 1),
        ("*** Begin Patch\n*** Rename File: a\n*** End Patch", "'*** Rename File: a' is not a valid file header", 2),
        ("*** Begin Patch\n--- a/x\n+++ b/x\n*** End Patch", "'--- a/x' is not a valid file header", 2),
        ("*** Begin Patch\n*** Update File: a\n*** End Patch", "Update File for 'a' has no hunk", 2),
        ("*** Begin Patch\n*** Update File: a\n@@\n*** End Patch", "A hunk of 'a' contains no lines", 3),
        ("*** Begin Patch\n*** Update File: a\n@@\nx = 1\n*** End Patch", "Unexpected line in a hunk of 'a'", 4),
        (
            "*** Begin Patch\n*** Update File: a\n@@\n-x\nbad\n*** End Patch",
            "Expected a hunk of 'a' to start with an '@@' line, got: 'bad'",
            5,
        ),
        ("*** Begin Patch\n*** Add File:\n+x\n*** End Patch", "'*** Add File:' needs a path", 2),
        ("*** Begin Patch\n*** Add File: a\nx\n*** End Patch", "'x' is not a valid file header", 3),
    ],
)
def test_malformed_patches_say_what_and_where(patch, message, line):
    with pytest.raises(PatchSyntaxError) as caught:
        parse_patch(patch)
    assert message in caught.value.message and caught.value.line == line
    assert str(caught.value) == (f"line {line}: {caught.value.message}" if line else caught.value.message)


def test_responses_diffs():
    update = parse_update_diff("@@ def fib(n):\n-    return n\n+    return 1\n", "lib/fib.py")
    assert update == UpdateFile(
        "lib/fib.py", None, (Hunk(("def fib(n):",), (("-", "    return n"), ("+", "    return 1")), False, 1),), 0
    )
    assert parse_add_diff("+a\n+\n+b\n", "x") == AddFile("x", ("a", "", "b"), 0)
    assert parse_add_diff("", "x") == AddFile("x", (), 0)


@pytest.mark.parametrize(
    "diff, message",
    [
        ("", "has no hunk"),
        ("@@\n-x\n*** Delete File: other.txt\n", "Unexpected line in the diff"),  # no smuggled operations
        ("just text\n", "Unexpected line in a hunk"),
    ],
)
def test_malformed_update_diffs(diff, message):
    with pytest.raises(PatchSyntaxError, match=message):
        parse_update_diff(diff, "a.txt")


def test_a_new_files_diff_is_all_plus_lines():
    with pytest.raises(PatchSyntaxError, match="must start with '\\+'") as caught:
        parse_add_diff("+a\nb\n", "x")
    assert caught.value.line == 2


def test_blank_lines_between_files_and_hunks_and_a_no_newline_marker():
    patch = "*** Begin Patch\n\n*** Update File: a\n@@\n-x\n+y\n\\ No newline at end of file\n\n\n*** Delete File: b\n*** End Patch"
    update, delete = parse_patch(patch)
    # Blank lines inside a hunk are empty context lines (placing the hunk may drop them again).
    assert isinstance(update, UpdateFile) and update.hunks[0].lines == (("-", "x"), ("+", "y"), (" ", ""), (" ", ""))
    assert delete == DeleteFile("b", 10)
