"""NotebookEdit on notebooks nbformat wrote (4.5 with ids, 4.4 without) and on hand-formatted ones.

The file after an edit is compared byte for byte with what nbformat writes for the expected
notebook, and for other writers' files with the original outside the edited spans.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

import fstools
from fstools._change.notebook import notebook_edit
from tests.helpers.tools import agent_read


def _notebook(minor: int = 5) -> nbformat.NotebookNode:
    nb = new_notebook(
        cells=[
            new_markdown_cell("# Analysis\nDonnées brutes — résumé"),
            new_code_cell(
                "import math\nprint(math.pi)",
                execution_count=1,
                outputs=[new_output("stream", name="stdout", text="3.141592653589793\n")],
            ),
            new_code_cell(
                "2 + 2",
                execution_count=2,
                outputs=[new_output("execute_result", data={"text/plain": "4"}, execution_count=2)],
            ),
        ],
        metadata={"kernelspec": {"name": "python3", "language": "python", "display_name": "Python 3"}},
    )
    if minor < 5:
        nb.nbformat_minor = minor
        for cell in nb.cells:
            del cell["id"]
    return nb


def _written(nb: nbformat.NotebookNode) -> str:
    return nbformat.writes(nb) + "\n"  # nbformat.write adds the final newline


@pytest.fixture
def notebook(project: Path, ctx: fstools.ExecutionContext):
    def make(nb: nbformat.NotebookNode, name: str = "analysis.ipynb") -> Path:
        path = project / name
        nbformat.write(nb, str(path))
        agent_read(ctx, path)
        return path

    return make


def test_replacing_a_code_cell_clears_its_outputs_and_keeps_everything_else(notebook, ctx):
    nb = _notebook()
    path = notebook(nb)
    r = notebook_edit(str(path), "import math\nprint(math.tau)\n", cell_id=nb.cells[1].id, ctx=ctx)
    assert r.success, r.error
    assert r.metadata["cell_id"] == nb.cells[1].id and r.metadata["cell_index"] == 1
    assert r.metadata["cell_type"] == "code" and r.metadata["edit_mode"] == "replace"
    assert "-print(math.pi)" in r.metadata["diff"] and "+print(math.tau)" in r.metadata["diff"]
    nb.cells[1].source = "import math\nprint(math.tau)\n"
    nb.cells[1].outputs, nb.cells[1].execution_count = [], None
    assert path.read_text() == _written(nb)  # the other cells' outputs and counts stay
    assert json.loads(path.read_text())["cells"][2]["outputs"][0]["data"] == {"text/plain": ["4"]}


def test_v45_insert_delete_and_type_change_equal_nbformat_chained_without_reading_again(notebook, ctx):
    nb = _notebook()
    path = notebook(nb)
    first = nb.cells[0].id
    r = notebook_edit(str(path), "## Method", cell_id=first, cell_type="markdown", edit_mode="insert", ctx=ctx)
    assert r.success, r.error
    new_id = r.metadata["cell_id"]
    assert len(new_id) == 8 and new_id not in {c.id for c in nb.cells} and r.metadata["cell_index"] == 1
    nb.cells.insert(1, new_markdown_cell("## Method", id=new_id))
    assert path.read_text() == _written(nb)

    r = notebook_edit(str(path), "x = 1", cell_type="code", edit_mode="insert", ctx=ctx)  # no cell_id: at the start
    nb.cells.insert(0, new_code_cell("x = 1", id=r.metadata["cell_id"]))
    assert r.metadata["cell_index"] == 0 and path.read_text() == _written(nb)

    r = notebook_edit(str(path), "", cell_id=first, edit_mode="delete", ctx=ctx)
    assert r.success and r.output.startswith(f"Deleted cell {first} (markdown)")
    nb.cells = [c for c in nb.cells if c.id != first]
    assert path.read_text() == _written(nb)

    code_id = nb.cells[2].id  # the code cell with outputs, made markdown: outputs and count go, id stays
    r = notebook_edit(str(path), "Just *text*", cell_id=code_id, cell_type="markdown", ctx=ctx)
    nb.cells[2] = new_markdown_cell("Just *text*", id=code_id)
    assert r.success and path.read_text() == _written(nb)
    nbformat.validate(nbformat.read(str(path), 4))


def test_v44_stays_v44_cells_named_by_position(notebook, ctx):
    nb = _notebook(minor=4)
    path = notebook(nb)
    r = notebook_edit(str(path), "print('hi')", cell_id="cell-2", ctx=ctx)
    assert r.success and r.metadata["cell_id"] == "cell-2"
    nb.cells[2].source, nb.cells[2].outputs, nb.cells[2].execution_count = "print('hi')", [], None
    assert path.read_text() == _written(nb)

    r = notebook_edit(str(path), "Intro", cell_id="cell-0", cell_type="markdown", edit_mode="insert", ctx=ctx)
    assert r.metadata["cell_id"] == "cell-1"  # a cell without id is named by its new position
    nb.cells.insert(1, new_markdown_cell("Intro"))
    del nb.cells[1]["id"]
    assert path.read_text() == _written(nb)

    notebook_edit(str(path), "", cell_id="cell-0", edit_mode="delete", ctx=ctx)
    del nb.cells[0]
    text = path.read_text()
    assert text == _written(nb) and '"id"' not in text and json.loads(text)["nbformat_minor"] == 4


def test_replace_one_past_the_last_cell_appends_a_code_cell(notebook, ctx):
    nb = _notebook(minor=4)
    path = notebook(nb)
    r = notebook_edit(str(path), "last()", cell_id="cell-3", ctx=ctx)
    assert r.success and r.metadata["edit_mode"] == "insert" and r.metadata["cell_index"] == 3
    nb.cells.append(new_code_cell("last()"))
    del nb.cells[3]["id"]
    assert path.read_text() == _written(nb)


HAND_WRITTEN = (
    '{\r\n    "metadata": {"language_info": {"name": "python"}},\r\n    "nbformat": 4,\r\n'
    '    "nbformat_minor": 2,\r\n    "cells": [\r\n'
    '        {\r\n            "cell_type": "code",\r\n            "source": "a = 1\\n",\r\n'
    '            "metadata": {"tags": ["keep"]},\r\n            "outputs": [{"output_type": "stream", "name": "stdout",'
    ' "text": "caf\\u00e9"}],\r\n            "execution_count": 7\r\n        },\r\n'
    '        {\r\n            "cell_type": "markdown",\r\n            "metadata": {},\r\n'
    '            "source": ["caf\\u00e9 ", "1e3"]\r\n        }\r\n    ]\r\n}'
)


def test_another_writers_style_is_kept_outside_the_edited_values(project, ctx):
    path = project / "hand.ipynb"
    path.write_bytes(HAND_WRITTEN.encode())
    agent_read(ctx, path)
    r = notebook_edit(str(path), "a = 2\nb = 'é'\n", cell_id="cell-0", ctx=ctx)
    assert r.success, r.error
    expected = (
        HAND_WRITTEN.replace(
            '"source": "a = 1\\n"',
            '"source": [\r\n                "a = 2\\n",\r\n                "b = \'\\u00e9\'\\n"\r\n            ]',
        )
        .replace('[{"output_type": "stream", "name": "stdout", "text": "caf\\u00e9"}]', "[]")
        .replace('"execution_count": 7', '"execution_count": null')
    )
    assert path.read_bytes().decode() == expected  # 4 spaces, CRLF, key order, \u escapes: the file's own style

    r = notebook_edit(str(path), "end", cell_id="cell-1", cell_type="code", edit_mode="insert", ctx=ctx)
    cell = (
        '{\r\n            "cell_type": "code",\r\n            "metadata": {},\r\n            "execution_count": null,'
        '\r\n            "source": [\r\n                "end"\r\n            ],\r\n            "outputs": []\r\n        }'
    )
    assert path.read_bytes().decode() == expected.replace(
        "\r\n        }\r\n    ]", f"\r\n        }},\r\n        {cell}\r\n    ]"
    )


def test_a_compact_notebook_stays_compact(project, ctx):
    nb = _notebook()
    path = project / "compact.ipynb"
    path.write_text(json.dumps(nbformat.v4.rwbase.split_lines(nb), separators=(",", ":"), ensure_ascii=False))
    agent_read(ctx, path)
    r = notebook_edit(str(path), "3 + 3", cell_id=nb.cells[2].id, ctx=ctx)
    assert r.success, r.error
    nb.cells[2].source, nb.cells[2].outputs, nb.cells[2].execution_count = ["3 + 3"], [], None
    assert path.read_text() == json.dumps(nb, separators=(",", ":"), ensure_ascii=False)


def test_read_shows_the_edit_and_dry_run_changes_nothing(notebook, project):
    nb = _notebook()
    dry = fstools.ExecutionContext(working_dir=str(project), dry_run=True)
    path = notebook(nb)
    agent_read(dry, path)
    before = path.read_bytes()
    r = notebook_edit(str(path), "changed", cell_id=nb.cells[0].id, ctx=dry)
    assert r.success and r.output.startswith("[Dry Run] Replaced cell") and r.metadata["dry_run"] is True
    assert path.read_bytes() == before


def test_a_notebook_edit_then_read_shows_the_new_cell(notebook, ctx):
    nb = _notebook()
    path = notebook(nb)
    notebook_edit(str(path), "print('new')", cell_id=nb.cells[1].id, ctx=ctx)
    text = fstools.read(str(path), ctx=ctx).output
    assert f"--- Cell {nb.cells[1].id} (code) ---\nprint('new')\n\n--- Cell {nb.cells[2].id}" in text
    assert "3.14159" not in text


@pytest.mark.parametrize(
    ("arguments", "code", "words"),
    [
        ({"cell_id": "nope"}, "not_found", "Cell 'nope' not found in"),
        ({"cell_id": "cell-9"}, "not_found", "Its cells: "),
        ({"edit_mode": "insert"}, "invalid_argument", "cell_type (code or markdown) is required to insert"),
        ({}, "invalid_argument", "cell_id is required to replace a cell"),
        ({"edit_mode": "delete"}, "invalid_argument", "cell_id is required to delete a cell"),
        ({"cell_id": "cell-0", "edit_mode": "move"}, "invalid_argument", "edit_mode"),
        ({"cell_id": "cell-0", "cell_type": "raw"}, "invalid_argument", "cell_type"),
    ],
)
def test_bad_arguments_change_nothing(notebook, ctx, arguments, code, words):
    path = notebook(_notebook())
    before = path.read_bytes()
    r = notebook_edit(str(path), "x", ctx=ctx, **arguments)
    assert not r.success and r.error_code == code and words in r.error, r.error
    assert path.read_bytes() == before


def test_an_unread_or_changed_notebook_is_refused(project, ctx):
    path = project / "n.ipynb"
    nbformat.write(_notebook(), str(path))
    before = path.read_bytes()
    r = notebook_edit(str(path), "x", cell_id="cell-0", ctx=ctx)
    assert r.error_code == "not_read" and "Read it first" in r.error and path.read_bytes() == before
    agent_read(ctx, path)
    path.write_bytes(before.replace(b"Analysis", b"Analyses"))
    r = notebook_edit(str(path), "x", cell_id="cell-0", ctx=ctx)
    assert r.error_code == "concurrent_modification"


@pytest.mark.parametrize(
    ("name", "content", "code", "words"),
    [
        ("notes.txt", "hello\n", "invalid_argument", "Not a Jupyter notebook (.ipynb)"),
        ("bad.ipynb", "{not json", "invalid_argument", "not valid JSON"),
        ("v3.ipynb", '{"nbformat": 3, "worksheets": [], "cells": []}', "invalid_argument", "nbformat 3"),
        ("list.ipynb", "[1, 2]", "invalid_argument", "no list of cells"),
        ("latin.ipynb", b'{"cells": [], "nbformat": 4, "x": "\xe9"}', "encoding_error", "not UTF-8"),
    ],
)
def test_what_is_not_an_editable_notebook_is_refused(project, ctx, name, content, code, words):
    path = project / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    agent_read(ctx, path)
    r = notebook_edit(str(path), "x", cell_id="cell-0", ctx=ctx)
    assert r.error_code == code and words in r.error, r.error
    assert path.read_bytes() == (content if isinstance(content, bytes) else content.encode())


def test_missing_outside_and_secret_paths_are_refused(project, ctx, tmp_path):
    assert notebook_edit(str(project / "none.ipynb"), "x", cell_id="cell-0", ctx=ctx).error_code == "file_not_found"
    outside = tmp_path / "outside.ipynb"
    nbformat.write(_notebook(), str(outside))
    before = outside.read_bytes()
    r = notebook_edit(str(outside), "x", cell_id="cell-0", ctx=ctx)
    assert r.error_code == "path_outside_workspace" and outside.read_bytes() == before
    secret = project / ".env.ipynb"
    assert notebook_edit(str(secret), "x", cell_id="cell-0", ctx=ctx).error_code in {"sensitive_path", "file_not_found"}


def test_a_code_cell_that_no_longer_parses_is_reported_in_the_notebooks_language(notebook, ctx):
    nb = _notebook()
    path = notebook(nb)
    r = notebook_edit(str(path), "def broken(:\n    pass\n", cell_id=nb.cells[1].id, ctx=ctx)
    assert r.success
    found = r.metadata["diagnostics"]
    assert [d["line"] for d in found] == [1] and found[0]["path"] == f"cell {nb.cells[1].id}"
    assert "The change introduced" in r.output
    fine = notebook_edit(str(path), "%matplotlib inline\n!pip list\nx = 1\n", cell_id=nb.cells[2].id, ctx=ctx)
    assert fine.success and fine.metadata["diagnostics"] == []  # IPython's magics are not errors
    text = notebook_edit(str(path), "def not code(:", cell_id=nb.cells[0].id, ctx=ctx)
    assert "diagnostics" not in text.metadata  # a markdown cell is not parsed


def test_check_syntax_refuse_writes_nothing(notebook, project):
    nb = _notebook()
    ctx = fstools.ExecutionContext(working_dir=str(project), check_syntax="refuse")
    path = notebook(nb)
    agent_read(ctx, path)
    before = path.read_bytes()
    r = notebook_edit(str(path), "x = (1,\n", cell_id=nb.cells[2].id, ctx=ctx)
    assert r.error_code == "syntax_error" and path.read_bytes() == before
