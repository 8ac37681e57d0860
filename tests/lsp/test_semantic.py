"""The semantic check after a change, against the real servers: basedpyright (or pyright),
typescript-language-server and clangd. One server per language for the whole module (they are
slow to start); each test works on files of its own in the module's project."""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass

import pytest

import fstools
from fstools._syntax.diagnostics import block_of
from tests.helpers.servers import requires_server


@dataclass(frozen=True)
class Sample:
    language: str
    suffix: str
    text: str  # a function using `name`, and one error already there (`count`)
    use: str  # the line using `name`
    old_error: str  # a word of the message of the error already there
    comment: str  # a comment line

    @property
    def first(self) -> str:
        return self.text.split("\n", 1)[0]


SAMPLES = {
    "python": Sample(
        "python",
        ".py",
        "def greet(name: str) -> str:\n    return 'hi ' + name\n\n\ncount: int = 'no'\n",
        "return 'hi ' + name",
        "count",
        "# a comment",
    ),
    "typescript": Sample(
        "typescript",
        ".ts",
        "export function greet(name: string): string {\n  return 'hi ' + name;\n}\n\nexport const count: number = 'no';\n",
        "return 'hi ' + name;",
        "string",
        "// a comment",
    ),
    "c": Sample(
        "c",
        ".c",
        "int greet(int name) {\n  return name + 1;\n}\n\nint count = missing_thing;\n",
        "return name + 1;",
        "missing_thing",
        "// a comment",
    ),
}
_names = itertools.count()


@pytest.fixture(
    scope="module",
    params=[
        pytest.param("python", marks=requires_server("python")),
        pytest.param("typescript", marks=requires_server("typescript")),
        pytest.param("c", marks=requires_server("c")),
    ],
)
def project(request, tmp_path_factory):  # type: ignore[no-untyped-def]
    """(a context with "auto" servers and a generous timeout on a shared project, its sample)."""
    root = str(tmp_path_factory.mktemp(f"lsp-{request.param}"))
    ctx = fstools.ExecutionContext(working_dir=root, language_servers="auto", lsp_timeout=60)
    sample = SAMPLES[request.param]
    warm = os.path.join(root, f"warm{sample.suffix}")
    fstools.write(warm, sample.text, ctx=ctx)
    return ctx, sample


def _file(ctx: fstools.ExecutionContext, sample: Sample) -> str:
    path = os.path.join(ctx.working_dir, f"f{next(_names)}{sample.suffix}")
    done = fstools.write(path, sample.text, ctx=ctx)
    assert done.metadata["semantic_check"]["state"] == "done", done.metadata["semantic_check"]
    return path


def _messages(result: fstools.ToolResult) -> list[str]:
    return [d["message"] for d in result.metadata["diagnostics"] if d["source"] != "syntax"]


def test_an_edit_that_adds_an_undefined_name_reports_it(project):  # type: ignore[no-untyped-def]
    ctx, sample = project
    path = _file(ctx, sample)
    result = fstools.edit(path, sample.use, sample.use.replace("name", "nmae"), ctx=ctx)
    assert result.success
    check = result.metadata["semantic_check"]
    assert check["state"] == "done" and check["errors"] == 1, check
    [found] = [d for d in result.metadata["diagnostics"] if d["source"] != "syntax"]
    assert "nmae" in found["message"] and found["line"] == 2 and found["severity"] == "error"
    assert found["source"] == result.metadata["language_server"]["name"]
    assert result.metadata["language_server"]["state"] in ("ready", "starting")
    block = block_of(result.output)
    assert block.startswith("The language server reported errors the change introduced:")
    assert f"{path}:2:{found['column']}: {found['message']} [{found['source']}]" in block


def test_an_error_already_there_is_not_blamed(project):  # type: ignore[no-untyped-def]
    ctx, sample = project
    path = _file(ctx, sample)
    # Lines added above move the old error down: still not the change's.
    moved = fstools.edit(path, sample.first, f"{sample.comment}\n{sample.comment}\n{sample.first}", ctx=ctx)
    assert moved.metadata["semantic_check"]["state"] == "done"
    assert _messages(moved) == []
    broken = fstools.edit(path, sample.use, sample.use.replace("name", "nmae"), ctx=ctx, replace_all=True)
    messages = _messages(broken)
    assert messages and all("nmae" in m for m in messages) and not any(sample.old_error in m for m in messages)


def test_an_edit_that_fixes_an_error_reports_nothing_new(project):  # type: ignore[no-untyped-def]
    ctx, sample = project
    path = _file(ctx, sample)
    fstools.edit(path, sample.use, sample.use.replace("name", "nmae"), ctx=ctx)
    fixed = fstools.edit(path, sample.use.replace("name", "nmae"), sample.use, ctx=ctx)
    assert fixed.metadata["semantic_check"]["state"] == "done"
    assert _messages(fixed) == []
    assert "language server reported" not in fixed.output


def test_two_quick_edits_never_show_the_first_versions_diagnostics(project):  # type: ignore[no-untyped-def]
    ctx, sample = project
    path = _file(ctx, sample)
    hasty = fstools.ExecutionContext(
        working_dir=ctx.working_dir, language_servers="auto", lsp_timeout=0.001, permissions=None
    )
    fstools.read(path, ctx=hasty)
    first = fstools.edit(path, sample.use, sample.use.replace("name", "first_name"), ctx=hasty)
    second = fstools.edit(
        path, sample.use.replace("name", "first_name"), sample.use.replace("name", "other"), ctx=hasty
    )
    fstools.read(path, ctx=ctx)
    third = fstools.edit(path, sample.use.replace("name", "other"), sample.use.replace("name", "last"), ctx=ctx)
    for quick in (first, second):
        check = quick.metadata["semantic_check"]
        if check["state"] != "done":
            assert quick.output.rstrip().endswith(f"Semantic check not done for {path}: {check['reason']}.")
    check = third.metadata["semantic_check"]
    assert check["state"] == "done"
    messages = _messages(third)
    assert messages and all("last" in m for m in messages), messages
    assert not any("first_name" in m or "other" in m for m in messages)


def test_a_dry_run_asks_no_server(project):  # type: ignore[no-untyped-def]
    ctx, sample = project
    path = _file(ctx, sample)
    dry = fstools.ExecutionContext(working_dir=ctx.working_dir, language_servers="auto", dry_run=True)
    fstools.read(path, ctx=dry)
    result = fstools.edit(path, sample.use, sample.use.replace("name", "nmae"), ctx=dry)
    assert result.success and "semantic_check" not in result.metadata


def test_a_syntax_error_is_reported_once(project):  # type: ignore[no-untyped-def]
    ctx, sample = project
    path = _file(ctx, sample)
    result = fstools.edit(path, sample.use, sample.use + " (((", ctx=ctx)
    assert [d["source"] for d in result.metadata["diagnostics"]] == ["syntax"]
    assert "semantic_check" not in result.metadata


def test_a_servers_errors_never_refuse_a_change(project):  # type: ignore[no-untyped-def]
    ctx, sample = project
    path = _file(ctx, sample)
    strict = fstools.ExecutionContext(
        working_dir=ctx.working_dir, language_servers="auto", lsp_timeout=60, check_syntax="refuse"
    )
    fstools.read(path, ctx=strict)
    result = fstools.edit(path, sample.use, sample.use.replace("name", "nmae"), ctx=strict)
    assert result.success and "nmae" in open(path).read()
    assert result.metadata["semantic_check"]["state"] == "done"
    assert any("nmae" in m for m in _messages(result))


@requires_server("python")
@pytest.mark.parametrize("how", ["undo", "another_program"])
def test_a_file_changed_behind_the_servers_back_is_not_judged_by_its_old_text(tmp_path, how):  # type: ignore[no-untyped-def]
    root = os.path.realpath(tmp_path)
    ctx = fstools.ExecutionContext(working_dir=root, language_servers="auto", lsp_timeout=60)
    helper, main = os.path.join(root, "helper.py"), os.path.join(root, "main.py")
    one_argument = "def helper(x: int) -> int:\n    return x\n"
    fstools.write(helper, one_argument, ctx=ctx)
    fstools.write(main, "from helper import helper\n\nprint(helper(1))\n", ctx=ctx)
    two = fstools.edit(helper, "x: int)", "x: int, y: int)", ctx=ctx)
    assert any("y" in m for m in _messages(two)), two.output  # main.py's call now misses an argument
    if how == "undo":
        fstools.undo(helper, ctx=ctx)
    else:
        with open(helper, "w") as f:
            f.write(one_argument)
    fstools.read(main, ctx=ctx)
    again = fstools.edit(main, "print(helper(1))\n", "print(helper(1))\nprint(helper(2))\n", ctx=ctx)
    assert again.metadata["semantic_check"]["state"] == "done"
    assert _messages(again) == [], again.output  # helper takes one argument again, on disk


@requires_server("python")
def test_a_module_another_program_creates_is_found_by_the_next_check(tmp_path):  # type: ignore[no-untyped-def]
    root = os.path.realpath(tmp_path)
    ctx = fstools.ExecutionContext(working_dir=root, language_servers="auto", lsp_timeout=60)
    app = os.path.join(root, "app.py")
    fstools.write(app, "x = 1\n", ctx=ctx)
    fstools.edit(app, "x = 1", "x = 2", ctx=ctx)  # the server has analysed the project as it was
    with open(os.path.join(root, "jobs.py"), "w") as f:  # a shell command creates a module
        f.write("def work() -> int:\n    return 1\n")
    result = fstools.edit(app, "x = 2", "from jobs import work\n\nx = work()", ctx=ctx)
    assert result.metadata["semantic_check"]["state"] == "done"
    assert _messages(result) == [], result.output  # not "Import could not be resolved"
    found = fstools.symbols("work", exact=True, file_path=app, line=3, ctx=ctx)
    assert found.metadata["resolution"] == "language_server", found.metadata.get("resolution_reason")
