"""Glob and LS never apply an ignore file that is a link to a secret or out of the allowed
directories: a listing must not depend on a file the agent may not read. rg and fd both
walk for Glob; each case runs with the walker Glob picks and with fd alone."""

from __future__ import annotations

import os

import pytest

import fstools
from fstools._core.binaries import find_binary
from tests.helpers.ignorelinks import HIDES, lines, twice
from tests.helpers.trees import write


@pytest.fixture(params=["rg", "fd"])
def walker(request, monkeypatch) -> str:
    if request.param == "fd":
        if find_binary("fd") is None:
            pytest.skip("fd is not installed")
        monkeypatch.setenv("FSTOOLS_RG", "")  # no rg: Glob walks with fd
        find_binary.cache_clear()
    yield str(request.param)
    find_binary.cache_clear()


def test_a_gitignore_linked_to_a_secret_has_no_effect(project, ctx, walker):
    write(project / "top.txt", "x\n")
    write(project / "sub" / "hidden.txt", "x\n")
    write(project / "sub" / "seen.txt", "x\n")
    os.symlink("../.env", project / "sub" / ".gitignore")
    hiding, harmless = twice(project / ".env", lambda: fstools.glob("**/*.txt", ctx=ctx))
    assert lines(hiding) == lines(harmless) == [str(project / "top.txt")]
    warning = next(w for w in hiding.metadata["warnings"] if w.startswith("Not searched"))
    assert str(project / "sub") in warning and "respect_gitignore=false" in warning
    direct = fstools.glob("*.txt", str(project / "sub"), respect_gitignore=False, ctx=ctx)
    assert lines(direct) == [str(project / "sub" / "hidden.txt"), str(project / "sub" / "seen.txt")]


def test_a_link_in_the_listed_directory_turns_that_kind_of_rule_off(project, ctx, tmp_path, walker):
    outside = tmp_path / "outside-rules"
    write(project / "hidden.txt", "x\n")
    write(project / "a.txt", "x\n")
    os.symlink(outside, project / ".ignore")
    hiding, harmless = twice(outside, lambda: fstools.glob("*.txt", ctx=ctx))
    assert lines(hiding) == lines(harmless) == [str(project / "a.txt"), str(project / "hidden.txt")]
    assert any("rules were applied" in w and "outside" in w for w in hiding.metadata["warnings"])


def test_a_link_to_a_readable_file_inside_keeps_working(project, ctx, walker):
    write(project / "rules.txt", "hidden.txt\n")
    write(project / "sub" / "hidden.txt", "x\n")
    write(project / "sub" / "seen.txt", "x\n")
    os.symlink("../rules.txt", project / "sub" / ".ignore")
    r = fstools.glob("sub/*.txt", ctx=ctx)
    assert lines(r) == [str(project / "sub" / "seen.txt")]
    assert not any("Not searched" in w for w in r.metadata.get("warnings", []))


def test_without_ignore_rules_nothing_is_left_out(project, ctx, walker):
    write(project / "sub" / "hidden.txt", "x\n")
    os.symlink("../.env", project / "sub" / ".gitignore")
    write(project / ".env", HIDES)
    r = fstools.glob("**/*.txt", respect_gitignore=False, ctx=ctx)
    assert lines(r) == [str(project / "sub" / "hidden.txt")]
    assert not r.metadata.get("warnings")


@pytest.mark.parametrize("name", [".gitignore", ".ignore", ".fdignore"])
def test_ls_never_applies_a_linked_ignore_file(project, ctx, tmp_path, name):
    """LS with respect_gitignore reads the listed directory's ignore files (fd, one level)."""
    if find_binary("fd") is None:
        pytest.skip("fd is not installed")
    (project / ".git").mkdir()  # fd < 8.7 reads .gitignore only in a git work tree
    write(project / "hidden.txt", "x\n")
    write(project / "a.txt", "x\n")
    os.symlink(tmp_path / "outside-rules", project / name)

    def listing() -> fstools.ToolResult:
        return fstools.ls(str(project), respect_gitignore=True, ctx=ctx)

    hiding, harmless = twice(tmp_path / "outside-rules", listing)
    assert hiding.output == harmless.output and "hidden.txt" in hiding.output
    assert any("rules were applied" in w and "outside" in w for w in hiding.metadata["warnings"])


def test_ls_applies_a_link_to_a_readable_file_inside(project, ctx):
    if find_binary("fd") is None:
        pytest.skip("fd is not installed")
    (project / ".git").mkdir()
    write(project / "rules.txt", "hidden.txt\n")
    write(project / "hidden.txt", "x\n")
    os.symlink("rules.txt", project / ".ignore")
    r = fstools.ls(str(project), respect_gitignore=True, ctx=ctx)
    assert r.success and "hidden.txt" not in r.output and "rules.txt" in r.output
    assert not any("rules were applied" in w for w in r.metadata.get("warnings", []))
