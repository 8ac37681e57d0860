"""Language detection and the lazily loaded tree-sitter parsers, on the real grammars."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest

from fstools._syntax.languages import (
    LANGUAGES,
    Language,
    ParseTimeout,
    grammar,
    language_for_path,
    language_for_shebang,
    parse,
    parser,
)


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("/p/a.py", "python"),
        ("/p/stubs/a.PYI", "python"),
        ("/p/a.js", "javascript"),
        ("/p/a.jsx", "javascript"),
        ("/p/a.mjs", "javascript"),
        ("/p/a.ts", "typescript"),
        ("/p/a.tsx", "tsx"),
        ("/p/package.json", "json"),
        ("/p/tsconfig.jsonc", "json"),
        ("/p/pyproject.toml", "toml"),
        ("/p/Cargo.lock", "toml"),
        ("/p/ci.yml", "yaml"),
        ("/p/ci.yaml", "yaml"),
        ("/p/main.c", "c"),
        ("/p/main.h", "c"),
        ("/p/main.cpp", "cpp"),
        ("/p/main.hpp", "cpp"),
        ("/p/main.go", "go"),
        ("/p/lib.rs", "rust"),
        ("/p/Main.java", "java"),
        ("/p/app.rb", "ruby"),
        ("/p/Rakefile", "ruby"),
        ("/p/run.sh", "bash"),
        ("/p/.bashrc", "bash"),
    ],
)
def test_language_by_name_and_extension(path: str, name: str) -> None:
    found = language_for_path(path)
    assert found is not None and found.name == name


@pytest.mark.parametrize("path", ["/p/README.md", "/p/data.csv", "/p/Makefile", "/p/noext", "/p/a.pyc"])
def test_unknown_kinds(path: str) -> None:
    assert language_for_path(path) is None


@pytest.mark.parametrize(
    ("head", "name"),
    [
        (b"#!/usr/bin/env python3\nprint(1)\n", "python"),
        (b"#!/usr/bin/python3.11 -u\n", "python"),
        (b"#!/usr/bin/env -S python3 -X dev\n", "python"),
        (b"#!/bin/sh\nset -e\n", "bash"),
        (b"#!/bin/bash\n", "bash"),
        (b"#!/usr/bin/env node\n", "javascript"),
        (b"#!/usr/bin/env ruby\n", "ruby"),
        (b"#!/usr/bin/env perl\n", None),
        (b"#!\n", None),
    ],
)
def test_language_by_shebang(head: bytes, name: str | None) -> None:
    found = language_for_path("/p/script", head)
    assert (found.name if found else None) == name
    assert language_for_shebang(head) == found


def test_a_known_extension_wins_over_the_shebang() -> None:
    found = language_for_path("/p/tool.rb", b"#!/usr/bin/env python3\n")
    assert found is not None and found.name == "ruby"
    assert language_for_path("/p/notes.txt", b"#!/bin/sh\n") is None


@pytest.mark.parametrize("name", sorted(LANGUAGES))
def test_every_grammar_parses(name: str) -> None:
    language = LANGUAGES[name]
    assert language.installed, f"{language.package} is not installed (pip install 'fstools[syntax]')"
    tree = parse(language, b"\n")
    assert tree is not None and tree.root_node.end_point.row >= 0
    assert grammar(language) is grammar(language)


def test_a_broken_python_tree_has_an_error() -> None:
    tree = parse(LANGUAGES["python"], b"def f(:\n    pass\n")
    assert tree is not None and tree.root_node.has_error
    tree = parse(LANGUAGES["python"], b"def f():\n    pass\n")
    assert tree is not None and not tree.root_node.has_error


def test_incremental_parse_reuses_the_old_tree() -> None:
    python = LANGUAGES["python"]
    before = b"def f():\n    return 1\n"
    old = parse(python, before)
    assert old is not None
    old.edit(
        start_byte=21,
        old_end_byte=21,
        new_end_byte=22,
        start_point=(1, 12),
        old_end_point=(1, 12),
        new_end_point=(1, 13),
    )
    new = parse(python, b"def f():\n    return 12\n", old)
    assert new is not None and not new.root_node.has_error
    assert new.root_node.text == b"def f():\n    return 12\n"


def test_a_missing_grammar_is_none_not_an_error() -> None:
    ghost = Language("ghost", "Ghost", "tree_sitter_no_such_grammar_here", extensions=(".ghost",))
    assert not ghost.installed
    assert grammar(ghost) is None and parser(ghost) is None and parse(ghost, b"x") is None


def test_one_parser_per_thread() -> None:
    python = LANGUAGES["python"]
    mine = parser(python)
    theirs: list[object] = []
    thread = threading.Thread(target=lambda: theirs.append(parser(python)))
    thread.start()
    thread.join()
    assert mine is parser(python) and theirs[0] is not None and theirs[0] is not mine


# A few kilobytes of C that tree-sitter takes seconds to parse: each `(a)(b)` may be a cast or a call,
# and the parser carries every reading along.
AMBIGUOUS_C = b"void f(void) {" + b"(a)(b)*(c)&(d)-" * 320 + b"1;}\n"


def _longest_wait_beside(work) -> tuple[float, float]:
    """(seconds `work()` took, the longest another thread waited to run meanwhile)."""
    waits: list[float] = []
    stop = threading.Event()

    def tick() -> None:
        last = time.monotonic()
        while not stop.is_set():
            time.sleep(0.001)
            now = time.monotonic()
            waits.append(now - last)
            last = now

    ticker = threading.Thread(target=tick, daemon=True)
    ticker.start()
    time.sleep(0.05)
    start = time.monotonic()
    try:
        work()
    finally:
        took = time.monotonic() - start
        stop.set()
        ticker.join()
    return took, max(waits)


@pytest.mark.parametrize(
    ("language", "source"),
    [("c", AMBIGUOUS_C), ("python", b"x = [" + b"1, " * 600_000 + b"]\n")],
    ids=["small-ambiguous-c", "large-python"],
)
def test_other_threads_run_during_a_long_parse(language: str, source: bytes) -> None:
    """tree-sitter holds the GIL for a whole parse call: the parse must hand it back all along, so
    another thread never waits more than a small part of the parse, however long it takes."""
    lang = LANGUAGES[language]
    parser(lang)  # the grammar loaded before the clock starts
    trees: list[object] = []
    took, longest = _longest_wait_beside(lambda: trees.append(parse(lang, source)))
    assert trees[0] is not None
    assert longest < took / 5, f"another thread waited {longest:.3f}s of a {took:.3f}s parse"


def test_a_parse_past_its_deadline_stops_and_the_parser_stays_usable() -> None:
    c = LANGUAGES["c"]
    with pytest.raises(ParseTimeout):
        parse(c, AMBIGUOUS_C * 3, deadline=time.monotonic() + 0.2)
    tree = parse(c, b"int x;\n")
    assert tree is not None and tree.root_node.text == b"int x;\n" and not tree.root_node.has_error


def test_importing_fstools_loads_no_parser() -> None:
    code = "import sys, fstools; fstools.ExecutionContext; print(sorted(m for m in sys.modules if 'tree_sitter' in m or m.startswith('fstools._syntax')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
