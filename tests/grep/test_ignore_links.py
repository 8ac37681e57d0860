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
from fstools._grep import ignorelinks
from fstools._grep.ignorelinks import MAX_OPENED, DebugSift, OpenedLog
from fstools._index.build import build
from tests.helpers.trees import write

HIDES = "hidden.txt\n"
HIDES_NOTHING = "API_KEY=not-a-rule-for-any-file\n"


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


def _found(r: fstools.ToolResult) -> list[str]:
    assert r.success, r.error
    return sorted(r.output.splitlines())


def _twice(target: Path, grep) -> tuple[fstools.ToolResult, fstools.ToolResult]:
    """The search with the target hiding `hidden.txt`, then hiding nothing."""
    target.write_text(HIDES)
    first = grep()
    target.write_text(HIDES_NOTHING)
    return first, grep()


def test_a_gitignore_linked_to_a_secret_has_no_effect_and_its_directory_is_named(project, ctx, confinement):
    _repo(project)
    write(project / "top.txt", "needle\n")
    write(project / "sub" / "hidden.txt", "needle\n")
    write(project / "sub" / "seen.txt", "needle\n")
    os.symlink("../.env", project / "sub" / ".gitignore")
    hiding, harmless = _twice(project / ".env", lambda: fstools.grep("needle", ctx=ctx))
    assert _found(hiding) == _found(harmless) == [str(project / "top.txt")]
    warning = next(w for w in hiding.metadata["warnings"] if w.startswith("Not searched"))
    assert str(project / "sub") in warning and "sensitive" in warning and "respect_gitignore=false" in warning
    # The directory itself, searched without ignore files, shows everything.
    direct = fstools.grep("needle", path=str(project / "sub"), respect_gitignore=False, ctx=ctx)
    assert _found(direct) == [str(project / "sub" / "hidden.txt"), str(project / "sub" / "seen.txt")]


@pytest.mark.parametrize("mode", ["files_with_matches", "content", "count"])
@pytest.mark.parametrize("head_limit", [0, 100])
def test_every_output_mode_discards_the_runs_that_read_the_link(project, ctx, mode, head_limit):
    _repo(project)
    write(project / "a.txt", "needle\n")
    write(project / "sub" / "hidden.txt", "needle\n")
    os.symlink("../.ENV", project / "sub" / ".ignore")  # secrets match in any case
    hiding, harmless = _twice(
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
    hiding, harmless = _twice(outside, lambda: fstools.grep("needle", ctx=ctx))
    assert _found(hiding) == _found(harmless)
    if confinement == "no_landlock":
        # rg could open it: the directory is left out, and the warning says why.
        assert "hidden.txt" not in hiding.output and "seen.txt" not in hiding.output
        assert any("outside the allowed directories" in w for w in hiding.metadata["warnings"])
    else:
        # Landlock keeps rg from opening it at all: no rule applies, both files are found.
        assert _found(hiding) == [str(project / "sub" / "hidden.txt"), str(project / "sub" / "seen.txt")]


def test_a_link_to_a_readable_file_inside_the_root_keeps_working(project, ctx, confinement):
    _repo(project)
    write(project / "rules" / "shared-ignore", HIDES)
    write(project / "sub" / "hidden.txt", "needle\n")
    write(project / "sub" / "seen.txt", "needle\n")
    os.symlink("../rules/shared-ignore", project / "sub" / ".gitignore")
    r = fstools.grep("needle", ctx=ctx)
    assert _found(r) == [str(project / "sub" / "seen.txt")]
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
    hiding, harmless = _twice(project / ".env", lambda: fstools.grep("needle", ctx=ctx))
    assert _found(hiding) == _found(harmless) == [str(project / "a" / "keep.txt"), str(project / "x" / "hidden.txt")]
    named = " ".join(hiding.metadata["warnings"])
    assert str(project / "a" / "b") in named and str(project / "x" / "y") in named


def test_a_directory_name_with_glob_characters_is_excluded_literally(project, ctx):
    _repo(project)
    odd = project / "a[b]*{c}"
    write(odd / "hidden.txt", "needle\n")
    write(project / "ab" / "hidden.txt", "needle\n")  # what `a[b]*` would match as a glob
    os.symlink("../.env", odd / ".gitignore")
    hiding, harmless = _twice(project / ".env", lambda: fstools.grep("needle", ctx=ctx))
    assert _found(hiding) == _found(harmless) == [str(project / "ab" / "hidden.txt")]


def test_a_directory_rg_names_unreadably_is_found_by_a_walk(project, ctx):
    """A newline in a directory name splits rg's log line: the logged path names no file, so Grep walks."""
    _repo(project)
    odd = project / "line\nbreak"
    write(odd / "hidden.txt", "needle\n")
    write(project / "plain.txt", "needle\n")
    os.symlink("../.env", odd / ".gitignore")
    hiding, harmless = _twice(project / ".env", lambda: fstools.grep("needle", ctx=ctx))
    assert _found(hiding) == _found(harmless) == [str(project / "plain.txt")]


def test_the_searched_directory_s_own_link_turns_that_kind_of_rule_off(project, ctx, confinement):
    _repo(project)
    write(project / "hidden.txt", "needle\n")
    write(project / "built.o", "needle\n")
    write(project / "sub" / ".gitignore", "*.o\n")  # a regular .gitignore: rules of its kind are off too
    write(project / "sub" / "also.o", "needle\n")
    write(project / ".ignore", "*.o\n")  # another kind: still applied
    os.symlink(".env", project / ".gitignore")
    hiding, harmless = _twice(project / ".env", lambda: fstools.grep("needle", ctx=ctx))
    assert _found(hiding) == _found(harmless) == [str(project / "hidden.txt")]
    assert any(w.startswith("No .gitignore rules were applied") for w in hiding.metadata["warnings"])


def test_a_link_above_the_searched_directory_is_not_applied(tmp_path, confinement):
    repo = tmp_path / "repo"
    _repo(repo)
    root = repo / "project"
    write(root / "hidden.txt", "needle\n")
    os.symlink(".env", repo / ".gitignore")
    ctx = fstools.ExecutionContext(working_dir=str(root))
    hiding, harmless = _twice(repo / ".env", lambda: fstools.grep("needle", ctx=ctx))
    assert _found(hiding) == _found(harmless) == [str(root / "hidden.txt")]
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
    assert _found(r) == [str(root / "seen.txt")] and not r.metadata["warnings"]


def test_the_repository_exclude_file_as_a_link_is_not_applied(project, ctx):
    _repo(project)
    (project / ".git" / "info").mkdir()
    write(project / "hidden.txt", "needle\n")
    os.symlink("../../.env", project / ".git" / "info" / "exclude")
    hiding, harmless = _twice(project / ".env", lambda: fstools.grep("needle", ctx=ctx))
    assert _found(hiding) == _found(harmless) == [str(project / "hidden.txt")]
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
    assert _found(r) == [str(project / "sub" / "hidden.txt")] and not r.metadata["warnings"]


def test_an_rg_whose_log_is_not_recognised_gets_a_walk_instead(project, ctx, monkeypatch):
    """Fault injection: the one-time check of rg's log answers no, as for an rg that logs differently."""
    from fstools._core.binaries import require_binary

    monkeypatch.setitem(ignorelinks._RECOGNISED, require_binary("rg"), False)
    _repo(project)
    write(project / "sub" / "hidden.txt", "needle\n")
    write(project / "top.txt", "needle\n")
    os.symlink("../.env", project / "sub" / ".gitignore")
    hiding, harmless = _twice(project / ".env", lambda: fstools.grep("needle", ctx=ctx))
    assert _found(hiding) == _found(harmless) == [str(project / "top.txt")]
    assert any(str(project / "sub") in w for w in hiding.metadata["warnings"])


def test_the_real_rg_log_is_recognised():
    from fstools._core.binaries import require_binary

    ignorelinks._RECOGNISED.clear()
    assert ignorelinks.debug_log_recognised(require_binary("rg"), 10.0)


def test_a_stubborn_race_ends_in_a_clear_error(project, ctx, monkeypatch):
    """A tree that grows a new forbidden link before every try: Grep gives up with an error, shows nothing."""
    _repo(project)
    write(project / ".env", HIDES)
    write(project / "hidden.txt", "needle\n")
    real = ignorelinks._judge
    made = []

    def judge_then_link(paths, policy):
        d = project / f"d{len(made)}"
        write(d / "f.txt", "x\n")
        os.symlink("../.env", d / ".gitignore")
        made.append(d)
        return real([*paths, str(d / ".gitignore")], policy)

    monkeypatch.setattr(ignorelinks, "_judge", judge_then_link)
    r = fstools.grep("needle", ctx=ctx)
    assert not r.success and r.error_code == "io_error" and "respect_gitignore=false" in r.error


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
    assert r.metadata["index"] == "used" and _found(r) == [str(project / "sub" / "seen.txt")]


# The stderr filter -------------------------------------------------------------------

_OPEN = b"rg: DEBUG|ignore::gitignore|crates/ignore/src/gitignore.rs:393: opened gitignore file: "
_NOISE = b"rg: DEBUG|ignore::walk|crates/ignore/src/walk.rs:1799: ignoring ./x: Ignore(...)\n"


def test_the_sift_keeps_other_messages_and_the_opened_paths_across_chunks():
    log = OpenedLog()
    sift = log.sift()
    stream = _NOISE + _OPEN + b"/r/a/.gitignore\nrg: /r/b: Permission denied (os error 13)\n" + _OPEN + b"/r/c/.ignore"
    kept = b"".join(sift.feed(stream[i : i + 7]) for i in range(0, len(stream), 7)) + sift.end()
    assert kept == b"rg: /r/b: Permission denied (os error 13)\n"
    assert log.paths == [b"/r/a/.gitignore", b"/r/c/.ignore"]


def test_the_sift_passes_a_long_unterminated_run_on():
    sift = DebugSift(OpenedLog())
    blob = b"x" * (2 << 20)
    assert sift.feed(blob) == blob and sift.end() == b""


def test_the_log_keeps_a_bounded_number_of_paths():
    log = OpenedLog()
    log.record([b"/p"] * (MAX_OPENED + 1))
    assert len(log.paths) == MAX_OPENED and log.overflow


# A long rg log, and the remembered walk --------------------------------------------


def _built_tree(project: Path, objects: int) -> None:
    """A source tree full of ignored build output: rg logs a line per ignored object file."""
    _repo(project)
    write(project / ".gitignore", "*.o\n")
    for d in range(objects // 100):
        for f in range(100):
            write(project / f"obj{d}" / f"f{f}.o", "needle\n")
    write(project / "src" / "main.c", "needle\n")


def test_a_long_rg_log_switches_to_the_walk_and_the_link_is_still_kept_out(project, ctx, monkeypatch):
    monkeypatch.setattr(ignorelinks, "_noisy", {})
    _built_tree(project, 6_000)  # some 1.3 MB of log: past NOISE_LIMIT
    write(project / "sub" / "hidden.txt", "needle\n")
    os.symlink("../.env", project / "sub" / ".gitignore")
    hiding, harmless = _twice(project / ".env", lambda: fstools.grep("needle", ctx=ctx))
    assert _found(hiding) == _found(harmless) == [str(project / "src" / "main.c")]
    assert any(str(project / "sub") in w for w in hiding.metadata["warnings"])
    assert str(project) in ignorelinks._noisy  # later calls walk at once


def test_a_short_rg_log_stays_on_the_log(project, ctx, monkeypatch):
    monkeypatch.setattr(ignorelinks, "_noisy", {})
    _built_tree(project, 200)
    assert _found(fstools.grep("needle", ctx=ctx)) == [str(project / "src" / "main.c")]
    assert not ignorelinks._noisy


def test_the_remembered_walk_sees_a_link_made_after_it(project, monkeypatch):
    from fstools._grep import linkscan

    monkeypatch.setattr(linkscan, "RACY_NS", 0)  # trust every mtime: the test makes its changes fast
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
    from fstools._grep import linkscan

    monkeypatch.setattr(linkscan, "_trees", {})
    write(project / "d" / "f.txt", "x\n")
    assert linkscan.linked_ignore_files(str(project), hidden=False) == []
    stamp = os.stat(project / "d")
    os.symlink("../.env", project / "d" / ".rgignore")
    os.utime(project / "d", ns=(stamp.st_atime_ns, stamp.st_mtime_ns))  # as if in the same clock tick
    assert linkscan.linked_ignore_files(str(project), hidden=False) == [str(project / "d" / ".rgignore")]
