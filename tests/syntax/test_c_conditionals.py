"""C conditional compilation that splits a definition between branches, against universal-ctags.

Each case is a file written the way real C splits code with `#if`: a function head per
configuration, a parameter, an initializer's members, an `if` in a body, an `#else` of
`#if 0`. The definitions are written out, checked against ctags where it is installed, and
the parse of each is whole (no partial-parse warning).
"""

from __future__ import annotations

import os

import pytest

import fstools
from fstools._syntax.conditionals import hidden
from fstools._syntax.languages import LANGUAGES
from fstools._syntax.names import FileNames, file_names
from fstools._syntax.outline import extract
from tests.helpers.trees import write
from tests.syntax.test_c_definitions import ctags, needs_ctags, ours

C = LANGUAGES["c"]

SPLIT_HEAD = """#ifdef X
int split(int a) {
#else
int split(long a) {
#endif
\treturn helper2(a);
}
#define helper2(x) ((x) + 1)
"""

# name -> (source, the definitions as (kind, qualified name, first line, last line))
CASES: dict[str, tuple[str, list[tuple[str, str, int, int]]]] = {
    "split_head.c": (SPLIT_HEAD, [("function", "split", 2, 7), ("macro", "helper2", 8, 8)]),
    "parameter.c": (
        "int f(int a,\n#ifdef X\n      int b\n#else\n      long b\n#endif\n      )\n{\n\treturn a + b;\n}\n"
        "int after(void) { return 0; }\n",
        [("function", "f", 1, 10), ("function", "after", 11, 11)],
    ),
    "fields.c": (
        "struct s {\n\tint x;\n#if A\n\tint a;\n#else\n\tlong a;\n#endif\n\tint y;\n};\nint after(void) { return 0; }\n",
        [("struct", "s", 1, 9), ("function", "after", 10, 10)],
    ),
    "whole_functions.c": (
        "#ifdef X\nint both(int a) { return 1; }\n#else\nint both(long a) { return 2; }\n#endif\n"
        "int after(void) { return 0; }\n",
        [("function", "both", 2, 2), ("function", "both", 4, 4), ("function", "after", 6, 6)],
    ),
    "if0.c": (
        "#if 0\nint old(int a) {\n#else\nint cur(int a) {\n#endif\n\treturn a;\n}\nint after(void) { return 0; }\n",
        [("function", "cur", 4, 7), ("function", "after", 8, 8)],
    ),
    "body.c": (
        "int g(int a)\n{\n#ifdef A\n\tif (a > 1) {\n#else\n\tif (a > 2) {\n#endif\n\t\ta++;\n\t}\n\treturn a;\n}\n"
        "int after(void) { return 0; }\n",
        [("function", "g", 1, 11), ("function", "after", 12, 12)],
    ),
    "struct_head.c": (
        "#ifdef A\nstruct s1 {\n#else\nstruct s2 {\n#endif\n\tint x;\n};\nint after(void) { return 0; }\n",
        [("struct", "s1", 2, 7), ("function", "after", 8, 8)],
    ),
    "elif.c": (
        "#if defined(A)\nstatic int h(int a) {\n#elif defined(B)\nstatic int h(short a) {\n#else\n"
        "static int h(long a) {\n#endif\n\treturn a;\n}\nint after(void) { return 0; }\n",
        [("function", "h", 2, 9), ("function", "after", 10, 10)],
    ),
    "extern_c.c": (
        '#ifdef __cplusplus\nextern "C" {\n#endif\nint k(void);\nint k2(void) { return 1; }\n'
        "#ifdef __cplusplus\n}\n#endif\nint after(void) { return 0; }\n",
        [("function", "k2", 5, 5), ("function", "after", 9, 9)],
    ),
    "initializer.c": (
        "static const struct file_operations fops = {\n\t.open = x_open,\n#ifdef CONFIG_COMPAT\n"
        "\t.compat_ioctl = x_ioctl,\n#endif\n\t.release = x_release,\n};\nint after(void) { return 0; }\n",
        [("function", "after", 8, 8)],
    ),
    "else_if.c": (
        "int w(int a)\n{\n\tif (a == 1) {\n\t\ta++;\n#ifdef X\n\t} else if (a == 2) {\n\t\ta--;\n#endif\n\t}\n"
        "\treturn a;\n}\nint after(void) { return 0; }\n",
        [("function", "w", 1, 11), ("function", "after", 12, 12)],
    ),
    "call.c": (
        "int c(int a)\n{\n\treturn foo(a,\n#ifdef X\n\t\t1\n#else\n\t\t2\n#endif\n\t\t);\n}\n"
        "int after(void) { return 0; }\n",
        [("function", "c", 1, 10), ("function", "after", 11, 11)],
    ),
    "nested.c": (
        "#ifdef X\nint n(int a) {\n#ifdef Y\n\tif (a) {\n#else\n\tif (!a) {\n#endif\n#else\nint n(long a) {\n\t{\n"
        "#endif\n\t\ta++;\n\t}\n\treturn a;\n}\nint after(void) { return 0; }\n",
        [("function", "n", 2, 15), ("function", "after", 16, 16)],
    ),
    "enum.c": (
        "enum e {\n\tE1,\n#ifdef X\n\tE2,\n#else\n\tE3,\n#endif\n\tE4,\n};\nint after(void) { return 0; }\n",
        [("enum", "e", 1, 9), ("function", "after", 10, 10)],
    ),
    "closing_in_branches.c": (
        "int t2(int a)\n{\n\ta++;\n#ifdef X\n\treturn a;\n}\n#else\n\treturn -a;\n}\n#endif\n"
        "int after(void) { return 0; }\n",
        [("function", "t2", 1, 6), ("function", "after", 11, 11)],
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_split_parses_whole_with_the_definitions_as_written(tmp_path, name):
    source, expected = CASES[name]
    found = extract(C, source.encode())
    assert found is not None
    assert [(s.kind, s.qualified, s.start_line, s.end_line) for s in found.symbols] == expected
    assert found.error_lines == []


@needs_ctags
def test_the_cases_agree_with_ctags(tmp_path):
    paths = [write(tmp_path / name, source) for name, (source, _) in CASES.items()]
    theirs = ctags(*paths)
    for path in paths:
        assert ours(path) == theirs[str(path)], path.name


def test_a_split_head_is_one_definition_with_both_heads_its_names(tmp_path):
    path = write(tmp_path / "split.c", SPLIT_HEAD)
    ctx = fstools.ExecutionContext(working_dir=str(tmp_path))
    symbols = fstools.symbols("split", ctx=ctx)
    assert symbols.output == f"{path}:2-7  function  split  — int split(int a) {{"
    assert "warnings" not in symbols.metadata and "parse_errors" not in symbols.metadata
    uses = fstools.references("split", ctx=ctx)
    assert uses.output.splitlines()[:2] == [
        f"{path}:2:5  def  in (top level)  int split(int a) {{",
        f"{path}:4:5  def  in (top level)  int split(long a) {{",
    ]
    assert uses.metadata["definitions"] == 1
    helper = fstools.references("helper2", ctx=ctx)
    assert [(u["line"], u["kind"], u["enclosing"]) for u in helper.metadata["references"]] == [
        (6, "ref", "split"),
        (8, "def", None),
    ]
    read = fstools.read(str(path), symbol="split", ctx=ctx)
    assert read.success, read.error
    assert [line.split("\t", 1)[1] for line in read.output.splitlines()] == SPLIT_HEAD.splitlines()[1:7]
    outline = fstools.outline(str(path), ctx=ctx)
    assert outline.output.splitlines() == ["  2-7  int split(int a)", "  8-8  #define helper2(x)"]


def test_the_code_of_blanked_branches_is_still_used_names(tmp_path):
    source, _ = CASES["elif.c"]
    names = file_names(C, source.encode())
    assert isinstance(names, FileNames)
    # The condition names, and the parameters of the two heads not parsed; no directive word is a name.
    assert [(o.line, o.kind) for o in names.occurrences("B")] == [(3, "ref")]
    assert [(o.line, o.kind) for o in names.occurrences("A")] == [(1, "ref")]
    assert [o.line for o in names.occurrences("a")] == [2, 4, 6, 8]
    assert [(o.line, o.kind) for o in names.occurrences("h")] == [(2, "def"), (4, "def"), (6, "def")]
    for word in ("elif", "endif", "include", "defined"):
        assert names.occurrences(word) == []
    include = file_names(C, b"#if 0\nint f(void) {\n#include <linux/list.h>\n#else\nint g(void) {\n#endif\n}\n")
    assert include is not None and include.occurrences("linux") == [] and include.occurrences("list") == []


def test_groups_the_grammar_reads_are_left_alone():
    for name in ("fields.c", "whole_functions.c", "enum.c"):
        assert hidden(CASES[name][0].encode()).blank == [], name
    assert hidden(b"int f(void) { return 0; }\n").blank == []
    # An `#endif` missing, or one with no `#if`: nothing to resolve, the parser reads what it can.
    assert hidden(b"#ifdef X\nint f(void) {\n#else\nint f(long a) {\n").blank == []
    assert hidden(b"#endif\nint f(void) { return 0; }\n").blank == []


def test_braces_in_strings_comments_and_macro_bodies_do_not_count(tmp_path):
    source = (
        '#ifdef X\nconst char *s = "{";\n/* { */\n#define OPEN {\n#else\nconst char *s = "}";\n#endif\n'
        "int after(void) { return 0; }\n"
    )
    assert hidden(source.encode()).blank == []
    found = extract(C, source.encode())
    assert found is not None and [s.name for s in found.symbols] == ["OPEN", "after"]


def test_a_line_count_and_every_offset_stay(tmp_path):
    source, _ = CASES["nested.c"]
    data = source.encode()
    found = extract(C, data)
    assert found is not None
    assert len(found.parsed) == len(data) and found.parsed.count(b"\n") == data.count(b"\n")
    names = file_names(C, data)
    assert names is not None
    for name, places in names.everywhere():
        for byte, _, _ in places:
            assert data[byte : byte + len(name)] == name.encode(), name


class _CountedSearches(bytes):
    """A source that counts the backward searches made in it, to measure the work a scan does."""

    searches = 0

    def rfind(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        type(self).searches += 1
        return super().rfind(*args, **kwargs)


def test_a_file_of_only_directives_is_scanned_once_not_once_per_group():
    # A generated header: thousands of `#ifdef`/`#define`/`#endif` and no code. Each `#if` looks back
    # for the code before it; over directive lines already looked past, that look is not repeated.
    groups = 2000
    data = b"".join(b"#ifdef CONFIG_%d\n#define X%d 1\n#endif\n" % (n, n) for n in range(groups))
    source = _CountedSearches(data)
    _CountedSearches.searches = 0
    assert hidden(source).blank == []
    assert _CountedSearches.searches < 10 * 3 * groups  # a few per line, not one per line before each group
    found = extract(C, data)
    assert found is not None and len(found.symbols) == groups and found.error_lines == []


class _CountedWalks(list):  # type: ignore[type-arg]
    """A list of symbols that counts the walks over it."""

    walks = 0

    def __iter__(self):  # type: ignore[no-untyped-def]
        type(self).walks += 1
        return super().__iter__()


def test_the_heads_of_other_configurations_are_found_without_a_walk_per_group():
    # Thousands of initializers with an `#ifdef` inside each (resolved: the grammar has no place for it
    # there) and as many functions; one split head among them still names its function.
    from fstools._syntax.outline import _other_heads, prepare

    count = 3000
    data = (
        b"".join(
            b"int f%d(int a) { return a; }\nstruct o s%d = {\n#ifdef A\n .a = 1,\n#else\n .b = 2,\n#endif\n};\n"
            % (n, n)
            for n in range(count)
        )
        + SPLIT_HEAD.encode()
    )
    found = extract(C, data)
    assert found is not None and len(found.symbols) == count + 2 and found.error_lines == []
    split = next(s for s in found.symbols if s.name == "split")
    second_head = data.index(b"split(long")
    assert found.heads == {second_head: split.name_byte}
    hide = prepare(C, data).hidden
    assert hide is not None and len(hide.alternatives) == count + 1
    symbols = _CountedWalks(found.symbols)
    _CountedWalks.walks = 0
    assert _other_heads(data, symbols, hide) == {second_head: split.name_byte}
    assert _CountedWalks.walks <= 2  # not one per group


def test_a_byte_order_mark_before_the_first_directive_is_read_as_blank():
    source = b"\xef\xbb\xbf" + SPLIT_HEAD.encode()
    found = extract(C, source)
    assert found is not None and found.error_lines == []
    assert [(s.kind, s.name, s.start_line, s.end_line) for s in found.symbols] == [
        ("function", "split", 2, 7),
        ("macro", "helper2", 8, 8),
    ]
    assert len(found.parsed) == len(source)


def test_a_body_per_configuration_after_one_head_is_the_first_body():
    source = (
        "static int e(void)\n#ifdef A\n{\n\treturn 1;\n}\n#else\n{\n\treturn 2;\n}\n#endif\n"
        "int after(void) { return 0; }\n"
    )
    found = extract(C, source.encode())
    assert found is not None and found.error_lines == []
    assert [(s.name, s.start_line, s.end_line, s.header) for s in found.symbols] == [
        ("e", 1, 5, "static int e(void)"),  # as ctags: the body compiled first
        ("after", 11, 11, "int after(void)"),
    ]


def test_a_body_the_blanked_reading_leaves_open_falls_back_to_the_file_as_written():
    """Resolving a group must never cost definitions: where the blanked text's parse runs one function's
    body on over several functions the file as written has whole, the file is read as written."""
    from fstools._syntax import outline

    tree = os.environ.get("FSTOOLS_KERNEL_TREE", "")
    path = os.path.join(tree, "kernel/sched/core.c")
    if not tree or not os.path.exists(path):
        pytest.skip("set FSTOOLS_KERNEL_TREE to the prepared kernel tree (its kernel/sched/core.c derails)")
    language = LANGUAGES["c"]
    source = open(path, "rb").read()
    resolved = outline._extract(language, source, outline.prepare(language, source), None)
    plain = outline._extract(language, source, outline.prepare(language, source, conditionals=False), None)
    assert resolved is not None and plain is not None and len(resolved.symbols) < len(plain.symbols)
    found = outline.extract(language, source)
    assert found is not None and [s.name for s in found.symbols] == [s.name for s in plain.symbols]


def test_one_definition_only_the_plain_parse_guesses_keeps_the_blanked_reading():
    source = (
        b"static void cpuset_cpu_active(void)\n{\n\t\t\t       struct cftype *cft)\n{\n}\n"
        b"#ifdef CONFIG_FAIR_GROUP_SCHED\n\t{\n#endif\n};\n"
    )
    from fstools._syntax import outline

    found = outline.extract(LANGUAGES["c"], source)
    assert found is not None and [(s.name, s.start_line) for s in found.symbols] == [("cpuset_cpu_active", 1)]
