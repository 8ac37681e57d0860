"""check_text on the real parsers: a valid and a broken text for every language, errors that were
already there not blamed, the line of the error, a second opinion where grammars disagree."""

from __future__ import annotations

import pytest

from fstools._syntax.check import MAX_CHECK_BYTES, check_text
from fstools._syntax.compare import Window, introduced
from fstools._syntax.languages import LANGUAGES, language_for_path
from fstools._syntax.problems import Problem

# (file name, valid text, broken text, line of the error in the broken text)
FIXTURES = [
    ("a.py", "def f(x):\n    return [x, 2]\n", "def f(x):\n    return [x, 2\n", 2),
    ("a.js", "function f(x) {\n  return x + 1;\n}\n", "function f(x) {\n  return x +;\n}\n", 2),
    ("a.jsx", "const a = <div className='x'>{b}</div>;\n", "const a = <div className='x'>{b</div>;\n", 1),
    (
        "a.ts",
        "function f(x: number): number {\n  return x;\n}\n",
        "function f(x: number): number {\n  return x;\n\n",
        2,
    ),
    (
        "a.tsx",
        "export const A = (p: {n: number}) => <b>{p.n}</b>;\n",
        "export const A = (p: {n: number}) => <b>{p.n</b>;\n",
        1,
    ),
    ("a.json", '{\n  "a": [1, 2],\n  "b": null\n}\n', '{\n  "a": [1, 2],\n  "b": nul\n}\n', 3),
    ("a.toml", '[tool]\nname = "x"\nlist = [1, 2]\n', '[tool]\nname = "x\nlist = [1, 2]\n', 2),
    ("a.yaml", "a: 1\nb:\n  - x\n  - y\n", "a: 1\nb:\n  - x\n  - [y\n", 4),
    ("a.c", "int main(void) {\n  return 0;\n}\n", "int main(void) {\n  return 0\n}\n", 2),
    ("a.cpp", "template <class T> T id(T x) { return x; }\n", "template <class T> T id(T x) { return x; \n", 1),
    ("a.go", "package main\n\nfunc main() {\n\tprintln(1)\n}\n", "package main\n\nfunc main() {\n\tprintln(1\n}\n", 4),
    ("a.rs", "fn main() {\n    let x = 1;\n}\n", "fn main() {\n    let x = ;\n}\n", 2),
    ("A.java", "class A {\n  int f() { return 1; }\n}\n", "class A {\n  int f() { return 1 }\n}\n", 2),
    ("a.rb", "def f(x)\n  x + 1\nend\n", "def f(x)\n  x + (1\nend\n", 2),
    ("a.sh", 'if [ -f x ]; then\n  echo "y"\nfi\n', 'if [ -f x ]; then\n  echo "y"\n', 2),
]


@pytest.mark.parametrize(("name", "valid", "broken", "line"), FIXTURES, ids=[f[0] for f in FIXTURES])
def test_every_language_valid_and_broken(name: str, valid: str, broken: str, line: int) -> None:
    language = language_for_path(name)
    assert language is not None and language.installed
    assert check_text(None, valid, language, name) == []
    assert check_text(None, broken, language, name), f"{name}: the broken text passed"
    # The change from valid to broken is blamed, at its line; from broken to broken, and back to valid, is not.
    found = check_text(valid, broken, language, name)
    assert found and found[0].path == name and found[0].severity == "error" and found[0].source == "syntax"
    assert found[0].line == line, (name, found)
    assert check_text(broken, broken + "\n", language, name) == []
    assert check_text(broken, valid, language, name) == []


def test_the_line_of_the_error_not_the_next_one() -> None:
    found = check_text(None, "int main(void) {\n  int x = 1\n  return x;\n}\n", "c", "a.c")
    assert [(d.line, d.message) for d in found] == [(2, 'missing ";"')]
    assert found[0].column == 12 and found[0].text == "  int x = 1"


def test_python_errors_are_the_interpreters_words() -> None:
    found = check_text("x = 1\n", "x = (1\n", "python", "a.py")
    assert [(d.line, d.column, d.message) for d in found] == [(1, 5, "'(' was never closed")]


def test_python_syntax_tree_sitter_lacks_is_not_an_error_when_the_interpreter_accepts_it() -> None:
    # A grammar gap: tree-sitter-python reports an error the interpreter does not have.
    source = "x = 1\nprint(f'{x!r:>{10}}')\n"
    assert check_text(None, source, "python", "a.py") == []


def test_python_of_another_version_is_not_called_broken() -> None:
    # Python 2 print statements: not this interpreter's syntax, but tree-sitter reads them, so
    # an edit elsewhere in such a file reports nothing.
    before = 'print "hello"\n\ndef f():\n    return 1\n'
    after = 'print "hello"\n\ndef f():\n    return 2\n'
    assert check_text(before, after, "python", "old.py") == []


def test_existing_errors_are_not_blamed() -> None:
    before = "def f(:\n    pass\n\n\ndef g():\n    return 1\n"
    assert check_text(before, before.replace("return 1", "return 2"), "python", "a.py") == []
    assert check_text(before, before + "# a comment\n", "python", "a.py") == []
    assert check_text(before, "# top\n" + before, "python", "a.py") == []
    broken = check_text(before, before.replace("return 1", "return (1"), "python", "a.py")
    assert [d.line for d in broken] == [6]


def test_an_unclosed_brace_that_was_there_before_moves_with_the_end_of_the_file() -> None:
    before = "int f(void) {\n  return 1;\n\nint g(void) { return 2; }\n"
    assert check_text(None, before, "c", "a.c")
    assert check_text(before, before + "/* appended */\n", "c", "a.c") == []
    assert check_text(before, before.replace("return 2", "return 3"), "c", "a.c") == []


def test_c_headers_get_a_cpp_opinion() -> None:
    header = "#pragma once\nint f(void);\n"
    cpp = header + "template <class T> T id(T x);\n"
    assert check_text(header, cpp, LANGUAGES["c"], "a.h") == []
    assert check_text(header, cpp, LANGUAGES["c"], "a.c")  # a .c file is C


def test_flow_annotations_in_js_are_not_blamed() -> None:
    before = "// @flow\nfunction f(x) { return x; }\n"
    after = "// @flow\nfunction f(x: number): number { return x; }\n"
    assert check_text(before, after, "javascript", "a.js") == []


def test_toml_duplicate_key_and_existing_error() -> None:
    found = check_text("a = 1\n", "a = 1\na = 2\n", "toml", "a.toml")
    assert len(found) == 1 and found[0].line == 2
    before = "a = \nb = 1\n"
    assert check_text(before, before + "c = 2\n", "toml", "a.toml") == []
    assert check_text(before, "x = [\n" + before, "toml", "a.toml")


def test_large_texts_are_not_checked() -> None:
    big = "x = (\n" + "#" * MAX_CHECK_BYTES
    assert check_text(None, big, "python", "a.py") == []


def test_notebook_cells_are_checked_as_texts() -> None:
    found = check_text("import os\nprint(os.sep)\n", "import os\nprint(os.sep\n", "python", "cell 2")
    assert [(d.path, d.line) for d in found] == [("cell 2", 2)]


# Error recovery moving errors, with the ranges taken from real trees ---------------------
def test_an_error_that_only_swallows_an_appended_comment_is_not_blamed() -> None:
    # tree-sitter-bash on CPython's makesetup: an ERROR from byte 3254 to the end of the file
    # (9261 of 9262) grows over a comment line appended at the end, and still starts at 3254.
    before, after = [Problem(3254, 9261, "x")], [Problem(3254, 9283, "x")]
    assert introduced(before, after, Window(9262, 9262, 9283)) == []


def test_an_error_that_now_starts_before_the_change_is_blamed() -> None:
    # tree-sitter-rust: "fn g( {" inserted above a file whose line 2 had an error; the new
    # ERROR spans from byte 0 over the old one, and the window starts at byte 3 ("fn " is shared).
    before, after = [Problem(22, 23, "x")], [Problem(0, 36, "x")]
    assert introduced(before, after, Window(3, 3, 11)) == [Problem(3, 36, "x")]  # placed where the change starts
    found = check_text("fn main() {\n    let x = ;\n}\n", "fn g( {\nfn main() {\n    let x = ;\n}\n", "rust", "a.rs")
    assert found and found[0].line == 1


def test_a_missing_token_that_floats_is_matched_by_message() -> None:
    before = [Problem(40, 40, 'missing "}"', missing=True)]
    assert introduced(before, [Problem(60, 60, 'missing "}"', missing=True)], Window(41, 41, 61)) == []
    two = [Problem(30, 30, 'missing "}"', missing=True), Problem(60, 60, 'missing "}"', missing=True)]
    assert len(introduced(before, two, Window(20, 20, 41))) == 1


def test_an_error_placed_at_the_change_names_the_text_there() -> None:
    # The YAML parser wraps the whole line in its error; the diagnostic points at the change
    # (column 4) and must name what is there, not the key at column 1.
    found = check_text("a: 1\n", "a: [1\n", "yaml", "a.yaml")
    assert [(d.line, d.column) for d in found] == [(1, 4)]
    assert found[0].message.startswith('syntax error: unexpected "[')
