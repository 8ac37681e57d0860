"""Read names each notebook cell exactly as NotebookEdit's cell_id takes it."""

from __future__ import annotations

import json
import re

import pytest

import fstools

HEADER = re.compile(r"^--- Cell (\S+) \((\w+)\) ---$", re.M)


def _notebook(minor: int) -> str:
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    nb = new_notebook(
        cells=[
            new_markdown_cell("# Title"),
            new_code_cell("first = 1"),
            new_code_cell("second = 2"),
            new_code_cell("third = 3"),
        ]
    )
    if minor < 5:
        nb.nbformat_minor = minor
        for cell in nb.cells:
            del cell["id"]
    return nbformat.writes(nb)


@pytest.mark.parametrize("minor", [4, 5])
def test_the_name_read_shows_for_the_third_cell_edits_the_third_cell(project, ctx, minor):
    path = project / "nb.ipynb"
    path.write_text(_notebook(minor))
    shown = fstools.read(str(path), ctx=ctx)
    names = [name for name, _ in HEADER.findall(shown.output)]
    assert names == shown.metadata["cell_ids"] and len(names) == 4
    third = names[2]
    if minor < 5:
        assert names == ["cell-0", "cell-1", "cell-2", "cell-3"]
    else:
        assert third == json.loads(path.read_text())["cells"][2]["id"]
    edited = fstools.notebook_edit(str(path), "changed = 3", cell_id=third, ctx=ctx)
    assert edited.success, edited.error
    sources = ["".join(cell["source"]) for cell in json.loads(path.read_text())["cells"]]
    assert sources == ["# Title", "first = 1", "changed = 3", "third = 3"]
    again = fstools.read(str(path), ctx=ctx).output
    assert f"--- Cell {third} (code) ---\nchanged = 3" in again


def test_a_repeated_id_names_its_first_cell_and_the_other_goes_by_position(project, ctx):
    nb = json.loads(_notebook(5))
    nb["cells"][3]["id"] = nb["cells"][1]["id"]
    path = project / "dup.ipynb"
    path.write_text(json.dumps(nb, indent=1))
    names = fstools.read(str(path), ctx=ctx).metadata["cell_ids"]
    assert names[1] == nb["cells"][1]["id"] and names[3] == "cell-3"
    assert fstools.notebook_edit(str(path), "last = 4", cell_id=names[3], ctx=ctx).success
    assert "".join(json.loads(path.read_text())["cells"][3]["source"]) == "last = 4"


def test_an_old_format_notebook_names_cells_by_position(project, ctx):
    v3 = {
        "nbformat": 3,
        "nbformat_minor": 0,
        "metadata": {},
        "worksheets": [{"cells": [{"cell_type": "code", "input": "print(1)", "outputs": [], "language": "python"}]}],
    }
    path = project / "v3.ipynb"
    path.write_text(json.dumps(v3))
    shown = fstools.read(str(path), ctx=ctx)
    assert shown.output == "--- Cell cell-0 (code) ---\nprint(1)" and shown.metadata["cell_ids"] == ["cell-0"]


def _cells_notebook(ids: list[str | None]) -> str:
    cells = [
        {"cell_type": "code", "metadata": {}, "source": f"v = {n}", "outputs": [], "execution_count": None}
        | ({"id": cell_id} if cell_id is not None else {})
        for n, cell_id in enumerate(ids)
    ]
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}, indent=1)


@pytest.mark.parametrize(
    "ids",
    [
        ["cell-1", None, "x"],  # a cell without an id, whose position name is another cell's id
        ["a", "a", "cell-1"],  # a repeated id, and the position name of the repeat taken too
        ["cell-2", "cell-0", None],  # ids that look like positions, none of them the cell's own
    ],
)
def test_no_two_cells_share_a_name_and_each_name_edits_its_own_cell(project, ctx, ids):
    path = project / "shadow.ipynb"
    path.write_text(_cells_notebook(ids))
    shown = fstools.read(str(path), ctx=ctx)
    names = shown.metadata["cell_ids"]
    given = [name for name in names if name is not None]
    assert len(given) == len(set(given))
    headers = [line for line in shown.output.split("\n") if line.startswith("--- Cell ")]
    for index, name in enumerate(names):
        if name is None:  # no cell_id reaches this cell: its header offers none
            assert "no cell_id names it" in headers[index]
            assert not any(f"Cell {other} (" in headers[index] for other in given)
            continue
        assert headers[index] == f"--- Cell {name} (code) ---"
        edited = fstools.notebook_edit(str(path), f"edited = {index}", cell_id=name, ctx=ctx)
        assert edited.success, edited.error
        sources = ["".join(cell["source"]) for cell in json.loads(path.read_text())["cells"]]
        assert sources[index] == f"edited = {index}"
        assert sum(s.startswith("edited") for s in sources) == 1
        path.write_text(_cells_notebook(ids))
        fstools.read(str(path), ctx=ctx)


def test_notebook_edit_reports_and_lists_cells_by_the_names_read_shows(project, ctx):
    path = project / "twice.ipynb"
    path.write_text(_cells_notebook(["a", "a", "cell-1"]))
    assert fstools.read(str(path), ctx=ctx).metadata["cell_ids"] == ["a", None, "cell-1"]
    edited = fstools.notebook_edit(str(path), "w = 2", cell_id="cell-1", ctx=ctx)
    assert edited.success and edited.metadata["cell_id"] == "cell-1"
    missing = fstools.notebook_edit(str(path), "w = 3", cell_id="nope", ctx=ctx)
    assert missing.error_code == "not_found" and "Its cells: a, (cell at position 1: no cell_id names it), cell-1" in (
        missing.error
    )
    path.write_text(_cells_notebook(["a", "a"]))
    fstools.read(str(path), ctx=ctx)
    edited = fstools.notebook_edit(str(path), "w = 1", cell_id="cell-1", ctx=ctx)
    # The name the result gives is the one that edits this cell again, not the first cell's id.
    assert edited.success and edited.metadata["cell_id"] == "cell-1"
    assert "Replaced cell cell-1 " in edited.output
