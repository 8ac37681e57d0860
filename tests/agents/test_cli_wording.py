"""What a person at the command line reads: options named as flags, each path once, help per action."""

from __future__ import annotations

import sys

import pytest

from fstools._core.hints import as_flags
from tests.agents.test_cli import Streams
from tests.helpers.processes import fstools_cmd


@pytest.fixture
def in_project(project, monkeypatch):
    monkeypatch.chdir(project)
    return project


def test_move_onto_an_existing_file_names_the_flag(in_project):
    (in_project / "a.py").write_text("a\n")
    (in_project / "b.py").write_text("b\n")
    s = Streams()
    assert s.run("move", "a.py", "b.py") == 1
    err = s.stderr.getvalue()
    assert "--overwrite" in err and "overwrite=true" not in err


def test_an_ambiguous_edit_names_the_replace_all_flag(in_project):
    (in_project / "a.py").write_text("x = 1\nx = 1\n")
    s = Streams()
    assert s.run("edit", "a.py", "x = 1", "x = 2") == 1
    err = s.stderr.getvalue()
    assert "set --replace-all" in err and "replace_all=true" not in err


def test_a_placeholder_refusal_names_its_flag(in_project):
    (in_project / "a.py").write_text("x = 1\n")
    s = Streams()
    assert s.run("edit", "a.py", "x = 1", "# ... rest of code ...") == 1
    err = s.stderr.getvalue()
    assert "--allow-placeholders" in err and "allow_placeholders=true" not in err


def test_models_still_read_parameters(project):
    import fstools

    (project / "a.py").write_text("x = 1\nx = 1\n")
    ctx = fstools.ExecutionContext(working_dir=str(project))
    fstools.read(str(project / "a.py"), ctx=ctx)
    assert "replace_all=true" in fstools.edit(str(project / "a.py"), "x = 1", "y", ctx=ctx).error


def test_as_flags_rewrites_only_the_named_parameters():
    names = ["replace_all", "offset", "glob", "-i"]
    assert as_flags("set replace_all=true or offset=10", names) == "set --replace-all or --offset 10"
    assert as_flags('hidden=false; glob="*.py"', names) == "hidden=false; --glob '*.py'"
    assert as_flags("my_replace_all=true", names) == "my_replace_all=true"
    assert as_flags("replace_all=false", names) == "--no-replace-all"
    assert as_flags("anything", []) == "anything"


def test_deleting_a_file_names_it_once(in_project):
    (in_project / "b.py").write_text("b\n")
    s = Streams()
    assert s.run("delete", "b.py") == 0
    out = s.stdout.getvalue()
    assert out == f"Deleted file {in_project.resolve() / 'b.py'}\n"


def test_deleting_a_tree_lists_what_went(in_project):
    (in_project / "d" / "e").mkdir(parents=True)
    (in_project / "d" / "e" / "f.txt").write_text("f")
    s = Streams()
    assert s.run("delete", "d", "--recursive") == 0
    lines = s.stdout.getvalue().splitlines()
    assert lines[0].startswith("Deleted directory ") and lines[-1].endswith("/d/e/f.txt")


def test_index_build_help_is_the_build_actions(project):
    out = fstools_cmd("index", "build", "--help", cwd=project)
    assert out.returncode == 0
    assert out.stdout.startswith("usage: fstools index build ") and "Build (or rebuild) the index" in out.stdout
    assert "{build,status,drop}" not in out.stdout


def test_index_build_without_numpy_says_how_to_install_it(in_project, monkeypatch):
    monkeypatch.setitem(sys.modules, "numpy", None)  # fault injection: the optional extra is not installed
    s = Streams()
    assert s.run("index", "build", ".") == 2
    err = s.stderr.getvalue()
    assert err == "fstools index: error: the search index needs numpy: pip install 'fstools[index]'\n"


def test_index_status_works_without_numpy(in_project, monkeypatch):
    monkeypatch.setitem(sys.modules, "numpy", None)
    s = Streams()
    assert s.run("index", "status", ".", "--json") == 0
    assert '"status":"none"' in s.stdout.getvalue()


def test_grep_and_glob_say_when_the_index_answered(in_project):
    import json
    import subprocess

    import fstools

    subprocess.run(["git", "init", "-q", str(in_project)], check=True)  # Glob's index answers inside git
    (in_project / "a.py").write_text("needle = 1\n")
    quiet = Streams()
    assert quiet.run("grep", "needle", ".") == 0
    assert "index" not in quiet.stderr.getvalue()  # no index here: nothing to say
    fstools.build_index(str(in_project))
    for argv in (["grep", "needle", "."], ["glob", "**/*.py", "."]):
        s = Streams()
        assert s.run(*argv) == 0
        assert s.stderr.getvalue() == f"fstools {argv[0]}: answered from the search index\n"
        as_json = Streams()
        assert as_json.run(*argv, "--json") == 0
        assert json.loads(as_json.stdout.getvalue())["metadata"]["index"] == "used"


def test_an_index_that_cannot_answer_says_why():
    from fstools import ToolResult
    from fstools._agents.cli import index_notice

    assert index_notice(ToolResult.ok("x", index="stale")) == "searched without the index (stale)"
    assert index_notice(ToolResult.ok("x", index="off")) is None
    assert index_notice(ToolResult.ok("x", index="single file")) is None
    assert index_notice(ToolResult.ok("x", index="options")) == "searched without the index (options)"
    assert index_notice(ToolResult.ok("x")) is None
