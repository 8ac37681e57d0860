"""Kept trees: an incremental parse of the changed window gives the tree a full parse gives."""

from __future__ import annotations

import os
import random

import pytest

from fstools._syntax import trees
from fstools._syntax.check import check_text
from fstools._syntax.compare import window
from fstools._syntax.languages import LANGUAGES, parse

C_SOURCE = b"""#include <stdio.h>

struct point { int x, y; };

static int add(int a, int b)
{
\treturn a + b; /* the sum */
}

int main(void)
{
\tstruct point p = { .x = 1, .y = 2 };
\tprintf("%d\\n", add(p.x, p.y));
\treturn 0;
}
"""


def _python_source() -> bytes:
    with open(os.path.join(os.path.dirname(os.__file__), "json", "decoder.py"), "rb") as f:
        return f.read()


@pytest.mark.parametrize(("name", "source"), [("python", _python_source()), ("c", C_SOURCE)])
def test_incremental_trees_equal_full_parses_over_random_edits(name: str, source: bytes) -> None:
    language, rng = LANGUAGES[name], random.Random(7)
    trees.clear()
    pieces = [b"(", b")", b"{", b"}", b";", b"\n", b"x = 1\n", b"'", b'"', b"  ", b"# c\n", b"/* c */", b""]
    old = source
    trees.parse_change(language, "/f", b"", old, window(b"", old))
    for _ in range(60):
        at = rng.randrange(len(old) + 1)
        cut = rng.choice([0, 0, 1, 3])
        new = old[:at] + rng.choice(pieces) + old[at + cut :]
        tree, before = trees.parse_change(language, "/f", old, new, window(old, new))
        assert before is not None, "the kept tree was the old text's"
        full = parse(language, new)
        assert tree is not None and full is not None
        assert str(tree.root_node) == str(full.root_node)
        assert str(before.root_node) == str(parse(language, old).root_node)  # the kept tree is left unedited
        old = new


def test_a_kept_tree_of_other_text_is_not_used() -> None:
    python = LANGUAGES["python"]
    trees.clear()
    trees.parse_change(python, "/g", b"", b"x = 1\n", window(b"", b"x = 1\n"))
    tree, before = trees.parse_change(python, "/g", b"y = 2\n", b"y = (2\n", window(b"y = 2\n", b"y = (2\n"))
    assert before is None and tree is not None and tree.root_node.has_error


def test_checks_in_a_row_report_as_fresh_ones() -> None:
    trees.clear()
    text = _python_source().decode()
    steps = [text.replace("def ", "def  ", 1), text.replace("return", "return (", 1), text]
    previous = text
    for step in steps:
        kept = check_text(previous, step, "python", "/h.py")
        trees.clear()
        fresh = check_text(previous, step, "python", "/h.py")
        assert kept == fresh
        previous = step


def test_the_cache_is_bounded() -> None:
    trees.clear()
    python = LANGUAGES["python"]
    for n in range(trees.MAX_TREES + 5):
        trees.parse_change(python, f"/k{n}", b"", b"x = 1\n", window(b"", b"x = 1\n"))
    assert len(trees._trees) == trees.MAX_TREES
    assert ("python", "/k0") not in trees._trees
