"""The command line as a person meets it, in real subprocesses: help, notices, errors and exit codes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import fstools
from fstools._agents.cli import command_name
from tests.helpers.processes import fstools_cmd

MODEL_WORDING = ("must be an absolute path", "Absolute path", "=true", "=false", "metadata")


@pytest.fixture
def tree(project: Path) -> Path:
    (project / "src").mkdir()
    for i in range(5):
        path = project / "src" / f"m{i}.py"
        path.write_text(f"import os\ndef f{i}():\n    return {i}\n")
        os.utime(path, (1_000_000 + i, 1_000_000 + i))  # m4 newest
    (project / "long.txt").write_text("".join(f"line {n}\n" for n in range(1, 11)))
    (project / "blob.bin").write_bytes(b"\x00ONLYINBLOB\x00")
    return project


@pytest.mark.parametrize("command", ["read", "ls", "glob", "grep"])
def test_read_only_commands_offer_no_change_options(tree, command):
    done = fstools_cmd(command, "--help", cwd=tree)
    assert done.returncode == 0
    for option in ("--dry-run", "--ask", "--yes", "--read-only"):
        assert option not in done.stdout, option
    assert "--root" in done.stdout and "--deny" in done.stdout and "--json" in done.stdout


TOOLS = fstools.create_registry().list()


@pytest.mark.parametrize("command", [command_name(t.name) for t in TOOLS if not t.read_only])
def test_commands_that_change_files_offer_the_change_options(tree, command):
    done = fstools_cmd(command, "--help", cwd=tree)
    for option in ("--dry-run", "--ask", "--yes", "--read-only"):
        assert option in done.stdout, option


@pytest.mark.parametrize("tool", TOOLS, ids=lambda t: t.name)
def test_help_is_written_for_the_command_line(tree, tool):
    text = " ".join(fstools_cmd(command_name(tool.name), "--help", cwd=tree).stdout.split())
    for words in MODEL_WORDING:
        assert words not in text, words
    if any(p.path for p in tool.parameters):
        assert "relative to the current directory, or absolute" in text


def test_the_command_list_gives_each_tools_first_sentence(tree):
    text = " ".join(fstools_cmd("--help", cwd=tree).stdout.split())
    assert "glob Print the files matching PATTERN (e.g. '**/*.py', 'src/**/*.{ts,tsx}') under PATH" in text
    assert "grep Search the files under PATH" in text and "Exit status: 0 if" not in text


def test_help_names_flags(tree):
    assert "--recursive" in fstools_cmd("delete", "--help", cwd=tree).stdout
    assert "--offset is the first line" in fstools_cmd("read", "--help", cwd=tree).stdout
    grep = fstools_cmd("grep", "--help", cwd=tree).stdout
    assert "--fixed-strings" in grep and "0 if a line matched, 1 if none did, 2 on error" in " ".join(grep.split())


def test_notices_name_flags_and_go_to_stderr(tree):
    page = fstools_cmd("grep", "import", "--head-limit", "2", cwd=tree)
    assert page.returncode == 0
    assert page.stdout.splitlines() == [str((tree / "src" / f"m{i}.py").resolve()) for i in (4, 3)]
    assert page.stderr == "fstools grep: (Showing files 1-2 of 5: call again with --offset 2 for more.)\n"
    glob = fstools_cmd("glob", "**/*.py", "--limit", "1", cwd=tree)
    assert glob.stdout.strip() == str((tree / "src" / "m4.py").resolve())
    assert "narrow the pattern or raise --limit." in glob.stderr
    read = fstools_cmd("read", "long.txt", "--limit", "3", cwd=tree)
    assert read.stdout.splitlines()[-1] == "[Showing lines 1-3 of 10. Use --offset 4 to read more.]"
    ls = fstools_cmd("ls", "--limit", "1", cwd=tree)
    assert "more entries not shown (raise --limit to see them)" in ls.stdout


def test_warnings_name_flags(tree):
    (tree / ".hidden.py").write_text("ONLYHIDDEN\n")
    done = fstools_cmd("grep", "ONLYHIDDEN", cwd=tree)
    assert done.returncode == 1 and done.stdout == ""
    assert "fstools grep: No matches found" in done.stderr
    assert "(search them with --no-respect-gitignore and --hidden)" in done.stderr


def test_errors_name_flags(tree):
    done = fstools_cmd("delete", "src", cwd=tree)
    assert done.returncode == 1 and "Set --recursive to delete it" in done.stderr
    pdf_only = fstools_cmd("read", "long.txt", "--pages", "1", cwd=tree)
    assert "--pages applies to PDF files only; use --offset and --limit" in pdf_only.stderr


def test_grep_exits_as_rg_does(tree):
    found = fstools_cmd("grep", "return 3", cwd=tree)
    assert found.returncode == 0 and found.stdout.strip() == str((tree / "src" / "m3.py").resolve())
    none = fstools_cmd("grep", "no such words", cwd=tree)
    assert none.returncode == 1 and none.stdout == ""
    binary_only = fstools_cmd("grep", "ONLYINBLOB", cwd=tree)
    assert binary_only.returncode == 1 and "warning: 1 binary file(s) contain the pattern" in binary_only.stderr
    bad = fstools_cmd("grep", "foo(", cwd=tree)
    assert bad.returncode == 2 and "[invalid_regex]" in bad.stderr
    missing = fstools_cmd("grep", "x", "no/such/dir", cwd=tree)
    assert missing.returncode == 2 and "[file_not_found]" in missing.stderr


def test_a_bad_regex_is_shown_as_the_user_wrote_it(tree):
    unclosed = fstools_cmd("grep", "foo(", cwd=tree)
    assert "(?:" not in unclosed.stderr
    assert "Invalid regex pattern: foo(\nregex parse error:\n    foo(\nerror: unclosed group" in unclosed.stderr
    prop = fstools_cmd("grep", r"x\p{Foo}", cwd=tree)
    assert "    x\\p{Foo}\n     ^^^^^^^\nerror: Unicode property not found" in prop.stderr


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("read", "long.txt", "--limit", "abc"), "argument --limit: expected an integer"),
        (("read", "long.txt", "--limit", "0"), "argument --limit: must be >= 1, got 0"),
        (("grep", "x", "--head-limit", "-5"), "argument --head-limit: must be >= 0, got -5"),
        (("glob", "*.py", "--limit", "1.5"), "argument --limit: expected an integer"),
    ],
)
def test_bad_numbers_are_usage_errors(tree, argv, message):
    done = fstools_cmd(*argv, cwd=tree)
    assert done.returncode == 2 and message in done.stderr and done.stderr.startswith("usage: ")


def test_json_output_is_the_result_with_flag_notices(tree):
    """--json prints the ToolResult itself; its notice names flags too, next_offset serves programs."""
    done = fstools_cmd("grep", "import", "--head-limit", "2", "--json", cwd=tree)
    assert done.returncode == 0 and '"next_offset":2' in done.stdout and "--offset 2" in done.stdout


def test_an_option_is_never_guessed_from_its_first_letters(tree):
    """`--old-string X` is not an option; argparse would take it for `--old-string-file X` and read a file X."""
    before = (tree / "long.txt").read_bytes()
    done = fstools_cmd("edit", "long.txt", "--old-string", "line 1", "--new-string", "x", cwd=tree)
    assert done.returncode == 2 and "unrecognized arguments: --old-string" in done.stderr
    assert "cannot read" not in done.stderr and (tree / "long.txt").read_bytes() == before
