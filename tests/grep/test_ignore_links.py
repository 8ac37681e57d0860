"""Ignore files that are links to a secret or out of the allowed directories never shape Grep's results.

Real rg on real trees. Each case searches twice, with two contents of the forbidden target:
one whose lines would hide a file that holds the pattern, one that hides nothing. The
results must be the same (the target's content has no effect) and a warning says why.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import fstools
from fstools._core.confinement import landlock
from fstools._index.build import build
from tests.helpers.ignorelinks import HIDES, HIDES_NOTHING, lines, twice
from tests.helpers.trees import write


@pytest.fixture(params=["landlock", "no_landlock"])
def confinement(request, monkeypatch) -> str:
    """Every case with and without Landlock (where the kernel has it)."""
    if request.param == "no_landlock":
        monkeypatch.setattr(landlock, "abi", 0)
    elif not landlock.usable():
        pytest.skip("this kernel has no Landlock")
    return str(request.param)


def _repo(root: Path) -> None:
    """rg reads .gitignore files only inside a git repository."""
    (root / ".git").mkdir(parents=True, exist_ok=True)


def test_a_gitignore_linked_to_a_secret_has_no_effect_and_its_directory_is_named(project, ctx, confinement):
    _repo(project)
    write(project / "top.txt", "needle\n")
    write(project / "sub" / "hidden.txt", "needle\n")
    write(project / "sub" / "seen.txt", "needle\n")
    os.symlink("../.env", project / "sub" / ".gitignore")
    hiding, harmless = twice(project / ".env", lambda: fstools.grep("needle", ctx=ctx))
    assert lines(hiding) == lines(harmless) == [str(project / "top.txt")]
    warning = next(w for w in hiding.metadata["warnings"] if w.startswith("Not searched"))
    assert str(project / "sub") in warning and "sensitive" in warning and "respect_gitignore=false" in warning
    # The directory itself, searched without ignore files, shows everything.
    direct = fstools.grep("needle", path=str(project / "sub"), respect_gitignore=False, ctx=ctx)
    assert lines(direct) == [str(project / "sub" / "hidden.txt"), str(project / "sub" / "seen.txt")]


@pytest.mark.parametrize("mode", ["files_with_matches", "content", "count"])
@pytest.mark.parametrize("head_limit", [0, 100])
def test_every_output_mode_keeps_the_link_out(project, ctx, mode, head_limit):
    _repo(project)
    write(project / "a.txt", "needle\n")
    write(project / "sub" / "hidden.txt", "needle\n")
    os.symlink("../.ENV", project / "sub" / ".ignore")  # secrets match in any case
    hiding, harmless = twice(
        project / ".ENV", lambda: fstools.grep("needle", ctx=ctx, output_mode=mode, head_limit=head_limit)
    )
    assert hiding.output == harmless.output
    assert str(project / "sub" / "hidden.txt") not in hiding.output
    assert str(project / "a.txt") in hiding.output
    assert any(str(project / "sub") in w for w in hiding.metadata["warnings"])


def test_a_link_to_a_file_outside_the_roots_has_no_effect(tmp_path, project, ctx, confinement):
    _repo(project)
    write(project / "sub" / "hidden.txt", "needle\n")
    write(project / "sub" / "seen.txt", "needle\n")
    outside = tmp_path / "outside-rules"
    os.symlink(outside, project / "sub" / ".rgignore")
    hiding, harmless = twice(outside, lambda: fstools.grep("needle", ctx=ctx))
    # Left out before rg starts, whether or not Landlock would keep rg from opening it.
    assert lines(hiding) == lines(harmless) == ["No matches found"]
    assert any(
        "outside the allowed directories" in w and str(project / "sub") in w for w in hiding.metadata["warnings"]
    )


def test_a_link_to_a_readable_file_inside_the_root_keeps_working(project, ctx, confinement):
    _repo(project)
    write(project / "rules" / "shared-ignore", HIDES)
    write(project / "sub" / "hidden.txt", "needle\n")
    write(project / "sub" / "seen.txt", "needle\n")
    os.symlink("../rules/shared-ignore", project / "sub" / ".gitignore")
    r = fstools.grep("needle", ctx=ctx)
    assert lines(r) == [str(project / "sub" / "seen.txt")]
    assert not r.metadata["warnings"]


def test_nested_links_exclude_only_their_own_directories(project, ctx):
    _repo(project)
    write(project / "a" / "keep.txt", "needle\n")
    write(project / "a" / "b" / "hidden.txt", "needle\n")
    write(project / "a" / "b" / "c" / "deep.txt", "needle\n")
    write(project / "x" / "hidden.txt", "needle\n")
    write(project / "x" / "y" / "keep.txt", "needle\n")
    os.symlink("../../.env", project / "a" / "b" / ".gitignore")
    os.symlink("../../.env.local", project / "x" / "y" / ".ignore")
    write(project / ".env.local", HIDES)
    hiding, harmless = twice(project / ".env", lambda: fstools.grep("needle", ctx=ctx))
    assert lines(hiding) == lines(harmless) == [str(project / "a" / "keep.txt"), str(project / "x" / "hidden.txt")]
    named = " ".join(hiding.metadata["warnings"])
    assert str(project / "a" / "b") in named and str(project / "x" / "y") in named


def test_a_directory_name_with_glob_characters_is_excluded_literally(project, ctx):
    _repo(project)
    odd = project / "a[b]*{c}"
    write(odd / "hidden.txt", "needle\n")
    write(project / "ab" / "hidden.txt", "needle\n")  # what `a[b]*` would match as a glob
    os.symlink("../.env", odd / ".gitignore")
    hiding, harmless = twice(project / ".env", lambda: fstools.grep("needle", ctx=ctx))
    assert lines(hiding) == lines(harmless) == [str(project / "ab" / "hidden.txt")]


def test_a_directory_name_with_a_newline_is_excluded_literally(project, ctx):
    _repo(project)
    odd = project / "line\nbreak"
    write(odd / "hidden.txt", "needle\n")
    write(project / "plain.txt", "needle\n")
    os.symlink("../.env", odd / ".gitignore")
    hiding, harmless = twice(project / ".env", lambda: fstools.grep("needle", ctx=ctx))
    assert lines(hiding) == lines(harmless) == [str(project / "plain.txt")]


def test_the_searched_directory_s_own_link_turns_that_kind_of_rule_off(project, ctx, confinement):
    _repo(project)
    write(project / "hidden.txt", "needle\n")
    write(project / "built.o", "needle\n")
    write(project / "sub" / ".gitignore", "*.o\n")  # a regular .gitignore: rules of its kind are off too
    write(project / "sub" / "also.o", "needle\n")
    write(project / ".ignore", "*.o\n")  # another kind: still applied
    os.symlink(".env", project / ".gitignore")
    hiding, harmless = twice(project / ".env", lambda: fstools.grep("needle", ctx=ctx))
    assert lines(hiding) == lines(harmless) == [str(project / "hidden.txt")]
    assert any(w.startswith("No .gitignore rules were applied") for w in hiding.metadata["warnings"])


def test_a_link_above_the_searched_directory_is_not_applied(tmp_path, confinement):
    repo = tmp_path / "repo"
    _repo(repo)
    root = repo / "project"
    write(root / "hidden.txt", "needle\n")
    os.symlink(".env", repo / ".gitignore")
    ctx = fstools.ExecutionContext(working_dir=str(root))
    hiding, harmless = twice(repo / ".env", lambda: fstools.grep("needle", ctx=ctx))
    assert lines(hiding) == lines(harmless) == [str(root / "hidden.txt")]
    if confinement == "no_landlock":
        assert any("above" in w and str(repo / ".gitignore") in w for w in hiding.metadata["warnings"])


def test_a_plain_ignore_file_above_the_root_still_applies(tmp_path):
    repo = tmp_path / "repo"
    _repo(repo)
    root = repo / "project"
    write(root / "hidden.txt", "needle\n")
    write(root / "seen.txt", "needle\n")
    write(repo / ".gitignore", HIDES)
    ctx = fstools.ExecutionContext(working_dir=str(root), allowed_dirs=[str(repo)])
    r = fstools.grep("needle", ctx=ctx)
    assert lines(r) == [str(root / "seen.txt")] and not r.metadata["warnings"]


def test_the_repository_exclude_file_as_a_link_is_not_applied(project, ctx):
    _repo(project)
    (project / ".git" / "info").mkdir()
    write(project / "hidden.txt", "needle\n")
    os.symlink("../../.env", project / ".git" / "info" / "exclude")
    hiding, harmless = twice(project / ".env", lambda: fstools.grep("needle", ctx=ctx))
    assert lines(hiding) == lines(harmless) == [str(project / "hidden.txt")]
    assert any("info/exclude" in w for w in hiding.metadata["warnings"])


def test_an_empty_result_s_probe_is_guarded_too(project, ctx):
    """Nothing matches: the probe's listing run reads ignore files as well, and is discarded with the rest."""
    _repo(project)
    write(project / "sub" / "big.bin", "x" * 2048)
    os.symlink("../.env", project / "sub" / ".gitignore")
    small = fstools.ExecutionContext(working_dir=str(project), grep_max_filesize=1024)
    project.joinpath(".env").write_text("big.bin\n")
    first = fstools.grep("absent", ctx=small)
    project.joinpath(".env").write_text(HIDES_NOTHING)
    second = fstools.grep("absent", ctx=small)
    assert first.metadata["skipped"] == second.metadata["skipped"]
    assert first.metadata["skipped"]["too_large"] == 0


def test_without_ignore_files_nothing_is_excluded(project, ctx):
    _repo(project)
    write(project / "sub" / "hidden.txt", "needle\n")
    os.symlink("../.env", project / "sub" / ".gitignore")
    write(project / ".env", HIDES)
    r = fstools.grep("needle", ctx=ctx, respect_gitignore=False)
    assert lines(r) == [str(project / "sub" / "hidden.txt")] and not r.metadata["warnings"]


def test_no_index_is_built_over_a_forbidden_link(project, ctx):
    _repo(project)
    write(project / "a.txt", "needle\n")
    (project / "a").mkdir()
    os.symlink("../.env", project / "a" / ".gitignore")
    with pytest.raises(ValueError, match="sensitive"):
        build(str(project))
    assert fstools.grep("needle", ctx=ctx).metadata["index"] != "used"


def test_an_index_over_a_harmless_link_is_built(project, ctx):
    _repo(project)
    write(project / "rules", HIDES)
    write(project / "sub" / "hidden.txt", "needle\n")
    write(project / "sub" / "seen.txt", "needle\n")
    os.symlink("../rules", project / "sub" / ".gitignore")
    build(str(project))
    r = fstools.grep("needle", ctx=ctx)
    assert r.metadata["index"] == "used" and lines(r) == [str(project / "sub" / "seen.txt")]


# The remembered walk ------------------------------------------------------------------


def test_a_link_moved_into_place_between_two_searches_is_kept_out(project, ctx):
    _repo(project)
    write(project / ".env", HIDES)
    write(project / "sub" / "hidden.txt", "needle\n")
    os.symlink("../.env", project / "sub" / "notes")
    assert lines(fstools.grep("needle", ctx=ctx)) == [str(project / "sub" / "hidden.txt")]
    moved = fstools.move(str(project / "sub" / "notes"), str(project / "sub" / ".gitignore"), ctx=ctx)
    if moved.success:  # Move may refuse a link to a secret itself; if it moves it, Grep keeps it out
        r = fstools.grep("needle", ctx=ctx)
        assert lines(r) == ["No matches found"] and any(str(project / "sub") in w for w in r.metadata["warnings"])
    else:
        assert moved.error_code == "sensitive_path"


def test_the_global_git_ignore_file_inside_the_roots_as_a_link_is_not_applied(project, ctx, monkeypatch):
    _repo(project)
    config = project / "home-config"
    (config / "git").mkdir(parents=True)
    os.symlink("../../.env", config / "git" / "ignore")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    write(project / "hidden.txt", "needle\n")
    hiding, harmless = twice(project / ".env", lambda: fstools.grep("needle", ctx=ctx))
    assert lines(hiding) == lines(harmless) == [str(project / "hidden.txt")]
    assert any("global git ignore" in w for w in hiding.metadata["warnings"])


def test_the_global_git_ignore_file_outside_the_roots_is_the_user_s_and_applies(tmp_path, project, ctx, monkeypatch):
    """Without Landlock, which grants no file through a link, rg reads it: a dotfiles link stays trusted."""
    monkeypatch.setattr(landlock, "abi", 0)
    _repo(project)
    dotfiles = tmp_path / "dotfiles"
    write(dotfiles / "gitignore", HIDES)
    (tmp_path / "config" / "git").mkdir(parents=True)
    os.symlink(dotfiles / "gitignore", tmp_path / "config" / "git" / "ignore")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    write(project / "hidden.txt", "needle\n")
    write(project / "seen.txt", "needle\n")
    r = fstools.grep("needle", ctx=ctx)
    assert lines(r) == [str(project / "seen.txt")] and not r.metadata["warnings"]


def test_the_remembered_walk_sees_a_link_made_after_it(project, monkeypatch):
    from fstools._walk import linkscan

    monkeypatch.setattr(linkscan, "RACY_NS", 0)  # trust every mtime: the test makes its changes fast
    monkeypatch.setattr(linkscan, "FRESH_NS", 0)  # check again at every call: what is tested is the memory
    monkeypatch.setattr(linkscan, "_trees", {})
    write(project / "a" / "b" / "f.txt", "x\n")
    write(project / ".hidden" / "f.txt", "x\n")
    assert linkscan.linked_ignore_files(str(project), hidden=False) == []
    os.symlink("../../.env", project / "a" / "b" / ".ignore")
    assert linkscan.linked_ignore_files(str(project), hidden=False) == [str(project / "a" / "b" / ".ignore")]
    os.symlink("../.env", project / ".hidden" / ".gitignore")
    assert str(project / ".hidden" / ".gitignore") not in linkscan.linked_ignore_files(str(project), hidden=False)
    assert str(project / ".hidden" / ".gitignore") in linkscan.linked_ignore_files(str(project), hidden=True)
    os.unlink(project / "a" / "b" / ".ignore")
    assert linkscan.linked_ignore_files(str(project), hidden=False) == []


def test_the_remembered_walk_sees_a_link_made_right_after_it_with_the_mtime_put_back(project, monkeypatch):
    """A second change within the same clock tick leaves the mtime as it was: the walk still sees the link."""
    from fstools._walk import linkscan

    monkeypatch.setattr(linkscan, "FRESH_NS", 0)

    monkeypatch.setattr(linkscan, "_trees", {})
    write(project / "d" / "f.txt", "x\n")
    assert linkscan.linked_ignore_files(str(project), hidden=False) == []
    stamp = os.stat(project / "d")
    os.symlink("../.env", project / "d" / ".rgignore")
    os.utime(project / "d", ns=(stamp.st_atime_ns, stamp.st_mtime_ns))  # as if in the same clock tick
    assert linkscan.linked_ignore_files(str(project), hidden=False) == [str(project / "d" / ".rgignore")]


def test_two_links_in_one_directory_or_below_it_exclude_it_once(project, ctx):
    _repo(project)
    write(project / "top.txt", "needle\n")
    write(project / "sub" / "hidden.txt", "needle\n")
    write(project / "sub" / "deeper" / "f.txt", "x\n")
    os.symlink("../../.env", project / "sub" / "deeper" / ".gitignore")
    os.symlink("../.env", project / "sub" / ".gitignore")
    os.symlink("../.env", project / "sub" / ".ignore")
    os.symlink(".env", project / ".ignore")
    os.symlink(".env", project / ".rgignore")
    write(project / ".env", HIDES)
    r = fstools.grep("needle", ctx=ctx)
    assert lines(r) == [str(project / "top.txt")]
    assert sum(w.startswith("Not searched") for w in r.metadata["warnings"]) == 1
    assert sum(w.startswith("No .ignore/.rgignore rules") for w in r.metadata["warnings"]) == 1


def test_the_walk_remembers_a_bounded_number_of_trees(tmp_path, monkeypatch):
    from fstools._walk import linkscan

    monkeypatch.setattr(linkscan, "_trees", {})
    monkeypatch.setattr(linkscan, "_TREES", 2)
    for name in ("a", "b", "c"):
        (tmp_path / name).mkdir()
        assert linkscan.linked_ignore_files(str(tmp_path / name), hidden=False) == []
    assert [root for root, _ in linkscan._trees] == [str(tmp_path / "b"), str(tmp_path / "c")]
    assert linkscan.linked_ignore_files(str(tmp_path / "gone"), hidden=False) == []


def test_the_link_walk_is_not_led_outside_by_a_swapped_directory(tmp_path, monkeypatch):
    """A directory swapped for a link to outside mid-walk: the walk lists nothing there
    (swapped for a link to `/`, it would otherwise walk the whole file system)."""
    from fstools._walk import linkscan
    from fstools._walk.linkscan import linked_ignore_files
    from tests.helpers.races import Flipper, renameat2_supported

    monkeypatch.setattr(linkscan, "FRESH_NS", 0)  # walk at every call

    if not renameat2_supported(tmp_path):
        pytest.skip("renameat2(RENAME_EXCHANGE) is not available here")
    root, outside = (tmp_path / "root").resolve(), (tmp_path / "outside").resolve()
    for base in (root / "d", outside):
        for i in range(30):
            write(base / f"sub{i}" / "f.txt", "x\n")
    write(outside / "CANARYDIR" / "deeper" / "secret", "x\n")
    os.symlink(outside / "CANARYDIR" / "deeper" / "secret", outside / "CANARYDIR" / ".gitignore")
    os.symlink(outside, root / ".swap", target_is_directory=True)
    seen: set[str] = set()
    with Flipper(root / "d", root / ".swap", process=True) as flipper:
        for _ in range(300):
            seen.update(linked_ignore_files(str(root), hidden=True))
    assert flipper.flips >= 300
    assert not [p for p in seen if "CANARYDIR" in p]


def test_a_check_is_remembered_for_a_moment_but_not_past_fstools_own_changes(project, ctx, monkeypatch):
    """The agent makes links only through fstools (Move of a link): those are seen at once; a
    link another process makes is seen once the remembered check is FRESH_NS old."""
    from fstools._walk import linkscan

    monkeypatch.setattr(linkscan, "RACY_NS", 0)
    monkeypatch.setattr(linkscan, "FRESH_NS", 60_000_000_000)
    _repo(project)
    write(project / "sub" / "hidden.txt", "needle\n")
    write(project / "top.txt", "needle\n")
    write(project / ".env", HIDES)
    assert len(lines(fstools.grep("needle", ctx=ctx))) == 2
    os.symlink("../.env", project / "sub" / "rules")  # made by another process: not seen yet
    os.symlink("../.env", project / "sub" / ".ignore")
    assert linkscan.linked_ignore_files(str(project), hidden=False) == []
    # The agent renames a link into place with Move: seen at once.
    moved = fstools.move(str(project / "sub" / "rules"), str(project / "sub" / ".gitignore"), ctx=ctx)
    assert moved.success, moved.error
    r = fstools.grep("needle", ctx=ctx)
    assert lines(r) == [str(project / "top.txt")]
    assert any(w.startswith("Not searched") and str(project / "sub") in w for w in r.metadata["warnings"])
    assert sorted(linkscan.linked_ignore_files(str(project), hidden=False)) == [
        str(project / "sub" / ".gitignore"),
        str(project / "sub" / ".ignore"),
    ]
    monkeypatch.setattr(linkscan, "FRESH_NS", 0)
    os.unlink(project / "sub" / ".gitignore")
    os.unlink(project / "sub" / ".ignore")
    assert linkscan.linked_ignore_files(str(project), hidden=False) == []
