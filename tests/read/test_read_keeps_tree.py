"""Read parses a source file in the background, so the check of the change that follows reparses only its window."""

from __future__ import annotations

import fstools
from fstools._syntax import trees
from fstools._syntax.compare import window
from fstools._syntax.languages import LANGUAGES

SOURCE = "".join(f"def f{i}(x):\n    return x + {i}\n\n" for i in range(700))


def _after_read(path: str, **ctx_options) -> tuple[bytes, object]:
    python = LANGUAGES["python"]
    old = open(path, "rb").read()
    new = old.replace(b"return x + 5\n", b"return x + 6\n", 1)
    trees.settled(path, python)
    _, before = trees.parse_change(python, path, old, new, window(old, new))
    return new, before


def test_a_read_python_file_is_parsed_for_the_next_check(tmp_path):
    trees.clear()
    path = tmp_path / "big.py"
    path.write_text(SOURCE)
    ctx = fstools.ExecutionContext(working_dir=str(tmp_path))
    assert fstools.read(str(path), limit=10, ctx=ctx).success  # a window is enough: the tree is the file's
    _, before = _after_read(str(path))
    assert before is not None  # the change's check edited the tree Read left, instead of parsing anew


def test_an_edit_after_a_read_is_checked_with_the_kept_tree(tmp_path):
    trees.clear()
    path = tmp_path / "big.py"
    path.write_bytes(b"\xef\xbb\xbf" + SOURCE.encode())  # a BOM: the text a change checks has none
    ctx = fstools.ExecutionContext(working_dir=str(tmp_path))
    assert fstools.read(str(path), ctx=ctx).success
    trees.settled(str(path), LANGUAGES["python"])
    result = fstools.edit(str(path), "return x + 5\n", "return x + (5\n", ctx=ctx)
    assert result.success and result.metadata["diagnostics"], result.metadata
    # The check left the tree of the new text: the kept text is the file without its BOM.
    assert trees._trees[("python", str(path))][0] == path.read_bytes()[3:]


def test_nothing_is_parsed_when_checks_are_off_or_for_read_many(tmp_path):
    trees.clear()
    path = tmp_path / "m.py"
    path.write_text(SOURCE)
    off = fstools.ExecutionContext(working_dir=str(tmp_path), check_syntax="off")
    assert fstools.read(str(path), ctx=off).success
    assert _after_read(str(path))[1] is None
    trees.clear()
    assert fstools.read_many([str(path)], ctx=fstools.ExecutionContext(working_dir=str(tmp_path))).success
    assert _after_read(str(path))[1] is None


def test_a_read_after_a_check_replaces_the_tree_the_check_kept(tmp_path):
    trees.clear()
    path = tmp_path / "m.py"
    path.write_text(SOURCE)
    ctx = fstools.ExecutionContext(working_dir=str(tmp_path))
    assert fstools.read(str(path), ctx=ctx).success
    assert fstools.edit(str(path), "return x + 5\n", "return x + 50\n", ctx=ctx).success  # keeps the new text's tree
    path.write_text(SOURCE)  # another program puts the old text back; the agent reads it again
    assert fstools.read(str(path), ctx=ctx).success
    assert _after_read(str(path))[1] is not None
