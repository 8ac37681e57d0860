"""Tool layer: registry, schemas, BaseTool validation, the invoke pipeline and its policies."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import jsonschema
import pytest

import fstools
from fstools._agents.toolset import FILE_TOOLS
from fstools._core.errors import ErrorCode
from fstools._core.params import ToolParameter
from fstools._core.spec import ToolSpec, invoke


def test_registry_lists_every_working_tool():
    registry = fstools.create_registry()
    names = registry.names()
    # Every tool of the facade's list is registered, in the list's order.
    assert names == [getattr(fstools, function).spec.name for function in FILE_TOOLS]
    assert len(names) == len(set(names)) == len(registry)
    for tool in registry.list():
        assert tool.category == fstools.ToolCategory.FILE
        assert registry.get(tool.name) is tool
        assert tool.name in registry
    assert registry.get("Nope") is None


def test_register_twice_is_an_error():
    registry = fstools.create_registry()
    with pytest.raises(ValueError):
        fstools.register_file_tools(registry)


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_schemas_are_valid_json_schema(provider):
    schemas = fstools.create_registry().get_all_schemas(provider)
    assert schemas
    for schema in schemas:
        if provider == "openai":
            assert schema["type"] == "function"
            body = schema["function"]
            params = body["parameters"]
        else:
            body = schema
            params = body["input_schema"]
        assert re.fullmatch(r"[A-Za-z0-9_-]{1,64}", body["name"])
        assert body["description"]
        jsonschema.Draft202012Validator.check_schema(params)
        assert params["type"] == "object"
        tool = fstools.create_registry().get(body["name"])
        assert set(params["properties"]) == {p.name for p in tool.parameters}
        assert params["required"] == [p.name for p in tool.parameters if p.required]
        json.dumps(schema)


def test_unknown_provider():
    tool = fstools.create_registry().list()[0]
    with pytest.raises(ValueError):
        tool.schema("gemini")


def test_default_context_is_rooted_at_cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ctx = fstools.default_context()
    assert ctx.working_dir == str(tmp_path)
    assert fstools.default_context() is ctx
    r = fstools.ls()
    assert r.success and r.metadata["path"] == str(tmp_path.resolve())


def test_tool_run_validates_and_coerces(project, ctx):
    (project / "a.txt").write_text("x")
    tool = fstools.create_registry().get("LS")
    r = tool.run(ctx, path=str(project), limit="1", hidden="false")
    assert r.success and r.metadata["returned"] == 1
    bad = tool.run(ctx, path=str(project), limit=0)
    assert bad.error_code == "invalid_argument" and "limit" in bad.error
    assert tool.run(ctx, bogus=1).error_code == "invalid_argument"


def test_tool_execute_is_async_and_validates(project, ctx):
    tool = fstools.create_registry().get("LS")
    r = asyncio.run(tool.execute(ctx, path=str(project)))
    assert r.success
    r = asyncio.run(tool.execute(ctx, path=str(project), limit="x"))
    assert r.error_code == "invalid_argument"
    registry = fstools.create_registry()
    assert asyncio.run(registry.execute("LS", ctx, path=str(project))).success
    assert registry.run("LS", ctx, path=str(project)).success
    missing = registry.run("Nope", ctx)
    assert missing.error_code == "invalid_argument" and "Unknown tool" in missing.error


class EchoTool(fstools.BaseTool):
    """A user-defined tool, to prove BaseTool works beyond fstools' own."""

    name = "Echo"
    description = "Echoes its text"
    category = fstools.ToolCategory.FILE
    parameters = [
        ToolParameter("text", "string", "what to echo", required=True),
        ToolParameter("times", "integer", "repeat", default=1, minimum=1),
    ]

    async def _execute(self, context, **kwargs):
        return fstools.ToolResult.ok(kwargs["text"] * kwargs["times"])


def test_custom_base_tool(ctx):
    tool = EchoTool()
    assert tool.run(ctx, text="ab", times="2").output == "abab"
    assert tool.run(ctx).error_code == "invalid_argument"
    assert tool.read_only is False and tool.destructive is False
    assert tool.schema("anthropic")["input_schema"]["required"] == ["text"]
    registry = fstools.ToolRegistry()
    registry.register(tool)
    assert registry.run("Echo", ctx, text="z").output == "z"


def _spec(read_only: bool, calls: list) -> ToolSpec:
    def run(ctx, file_path):
        calls.append(file_path)
        if file_path.endswith("boom"):
            raise PermissionError(13, "Permission denied")
        return fstools.ToolResult.ok("done", file_path=file_path, bytes_written=4)

    return ToolSpec(
        "Probe", "probe", (ToolParameter("file_path", "string", "p", required=True, path=True),), run, read_only
    )


def test_read_only_context_refuses_mutations(ctx):
    calls: list = []
    ro = fstools.ExecutionContext(working_dir=ctx.working_dir, read_only=True)
    r = invoke(_spec(False, calls), ro, {"file_path": "/x"})
    assert r.error_code == "permission_denied" and "read-only" in r.error and calls == []
    assert invoke(_spec(True, calls), ro, {"file_path": "/x"}).success


def test_dry_run_flag_on_mutating_results(ctx):
    dry = fstools.ExecutionContext(working_dir=ctx.working_dir, dry_run=True)
    assert invoke(_spec(False, []), dry, {"file_path": "/x"}).metadata["dry_run"] is True
    assert "dry_run" not in invoke(_spec(True, []), dry, {"file_path": "/x"}).metadata


def test_oserror_becomes_error_code(ctx):
    r = invoke(_spec(True, []), ctx, {"file_path": "/x/boom"})
    assert r.error_code == "permission_denied" and r.error == "Permission denied: /x/boom"


def test_rate_limit(ctx):
    limited = fstools.ExecutionContext(working_dir=ctx.working_dir, rate_limit_per_minute=3)
    spec = _spec(True, [])
    results = [invoke(spec, limited, {"file_path": "/x"}) for _ in range(5)]
    assert [r.success for r in results] == [True, True, True, False, False]
    assert results[-1].error_code == "rate_limited"
    assert limited.take_rate_token(1e12)  # a minute later the window has emptied


def test_audit_hook_and_jsonl(tmp_path, ctx):
    records = []
    log = tmp_path / "audit.jsonl"
    audited = fstools.ExecutionContext(working_dir=ctx.working_dir, audit_hook=records.append, audit_log=str(log))
    spec = _spec(False, [])
    invoke(spec, audited, {"file_path": "/x/ok"})
    invoke(spec, audited, {"file_path": "/x/boom"})
    assert [(r.tool, r.path, r.success, r.error_code, r.bytes) for r in records] == [
        ("Probe", "/x/ok", True, None, 4),
        ("Probe", "/x/boom", False, "permission_denied", None),
    ]
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [line["success"] for line in lines] == [True, False]
    assert all(line["duration_ms"] >= 0 for line in lines)


def test_audit_failures_never_break_the_operation(tmp_path, ctx):
    def broken(record):
        raise RuntimeError("observer crashed")

    audited = fstools.ExecutionContext(
        working_dir=ctx.working_dir, audit_hook=broken, audit_log=str(tmp_path / "no-such-dir" / "a.jsonl")
    )
    assert invoke(_spec(True, []), audited, {"file_path": "/x"}).success


def test_result_helpers():
    ok = fstools.ToolResult.ok("out", a=1)
    assert ok.to_dict() == {"success": True, "output": "out", "error": None, "error_code": None, "metadata": {"a": 1}}
    bad = fstools.ToolResult.fail("nope", ErrorCode.NOT_FOUND)
    assert bad.error_code == "not_found" and str(ErrorCode.NOT_FOUND) == "not_found"


def test_truncated_glob_and_grep_tell_a_text_only_reader(project, ctx):
    """The "there is more" notice is the output's last line, as Read's and LS's are: a loop that sends
    `output` to the model sends it too, and to_text() does not repeat it."""
    for i in range(5):
        (project / f"m{i}.py").write_text("needle\n")
    g = fstools.glob("*.py", path=str(project), limit=2, ctx=ctx)
    notice = "(Showing the 2 newest of 5 matching files: narrow the pattern or raise limit.)"
    assert g.output.splitlines() == [*g.metadata["files"], notice] and len(g.metadata["files"]) == 2
    assert g.metadata["notice"] == notice and g.to_text() == g.output
    r = fstools.grep("needle", path=str(project), head_limit=2, offset=2, ctx=ctx)
    notice = "(Showing files 3-4 of 5: call again with offset=4 for more.)"
    assert r.output.splitlines() == [*(f["path"] for f in r.metadata["files"]), notice]
    assert r.to_text() == r.output
    whole = fstools.grep("needle", path=str(project), head_limit=0, ctx=ctx)
    assert "notice" not in whole.metadata and whole.to_text() == whole.output
    assert whole.output.splitlines() == [f["path"] for f in whole.metadata["files"]]


def test_text_readers_see_what_could_not_be_searched(project, ctx):
    (project / "blob.bin").write_bytes(b"\x00NEEDLE\x00" * 10)
    r = fstools.grep("NEEDLE", path=str(project), ctx=ctx)
    text = r.to_text()
    assert r.output == "No matches found"
    assert text.startswith("No matches found\n(warning: 1 binary file(s) contain the pattern")


def test_undecodable_bytes_reach_text_readers_as_replacement_characters(project, ctx):
    import json
    import subprocess
    import sys

    from fstools._core.textsafe import jsonable, printable

    target = project / "m.txt"
    target.write_bytes("héllo wörld ünïcode\n".encode() + b"caf\xe9 bar\nend\n")
    assert fstools.read(str(target), ctx=ctx).success
    r = fstools.edit(str(target), "end", "END", ctx=ctx)
    assert r.success and "\udce9" in r.metadata["diff"]  # Python callers keep the byte, losslessly
    assert "\ufffd" in printable(r.metadata["diff"]) and "\udce9" not in r.to_text()
    json.dumps(jsonable(r.to_dict()), ensure_ascii=False).encode("utf-8")
    assert target.read_bytes().endswith(b"caf\xe9 bar\nEND\n")
    cli = subprocess.run(
        [sys.executable, "-m", "fstools", "edit", str(target), "END", "end", "--json", "--root", str(project)],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert cli.returncode == 0, cli.stderr
    assert json.loads(cli.stdout)["success"] is True
