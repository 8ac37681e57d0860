"""Glob: names with brackets, case-insensitive matching, exclude patterns, blank patterns."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import fstools
from tests.find.test_glob import backend, make, rels  # noqa: F401  (backend: the fixture below uses it)

# Every test runs once per walker, fd and rg.
pytestmark = pytest.mark.usefixtures("backend")


def run(pattern: str, ctx: fstools.ExecutionContext, **kw) -> fstools.ToolResult:
    r = fstools.glob(pattern, ctx=ctx, **kw)
    assert r.success, r.error
    return r


# Brackets ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "rel",
    ["file[1].txt", "app/[id]/(group)/page.tsx", "app/[...slug]/page.tsx", "a[b]c/[x].py", "dir]/x[.md"],
)
def test_a_name_with_brackets_is_found_by_its_literal_pattern(project, ctx, rel):
    make(project, rel, "file1.txt" if rel != "file[1].txt" else "other.txt")
    r = run(rel, ctx, path=str(project))
    assert rels(r, project) == [rel]
    # "x[.md" has no class (the bracket is never closed): it was literal from the start.
    assert r.metadata.get("literal_brackets", False) == (rel != "dir]/x[.md")


def test_a_bracket_class_that_matches_wins_over_the_literal_name(project, ctx):
    make(project, "file1.txt", "file[1].txt")
    r = run("file[1].txt", ctx)
    assert rels(r, project) == ["file1.txt"] and "literal_brackets" not in r.metadata


def test_literal_brackets_combine_with_wildcards(project, ctx):
    make(project, "app/[id]/page.tsx", "app/[id]/(group)/layout.tsx", "app/[id]/x.css", "app/x/page.tsx")
    r = run("app/[id]/**/*.tsx", ctx)
    assert sorted(rels(r, project)) == ["app/[id]/(group)/layout.tsx", "app/[id]/page.tsx"]
    make(project, "app/i/page.tsx")  # now the class matches a directory: it is a class again
    assert rels(run("app/[id]/**/*.tsx", ctx), project) == ["app/i/page.tsx"]


def test_brackets_matching_nothing_either_way_find_nothing(project, ctx):
    make(project, "file2.txt")
    r = run("file[1].txt", ctx)
    assert r.output == "" and r.metadata["count"] == 0


def test_an_absolute_pattern_with_brackets(project, ctx):
    make(project, "app/[id]/page.tsx")
    r = run(str(project / "app/[id]/page.tsx"), ctx)
    assert rels(r, project) == ["app/[id]/page.tsx"]


# Case -----------------------------------------------------------------------------------------


def test_case_sensitive_by_default_and_insensitive_on_request(project, ctx):
    make(project, "FileB.TXT", "a.txt", "docs/Notes.Txt", "c.md")
    assert rels(run("*.txt", ctx), project) == ["a.txt"]
    r = run("**/*.txt", ctx, case_sensitive=False)
    assert sorted(rels(r, project)) == ["FileB.TXT", "a.txt", "docs/Notes.Txt"]
    assert sorted(rels(run("*.txt", ctx, case_sensitive=False), project)) == ["FileB.TXT", "a.txt"]


def test_case_insensitive_directories_too(project, ctx):
    make(project, "Src/Main.PY", "src2/main.py", "other/main.py")
    r = run("src/*.py", ctx, case_sensitive=False)
    assert rels(r, project) == ["Src/Main.PY"]
    assert run("src/*.py", ctx).output == ""


def test_case_insensitive_absolute_pattern_keeps_its_directory(project, ctx):
    make(project, "sub/Read.ME")
    r = run(str(project / "sub" / "*.me"), ctx, case_sensitive=False)
    assert rels(r, project) == ["sub/Read.ME"]


def test_case_sensitive_accepts_the_strings_models_send(project, ctx):
    make(project, "X.TXT")
    r = fstools.create_registry().run("Glob", ctx, pattern="*.txt", case_sensitive="false")
    assert rels(r, project) == ["X.TXT"]


# Blank patterns --------------------------------------------------------------------------------


@pytest.mark.parametrize("pattern", ["", " ", "\t", "  \n "])
def test_blank_patterns_are_invalid(project, ctx, pattern):
    r = fstools.glob(pattern, ctx=ctx)
    assert not r.success and r.error_code == "invalid_argument" and "must not be empty" in r.error


# Exclude ---------------------------------------------------------------------------------------


@pytest.fixture
def tree(project: Path) -> Path:
    make(
        project,
        "src/app.ts",
        "src/app.test.ts",
        "src/gen/api.ts",
        "src/lib/gen/inner.ts",
        "dist/app.ts",
        "lib/x.min.ts",
        "lib/x.ts",
    )
    return project


@pytest.mark.parametrize(
    "exclude,expected",
    [
        (
            ["dist"],
            {"src/app.ts", "src/app.test.ts", "src/gen/api.ts", "src/lib/gen/inner.ts", "lib/x.min.ts", "lib/x.ts"},
        ),
        (
            ["*.test.ts", "*.min.ts"],
            {"src/app.ts", "src/gen/api.ts", "src/lib/gen/inner.ts", "dist/app.ts", "lib/x.ts"},
        ),
        (["gen"], {"src/app.ts", "src/app.test.ts", "dist/app.ts", "lib/x.min.ts", "lib/x.ts"}),
        (
            ["src/gen/**"],
            {"src/app.ts", "src/app.test.ts", "src/lib/gen/inner.ts", "dist/app.ts", "lib/x.min.ts", "lib/x.ts"},
        ),
        (
            ["src/gen"],
            {"src/app.ts", "src/app.test.ts", "src/lib/gen/inner.ts", "dist/app.ts", "lib/x.min.ts", "lib/x.ts"},
        ),
        (["/src/"], {"dist/app.ts", "lib/x.min.ts", "lib/x.ts"}),
        (["**/gen/**", "dist/"], {"src/app.ts", "src/app.test.ts", "lib/x.min.ts", "lib/x.ts"}),
        (["lib/*.ts"], {"src/app.ts", "src/app.test.ts", "src/gen/api.ts", "src/lib/gen/inner.ts", "dist/app.ts"}),
    ],
)
def test_exclude_patterns(tree, ctx, exclude, expected):
    r = run("**/*.ts", ctx, exclude=exclude)
    assert set(rels(r, tree)) == expected
    assert r.metadata["count"] == len(expected)


def test_path_excludes_are_relative_to_path_even_when_the_pattern_narrows_the_walk(tree, ctx):
    r = run("src/**/*.ts", ctx, exclude=["src/gen/**"])
    assert sorted(rels(r, tree)) == ["src/app.test.ts", "src/app.ts", "src/lib/gen/inner.ts"]
    r = run("**/*.ts", ctx, path=str(tree / "src"), exclude=["gen/**"])
    assert sorted(rels(r, tree)) == ["src/app.test.ts", "src/app.ts", "src/lib/gen/inner.ts"]


@pytest.mark.parametrize("exclude", ["a[b.ts", "{a,b.ts", "[äö]x.ts", "*[!x].test.ts"])
def test_name_excludes_the_walker_cannot_read_exactly(tree, ctx, exclude):
    # An unclosed `[` or `{` is literal (as in patterns), not an rg error that empties the listing.
    make(tree, "src/a[b.ts", "src/{a,b.ts", "deep/äx.ts", "src/z.test.ts")
    r = run("**/*.ts", ctx, exclude=[exclude])
    gone = {"a[b.ts": {"src/a[b.ts"}, "{a,b.ts": {"src/{a,b.ts"}, "[äö]x.ts": {"deep/äx.ts"}}
    tests = {"src/app.test.ts", "src/z.test.ts"}
    everything = {"src/a[b.ts", "src/{a,b.ts", "deep/äx.ts", "src/z.test.ts", "src/app.test.ts"}
    everything |= {"src/app.ts", "src/gen/api.ts", "src/lib/gen/inner.ts", "dist/app.ts", "lib/x.min.ts", "lib/x.ts"}
    assert set(rels(r, tree)) == everything - gone.get(exclude, tests)
    assert not any("glob" in w for w in r.metadata.get("warnings", []))


def test_one_exclude_string_is_taken_as_a_list(tree, ctx):
    r = fstools.create_registry().run("Glob", ctx, pattern="**/*.ts", exclude="dist")
    assert "dist/app.ts" not in rels(r, tree) and r.metadata["count"] == 6


@pytest.mark.parametrize("bad", [[""], ["  "], ["/"], ["a\x00b"], ["[z-a].ts"]])
def test_bad_exclude_patterns_are_invalid(tree, ctx, bad):
    r = fstools.glob("**/*.ts", ctx=ctx, exclude=bad)
    assert r.error_code == "invalid_argument" and "exclude" in r.error


def test_exclude_never_reveals_what_the_default_excludes_hide(tree, ctx):
    make(tree, "node_modules/m/index.ts")
    r = run("**/*.ts", ctx, exclude=["dist"])
    assert not any(p.startswith("node_modules") for p in rels(r, tree))
    assert os.path.exists(tree / "node_modules/m/index.ts")


def test_excludes_a_walker_could_not_start_with_are_invalid(tree, ctx):
    r = fstools.glob("*", str(tree), exclude=["x" * 4000] * 2000, ctx=ctx)
    assert r.error_code == "invalid_argument" and "more than" in r.error
    assert fstools.glob("*", str(tree), exclude=["x" * 4000] * 10, ctx=ctx).success
