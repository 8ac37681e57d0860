"""End-to-end round trips over every file tool: CLI subprocesses, the MCP stdio server, permissions, audit.

Read, Write, Edit, MultiEdit, Delete, Glob and Grep are built in parallel with this
layer; each test here is written against the documented API (docs/contract.md) and skips,
naming what it waits for, until the tools it needs are registered.
"""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

import fstools
from tests.helpers.processes import fstools_cmd, stdio_session
from tests.helpers.processes import mcp_text as text

REGISTERED = set(fstools.create_registry().names())


def needs(*tools: str):
    missing = [t for t in tools if t not in REGISTERED]
    return pytest.mark.skipif(bool(missing), reason=f"waiting for {', '.join(missing)} to be registered")


@pytest.fixture
def tree(project: Path) -> Path:
    (project / "src").mkdir()
    (project / "src" / "app.py").write_text("def main():\n    print('hello')\n")
    (project / "src" / "util.py").write_text("def helper():\n    return 42\n\n\nclass Tool:\n    pass\n")
    (project / "README.md").write_text("# demo\n")
    return project


# CLI ------------------------------------------------------------------------------------


@needs("Write", "Read", "Edit", "MultiEdit", "Delete", "LS")
def test_cli_write_read_edit_delete(tree):
    created = fstools_cmd("write", "notes/todo.txt", "--content-file", "-", cwd=tree, stdin="one\ntwo\n")
    assert created.returncode == 0, created.stderr
    assert "Created" in created.stdout
    assert (tree / "notes" / "todo.txt").read_text() == "one\ntwo\n"

    read = fstools_cmd("read", "notes/todo.txt", cwd=tree)
    assert read.returncode == 0, read.stderr
    assert read.stdout.splitlines()[:2] == ["     1\tone", "     2\ttwo"]

    edited = fstools_cmd("edit", "notes/todo.txt", "two", "TWO", cwd=tree)
    assert edited.returncode == 0, edited.stderr
    assert "+TWO" in edited.stdout
    assert (tree / "notes" / "todo.txt").read_text() == "one\nTWO\n"

    edits = json.dumps([{"old_string": "one", "new_string": "1"}, {"old_string": "TWO", "new_string": "2"}])
    multi = fstools_cmd("multi-edit", "notes/todo.txt", edits, "--json", cwd=tree)
    assert multi.returncode == 0, multi.stderr
    assert json.loads(multi.stdout)["success"] is True
    assert (tree / "notes" / "todo.txt").read_text() == "1\n2\n"

    missing = fstools_cmd("edit", "notes/todo.txt", "absent", "x", "--json", cwd=tree)
    assert missing.returncode == 1 and json.loads(missing.stdout)["error_code"] == "not_found"

    deleted = fstools_cmd("delete", "notes/todo.txt", cwd=tree)
    assert deleted.returncode == 0, deleted.stderr
    assert not (tree / "notes" / "todo.txt").exists()


@needs("Write", "Edit")
def test_cli_overwrite_dry_run_and_read_only(tree):
    app = tree / "src" / "app.py"
    before = app.read_text()
    (tree / "new.py").write_text("x = 2\n")
    updated = fstools_cmd("write", "new.py", "--content-file", str(tree / "src" / "util.py"), cwd=tree)
    assert updated.returncode == 0 and "Updated" in updated.stdout
    assert (tree / "new.py").read_text() == (tree / "src" / "util.py").read_text()

    dry = fstools_cmd("edit", "src/app.py", "hello", "bye", "--dry-run", "--json", cwd=tree)
    assert dry.returncode == 0, dry.stderr
    doc = json.loads(dry.stdout)
    assert doc["metadata"]["dry_run"] is True and "[Dry Run]" in doc["output"]
    assert app.read_text() == before

    refused = fstools_cmd("edit", "src/app.py", "hello", "bye", "--read-only", cwd=tree)
    assert refused.returncode == 1 and "[permission_denied]" in refused.stderr
    assert app.read_text() == before


@needs("Edit")
def test_cli_ask_without_a_terminal_changes_nothing(tree):
    app = tree / "src" / "app.py"
    before = app.read_text()
    refused = fstools_cmd("edit", "src/app.py", "hello", "bye", "--ask", "Edit", cwd=tree)
    assert refused.returncode == 1 and "[user_rejected]" in refused.stderr
    assert "-    print('hello')" in refused.stderr and "+    print('bye')" in refused.stderr
    assert app.read_text() == before
    confirmed = fstools_cmd("edit", "src/app.py", "hello", "bye", "--ask", "Edit", "--yes", cwd=tree)
    assert confirmed.returncode == 0, confirmed.stderr
    assert "print('bye')" in app.read_text()


@needs("Glob")
def test_cli_glob(tree):
    globbed = fstools_cmd("glob", "**/*.py", cwd=tree)
    assert globbed.returncode == 0, globbed.stderr
    assert sorted(globbed.stdout.split()) == sorted(str((tree / "src" / n).resolve()) for n in ("app.py", "util.py"))
    none = fstools_cmd("glob", "**/*.xyz", "src", "--json", cwd=tree)
    assert none.returncode == 0 and json.loads(none.stdout)["metadata"]["count"] == 0
    missing = fstools_cmd("glob", "*.py", "nowhere", cwd=tree)
    assert missing.returncode == 1 and "Directory not found" in missing.stderr


@needs("Grep")
def test_cli_grep(tree):
    counted = fstools_cmd("grep", "def ", ".", "--output-mode", "count", cwd=tree)
    assert counted.returncode == 0, counted.stderr
    assert sorted(counted.stdout.splitlines()) == sorted(
        f"{(tree / 'src' / n).resolve()}: 1" for n in ("app.py", "util.py")
    )

    content = fstools_cmd("grep", "CLASS", "src", "-i", "-n", "--output-mode", "content", cwd=tree)
    assert content.returncode == 0, content.stderr
    assert f"{(tree / 'src' / 'util.py').resolve()}:5> class Tool:" in content.stdout

    bad = fstools_cmd("grep", "[invalid(regex", cwd=tree)
    assert bad.returncode == 2 and "[invalid_regex]" in bad.stderr  # rg's exit status for an error
    none = fstools_cmd("grep", "no such text anywhere", cwd=tree)
    assert none.returncode == 1 and none.stdout == ""


# MCP over stdio ---------------------------------------------------------------------------


@needs("Read", "Write", "Edit", "MultiEdit", "Delete")
def test_mcp_stdio_read_edit_write_delete(tree, tmp_path):
    from PIL import Image

    Image.new("RGB", (4, 3), "red").save(tree / "dot.png")
    app, util = tree / "src" / "app.py", tree / "src" / "util.py"

    async def steps(session):
        call = session.call_tool
        return {
            "tools": (await session.list_tools()).tools,
            "read": await call("Read", {"file_path": str(app)}),
            "edit": await call("Edit", {"file_path": str(app), "old_string": "hello", "new_string": "bye"}),
            "unread": await call("Edit", {"file_path": str(util), "old_string": "42", "new_string": "43"}),
            "read_util": await call("Read", {"file_path": str(util)}),
            "multi_edit": await call(
                "MultiEdit",
                {
                    "file_path": str(util),
                    "edits": [
                        {"old_string": "42", "new_string": "43"},
                        {"old_string": "pass", "new_string": "...", "replace_all": True},
                    ],
                },
            ),
            "write": await call("Write", {"file_path": str(tree / "new.txt"), "content": "fresh\n"}),
            "image": await call("Read", {"file_path": str(tree / "dot.png")}),
            "delete": await call("Delete", {"path": str(tree / "new.txt")}),
            "escape": await call("Read", {"file_path": "/etc/passwd"}),
            "dotdot": await call("Write", {"file_path": str(tree / ".." / "planted.txt"), "content": "x"}),
            "missing": await call("Read", {"file_path": str(tree / "nope.txt")}),
        }

    r = stdio_session(tree, steps, errlog=tmp_path / "server.log")
    from mcp import types

    # Hints as a client reads them: an absent one has MCP's default (not read-only, destructive).
    hints = {t.name: t.annotations or types.ToolAnnotations() for t in r["tools"]}
    assert set(hints) == set(fstools.create_registry(journal=True).names())  # the server offers the journal's tools
    assert hints["Changes"].read_only_hint and hints["Undo"].destructive_hint is not False
    assert all(hints[n].read_only_hint for n in ("Read", "LS"))
    assert not any(hints[n].read_only_hint for n in ("Write", "Edit", "MultiEdit", "Delete"))
    assert hints["Delete"].destructive_hint is not False
    assert "     1\tdef main():" in text(r["read"])
    assert not r["edit"].is_error and "print('bye')" in app.read_text()
    assert r["unread"].is_error and "not_read" in text(r["unread"])
    assert not r["multi_edit"].is_error
    assert util.read_text() == "def helper():\n    return 43\n\n\nclass Tool:\n    ...\n"
    assert not r["write"].is_error and "Created" in text(r["write"])
    assert [c.type for c in r["image"].content] == ["text", "image"] and r["image"].content[1].mime_type == "image/png"
    assert not r["delete"].is_error and not (tree / "new.txt").exists()
    for escape in (r["escape"], r["dotdot"]):
        assert escape.is_error and "path_outside_workspace" in text(escape)
    assert not (tree.parent / "planted.txt").exists()
    assert r["missing"].is_error and "file_not_found" in text(r["missing"])
    assert "Traceback" not in (tmp_path / "server.log").read_text()


@needs("Grep")
def test_mcp_stdio_grep_and_escape(tree, tmp_path):
    app = tree / "src" / "app.py"

    async def steps(session):
        call = session.call_tool
        return (
            await call("Grep", {"pattern": "def ", "path": str(tree), "output_mode": "content", "-n": True}),
            await call("Grep", {"pattern": "CLASS", "path": str(tree), "-i": "true", "output_mode": "count"}),
            await call("Grep", {"pattern": "root", "path": "/etc"}),
            await call("Grep", {"pattern": "[invalid(regex", "path": str(tree)}),
        )

    grepped, counted, escape, bad = stdio_session(tree, steps, errlog=tmp_path / "server.log")
    assert f"{app.resolve()}:1> def main():" in text(grepped)
    assert text(counted).splitlines()[0] == f"{(tree / 'src' / 'util.py').resolve()}: 1"
    assert escape.is_error and "path_outside_workspace" in text(escape)
    assert bad.is_error and "invalid_regex" in text(bad)


@needs("Glob")
def test_mcp_glob(tree):
    from mcp import Client

    from fstools._agents.mcp import create_server
    from fstools._agents.settings import SessionSettings

    async def main():
        async with Client(create_server(SessionSettings(roots=(str(tree),))), mode="legacy") as client:
            return (
                await client.call_tool("Glob", {"pattern": "**/*.py", "path": str(tree)}),
                await client.call_tool("Glob", {"pattern": "*", "path": "/etc"}),
            )

    globbed, escape = anyio.run(main)
    expected = sorted(str((tree / "src" / n).resolve()) for n in ("app.py", "util.py"))
    assert sorted(text(globbed).splitlines()) == expected
    assert escape.is_error and "path_outside_workspace" in text(escape)


@needs("Read")
def test_mcp_read_text_image_and_refusals(tree):
    from mcp import Client
    from PIL import Image

    from fstools._agents.mcp import create_server
    from fstools._agents.settings import SessionSettings

    Image.new("RGB", (4, 3), "red").save(tree / "dot.png")
    (tree / ".env").write_text("TOKEN=x\n")

    async def main():
        async with Client(create_server(SessionSettings(roots=(str(tree),))), mode="legacy") as client:
            call = client.call_tool
            return (
                await call("Read", {"file_path": str(tree / "src" / "app.py"), "offset": "2", "limit": 1}),
                await call("Read", {"file_path": str(tree / "dot.png")}),
                await call("Read", {"file_path": str(tree / ".env")}),
                await call("Read", {"file_path": "src/app.py"}),
            )

    numbered, image, secret, relative = anyio.run(main)
    assert not numbered.is_error and text(numbered).splitlines()[0] == "     2\t    print('hello')"
    assert [c.type for c in image.content] == ["text", "image"] and image.content[1].mime_type == "image/png"
    assert image.content[1].data
    assert secret.is_error and "sensitive_path" in text(secret)
    assert relative.is_error and "must be an absolute path" in text(relative)


# Permissions and audit with the real mutating tools -------------------------------------------


@needs("Edit", "Read")
@pytest.mark.parametrize(
    ("rules", "answer", "code", "changed"),
    [
        ([("*", "**", "allow")], None, None, True),
        ([("*", "**", "allow"), ("Edit", "**/*.py", "deny")], None, "permission_denied", False),
        ([("Edit", "**", "ask")], True, None, True),
        ([("Edit", "**", "ask")], False, "user_rejected", False),
    ],
    ids=["allow", "deny", "ask-accepted", "ask-rejected"],
)
def test_every_permission_path_on_a_real_edit(tree, rules, answer, code, changed):
    app = tree / "src" / "app.py"
    before = app.read_text()
    asked: list[fstools.PermissionRequest] = []

    def confirm(request):
        asked.append(request)
        return answer

    pm = fstools.PermissionManager(rules=[fstools.PermissionRule(*r) for r in rules], confirm=confirm)
    ctx = fstools.ExecutionContext(working_dir=str(tree), permissions=pm)
    assert fstools.read(str(app), ctx=ctx).success
    result = fstools.edit(str(app), "hello", "bye", ctx=ctx)
    assert result.error_code == code
    assert (app.read_text() != before) is changed
    if answer is None:
        assert asked == []
    else:
        assert [(r.tool, r.path) for r in asked] == [("Edit", str(app.resolve()))]
        assert "-    print('hello')" in asked[0].diff and "+    print('bye')" in asked[0].diff


@needs("Write")
def test_audit_records_success_and_failure_of_a_write(tree, tmp_path):
    records: list[fstools.AuditRecord] = []
    log = tmp_path / "audit.jsonl"
    ctx = fstools.ExecutionContext(working_dir=str(tree), audit_hook=records.append, audit_log=str(log))
    fstools.write(str(tree / "out.txt"), "12345", ctx=ctx)
    fstools.write("/etc/out.txt", "x", ctx=ctx)
    assert [(r.tool, r.success, r.error_code, r.bytes) for r in records] == [
        ("Write", True, None, 5),
        ("Write", False, "path_outside_workspace", None),
    ]
    assert records[0].path == str((tree / "out.txt").resolve())
    assert [json.loads(line)["tool"] for line in log.read_text().splitlines()] == ["Write", "Write"]


@needs("Read", "Edit")
def test_mcp_session_context_carries_reads_between_calls(tree):
    from mcp import Client

    from fstools._agents.mcp import create_server
    from fstools._agents.settings import SessionSettings

    app = tree / "src" / "app.py"

    async def read_then_edit(client):
        await client.call_tool("Read", {"file_path": str(app)})
        return await client.call_tool("Edit", {"file_path": str(app), "old_string": "hello", "new_string": "bye"})

    async def edit_only(client):
        return await client.call_tool("Edit", {"file_path": str(app), "old_string": "bye", "new_string": "hi"})

    async def main():
        server = create_server(SessionSettings(roots=(str(tree),)))
        async with Client(server, mode="legacy") as client:
            first = await read_then_edit(client)
        async with Client(create_server(SessionSettings(roots=(str(tree),))), mode="legacy") as client:
            second = await edit_only(client)
        return first, second

    first, second = anyio.run(main)
    assert not first.is_error
    assert second.is_error and "not_read" in text(second)
    assert "print('bye')" in app.read_text()
