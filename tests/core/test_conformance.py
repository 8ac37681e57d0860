"""Every registered tool honours the context's policies: permission rules, read-only, dry run, audit.

Written once over the registry, so each tool that lands is checked the day it is
registered. A tool is called with arguments that succeed on a small real project.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import fstools
from fstools._agents.cli import presume_read

TOOLS = fstools.create_registry().list()
IDS = [t.name for t in TOOLS]
MUTATING = [t for t in TOOLS if not t.read_only]
CONTENT = "alpha\nbeta\n"

# Values for the required parameters, by name (the names are part of the public API). "f*" is both a
# glob (Glob) and a regex (Grep) that finds the sample file.
SAMPLES = {
    "old_string": "alpha",
    "new_string": "omega",
    "content": "gamma\n",
    "pattern": "f*",
    "edits": [{"old_string": "alpha", "new_string": "omega"}],
    "patch": "*** Begin Patch\n*** Update File: f.txt\n@@\n-alpha\n+omega\n*** End Patch",
    "new_source": "omega = 1",
    "query": "alpha",
    "name": "alpha",
}
# A tool that changes one kind of file gets a sample of that kind (name, content) and the arguments it needs.
NOTEBOOK = '{"cells": [{"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [], "source": []}], '
NOTEBOOK += '"metadata": {}, "nbformat": 4, "nbformat_minor": 4}\n'
KINDS = {
    "NotebookEdit": ("f.ipynb", NOTEBOOK, {"cell_id": "cell-0"}),
    "Symbols": ("f.py", "def alpha():\n    return 1\n", {}),
    "References": ("f.py", "def alpha():\n    return 1\n", {}),
}


@pytest.fixture
def sample(project: Path, request: pytest.FixtureRequest) -> Path:
    tool = request.node.callspec.params["tool"]
    name, content, _ = KINDS.get(tool.name, ("f.txt", CONTENT, {}))
    target = project / name
    target.write_text(content)
    return target


def arguments(tool: fstools.BaseTool, sample: Path) -> dict:
    """Arguments that succeed: a file for `file_path` (and for a mutating tool's `path`), else the project dir."""
    args = dict(KINDS.get(tool.name, ("", "", {}))[2])
    for p in tool.parameters:
        if p.name in ("file_path", "notebook_path") or (p.name == "path" and not tool.read_only):
            args[p.name] = str(sample)
        elif p.name == "path":
            args[p.name] = str(sample.parent)
        elif p.name == "paths":  # ReadMany: the sample
            args[p.name] = [str(sample)]
        elif p.name in ("source", "destination"):  # Move: the sample to a new name
            args[p.name] = str(sample if p.name == "source" else sample.parent / "moved.txt")
        elif p.path_list and p.required:  # a list of paths: the sample file
            args[p.name] = [str(sample)]
        elif p.required:
            assert p.name in SAMPLES, f"add a sample value for {tool.name}.{p.name}"
            args[p.name] = SAMPLES[p.name]
    return args


def run(tool: fstools.BaseTool, sample: Path, **context) -> fstools.ToolResult:
    ctx = fstools.ExecutionContext(working_dir=str(sample.parent), **context)
    args = arguments(tool, sample)
    presume_read(tool, ctx, args)
    return tool.run(ctx, **args)


def unchanged(sample: Path) -> bool:
    original = next((content for name, content, _ in KINDS.values() if name == sample.name), CONTENT)
    return sample.exists() and sample.read_text() == original


def rules(tool: fstools.BaseTool, action: str) -> fstools.PermissionManager:
    return fstools.PermissionManager(rules=[fstools.PermissionRule(tool.name, "**", action)])


@pytest.mark.parametrize("tool", TOOLS, ids=IDS)
def test_succeeds_without_policies(tool, sample):
    result = run(tool, sample)
    assert result.success, result.error
    assert unchanged(sample) is tool.read_only


@pytest.mark.parametrize("tool", TOOLS, ids=IDS)
def test_deny_rule_refuses_and_changes_nothing(tool, sample):
    result = run(tool, sample, permissions=rules(tool, "deny"))
    assert result.error_code == "permission_denied" and tool.name in result.error
    assert unchanged(sample)


@pytest.mark.parametrize("accept", [True, False], ids=["accepted", "rejected"])
@pytest.mark.parametrize("tool", TOOLS, ids=IDS)
def test_ask_rule_asks_once_about_the_resolved_path(tool, sample, accept):
    asked: list[fstools.PermissionRequest] = []
    manager = rules(tool, "ask")
    manager.confirm = lambda request: asked.append(request) or accept
    result = run(tool, sample, permissions=manager)
    assert len(asked) == 1 and asked[0].tool == tool.name
    assert asked[0].path in (str(sample.resolve()), str(sample.parent.resolve()))
    if accept:
        assert result.success, result.error
        assert unchanged(sample) is tool.read_only
    else:
        assert result.error_code == "user_rejected"
        assert unchanged(sample)


@pytest.mark.parametrize("tool", MUTATING, ids=[t.name for t in MUTATING])
def test_read_only_and_dry_run_change_nothing(tool, sample):
    refused = run(tool, sample, read_only=True)
    assert refused.error_code == "permission_denied" and unchanged(sample)
    dry = run(tool, sample, dry_run=True, permissions=rules(tool, "ask"))  # a dry run asks no one
    assert dry.success and dry.metadata["dry_run"] is True and unchanged(sample)


@pytest.mark.parametrize("tool", TOOLS, ids=IDS)
def test_one_audit_record_per_call_with_the_resolved_path(tool, sample):
    records: list[fstools.AuditRecord] = []
    run(tool, sample, audit_hook=records.append)
    sample.write_text(next((c for name, c, _ in KINDS.values() if name == sample.name), CONTENT))  # start again
    run(tool, sample, audit_hook=records.append, permissions=rules(tool, "deny"))
    assert [(r.tool, r.success) for r in records] == [(tool.name, True), (tool.name, False)]
    assert records[0].path in (str(sample.resolve()), str(sample.parent.resolve()))
    assert records[1].error_code == "permission_denied"
    assert all(r.duration_ms >= 0 for r in records)
