"""The syntax errors in a text: from a tree-sitter tree, or from a standard-library parser.

A `Problem` is a byte range of the UTF-8 source and the parser's words; `place` turns its start
into a 1-based line and character column, on the line of the error itself (parsers that notice
a missing token only at the next one are moved back to the end of the line it is missing from).
"""

from __future__ import annotations

import ast
import re
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import tree_sitter

MAX_PROBLEMS = 100  # a file of garbage has thousands; the comparison needs only the first ones
TOKEN_SHOWN = 30


@dataclass(frozen=True, order=True)
class Problem:
    """A syntax error at bytes [start, end) of the source (zero width: something is missing there)."""

    start: int
    end: int
    message: str
    missing: bool = False


def tree_problems(tree: tree_sitter.Tree) -> list[Problem]:
    """The ERROR and MISSING nodes of a tree-sitter tree, in source order (descends only where an error is)."""
    found: list[Problem] = []
    stack = [tree.root_node]
    while stack and len(found) < MAX_PROBLEMS:
        node = stack.pop()
        if node.is_missing:
            what = node.type if node.is_named else f'"{node.type}"'
            found.append(Problem(node.start_byte, node.end_byte, f"missing {what}", missing=True))
        elif node.is_error:
            found.append(Problem(node.start_byte, node.end_byte, _unexpected(node)))
        elif node.has_error:
            stack.extend(reversed(node.children))
    return sorted(found)


def _unexpected(node: tree_sitter.Node) -> str:
    """'unexpected "tok"': the first token the parser could not place."""
    while node.child_count:
        node = node.children[0]
    return _unexpected_text(node.text or b"")


def renamed(problem: Problem, source: bytes) -> Problem:
    """An unexpected-text problem whose start was moved, named by the text it now starts at."""
    text = source[problem.start : problem.end].split(None, 1)
    return Problem(problem.start, problem.end, _unexpected_text(text[0] if text else b""))


def _unexpected_text(text: bytes) -> str:
    token = text.decode("utf-8", "replace").split("\n", 1)[0].strip()
    if not token:
        return "syntax error"
    if len(token) > TOKEN_SHOWN:
        token = token[:TOKEN_SHOWN] + "..."
    return f'syntax error: unexpected "{token}"'


@dataclass(frozen=True)
class Place:
    """Where a problem is, as a person counts: 1-based line and character column, and that line."""

    line: int
    column: int
    text: str


def place(source: bytes, offset: int, missing: bool = False) -> Place:
    """The line and column of byte `offset`; a missing token found at the start of a line is
    placed at the end of the previous non-blank line, where it is missing."""
    offset = max(0, min(offset, len(source)))
    start = source.rfind(b"\n", 0, offset) + 1
    if missing and not source[start:offset].strip() and start > 0:
        previous = source[:start].rstrip()
        if previous:
            offset = len(previous)
            start = source.rfind(b"\n", 0, offset) + 1
    end = source.find(b"\n", offset)
    text = source[start : end if end >= 0 else len(source)].decode("utf-8", "replace")
    column = len(source[start:offset].decode("utf-8", "replace")) + 1
    return Place(source.count(b"\n", 0, start) + 1, column, text.rstrip("\r"))


def offset_of(source: bytes, line: int, column: int) -> int:
    """The byte offset of a 1-based line and character column (clamped to the text)."""
    start = 0
    for _ in range(line - 1):
        found = source.find(b"\n", start)
        if found < 0:
            return len(source)
        start = found + 1
    end = source.find(b"\n", start)
    text = source[start : end if end >= 0 else len(source)].decode("utf-8", "replace")
    return start + len(text[: max(column - 1, 0)].encode("utf-8"))


def python_problem(source: bytes) -> Problem | None:
    """The first syntax error the running interpreter's own parser finds, or None.

    Only a confirmation: this interpreter knows its own Python version's grammar, no other.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences and the like are warnings, not errors
            compile(source, "<edit>", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as exc:  # IndentationError and TabError too
        line, column = exc.lineno or 1, exc.offset or 1
        return _single(source, line, column, exc.msg or "invalid syntax")
    except (ValueError, RecursionError, MemoryError):  # NUL bytes; nesting too deep for this interpreter
        return None
    return None


_TOML_AT = re.compile(r"\s*\(at (?:line (\d+), column (\d+)|end of document)\)\s*$")


def toml_problem(source: bytes) -> Problem | None:
    """The first TOML error of the standard library's parser (tomllib; tomli before Python 3.11), or None."""
    loads = toml_loader()
    assert loads is not None, "callers check toml_loader() first"
    try:
        loads(source.decode("utf-8", "replace"))
    except ValueError as exc:  # TOMLDecodeError
        message = str(exc.args[0] if exc.args else exc)
        at = _TOML_AT.search(message)
        if at is None or at.group(1) is None:
            offset = len(source.rstrip())
            return Problem(offset, offset, _TOML_AT.sub("", message) or "invalid TOML", missing=True)
        return _single(source, int(at.group(1)), int(at.group(2)), message[: at.start()])
    return None


def toml_loader() -> Callable[[str], object] | None:
    """`tomllib.loads` (or tomli's), or None when neither is installed."""
    if sys.version_info >= (3, 11):
        import tomllib

        return tomllib.loads
    try:
        import tomli
    except ImportError:
        return None
    loads: Callable[[str], object] = tomli.loads
    return loads


def _single(source: bytes, line: int, column: int, message: str) -> Problem:
    offset = offset_of(source, line, column)
    return Problem(offset, offset, message.strip())
