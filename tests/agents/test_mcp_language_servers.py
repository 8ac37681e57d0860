"""`fstools mcp --language-servers`: on by default, the semantic check in the result a client gets."""

from __future__ import annotations

from pathlib import Path

import pytest

import fstools
from fstools._agents.cli import build_parser
from fstools._agents.settings import SessionSettings
from fstools._agents.toolset import create_registry
from fstools._core.context import front_end_language_servers
from tests.helpers.processes import mcp_text, stdio_session
from tests.helpers.servers import requires_server


def test_the_mcp_server_and_the_adapters_default_to_auto(tmp_path: Path, monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.delenv("FSTOOLS_LANGUAGE_SERVERS", raising=False)
    assert fstools.ExecutionContext(working_dir=str(tmp_path)).language_servers is None  # the library: off
    assert front_end_language_servers(fstools.ExecutionContext(working_dir=str(tmp_path))).language_servers == "auto"
    chosen = fstools.ExecutionContext(working_dir=str(tmp_path), language_servers="off")
    assert front_end_language_servers(chosen).language_servers == "off"
    monkeypatch.setenv("FSTOOLS_LANGUAGE_SERVERS", "off")
    assert front_end_language_servers(fstools.ExecutionContext(working_dir=str(tmp_path))).language_servers == "off"
    parser = build_parser(create_registry(journal=True)).parser
    assert parser.parse_args(["mcp"]).language_servers is None
    assert parser.parse_args(["mcp", "--language-servers", "off"]).language_servers == "off"
    settings = SessionSettings(language_servers="auto", lsp_timeout=7)
    ctx = settings.context(cwd=str(tmp_path))
    assert (ctx.language_servers, ctx.lsp_timeout) == ("auto", 7)
    with pytest.raises(ValueError, match="--lsp-timeout"):
        SessionSettings(lsp_timeout=0).context(cwd=str(tmp_path))


def test_a_bad_setting_is_a_clear_error(tmp_path: Path):  # type: ignore[no-untyped-def]
    for bad, words in (
        ("on", "must be 'off', 'auto'"),
        ({"cobol": ["x"]}, "unknown language 'cobol'"),
        ({"python": "pyright"}, "must be a command line"),
        ({"python": [[]]}, "must be a command line"),
    ):
        with pytest.raises(ValueError, match=words):
            fstools.ExecutionContext(working_dir=str(tmp_path), language_servers=bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="lsp_timeout"):
        fstools.ExecutionContext(working_dir=str(tmp_path), lsp_timeout=0)


@requires_server("python")
def test_an_edit_through_the_mcp_server_gets_the_servers_errors(tmp_path: Path):  # type: ignore[no-untyped-def]
    app = tmp_path / "app.py"
    app.write_text("def greet(name: str) -> str:\n    return 'hi ' + name\n")

    async def steps(session):  # type: ignore[no-untyped-def]
        await session.call_tool("Read", {"file_path": str(app)})
        first = await session.call_tool(
            "Edit", {"file_path": str(app), "old_string": "'hi '", "new_string": "'hello '"}
        )
        second = await session.call_tool(
            "Edit", {"file_path": str(app), "old_string": "+ name", "new_string": "+ nmae"}
        )
        return first, second

    _, second = stdio_session(
        tmp_path, steps, "--language-servers", "auto", "--lsp-timeout", "60", errlog=tmp_path / "err.log"
    )
    assert not second.is_error
    assert second.structured_content["semantic_check"]["state"] == "done"
    assert '"nmae" is not defined [basedpyright]' in mcp_text(second)
    assert second.structured_content["diagnostics"][0]["source"] == "basedpyright"


@requires_server("python")
def test_symbols_through_the_mcp_server_are_resolved_by_the_server(tmp_path: Path):  # type: ignore[no-untyped-def]
    (tmp_path / "jobs.py").write_text(
        "class Fast:\n    def run(self) -> int:\n        return 1\n\n\nclass Slow:\n    def run(self) -> int:\n"
        "        return 2\n"
    )
    main = tmp_path / "main.py"
    main.write_text("from jobs import Slow\n\n\ndef main() -> int:\n    return Slow().run()\n")

    async def steps(session):  # type: ignore[no-untyped-def]
        where = {"query": "run", "exact": True, "file_path": str(main), "line": 5}
        return await session.call_tool("Symbols", where), await session.call_tool("Symbols", {**where, "line": 1})

    resolved, unplaced = stdio_session(
        tmp_path, steps, "--language-servers", "auto", "--lsp-timeout", "60", errlog=tmp_path / "err.log"
    )
    assert resolved.structured_content["resolution"] == "language_server", resolved.structured_content
    assert [s["qualified_name"] for s in resolved.structured_content["symbols"]] == ["Slow.run"]
    assert "Fast.run" not in mcp_text(resolved)
    assert unplaced.structured_content["resolution"] == "name"
    assert "is not on line 1" in unplaced.structured_content["resolution_reason"]
    assert "(Ranked by name: " in mcp_text(unplaced)
