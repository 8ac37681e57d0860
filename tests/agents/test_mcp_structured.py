"""structuredContent and outputSchema: what the SDK client checks, and every tool's metadata against its schema."""

from __future__ import annotations

import base64

import anyio
import jsonschema
import pytest
from mcp import Client

import fstools
from fstools._agents.mcp import call_result, create_server
from fstools._agents.settings import SessionSettings
from fstools._core.outputs import ResultField
from fstools._core.spec import ToolSpec
from tests.helpers.binaries import HAS_FD, requires_fd
from tests.helpers.processes import stdio_session
from tests.helpers.samples import make_notebook, make_pdf, make_scanned_pdf


def in_session(registry, steps):
    async def main():
        async with Client(create_server(SessionSettings(output_schemas=True), registry), mode="legacy") as client:
            return await steps(client)

    return anyio.run(main)


@pytest.fixture
def tree(project, monkeypatch):
    from PIL import Image

    monkeypatch.chdir(project)
    (project / "src").mkdir()
    for i in range(3):
        (project / "src" / f"m{i}.py").write_text(f"def f{i}():\n    return {i}\n")
    (project / "notes.txt").write_text("alpha\nbeta\ngamma\n")
    Image.new("RGB", (4, 3), "red").save(project / "dot.png")
    (project / "doc.pdf").write_bytes(make_pdf(["one", "two", "three"]))
    (project / "nb.ipynb").write_text(make_notebook())
    (project / "blob.bin").write_bytes(b"\x00ONLYINBLOB\x00" * 4)
    return project


def test_every_tool_lists_its_output_schema(tree):
    registry = fstools.create_registry()

    async def steps(client):
        return (await client.list_tools()).tools

    for listed in in_session(registry, steps):
        schema = registry.get(listed.name).output_schema()
        assert listed.output_schema == schema
        jsonschema.Draft202012Validator.check_schema(schema)
        success, failure = schema["anyOf"]
        assert schema["type"] == "object" and set(success["required"]) <= set(schema["properties"])
        assert failure["required"] == ["error", "error_code"]


def test_calls_through_the_sdk_client_carry_structured_content_it_validates(tree):
    """The SDK client checks structuredContent against the listed outputSchema and raises on a mismatch."""
    p = str(tree)

    async def steps(client):
        calls = [
            ("Read", {"file_path": f"{p}/notes.txt", "limit": 1}),
            ("Read", {"file_path": f"{p}/dot.png"}),
            ("Read", {"file_path": f"{p}/doc.pdf", "pages": "2-3"}),
            ("Read", {"file_path": f"{p}/nb.ipynb"}),
            ("Write", {"file_path": f"{p}/new.txt", "content": "x\n"}),
            ("Edit", {"file_path": f"{p}/new.txt", "old_string": "x", "new_string": "y"}),
            ("MultiEdit", {"file_path": f"{p}/new.txt", "edits": [{"old_string": "y", "new_string": "z"}]}),
            ("LS", {"path": p, "limit": 1}),
            ("Glob", {"pattern": "**/*.py", "limit": 1}),
            ("Glob", {"pattern": "missing/**/*.py"}),
            ("Grep", {"pattern": "def ", "head_limit": 1}),
            ("Grep", {"pattern": "def ", "output_mode": "content", "-C": 1}),
            ("Grep", {"pattern": "def ", "output_mode": "count"}),
            ("Grep", {"pattern": "ONLYINBLOB"}),
            ("Delete", {"path": f"{p}/new.txt"}),
            ("Read", {"file_path": f"{p}/missing.txt"}),
        ]
        return [(name, await client.call_tool(name, args)) for name, args in calls]

    results = in_session(fstools.create_registry(), steps)
    for name, result in results[:-1]:
        assert not result.is_error, (name, result.content)
        assert isinstance(result.structured_content, dict) and "base64_data" not in result.structured_content
    by_call = [r.structured_content for _, r in results]
    assert by_call[0]["next_offset"] == 2 and by_call[0]["truncated"] is True
    assert by_call[1]["is_image"] is True and [c.type for c in results[1][1].content] == ["text", "image"]
    assert by_call[2]["pages"] == "2-3" and by_call[3]["is_notebook"] is True
    assert by_call[10]["total_files"] == 3 and by_call[10]["next_offset"] == 1
    assert "(Showing files 1-1 of 3: call again with offset=1 for more.)" in results[10][1].content[0].text
    assert by_call[13]["total_matches"] == 0 and by_call[13]["skipped"]["binary"] == 1
    assert "(warning: 1 binary file(s) contain the pattern" in results[13][1].content[0].text
    missing = results[-1][1]
    assert missing.is_error and missing.structured_content["error_code"] == "file_not_found"


def test_pdf_page_images_are_image_content_and_not_in_structured_content(tree):
    (tree / "scan.pdf").write_bytes(make_scanned_pdf(2, size=(200, 250)))

    async def steps(client):
        return await client.call_tool("Read", {"file_path": f"{tree}/scan.pdf"})

    result = in_session(fstools.create_registry(), steps)
    assert not result.is_error and [c.type for c in result.content] == ["text", "image", "image"]
    assert all(c.mime_type == "image/png" and base64.b64decode(c.data)[:4] == b"\x89PNG" for c in result.content[1:])
    # Listed without the data the image blocks carry (the client checked it against the outputSchema).
    assert result.structured_content["page_images"] == [
        {"page": 1, "mime_type": "image/png", "width": 300, "height": 375},
        {"page": 2, "mime_type": "image/png", "width": 300, "height": 375},
    ]


def _liar(ctx, **kwargs):
    return fstools.ToolResult.ok("out", count="three")


class Liar(fstools.FileTool):
    spec = ToolSpec(
        name="Liar",
        description="Declares an integer count and reports a string",
        parameters=(),
        run=_liar,
        read_only=True,
        results=(ResultField("count", "integer", "A count", always=True),),
    )


def test_the_client_refuses_metadata_that_breaks_the_schema(tree):
    """Shows the check above has teeth: a tool whose metadata does not fit its schema fails in the client."""
    registry = fstools.ToolRegistry()
    registry.register(Liar())

    async def steps(client):
        try:
            await client.call_tool("Liar", {})
        except RuntimeError as exc:
            return str(exc)
        return "accepted"

    assert in_session(registry, steps).startswith("Invalid structured content returned by tool Liar")


def _results(tree):
    """Results of every tool in its success paths, text and media, paged and whole, real and dry run."""
    ctx = fstools.ExecutionContext(working_dir=str(tree))
    dry = fstools.ExecutionContext(working_dir=str(tree), dry_run=True)
    p = str(tree)
    yield "Read", fstools.read(f"{p}/notes.txt", ctx=ctx)
    yield "Read", fstools.read(f"{p}/notes.txt", offset=2, limit=1, ctx=ctx)
    yield "Read", fstools.read(f"{p}/dot.png", ctx=ctx)
    yield "Read", fstools.read(f"{p}/doc.pdf", ctx=fstools.ExecutionContext(working_dir=p, pdf_max_pages=1))
    yield "Read", fstools.read(f"{p}/nb.ipynb", ctx=ctx)
    yield "Read", fstools.read(f"{p}/src/m1.py", symbol="f1", ctx=ctx)
    yield (
        "ReadMany",
        fstools.read_many(["notes.txt", "dot.png", "doc.pdf", "nb.ipynb", "src/*.py", "blob.bin"], ctx=ctx),
    )
    yield "ReadMany", fstools.read_many(["notes.txt", "nb.ipynb"], max_chars=2000, ctx=ctx)
    yield "Outline", fstools.outline(f"{p}/src/m1.py", ctx=ctx)
    yield "Outline", fstools.outline(p, ctx=ctx)
    yield "Symbols", fstools.symbols("f1", ctx=ctx)
    yield "Symbols", fstools.symbols("f", path=p, file_path=f"{p}/src/m1.py", line=1, limit=1, ctx=ctx)
    yield "References", fstools.references("f1", ctx=ctx)
    yield "References", fstools.references("f1", file_path=f"{p}/src/m1.py", line=1, limit=1, ctx=ctx)
    yield "NotebookEdit", fstools.notebook_edit(f"{p}/nb.ipynb", "x = 1", cell_id="cell-1", ctx=ctx)
    yield (
        "NotebookEdit",
        fstools.notebook_edit(f"{p}/nb.ipynb", "# Title", cell_type="markdown", edit_mode="insert", ctx=dry),
    )
    yield "Write", fstools.write(f"{p}/w.txt", "a\n", ctx=ctx)
    yield "Write", fstools.write(f"{p}/w.txt", "a\n", ctx=ctx)
    yield "Write", fstools.write(f"{p}/w.txt", "b\n", ctx=ctx, backup=True)
    yield "Write", fstools.write(f"{p}/w.txt", "c\n", ctx=dry)
    yield "Edit", fstools.edit(f"{p}/w.txt", "b", "c", ctx=ctx)
    yield "Edit", fstools.edit(f"{p}/w.txt", "c", "d", ctx=dry)
    yield "MultiEdit", fstools.multi_edit(f"{p}/w.txt", [{"old_string": "c", "new_string": "e"}], ctx=ctx)
    patch = "*** Begin Patch\n*** Add File: made.txt\n+made\n*** Update File: w.txt\n@@\n-e\n+f\n*** End Patch"
    yield "ApplyPatch", fstools.apply_patch(patch, ctx=dry)
    yield "ApplyPatch", fstools.apply_patch(patch, ctx=ctx)
    yield "Delete", fstools.delete(f"{p}/src", recursive=True, ctx=dry)
    yield "Delete", fstools.delete(f"{p}/w.txt", ctx=ctx)
    yield "Move", fstools.move(f"{p}/src", f"{p}/lib/src", ctx=dry)
    yield "Move", fstools.move(f"{p}/notes.txt", f"{p}/moved/notes.txt", ctx=ctx)
    yield "LS", fstools.ls(p, ctx=ctx)
    yield "LS", fstools.ls(p, limit=1, hidden=True, ctx=ctx)
    if HAS_FD:  # LS reads .gitignore through fd; test_ls_with_gitignore_fits_its_output_schema says so when skipped
        yield "LS", fstools.ls(p, respect_gitignore=True, ctx=ctx)
    yield "Glob", fstools.glob("**/*", ctx=ctx)
    yield "Glob", fstools.glob("**/*.py", limit=1, ctx=ctx)
    yield "Glob", fstools.glob("nowhere/*.py", ctx=ctx)
    for mode in ("files_with_matches", "count", "content"):
        yield "Grep", fstools.grep("def ", output_mode=mode, ctx=ctx)
        yield "Grep", fstools.grep("def ", output_mode=mode, head_limit=1, offset=1, ctx=ctx)
        yield "Grep", fstools.grep("def ", output_mode=mode, head_limit=0, ctx=ctx)
    yield "Grep", fstools.grep("absent words", ctx=ctx)
    yield "Grep", fstools.grep("return", path=f"{p}/src/m1.py", output_mode="content", ctx=ctx)


def test_every_result_fits_its_tools_output_schema(tree):
    registry = fstools.create_registry()
    seen = set()
    for name, result in _results(tree):
        assert result.success, (name, result.error)
        jsonschema.validate(result.metadata, registry.get(name).output_schema())
        seen.add(name)
    assert seen == set(registry.names())


@requires_fd
def test_ls_with_gitignore_fits_its_output_schema(tree):
    result = fstools.ls(str(tree), respect_gitignore=True, ctx=fstools.ExecutionContext(working_dir=str(tree)))
    assert result.success, result.error
    jsonschema.validate(result.metadata, fstools.create_registry().get("LS").output_schema())


def _failures(tree):
    """A failed call of every tool: missing files, a path outside the sandbox, a malformed patch, a bad regex."""
    p = str(tree)
    yield "Read", {"file_path": f"{p}/missing.txt"}
    yield "Write", {"file_path": "/outside/x.txt", "content": "x"}
    yield "Edit", {"file_path": f"{p}/missing.txt", "old_string": "a", "new_string": "b"}
    yield "MultiEdit", {"file_path": f"{p}/missing.txt", "edits": [{"old_string": "a", "new_string": "b"}]}
    yield "ApplyPatch", {"patch": "*** Begin Patch\n*** Delete File: missing.txt\n*** End Patch"}
    yield "Delete", {"path": f"{p}/missing.txt"}
    yield "Move", {"source": f"{p}/missing.txt", "destination": f"{p}/b.txt"}
    yield "LS", {"path": f"{p}/missing"}
    yield "Glob", {"pattern": "*", "path": f"{p}/missing"}
    yield "Grep", {"pattern": "(unclosed"}
    yield "ReadMany", {"paths": []}
    yield "Outline", {"path": f"{p}/notes.txt"}
    yield "Symbols", {"query": " "}
    yield "References", {"name": "f1", "file_path": f"{p}/dot.png"}
    yield "NotebookEdit", {"notebook_path": f"{p}/nb.ipynb", "new_source": "x", "cell_id": "nope"}


def test_error_results_fit_the_output_schema_too(tree):
    """Some clients (the TypeScript SDK) check an error result's structuredContent against the outputSchema."""
    registry = fstools.create_registry()
    ctx = fstools.ExecutionContext(working_dir=str(tree))
    seen = set()
    for name, arguments in _failures(tree):
        result = registry.run(name, ctx, **arguments)
        assert not result.success, name
        structured = call_result(result).structured_content
        jsonschema.validate(structured, registry.get(name).output_schema())
        assert structured["error_code"] == result.error_code
        seen.add(name)
    assert seen == set(registry.names())


def test_structured_content_over_stdio(tree, tmp_path):
    async def steps(session):
        return await session.call_tool("Grep", {"pattern": "def ", "output_mode": "count"})

    result = stdio_session(tree, steps, errlog=tmp_path / "err.log")
    assert not result.is_error
    assert result.structured_content["total_matches"] == 3 and len(result.structured_content["files"]) == 3
