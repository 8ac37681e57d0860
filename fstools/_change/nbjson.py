"""A notebook's JSON text as spans, and cell edits as splices of it: every other byte stays.

Re-serialising a whole notebook would rewrite what the edit did not touch (indentation,
key order, escapes, number formats). Instead the text is scanned once with the json
module's own scanner for where each cell and each of its fields begins and ends, and an
edit replaces only those spans, written in the file's own style (indent, separators,
non-ASCII escaped or not, sorted keys or not, line breaks). For a file nbformat wrote, the
result is what nbformat itself writes for the edited notebook: sources as lists of lines.
No I/O here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

_WHITESPACE = re.compile(r"[ \t\n\r]*")
_SCANNER = json.JSONDecoder()
_CELL_KEY_ORDER = ("id", "cell_type", "metadata", "execution_count", "source", "outputs", "attachments")


class NotebookFormatError(Exception):
    """The text is not a notebook this editor can change (not JSON, not nbformat 4, no cell list)."""


@dataclass(frozen=True)
class Span:
    start: int
    end: int


@dataclass(frozen=True)
class Cell:
    value: dict[str, Any]
    span: Span
    fields: dict[str, Span]  # each field's value
    line_indent: str  # the indentation of the line the cell's fields start on (one level in)


@dataclass(frozen=True)
class Style:
    """How the file writes JSON, so new text reads as if the same writer wrote it."""

    indent: str | None  # one level of indentation; None: all on one line
    item_separator: str  # between members on one line (compact files)
    key_separator: str
    ensure_ascii: bool
    sort_keys: bool
    newline: str

    def dumps(self, value: Any, at: str) -> str:
        """`value` as this file writes it, its continuation lines indented from `at`."""
        text = json.dumps(
            value,
            indent=self.indent,
            separators=(self.item_separator if self.indent is None else ",", self.key_separator),
            ensure_ascii=self.ensure_ascii,
            sort_keys=self.sort_keys,
        )
        if self.indent is None:
            return text
        return text.replace("\n", self.newline + at)


@dataclass(frozen=True)
class NotebookText:
    text: str
    value: dict[str, Any]
    cells: list[Cell]
    cells_span: Span  # the cell list, brackets included
    cells_indent: str  # indentation of the line "cells" is on
    style: Style

    @property
    def minor(self) -> int:
        minor = self.value.get("nbformat_minor", 0)
        return minor if isinstance(minor, int) else 0


def _skip(text: str, pos: int) -> int:
    match = _WHITESPACE.match(text, pos)
    return match.end() if match else pos


def _expect(text: str, pos: int, char: str) -> int:
    if pos >= len(text) or text[pos] != char:
        raise NotebookFormatError(f"expected {char!r} at character {pos}")
    return pos + 1


def _members(text: str, start: int) -> Iterator[tuple[str, Span, Span]]:
    """(key, the key's span, the value's span) of each member of the object at `start`."""
    pos = _skip(text, _expect(text, start, "{"))
    if text.startswith("}", pos):
        return
    while True:
        key_start = pos
        _expect(text, pos, '"')
        key, key_end = _SCANNER.raw_decode(text, pos)
        pos = _skip(text, _expect(text, _skip(text, key_end), ":"))
        _, end = _SCANNER.raw_decode(text, pos)
        yield key, Span(key_start, key_end), Span(pos, end)
        pos = _skip(text, end)
        if text.startswith("}", pos):
            return
        pos = _skip(text, _expect(text, pos, ","))


def _elements(text: str, start: int) -> Iterator[Span]:
    pos = _skip(text, _expect(text, start, "["))
    if text.startswith("]", pos):
        return
    while True:
        _, end = _SCANNER.raw_decode(text, pos)
        yield Span(pos, end)
        pos = _skip(text, end)
        if text.startswith("]", pos):
            return
        pos = _skip(text, _expect(text, pos, ","))


def _line_indent(text: str, pos: int) -> str:
    line_start = text.rfind("\n", 0, pos) + 1
    return text[line_start:pos] if not text[line_start:pos].strip() else ""


def _style(text: str, start: int, first: tuple[Span, Span], value: dict[str, Any]) -> Style:
    """The style of the top-level object at `start`, whose first member's key and value are `first`."""
    key, member = first
    gap = text[start + 1 : key.start]
    indent = gap.rsplit("\n", 1)[1] if "\n" in gap else None
    key_separator = text[key.end : member.start]
    item_separator = ", " if indent is None and re.search(r",[ \t]", text) else ","
    non_ascii = any(ord(c) > 127 for c in text)
    escaped = re.search(r"\\u(?:00[89a-fA-F][0-9a-fA-F]|0[1-9a-fA-F][0-9a-fA-F]{2}|[1-9a-fA-F][0-9a-fA-F]{3})", text)
    objects = [value, *value["cells"]]
    sort_keys = all(list(o) == sorted(o) for o in objects)
    newline = "\r\n" if "\r\n" in gap else "\n"
    return Style(indent, item_separator, key_separator, bool(escaped) and not non_ascii, sort_keys, newline)


def parse_notebook(text: str) -> NotebookText:
    """The notebook in `text` with the spans of its cells; NotebookFormatError if it is not one."""
    try:
        return _parse_notebook(text)
    except RecursionError:
        raise NotebookFormatError("its JSON is nested too deeply to be a notebook") from None


def _check_cells(cells: list[Any]) -> None:
    for n, cell in enumerate(cells):
        if not isinstance(cell, dict):
            raise NotebookFormatError(f"cell {n} is not a JSON object")
        source = cell.get("source", "")
        if not isinstance(source, str) and not (isinstance(source, list) and all(isinstance(s, str) for s in source)):
            raise NotebookFormatError(f"the source of cell {n} is neither text nor a list of lines")
        for key in ("id", "cell_type"):
            if key in cell and not isinstance(cell[key], str):
                raise NotebookFormatError(f"the {key} of cell {n} is not text")


def _parse_notebook(text: str) -> NotebookText:
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise NotebookFormatError(f"not valid JSON ({exc})") from None
    if not isinstance(value, dict) or not isinstance(value.get("cells"), list):
        raise NotebookFormatError("no list of cells at the top level")
    if value.get("nbformat") != 4:
        raise NotebookFormatError(f"nbformat {value.get('nbformat')!r}; notebooks of format 4 can be edited")
    _check_cells(value["cells"])
    start = _skip(text, 0)
    members = {key: (key_span, span) for key, key_span, span in _members(text, start)}
    cells_key, cells_span = members["cells"]
    cells = []
    for cell_value, span in zip(value["cells"], _elements(text, cells_span.start), strict=True):
        fields = {key: field for key, _, field in _members(text, span.start)}
        first = _skip(text, span.start + 1)
        cells.append(Cell(cell_value, span, fields, _line_indent(text, first)))
    style = _style(text, start, next(iter(members.values())), value)
    return NotebookText(text, value, cells, cells_span, _line_indent(text, cells_key.start), style)


def source_lines(source: str) -> list[str]:
    """A cell source as nbformat stores it: a list of lines, each with its line break."""
    return source.splitlines(True)


@dataclass(frozen=True)
class Splice:
    span: Span
    text: str


def apply(text: str, splices: Sequence[Splice]) -> str:
    """`text` with each span replaced (spans disjoint)."""
    out, pos = [], 0
    for splice in sorted(splices, key=lambda s: s.span.start):
        out += [text[pos : splice.span.start], splice.text]
        pos = splice.span.end
    out.append(text[pos:])
    return "".join(out)


def replace_fields(nb: NotebookText, cell: Cell, values: dict[str, Any]) -> list[Splice] | None:
    """Splices setting fields of `cell` that it already has (None when one is missing: write the cell anew)."""
    if not all(key in cell.fields for key in values):
        return None
    return [Splice(cell.fields[key], nb.style.dumps(value, cell.line_indent)) for key, value in values.items()]


def ordered_cell(nb: NotebookText, fields: dict[str, Any], like: Cell | None) -> dict[str, Any]:
    """A cell's fields in the order this file writes them: sorted, or as the cell it replaces or the usual order."""
    if nb.style.sort_keys:
        return dict(sorted(fields.items()))
    order = [key for key in (like.value if like else ()) if key in fields]
    order += [key for key in _CELL_KEY_ORDER if key in fields and key not in order]
    order += [key for key in fields if key not in order]
    return {key: fields[key] for key in order}


def _element_indent(nb: NotebookText) -> str:
    if nb.cells:
        return _line_indent(nb.text, nb.cells[0].span.start)
    return nb.cells_indent + (nb.style.indent or "")


def replace_cell(nb: NotebookText, index: int, cell: dict[str, Any]) -> Splice:
    """The whole cell at `index` written anew."""
    old = nb.cells[index]
    return Splice(old.span, nb.style.dumps(cell, _line_indent(nb.text, old.span.start)))


def insert_cell(nb: NotebookText, index: int, cell: dict[str, Any]) -> Splice:
    """A splice putting `cell` at position `index` of the cell list (0: first; len: last)."""
    at = _element_indent(nb)
    body = nb.style.dumps(cell, at)
    style = nb.style
    if not nb.cells:  # "[]" becomes a list of one
        if style.indent is None:
            return Splice(nb.cells_span, f"[{body}]")
        return Splice(nb.cells_span, f"[{style.newline}{at}{body}{style.newline}{nb.cells_indent}]")
    separator = _separator(nb)
    if index < len(nb.cells):
        start = nb.cells[index].span.start
        return Splice(Span(start, start), body + separator)
    end = nb.cells[-1].span.end
    return Splice(Span(end, end), separator + body)


def _separator(nb: NotebookText) -> str:
    """What the file puts between two cells."""
    if len(nb.cells) > 1:
        return nb.text[nb.cells[0].span.end : nb.cells[1].span.start]
    if nb.style.indent is None:
        return nb.style.item_separator
    return "," + nb.style.newline + _element_indent(nb)


def delete_cell(nb: NotebookText, index: int) -> Splice:
    """A splice removing the cell at `index` with one separator next to it."""
    cells = nb.cells
    if len(cells) == 1:
        return Splice(nb.cells_span, "[]")
    if index + 1 < len(cells):
        return Splice(Span(cells[index].span.start, cells[index + 1].span.start), "")
    return Splice(Span(cells[index - 1].span.end, cells[index].span.end), "")
