"""Outline and Read(symbol=) on one huge file stay bounded: output, candidates, time."""

from __future__ import annotations

import fstools
from fstools._read.outline import MAX_OUTLINE_CHARS


def _defs(project, n: int, name=lambda i: f"f{i}"):
    path = project / "many.py"
    path.write_text("".join(f"def {name(i)}(): pass\n" for i in range(n)))
    return path


def test_the_outline_of_one_huge_file_is_bounded_with_a_notice(project, ctx):
    path = _defs(project, 30_000)
    r = fstools.outline(str(path), ctx=ctx)
    assert r.success and r.metadata["truncated"] and r.metadata["count"] == 30_000
    assert len(r.output) <= MAX_OUTLINE_CHARS
    assert "definitions left out" in r.metadata["notice"] and r.output.endswith(r.metadata["notice"])
    assert len(r.metadata["symbols"]) < 30_000


def test_an_ambiguous_symbol_lists_a_bounded_number_of_candidates(project, ctx):
    path = project / "many.py"  # 20,000 methods `f`, each of its own class: C0.f, C1.f, ...
    path.write_text("".join(f"class C{i}:\n    def f(self): pass\n" for i in range(20_000)))
    r = fstools.read(str(path), symbol="f", ctx=ctx)
    assert r.error_code == "invalid_argument" and "20,000 definitions" in r.error
    assert len(r.metadata["candidates"]) == 50 and r.metadata["count"] == 20_000
    assert len(r.error) < 10_000 and "and 19,950 more" in r.error


def test_one_name_defined_many_times_shows_a_bounded_number_of_definitions(project, ctx):
    """Redefinitions no qualified name tells apart are shown, not asked about: at most 50, and a bounded note."""
    path = _defs(project, 20_000, name=lambda i: "f")
    r = fstools.read(str(path), symbol="f", ctx=ctx)
    assert r.success, r.error
    assert r.output.count("\n--\n") == 49 and len(r.metadata["definitions"]) == 50
    note = r.output.rsplit("\n", 1)[1]
    assert note.startswith("[f has 20,000 definitions here (lines ") and "and 19,950 more), shown in file order" in note
    assert note.endswith("; not shown: 19,950, from line 51]") and len(note) < 2_000
    assert r.metadata["truncated"] is True


def test_an_unknown_symbol_shows_a_bounded_outline(project, ctx):
    path = _defs(project, 10_000)
    r = fstools.read(str(path), symbol="nowhere", ctx=ctx)
    assert r.error_code == "not_found" and r.metadata["count"] == 10_000
    assert len(r.error) < 11_000 and "more definitions (Outline lists them)" in r.error


def test_outline_and_symbol_honour_the_timeout(project):
    path = _defs(project, 30_000)
    ctx = fstools.ExecutionContext(working_dir=str(project), timeout=1e-9)
    assert fstools.outline(str(path), ctx=ctx).error_code == "timeout"
    assert fstools.read(str(path), symbol="f5", ctx=ctx).error_code == "timeout"
