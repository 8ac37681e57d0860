"""Which language a file is written in, and its tree-sitter parser, loaded on first use.

The one place fstools names languages: the syntax check after a change and the outline of a
file both start here.

    from fstools._syntax.languages import language_for_path, parse

    language = language_for_path("/repo/src/app.tsx")  # LANGUAGES["tsx"], or None for an unknown kind
    if language is not None:
        tree = parse(language, source_bytes)  # a tree_sitter.Tree, or None when its grammar is not installed
        if tree is not None and tree.root_node.has_error: ...

* `language_for_path(path, head=b"")` decides by file name, then extension, then (for a file
  without a known extension) the `#!` line in `head`, the file's first bytes. None: unknown.
* `parse(language, source, old_tree=None)` parses bytes with the language's grammar (a
  previous tree, edited with `Tree.edit`, makes it incremental). `parser(language)` and
  `grammar(language)` give the `tree_sitter.Parser` (one per thread: a parser is not
  thread-safe) and the `tree_sitter.Language`, for queries. Both are None when the grammar's
  package is missing; `language.installed` says the same without loading anything.
* Nothing is imported until a parser is asked for: `import fstools` stays light, and files of
  unknown kinds cost nothing.

The default install has the grammars of Python, JSON and YAML; `pip install 'fstools[syntax]'`
adds JavaScript, TypeScript/TSX, C, C++, Go, Rust, Java, Ruby, shell and TOML (TOML files are
checked with the standard library's parser without it).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from itertools import islice
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    import tree_sitter


@dataclass(frozen=True)
class Language:
    """One language fstools recognises.

    Attributes:
        name: Stable identifier ("python", "tsx", "cpp", "bash", ...), the key in LANGUAGES.
        label: How a person names it ("TypeScript (TSX)").
        module: The Python module of its tree-sitter grammar.
        function: The function of that module that returns the grammar.
        package: The PyPI package that provides the module (named in messages).
        extensions: File extensions, lower case, with the dot.
        filenames: Whole file names (`Makefile`-style names without an extension).
        interpreters: Program names a `#!` line may run (`python3` counts for `python`).
        comment: How a line comment starts, when the language has one.
    """

    name: str
    label: str
    module: str
    function: str = "language"
    package: str = ""
    extensions: tuple[str, ...] = ()
    filenames: tuple[str, ...] = ()
    interpreters: tuple[str, ...] = ()
    comment: str | None = None

    @property
    def installed(self) -> bool:
        """Whether the grammar's package can be imported (looked up once, without importing it)."""
        return _module_found(self.module)


@cache
def _module_found(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def _language(
    name: str,
    label: str,
    module: str,
    function: str = "language",
    extensions: tuple[str, ...] = (),
    filenames: tuple[str, ...] = (),
    interpreters: tuple[str, ...] = (),
    comment: str | None = None,
) -> Language:
    package = module.replace("_", "-")
    return Language(name, label, module, function, package, extensions, filenames, interpreters, comment)


LANGUAGES: dict[str, Language] = {
    lang.name: lang
    for lang in (
        _language(
            "python",
            "Python",
            "tree_sitter_python",
            extensions=(".py", ".pyi", ".pyw"),
            interpreters=("python", "python2", "python3", "pypy", "pypy3"),
            comment="#",
        ),
        _language(
            "javascript",
            "JavaScript",
            "tree_sitter_javascript",
            extensions=(".js", ".mjs", ".cjs", ".jsx"),
            interpreters=("node", "nodejs"),
            comment="//",
        ),
        _language(
            "typescript",
            "TypeScript",
            "tree_sitter_typescript",
            function="language_typescript",
            extensions=(".ts", ".mts", ".cts"),
            interpreters=("ts-node", "tsx", "deno", "bun"),
            comment="//",
        ),
        _language(
            "tsx",
            "TypeScript (TSX)",
            "tree_sitter_typescript",
            function="language_tsx",
            extensions=(".tsx",),
            comment="//",
        ),
        _language(
            "json",
            "JSON",
            "tree_sitter_json",
            extensions=(".json", ".jsonc"),
            filenames=(".babelrc", ".eslintrc", "flake.lock"),
        ),
        _language(
            "toml",
            "TOML",
            "tree_sitter_toml",
            extensions=(".toml",),
            filenames=("Cargo.lock", "poetry.lock"),
            comment="#",
        ),
        _language("yaml", "YAML", "tree_sitter_yaml", extensions=(".yaml", ".yml"), comment="#"),
        _language("c", "C", "tree_sitter_c", extensions=(".c", ".h"), comment="//"),
        _language(
            "cpp",
            "C++",
            "tree_sitter_cpp",
            extensions=(".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h++", ".ipp", ".tcc"),
            comment="//",
        ),
        _language("go", "Go", "tree_sitter_go", extensions=(".go",), comment="//"),
        _language("rust", "Rust", "tree_sitter_rust", extensions=(".rs",), comment="//"),
        _language("java", "Java", "tree_sitter_java", extensions=(".java",), comment="//"),
        _language(
            "ruby",
            "Ruby",
            "tree_sitter_ruby",
            extensions=(".rb", ".rake", ".gemspec", ".ru"),
            filenames=("Rakefile", "Gemfile", "Vagrantfile", "Guardfile", "Podfile"),
            interpreters=("ruby",),
            comment="#",
        ),
        _language(
            "bash",
            "shell",
            "tree_sitter_bash",
            extensions=(".sh", ".bash"),
            filenames=(".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", "PKGBUILD"),
            interpreters=("sh", "bash", "dash", "ksh"),
            comment="#",
        ),
    )
}

_BY_EXTENSION = {ext: lang for lang in LANGUAGES.values() for ext in lang.extensions}
_BY_FILENAME = {name: lang for lang in LANGUAGES.values() for name in lang.filenames}
_BY_INTERPRETER = {prog: lang for lang in LANGUAGES.values() for prog in lang.interpreters}


def language_for_path(path: str, head: bytes = b"") -> Language | None:
    """The language of the file at `path`, or None when fstools does not know its kind.

    By whole file name, then extension (case-insensitive), then, for a name without a known
    extension, the `#!` line at the start of `head` (the file's first bytes, when the caller
    has them): `#!/usr/bin/env python3`, `#!/bin/sh`, ...
    """
    name = os.path.basename(path)
    if name in _BY_FILENAME:
        return _BY_FILENAME[name]
    ext = os.path.splitext(name)[1].lower()
    if ext in _BY_EXTENSION:
        return _BY_EXTENSION[ext]
    return language_for_shebang(head) if head.startswith(b"#!") and not ext else None


def language_for_shebang(head: bytes) -> Language | None:
    """The language a `#!` line names (`/usr/bin/env -S python3 -u` too), or None."""
    line = head.split(b"\n", 1)[0][2:].decode("utf-8", "replace").split()
    if line and os.path.basename(line[0]) == "env":
        line = [word for word in line[1:] if not word.startswith("-") and "=" not in word]
    if not line:
        return None
    program = os.path.basename(line[0])
    return _BY_INTERPRETER.get(program) or _BY_INTERPRETER.get(program.rstrip("0123456789.") or program)


@cache
def grammar(language: Language) -> tree_sitter.Language | None:
    """The tree-sitter grammar of `language` (loaded once), or None when its package is not installed."""
    if not language.installed:
        return None
    import tree_sitter

    module = importlib.import_module(language.module)
    return tree_sitter.Language(getattr(module, language.function)())


_local = threading.local()


def parser(language: Language) -> tree_sitter.Parser | None:
    """This thread's parser for `language`, or None when its grammar is not installed."""
    parsers: dict[str, tree_sitter.Parser] | None = getattr(_local, "parsers", None)
    if parsers is None:
        parsers = _local.parsers = {}
    found = parsers.get(language.name)
    if found is None:
        loaded = grammar(language)
        if loaded is None:
            return None
        import tree_sitter

        found = parsers[language.name] = tree_sitter.Parser(loaded)
    return found


class ParseTimeout(Exception):
    """A parse or an outline ran past its deadline."""


def overdue(deadline: float | None) -> None:
    """ParseTimeout when `deadline` (time.monotonic()) has passed: what every phase of a parse checks between
    two steps, so no phase overshoots a call's time limit by more than one step."""
    import time

    if deadline is not None and time.monotonic() > deadline:
        raise ParseTimeout


STEP = 4096  # items between two looks at the deadline (a huge generated file has millions of tokens)
_T = TypeVar("_T")


def paced(items: Iterable[_T], deadline: float | None) -> Iterator[_T]:
    """`items`, with `overdue(deadline)` before each STEP of them: a loop over a phase's tokens, directives
    or definitions stops within one step of the deadline (no check at all without one)."""
    it = iter(items)
    if deadline is None:
        return it
    return _paced(it, deadline)


def _paced(it: Iterator[_T], deadline: float) -> Iterator[_T]:
    while True:
        overdue(deadline)
        chunk = list(islice(it, STEP))
        if not chunk:
            return
        yield from chunk


# The source is handed to tree-sitter in chunks, through Python callbacks: tree-sitter holds the GIL
# for a whole parse, which a few kilobytes of ambiguous C can stretch to seconds, and a parse given
# bytes runs with no callback at all. Its progress callback runs every hundred or so steps of the
# parser (balancing the finished tree too, where no text is read): each call lets other threads run
# (an MCP server's other calls) and checks the deadline. It costs a few hundred calls for 2,000 lines.
CHUNK = 64 * 1024


def parse(
    language: Language, source: bytes, old_tree: tree_sitter.Tree | None = None, *, deadline: float | None = None
) -> tree_sitter.Tree | None:
    """The syntax tree of `source` (UTF-8 bytes) in `language`, or None when its grammar is not installed.

    `old_tree`, a tree of the previous text edited with `Tree.edit` to match, lets tree-sitter
    reuse what did not change. Past `deadline` (time.monotonic()) ParseTimeout. Other threads run
    meanwhile, however long the parse takes.
    """
    found = parser(language)
    if found is None:
        return None
    import time

    def chunk(offset: int, _point: object) -> bytes:
        return source[offset : offset + CHUNK]

    def late(*_state: object) -> bool:  # True cancels the parse
        return deadline is not None and time.monotonic() > deadline

    try:
        if old_tree is None:
            return found.parse(chunk, progress_callback=late)
        return found.parse(chunk, old_tree, progress_callback=late)
    except ValueError:  # what a cancelled parse raises
        found.reset()  # else the next parse with this parser would resume this one
        if late():
            raise ParseTimeout from None
        raise
