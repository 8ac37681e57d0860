"""The definitions in a source file (classes, functions, methods, structs, impl blocks, ...), nested.

One tree-sitter query per language finds the definitions (the matching runs in C, so a
large file costs its parse and little more); their nesting comes from their byte ranges.
A function directly inside a class-like definition is a method. Each symbol has its line
range (1-based, inclusive; a Python definition's decorators included) and a header: its
text up to its body, on one line (`def feed(self, data)`, `impl Display for Parser`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from .languages import Language, ParseTimeout, grammar, parse

if TYPE_CHECKING:
    import tree_sitter

MAX_HEADER_CHARS = 160
# A function directly inside one of these is a method (inside a module or namespace it stays a function).
_CONTAINERS = frozenset({"class", "struct", "interface", "trait", "impl", "enum", "union"})

_JS = """
(class_declaration name: (_) @name) @definition.class
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(method_definition name: (_) @name) @definition.method
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function
"""
_TS = (
    _JS
    + """
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(interface_declaration name: (type_identifier) @name) @definition.interface
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum
(internal_module name: (_) @name) @definition.module
"""
)
_C = """
(function_definition declarator: (_) @declarator) @definition.function
(struct_specifier name: (_) @name body: (_)) @definition.struct
(union_specifier name: (_) @name body: (_)) @definition.union
(enum_specifier name: (_) @name body: (_)) @definition.enum
(type_definition type: (struct_specifier !name body: (_)) declarator: (type_identifier) @name) @definition.struct
(type_definition type: (union_specifier !name body: (_)) declarator: (type_identifier) @name) @definition.union
(type_definition type: (enum_specifier !name body: (_)) declarator: (type_identifier) @name) @definition.enum
"""
_CPP = (
    _C
    + """
(class_specifier name: (_) @name body: (_)) @definition.class
(namespace_definition name: (_) @name) @definition.namespace
"""
)
QUERIES: dict[str, str] = {
    "python": """
(class_definition name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name) @definition.function
""",
    "javascript": _JS,
    "typescript": _TS,
    "tsx": _TS,
    "c": _C,
    "cpp": _CPP,
    "go": """
(function_declaration name: (identifier) @name) @definition.function
(method_declaration name: (field_identifier) @name) @definition.method
(type_declaration (type_spec name: (type_identifier) @name type: (struct_type))) @definition.struct
(type_declaration (type_spec name: (type_identifier) @name type: (interface_type))) @definition.interface
""",
    "rust": """
(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(union_item name: (type_identifier) @name) @definition.union
(trait_item name: (type_identifier) @name) @definition.trait
(impl_item type: (_) @name) @definition.impl
(mod_item name: (identifier) @name) @definition.module
(macro_definition name: (identifier) @name) @definition.macro
""",
    "java": """
(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(annotation_type_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.constructor
""",
    "ruby": """
(class name: (_) @name) @definition.class
(module name: (_) @name) @definition.module
(method name: (_) @name) @definition.method
(singleton_method name: (_) @name) @definition.method
""",
    "bash": """
(function_definition name: (word) @name) @definition.function
""",
}
# Where a C/C++ declarator keeps the declared name, in nesting order.
_NAME_TYPES = frozenset(
    {"identifier", "field_identifier", "qualified_identifier", "destructor_name", "operator_name", "type_identifier"}
)


@dataclass(frozen=True)
class Symbol:
    """One definition: `parent` is the qualified name of the definition it belongs to (None at the top)."""

    name: str
    kind: str
    start_line: int
    end_line: int
    parent: str | None
    header: str
    depth: int
    start_byte: int
    end_byte: int

    @property
    def qualified(self) -> str:
        return f"{self.parent}.{self.name}" if self.parent else self.name

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "start_line": self.start_line,
            "end_line": self.end_line,
            "parent": self.parent,
        }

    def line(self) -> str:
        """The outline line: `  14-20    def feed(self, data)` (two spaces a level)."""
        return f"  {self.start_line}-{self.end_line}  {'  ' * self.depth}{self.header}"


def supports(language: Language) -> bool:
    """Whether fstools outlines files of `language` (data formats have no definitions to list)."""
    return language.name in QUERIES


@cache
def _query(language: Language) -> tree_sitter.Query | None:
    loaded = grammar(language)
    if loaded is None:
        return None
    import tree_sitter

    query: tree_sitter.Query = tree_sitter.Query(loaded, QUERIES[language.name])
    return query


# The query runs over windows of the text this large: between two, the deadline is checked and other
# threads may run (a window's matches are collected with the GIL held).
WINDOW_BYTES = 64 * 1024


def definitions(language: Language, source: bytes, *, deadline: float | None = None) -> list[Symbol] | None:
    """The definitions in `source`, in order of their start; None when the grammar is not installed.
    Past `deadline` (time.monotonic()) ParseTimeout."""
    if not supports(language):
        return []
    query = _query(language)
    tree = parse(language, source, deadline=deadline) if query is not None else None
    if query is None or tree is None:
        return None
    import time

    import tree_sitter

    found = []
    seen: set[tuple[int, int, str]] = set()
    cursor = tree_sitter.QueryCursor(query)
    for start in range(0, max(len(source), 1), WINDOW_BYTES):
        if deadline is not None and time.monotonic() > deadline:
            raise ParseTimeout
        cursor.set_byte_range(start, min(start + WINDOW_BYTES, max(len(source), 1)))
        for _, captures in cursor.matches(tree.root_node):
            definition = next((nodes[0] for name, nodes in captures.items() if name.startswith("definition.")), None)
            if definition is None:
                continue
            kind = next(name for name in captures if name.startswith("definition.")).split(".", 1)[1]
            key = (definition.start_byte, definition.end_byte, kind)
            if key in seen:  # a definition across two windows is found in both
                continue
            seen.add(key)
            name = _name(language, captures)
            if name:
                found.append((definition, kind, name))
        time.sleep(0)  # let other threads in between two windows
    return list(_nested(language, source, found))


def _name(language: Language, captures: dict[str, list[tree_sitter.Node]]) -> str:
    if "declarator" in captures:
        return _declared_name(captures["declarator"][0])
    node = captures["name"][0]
    if language.name == "rust" and node.type == "generic_type":
        node = node.child_by_field_name("type") or node
    return _text(node)


def _declared_name(declarator: tree_sitter.Node) -> str:
    """The name a C/C++ declarator declares: `foo` of `*foo(int a)`, `A::run` of `A::run() const`."""
    node: tree_sitter.Node | None = declarator
    while node is not None and node.type not in _NAME_TYPES:
        node = node.child_by_field_name("declarator")
    return _text(node) if node is not None else ""


def _text(node: tree_sitter.Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


def _span(language: Language, node: tree_sitter.Node) -> tree_sitter.Node:
    """The node whose lines a definition covers: with its decorators (Python), its `const`/`export` (JS)."""
    parent = node.parent
    if parent is None:
        return node
    if language.name == "python" and parent.type == "decorated_definition":
        return parent
    if node.type == "variable_declarator" and parent.type in ("lexical_declaration", "variable_declaration"):
        outer = parent.parent
        return outer if outer is not None and outer.type == "export_statement" else parent
    return node


def _header(source: bytes, node: tree_sitter.Node, span: tree_sitter.Node, kind: str, name: str) -> str:
    """The definition up to its body, on one line."""
    if node.type == "type_definition":  # typedef struct { ... } name;
        return f"typedef {kind} {name}"
    body = node.child_by_field_name("body")
    start = node.start_byte
    if node.type == "variable_declarator":  # const f = (...) => { ... }
        value = node.child_by_field_name("value")
        body = value.child_by_field_name("body") if value is not None else None
        start = span.start_byte
    end = body.start_byte if body is not None and body.start_byte > start else node.end_byte
    text = " ".join(source[start:end].decode("utf-8", "replace").split())
    if body is None:
        text = text.split("{", 1)[0].strip() or text
        text = text.removesuffix(" end")  # Ruby: an empty method
    text = text.rstrip(":{; ").rstrip() or text
    return text if len(text) <= MAX_HEADER_CHARS else text[: MAX_HEADER_CHARS - 3] + "..."


def _lines(node: tree_sitter.Node) -> tuple[int, int]:
    end_row = node.end_point.row
    if node.end_point.column == 0 and end_row > node.start_point.row:
        end_row -= 1  # ends just after a line break: the break belongs to the line before
    return node.start_point.row + 1, end_row + 1


def _nested(language: Language, source: bytes, found: list[tuple[tree_sitter.Node, str, str]]) -> Iterator[Symbol]:
    found.sort(key=lambda item: (item[0].start_byte, -item[0].end_byte))
    stack: list[Symbol] = []
    for node, kind, name in found:
        span = _span(language, node)
        while stack and not (stack[-1].start_byte <= span.start_byte and span.end_byte <= stack[-1].end_byte):
            stack.pop()
        parent = stack[-1] if stack else None
        if parent is not None and kind == "function" and parent.kind in _CONTAINERS:
            kind = "method"
        parent_name = parent.qualified if parent else _receiver(language, node)
        if "::" in name and language.name == "cpp":  # int ns::Parser::size() const { ... }, outside its class
            outer, _, name = name.rpartition("::")
            parent_name = ".".join(filter(None, [parent_name, outer.replace("::", ".")]))
        start, end = _lines(span)
        symbol = Symbol(
            name,
            kind,
            start,
            end,
            parent_name,
            _header(source, node, span, kind, name),
            len(stack),
            span.start_byte,
            span.end_byte,
        )
        stack.append(symbol)
        yield symbol


def _receiver(language: Language, node: tree_sitter.Node) -> str | None:
    """The type a Go method belongs to (`Parser` of `func (p *Parser) Feed()`): its parent, though not nested."""
    if language.name != "go" or node.type != "method_declaration":
        return None
    receiver = node.child_by_field_name("receiver")
    if receiver is None:
        return None
    text = _text(receiver).strip("()").split()
    return text[-1].lstrip("*").split("[", 1)[0] if text else None


def find_symbol(symbols: list[Symbol], wanted: str) -> list[Symbol]:
    """The definitions `wanted` names: by qualified name (`Parser.feed`), else by the end of one (`feed`)."""
    wanted = wanted.strip()
    exact = [symbol for symbol in symbols if symbol.qualified == wanted]
    if exact:
        return exact
    return [symbol for symbol in symbols if symbol.qualified.endswith("." + wanted)]
