"""Checkpoint, Changes, Rewind and Undo honour the context's policies as every tool does: deny and
ask rules, read-only, dry run, and one audit record per call (the shared conformance tests call
tools on a fresh file, where there is nothing to take back)."""

from __future__ import annotations

from pathlib import Path

import pytest

import fstools
from tests.helpers.tools import agent_read

CONTENT = "alpha\nbeta\n"


def _changed(project: Path) -> tuple[Path, str]:
    """A file fstools changed after a checkpoint: (the file, the checkpoint)."""
    path = project / "f.txt"
    path.write_text(CONTENT)
    ctx = fstools.ExecutionContext(working_dir=str(project))
    mark = fstools.checkpoint(ctx=ctx).metadata["checkpoint"]
    agent_read(ctx, path)
    assert fstools.edit(str(path), "alpha", "omega", ctx=ctx).success
    return path, mark


def _call(name: str, path: Path, mark: str, **context) -> fstools.ToolResult:
    ctx = fstools.ExecutionContext(working_dir=str(path.parent), **context)
    if name == "Undo":
        return fstools.undo(str(path), ctx=ctx)
    if name == "Rewind":
        return fstools.rewind(mark, ctx=ctx)
    if name == "Changes":
        return fstools.changes(since=mark, ctx=ctx)
    return fstools.checkpoint(label="x", ctx=ctx)


TOOLS = ["Undo", "Rewind", "Changes", "Checkpoint"]
CHANGING = ["Undo", "Rewind"]


def _rules(name: str, action: str) -> fstools.PermissionManager:
    return fstools.PermissionManager(rules=[fstools.PermissionRule(name, "**", action)])


@pytest.mark.parametrize("name", TOOLS)
def test_deny_refuses_and_changes_nothing(project, name):
    path, mark = _changed(project)
    r = _call(name, path, mark, permissions=_rules(name, "deny"))
    assert r.error_code == "permission_denied" and name in r.error
    assert path.read_text() == "omega\nbeta\n"


@pytest.mark.parametrize("accept", [True, False])
@pytest.mark.parametrize("name", CHANGING)
def test_ask_asks_once_with_the_diff(project, name, accept):
    path, mark = _changed(project)
    asked: list[fstools.PermissionRequest] = []
    manager = _rules(name, "ask")
    manager.confirm = lambda request: asked.append(request) or accept
    r = _call(name, path, mark, permissions=manager)
    assert len(asked) == 1 and asked[0].tool == name and "-omega" in (asked[0].diff or "")
    if accept:
        assert r.success and path.read_text() == CONTENT
    else:
        assert r.error_code == "user_rejected" and path.read_text() == "omega\nbeta\n"


@pytest.mark.parametrize("name", CHANGING)
def test_read_only_and_dry_run_change_nothing(project, name):
    path, mark = _changed(project)
    assert _call(name, path, mark, read_only=True).error_code == "permission_denied"
    dry = _call(name, path, mark, dry_run=True, permissions=_rules(name, "ask"))
    assert dry.success and dry.metadata["dry_run"] is True
    assert path.read_text() == "omega\nbeta\n"
    assert _call("Changes", path, mark, read_only=True).success  # reading the journal is not a change
    assert _call("Checkpoint", path, mark, read_only=True).success  # nor is marking it


@pytest.mark.parametrize("name", TOOLS)
def test_one_audit_record_per_call(project, name):
    path, mark = _changed(project)
    records: list[fstools.AuditRecord] = []
    assert _call(name, path, mark, audit_hook=records.append).success
    assert [(r.tool, r.success) for r in records] == [(name, True)]
