"""The `fstools` command line: generated from the ToolSpecs, in process and as a real subprocess."""

from __future__ import annotations

import io
import json
import runpy
import subprocess
import sys

import pytest

import fstools
from fstools._agents import cli as _cli
from fstools._agents.cli import build_parser, command_name, run
from tests.helpers.probes import probe_registry
from tests.helpers.processes import ENV, fstools_cmd


class Streams:
    """In-process stdin/stdout/stderr; stdin has a byte buffer like the real one."""

    def __init__(self, stdin: bytes = b"", tty: bool = False) -> None:
        self.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
        self.stdin.isatty = lambda: tty  # type: ignore[method-assign]
        self.stdout = io.StringIO()
        self.stderr = io.StringIO()

    def run(self, *argv: str, registry=None) -> int:
        return run(list(argv), registry=registry, stdin=self.stdin, stdout=self.stdout, stderr=self.stderr)

    def received(self) -> dict:
        """What a probe tool received (it echoes its arguments as JSON)."""
        return json.loads(self.stdout.getvalue())


@pytest.fixture
def in_project(project, monkeypatch):
    monkeypatch.chdir(project)
    return project


def test_command_names():
    assert [command_name(n) for n in ("Read", "MultiEdit", "LS", "Glob")] == ["read", "multi-edit", "ls", "glob"]


def test_help_lists_every_registered_tool():
    text = build_parser(fstools.create_registry()).parser.format_help()
    for tool in fstools.create_registry().list():
        assert command_name(tool.name) in text
    assert "mcp" in text


def test_options_come_from_the_parameters():
    parser = build_parser(probe_registry())
    text = parser.commands["probe"].format_help()
    for expected in (
        "FILE_PATH",
        "OLD_STRING",
        "--old-string-file PATH",
        "--new-string-file PATH",
        "--replace-all, --no-replace-all",
        "-i, --case-insensitive, --no-case-insensitive",
        "-n, --line-numbers",
        "-A, --after N" if sys.version_info >= (3, 13) else "-A N, --after N",  # 3.13 shows a metavar once
        "-x ",
        "{content,count}",
        "--tags VALUE",
        "(100% literal)",
        "(default: True)",
    ):
        assert expected in text, expected
    assert "--file-path-file" not in text


def test_required_values_positional_and_types_validated_by_the_tool(in_project):
    s = Streams()
    code = s.run(
        "probe",
        "f.txt",
        "old",
        "new",
        "--replace-all",
        "-i",
        "-A",
        "3",
        "-x",
        "--no-line-numbers",
        "--output-mode",
        "count",
        "--tags",
        "a",
        "--tags",
        "b",
        "--ratio",
        "0.5",
        "--options",
        '{"k": 1}',
        registry=probe_registry(),
    )
    assert code == 0, s.stderr.getvalue()
    assert s.received() == {
        "file_path": str(in_project / "f.txt"),
        "old_string": "old",
        "new_string": "new",
        "replace_all": True,
        "case_insensitive": True,
        "line_numbers": False,
        "after": 3,
        "-x": True,
        "output_mode": "count",
        "tags": ["a", "b"],
        "ratio": 0.5,
        "options": {"k": 1},
    }


def test_defaults_are_the_tools_own(in_project):
    s = Streams()
    assert s.run("probe", str(in_project / "f"), "a", "b", registry=probe_registry()) == 0
    got = s.received()
    assert got["replace_all"] is False and got["line_numbers"] is True and got["output_mode"] == "content"
    assert got["tags"] is None and got["case_insensitive"] is None


def test_array_as_json_text(in_project):
    s = Streams()
    edits = '[{"old_string": "a", "new_string": "b"}]'
    assert s.run("batch-edit", "f", edits, registry=probe_registry()) == 0
    assert s.received()["edits"] == [{"old_string": "a", "new_string": "b", "replace_all": False}]
    s = Streams()
    assert s.run("probe", "f", "a", "b", "--tags", '["x", "y"]', registry=probe_registry()) == 0
    assert s.received()["tags"] == ["x", "y"]


def test_values_from_files_and_stdin(in_project):
    (in_project / "old.txt").write_bytes(b"line 1\r\nline 2\n")
    s = Streams(stdin=b"nouveau\n")
    code = s.run("probe", "f", "--old-string-file", "old.txt", "--new-string-file", "-", registry=probe_registry())
    assert code == 0, s.stderr.getvalue()
    got = s.received()
    assert got["old_string"] == "line 1\r\nline 2\n" and got["new_string"] == "nouveau\n"
    # A positional after a --NAME-file fills the next parameter that still needs a value.
    s = Streams()
    assert s.run("probe", "f", "--old-string-file", "old.txt", "NEW", registry=probe_registry()) == 0
    assert s.received()["new_string"] == "NEW"
    s = Streams(stdin=b'[{"old_string": "x", "new_string": "y"}]')
    assert s.run("batch-edit", "f", "--edits-file", "-", registry=probe_registry()) == 0
    assert s.received()["edits"][0]["new_string"] == "y"


def test_a_mutating_command_counts_its_existing_file_as_read(in_project):
    (in_project / "there.txt").write_text("x")
    for name, expected in (("there.txt", True), ("absent.txt", False)):
        s = Streams()
        assert s.run("probe", name, "a", "b", "--json", registry=probe_registry()) == 0
        assert json.loads(s.stdout.getvalue())["metadata"]["was_read"] is expected
    s = Streams()
    assert s.run("scan", "x", "there.txt", "--json", registry=probe_registry()) == 0
    assert json.loads(s.stdout.getvalue())["metadata"]["was_read"] is False
    s = Streams()
    assert s.run("probe", "/etc/hosts", "a", "b", registry=probe_registry()) == 1
    assert "[path_outside_workspace]" in s.stderr.getvalue()


def test_optional_path_is_positional_and_relative_to_cwd(in_project):
    (in_project / "sub").mkdir()
    s = Streams()
    assert s.run("scan", "needle", "sub", registry=probe_registry()) == 0
    assert s.received() == {"pattern": "needle", "path": str(in_project / "sub")}
    s = Streams()
    assert s.run("scan", "needle", registry=probe_registry()) == 0
    assert s.received()["path"] is None


@pytest.mark.parametrize(
    ("argv", "stdin", "message"),
    [
        (["probe", "f", "a"], b"", "missing NEW_STRING: give it as an argument or with --new-string-file PATH"),
        (["probe", "f", "a", "b", "--new-string-file", "-"], b"x", "too many arguments: b"),
        (["probe", "f", "a", "--new-string-file", "nope.txt"], b"", "cannot read nope.txt"),
        (["probe", "f", "a", "--new-string-file", "-"], b"\xff\xfe\xfa", "stdin is not valid UTF-8"),
        (["probe", "f", "a", "b", "--deny", "Nope"], b"", "unknown tool in --deny rule: Nope"),
    ],
)
def test_usage_errors_exit_2(in_project, argv, stdin, message):
    s = Streams(stdin=stdin)
    assert s.run(*argv, registry=probe_registry()) == 2
    assert message in s.stderr.getvalue()
    assert s.stdout.getvalue() == ""


def test_argparse_errors_exit_2(in_project, capsys):
    with pytest.raises(SystemExit) as info:
        run(["probe", "f", "a", "b", "--output-mode", "bogus"], registry=probe_registry())
    assert info.value.code == 2
    with pytest.raises(SystemExit):
        run(["ls", "--root", str(in_project / "missing")])
    assert "not a directory" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        run(["ls", "--deny", ":**"])
    assert "needs a tool name" in capsys.readouterr().err


def test_no_command_prints_help(capsys):
    assert run([]) == 2
    assert "COMMAND" in capsys.readouterr().err


def test_numbers_out_of_bounds_or_not_numbers_are_usage_errors(in_project, capsys):
    for value, message in (("-1", "must be >= 0, got -1"), ("abc", "expected an integer")):
        with pytest.raises(SystemExit) as info:
            Streams().run("probe", "f", "a", "b", "-A", value, registry=probe_registry())
        assert info.value.code == 2
        assert f"argument -A/--after: {message}" in capsys.readouterr().err


def test_tool_validation_failure_is_exit_1_with_code(in_project):
    s = Streams()
    assert s.run("multi-edit", "f.txt", '[{"old_string": "a"}]') == 1
    assert "Missing required parameter: edits[0].new_string" in s.stderr.getvalue()
    assert "[invalid_argument]" in s.stderr.getvalue()


def test_json_output_is_the_full_tool_result(in_project):
    (in_project / "a.txt").write_text("x")
    s = Streams()
    assert s.run("ls", ".", "--json") == 0
    doc = json.loads(s.stdout.getvalue())
    assert doc["success"] is True and doc["error"] is None
    assert doc["metadata"]["path"] == str(in_project.resolve())
    assert [e["name"] for e in doc["metadata"]["entries"]] == ["a.txt"]
    s = Streams()
    assert s.run("ls", "/", "--json") == 1
    doc = json.loads(s.stdout.getvalue())
    assert doc["success"] is False and doc["error_code"] == "path_outside_workspace"


def test_roots_read_only_and_dry_run(in_project, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    s = Streams()
    assert s.run("ls", str(other), "--root", str(other)) == 0
    assert s.stdout.getvalue().startswith(f"{other.resolve()}/")
    s = Streams()
    assert s.run("probe", "f", "a", "b", "--read-only", registry=probe_registry()) == 1
    assert "read-only" in s.stderr.getvalue() and "[permission_denied]" in s.stderr.getvalue()
    s = Streams()
    assert s.run("probe", "f", "a", "b", "--dry-run", "--json", registry=probe_registry()) == 0
    assert json.loads(s.stdout.getvalue())["metadata"]["dry_run"] is True


def test_working_dir_outside_the_roots_falls_back_to_the_first_root(in_project, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "inside.txt").write_text("")
    s = Streams()
    assert s.run("ls", "--root", str(other)) == 0
    assert "inside.txt" in s.stdout.getvalue()


def test_permission_rules_on_the_command_line(in_project):
    registry = probe_registry()
    s = Streams()
    assert s.run("probe", "a.lock", "x", "y", "--deny", "Probe:**/*.lock", registry=registry) == 1
    assert "[permission_denied]" in s.stderr.getvalue()
    s = Streams()
    assert s.run("probe", "a.py", "x", "y", "--deny", "Probe:**/*.lock", registry=registry) == 0
    # ask without a terminal and without --yes: refused, and the diff was shown
    s = Streams()
    assert s.run("probe", "a.py", "x", "y", "--ask", "Probe,BatchEdit", registry=registry) == 1
    err = s.stderr.getvalue()
    assert f"Probe on {in_project.resolve() / 'a.py'}:\n-x\n+y" in err
    assert "stdin is not a terminal" in err and "[user_rejected]" in err
    s = Streams()
    assert s.run("probe", "a.py", "x", "y", "--ask", "*", "--yes", registry=registry) == 0
    assert "Confirmed by --yes" in s.stderr.getvalue()


@pytest.mark.parametrize(("answer", "code"), [(b"y\n", 0), (b"yes\n", 0), (b"n\n", 1), (b"\n", 1)])
def test_ask_on_a_terminal_prompts(in_project, answer, code):
    s = Streams(stdin=answer, tty=True)
    assert s.run("probe", "a.py", "x", "y", "--ask", "Probe", registry=probe_registry()) == code
    assert "Apply? [y/N]" in s.stderr.getvalue()


def test_audit_log_option(in_project, tmp_path):
    log = tmp_path / "audit.jsonl"
    Streams().run("ls", ".", "--audit-log", str(log))
    Streams().run("ls", "/etc", "--audit-log", str(log))
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(r["tool"], r["success"], r["error_code"]) for r in records] == [
        ("LS", True, None),
        ("LS", False, "path_outside_workspace"),
    ]
    assert records[0]["path"] == str(in_project.resolve())


def test_an_unwritable_audit_log_never_breaks_the_command(in_project, tmp_path):
    s = Streams()
    assert s.run("ls", ".", "--audit-log", str(tmp_path / "no-such-dir" / "audit.jsonl")) == 0
    assert s.stdout.getvalue().startswith(f"{in_project.resolve()}/")


def test_option_names_never_collide_with_session_options():
    """Building the parser over the real tools fails loudly if a parameter shadows --root, --json..."""
    for registry in (fstools.create_registry(), probe_registry()):
        build_parser(registry)


def test_main_uses_sys_streams(in_project, capsys):
    assert _cli.main(["ls", "."]) == 0
    assert capsys.readouterr().out.startswith(f"{in_project.resolve()}/")


def test_mcp_without_the_sdk_says_how_to_install_it(in_project, monkeypatch):
    monkeypatch.setitem(sys.modules, "mcp", None)  # fault injection: the optional extra is not installed
    monkeypatch.delitem(sys.modules, "fstools._agents.mcp", raising=False)
    s = Streams()
    assert s.run("mcp") == 2
    assert "pip install 'fstools[mcp]'" in s.stderr.getvalue()


def test_python_dash_m_runs_main(in_project, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["fstools", "ls", "--json"])
    with pytest.raises(SystemExit) as info:
        runpy.run_module("fstools", run_name="__main__")
    assert info.value.code == 0
    assert json.loads(capsys.readouterr().out)["success"] is True


# Real subprocesses ---------------------------------------------------------------------


def test_subprocess_help_and_ls(project):
    (project / "src").mkdir()
    (project / "src" / "m.py").write_text("x = 1\n")
    top = fstools_cmd("--help", cwd=project)
    assert top.returncode == 0 and "ls" in top.stdout and "mcp" in top.stdout
    listed = fstools_cmd("ls", "src", cwd=project)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines()[0] == f"{(project / 'src').resolve()}/"
    assert "m.py" in listed.stdout
    as_json = fstools_cmd("ls", "src", "--json", cwd=project)
    assert json.loads(as_json.stdout)["metadata"]["count"] == 1
    escape = fstools_cmd("ls", "..", cwd=project)
    assert escape.returncode == 1 and "[path_outside_workspace]" in escape.stderr and escape.stdout == ""
    bad = fstools_cmd("ls", "--limit", "x", cwd=project)
    assert bad.returncode == 2 and "argument --limit: expected an integer" in bad.stderr
    usage = fstools_cmd("nosuchtool", cwd=project)
    assert usage.returncode == 2


def test_import_fstools_loads_neither_the_cli_nor_the_sdk(tmp_path):
    heavy = ("mcp", "argparse", "anyio", "fstools._agents.cli", "fstools._agents.mcp")
    probe = f"import sys, fstools; print(sorted(m for m in {heavy!r} if m in sys.modules))"
    done = subprocess.run(
        [sys.executable, "-c", probe], env=ENV, cwd=tmp_path, capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize("bad", ["-5", "0", "nan", "soon"])
def test_timeout_must_be_positive(bad, capsys):
    from fstools._agents.cli import main

    with pytest.raises(SystemExit) as info:
        main(["glob", "*", "--timeout", bad])
    assert info.value.code == 2
    assert "positive number of seconds" in capsys.readouterr().err


def test_a_dash_as_content_reads_stdin(in_project):
    s = Streams(stdin=b"print(1)\n")
    assert s.run("write", "f.py", "-") == 0, s.stderr.getvalue()
    assert (in_project / "f.py").read_text() == "print(1)\n"
    s = Streams(stdin=b"print(2)\n")
    assert s.run("edit", "f.py", "print(1)\n", "-") == 0, s.stderr.getvalue()
    assert (in_project / "f.py").read_text() == "print(2)\n"
    # The help says so, for the content values only.
    write_help = build_parser(fstools.create_registry()).commands["write"].format_help()
    assert "The file's whole new content; '-' reads it from stdin" in " ".join(write_help.split())


def test_only_one_value_comes_from_stdin_and_a_search_pattern_stays_a_dash(in_project):
    (in_project / "f.txt").write_text("a - b\n")
    s = Streams(stdin=b"x")
    assert s.run("edit", "f.txt", "-", "-") == 2
    assert "only one value can come from stdin ('-'): OLD_STRING and NEW_STRING" in s.stderr.getvalue()
    s = Streams(stdin=b"x")
    assert s.run("edit", "f.txt", "--old-string-file", "-", "-") == 2
    assert (in_project / "f.txt").read_text() == "a - b\n"
    s = Streams(stdin=b"never read")
    assert s.run("grep", "-", "f.txt") == 0, s.stderr.getvalue()
    assert s.stdout.getvalue().strip().endswith("f.txt")


def test_subprocess_write_from_a_pipe(project):
    done = fstools_cmd("write", "g.py", "-", cwd=project, stdin="print(1)\n")
    assert done.returncode == 0, done.stderr
    assert (project / "g.py").read_text() == "print(1)\n"
