"""Jupyter notebooks as readable cells: source, then outputs as text (nbformat, imported lazily).

Each cell is headed by the name NotebookEdit takes for it: its id where the file gives it
one (nbformat 4.5), else `cell-N` with N its position counted from 0. A header never
numbers cells any other way, so "the cell Read called X" is the cell_id X.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .window import MAX_READ_CHARS, cut_line

# CSI and OSC escape sequences (colours, cursor moves, hyperlinks) that IPython puts in tracebacks.
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")
MAX_OUTPUT_LINES = 200


class NotebookError(Exception):
    """The file is not a notebook nbformat can read."""


class PastLastCell(ValueError):
    """An offset after the notebook's last cell."""

    def __init__(self, cell_count: int) -> None:
        super().__init__(cell_count)
        self.cell_count = cell_count


@dataclass(frozen=True)
class NotebookView:
    text: str
    cell_count: int
    language: str | None
    nbformat: int
    cell_ids: list[str | None]  # each shown cell's name, as NotebookEdit's cell_id takes it (None: none)
    first: int = 0  # the position of the first cell shown, from 0
    partial: bool = False  # cells left out because they would pass the character bound
    next_name: str | None = None  # the name of the first cell after those shown

    @property
    def shown_until(self) -> int:
        """The position after the last cell shown."""
        return self.first + len(self.cell_ids)


def cell_names(cells: list[Any], ids: bool) -> list[str | None]:
    """Each cell's name for NotebookEdit: its id (`ids`: the file is nbformat 4, whose cells may
    carry one), else `cell-N` with N its position from 0. NotebookEdit looks a name up among the
    ids first, so a repeated id names the first of its cells only (the others go by position),
    and a cell whose `cell-N` is another cell's id has no name at all: None, never a name that
    would edit the other cell."""
    given = [cell.get("id") if ids and isinstance(cell, dict) else None for cell in cells]
    taken = {cell_id for cell_id in given if isinstance(cell_id, str)}
    names: list[str | None] = []
    seen: set[str] = set()
    for index, cell_id in enumerate(given):
        if isinstance(cell_id, str) and cell_id not in seen:
            seen.add(cell_id)
            names.append(cell_id)
        else:
            position = f"cell-{index}"
            names.append(None if position in taken else position)
    return names


def cell_label(names: list[str | None], index: int) -> str:
    """How a header (and a notice) names the cell at `index`."""
    name = names[index]
    if name is not None:
        return name
    return f"at position {index} (no cell_id names it: cell-{index} is another cell's id)"


def read_notebook(data: bytes, offset: int = 1, limit: int | None = None, max_chars: int | None = None) -> NotebookView:
    """Cells as `--- Cell NAME (type) ---`, each with its source, then its outputs after an `Output:`
    line: from the `offset`-th (from 1; negative counts from the end), at most `limit` of them and,
    with `max_chars`, the whole cells that fit (the first always, cut if it must be)."""
    import nbformat

    try:
        raw = nbformat.reader.reads(data.decode("utf-8-sig", "replace"))
        on_disk = raw.get("nbformat")  # ids count only as the file holds them, not as a conversion makes them
        nb = nbformat.convert(raw, 4)
        cells = list(nb.cells)
        language = nb.metadata.get("kernelspec", {}).get("language") or nb.metadata.get("language_info", {}).get("name")
    except Exception as exc:
        raise NotebookError(f"{type(exc).__name__}: {exc}") from None
    names = cell_names(cells, ids=on_disk == 4)
    start = offset - 1 if offset > 0 else max(len(cells) + offset, 0)
    if cells and start >= len(cells):
        raise PastLastCell(len(cells))
    stop = len(cells) if limit is None else min(len(cells), start + limit)
    blocks: list[str] = []
    used = 0
    cut = False
    for index in range(start, stop):
        block = _cell(cell_label(names, index), cells[index])
        if max_chars is not None and used + len(block) + 2 > max_chars:
            if blocks:
                break
            block, cut = _cut_block(block, max_chars), True
        blocks.append(block)
        used += len(block) + 2
        if cut:
            break
    until = start + len(blocks)
    return NotebookView(
        "\n\n".join(blocks),
        len(cells),
        language,
        nb.nbformat,
        names[start:until],
        first=start,
        partial=cut or until < stop,
        next_name=cell_label(names, until) if until < len(cells) else None,
    )


def _cut_block(block: str, max_chars: int) -> str:
    """One cell's block cut at a line break to fit `max_chars`, saying so."""
    head = block[: max_chars - 80]
    head = head[: head.rfind("\n")] if "\n" in head else head
    return f"{head}\n[... the rest of this cell is not shown: a page holds at most {MAX_READ_CHARS:,} characters]"


def _cell(name: str, cell: Any) -> str:
    lines = [f"--- Cell {name} ({cell.get('cell_type', 'unknown')}) ---", _cut_lines(_text(cell.get("source", "")))]
    outputs = [text for text in map(_output, cell.get("outputs", ())) if text]
    if outputs:
        lines.append("Output:")
        lines.extend(outputs)
    return "\n".join(lines)


def _output(output: Any) -> str:
    kind = output.get("output_type")
    if kind == "stream":
        text = _text(output.get("text", ""))
        return _cap(f"[stderr]\n{text}" if output.get("name") == "stderr" else text)
    if kind == "error":
        traceback = "\n".join(_ANSI.sub("", line) for line in output.get("traceback", ()))
        return _cap(traceback or f"{output.get('ename', 'Error')}: {output.get('evalue', '')}")
    data = output.get("data", {})
    parts = [f"[{mime} output]" for mime in data if mime != "text/plain"]
    if "text/plain" in data:
        parts.insert(0, _cap(_text(data["text/plain"])))
    return "\n".join(parts)


def _text(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def _cut_lines(text: str) -> str:
    return "\n".join(cut_line(line)[0] for line in text.split("\n"))


def _cap(text: str) -> str:
    """An output's text, its long lines cut and at most MAX_OUTPUT_LINES of it."""
    lines = text.rstrip("\n").split("\n")
    if len(lines) > MAX_OUTPUT_LINES:
        lines = lines[:MAX_OUTPUT_LINES] + [f"[... {len(lines) - MAX_OUTPUT_LINES} more lines of output]"]
    return _cut_lines("\n".join(lines))
