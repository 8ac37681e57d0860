"""Symbols and References with file_path+line, resolved by the real language servers; the name-based
answer, with the reason, when the server does not decide (off, none installed, not in time, crashed,
only places outside the allowed directories)."""

from __future__ import annotations

import os
import time

import pytest

import fstools
from fstools._lsp.pool import POOL
from fstools._nav import resolve
from fstools._nav.resolve import Location
from fstools._nav.served import column_of
from tests.helpers.servers import fake, requires_lsp, requires_server

JOBS = (
    "class Fast:\n"
    "    def run(self) -> int:\n"
    "        return 1\n"
    "\n"
    "\n"
    "class Slow:\n"
    "    def run(self) -> int:\n"
    "        return 2\n"
)
MAIN = (
    "from jobs import Fast, Slow\n"
    "\n"
    "\n"
    "def main() -> int:\n"
    "    job = Slow()\n"
    "    quick = Fast()\n"
    "    total = job.run()\n"
    "    return total + quick.run() + len([job])\n"
)
CALL = 7  # `total = job.run()`: Slow.run


@pytest.fixture(scope="module")
def python_tree(tmp_path_factory):  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("served")
    (root / "jobs.py").write_text(JOBS)
    (root / "main.py").write_text(MAIN)
    POOL.reset()
    yield os.path.realpath(root)
    POOL.reset()


def _ctx(root: str, **kw) -> fstools.ExecutionContext:  # type: ignore[no-untyped-def]
    return fstools.ExecutionContext(working_dir=root, **{"language_servers": "auto", "lsp_timeout": 60, **kw})


@requires_server("python")
def test_the_server_picks_the_method_the_name_cannot(python_tree):  # type: ignore[no-untyped-def]
    main = os.path.join(python_tree, "main.py")
    by_name = fstools.symbols(
        "run", exact=True, file_path=main, line=CALL, ctx=_ctx(python_tree, language_servers="off")
    )
    assert [s["qualified_name"] for s in by_name.metadata["symbols"]] == ["Fast.run", "Slow.run"]  # a guess
    assert by_name.metadata["resolution"] == "name"
    served = fstools.symbols("run", exact=True, file_path=main, line=CALL, ctx=_ctx(python_tree))
    assert served.success, served.output
    assert served.metadata["resolution"] == "language_server", served.metadata.get("resolution_reason")
    assert [s["qualified_name"] for s in served.metadata["symbols"]] == ["Slow.run"]
    assert "resolution_reason" not in served.metadata and "Ranked by name" not in served.output


@requires_server("python")
def test_the_references_of_one_method_not_of_its_namesake(python_tree):  # type: ignore[no-untyped-def]
    main = os.path.join(python_tree, "main.py")
    result = fstools.references("run", file_path=main, line=CALL, ctx=_ctx(python_tree))
    assert result.metadata["resolution"] == "language_server", result.metadata.get("resolution_reason")
    found = [(os.path.basename(r["path"]), r["line"], r["column"]) for r in result.metadata["references"]]
    assert sorted(found) == [("jobs.py", 7, 9), ("main.py", 7, 17)]  # Slow.run and job.run(): not quick.run()
    assert "Matched by name" not in result.output
    by_name = fstools.references("run", file_path=main, line=CALL, ctx=_ctx(python_tree, language_servers="off"))
    assert by_name.metadata["total"] == 4 and by_name.metadata["resolution"] == "name"


@requires_server("python")
def test_places_outside_the_allowed_directories_are_withheld(python_tree):  # type: ignore[no-untyped-def]
    main = os.path.join(python_tree, "main.py")
    ctx = _ctx(python_tree)
    builtin = fstools.symbols("len", exact=True, file_path=main, line=8, ctx=ctx)  # defined in the server's stubs
    assert builtin.metadata["resolution"] == "name"
    reason = builtin.metadata["resolution_reason"]
    assert "outside the allowed directories" in reason and "answered only with" in reason
    assert "typeshed" not in builtin.output and ".pyi" not in builtin.output
    uses = fstools.references("len", file_path=main, line=8, ctx=ctx)
    assert uses.metadata["resolution"] == "language_server", uses.metadata.get("resolution_reason")
    assert [(r["path"], r["line"]) for r in uses.metadata["references"]] == [(main, 8)]
    assert "(Not shown: 1 place outside the allowed directories or in secret files.)" in uses.output
    assert all(r["path"].startswith(python_tree) for r in uses.metadata["references"])


def test_off_answers_by_name_and_says_so(python_tree):  # type: ignore[no-untyped-def]
    main = os.path.join(python_tree, "main.py")
    ctx = fstools.ExecutionContext(working_dir=python_tree)  # the library's default: off
    before = {s.language for s in POOL.running()}
    for result in (
        fstools.symbols("run", file_path=main, line=CALL, ctx=ctx),
        fstools.references("run", file_path=main, line=CALL, ctx=ctx),
    ):
        assert result.metadata["resolution"] == "name"
        assert "language servers are off" in result.metadata["resolution_reason"]
        assert "language servers are off" in result.output
    assert {s.language for s in POOL.running()} == before  # nothing started


def test_no_server_for_the_language_and_no_line(tmp_path):  # type: ignore[no-untyped-def]
    (tmp_path / "notes.md").write_text("# run\n")
    (tmp_path / "a.py").write_text("def run():\n    pass\n\nrun()\n")
    root = os.path.realpath(tmp_path)
    ctx = fstools.ExecutionContext(working_dir=root, language_servers={"c": ["no-such-clangd-here"]})
    result = fstools.references("run", file_path=os.path.join(root, "a.py"), line=4, ctx=ctx)
    assert result.metadata["resolution"] == "name"
    assert "no language server for python" in result.metadata["resolution_reason"]
    unplaced = fstools.symbols("run", file_path=os.path.join(root, "a.py"), ctx=ctx)
    assert "no line given" in unplaced.metadata["resolution_reason"]


@requires_lsp
@pytest.mark.parametrize("mode", ["hang", "silent"])
def test_a_server_that_does_not_answer_gives_the_name_answer_in_time(tmp_path, mode):  # type: ignore[no-untyped-def]
    (tmp_path / "a.py").write_text("def run():\n    pass\n\nrun()\n")
    root = os.path.realpath(tmp_path)
    ctx = fstools.ExecutionContext(working_dir=root, language_servers={"python": fake(mode)}, lsp_timeout=0.5)
    POOL.reset()
    try:
        started = time.monotonic()
        result = fstools.symbols("run", file_path=os.path.join(root, "a.py"), line=4, ctx=ctx)
        waited = time.monotonic() - started
        again = fstools.references("run", file_path=os.path.join(root, "a.py"), line=4, ctx=ctx)
    finally:
        POOL.reset()
    assert result.metadata["resolution"] == "name" and result.metadata["symbols"][0]["name"] == "run"
    reason = result.metadata["resolution_reason"]
    later = again.metadata["resolution_reason"]
    if mode == "hang":  # never initialises
        assert "still starting (waited lsp_timeout, 0.5 s)" in reason and "still starting" in later
    else:  # ready in time (or not yet), but no answer to the request
        assert "did not answer textDocument/definition within 0.5 s" in reason or "still starting" in reason
        assert "did not answer textDocument/references within 0.5 s" in later
    assert "(Ranked by name: " in result.output
    assert waited < 30  # bounded by lsp_timeout, not by the server (a loose bound: the machine is shared)


@requires_lsp
def test_a_server_that_crashes_during_a_request_is_named(tmp_path):  # type: ignore[no-untyped-def]
    path = tmp_path / "a.py"
    path.write_text("def run():\n    pass\n\nrun()\n")
    root = os.path.realpath(tmp_path)
    ctx = fstools.ExecutionContext(working_dir=root, language_servers={"python": fake("crash")}, lsp_timeout=2)
    POOL.reset()
    try:
        first = fstools.references("run", file_path=os.path.join(root, "a.py"), line=4, ctx=ctx)  # opens the file
        path.write_text("def run():\n    pass\n\n\nrun()\n")  # the next request sends a change: the fake exits
        crashed = fstools.references("run", file_path=os.path.join(root, "a.py"), line=5, ctx=ctx)
    finally:
        POOL.reset()
    assert first.metadata["resolution"] == "name"
    assert crashed.metadata["resolution"] == "name"
    assert "crashed" in crashed.metadata["resolution_reason"]
    assert "crashing on purpose" in crashed.metadata["resolution_reason"]  # the tail of its stderr


def test_a_resolver_answer_outside_the_search_is_counted(tmp_path):  # type: ignore[no-untyped-def]
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.py").write_text("def run():\n    pass\n\nrun()\n")
    (tmp_path / "b.py").write_text("from sub.a import run\nrun()\n")
    root = os.path.realpath(tmp_path)

    class Known:
        def definitions(self, ctx, file_path, line, name):  # type: ignore[no-untyped-def]
            return resolve.Answer(None, "not known here")

        def references(self, ctx, file_path, line, name):  # type: ignore[no-untyped-def]
            here = os.path.join(root, "sub", "a.py")
            return resolve.Answer([Location(here, 1, 5, 5), Location(here, 4, 1, 1), Location(f"{root}/b.py", 2, 1, 1)])

    known = Known()
    resolve.register(known)
    try:
        ctx = fstools.ExecutionContext(working_dir=root)
        inside = fstools.references(
            "run", path=os.path.join(root, "sub"), file_path=f"{root}/sub/a.py", line=4, ctx=ctx
        )
        unknown = fstools.symbols("run", file_path=f"{root}/sub/a.py", line=4, ctx=ctx)
    finally:
        resolve.unregister(known)
    assert inside.metadata["resolution"] == "language_server"
    assert [r["line"] for r in inside.metadata["references"]] == [1, 4]
    assert "(1 more outside the files searched" in inside.output
    assert "not known here" in unknown.metadata["resolution_reason"]


def test_the_column_is_the_name_as_a_whole_word(tmp_path):  # type: ignore[no-untyped-def]
    (tmp_path / "a.py").write_text("x = rerun(run_all, run)\n")
    assert column_of(str(tmp_path / "a.py"), 1, "run") == 20
    assert column_of(str(tmp_path / "a.py"), 1, "walk") is None
    assert column_of(str(tmp_path / "a.py"), 9, "run") is None
    assert column_of(str(tmp_path / "gone.py"), 1, "run") is None


def test_a_line_without_the_name_is_not_sent(python_tree):  # type: ignore[no-untyped-def]
    elsewhere = fstools.symbols("run", file_path=os.path.join(python_tree, "main.py"), line=1, ctx=_ctx(python_tree))
    assert elsewhere.metadata["resolution"] == "name"
    assert "'run' is not on line 1 of" in elsewhere.metadata["resolution_reason"]
    assert "the language server was not asked" in elsewhere.output


@requires_server("python")
def test_a_name_the_server_finds_nothing_for(python_tree):  # type: ignore[no-untyped-def]
    lone = os.path.join(python_tree, "lone.py")
    with open(lone, "w") as f:
        f.write("def make() -> int:\n    return undefined_thing()\n")
    try:
        warm = fstools.symbols("run", file_path=os.path.join(python_tree, "main.py"), line=CALL, ctx=_ctx(python_tree))
        assert warm.metadata["resolution"] == "language_server"
        # An empty answer about a file just opened is asked again (a server may still be loading the
        # project), within lsp_timeout: then the name-based answer, saying what the server found.
        result = fstools.symbols("undefined_thing", file_path=lone, line=2, ctx=_ctx(python_tree, lsp_timeout=3))
    finally:
        os.remove(lone)
    assert result.metadata["resolution"] == "name"
    assert "found nothing for 'undefined_thing' at line 2:12" in result.metadata["resolution_reason"]


def test_a_resolver_pointing_at_no_definition_or_use_is_not_taken(tmp_path):  # type: ignore[no-untyped-def]
    (tmp_path / "a.py").write_text("def run():\n    pass\n\nvalue = run()\n")
    root = os.path.realpath(tmp_path)
    here = os.path.join(root, "a.py")

    class Elsewhere:
        def definitions(self, ctx, file_path, line, name):  # type: ignore[no-untyped-def]
            return [Location(here, 4, 1, 1)]  # the assignment: no definition Symbols lists

        def references(self, ctx, file_path, line, name):  # type: ignore[no-untyped-def]
            return [Location(here, 3, 1, 1)]  # a blank line: no use

    elsewhere = Elsewhere()
    resolve.register(elsewhere)
    try:
        ctx = fstools.ExecutionContext(working_dir=root)
        symbols = fstools.symbols("run", file_path=here, line=4, ctx=ctx)
        uses = fstools.references("run", file_path=here, line=4, ctx=ctx)
    finally:
        resolve.unregister(elsewhere)
    assert symbols.metadata["resolution"] == "name" and symbols.metadata["total"] == 1
    assert "points to line 4, which holds no definition of 'run'" in symbols.metadata["resolution_reason"]
    assert uses.metadata["resolution"] == "name" and uses.metadata["total"] == 2
    assert "named 1 place, none of them a use of 'run'" in uses.metadata["resolution_reason"]


@requires_server("typescript")
def test_typescripts_first_answer_after_its_start_is_the_servers(tmp_path):  # type: ignore[no-untyped-def]
    # tsserver answers "nothing" while it loads the project a file was just opened in: asked again, in time.
    (tmp_path / "jobs.ts").write_text(
        "export class Fast {\n  run(): number { return 1; }\n}\nexport class Slow {\n  run(): number { return 2; }\n}\n"
    )
    (tmp_path / "main.ts").write_text(
        'import { Fast, Slow } from "./jobs";\nconst job = new Slow();\nconst quick = new Fast();\n'
        "export const total = job.run() + quick.run();\n"
    )
    root = os.path.realpath(tmp_path)
    result = _fresh(fstools.symbols, "run", exact=True, file_path=f"{root}/main.ts", line=4, ctx=_ctx(root))
    assert result.metadata["resolution"] == "language_server", result.metadata.get("resolution_reason")
    assert [s["qualified_name"] for s in result.metadata["symbols"]] == ["Slow.run"]


@requires_server("c")
def test_clangd_tells_the_two_members_apart(tmp_path):  # type: ignore[no-untyped-def]
    (tmp_path / "jobs.c").write_text(
        "struct fast { int (*run)(void); };\nstruct slow { int (*run)(void); };\n"
        "int use(struct fast *f, struct slow *s) {\n  return s->run() + f->run();\n}\n"
    )
    root = os.path.realpath(tmp_path)
    result = _fresh(fstools.references, "run", file_path=f"{root}/jobs.c", line=4, ctx=_ctx(root))
    assert result.metadata["resolution"] == "language_server", result.metadata.get("resolution_reason")
    assert [(r["line"], r["column"]) for r in result.metadata["references"]] == [(2, 21), (4, 13)]


def _fresh(tool, *args, **kw):  # type: ignore[no-untyped-def]
    """`tool(*args, **kw)` with the process's servers started afresh (a cold server), closed after."""
    POOL.reset()
    try:
        return tool(*args, **kw)
    finally:
        POOL.reset()


@requires_lsp
def test_a_place_through_a_link_out_of_the_sandbox_or_to_a_secret_is_withheld(tmp_path):  # type: ignore[no-untyped-def]
    root = tmp_path / "root"
    outside = tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "a.py").write_text("def run():\n    pass\n\nrun()\n")
    (outside / "x.py").write_text("def run(): pass\n")
    (root / ".env").write_text("def run(): pass\n")
    (root / "out").symlink_to(outside)
    (root / "cfg.py").symlink_to(root / ".env")
    main = os.path.join(os.path.realpath(root), "a.py")
    for target in ("out/x.py", "cfg.py"):
        servers = {"python": [*fake("point"), os.path.join(os.path.realpath(root), target)]}
        ctx = fstools.ExecutionContext(working_dir=str(root), language_servers=servers, lsp_timeout=10)
        POOL.reset()
        try:
            found = fstools.symbols("run", file_path=main, line=4, ctx=ctx)
        finally:
            POOL.reset()
        reason = found.metadata["resolution_reason"]
        assert "answered only with 1 place outside the allowed directories or in secret files" in reason, target


@requires_lsp
def test_an_error_answer_is_said_as_such(tmp_path):  # type: ignore[no-untyped-def]
    (tmp_path / "a.py").write_text("def run():\n    pass\n\nrun()\n")
    root = os.path.realpath(tmp_path)
    ctx = fstools.ExecutionContext(working_dir=root, language_servers={"python": fake("fail")}, lsp_timeout=10)
    POOL.reset()
    try:
        started = time.monotonic()
        found = fstools.references("run", file_path=os.path.join(root, "a.py"), line=4, ctx=ctx)
        waited = time.monotonic() - started
    finally:
        POOL.reset()
    reason = found.metadata["resolution_reason"]
    assert "answered textDocument/references with an error: failing on purpose" in reason, reason
    assert waited < 10  # not waited for until lsp_timeout
