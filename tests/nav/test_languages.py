"""Definitions and uses in each language Outline knows, as written by hand for small real-looking files.

Each file mentions `parse` in a comment and in a string too: neither is a use.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fstools._syntax.languages import language_for_path
from fstools._syntax.names import file_names

DATA = Path(__file__).parent / "data"

EXPECTED = {
    "a.js": (
        [("Parser", "class", 3, 5), ("Parser.feed", "method", 4, 4), ("run", "function", 6, 6)],
        [(1, 10, "import", None), (4, 23, "ref", "Parser.feed"), (6, 20, "ref", "run")],
        ["parse", "parser"],
    ),
    "a.ts": (
        [
            ("Options", "interface", 2, 2),
            ("Parse", "type", 3, 3),
            ("Parser", "class", 4, 6),
            ("Parser.feed", "method", 5, 5),
        ],
        [(1, 10, "import", None), (5, 40, "ref", "Parser.feed")],
        ["parse", "parser"],
    ),
    "a.go": (
        [("Parser", "struct", 6, 6), ("Parser.Feed", "method", 8, 8), ("parse", "function", 10, 10)],
        [(8, 65, "ref", "Parser.Feed"), (10, 6, "def", None)],
        ["strings"],
    ),
    "a.rs": (
        [
            ("Parser", "struct", 3, 3),
            ("Parser", "impl", 5, 7),
            ("Parser.feed", "method", 6, 6),
            ("parse", "function", 9, 9),
        ],
        [(6, 44, "ref", "Parser.feed"), (9, 4, "def", None)],
        ["Display", "fmt", "std"],
    ),
    "A.java": (
        [("A", "class", 3, 7), ("A.parse", "method", 5, 5), ("A.feed", "method", 6, 6)],
        [(5, 19, "def", "A"), (6, 39, "ref", "A.feed")],
        ["List", "java", "util"],
    ),
    "a.rb": (
        [
            ("Text", "module", 3, 10),
            ("Text.Parser", "class", 4, 9),
            ("Text.Parser.feed", "method", 6, 8),
            ("parse", "method", 12, 14),
        ],
        [(7, 7, "ref", "Text.Parser.feed"), (12, 5, "def", None)],
        [],
    ),
    "a.sh": ([("parse", "function", 3, 5)], [(3, 1, "def", None), (6, 1, "ref", None)], []),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_definitions_and_uses_as_written(name):
    path = DATA / name
    language = language_for_path(str(path))
    assert language is not None
    if not language.installed:
        pytest.skip(f"{language.package} is not installed (pip install 'fstools[syntax]')")
    names = file_names(language, path.read_bytes())
    assert names is not None and names.error_lines == []
    definitions, uses, imported = EXPECTED[name]
    assert [(d.qualified_name, d.kind, d.start_line, d.end_line) for d in names.definitions] == definitions
    assert [(o.line, o.column, o.kind, o.enclosing) for o in names.occurrences("parse")] == uses
    assert names.imported == imported


def test_stored_names_are_the_names():
    import marshal

    from fstools._syntax.names import FileNames

    path = DATA / "a.go"
    language = language_for_path(str(path))
    assert language is not None
    if not language.installed:
        pytest.skip("tree-sitter-go is not installed")
    names = file_names(language, path.read_bytes())
    assert names is not None
    again = FileNames.from_data(marshal.loads(marshal.dumps(names.as_data())))
    assert again is not None and again.as_data() == names.as_data()
    assert again.occurrences("parse") == names.occurrences("parse")
    assert FileNames.from_data((0, "go")) is None
