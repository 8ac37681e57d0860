"""NotebookEdit: replace, insert or delete one cell of a Jupyter notebook, the rest of the file untouched.

A cell is named by its id, or `cell-N` (its 0-based position) in a notebook without ids.
The edit is a splice of the file's JSON text (`nbjson`): other cells, their outputs, the
metadata and the file's formatting stay byte for byte. Replacing a code cell clears its
outputs and execution count, as running it again would; a notebook of format 4.4 or older
gets no cell ids. Like Edit, it needs the notebook read in this context and unchanged
since, and what it writes counts as read, so edits chain.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from typing import Any

from .._core.context import ExecutionContext
from .._core.errors import ErrorCode, ToolError
from .._core.hardlinks import note_hard_links
from .._core.outputs import DIFF, DRY_RUN, FILE_PATH, JOURNAL, ResultField
from .._core.params import ToolParameter
from .._core.paths import SafePath, resolve_file_path
from .._core.public import session, tool
from .._core.result import ToolResult
from .._syntax.check import check_text
from .._syntax.languages import LANGUAGES, Language
from .._syntax.review import Review
from .diff import unified_diff, whole_text_changes
from .guard import load, one_at_a_time, require_fresh_read
from .landing import Landing, OneFile, land
from .nbjson import (
    NotebookFormatError,
    NotebookText,
    Splice,
    apply,
    delete_cell,
    insert_cell,
    ordered_cell,
    parse_notebook,
    replace_cell,
    replace_fields,
    source_lines,
)

EDIT_MODES = ("replace", "insert", "delete")
CELL_TYPES = ("code", "markdown")
_POSITION = re.compile(r"cell-(\d+)")
_IDS_SINCE_MINOR = 5  # nbformat 4.5 gave cells ids
_LISTED_IDS = 10


@dataclass(frozen=True)
class _Target:
    """Where the edit applies: the cell's index (for insert: the position the new cell takes)."""

    index: int
    edit_mode: str
    cell_type: str | None = None  # the type a new cell takes when none is given


def _cell_name(nb: NotebookText, index: int) -> str | None:
    """The cell_id that finds the cell at `index` (as Read heads it): its id if no earlier cell has
    it, else `cell-N`, unless that is another cell's id (then no name finds it: None)."""
    ids = [cell.value.get("id") for cell in nb.cells]
    cell_id = ids[index]
    if isinstance(cell_id, str) and ids.index(cell_id) == index:
        return cell_id
    position = f"cell-{index}"
    return None if position in ids else position


def _known_cells(nb: NotebookText) -> str:
    names = [
        _cell_name(nb, i) or f"(cell at position {i}: no cell_id names it)"
        for i in range(min(len(nb.cells), _LISTED_IDS))
    ]
    more = f", ... ({len(nb.cells)} cells)" if len(nb.cells) > _LISTED_IDS else ""
    return ", ".join(names) + more if names else "none: the notebook has no cells"


def _find_cell(nb: NotebookText, cell_id: str, display: str) -> int:
    named = [index for index, cell in enumerate(nb.cells) if cell.value.get("id") == cell_id]
    if len(named) > 1:
        where = ", ".join(f"cell-{i}" for i in named[:_LISTED_IDS])
        raise ToolError(
            ErrorCode.INVALID_ARGUMENT,
            f"Cell id {cell_id!r} names {len(named)} cells of {display} (at {where}); a cell id must be unique, "
            "so nothing was changed. Give one of them another id first",
            cells=len(nb.cells),
        )
    if named:
        return named[0]
    position = _POSITION.fullmatch(cell_id)
    if position and int(position.group(1)) < len(nb.cells):
        return int(position.group(1))
    raise ToolError(
        ErrorCode.NOT_FOUND,
        f"Cell {cell_id!r} not found in {display}. Its cells: {_known_cells(nb)}",
        cells=len(nb.cells),
    )


def _locate(nb: NotebookText, cell_id: str | None, edit_mode: str, display: str) -> _Target:
    if cell_id is None or not cell_id.strip():
        if edit_mode != "insert":
            raise ToolError(
                ErrorCode.INVALID_ARGUMENT,
                f"cell_id is required to {edit_mode} a cell (only insert goes without: at the start). "
                f"Cells of {display}: {_known_cells(nb)}",
            )
        return _Target(0, edit_mode)
    position = _POSITION.fullmatch(cell_id)
    if edit_mode == "replace" and position and int(position.group(1)) == len(nb.cells):
        if not any(cell.value.get("id") == cell_id for cell in nb.cells):
            return _Target(
                len(nb.cells), "insert", "code"
            )  # one past the last cell: a new last cell, as Claude Code does
    index = _find_cell(nb, cell_id, display)
    return _Target(index + 1 if edit_mode == "insert" else index, edit_mode)


def _new_cell(nb: NotebookText, cell_type: str, source: str, *, keep: dict[str, Any] | None) -> dict[str, Any]:
    """A cell as nbformat makes it; `keep`: the cell it replaces, whose id, metadata and attachments stay."""
    keep = keep or {}
    fields: dict[str, Any] = {"cell_type": cell_type, "metadata": keep.get("metadata", {})}
    if "id" in keep:
        fields["id"] = keep["id"]
    elif nb.minor >= _IDS_SINCE_MINOR:
        fields["id"] = _fresh_id(nb)
    if cell_type == "code":
        fields.update(execution_count=None, outputs=[])
    elif "attachments" in keep:
        fields["attachments"] = keep["attachments"]
    fields["source"] = source_lines(source)
    return fields


def _fresh_id(nb: NotebookText) -> str:
    taken = {cell.value.get("id") for cell in nb.cells}
    while True:
        cell_id = uuid.uuid4().hex[:8]  # nbformat's own form of id
        if cell_id not in taken:
            return cell_id


def _splices(
    nb: NotebookText, target: _Target, new_source: str, cell_type: str | None
) -> tuple[list[Splice], dict[str, Any]]:
    """The splices of the edit and the result's description of the cell."""
    if target.edit_mode == "delete":
        gone = nb.cells[target.index].value
        return [delete_cell(nb, target.index)], {"cell_type": gone.get("cell_type")}
    if target.edit_mode == "insert":
        cell_type = cell_type or target.cell_type
        if cell_type is None:
            raise ToolError(ErrorCode.INVALID_ARGUMENT, "cell_type (code or markdown) is required to insert a cell")
        cell = ordered_cell(nb, _new_cell(nb, cell_type, new_source, keep=None), None)
        return [insert_cell(nb, target.index, cell)], {"cell_type": cell_type, "new_id": cell.get("id")}
    old = nb.cells[target.index]
    kind = cell_type or str(old.value.get("cell_type"))
    if kind == old.value.get("cell_type"):
        values: dict[str, Any] = {"source": source_lines(new_source)}
        if kind == "code":
            values.update(outputs=[], execution_count=None)
        fields = replace_fields(nb, old, values)
        if fields is not None:
            return fields, {"cell_type": kind}
    # A change of type (or a cell missing a field) writes the cell anew, keeping its id and metadata.
    cell = ordered_cell(nb, _new_cell(nb, kind, new_source, keep=old.value), old)
    return [replace_cell(nb, target.index, cell)], {"cell_type": kind}


def _source(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value or "")


def _cell_diff(nb: NotebookText, target: _Target, new_source: str, display: str) -> str:
    """A unified diff of the cell's source (its JSON is not what the agent reads)."""
    old = "" if target.edit_mode == "insert" else _source(nb.cells[target.index].value.get("source"))
    new = "" if target.edit_mode == "delete" else new_source
    label = f"{display} ({target.edit_mode} cell)"
    return unified_diff(old, new, whole_text_changes(old, new), old_label=label, new_label=label)


_MAGIC = re.compile(r"^([ \t]*)[%!].*$", re.MULTILINE)


def _language(nb: NotebookText) -> Language | None:
    """The language of the notebook's code cells, from its metadata (kernelspec, then language_info)."""
    metadata = nb.value.get("metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    for key, field in (("kernelspec", "language"), ("language_info", "name")):
        entry = metadata.get(key)
        name = entry.get(field) if isinstance(entry, dict) else None
        if isinstance(name, str) and name.lower() in LANGUAGES:
            return LANGUAGES[name.lower()]
    return None


def _without_magics(source: str | None) -> str | None:
    """IPython's `%magic` and `!shell` lines as `pass` (same indentation): they are not Python, but are fine."""
    return None if source is None else _MAGIC.sub(lambda m: f"{m.group(1)}pass", source)


def _reviews(
    ctx: ExecutionContext, nb: NotebookText, where: _Target, new_source: str, cell_type: str, name: str
) -> list[Review]:
    """The syntax errors an edit of a code cell introduced, in the notebook's language (nothing to check for
    a markdown cell, a deletion, or a language without a parser)."""
    language = _language(nb)
    if where.edit_mode == "delete" or cell_type != "code" or ctx.check_syntax == "off" or language is None:
        return []
    old = None if where.edit_mode == "insert" else nb.cells[where.index].value
    before = _source(old.get("source")) if old is not None and old.get("cell_type") == "code" else None
    review = Review(f"cell {name}", checked=True)
    if language.name == "python":
        before, new_source = _without_magics(before), _without_magics(new_source) or ""
    review.diagnostics = check_text(before, new_source, language, f"cell {name}")
    return [review]


def _parse(data: bytes, target: SafePath) -> tuple[str, NotebookText]:
    bom = "\ufeff" if data.startswith(b"\xef\xbb\xbf") else ""
    try:
        text = data[len(bom.encode()) :].decode("utf-8")
        return bom, parse_notebook(text)
    except UnicodeDecodeError:
        raise ToolError(ErrorCode.ENCODING_ERROR, f"Not a notebook: {target.display} is not UTF-8") from None
    except NotebookFormatError as exc:
        raise ToolError(
            ErrorCode.INVALID_ARGUMENT, f"Not a notebook this tool can edit: {target.display}: {exc}"
        ) from None


@tool(
    name="NotebookEdit",
    description=(
        "Replaces, inserts or deletes one cell of a Jupyter notebook (.ipynb), named by its cell_id (cell-N, "
        "from 0, in a notebook without ids). replace (default) sets the cell's source, clearing a code cell's "
        "outputs and execution count; insert adds a cell after cell_id (first without one) and needs "
        "cell_type; delete removes the cell. Read the notebook first; the rest of the file is kept byte for "
        "byte."
    ),
    parameters=(
        ToolParameter("notebook_path", "string", "Absolute path of the notebook to edit", required=True, path=True),
        ToolParameter("new_source", "string", "The cell's new source (ignored by delete)", required=True),
        ToolParameter(
            "cell_id",
            "string",
            "The cell's id (or cell-N); insert puts the new cell after it",
        ),
        ToolParameter(
            "cell_type",
            "string",
            "code or markdown. Required for insert; without it, replace keeps the cell's type",
            enum=CELL_TYPES,
        ),
        ToolParameter("edit_mode", "string", "replace, insert or delete", default="replace", enum=EDIT_MODES),
    ),
    cli_help=(
        "Replace, insert or delete one cell of a notebook (NOTEBOOK_PATH, read first) with NEW_SOURCE; the rest "
        "of the file stays byte for byte. --dry-run shows the cell's diff and writes nothing."
    ),
    read_only=False,
    destructive=True,
    answers_to=("Edit",),
    results=(
        FILE_PATH,
        ResultField("cell_id", "string", "The cell edited, inserted or deleted: its id, or cell-N", always=True),
        ResultField("cell_index", "integer", "Its position in the notebook, from 0", always=True),
        ResultField("cell_type", "string", "Its type: code, markdown or raw"),
        ResultField("edit_mode", "string", "What was done: replace, insert or delete", always=True),
        ResultField("bytes_written", "integer", "Bytes of the notebook file after the edit", always=True),
        ResultField("in_place", "boolean", "Written in place (a hard-linked file) rather than swapped"),
        DIFF,
        DRY_RUN,
        JOURNAL,
    ),
)
@note_hard_links
def notebook_edit(
    notebook_path: str,
    new_source: str,
    *,
    cell_id: str | None = None,
    cell_type: str | None = None,
    edit_mode: str = "replace",
    ctx: ExecutionContext | None = None,
) -> ToolResult:
    """Replace, insert or delete one cell of a Jupyter notebook."""
    ctx = session(ctx)
    target = resolve_file_path(ctx, notebook_path, param="notebook_path")
    if not target.path.lower().endswith(".ipynb"):
        raise ToolError(
            ErrorCode.INVALID_ARGUMENT, f"Not a Jupyter notebook (.ipynb): {target.display}; use Edit for other files"
        )
    with one_at_a_time(ctx, target.path):  # a parallel change of the notebook waits, then sees this one
        return _edit_loaded(ctx, target, new_source, cell_id, cell_type, edit_mode)


def _edit_loaded(
    ctx: ExecutionContext,
    target: SafePath,
    new_source: str,
    cell_id: str | None,
    cell_type: str | None,
    edit_mode: str,
) -> ToolResult:
    seen = load(ctx, target, max_bytes=ctx.max_media_bytes)
    if seen is None:
        raise ToolError(ErrorCode.FILE_NOT_FOUND, f"File not found: {target.display}")
    if seen.data is None:
        raise ToolError(ErrorCode.FILE_TOO_LARGE, f"Notebook too large to edit: {target.display}")
    require_fresh_read(ctx, target, seen)
    bom, nb = _parse(seen.data, target)
    where = _locate(nb, cell_id, edit_mode, target.display)
    splices, described = _splices(nb, where, new_source, cell_type)
    data = (bom + apply(nb.text, splices)).encode("utf-8")
    diff = _cell_diff(nb, where, new_source, target.display)
    name = described.pop("new_id", None) or (
        f"cell-{where.index}" if where.edit_mode == "insert" else _cell_name(nb, where.index) or f"cell-{where.index}"
    )
    meta = {"file_path": target.path, "cell_id": name, "cell_index": where.index, "edit_mode": where.edit_mode}
    meta.update(described, diff=diff)
    verb = {"replace": "Replaced", "insert": "Inserted", "delete": "Deleted"}[where.edit_mode]
    summary = f"{verb} cell {name} ({described['cell_type']}) in {target.display}"
    change = Landing(
        notebook_edit.spec,
        diff,
        _reviews(ctx, nb, where, new_source, str(described["cell_type"]), name),
        meta,
        preview=f"[Dry Run] {summary}\n{diff}",
        done=f"{summary}\n{diff}",
        writes=OneFile(target, data, seen),
        lead={"bytes_written": len(data), **({"dry_run": True} if ctx.dry_run else {})},
    )
    return land(ctx, change)
