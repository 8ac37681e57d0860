"""The walk layer's entry point: the files below a directory a tool may see, as Glob sees them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import fstools
from fstools._walk.rules import visible_files, walk_rules
from tests.helpers.trees import write


def _tree(root: Path, outside: Path) -> None:
    write(root / "src" / "app.py", "x\n")
    write(root / "src" / "gen" / "out.py", "x\n")
    write(root / ".env", "SECRET=1\n")  # a secret: never listed
    write(root / "conf" / "id_rsa", "key\n")  # a secret below a directory
    write(root / "node_modules" / "pkg" / "index.js", "x\n")  # a default exclude
    write(root / "build" / "big.o", "x\n")  # ignored by .gitignore
    write(root / ".gitignore", "build/\n")
    write(root / "private" / "notes.txt", "x\n")  # denied by a rule below
    write(root / ".hidden" / "h.txt", "x\n")
    write(outside / "elsewhere.txt", "x\n")
    os.symlink(outside, root / "out")  # a link out of the roots


def _glob_paths(ctx: fstools.ExecutionContext, root: Path, **options: bool) -> set[str]:
    r = fstools.glob("**/*", str(root), ctx=ctx, limit=100_000, **options)
    assert r.success, r.error
    return set(r.output.splitlines()) - {""}


@pytest.mark.parametrize("options", [{}, {"hidden": True}, {"respect_gitignore": False}, {"follow_symlinks": True}])
def test_visible_files_are_the_files_glob_shows(tmp_path, options):
    root, outside = tmp_path / "proj", tmp_path / "outside"
    _tree(root, outside)
    deny = fstools.PermissionManager(rules=[fstools.PermissionRule("Glob", str(root / "private") + "/**", "deny")])
    ctx = fstools.ExecutionContext(working_dir=str(root), permissions=deny)
    listed = set(visible_files(ctx, fstools.glob.spec, str(root), **options).paths)
    assert listed == _glob_paths(ctx, root, **options)
    assert str(root / "src" / "app.py") in listed
    for never in (".env", "conf/id_rsa", "node_modules/pkg/index.js", "private/notes.txt", "out/elsewhere.txt"):
        assert str(root / never) not in listed
    assert (str(root / "build" / "big.o") in listed) == (options.get("respect_gitignore") is False)
    assert (str(root / ".hidden" / "h.txt") in listed) == bool(options.get("hidden"))


def test_visible_files_narrowed_by_a_glob(tmp_path):
    root = tmp_path / "proj"
    _tree(root, tmp_path / "outside")
    ctx = fstools.ExecutionContext(working_dir=str(root))
    listed = set(visible_files(ctx, fstools.glob.spec, str(root), glob="src/**/*.py").paths)
    assert listed == {str(root / "src" / "app.py"), str(root / "src" / "gen" / "out.py")}


def test_rules_hide_secrets_and_denied_paths_for_their_tool_only(tmp_path):
    root = tmp_path / "proj"
    root.mkdir()
    deny = fstools.PermissionManager(rules=[fstools.PermissionRule("Grep", str(root / "private") + "/**", "deny")])
    ctx = fstools.ExecutionContext(working_dir=str(root), permissions=deny)
    grep_rules, glob_rules = walk_rules(ctx, fstools.grep.spec), walk_rules(ctx, fstools.glob.spec)
    denied = str(root / "private" / "a.txt")
    assert grep_rules.hides(denied) and not glob_rules.hides(denied)
    # `.env` is pruned by the walker; a secret it cannot prune (a path pattern) is checked on each path.
    assert ".env" in grep_rules.pruned_secrets
    assert grep_rules.visible([str(root / ".env"), denied, str(root / "ok.py")]) == [str(root / "ok.py")]
    assert glob_rules.visible([str(root / ".env"), denied]) == [denied]
    assert grep_rules.rg_excludes()[0] == "!.git"
