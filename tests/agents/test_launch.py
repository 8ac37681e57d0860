"""A fresh `fstools` process: --version and the command list load no tool, a command only its own."""

from __future__ import annotations

import subprocess
import sys

import pytest

from fstools._agents.cli import build_parser, command_name
from fstools._agents.clitable import COMMANDS
from fstools._agents.launch import listing_parser
from fstools._agents.toolset import create_registry
from tests.helpers.processes import ENV


def test_the_table_is_the_command_line(monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    whole = build_parser(create_registry(journal=True))
    listed = [(action.dest, action.help) for action in whole.parser._subparsers._group_actions[0]._choices_actions]
    assert list(COMMANDS) == listed, f"fstools/_agents/clitable.py should list: {listed!r}"
    assert listing_parser().format_help() == whole.parser.format_help()


def test_each_tool_command_is_its_function_name():
    # A command line loads only the tool its subcommand names, found by its public function.
    from fstools._agents.toolset import FILE_TOOLS, JOURNAL_TOOLS

    names = [command_name(tool.name).replace("-", "_") for tool in create_registry(journal=True).list()]
    assert names == [*FILE_TOOLS, *JOURNAL_TOOLS]


def _loaded_after(code: str) -> list[str]:
    probe = (
        "import sys\n"
        f"try:\n    {code}\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith('fstools.') or m in ('orjson', 'numpy', 'mcp')), "
        "file=sys.stderr)"
    )
    done = subprocess.run([sys.executable, "-c", probe], env=ENV, capture_output=True, text=True, timeout=60)
    return eval(done.stderr.strip().splitlines()[-1])  # our own probe's printed list


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["-h"], []])
def test_version_and_help_load_no_tool(argv):
    loaded = _loaded_after(f"from fstools._agents.launch import main; main({argv!r})")
    assert loaded == ["fstools.__version__", "fstools._agents", "fstools._agents.clitable", "fstools._agents.launch"]


def test_a_command_loads_only_its_tool(tmp_path):
    loaded = _loaded_after(f"from fstools._agents.launch import main; main(['ls', {str(tmp_path)!r}])")
    assert "fstools._find.ls" in loaded
    assert not [m for m in loaded if m.startswith(("fstools._grep", "fstools._change.", "fstools._read."))]


def test_version_and_help_print_what_argparse_prints(capsys):
    from fstools import __version__
    from fstools._agents.launch import main

    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0 and capsys.readouterr().out == f"fstools {__version__}\n"
    assert main([]) == 2 and "grep" in capsys.readouterr().err


def test_a_rule_may_name_a_tool_the_command_did_not_load(tmp_path, capsys):
    from fstools._agents.launch import main

    assert main(["ls", str(tmp_path), "--root", str(tmp_path), "--deny", "Edit"]) == 0
    assert main(["ls", str(tmp_path), "--root", str(tmp_path), "--deny", "Nope"]) == 2
    assert "unknown tool in --deny rule: Nope (tools: Read, ReadMany" in capsys.readouterr().err
