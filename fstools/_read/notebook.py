"""Jupyter notebooks as readable cells: source, then outputs as text (nbformat, imported lazily)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .window import cut_line

# CSI and OSC escape sequences (colours, cursor moves, hyperlinks) that IPython puts in tracebacks.
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")
MAX_OUTPUT_LINES = 200


class NotebookError(Exception):
    """The file is not a notebook nbformat can read."""


@dataclass(frozen=True)
class NotebookView:
    text: str
    cell_count: int
    language: str | None
    nbformat: int


def read_notebook(data: bytes) -> NotebookView:
    """Every cell as `--- Cell N (type) ---`, its source, then its outputs after an `Output:` line."""
    import nbformat

    try:
        nb = nbformat.convert(nbformat.reader.reads(data.decode("utf-8-sig", "replace")), 4)
        cells = list(nb.cells)
        language = nb.metadata.get("kernelspec", {}).get("language") or nb.metadata.get("language_info", {}).get("name")
    except Exception as exc:
        raise NotebookError(f"{type(exc).__name__}: {exc}") from None
    blocks = [_cell(n, cell) for n, cell in enumerate(cells, 1)]
    return NotebookView("\n\n".join(blocks), len(cells), language, nb.nbformat)


def _cell(number: int, cell: Any) -> str:
    lines = [f"--- Cell {number} ({cell.get('cell_type', 'unknown')}) ---", _cut_lines(_text(cell.get("source", "")))]
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
