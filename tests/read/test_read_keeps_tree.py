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


def test_reads_faster_than_parsing_queue_no_more_text_than_the_trees_kept(tmp_path):
    # A loop of reads of large files queues a parse per file; the kept trees hold at most
    # MAX_SOURCE_BYTES of text, so parsing (and holding) more than that ahead is waste, and a
    # check waiting for its file's tree must not wait behind every file read before it.
    trees.clear()
    python = LANGUAGES["python"]
    big = SOURCE.encode() * 40  # ~1 MB: each takes far longer to parse than to queue
    for i in range(40):
        trees.prime(python, str(tmp_path / f"f{i}.py"), big + b"#%d\n" % i)
    count, size = trees.pending()
    assert size <= trees.MAX_SOURCE_BYTES and count <= trees.MAX_TREES, (count, size)
    for i in range(40):
        trees.settled(str(tmp_path / f"f{i}.py"), python)
    assert trees.pending() == (0, 0)
    assert sum(len(s) for s, _ in trees._trees.values()) <= trees.MAX_SOURCE_BYTES


def _tree_text(node) -> list[tuple]:
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        out.append((n.type, n.start_byte, n.end_byte, n.is_missing, n.has_error))
        stack.extend(reversed(n.children))
    return out


def test_a_tree_kept_after_a_read_is_the_tree_of_parsing_now_and_checks_alike(tmp_path):
    from fstools._syntax.check import check_text, prime_after_read
    from fstools._syntax.languages import parse

    python = LANGUAGES["python"]
    old = SOURCE.encode()
    edits = [(b"return x + 5\n", b"return x + (5\n"), (b"def f9(x):", b"def f9(x:"), (b"return x + 7\n", b"return x\n")]
    for i, (was, now) in enumerate(edits):
        path = str(tmp_path / f"d{i}.py")
        trees.clear()
        prime_after_read(path, old)
        trees.settled(path, python)
        assert _tree_text(trees._trees[("python", path)][1].root_node) == _tree_text(parse(python, old).root_node)
        new = old.replace(was, now, 1).decode()
        primed = check_text(old.decode(), new, python, path)
        trees.clear()
        fresh = check_text(old.decode(), new, python, path)
        assert primed == fresh and (bool(fresh) == (i < 2)), (primed, fresh)
