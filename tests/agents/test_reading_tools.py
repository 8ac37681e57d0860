"""ReadMany, Outline and NotebookEdit (and Read's symbol) through every front end: the registry's schemas
(strict too), the MCP server (the SDK's own client), the command line (a real subprocess)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import anyio
import jsonschema
import nbformat
import pytest
from mcp import Client
from nbformat.v4 import new_code_cell, new_notebook
from PIL import Image

import fstools
from fstools._agents.mcp import create_server
from fstools._agents.settings import SessionSettings
from tests.helpers.processes import fstools_cmd
from tests.helpers.processes import mcp_text as text
from tests.helpers.trees import write

NEW_TOOLS = ("ReadMany", "Outline", "NotebookEdit")


@pytest.fixture
def in_project(project: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(project)
    write(project / "src/app.py", "class App:\n    def run(self):\n        return 1\n")
    write(project / "src/util.py", "def helper():\n    pass\n")
    out = io.BytesIO()
    Image.new("RGB", (8, 8), (0, 0, 255)).save(out, "PNG")
    write(project / "dot.png", out.getvalue())
    nbformat.write(new_notebook(cells=[new_code_cell("x = 1", execution_count=1)]), str(project / "nb.ipynb"))
    return project


@pytest.mark.parametrize("provider", ["openai", "openai-responses", "anthropic"])
def test_schemas_of_the_new_tools(provider):
    registry = fstools.create_registry()
    names = [schema.get("name") or schema["function"]["name"] for schema in registry.get_all_schemas(provider)]
    assert set(NEW_TOOLS) <= set(names)
    if provider != "anthropic":
        for schema in registry.get_all_schemas(provider, strict=True):
            name = schema.get("name") or schema["function"]["name"]
            if name in NEW_TOOLS:
                parameters = schema.get("parameters") or schema["function"]["parameters"]
                assert parameters["additionalProperties"] is False
                assert set(parameters["required"]) == set(parameters["properties"])
                jsonschema.Draft202012Validator.check_schema(parameters)
    read = next(s for s in registry.get_all_schemas("anthropic") if s["name"] == "Read")
    assert "symbol" in read["input_schema"]["properties"]


def _session(steps):
    async def main():
        async with Client(create_server(SessionSettings()), mode="legacy") as client:
            return await steps(client)

    return anyio.run(main)


def test_the_new_tools_over_mcp(in_project):
    async def steps(client):
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        many = await client.call_tool("ReadMany", {"paths": ["src/*.py", "dot.png"]})
        outline = await client.call_tool("Outline", {"path": str(in_project / "src")})
        symbol = await client.call_tool("Read", {"file_path": str(in_project / "src/app.py"), "symbol": "App.run"})
        edit = await client.call_tool(
            "NotebookEdit", {"notebook_path": str(in_project / "nb.ipynb"), "new_source": "x = 2", "cell_id": "cell-0"}
        )
        return listed, many, outline, symbol, edit

    listed, many, outline, symbol, edit = _session(steps)
    assert set(NEW_TOOLS) <= set(listed)
    assert listed["ReadMany"].annotations.read_only_hint is True
    assert listed["NotebookEdit"].annotations is None  # MCP's defaults: not read-only, destructive
    assert not many.is_error and f"==> {in_project}/src/app.py <==\n     1\tclass App:" in text(many)
    assert [block.type for block in many.content] == ["text", "image"]  # the PNG as an image block
    assert many.structured_content["files"] == [
        f"{in_project}/src/app.py",
        f"{in_project}/src/util.py",
        f"{in_project}/dot.png",
    ]
    assert "  1-3  class App\n  2-3    def run(self)" in text(outline)
    assert outline.structured_content["symbols"][0]["name"] == "App"
    assert text(symbol) == "     2\t    def run(self):\n     3\t        return 1"
    assert edit.is_error and "(error_code: not_read)" in text(edit)  # the notebook was not read in this session


def test_the_new_tools_on_the_command_line(in_project):
    many = fstools_cmd("read-many", "src/app.py", "src/util.py", "--max-chars", "5000", cwd=in_project)
    assert many.returncode == 0, many.stderr
    assert many.stdout.startswith(f"==> {in_project}/src/app.py <==\n     1\tclass App:\n")
    outline = fstools_cmd("outline", "src/app.py", cwd=in_project)
    assert outline.returncode == 0 and outline.stdout == "  1-3  class App\n  2-3    def run(self)\n"
    symbol = fstools_cmd("read", "src/util.py", "--symbol", "helper", "--json", cwd=in_project)
    assert json.loads(symbol.stdout)["metadata"]["symbol"] == "helper"
    edit = fstools_cmd("notebook-edit", "nb.ipynb", "y = 3", "--cell-id", "cell-0", cwd=in_project)
    assert edit.returncode == 0, edit.stderr  # a command names its file: it counts as read
    cell = nbformat.read(str(in_project / "nb.ipynb"), 4).cells[0]
    assert cell.source == "y = 3" and cell.outputs == [] and cell.execution_count is None
