"""The ignore rules above a walk's base: every walk applies them as git does, from any directory."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

import fstools
from fstools._core.binaries import find_binary
from fstools._walk import parents
from fstools._walk.parents import parse_rules, rebased, remainders, repository_of
from tests.helpers.binaries import requires_fd
from tests.helpers.trees import git, linked_worktree, write


def rels(paths: list[str], root: Path) -> list[str]:
    return sorted(os.path.relpath(p, root) for p in paths)


def glob_files(ctx: fstools.ExecutionContext, base: Path, root: Path, **kw: object) -> list[str]:
    r = fstools.glob("**", path=str(base), ctx=ctx, **kw)
    assert r.success, r.output
    return rels(r.metadata["files"], root)


def grep_files(ctx: fstools.ExecutionContext, base: Path, root: Path) -> list[str]:
    r = fstools.grep("needle", path=str(base), ctx=ctx)
    assert r.success, r.output
    return rels([f["path"] for f in r.metadata["files"]], root)


@pytest.fixture
def ctx(project: Path) -> fstools.ExecutionContext:
    return fstools.ExecutionContext(working_dir=str(project), search_index="off")


@pytest.fixture(params=["rg", "fd"])
def walker(request, monkeypatch):
    if request.param == "fd":
        if find_binary.__wrapped__("fd") is None:
            pytest.skip("needs fd")
        monkeypatch.setenv("FSTOOLS_RG", "")
    find_binary.cache_clear()
    yield request.param
    find_binary.cache_clear()


def test_a_parents_anchored_rule_is_matched_from_its_own_directory(project, ctx, walker):
    (project / ".ignore").write_text("/a/*/b\n")
    write(project / "a/src/f/b/foo", "needle\n")
    write(project / "a/src/b/gone", "needle\n")  # `/a/*/b` is `a/src/b`
    assert glob_files(ctx, project / "a/src", project) == ["a/src/f/b/foo"]
    if walker == "rg":
        assert grep_files(ctx, project / "a/src", project) == ["a/src/f/b/foo"]


def test_a_parents_rules_neither_hide_nor_let_through_the_wrong_files(project, ctx, walker):
    git("init", "-q", cwd=project)
    (project / ".gitignore").write_text("/parent/*.txt\n**/bar/*\ntarget/\n")
    for name in ("parent/subdir/dont-ignore-me.txt", "parent/top.txt", "q/bar/z", "q/y", "c/target/x", "c/k"):
        write(project / name, "needle\n")
    assert glob_files(ctx, project / "parent", project) == ["parent/subdir/dont-ignore-me.txt"]
    assert glob_files(ctx, project / "q", project) == ["q/y"]
    assert glob_files(ctx, project / "c", project) == ["c/k"]
    if walker == "rg":
        assert grep_files(ctx, project / "parent", project) == ["parent/subdir/dont-ignore-me.txt"]
        assert grep_files(ctx, project / "q", project) == ["q/y"]
        assert grep_files(ctx, project / "c", project) == ["c/k"]


def test_a_nested_repository_is_not_governed_by_the_outer_ones_gitignore(project, ctx, walker):
    (project / ".gitignore").write_text("build\n")
    write(project / "sub/build/out.txt", "needle\n")
    write(project / "build/x", "needle\n")
    git("init", "-q", cwd=project)
    git("init", "-q", cwd=project / "sub")
    assert glob_files(ctx, project / "sub", project) == ["sub/build/out.txt"]
    if walker == "rg":  # fd 8.6 has no switch for a repository boundary inside its walk
        assert glob_files(ctx, project, project) == ["sub/build/out.txt"]
        assert grep_files(ctx, project / "sub", project) == ["sub/build/out.txt"]


def test_a_linked_worktree_uses_the_main_repositorys_exclude_file(tmp_path, walker):
    main, tree = tmp_path / "main", tmp_path / "wt"
    linked_worktree(main, tree, "kept.txt", "needle\n")
    (main / ".git/info/exclude").write_text("*.local\n")
    write(tree / "secret.local", "needle\n")
    write(tree / "d/other.local", "needle\n")
    write(tree / "d/f.txt", "needle\n")
    ctx = fstools.ExecutionContext(working_dir=str(tree), search_index="off")
    assert glob_files(ctx, tree, tree) == ["d/f.txt", "kept.txt"]
    assert glob_files(ctx, tree / "d", tree) == ["d/f.txt"]
    if walker == "rg":
        assert grep_files(ctx, tree / "d", tree) == ["d/f.txt"]


def test_hidden_files_below_a_parents_ignore_rule(project, ctx, walker):
    (project / ".ignore").write_text(".foo\n")
    write(project / "a/b/.foo", "x")
    write(project / "a/b/kept", "x")
    assert glob_files(ctx, project / "a/b", project, hidden=True) == ["a/b/kept"]


def test_a_walk_inside_an_ignored_directory_lists_its_files(project, ctx, walker):
    (project / ".ignore").write_text("gen/\n/a/**/deep\n")
    write(project / "gen/x.c", "x")
    write(project / "a/b/deep", "x")
    write(project / "a/b/c/deep", "x")
    write(project / "a/b/keep", "x")
    assert glob_files(ctx, project / "gen", project) == ["gen/x.c"]
    assert glob_files(ctx, project / "a/b", project) == ["a/b/keep"]


@requires_fd
def test_ls_applies_an_escaped_slash_and_warns_of_nothing_without_gitignore(project, ctx):
    (project / ".ignore").write_text("foo\\/\n")
    write(project / "foo/a", "x")
    write(project / "bar/foo", "x")
    r = fstools.ls(str(project), respect_gitignore=True, ctx=ctx)
    assert [e["name"] for e in r.metadata["entries"]] == ["bar"]
    assert "warnings" not in r.metadata
    (project / "sub").mkdir()
    (project / ".gitignore").write_text("/sub/skip\n")
    write(project / "sub/skip", "x")
    write(project / "sub/keep", "x")
    r = fstools.ls(str(project / "sub"), respect_gitignore=True, ctx=ctx)
    assert [e["name"] for e in r.metadata["entries"]] == ["keep"]
    assert "warnings" not in r.metadata


@requires_fd
def test_glob_over_fd_applies_an_escaped_slash(project, ctx, monkeypatch):
    monkeypatch.setenv("FSTOOLS_RG", "")
    find_binary.cache_clear()
    try:
        (project / ".ignore").write_text("foo\\/\n")
        write(project / "foo/a", "x")
        write(project / "bar/foo", "x")
        r = fstools.glob("**", path=str(project), ctx=ctx)
        assert r.metadata["backend"] == "fd" and rels(r.metadata["files"], project) == ["bar/foo"]
    finally:
        find_binary.cache_clear()


def test_the_index_listing_applies_the_parents_rules(project):
    from fstools._index.listing import Filters, tree_files

    git("init", "-q", cwd=project)
    (project / ".gitignore").write_text("/a/*/b\n")
    write(project / "a/src/f/b/foo", "x")
    write(project / "a/src/b/gone", "x")
    listed = tree_files(str(project / "a/src"), Filters.of((), 10_000_000))
    assert rels(listed, project) == ["a/src/f/b/foo"]


# The rewriting itself.


def test_remainders_follow_each_directory_of_the_prefix():
    assert remainders(("a", "*", "b"), ["a", "src"]) == [("b",)]
    assert remainders(("a", "*", "b"), ["x"]) == []
    assert remainders(("a", "*", "b"), ["a", "src", "b"]) == []  # the base itself: dropped
    assert remainders(("**", "bar", "*"), ["q"]) == [("**", "bar", "*"), ("bar", "*")]
    assert remainders(("**", "bar", "*"), ["bar"]) == [("**", "bar", "*"), ("bar", "*"), ("*",)]
    assert remainders(("a", "**"), ["a", "b"]) == [("**",)]
    assert remainders(("[!x]?", "c"), ["ab"]) == [("c",)]
    assert remainders(("\\*", "c"), ["ab"]) == []


def test_rules_are_parsed_as_git_reads_them():
    rules = parse_rules("# c\n\n!keep\n/a/b/\nname \nesc\\ \n\\#lit\nx\\/\n")
    assert [(r.text, r.negated, r.dir_only, r.parts) for r in rules] == [
        ("keep", True, False, None),
        ("a/b", False, True, ("a", "b")),
        ("name", False, False, None),
        ("esc\\ ", False, False, None),
        ("\\#lit", False, False, None),
        ("x", False, True, None),
    ]
    assert rebased(parse_rules("/a/*/b\n!*.log\n"), ["a", "s"], "/") == ["/b", "!*.log"]
    assert rebased(parse_rules("/a/*/b/\n"), ["a", "s"], "/r\\[1\\]/") == ["/r\\[1\\]/b/"]


def test_repository_of_a_worktree_names_the_main_repositorys_directory(tmp_path):
    main, tree = tmp_path / "m", tmp_path / "w"
    linked_worktree(main, tree)
    repo = repository_of(str(tree / "x"))
    assert repo is not None and repo.top == str(tree)
    assert repo.common_dir is not None and os.path.samefile(repo.common_dir, main / ".git")
    assert repository_of("/") is None or repository_of("/").top == "/"


def test_the_rules_file_is_written_once_per_content_and_survives_a_cleaner(monkeypatch):
    first = parents.write_rules_file(["/a"])
    assert parents.write_rules_file(["/a"]) == first
    os.remove(first)
    again = parents.write_rules_file(["/a"])
    assert again == first and open(again).read() == "/a\n"


def test_a_worktrees_rule_files_name_the_main_repositorys_exclude(tmp_path):
    from fstools._walk.ignorefiles import outside_rule_files

    main, tree = tmp_path / "m", tmp_path / "w"
    linked_worktree(main, tree)
    watched = {os.path.realpath(p) for p in outside_rule_files(str(tree))}
    assert os.path.realpath(main / ".git" / "info" / "exclude") in watched


def _global_ignore(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rules: str, *, config: bool) -> None:
    """A home of its own whose global git ignore file holds `rules`: git's default one, or one
    `core.excludesFile` names in `~/.gitconfig`."""
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    if config:
        write(home / ".gitconfig", '[user]\n\tname = t\n[core]\n\texcludesFile = "~/my ignores"\n')
        write(home / "my ignores", rules)
    else:
        write(home / ".config/git/ignore", rules)


@pytest.mark.parametrize("config", [False, True], ids=["default file", "core.excludesFile"])
def test_the_global_ignore_file_is_anchored_at_the_repositorys_top(tmp_path, monkeypatch, config):
    project = tmp_path / "project"
    project.mkdir()
    git("init", "-q", cwd=project)
    _global_ignore(tmp_path, monkeypatch, "/a/src/b\n*.log\n", config=config)
    for name in ("a/src/b/x", "a/src/c/y", "a/src/k.log", "a/src/src/b/q"):
        write(project / name, "needle\n")
    out = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard"], cwd=project, check=True, capture_output=True, text=True
    )
    wanted = sorted(out.stdout.split())
    assert wanted == ["a/src/c/y", "a/src/src/b/q"]
    ctx = fstools.ExecutionContext(working_dir=str(project), search_index="off")
    for base in (project, project / "a/src"):
        assert glob_files(ctx, base, project) == wanted, base
        assert grep_files(ctx, base, project) == wanted, base
    from fstools._index.listing import Filters, tree_files

    assert rels(tree_files(str(project), Filters.of((), 10_000_000)), project) == wanted


def test_the_global_ignore_file_is_found_as_git_finds_it(tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "xdg"))
    assert parents.global_ignore_file() == str(home / "xdg/git/ignore")
    write(home / "xdg/git/config", "[core]\n\texcludesfile = /from/xdg\n")
    assert parents.global_ignore_file() == "/from/xdg"
    # ~/.gitconfig outranks the XDG file; the last setting in a file wins; quotes, escapes, comments.
    write(home / ".gitconfig", '[Core]\n  excludesFile = first\n[core] ExcludesFile = "~/a \\"b\\";c" ; note\n')
    assert parents.global_ignore_file() == str(home / 'a "b";c')
    write(home / ".gitconfig", '[core "x"]\n\texcludesFile = /sub\n[user]\n\texcludesFile = /user\n')
    assert parents.global_ignore_file() == "/from/xdg"


def test_a_forked_childs_exit_leaves_the_scratch_directory_alone(project, ctx):
    from fstools._core.cachedir import scratch_dir

    first = parents.write_rules_file(["/fork"])
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            import atexit

            atexit._run_exitfuncs()  # what a child's normal exit runs
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    assert os.path.exists(first)
    assert scratch_dir() == os.path.dirname(first)


def test_a_removed_scratch_directory_is_made_anew_and_private(project, ctx, walker):
    import shutil
    import stat

    from fstools._core.cachedir import scratch_dir

    old = os.path.dirname(parents.write_rules_file(["/gone"]))
    shutil.rmtree(old)  # a cleaner of the temporary directory
    write(project / "f", "needle\n")
    assert glob_files(ctx, project, project) == ["f"]  # the confined walker needs it
    new = scratch_dir()
    assert new is not None and new != old  # never the old name, which another user may have taken
    st = os.lstat(new)
    assert stat.S_ISDIR(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o700 and st.st_uid == os.geteuid()
    again = parents.write_rules_file(["/gone"])
    assert os.path.dirname(again) == new and open(again).read() == "/gone\n"


def test_the_global_ignore_file_applies_inside_a_nested_repository(tmp_path, monkeypatch, walker):
    project = tmp_path / "project"
    project.mkdir()
    git("init", "-q", cwd=project)
    _global_ignore(tmp_path, monkeypatch, "*.log\n/top.txt\n", config=False)
    (project / ".gitignore").write_text("build\n!keep.log\n")
    for name in ("a.log", "keep.log", "top.txt", "sub/a.log", "sub/top.txt", "sub/b/top.txt", "sub/build/x"):
        write(project / name, "needle\n")
    git("init", "-q", cwd=project / "sub")
    ctx = fstools.ExecutionContext(working_dir=str(project), search_index="off")
    wanted = [".gitignore", "keep.log", "sub/b/top.txt", "sub/build/x"]  # as git lists them, repository by repository
    assert glob_files(ctx, project, project) == [w for w in wanted if not w.startswith(".")]
    if walker == "rg":
        assert grep_files(ctx, project, project) == ["keep.log", "sub/b/top.txt", "sub/build/x"]


@pytest.mark.parametrize("bad", ["x[", "foo\\", "a{", "{a,{b}}", "[z-a]", "[]"])
def test_a_parents_line_rg_cannot_read_fails_no_walk(project, ctx, walker, bad):
    git("init", "-q", cwd=project)
    (project / ".gitignore").write_text(f"{bad}\n/a/src/b\n")
    write(project / "a/src/b/x", "needle\n")
    write(project / "a/src/c/y", "needle\n")
    assert glob_files(ctx, project / "a/src", project) == ["a/src/c/y"]
    if walker == "rg":
        assert grep_files(ctx, project / "a/src", project) == ["a/src/c/y"]
    assert parse_rules(f"{bad}\n/a/src/b\n") == parse_rules("/a/src/b\n")
