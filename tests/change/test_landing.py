"""The tail every change tool ends in (`_change/landing.py`): one place refuses broken syntax, asks
permission, stops at a dry run, writes and annotates; the adapters only call tools."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import fstools
from fstools._change.landing import Files, Landing, OneFile, land
from fstools._change.transaction import FileChange
from fstools._change.write import write
from fstools._core.context import ExecutionContext
from fstools._core.errors import ToolError
from fstools._core.paths import resolve_file_path
from fstools._syntax.review import review_change

PACKAGE = Path(__file__).resolve().parents[2] / "fstools"
TAIL_STEPS = {"refuse_broken", "annotate", "authorize", "save"}
# The steps of a change, which an adapter reaches only through a tool.
PIPELINE_MODULES = {"guard", "document", "diff", "atomic", "landing", "transaction", "journaling", "match", "hunks"}


def _called(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call):
            func = node.func
            names.add(func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else "")
    return names


def test_only_the_tail_refuses_asks_writes_and_annotates():
    """Write, Edit, MultiEdit, NotebookEdit, ApplyPatch and Insert end in `land`: none of them runs
    the tail's steps itself (a no-op Write still asks the deny rules, with nothing to write)."""
    callers: dict[str, set[str]] = {}
    for path in [*(PACKAGE / "_change").glob("*.py"), *(PACKAGE / "_agents").glob("*.py")]:
        for step in _called(path) & TAIL_STEPS:
            callers.setdefault(step, set()).add(f"{path.parent.name}/{path.name}")
    assert callers["refuse_broken"] == {"_change/landing.py"}
    assert callers["annotate"] == {"_change/landing.py"}
    assert callers["save"] == {"_change/landing.py", "_change/transaction.py"}
    change_tools = {"_change/write.py", "_change/edit.py", "_change/notebook.py", "_change/patch.py"}
    assert callers["authorize"] & change_tools == {"_change/write.py"}  # its no-op case only
    for name in ("write.py", "edit.py", "notebook.py", "patch.py", "editor.py"):
        assert "land" in _called(PACKAGE / "_change" / name), name


def test_adapters_import_no_step_of_a_change():
    strays = []
    for path in (PACKAGE / "_agents").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("_change."):
                if node.module.removeprefix("_change.") in PIPELINE_MODULES:
                    strays.append(f"{path.name}: {node.module}")
    assert strays == []


def _landing(ctx: ExecutionContext, path: str, new: str, *, backup: bool = False) -> Landing:
    target = resolve_file_path(ctx, path)
    return Landing(
        write.spec,
        "(diff)",
        [review_change(ctx, target.display, None, new)],
        {"file_path": target.path},
        preview="would write",
        done="wrote",
        writes=OneFile(target, new.encode(), None, backup=backup),
    )


def test_dry_run_returns_the_preview_and_writes_nothing(tmp_path):
    ctx = ExecutionContext(working_dir=str(tmp_path), dry_run=True)
    result = land(ctx, _landing(ctx, str(tmp_path / "new.py"), "x = 1\n"))
    assert result.output == "would write" and result.metadata["file_path"] == str(tmp_path / "new.py")
    assert not (tmp_path / "new.py").exists()


def test_refused_syntax_writes_nothing(tmp_path):
    ctx = ExecutionContext(working_dir=str(tmp_path), check_syntax="refuse")
    with pytest.raises(ToolError) as refused:
        land(ctx, _landing(ctx, str(tmp_path / "broken.py"), "def f(:\n"))
    assert refused.value.code == "syntax_error"
    assert not (tmp_path / "broken.py").exists()


def test_one_file_is_journaled_and_several_land_together(tmp_path):
    ctx = ExecutionContext(working_dir=str(tmp_path))
    result = land(ctx, _landing(ctx, str(tmp_path / "one.txt"), "one\n"))
    assert result.output == "wrote" and result.metadata["journal"] == "recorded"
    assert "in_place" in result.metadata and "backup_path" not in result.metadata
    targets = [resolve_file_path(ctx, str(tmp_path / name)) for name in ("a.txt", "b.txt")]
    several = Landing(
        write.spec,
        "(diff)",
        [],
        {},
        preview="",
        done="both",
        writes=Files([FileChange(t, None, t.path.encode()) for t in targets]),
    )
    assert land(ctx, several).metadata["journal"] == "recorded"
    assert [(tmp_path / n).read_text() for n in ("a.txt", "b.txt")] == [t.path for t in targets]


NOTEBOOK = (
    '{"cells": [{"cell_type": "code", "id": "c1", "metadata": {}, "source": ["x = 1\\n"], "outputs": [],'
    ' "execution_count": null}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'
)
CHANGED = ["in_place", "journal"]
EDITED = ["file_path", "replacements", "diff", "created", "encoding", "line_ending", "bytes_written"]
WRITTEN = ["file_path", "created", "encoding", "line_ending"]
CELL = ["file_path", "cell_id", "cell_index", "edit_mode", "cell_type", "diff"]


def _keys_of_each_change(project: Path, dry_run: bool) -> dict[str, list[str]]:
    from fstools._change.editor import INSERT_SPEC
    from fstools._core.spec import invoke

    project = project / ("dry" if dry_run else "written")
    project.mkdir()
    (project / "n.ipynb").write_text(NOTEBOOK)
    (project / "a.py").write_text("x = 1\n")
    ctx = ExecutionContext(working_dir=str(project), dry_run=dry_run)

    def read_all() -> None:
        for name in ("n.ipynb", "a.py"):
            assert fstools.read(str(project / name), ctx=ctx).success

    calls = {
        "NotebookEdit": lambda: fstools.notebook_edit(str(project / "n.ipynb"), "x = 2\n", cell_id="c1", ctx=ctx),
        "Edit": lambda: fstools.edit(str(project / "a.py"), "x = 1", "x = 2", ctx=ctx),
        "MultiEdit": lambda: fstools.multi_edit(
            str(project / "a.py"), [{"old_string": "x", "new_string": "z"}], ctx=ctx
        ),
        "Write": lambda: fstools.write(str(project / "a.py"), "y = 1\n", backup=True, ctx=ctx),
        "ApplyPatch": lambda: fstools.apply_patch(
            "*** Begin Patch\n*** Add File: c.py\n+q = 1\n*** End Patch\n", ctx=ctx
        ),
        "Insert": lambda: invoke(
            INSERT_SPEC, ctx, {"file_path": str(project / "a.py"), "insert_line": 0, "text": "w = 0"}
        ),
    }
    keys = {}
    for name, call in calls.items():
        read_all()
        result = call()
        assert result.success, (name, result.error)
        keys[name] = list(result.metadata)
    return keys


def test_each_result_keeps_the_order_of_its_metadata(project):
    """The written result's metadata is in the order the tools gave it before they shared the tail
    (`--json` prints it as it is): what the write adds comes where each tool put it."""
    assert _keys_of_each_change(project, dry_run=False) == {
        "NotebookEdit": ["bytes_written", *CHANGED, *CELL],
        "Edit": [*CHANGED, *EDITED, "match_strategy", "diagnostics"],
        "MultiEdit": [*CHANGED, *EDITED, "edits", "edits_applied", "diagnostics"],
        "Write": ["bytes_written", "diff", *CHANGED, "backup_path", *WRITTEN, "diagnostics"],
        "ApplyPatch": ["path", "files", "diff", "journal", "diagnostics"],
        "Insert": [*CHANGED, "file_path", "diff", "lines_inserted", "diagnostics"],
    }
    assert _keys_of_each_change(project, dry_run=True) == {
        "NotebookEdit": ["bytes_written", "dry_run", *CELL],
        "Edit": [*EDITED, "match_strategy", "diagnostics", "dry_run"],
        "MultiEdit": [*EDITED, "edits", "edits_applied", "diagnostics", "dry_run"],
        "Write": ["bytes_written", "diff", *WRITTEN, "diagnostics", "dry_run"],
        "ApplyPatch": ["path", "files", "diff", "diagnostics", "dry_run"],
        "Insert": ["file_path", "diff", "lines_inserted", "diagnostics", "dry_run"],
    }
