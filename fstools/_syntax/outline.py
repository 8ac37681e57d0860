"""The definitions in a source file (classes, functions, methods, structs, impl blocks, ...), nested.

One tree-sitter query per language finds the definitions (the matching runs in C, so a
large file costs its parse and little more); their nesting comes from their byte ranges.
A function directly inside a class-like definition is a method. Each symbol has its line
range (1-based, inclusive; a Python definition's decorators included) and a header: its
text up to its body, on one line (`def feed(self, data)`, `impl Display for Parser`).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

from .conditionals import Hidden, blanked, hidden
from .languages import Language, grammar, overdue, paced, parse

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
(type_definition declarator: (_) @declarator) @definition.typedef
(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro
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
# Definitions nothing is nested in: `typedef struct s {...} t` holds the struct s, which is no member of t.
_LEAVES = frozenset({"typedef", "macro"})
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
    name_byte: int = -1  # where the name starts (the last part of `ns::Parser::size`)
    name_line: int = 0  # the line it is on (1-based)

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


@dataclass(frozen=True)
class Extraction:
    """What one parse of a file gives: its definitions, the lines where the parser met errors, and the tree.

    `error_lines` not empty means a partial parse: the parser skipped what it could not read
    there, so definitions near those lines may be missing or cut.
    """

    symbols: list[Symbol]
    error_lines: list[int]
    tree: tree_sitter.Tree
    parsed: bytes  # the bytes the tree was parsed from: the source with attribute macros blanked (C)
    blanked: tuple[tuple[int, int], ...] = ()  # where the blanked macro names were
    hidden_uses: tuple[tuple[int, int], ...] = ()  # the ranges of blanked conditional code, whose words are uses
    heads: dict[int, int] = field(default_factory=dict)  # a function's name in a blanked branch -> its own name's
    blanked_branches: tuple[tuple[int, int], ...] = ()  # the conditional branches blanked before the parse
    swallowed: int = 0  # functions headed at column 0 found inside another function's body (see _swallowed)


# The query runs over windows of the text this large: between two, the deadline is checked and other
# threads may run (a window's matches are collected with the GIL held).
WINDOW_BYTES = 64 * 1024


def definitions(language: Language, source: bytes, *, deadline: float | None = None) -> list[Symbol] | None:
    """The definitions in `source`, in order of their start; None when the grammar is not installed.
    Past `deadline` (time.monotonic()) ParseTimeout."""
    if not supports(language):
        return []
    found = extract(language, source, deadline=deadline)
    return None if found is None else found.symbols


def extract(language: Language, source: bytes, *, deadline: float | None = None) -> Extraction | None:
    """One parse of `source`: its definitions and parse errors; None when the language has no outline or no
    grammar. Past `deadline` (time.monotonic()) ParseTimeout."""
    if not supports(language):
        return None
    found = _extract(language, source, prepare(language, source, deadline=deadline), deadline)
    if found is None or found.blanked_branches == () or found.swallowed < 2:
        return found
    plain = _extract(language, source, prepare(language, source, conditionals=False, deadline=deadline), deadline)
    return plain if plain is not None and _derailed(found, plain) else found


def _derailed(resolved: Extraction, plain: Extraction) -> bool:
    """Whether resolving the conditional groups derailed the parse: a function of the blanked text swallows
    a definition that the file read as written has on its own, in code both readings compile (the parse
    recovered from an error elsewhere worse, and a body left open runs on over the functions after it).
    Then the file is read as written."""
    kept = {(symbol.name, symbol.name_byte) for symbol in resolved.symbols}
    blank = sorted(resolved.blanked_branches)
    starts = [start for start, _ in blank]
    bodies = [(s.start_byte, s.end_byte) for s in resolved.symbols if s.kind == "function" and s.depth == 0]

    def compiled_in_both(byte: int) -> bool:
        at = bisect_left(starts, byte + 1) - 1
        return at < 0 or not blank[at][0] <= byte < blank[at][1]

    def swallowed(symbol: Symbol) -> bool:
        return any(start < symbol.start_byte and symbol.end_byte <= end for start, end in bodies)

    lost = (s for s in plain.symbols if (s.name, s.name_byte) not in kept and compiled_in_both(s.name_byte))
    # One swallowed definition may as well be the plain parse's own guess in an error (ctags agrees with
    # the blanked reading there); a body running on over several is the derailment.
    return sum(1 for s in lost if s.depth == 0 and swallowed(s)) >= 2


def _extract(language: Language, source: bytes, ready: Prepared, deadline: float | None) -> Extraction | None:
    query = _query(language)
    parsed = ready.data
    tree = parse(language, parsed, deadline=deadline) if query is not None else None
    if query is None or tree is None:
        return None

    import tree_sitter

    found: dict[tuple[int, int, str], tuple[tree_sitter.Node, str, tree_sitter.Node]] = {}
    cursor = tree_sitter.QueryCursor(query)
    end = max(len(parsed), 1)
    for start in range(0, end, WINDOW_BYTES):
        overdue(deadline)
        cursor.set_byte_range(start, min(start + WINDOW_BYTES, end))
        for _, captures in cursor.matches(tree.root_node):  # another thread waiting gets the GIL after it
            _take_definition(language, parsed, captures, found)
    symbols = list(_nested(language, ready.shown or source, list(found.values()), deadline))
    if ready.hidden is None:
        return Extraction(symbols, error_lines(tree), tree, parsed, ready.blanked)
    heads = _other_heads(source, symbols, ready.hidden, deadline)
    hide, errors = ready.hidden, error_lines(tree)
    swallowed = _swallowed(list(found.values()), symbols)
    return Extraction(
        symbols, errors, tree, parsed, ready.blanked, tuple(hide.words), heads, tuple(hide.blank), swallowed
    )


def _swallowed(found: list[tuple[tree_sitter.Node, str, tree_sitter.Node]], symbols: list[Symbol]) -> int:
    """How many functions headed at a line's start the parse put inside another function (and the outline
    dropped: C has no nested functions). A loop macro read as one is indented; a head at column 0 inside
    a body is what a body left open by an error swallows."""
    heads = sum(1 for node, kind, _ in found if kind == "function" and node.start_point.column == 0)
    kept = sum(1 for symbol in symbols if symbol.kind == "function" and symbol.depth == 0)
    return max(heads - kept, 0)


def _take_definition(language: Language, parsed: bytes, captures: dict[str, Any], found: dict[Any, Any]) -> None:
    """Keep the definition one query match captured, by its place and name (one across two windows is
    found in both; `typedef struct {...} t` is the struct t, not a typedef)."""
    definition = next((nodes[0] for name, nodes in captures.items() if name.startswith("definition.")), None)
    if definition is None:
        return
    kind = next(name for name in captures if name.startswith("definition.")).split(".", 1)[1]
    named = _name(language, captures)
    name = _text(parsed, named) if named is not None else ""
    key = (definition.start_byte, definition.end_byte, name)
    if named is not None and name and (key not in found or found[key][1] == "typedef"):
        found[key] = (definition, kind, named)


def _other_heads(source: bytes, symbols: list[Symbol], hide: Hidden, deadline: float | None = None) -> dict[int, int]:
    """The function names in blanked branches that head the same function in another configuration
    (`#ifdef X int f(int a) { #else int f(long a) { #endif`): their byte -> that of the function's name."""
    heads: dict[int, int] = {}
    functions = sorted((symbol for symbol in symbols if symbol.kind == "function"), key=lambda s: s.name_byte)
    starts = [symbol.name_byte for symbol in functions]
    # Thousands in a file of tables: each looks only at its own functions.
    for kept, others in paced(hide.alternatives, deadline):
        if not others:
            continue
        for symbol in functions[bisect_left(starts, kept[0]) : bisect_left(starts, kept[1])]:
            head = re.compile(rb"\b" + re.escape(symbol.name.encode()) + rb"\s*\(")
            for start, end in others:
                for match in head.finditer(source, start, end):
                    heads[match.start()] = symbol.name_byte
    return heads


MAX_ERROR_LINES = 20


def error_lines(tree: tree_sitter.Tree) -> list[int]:
    """The first lines (1-based, at most MAX_ERROR_LINES) where the parser met an error or a missing token."""
    lines: list[int] = []
    if not tree.root_node.has_error:
        return lines
    pending = [tree.root_node]
    while pending and len(lines) < MAX_ERROR_LINES:
        node = pending.pop()
        if node.is_error or node.is_missing:
            lines.append(node.start_point.row + 1)
            continue
        pending.extend(child for child in reversed(node.children) if child.has_error)
    return sorted(set(lines))


# Attribute macros in C declarations, which no C grammar can read without the macros' definitions:
# a function-like one in the specifiers (`static inline __alloc_size(1, 2) void *f(...)`, also before
# a line break), or a bare one between a storage class and the type (`static __always_inline void`),
# between a type and the declarator (`int __init f(void)`, `char __user *buf`). They are blanked
# before the parse (spaces, same length: every offset and line stays); `Prepared.blanked` keeps
# where their names were, which are uses of those macros all the same.
_UNDERSCORED = re.compile(rb"\b__[A-Za-z0-9_]+\b")
_ARGUMENTS = re.compile(rb"[ \t]*\((?:[^()\n]|\((?:[^()\n]|\([^()\n]*\))*\))*\)(?=\s*[A-Za-z_])")
_WORD_BEFORE = re.compile(rb"[A-Za-z0-9_*][ \t]*$")
_DECLARATOR_AFTER = re.compile(rb"\s+\**[ \t]*[A-Za-z_][A-Za-z0-9_]*[ \t]*[(;,)=\[]|[ \t]+\*")
_NOT_A_TYPE = frozenset(
    b"static inline extern const volatile register typedef return case goto sizeof struct union enum".split()
)
_TAG_AFTER = re.compile(rb"\s+[A-Za-z_][A-Za-z0-9_]*\s*\{")
_LEADING_AFTER = re.compile(rb"[ \t]+[A-Za-z_][A-Za-z0-9_]*[ \t]+\**[ \t]*[A-Za-z_][A-Za-z0-9_]*[ \t]*\(")
_AFTER_DECLARATOR_BEFORE = re.compile(rb"(?:[A-Za-z0-9_\]]|\})[ \t]*$")
_AFTER_DECLARATOR = re.compile(rb"[ \t]*(?:[=;,)]|[A-Za-z_][A-Za-z0-9_]*[ \t]*;)")
_TYPE_AFTER = re.compile(rb"[ \t]+(?![A-Za-z_][A-Za-z0-9_]*[ \t]*\()[A-Za-z_]")
# Spelled by the grammar itself: left as they are.
_GRAMMAR_WORDS = frozenset(
    {
        b"__attribute__",
        b"__attribute",
        b"__declspec",
        b"__asm__",
        b"__asm",
        b"__typeof__",
        b"__typeof",
        b"__alignof__",
        b"__alignof",
        b"__extension__",
        b"__volatile__",
        b"__inline",
        b"__inline__",
        b"__restrict",
        b"__restrict__",
        b"__thread",
        b"__cdecl",
        b"__stdcall",
        b"__fastcall",
        b"__based",
        b"__unaligned",
        b"__forceinline",
    }
)
_DEFINE = re.compile(rb"[ \t]*#[ \t]*(?:define|undef|ifn?def|if|elif)\b")


@dataclass(frozen=True)
class Prepared:
    """The bytes a C file is parsed from, the (start, end) of each attribute macro name blanked in them, and
    what conditional compilation hid (`conditionals`): the text shown in headers, the ranges of its uses."""

    data: bytes
    blanked: tuple[tuple[int, int], ...] = ()
    shown: bytes | None = None  # the source with only the hidden branches blanked; None: the source itself
    hidden: Hidden | None = None


def prepared(language: Language, source: bytes) -> bytes:
    """The bytes to parse: `source` itself, but for C with its attribute macros and the conditional branches
    no grammar reads blanked (see above, and `conditionals`)."""
    return prepare(language, source).data


def prepare(language: Language, source: bytes, *, conditionals: bool = True, deadline: float | None = None) -> Prepared:
    """`prepared` with where the blanked macro names were and what conditional compilation hid.

    Parameters: `language` and `source`, the file's; `conditionals` false: every branch kept, the
    file read as written; `deadline`, the time.monotonic() past which ParseTimeout.
    """
    if language.name != "c":
        return Prepared(source)
    if source.startswith(b"\xef\xbb\xbf"):  # a byte order mark: no C token, and a directive after it is still one
        source = b"   " + source[3:]
    found = hidden(source, deadline) if conditionals else Hidden()
    hide = found if found.blank else None
    shown = blanked(source, found.blank, deadline)
    if b"__" not in shown:
        return Prepared(shown, (), shown if hide else None, hide)
    source = shown  # attribute macros are looked for in the code compiled, where the grammar reads them
    out = bytearray(source)
    blanked_names: list[tuple[int, int]] = []
    for match in paced(_UNDERSCORED.finditer(source), deadline):
        start, end = match.span()
        if match.group(0) in _GRAMMAR_WORDS:
            continue
        line_start = source.rfind(b"\n", 0, start) + 1
        if _DEFINE.match(source, line_start):  # a macro's own definition, or a condition on it
            continue
        arguments = _ARGUMENTS.match(source, end)
        if arguments is not None:
            stop = arguments.end()
        elif _bare_attribute(source, line_start, start, end):
            stop = end
        else:
            continue
        before = source[line_start:start]
        if b'"' in before or b"'" in before or b"//" in before:
            continue  # perhaps in a string or a comment: nothing to blank there
        out[start:stop] = b" " * (stop - start)
        blanked_names.append((start, end))
    return Prepared(bytes(out), tuple(blanked_names), shown if hide else None, hide)


def _bare_attribute(source: bytes, line_start: int, start: int, end: int) -> bool:
    """Whether the word at start..end sits where only an attribute can: see the comment above `_UNDERSCORED`."""
    before = source[line_start:start]
    words = before.split()
    if not words:  # `__init void f(void)` at the start of a line
        return bool(_LEADING_AFTER.match(source, end))
    if words[-1] in (b"struct", b"union", b"enum"):  # `struct __packed name {`, not the tag of `struct __kernel_x t;`
        return bool(_TAG_AFTER.match(source, end))
    if words[-1] in _NOT_A_TYPE:
        # `static __always_inline void f()`; but `static __u32 f()`: the word is the type
        return words[-1] in (b"static", b"inline", b"extern") and bool(_TYPE_AFTER.match(source, end))
    if _AFTER_DECLARATOR_BEFORE.search(before) and _AFTER_DECLARATOR.match(source, end):
        return True  # `int x __read_mostly = 1;`, `t[] __initdata = {`, `} __packed name;`, `int a __maybe_unused,`
    return bool(_WORD_BEFORE.search(before) and _DECLARATOR_AFTER.match(source, end))


def _name(language: Language, captures: dict[str, list[tree_sitter.Node]]) -> tree_sitter.Node | None:
    """The node holding a definition's name."""
    if "declarator" in captures:
        return _declared_name(captures["declarator"][0])
    node = captures["name"][0]
    if language.name == "rust" and node.type == "generic_type":
        node = node.child_by_field_name("type") or node
    return node


def _declared_name(declarator: tree_sitter.Node) -> tree_sitter.Node | None:
    """The name a C/C++ declarator declares: `foo` of `*foo(int a)`, `A::run` of `A::run() const`."""
    node: tree_sitter.Node | None = declarator
    while node is not None and node.type not in _NAME_TYPES:
        inner = node.child_by_field_name("declarator")
        if inner is None and node.type == "parenthesized_declarator":  # typedef int (*handler)(int)
            inner = next(iter(node.named_children), None)
        node = inner
    return node


def _text(source: bytes, node: tree_sitter.Node) -> str:
    """A node's text, from the bytes parsed (a tree parsed through a callback, under a deadline, holds none:
    `Node.text` would read the text again through the callback, a node at a time)."""
    return source[node.start_byte : node.end_byte].decode("utf-8", "replace")


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
    if node.type == "type_definition" and kind != "typedef":  # typedef struct { ... } name;
        return f"typedef {kind} {name}"
    body = node.child_by_field_name("value" if node.type.startswith("preproc_") else "body")
    start = node.start_byte
    if node.type == "variable_declarator":  # const f = (...) => { ... }
        value = node.child_by_field_name("value")
        body = value.child_by_field_name("body") if value is not None else None
        start = span.start_byte
    end = body.start_byte if body is not None and body.start_byte > start else node.end_byte
    text = " ".join(source[start:end].decode("utf-8", "replace").split())
    if body is None and kind == "typedef" and "{" in text:  # typedef struct list_head { ... } list_head_t
        text = f"{text.split('{', 1)[0].strip()} {name}"
    elif body is None:
        text = text.split("{", 1)[0].strip() or text
        text = text.removesuffix(" end")  # Ruby: an empty method
    text = text.rstrip(":{; ").rstrip() or text
    return text if len(text) <= MAX_HEADER_CHARS else text[: MAX_HEADER_CHARS - 3] + "..."


def _lines(node: tree_sitter.Node, language: Language | None = None) -> tuple[int, int]:
    end_row = node.end_point.row
    if language is not None and language.name == "python":  # trailing comments are no part of a block
        end_row = _last_code(node).end_point.row
    if node.end_point.column == 0 and end_row > node.start_point.row:
        end_row -= 1  # ends just after a line break: the break belongs to the line before
    return node.start_point.row + 1, end_row + 1


def _last_code(node: tree_sitter.Node) -> tree_sitter.Node:
    """The last descendant of `node` that is not a comment, along its last children."""
    while node.children:
        code = [child for child in node.children if child.type != "comment"]
        if not code:
            break
        node = code[-1]
    return node


def _nested(
    language: Language,
    source: bytes,
    found: list[tuple[tree_sitter.Node, str, tree_sitter.Node]],
    deadline: float | None,
) -> Iterator[Symbol]:
    found.sort(key=lambda item: (item[0].start_byte, -item[0].end_byte))
    stack: list[Symbol] = []
    for node, kind, named in paced(found, deadline):
        name = _text(source, named)
        span = _span(language, node)
        while stack and not (stack[-1].start_byte <= span.start_byte and span.end_byte <= stack[-1].end_byte):
            stack.pop()
        parent = stack[-1] if stack else None
        if language.name == "c" and kind == "function" and parent is not None and parent.kind == "function":
            continue  # C has no nested functions: `list_for_each(pos, head) {` is a loop macro, read as one
        if parent is not None and kind == "function" and parent.kind in _CONTAINERS:
            kind = "method"
        parent_name = parent.qualified if parent else _receiver(language, source, node)
        if "::" in name and language.name == "cpp":  # int ns::Parser::size() const { ... }, outside its class
            outer, _, name = name.rpartition("::")
            parent_name = ".".join(filter(None, [parent_name, outer.replace("::", ".")]))
        start, end = _lines(span, language)
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
            named.end_byte - len(name.encode("utf-8", "surrogateescape")),  # the last part of `ns::Parser::size`
            named.start_point.row + 1,
        )
        if kind not in _LEAVES:
            stack.append(symbol)
        yield symbol


def _receiver(language: Language, source: bytes, node: tree_sitter.Node) -> str | None:
    """The type a Go method belongs to (`Parser` of `func (p *Parser) Feed()`): its parent, though not nested."""
    if language.name != "go" or node.type != "method_declaration":
        return None
    receiver = node.child_by_field_name("receiver")
    if receiver is None:
        return None
    text = _text(source, receiver).strip("()").split()
    return text[-1].lstrip("*").split("[", 1)[0] if text else None


def find_symbol(symbols: list[Symbol], wanted: str) -> list[Symbol]:
    """The definitions `wanted` names: by qualified name (`Parser.feed`), else by the end of one (`feed`)."""
    wanted = wanted.strip()
    exact = [symbol for symbol in symbols if symbol.qualified == wanted]
    if exact:
        return exact
    return [symbol for symbol in symbols if symbol.qualified.endswith("." + wanted)]
