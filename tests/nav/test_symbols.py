"""Symbols: definitions by name, across a tree, from the parse of the files that hold the name."""

from __future__ import annotations

import subprocess

import pytest

import fstools
from fstools._nav import resolve
from fstools._nav.resolve import Location
from tests.helpers.processes import fstools_cmd
from tests.helpers.trees import write


def test_one_line_per_definition_exact_first_then_path_and_line(tree, nav_ctx):
    result = fstools.symbols("parse_config", ctx=nav_ctx)
    assert result.success, result.error
    assert result.output.splitlines() == [
        f"{tree}/main.c:3-3  function  parse_config  — int parse_config(const char *s) {{ return 0; }}",
        f"{tree}/parser.py:15-17  function  parse_config  — def parse_config(text, *, strict=False):",
        f"{tree}/parser.py:20-21  function  parse_config_v2  — def parse_config_v2(text):",
    ]
    assert result.metadata["symbols"][1] == {
        "path": f"{tree}/parser.py",
        "name": "parse_config",
        "qualified_name": "parse_config",
        "kind": "function",
        "start_line": 15,
        "end_line": 17,
    }
    assert result.metadata["total"] == 3 and result.metadata["truncated"] is False
    assert result.metadata["index"] == "none" and "resolution" not in result.metadata


def test_exact_and_case_insensitive_substring(tree, nav_ctx):
    assert fstools.symbols("parse_config", exact=True, ctx=nav_ctx).metadata["total"] == 2
    assert fstools.symbols("PARSE_CONF", ctx=nav_ctx).metadata["total"] == 3
    assert fstools.symbols("PARSE_CONFIG", exact=True, ctx=nav_ctx).metadata["total"] == 0


def test_a_dotted_query_matches_the_end_of_the_qualified_name(tree, nav_ctx):
    result = fstools.symbols("Parser.feed", ctx=nav_ctx)
    assert result.output == f"{tree}/parser.py:7-9  method  Parser.feed  — def feed(self, data):"
    assert fstools.symbols("Other.feed", ctx=nav_ctx).metadata["total"] == 0
    assert fstools.symbols("parser.clo", ctx=nav_ctx).metadata["symbols"][0]["qualified_name"] == "Parser.close"


def test_kind_filters_and_an_unknown_kind_is_refused(tree, nav_ctx):
    assert [s["kind"] for s in fstools.symbols("e", kind="method", ctx=nav_ctx).metadata["symbols"]] == [
        "method",
        "method",
    ]
    bad = fstools.symbols("feed", kind="gizmo", ctx=nav_ctx)
    assert bad.error_code == "invalid_argument" and "function" in bad.error


def test_pages_as_grep_does(tree, nav_ctx):
    first = fstools.symbols("parse", limit=2, ctx=nav_ctx)
    assert first.metadata["returned"] == 2 and first.metadata["next_offset"] == 2
    assert first.output.splitlines()[-1] == "(Showing definitions 1-2 of 4: call again with offset=2 for more.)"
    second = fstools.symbols("parse", offset=2, limit=2, ctx=nav_ctx)
    assert second.metadata["returned"] == 2 and second.metadata["next_offset"] is None
    assert (
        first.metadata["symbols"] + second.metadata["symbols"]
        == fstools.symbols("parse", ctx=nav_ctx).metadata["symbols"]
    )
    past = fstools.symbols("parse", offset=9, ctx=nav_ctx)
    assert past.success and "past the last of 4" in past.output


@pytest.mark.parametrize("query", ["", "   ", "."])
def test_an_empty_query_is_invalid(nav_ctx, query):
    result = fstools.symbols(query, ctx=nav_ctx)
    assert result.error_code == "invalid_argument"


def test_nothing_found_says_so_and_suggests_the_next_call(tree, nav_ctx):
    result = fstools.symbols("parse_conf", exact=True, ctx=nav_ctx)
    assert result.success and result.metadata["total"] == 0
    assert "No definitions match 'parse_conf'" in result.output and "exact=false" in result.output
    assert "Grep" in result.output
    loose = fstools.symbols("zzz_nowhere", ctx=nav_ctx)
    assert loose.success and "Grep" in loose.output


def test_a_comment_string_or_document_is_no_definition(tree, nav_ctx):
    result = fstools.symbols("documented", ctx=nav_ctx)
    assert result.metadata["total"] == 0


def test_ignored_hidden_and_secret_files_are_not_searched(tree):
    write(tree / ".gitignore", "build/\n")
    subprocess.run(["git", "init", "-q", str(tree)], check=True)
    write(tree / "build" / "gen.py", "def parse_config_generated():\n    pass\n")
    write(tree / ".hidden" / "h.py", "def parse_config_hidden():\n    pass\n")
    write(tree / "secret_keys.py", "def parse_config_secret():\n    pass\n")
    ctx = fstools.ExecutionContext(
        working_dir=str(tree), sensitive_patterns=[*fstools.ExecutionContext().sensitive_patterns, "secret_*.py"]
    )
    names = {s["name"] for s in fstools.symbols("parse_config", ctx=ctx).metadata["symbols"]}
    assert names == {"parse_config", "parse_config_v2"}
    refs = fstools.references("parse_config", ctx=ctx)
    assert {r["path"] for r in refs.metadata["references"]} == {
        f"{tree}/parser.py",
        f"{tree}/util.py",
        f"{tree}/main.c",
    }


def test_a_deny_rule_hides_a_file(tree):
    rules = fstools.PermissionManager(rules=[fstools.PermissionRule(tool="Symbols", path="**/main.c", action="deny")])
    ctx = fstools.ExecutionContext(working_dir=str(tree), permissions=rules)
    assert {s["path"] for s in fstools.symbols("parse_config", ctx=ctx).metadata["symbols"]} == {f"{tree}/parser.py"}


def test_file_path_and_line_rank_that_file_then_its_imports(tree, nav_ctx):
    write(tree / "other.py", "def parse_config():\n    pass\n")
    result = fstools.symbols("parse_config", exact=True, file_path=str(tree / "util.py"), line=5, ctx=nav_ctx)
    assert result.metadata["resolution"] == "name"
    # util.py imports parser: its definition first; then the files unrelated to util.py, by path.
    assert [s["path"] for s in result.metadata["symbols"]] == [
        f"{tree}/parser.py",
        f"{tree}/main.c",
        f"{tree}/other.py",
    ]
    here = fstools.symbols("parse_config", exact=True, file_path=str(tree / "other.py"), line=1, ctx=nav_ctx)
    assert here.metadata["symbols"][0]["path"] == f"{tree}/other.py"


def test_a_bad_file_path_fails_as_read_does(tree, nav_ctx, tmp_path):
    outside = tmp_path / "outside.py"
    outside.write_text("x = 1\n")
    assert fstools.symbols("x", file_path=str(outside), line=1, ctx=nav_ctx).error_code == "path_outside_workspace"
    write(tree / "blob.py", b"\x00\x01\x02binary")
    assert fstools.symbols("x", file_path=str(tree / "blob.py"), line=1, ctx=nav_ctx).error_code == "binary_file"
    write(tree / ".env", "KEY=1\n")
    assert fstools.symbols("x", file_path=str(tree / ".env"), line=1, ctx=nav_ctx).error_code == "sensitive_path"
    assert fstools.symbols("x", file_path=str(tree / "nope.py"), line=1, ctx=nav_ctx).error_code == "file_not_found"
    assert fstools.symbols("x", line=3, ctx=nav_ctx).error_code == "invalid_argument"
    assert fstools.symbols("x", path=str(tree / "missing"), ctx=nav_ctx).error_code == "file_not_found"


def test_one_file_as_path(tree, nav_ctx):
    result = fstools.symbols("parse", path=str(tree / "parser.py"), ctx=nav_ctx)
    assert result.metadata["total"] == 3 and "index" not in result.metadata
    assert fstools.symbols("x", path=str(tree / "README.md"), ctx=nav_ctx).error_code == "invalid_argument"


def test_a_partial_parse_and_an_unparsable_file_are_reported(tree, nav_ctx, monkeypatch):
    write(tree / "broken.py", "def parse_config_broken(:\n    pass\n\ndef parse_config_after():\n    pass\n")
    result = fstools.symbols("parse_config", ctx=nav_ctx)
    assert f"{tree}/broken.py" in result.metadata["parse_errors"]
    assert any("parsed in part" in w and "broken.py:1" in w for w in result.metadata["warnings"])
    from fstools._nav import files

    monkeypatch.setattr(files, "MAX_SOURCE_BYTES", 100)  # a new file past this is not parsed
    write(tree / "big.py", "def parse_config_big():\n" + "    x = 1\n" * 40)
    result = fstools.symbols("parse_config", ctx=nav_ctx)
    assert "parse_config_big" not in result.output
    assert any("could not be parsed" in w and "big.py" in w for w in result.metadata["warnings"])
    alone = fstools.symbols("parse_config", path=str(tree / "big.py"), ctx=nav_ctx)
    assert any("could not be parsed" in w and "big.py" in w for w in alone.metadata["warnings"])


class Answering:
    """A resolver that knows one answer, as a language server would give it."""

    def __init__(self, where: Location | None) -> None:
        self.where = where

    def definitions(self, ctx, file_path, line, name):
        return [self.where] if self.where else None

    def references(self, ctx, file_path, line, name):
        return [self.where] if self.where else None


def test_a_resolver_answers_first_when_one_is_registered(tree, nav_ctx):
    resolver = Answering(Location(str(tree / "main.c"), 3, 5))
    resolve.register(resolver)
    try:
        result = fstools.symbols("parse_config", file_path=str(tree / "main.c"), line=4, ctx=nav_ctx)
        assert result.metadata["resolution"] == "language_server"
        assert [s["path"] for s in result.metadata["symbols"]] == [f"{tree}/main.c"]
        silent = Answering(None)
        resolve.unregister(resolver)
        resolve.register(silent)
        result = fstools.symbols("parse_config", file_path=str(tree / "main.c"), line=4, ctx=nav_ctx)
        assert result.metadata["resolution"] == "name" and result.metadata["total"] == 3
        resolve.unregister(silent)
    finally:
        resolve.unregister(resolver)


def test_the_cli(tree):
    out = fstools_cmd("symbols", "Parser.feed", "--root", str(tree), cwd=tree)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"{tree}/parser.py:7-9  method  Parser.feed  — def feed(self, data):"
    none = fstools_cmd("references", "zzz_nowhere", "--root", str(tree), cwd=tree)
    assert none.returncode == 1, none.stderr


def test_a_file_path_that_is_no_source_file_ranks_nothing_and_warns_of_nothing(tree, nav_ctx):
    # README.md holds the name but is not source: no claim that a grammar is missing
    for result in (
        fstools.symbols("parse_config", file_path=str(tree / "README.md"), line=1, ctx=nav_ctx),
        fstools.references("parse_config", file_path=str(tree / "README.md"), line=1, ctx=nav_ctx),
    ):
        assert result.success and result.metadata["total"] > 0
        assert "warnings" not in result.metadata, result.metadata.get("warnings")


def test_a_file_path_outside_the_candidates_keeps_every_answer_and_adds_none(tree, nav_ctx):
    write(tree / "empty.py", "x = 1\n")  # a source file without the name
    write(tree / "sub" / "inner.py", "from parser import parse_config\n\ndef parse_config_sub():\n    pass\n")
    plain = fstools.symbols("parse_config", exact=True, ctx=nav_ctx)
    seen = fstools.symbols("parse_config", exact=True, file_path=str(tree / "empty.py"), line=1, ctx=nav_ctx)
    assert seen.metadata["total"] == plain.metadata["total"] == 2
    uses = fstools.references("parse_config", ctx=nav_ctx).metadata["total"]
    assert (
        fstools.references("parse_config", file_path=str(tree / "empty.py"), line=1, ctx=nav_ctx).metadata["total"]
        == uses
    )
    # the seen file lies outside path: it ranks, its definitions are no answers
    inside = fstools.symbols("parse_config", path=str(tree / "sub"), file_path=str(tree / "parser.py"), ctx=nav_ctx)
    assert {s["path"] for s in inside.metadata["symbols"]} == {f"{tree}/sub/inner.py"}


def test_with_file_path_an_exact_name_still_ranks_before_a_longer_one_in_that_file(tree, nav_ctx):
    # the use of parse_config in other.py cannot mean parse_config_extra, defined beside it
    write(tree / "other.py", "def parse_config_extra():\n    pass\n\nparse_config()\n")
    result = fstools.symbols("parse_config", file_path=str(tree / "other.py"), line=4, ctx=nav_ctx)
    first = result.metadata["symbols"][0]
    assert first["name"] == "parse_config", result.metadata["symbols"]
    names = [s["name"] for s in result.metadata["symbols"]]
    assert names.index("parse_config_extra") > names.index("parse_config")
