"""The names in a source file: its definitions and every identifier it uses, as the parser reads them.

One parse gives a file's `FileNames`: the definitions Outline lists (with their qualified
names and the place of each name) and, for every identifier, where it occurs. Only what the
parser reads as an identifier counts: a word in a comment or a string is none, a keyword is
none, and an f-string's expression is code. C macro bodies are text to the parser; their
identifiers (outside the body's own strings and comments) count as uses, and so do the
names of attribute macros blanked before the parse (`outline.prepare`).

Everything is plain tuples, lists, dicts, strings, numbers and bytes, so a `FileNames` can be
stored (`marshal`) and loaded again without parsing: see `as_data` and `from_data`. Each name's
places are packed into one `bytes` (three 32-bit numbers a place): a kept file's uses then cost
a fifth of the memory of a tuple per place, and the garbage collector has nothing to walk.

    from fstools._syntax.names import file_names
    names = file_names(language, source)      # None when the grammar is not installed
    names.occurrences("feed")                 # [Occurrence(byte, line, column, kind, enclosing), ...]
    names.places("feed")                      # [(byte, line, column), ...]
"""

from __future__ import annotations

import bisect
import re
import sys
import unicodedata
from array import array
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from itertools import accumulate, chain, repeat
from typing import TYPE_CHECKING, Any, Final, Literal, NamedTuple

from .languages import Language, grammar, overdue, paced
from .outline import MAX_HEADER_CHARS, Extraction, extract, supports

if TYPE_CHECKING:
    import tree_sitter

# Bump when what a FileNames holds changes: stored ones of another version are parsed again.
FORMAT = 3

Place = tuple[int, int, int]  # an identifier's byte, 1-based line and 1-based byte column

OccurrenceKind = Literal["def", "ref", "import"]

# The node types that are identifiers, per language (those a grammar lacks are left out).
_IDENTIFIERS: dict[str, tuple[str, ...]] = {
    "python": ("identifier",),
    "javascript": (
        "identifier",
        "property_identifier",
        "shorthand_property_identifier",
        "shorthand_property_identifier_pattern",
        "private_property_identifier",
        "statement_identifier",
    ),
    "c": ("identifier", "field_identifier", "type_identifier", "statement_identifier"),
    "cpp": ("identifier", "field_identifier", "type_identifier", "namespace_identifier", "statement_identifier"),
    "go": ("identifier", "field_identifier", "type_identifier", "package_identifier", "label_name"),
    "rust": ("identifier", "field_identifier", "type_identifier", "shorthand_field_identifier"),
    "java": ("identifier", "type_identifier"),
    "ruby": ("identifier", "constant"),
    "bash": ("variable_name",),
}
_IDENTIFIERS["typescript"] = _IDENTIFIERS["tsx"] = (*_IDENTIFIERS["javascript"], "type_identifier")
# Extra patterns: shell names that are words in some places only.
_EXTRA: dict[str, str] = {
    "bash": "(command_name (word) @id) (function_definition name: (word) @id)",
    # `from __future__ import x` names a module; `type(self).x = y` is read as a type alias (a grammar
    # slip), whose `type` is then the builtin used; `print >> f` and `exec "x"` are Python 2 statements
    # to the grammar, and names (the builtins) to Python 3.
    "python": '(future_import_statement "__future__" @id) (type_alias_statement) @alias '
    '(print_statement "print" @id) (exec_statement "exec" @id)',
}
# The statements whose names are imports.
_IMPORTS: dict[str, tuple[str, ...]] = {
    "python": ("import_statement", "import_from_statement", "future_import_statement"),
    "javascript": ("import_statement",),
    "typescript": ("import_statement",),
    "tsx": ("import_statement",),
    "go": ("import_declaration",),
    "rust": ("use_declaration", "extern_crate_declaration"),
    "java": ("import_declaration",),
    "cpp": ("using_declaration",),
}
# A C macro body's tokens: strings, characters and comments are skipped, identifiers kept.
_C_TOKENS = re.compile(
    rb'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|/\*.*?\*/|//[^\n]*|\b[A-Za-z_][A-Za-z0-9_]*\b', re.S
)
# Blanked conditional code (`conditionals`): the same tokens, and directive names and `#include` lines skipped.
_C_HIDDEN_TOKENS = re.compile(rb"^[ \t]*#[ \t]*include[^\n]*|#[ \t]*[A-Za-z_]\w*|" + _C_TOKENS.pattern, re.S | re.M)
_C_KEYWORDS = frozenset(
    b"auto break case char const continue default do double else enum extern float for goto if inline int long "
    b"register restrict return short signed sizeof static struct switch typedef union unsigned void volatile while "
    b"defined _Bool _Complex _Atomic _Alignas _Alignof _Generic _Noreturn _Static_assert _Thread_local".split()
)
_KINDS: tuple[OccurrenceKind, ...] = ("def", "ref", "import")


class Definition(NamedTuple):
    """One definition as Symbols lists it."""

    name: str
    qualified_name: str
    kind: str
    start_line: int
    end_line: int
    start_byte: int
    end_byte: int
    name_byte: int
    name_line: int
    first_line: str  # the source line holding the name, stripped


# A Definition's fields as a plain tuple: what a FileNames holds. The garbage collector stops tracking a
# plain tuple of strings and numbers at its first pass, but never an instance of a tuple subclass such as
# Definition: a warm store holding Definitions (five kernels: hundreds of thousands) made every full
# collection walk them all, 190 ms on one kernel's, paid by whichever call it fell in (the host's too).
DefinitionRow = tuple[str, str, str, int, int, int, int, int, int, str]
_NAME: Final = 0
_QUALIFIED: Final = 1
_START_BYTE: Final = 5
_END_BYTE: Final = 6
_NAME_BYTE: Final = 7


@dataclass(frozen=True)
class Occurrence:
    """One identifier: 1-based line and byte column, its kind, and the qualified name of the definition it is in."""

    byte: int
    line: int
    column: int
    kind: OccurrenceKind
    enclosing: str | None


@dataclass(slots=True)
class FileNames:
    """A file's definitions and identifiers (see the module docstring)."""

    language: str
    rows: list[DefinitionRow]  # its definitions, in order (`definitions` gives them as Definition)
    # name -> the places of its occurrences, in order, packed (`pack`; `places` unpacks them)
    names: dict[str, bytes]
    imports: list[tuple[int, int]]  # byte ranges of import statements, in order
    error_lines: list[int]
    imported: list[str] = field(default_factory=list)  # the names in its imports (and C includes' file stems)
    complete: bool = True  # False: the definitions only (`file_names(..., uses=False)`), no identifiers
    # C: a function's name in a conditional branch not parsed (another configuration's head) -> its name's byte
    heads: dict[int, int] = field(default_factory=dict)
    # Lookups built on demand, of numbers and strings only (nothing for the collector to walk): a name's
    # byte -> its definition's row; a name -> its row, or its rows when several share it.
    _def_bytes: dict[int, int] = field(default_factory=dict, repr=False, compare=False)
    _by_name: dict[str, int | tuple[int, ...]] | None = field(default=None, repr=False, compare=False)
    _folded: str | None = field(default=None, repr=False, compare=False)
    _starts: list[int] | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._def_bytes = {row[_NAME_BYTE]: at for at, row in enumerate(self.rows)}
        for byte, name_byte in self.heads.items():
            if name_byte in self._def_bytes:
                self._def_bytes[byte] = self._def_bytes[name_byte]

    @property
    def definitions(self) -> list[Definition]:
        """Its definitions, in order (made from the rows each time: a kept file holds none)."""
        return list(map(Definition._make, self.rows))

    def named(self, name: str) -> list[Definition]:
        """The definitions whose name is exactly `name`."""
        if self._by_name is None:
            by_name: dict[str, int | tuple[int, ...]] = {}
            for at, row in enumerate(self.rows):
                held = by_name.setdefault(row[_NAME], at)
                if held != at:
                    by_name[row[_NAME]] = (*held, at) if isinstance(held, tuple) else (held, at)
            self._by_name = by_name
        found = self._by_name.get(name)
        if found is None:
            return []
        return [Definition._make(self.rows[at]) for at in (found if isinstance(found, tuple) else (found,))]

    def containing(self, folded: str) -> list[Definition]:
        """The definitions whose case-folded name contains `folded` (itself case-folded)."""
        if self._folded is None:
            self._folded = "\n".join(row[_NAME].lower() for row in self.rows)
        if folded not in self._folded:  # one search in C decides for most files
            return []
        return [Definition._make(row) for row in self.rows if folded in row[_NAME].lower()]

    def occurrences(self, name: str) -> list[Occurrence]:
        """Every occurrence of the identifier `name`, in order, classified."""
        found = []
        import_starts = [start for start, _ in self.imports]
        for byte, line, column in self.places(name):
            own = self._def_bytes.get(byte)
            if own is not None:
                kind: OccurrenceKind = "def"
                enclosing = self.enclosing(self.rows[own][_START_BYTE], own)
            else:
                at = bisect.bisect_right(import_starts, byte) - 1
                kind = "import" if at >= 0 and byte < self.imports[at][1] else "ref"
                enclosing = self.enclosing(byte)
            found.append(Occurrence(byte, line, column, kind, enclosing))
        return found

    def places(self, name: str) -> list[Place]:
        """Where the identifier `name` occurs, in order (empty when it does not)."""
        packed = self.names.get(name)
        return unpack(packed) if packed else []

    def everywhere(self) -> Iterator[tuple[str, list[Place]]]:
        """Each identifier with its places, in no particular order."""
        for name, packed in self.names.items():
            yield name, unpack(packed)

    def enclosing(self, byte: int, itself: int | None = None) -> str | None:
        """The qualified name of the innermost definition holding `byte` (other than the row `itself`): of
        those starting before it, the last that still holds it (a nested definition starts after its parent)."""
        if self._starts is None:
            self._starts = [row[_START_BYTE] for row in self.rows]
        at = bisect.bisect_right(self._starts, byte) - 1
        while at >= 0:
            row = self.rows[at]
            if at != itself and byte < row[_END_BYTE]:
                return row[_QUALIFIED]
            at -= 1
        return None

    def outline(self) -> FileNames:
        """Its definitions only: what `file_names(..., uses=False)` gives for the same source (the
        definitions shared, not copied)."""
        if not self.complete:
            return self
        return FileNames(self.language, self.rows, {}, [], self.error_lines, [], False)

    def as_data(self) -> tuple[Any, ...]:
        """Plain data to store (marshal); `from_data` makes the FileNames again."""
        return (
            FORMAT,
            self.language,
            self.rows,
            self.names,
            self.imports,
            self.error_lines,
            self.imported,
            self.complete,
            self.heads,
        )

    @classmethod
    def from_data(cls, data: Any) -> FileNames | None:
        """The FileNames stored by `as_data`, or None for data of another format or a damaged one (every
        field's type checked, each row's too: the store's file may have been written by anyone)."""
        if not isinstance(data, tuple) or len(data) != 9 or data[0] != FORMAT:
            return None
        _, language, defs, names, imports, error_lines, imported, complete, heads = data
        if not (
            type(language) is str
            and type(complete) is bool
            and _all_of(list, defs, imports, error_lines, imported)
            and _all_of(dict, names, heads)
            and _types(defs) <= {tuple}
            and _row_types(defs) <= {_ROW_TYPES}
            and _types(names) <= {str}
            and all(type(packed) is bytes and len(packed) % _PLACE_BYTES == 0 for packed in names.values())
            and _types(imports) <= {tuple}
            and _row_types(imports) <= {(int, int)}
            and _types(error_lines) <= {int}
            and _types(imported) <= {str}
            and _types(heads) | _types(heads.values()) <= {int}
        ):
            return None  # damaged: parsed again, as for another format
        return cls(language, defs, names, imports, error_lines, imported, complete, heads)


_ROW_TYPES = (str, str, str, int, int, int, int, int, int, str)


def _types(items: Any) -> set[type]:
    """The types of `items` (C's loop: a stored file holds thousands)."""
    return set(map(type, items))


def _row_types(rows: Any) -> set[tuple[type, ...]]:
    """The type tuple of each of `rows` (each a tuple), all in C's loops."""
    return set(map(tuple, map(map, repeat(type), rows)))


def _all_of(kind: type, *values: Any) -> bool:
    return all(type(value) is kind for value in values)


@cache
def _query(language: Language) -> tree_sitter.Query | None:
    loaded = grammar(language)
    if loaded is None:
        return None
    import tree_sitter

    kinds = [kind for kind in _IDENTIFIERS.get(language.name, ()) if loaded.id_for_node_kind(kind, True)]
    patterns = [f"({kind}) @id" for kind in kinds]
    patterns += [f"({kind}) @import" for kind in _IMPORTS.get(language.name, ()) if loaded.id_for_node_kind(kind, True)]
    if language.name == "c":
        patterns.append("(preproc_arg) @macro")
    if language.name in ("c", "cpp"):
        patterns.append("(preproc_include path: (_) @include)")
    if language.name in ("javascript", "typescript", "tsx"):
        patterns.append("(import_statement source: (_) @include)")
    if language.name == "go":
        patterns.append("(import_spec path: (_) @include)")
    if language.name in _EXTRA:
        patterns.append(_EXTRA[language.name])
    query: tree_sitter.Query = tree_sitter.Query(loaded, "\n".join(patterns))
    return query


def file_names(
    language: Language, source: bytes, *, uses: bool = True, deadline: float | None = None
) -> FileNames | None:
    """The names of `source` (`uses=False`: its definitions only, cheaper); None when the language has no
    outline or its grammar is not installed. Past `deadline` (time.monotonic()) ParseTimeout."""
    if not supports(language):
        return None
    found = extract(language, source, deadline=deadline)
    query = _query(language)
    if found is None or query is None:
        return None
    starts = _line_starts(source)
    definitions = _definitions(found, source, starts, deadline)
    if not uses:
        return FileNames(language.name, definitions, {}, [], found.error_lines, [], False)
    names: dict[str, list[Place]] = {}
    imports: set[tuple[int, int]] = set()
    includes: list[bytes] = []
    for captures in _windows(query, found.tree, len(source), deadline):
        _add_captures(language, source, captures, starts, names)
        imports.update((node.start_byte, node.end_byte) for node in captures.get("import", []))
        includes.extend(source[node.start_byte : node.end_byte] for node in captures.get("include", []))
    for start, end in paced(found.blanked, deadline):
        _add(source, start, end, starts, names)
    for start, end in paced(found.hidden_uses, deadline):
        _add_tokens(source, start, end, starts, names, _C_HIDDEN_TOKENS)
    overdue(deadline)
    ranges = sorted(imports)
    imported = _imported(names, ranges, sorted(set(includes)))
    packed = {name: pack(places) for name, places in names.items()}
    return FileNames(language.name, definitions, packed, ranges, found.error_lines, imported, heads=found.heads)


# Packed places are unsigned 32-bit numbers, little-endian whatever the machine: the store on disk may be shared
# (a home directory over NFS) by machines of either byte order.
_CODE = next(code for code in "IL" if array(code).itemsize == 4)
_SWAP = sys.byteorder == "big"
_PLACE_BYTES = 3 * 4


def pack(places: list[Place]) -> bytes:
    """`places` in order, as one bytes of three 32-bit numbers each (files parsed are at most 8 MB)."""
    packed = array(_CODE, chain.from_iterable(sorted(places)))
    if _SWAP:
        packed.byteswap()
    return packed.tobytes()


def unpack(packed: bytes) -> list[Place]:
    """The places `pack` packed."""
    numbers = array(_CODE, packed)
    if _SWAP:
        numbers.byteswap()
    flat = numbers.tolist()
    return list(zip(flat[0::3], flat[1::3], flat[2::3], strict=True))


# Identifiers are captured a window of the text at a time: a large file's nodes are never all
# held at once (a 7 MB file has a million), and the deadline is checked between two windows.
NAME_WINDOW_BYTES = 256 * 1024


def _windows(
    query: tree_sitter.Query, tree: tree_sitter.Tree, size: int, deadline: float | None
) -> Iterator[dict[str, list[tree_sitter.Node]]]:

    import tree_sitter

    cursor = tree_sitter.QueryCursor(query)
    end = max(size, 1)
    for start in range(0, end, NAME_WINDOW_BYTES):
        overdue(deadline)
        cursor.set_byte_range(start, min(start + NAME_WINDOW_BYTES, end))
        captures = cursor.captures(tree.root_node)
        if start:  # a node is the window's where it starts (one across two windows is captured in both)
            captures = {name: [n for n in nodes if n.start_byte >= start] for name, nodes in captures.items()}
        yield captures


def _add_captures(
    language: Language,
    source: bytes,
    captures: dict[str, list[tree_sitter.Node]],
    starts: list[int],
    names: dict[str, list[Place]],
) -> None:
    normalize = language.name == "python"  # Python reads identifiers NFKC-normalized: 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 is Unicode
    for node in captures.get("id", []):
        text = source[node.start_byte : node.end_byte].decode("utf-8", "surrogateescape")
        if normalize and not text.isascii():
            text = unicodedata.normalize("NFKC", text)
        point = node.start_point
        names.setdefault(text, []).append((node.start_byte, point.row + 1, point.column + 1))
    for alias in captures.get("alias", []):
        keyword, left = alias.children[0], alias.child_by_field_name("left")
        inner = left.named_children[0] if left is not None and left.named_children else left
        if keyword.type == "type" and inner is not None and inner.type not in ("identifier", "generic_type"):
            _add(source, keyword.start_byte, keyword.end_byte, starts, names)
    for node in captures.get("macro", []):
        _add_tokens(source, node.start_byte, node.end_byte, starts, names)


def _definitions(found: Extraction, source: bytes, starts: list[int], deadline: float | None) -> list[DefinitionRow]:
    """Each definition (a row) with the text of its name's line (seconds for the 300,000 of an 8 MB file: past
    `deadline`, ParseTimeout)."""
    return [
        (
            s.name,
            s.qualified,
            s.kind,
            s.start_line,
            s.end_line,
            s.start_byte,
            s.end_byte,
            s.name_byte,
            s.name_line,
            _line_text(source, starts, s.name_line),
        )
        for s in paced(found.symbols, deadline)
    ]


def _imported(
    names: dict[str, list[Place]],
    imports: list[tuple[int, int]],
    includes: list[bytes],
) -> list[str]:
    """The identifiers inside import statements, and the file stems `#include` and import paths name."""
    found: set[str] = set()
    if imports:
        starts = [start for start, _ in imports]
        for name, places in names.items():
            for byte, _, _ in places:
                at = bisect.bisect_right(starts, byte) - 1
                if at >= 0 and byte < imports[at][1]:
                    found.add(name)
                    break
    for text in includes:
        path = text.strip(b"\"'`<>").decode("utf-8", "replace")
        found.add(path.rsplit("/", 1)[-1].split(".", 1)[0])
    return sorted(found)


def _line_starts(source: bytes) -> list[int]:
    """The byte where each line starts: 0, then one past each line feed (summed in C, not a loop per line)."""
    lines = source.split(b"\n")[:-1]
    return list(accumulate(map((1).__add__, map(len, lines)), initial=0))


def _line_text(source: bytes, starts: list[int], line: int) -> str:
    start = starts[line - 1]
    end = starts[line] - 1 if line < len(starts) else len(source)
    text = source[start:end].decode("utf-8", "replace").strip()
    return text if len(text) <= MAX_HEADER_CHARS else text[: MAX_HEADER_CHARS - 3] + "..."


def _add(source: bytes, start: int, end: int, starts: list[int], names: dict[str, list[Place]]) -> None:
    row = bisect.bisect_right(starts, start) - 1
    text = source[start:end].decode("utf-8", "surrogateescape")
    names.setdefault(text, []).append((start, row + 1, start - starts[row] + 1))


def _add_tokens(
    source: bytes,
    start: int,
    end: int,
    starts: list[int],
    names: dict[str, list[Place]],
    tokens: re.Pattern[bytes] = _C_TOKENS,
) -> None:
    """The identifiers of a C macro body or blanked conditional code (strings, characters and comments skipped)."""
    for match in tokens.finditer(source, start, end):
        word = match.group(0)
        if word[:1] not in b"\"'/# \t" and word not in _C_KEYWORDS:
            _add(source, match.start(), match.end(), starts, names)
