"""The syntax check after every change tool, its three modes, dry run, and the caller's checkers."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

import fstools
from fstools._syntax.diagnostics import SYNTAX_HEADER

GOOD = "def f(x):\n    return x\n"
BAD = "def f(x):\n    return (x\n"


def _ctx(project: Path, **options: object) -> fstools.ExecutionContext:
    return fstools.ExecutionContext(working_dir=str(project), **options)  # type: ignore[arg-type]


def _diagnostics_at(result: fstools.ToolResult) -> list[tuple[str, int]]:
    return [(Path(d["path"]).name, d["line"]) for d in result.metadata["diagnostics"]]


def test_write_warns_and_writes(project: Path) -> None:
    ctx = _ctx(project)
    path = project / "a.py"
    result = fstools.write(str(path), BAD, ctx=ctx)
    assert result.success and path.read_text() == BAD
    assert result.output.endswith(f"{SYNTAX_HEADER}\n{path}:2:12: '(' was never closed\n        return (x")
    assert result.metadata["diagnostics"] == [
        {
            "path": str(path),
            "line": 2,
            "column": 12,
            "message": "'(' was never closed",
            "severity": "error",
            "source": "syntax",
        }
    ]
    assert SYNTAX_HEADER in result.to_text()


def test_a_valid_change_has_empty_diagnostics_and_unknown_kinds_none(project: Path) -> None:
    ctx = _ctx(project)
    result = fstools.write(str(project / "a.py"), GOOD, ctx=ctx)
    assert result.metadata["diagnostics"] == [] and SYNTAX_HEADER not in result.output
    notes = fstools.write(str(project / "notes.md"), "# (unclosed\n", ctx=ctx)
    assert notes.success and "diagnostics" not in notes.metadata


def test_edit_reports_only_what_it_broke(project: Path) -> None:
    ctx = _ctx(project)
    path = project / "a.py"
    fstools.write(str(path), "def g(:\n    pass\n\n" + GOOD, ctx=ctx)
    fine = fstools.edit(str(path), "return x", "return x + 1", ctx=ctx)
    assert fine.success and fine.metadata["diagnostics"] == []
    broken = fstools.edit(str(path), "return x + 1", "return (x + 1", ctx=ctx)
    assert _diagnostics_at(broken) == [("a.py", 5)]


def test_refuse_writes_nothing(project: Path) -> None:
    path = project / "a.py"
    path.write_text(GOOD)
    ctx = _ctx(project, check_syntax="refuse")
    fstools.read(str(path), ctx=ctx)
    result = fstools.edit(str(path), "return x", "return (x", ctx=ctx)
    assert not result.success and result.error_code == "syntax_error"
    assert path.read_text() == GOOD
    assert f"{path}:2:12:" in result.to_text() and "(error_code: syntax_error)" in result.to_text()
    assert result.metadata["diagnostics"][0]["line"] == 2
    assert fstools.edit(str(path), "return x", "return x * 2", ctx=ctx).success
    created = fstools.write(str(project / "b.json"), '{"a": }', ctx=ctx)
    assert created.error_code == "syntax_error" and not (project / "b.json").exists()


def test_off_checks_nothing(project: Path) -> None:
    ctx = _ctx(project, check_syntax="off")
    result = fstools.write(str(project / "a.py"), BAD, ctx=ctx)
    assert result.success and "diagnostics" not in result.metadata


def test_dry_run_shows_the_diagnostics_and_refuse_fails_in_dry_run_too(project: Path) -> None:
    path = project / "a.py"
    path.write_text(GOOD)
    result = fstools.edit(str(path), "return x", "return (x", ctx=_ctx(project, dry_run=True))
    assert result.success and result.metadata["dry_run"] and _diagnostics_at(result) == [("a.py", 2)]
    assert SYNTAX_HEADER in result.output and path.read_text() == GOOD
    refused = fstools.edit(str(path), "return x", "return (x", ctx=_ctx(project, dry_run=True, check_syntax="refuse"))
    assert refused.error_code == "syntax_error"


def test_multi_edit(project: Path) -> None:
    ctx = _ctx(project)
    path = project / "m.js"
    fstools.write(str(path), "function f() {\n  return 1;\n}\n", ctx=ctx)
    result = fstools.multi_edit(
        str(path),
        [{"old_string": "return 1;", "new_string": "return 2;"}, {"old_string": "}\n", "new_string": "\n"}],
        ctx=ctx,
    )
    assert result.success and result.metadata["diagnostics"][0]["message"] == 'missing "}"'


def test_apply_patch_checks_each_file_and_refuses_all_or_nothing(project: Path) -> None:
    (project / "a.py").write_text(GOOD)
    (project / "b.py").write_text(GOOD)
    patch = (
        "*** Begin Patch\n*** Update File: a.py\n@@\n-    return x\n+    return x + 1\n"
        "*** Update File: b.py\n@@\n-    return x\n+    return (x\n*** Add File: c.yaml\n+a: [1\n*** End Patch"
    )
    warned = fstools.apply_patch(patch, ctx=_ctx(project, dry_run=True))
    assert _diagnostics_at(warned) == [("b.py", 2), ("c.yaml", 1)]
    refused = fstools.apply_patch(patch, ctx=_ctx(project, check_syntax="refuse"))
    assert refused.error_code == "syntax_error" and (project / "a.py").read_text() == GOOD
    assert not (project / "c.yaml").exists()
    done = fstools.apply_patch(patch, ctx=_ctx(project))
    assert done.success and (project / "b.py").read_text() == BAD and _diagnostics_at(done)[0] == ("b.py", 2)


def test_a_moved_file_is_compared_with_its_old_text(project: Path) -> None:
    (project / "old.py").write_text("def g(:\n    pass\n" + GOOD)
    patch = (
        "*** Begin Patch\n*** Update File: old.py\n*** Move to: new.py\n@@\n-    return x\n+    return 2\n*** End Patch"
    )
    result = fstools.apply_patch(patch, ctx=_ctx(project))
    assert result.success and result.metadata["diagnostics"] == []


def test_text_editor_create_str_replace_insert(project: Path) -> None:
    ctx = _ctx(project)
    path = str(project / "t.rs")
    created = fstools.anthropic_text_editor(
        {"command": "create", "path": path, "file_text": "fn main() {\n}\n"}, ctx=ctx
    )
    assert not created["is_error"] and SYNTAX_HEADER not in created["content"]
    replaced = fstools.anthropic_text_editor(
        {"command": "str_replace", "path": path, "old_str": "fn main() {", "new_str": "fn main() {\n    let x = ;"},
        ctx=ctx,
    )
    assert not replaced["is_error"] and f"{SYNTAX_HEADER}\n{path}:2:" in replaced["content"]
    inserted = fstools.anthropic_text_editor(
        {"command": "insert", "path": path, "insert_line": 0, "insert_text": "fn g( {"}, ctx=ctx
    )
    assert f"{SYNTAX_HEADER}\n{path}:1:" in inserted["content"]
    refused = fstools.anthropic_text_editor(
        {"command": "create", "path": str(project / "u.go"), "file_text": "package main\nfunc main( {\n}\n"},
        ctx=_ctx(project, check_syntax="refuse"),
    )
    assert refused["is_error"] and "u.go:2:" in refused["content"] and not (project / "u.go").exists()


def test_shebang_scripts_are_checked(project: Path) -> None:
    result = fstools.write(str(project / "run"), "#!/bin/sh\nif true; then\n  echo hi\n", ctx=_ctx(project))
    assert result.metadata["diagnostics"]


# The caller's checkers ----------------------------------------------------------------------
def test_a_checker_reports_after_the_syntax_check(project: Path) -> None:
    seen: list[tuple[str, str]] = []

    def todo_checker(path: str, text: str) -> list[dict[str, object]]:
        seen.append((path, text))
        return [
            {"line": n, "message": "TODO left", "severity": "warning"}
            for n, line in enumerate(text.splitlines(), 1)
            if "TODO" in line
        ]

    path = project / "notes.txt"
    result = fstools.write(str(path), "a\n# TODO b\n", ctx=_ctx(project, checkers=[todo_checker]))
    assert seen == [(str(path), "a\n# TODO b\n")]
    assert result.metadata["diagnostics"] == [
        {
            "path": str(path),
            "line": 2,
            "column": 1,
            "message": "TODO left",
            "severity": "warning",
            "source": "todo_checker",
        }
    ]
    assert "Checks on the changed file reported:" in result.output and ":2:1: TODO left [todo_checker]" in result.output


def test_a_raising_checker_never_breaks_the_change(project: Path) -> None:
    def broken_checker(path: str, text: str) -> list[dict[str, object]]:
        raise RuntimeError("linter crashed")

    path = project / "a.py"
    result = fstools.write(str(path), GOOD, ctx=_ctx(project, checkers=[broken_checker]))
    assert result.success and path.read_text() == GOOD
    assert result.metadata["warnings"] == [
        f"checker broken_checker failed (RuntimeError: linter crashed) on {path}; the change was made without its diagnostics"
    ]
    assert "(warning: checker broken_checker failed" in result.to_text()


def test_a_hanging_checker_meets_its_deadline(project: Path) -> None:
    release = threading.Event()

    def hanging_checker(path: str, text: str) -> list[dict[str, object]]:
        release.wait(30)
        return []

    try:
        path = project / "a.py"
        result = fstools.write(str(path), GOOD, ctx=_ctx(project, checkers=[hanging_checker], checker_timeout=0.2))
        assert result.success and path.read_text() == GOOD
        assert "checker hanging_checker did not finish within 0.2 s" in result.metadata["warnings"][0]
    finally:
        release.set()


@pytest.mark.parametrize("answer", [42, [{"message": "no line"}], ["text"], [{"line": "1", "message": "m"}]])
def test_a_checker_answer_that_is_not_diagnostics_is_a_warning(project: Path, answer: object) -> None:
    def odd_checker(path: str, text: str) -> object:
        return answer

    result = fstools.write(str(project / "a.txt"), "x\n", ctx=_ctx(project, checkers=[odd_checker]))
    assert result.success and result.metadata["diagnostics"] == []
    assert result.metadata["warnings"][0].startswith("checker odd_checker ")


def test_checkers_do_not_run_for_a_refused_change(project: Path) -> None:
    calls: list[str] = []
    ctx = _ctx(project, check_syntax="refuse", checkers=[lambda path, text: calls.append(path) or []])
    assert fstools.write(str(project / "a.py"), BAD, ctx=ctx).error_code == "syntax_error"
    assert calls == []


def test_check_syntax_is_validated() -> None:
    with pytest.raises(ValueError, match="check_syntax"):
        fstools.ExecutionContext(working_dir="/tmp", check_syntax="strict")
