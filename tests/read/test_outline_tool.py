"""The Outline tool on files, and Read by symbol: exactly a definition's lines, as Read numbers them."""

from __future__ import annotations

from pathlib import Path

import pytest

import fstools
from fstools._read.outline import outline
from tests.helpers.trees import write

PARSER = '''\
import re


class Parser:
    """Splits text."""

    def __init__(self, sep):
        self.sep = sep

    @staticmethod
    def feed(data):
        return data.split()


class Other:
    def feed(self, data):
        return [data]


def main():
    return Parser(" ").feed("a b")
'''


@pytest.fixture
def parser_py(project: Path) -> Path:
    return write(project / "parser.py", PARSER)


def test_a_file_outline_and_its_symbols(parser_py, ctx):
    r = outline(str(parser_py), ctx=ctx)
    assert r.success, r.error
    assert r.output == (
        "  4-12  class Parser\n"
        "  7-8    def __init__(self, sep)\n"
        "  10-12    def feed(data)\n"
        "  15-17  class Other\n"
        "  16-17    def feed(self, data)\n"
        "  20-21  def main()"
    )
    assert r.metadata["symbols"][2] == {
        "name": "feed",
        "kind": "method",
        "start_line": 10,
        "end_line": 12,
        "parent": "Parser",
    }
    assert r.metadata["language"] == "python" and r.metadata["count"] == 6
    assert ctx.read_record(str(parser_py)) is None  # an outline shows none of the file


def test_read_symbol_is_exactly_reads_lines(parser_py, ctx):
    r = fstools.read(str(parser_py), symbol="Parser.feed", ctx=ctx)
    window = fstools.read(str(parser_py), offset=10, limit=3, ctx=ctx)
    assert r.success and r.output == window.output.rsplit("\n", 1)[0]  # Read's lines, without its notice
    assert r.output == "    10\t    @staticmethod\n    11\t    def feed(data):\n    12\t        return data.split()"
    assert r.metadata["symbol"] == "Parser.feed" and r.metadata["kind"] == "method"
    assert r.metadata["truncated"] is False and "next_offset" not in r.metadata
    assert fstools.read(str(parser_py), symbol="main", ctx=ctx).output == (
        '    20\tdef main():\n    21\t    return Parser(" ").feed("a b")'
    )


def test_read_symbol_counts_as_read(parser_py, ctx):
    fstools.read(str(parser_py), symbol="main", ctx=ctx)
    assert fstools.edit(str(parser_py), "a b", "c d", ctx=ctx).success


def test_an_ambiguous_symbol_lists_the_candidates(parser_py, ctx):
    r = fstools.read(str(parser_py), symbol="feed", ctx=ctx)
    assert r.error_code == "invalid_argument"
    assert r.error == (
        f"'feed' names 2 definitions in {parser_py}:\n"
        "  10-12    def feed(data)   (Parser.feed)\n"
        "  16-17    def feed(self, data)   (Other.feed)\n"
        "Give a qualified name, or read one by offset and limit"
    )
    assert [c["start_line"] for c in r.metadata["candidates"]] == [10, 16]


def test_an_unknown_symbol_shows_the_outline(parser_py, ctx):
    r = fstools.read(str(parser_py), symbol="Parser.eat", ctx=ctx)
    assert r.error_code == "not_found"
    assert r.error.startswith(f"No definition named 'Parser.eat' in {parser_py}. Its outline:\n  4-12  class Parser\n")
    assert len(r.metadata["symbols"]) == 6


def test_a_long_definition_is_cut_at_limit_with_reads_notice(project, ctx):
    path = write(project / "long.py", "def big():\n" + "".join(f"    x{i} = {i}\n" for i in range(50)) + "\n\nZ = 1\n")
    r = fstools.read(str(path), symbol="big", limit=10, ctx=ctx)
    assert r.metadata["truncated"] is True and r.output.endswith(
        "[Showing lines 1-10 of 54. Use offset=11 to read more.]"
    )


@pytest.mark.parametrize(
    ("arguments", "code", "words"),
    [
        ({"offset": 5}, "invalid_argument", "symbol reads one definition whole: it takes no offset"),
        ({"pages": "1"}, "invalid_argument", "it takes no offset or pages"),
    ],
)
def test_symbol_with_offset_or_pages_is_refused(parser_py, ctx, arguments, code, words):
    r = fstools.read(str(parser_py), symbol="main", ctx=ctx, **arguments)
    assert r.error_code == code and words in r.error


def test_a_blank_symbol_is_a_plain_read(parser_py, ctx):
    assert fstools.read(str(parser_py), symbol="", ctx=ctx).output == fstools.read(str(parser_py), ctx=ctx).output


@pytest.mark.parametrize(
    ("name", "content", "code", "words"),
    [
        ("data.json", '{"a": 1}\n', "invalid_argument", "No outline for JSON files"),
        ("notes.txt", "hello\n", "invalid_argument", "No outline for this kind of file"),
        ("blob.py", b"\x00\x01binary", "binary_file", "Cannot outline binary file"),
    ],
)
def test_files_without_an_outline(project, ctx, name, content, code, words):
    path = write(project / name, content)
    r = outline(str(path), ctx=ctx)
    assert r.error_code == code and words in r.error, r.error
    assert fstools.read(str(path), symbol="x", ctx=ctx).error_code == code


def test_missing_outside_and_secret_paths(project, ctx, tmp_path):
    assert outline(str(project / "gone.py"), ctx=ctx).error_code == "file_not_found"
    write(tmp_path / "out.py", "def f(): pass\n")
    assert outline(str(tmp_path / "out.py"), ctx=ctx).error_code == "path_outside_workspace"
    write(project / ".env.py", "def f(): pass\n")
    assert outline(str(project / ".env.py"), ctx=ctx).error_code == "sensitive_path"


def test_an_empty_source_file(project, ctx):
    path = write(project / "empty.py", "X = 1\n")
    r = outline(str(path), ctx=ctx)
    assert r.success and r.output == f"(no definitions found in {path})" and r.metadata["symbols"] == []


MACRO_PER_BRANCH = """#include <x.h>
#ifdef CONFIG_X
#define FOO(a) 1
#else
#define FOO(a) \\
	0
#endif
int use(int a) { return FOO(a); }
"""


def test_a_macro_defined_in_each_branch_reads_every_definition_in_file_order(project, ctx):
    """No qualified name tells `#if` branches apart: Read shows each, as Outline and Symbols list each."""
    path = write(project / "foo.c", MACRO_PER_BRANCH)
    r = fstools.read(str(path), symbol="FOO", ctx=ctx)
    assert r.success, r.error
    assert r.output == (
        "     3\t#define FOO(a) 1\n--\n     5\t#define FOO(a) \\\n     6\t\t0\n"
        "[FOO has 2 definitions here (lines 3-3, 5-6), shown in file order]"
    )
    assert r.metadata["symbol"] == "FOO" and r.metadata["kind"] == "macro" and r.metadata["truncated"] is False
    assert [(d["start_line"], d["end_line"]) for d in r.metadata["definitions"]] == [(3, 3), (5, 6)]
    lines = [s for s in fstools.outline(str(path), ctx=ctx).metadata["symbols"] if s["name"] == "FOO"]
    assert [(s["start_line"], s["end_line"]) for s in lines] == [(3, 3), (5, 6)]
    found = fstools.symbols("FOO", path=str(project), exact=True, ctx=ctx).metadata["symbols"]
    assert [(s["start_line"], s["end_line"]) for s in found] == [(3, 3), (5, 6)]


def test_the_definitions_of_one_name_are_cut_at_limit_and_the_rest_named(project, ctx):
    path = write(project / "foo.c", MACRO_PER_BRANCH)
    r = fstools.read(str(path), symbol="FOO", limit=2, ctx=ctx)
    assert r.success and r.metadata["truncated"] is True and r.metadata["lines_read"] == 2
    assert r.output == (
        "     3\t#define FOO(a) 1\n--\n     5\t#define FOO(a) \\\n[Showing lines 5-5 of 8. Use offset=6 to read "
        "more.]\n[FOO has 2 definitions here (lines 3-3, 5-6), shown in file order; cut at limit=2]"
    )
    first = fstools.read(str(path), symbol="FOO", limit=1, ctx=ctx)
    assert first.output.endswith("cut at limit=1; not shown: the one at line 5]")


def _macro_per_branch(branches: int, lines: int) -> str:
    """A macro of `lines` long continuation lines defined once in each of `branches` `#if` branches."""
    body = "".join(f"\tx{i} = {'y' * 90}; \\\n" for i in range(lines))
    heads = ["#if V == 0"] + [f"#elif V == {n}" for n in range(1, branches)]
    groups = "".join(f"{head}\n#define FOO(a) \\\n{body}\t{n}\n" for n, head in enumerate(heads))
    return f"{groups}#endif\nint use(int a) {{ return FOO(a); }}\n"


@pytest.mark.parametrize(("branches", "lines"), [(2, 600), (12, 120)])
def test_the_definitions_of_one_name_share_one_page_of_characters(project, ctx, branches, lines):
    """Each definition fits a page, all of them together do not: the page's bound holds for the whole
    answer (cut inside a definition or between two), and the note says it was the page, not the limit."""
    from fstools._read.window import MAX_READ_CHARS

    path = write(project / "foo.c", _macro_per_branch(branches, lines))
    r = fstools.read(str(path), symbol="FOO", ctx=ctx)
    assert r.success, r.error
    assert len(r.output) <= MAX_READ_CHARS, len(r.output)
    assert r.metadata["truncated"] is True and len(r.metadata["definitions"]) == branches
    assert r.output.endswith(f"shown in file order; a page stops at {MAX_READ_CHARS:,} characters]") or (
        f"; a page stops at {MAX_READ_CHARS:,} characters; not shown:" in r.output.split("\n")[-1]
    )
