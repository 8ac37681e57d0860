"""Parameters named as the reader of a result writes them: a tool call for models, flags for people."""

from __future__ import annotations

import pytest

import fstools
from fstools._core.hints import flag, param, setting


def test_call_style_is_the_default_and_reads_like_a_tool_call(ctx):
    assert ctx.arg_style == "call"
    assert setting(ctx, "offset", 10) == "offset=10"
    assert setting(ctx, "recursive", True) == "recursive=true"
    assert setting(ctx, "respect_gitignore", False) == "respect_gitignore=false"
    assert setting(ctx, "pages", "4-6") == 'pages="4-6"'
    assert param(ctx, "limit") == "limit"


def test_flag_style_reads_like_a_command_line(project):
    ctx = fstools.ExecutionContext(working_dir=str(project), arg_style="flags")
    assert setting(ctx, "offset", 10) == "--offset 10"
    assert setting(ctx, "recursive", True) == "--recursive"
    assert setting(ctx, "respect_gitignore", False) == "--no-respect-gitignore"
    assert setting(ctx, "pages", "4-6") == "--pages 4-6"
    assert setting(ctx, "glob", "*.py a") == "--glob '*.py a'"
    assert param(ctx, "head_limit") == "--head-limit"
    assert flag("-i") == "-i"


def test_an_unknown_style_is_refused(project):
    with pytest.raises(ValueError, match="arg_style"):
        fstools.ExecutionContext(working_dir=str(project), arg_style="yaml")


def test_the_same_tool_call_speaks_to_each_reader(project):
    (project / "a.txt").write_text("1\n2\n3\n")
    model = fstools.read(str(project / "a.txt"), limit=1, ctx=fstools.ExecutionContext(working_dir=str(project)))
    person = fstools.read(
        str(project / "a.txt"), limit=1, ctx=fstools.ExecutionContext(working_dir=str(project), arg_style="flags")
    )
    assert model.output.endswith("Use offset=2 to read more.]")
    assert person.output.endswith("Use --offset 2 to read more.]")
    assert model.output.splitlines()[:-1] == person.output.splitlines()[:-1]
