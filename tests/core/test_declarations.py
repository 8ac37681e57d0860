"""Every fact about a tool is declared once, on its spec, and the layers below read it from there.

The facade's list of tools is the one place a tool is listed; a path parameter (one path or a
list of them) is one declaration that validation, the audit log, the command line and the MCP
server all follow; the code that serves every tool names none of them.
"""

from __future__ import annotations

import ast
import asyncio
import io
import json
import pickle
from pathlib import Path

import pytest

import fstools
from fstools._agents.cli import run as run_cli
from fstools._agents.mcpwire import PathQueues
from fstools._agents.toolset import FILE_TOOLS, JOURNAL_TOOLS
from fstools._core.params import ToolParameter
from fstools._core.spec import named_paths
from tests.helpers.extras import skip_reason
from tests.helpers.probes import gather, gather_registry

PACKAGE = Path(fstools.__file__).parent
TOOL_NAMES = frozenset(fstools.create_registry(journal=True).names())


def _tool_names_in(source: str) -> list[tuple[int, str]]:
    """(line, value) of every string literal in `source` that is a tool's name."""
    return [
        (node.lineno, node.value)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in TOOL_NAMES
    ]


@pytest.mark.parametrize("family", ["_core", "_agents"])
def test_no_tool_name_is_a_string_literal_where_every_tool_is_served(family):
    """_core and _agents serve every tool alike: what they need to know about one is on its spec.

    (An adapter that calls a tool calls its function, `edit(...)`, and asks permission with its
    spec, `edit.spec`, so it needs no name either.)
    """
    found = [
        f"{path.relative_to(PACKAGE)}:{line}: {value!r}"
        for path in sorted((PACKAGE / family).rglob("*.py"))
        for line, value in _tool_names_in(path.read_text())
    ]
    assert found == []


def test_the_literal_check_sees_a_tool_name():
    """The check above finds a name as a key, in a tuple, as a default and as a journal tool's."""
    source = 'RULES = {"MultiEdit": ("Edit",)}\ndef f(tool="Undo"):\n    return "Checkpoint " + "Grep"\n'
    assert sorted(_tool_names_in(source)) == [(1, "Edit"), (1, "MultiEdit"), (2, "Undo"), (3, "Grep")]
    assert {"Checkpoint", "Changes", "Rewind", "Undo", "ReadMany", "Outline", "NotebookEdit"} <= TOOL_NAMES


# The facade is the list of tools -----------------------------------------------------------


def _type_checking_imports() -> dict[str, str]:
    """Name -> module of every import under `if TYPE_CHECKING:` in the facade."""
    tree = ast.parse((PACKAGE / "__init__.py").read_text())
    block = next(n for n in tree.body if isinstance(n, ast.If) and getattr(n.test, "id", "") == "TYPE_CHECKING")
    return {alias.name: node.module for node in block.body if isinstance(node, ast.ImportFrom) for alias in node.names}


def test_each_tool_of_the_list_is_public_lazy_and_typed():
    imports = _type_checking_imports()
    for function, module in FILE_TOOLS.items():
        assert function in fstools.__all__, function
        assert imports[function] == f"_{module[1:]}" if module.startswith("_") else module
        declared = getattr(fstools, function)
        assert declared.__module__ == f"fstools.{module}" and declared.spec.run is not None
    assert set(fstools.__all__) == set(imports) | {"__version__"}


def test_the_registry_is_the_list_in_order():
    specs = [getattr(fstools, function).spec for function in FILE_TOOLS]
    registry = fstools.create_registry()
    assert registry.names() == [spec.name for spec in specs]
    assert [tool.spec for tool in registry.list()] == specs
    # One way to make a tool object: FileTool(spec), for every tool.
    assert {type(tool) for tool in registry.list()} == {fstools.FileTool}


def _former_class_names() -> set[str]:
    """The names the facade's second TYPE_CHECKING block gives type checkers for the deprecated classes."""
    tree = ast.parse((PACKAGE / "__init__.py").read_text())
    blocks = [n for n in tree.body if isinstance(n, ast.If) and getattr(n.test, "id", "") == "TYPE_CHECKING"]
    return {t.id for node in blocks[1].body if isinstance(node, ast.Assign) for t in node.targets}


def test_the_former_tool_classes_still_work_and_warn():
    registry = fstools.create_registry(journal=True)
    names = set()
    for function in {**FILE_TOOLS, **JOURNAL_TOOLS}:
        spec = getattr(fstools, function).spec
        name = f"{spec.name}Tool"
        names.add(name)
        assert name not in fstools.__all__ and name not in dir(fstools), name
        with pytest.warns(
            DeprecationWarning,
            match=rf"fstools\.{name} is deprecated: use fstools\.FileTool\(fstools\.{function}\.spec\)",
        ):
            cls = getattr(fstools, name)
        assert issubclass(cls, fstools.FileTool) and cls.spec is spec
        assert isinstance(registry.get(spec.name), cls) and isinstance(cls(), cls) and cls().spec is spec
        assert not isinstance(fstools.FileTool(gather.spec), cls)
    assert names == _former_class_names()
    with pytest.warns(DeprecationWarning):
        from fstools import GrepTool
    with pytest.warns(DeprecationWarning):
        assert fstools.GrepTool is GrepTool

    class Mine(GrepTool):
        """A user's subclass of a former class: an ordinary class, its own instances only."""

    assert isinstance(Mine(), GrepTool) and not isinstance(fstools.FileTool(fstools.grep.spec), Mine)
    assert Mine().run(None, pattern="x", path=str(PACKAGE / "__version__.py")).success
    for unknown in ("NopeTool", "Tool", "GatherTool"):
        with pytest.raises(AttributeError, match=f"no attribute '{unknown}'"):
            getattr(fstools, unknown)


def test_type_checkers_take_the_former_tool_classes_as_classes(tmp_path: Path):
    """Code written for the former classes still type-checks: each is FileTool to mypy, usable as a
    type, a base class and a constructor."""
    mypy_api = pytest.importorskip("mypy.api", reason=skip_reason("mypy.api"))
    user = tmp_path / "user.py"
    user.write_text(
        "from fstools import FileTool, GrepTool, LSTool, WriteTool\n\n\n"
        "def make() -> GrepTool:\n    return GrepTool()\n\n\n"
        "class Mine(LSTool):\n    pass\n\n\n"
        "tools: list[FileTool] = [make(), Mine(), WriteTool()]\n"
    )
    argv = ["--strict", "--no-incremental", "--follow-imports=silent", str(user)]
    out, err, status = mypy_api.run(argv)
    assert status == 0, out + err


def test_tool_objects_and_the_registry_pickle_as_the_former_classes_did(tmp_path: Path):
    """A registry (or one tool) sent to another process: each tool comes back with its own spec."""
    registry = fstools.create_registry(journal=True)
    copied = pickle.loads(pickle.dumps(registry))
    assert copied.names() == registry.names()
    assert all(mine.spec is theirs.spec for mine, theirs in zip(copied.list(), registry.list(), strict=True))
    tool = pickle.loads(pickle.dumps(fstools.FileTool(fstools.grep.spec)))
    assert tool.spec is fstools.grep.spec and isinstance(tool, fstools.FileTool)
    (tmp_path / "a.txt").write_text("needle\n")
    assert tool.run(fstools.ExecutionContext(working_dir=str(tmp_path)), pattern="needle").success
    assert pickle.loads(pickle.dumps(gather.spec)) is gather.spec


def test_a_tool_without_a_class_of_its_own_is_a_file_tool():
    tool = fstools.FileTool(gather.spec)
    assert tool.name == "Gather" and tool.read_only and tool.parameters[0].path_list


# Path parameters: one path or a list of them, declared once ---------------------------------


def test_a_path_is_a_string_or_a_list_of_strings():
    assert ToolParameter("p", "string", "d", path=True).path and not ToolParameter("p", "string", "d").path
    assert ToolParameter("p", "array", "d", path=True).path_list
    for bad in (
        dict(type="integer"),
        dict(type="object"),
        dict(type="array", item_type="integer"),
        dict(type="array", items=(ToolParameter("k", "string", "d"),)),
    ):
        with pytest.raises(ValueError, match="path"):
            ToolParameter("p", description="d", path=True, **bad)


def test_each_path_of_a_list_is_checked_like_a_single_path(ctx, project):
    result = gather([str(project / "a"), "/x/b\x00"], ctx=ctx)
    assert result.error_code == "invalid_path" and "Invalid path 'paths[1]'" in result.error
    # A string that is not a path keeps its own code.
    probe = ToolParameter("names", "array", "d")
    from fstools._core.params import validate_arguments

    with pytest.raises(fstools._core.errors.ToolError) as info:
        validate_arguments([probe], {"names": ["a\x00"]})
    assert info.value.code == fstools.ErrorCode.INVALID_ARGUMENT


def test_named_paths_reads_every_path_parameter_in_order():
    parameters = (
        ToolParameter("source", "string", "d", path=True),
        ToolParameter("pattern", "string", "d"),
        ToolParameter("more", "array", "d", path=True),
    )
    args = {"source": "/a", "pattern": "/not-a-path", "more": ["/b", 3, "/c"]}
    assert list(named_paths(parameters, args)) == ["/a", "/b", "/c"]
    assert list(named_paths(parameters, {})) == []


def test_the_audit_log_records_every_path_of_a_list(ctx, project, tmp_path):
    records = []
    ctx.audit_hook = records.append
    ctx.audit_log = str(tmp_path / "audit.jsonl")
    (project / "a").write_text("a")
    paths = [str(project / "a"), str(project / "b")]
    assert gather(paths, ctx=ctx).success
    assert records[0].tool == "Gather" and records[0].path == paths[0] and records[0].paths == tuple(paths)
    fstools.read(paths[0], ctx=ctx)
    assert records[1].paths == ()
    lines = [json.loads(line) for line in Path(ctx.audit_log).read_text().splitlines()]
    assert lines[0]["paths"] == paths and "paths" not in lines[1]  # a single path's line is as it was


def test_the_command_line_takes_a_list_of_paths_relative_to_the_current_directory(project, monkeypatch):
    monkeypatch.chdir(project)
    (project / "sub").mkdir()
    (project / "sub" / "y.txt").write_text("y")
    out, err = io.StringIO(), io.StringIO()
    code = run_cli(["gather", "x.txt", "sub/y.txt", "--limit", "3"], registry=gather_registry(), stdout=out, stderr=err)
    assert code == 0, err.getvalue()
    assert json.loads(out.getvalue()) == {"paths": [str(project / "x.txt"), str(project / "sub/y.txt")], "limit": 3}


def test_the_command_line_exit_status_follows_the_declared_match_count(project, monkeypatch):
    """`cli_match_count`: a search whose count is zero exits 1 and says so on stderr, as grep does."""
    monkeypatch.chdir(project)
    out, err = io.StringIO(), io.StringIO()
    assert run_cli(["gather", "missing.txt"], registry=gather_registry(), stdout=out, stderr=err) == 1
    assert out.getvalue() == "" and "missing.txt" in err.getvalue()
    (project / "here.txt").write_text("")
    assert run_cli(["gather", "here.txt"], registry=gather_registry(), stdout=io.StringIO(), stderr=err) == 0
    with pytest.raises(SystemExit) as usage:  # argparse's own usage error: a required list of paths is missing
        run_cli(["gather"], registry=gather_registry(), stdout=out, stderr=err)
    assert usage.value.code == 2


# The MCP server's per-file order -------------------------------------------------------------


def _keys(*paths: str) -> list[str]:
    return PathQueues.keys(gather.spec.parameters, {"paths": list(paths)})


def test_the_files_a_call_names_are_its_declared_paths():
    assert _keys("/p/b", "/p/./a", "/p/b") == ["/p/a", "/p/b"]
    assert PathQueues.keys(fstools.move.spec.parameters, {"source": "/p/a", "destination": "/p/b"}) == ["/p/a", "/p/b"]
    assert PathQueues.keys(fstools.grep.spec.parameters, {"pattern": "/p/a"}) == []
    assert PathQueues.keys(fstools.read.spec.parameters, {"file_path": "/p/a\x00"}) == []


def _run_calls(plan):
    """Start calls in the order given, each (name, keys, delay); returns the order they ran in."""
    order: list[str] = []

    async def main():
        queues = PathQueues()

        async def call(name, keys, seconds):
            async with queues.turn(keys):
                order.append(f"{name}+")
                await asyncio.sleep(seconds)
                order.append(f"{name}-")

        tasks = []
        for name, keys, seconds in plan:
            tasks.append(asyncio.create_task(call(name, keys, seconds)))
            await asyncio.sleep(0)  # this call has arrived before the next one
        await asyncio.gather(*tasks)
        assert queues._last == {}

    asyncio.run(main())
    return order


def test_a_call_on_a_list_of_files_waits_for_the_earlier_calls_on_any_of_them():
    order = _run_calls([("A", _keys("/p/x"), 0.05), ("B", _keys("/p/x", "/p/y"), 0.0), ("C", _keys("/p/y"), 0.0)])
    # B named x after A: it waits; C named y after B: it waits for B, although y was free.
    assert order == ["A+", "A-", "B+", "B-", "C+", "C-"]
    order = _run_calls([("A", _keys("/p/x"), 0.05), ("D", _keys("/p/z"), 0.0)])
    assert order == ["A+", "D+", "D-", "A-"]


def test_a_cancelled_call_still_holds_back_the_calls_behind_it():
    order: list[str] = []

    async def main():
        queues = PathQueues()
        release = asyncio.Event()

        async def call(name, keys, wait=None):
            async with queues.turn(keys):
                order.append(f"{name}+")
                if wait is not None:
                    await wait.wait()
                order.append(f"{name}-")

        first = asyncio.create_task(call("A", _keys("/p/x"), release))
        await asyncio.sleep(0)
        second = asyncio.create_task(call("B", _keys("/p/x", "/p/y")))
        await asyncio.sleep(0)
        third = asyncio.create_task(call("C", _keys("/p/y")))
        await asyncio.sleep(0.01)
        second.cancel()  # B leaves the queue while A still runs
        await asyncio.sleep(0.01)
        assert order == ["A+"]  # C waits: B stood behind A, so C does too
        release.set()
        await asyncio.gather(first, third, return_exceptions=True)
        await asyncio.sleep(0)
        assert queues._last == {}

    asyncio.run(main())
    assert order == ["A+", "A-", "C+", "C-"]
