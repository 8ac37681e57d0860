"""What Python's own parser says a file defines and uses: the oracle the Python extraction is held to."""

from __future__ import annotations

import ast
import io
import tokenize
from collections import Counter


def definitions(source: bytes) -> list[tuple[str, str, int, int]]:
    """(qualified name, kind, first line with decorators, last line) of each def, async def and class, in order."""
    found: list[tuple[int, int, str, str, int, int]] = []

    def visit(node: ast.AST, parents: list[str], in_class: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                start = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                if isinstance(child, ast.ClassDef):
                    kind = "class"
                else:
                    kind = "method" if in_class else "function"
                qualified = ".".join([*parents, child.name])
                found.append((start, child.col_offset, qualified, kind, start, child.end_lineno or start))
                visit(child, [*parents, child.name], isinstance(child, ast.ClassDef))
            else:
                visit(child, parents, False if isinstance(child, ast.Lambda) else in_class)

    visit(ast.parse(source), [], False)
    found.sort()
    return [(q, k, s, e) for _, _, q, k, s, e in found]


def _names_on_lines(source: bytes) -> dict[int, list[tuple[int, str]]]:
    lines: dict[int, list[tuple[int, str]]] = {}
    for token in tokenize.tokenize(io.BytesIO(source).readline):
        if token.type == tokenize.NAME:
            lines.setdefault(token.start[0], []).append((token.start[1], token.string))
    return lines


# The type parameters of Python 3.12+ (`ast` has no such nodes before it).
_TYPE_PARAMS = tuple(getattr(ast, name) for name in ("TypeVar", "ParamSpec", "TypeVarTuple") if hasattr(ast, name))


def uses(source: bytes) -> Counter[tuple[int, str]]:
    """(line, identifier) of every Name, Attribute.attr, import name, parameter and definition name."""
    found: Counter[tuple[int, str]] = Counter()
    tokens = _names_on_lines(source)
    text_lines = source.decode("utf-8").splitlines()

    def line_of_attr(node: ast.Attribute) -> int:
        return node.end_lineno or node.lineno

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name):
            found[(node.lineno, node.id)] += 1
        elif isinstance(node, ast.Attribute):
            found[(line_of_attr(node), node.attr)] += 1
        elif isinstance(node, ast.arg):
            found[(node.lineno, node.arg)] += 1
        elif isinstance(node, ast.keyword) and node.arg is not None:
            found[(node.lineno, node.arg)] += 1
        elif isinstance(node, ast.alias):
            for part in node.name.split("."):
                if part != "*":
                    found[(_token_line(tokens, node.lineno, node.end_lineno, part), part)] += 1
            if node.asname:
                found[(_token_line(tokens, node.lineno, node.end_lineno, node.asname), node.asname)] += 1
        elif isinstance(node, ast.ImportFrom) and node.module:
            for part in node.module.split("."):
                found[(_token_line(tokens, node.lineno, node.end_lineno, part), part)] += 1
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found[(node.lineno, node.name)] += 1
        elif isinstance(node, ast.ExceptHandler) and node.name:  # `as name` may follow a multi-line type
            last = node.type.end_lineno if node.type is not None else node.lineno
            found[(_token_line(tokens, node.lineno, last, node.name), node.name)] += 1
        elif isinstance(node, _TYPE_PARAMS):  # `def f[T]`, `class A[**P]` (Python 3.12+): a parameter's name
            found[(node.lineno, node.name)] += 1
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                found[(_token_line(tokens, node.lineno, node.end_lineno, name), name)] += 1
        else:
            _pattern_names(node, tokens, found)
    del text_lines
    return found


def _pattern_names(node: ast.AST, tokens: dict[int, list[tuple[int, str]]], found: Counter[tuple[int, str]]) -> None:
    """The names a match statement's patterns bind or name."""
    if isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
        found[(node.lineno, node.name)] += 1
    elif isinstance(node, ast.MatchMapping) and node.rest:
        found[(_token_line(tokens, node.lineno, node.end_lineno, node.rest), node.rest)] += 1
    elif isinstance(node, ast.MatchClass):
        for name in node.kwd_attrs:
            found[(_token_line(tokens, node.lineno, node.end_lineno, name), name)] += 1


def _token_line(tokens: dict[int, list[tuple[int, str]]], first: int, last: int | None, name: str) -> int:
    for line in range(first, (last or first) + 1):
        if any(text == name for _, text in tokens.get(line, ())):
            return line
    return first
