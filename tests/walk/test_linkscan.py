"""The remembered walk for ignore-file links against a fresh walk of the same tree, after
random changes: the memory never hides a link or reports one that is gone."""

from __future__ import annotations

import os
import random
import shutil
import time
from pathlib import Path

from fstools._walk import linkscan
from fstools._walk.excludes import DEFAULT_EXCLUDES
from tests.helpers.trees import write

DIRS = ["", "a", "a/b", "a/b/c", "d", ".hid", ".hid/e", "node_modules"]
NAMES = [".gitignore", ".ignore", ".rgignore", "plain.txt"]


def _change(root: Path, rng: random.Random) -> None:
    directory = root / rng.choice(DIRS)
    path = directory / rng.choice(NAMES)
    move = rng.random()
    if move < 0.4 and directory.is_dir() and not os.path.lexists(path):
        os.symlink("../target", path)
    elif move < 0.6 and os.path.lexists(path):
        path.unlink()
    elif move < 0.75 and directory.is_dir() and not os.path.lexists(path):
        write(path, "rule\n")
    elif move < 0.85 and directory != root and directory.is_dir():
        shutil.rmtree(directory)
    else:
        directory.mkdir(parents=True, exist_ok=True)


def test_the_remembered_walk_equals_a_fresh_one(tmp_path, monkeypatch):
    # Every mtime trusted, so the memory is used as much as it can be; the changes are spaced
    # beyond a clock tick, the condition the real RACY_NS guards.
    monkeypatch.setattr(linkscan, "RACY_NS", 0)
    monkeypatch.setattr(linkscan, "FRESH_NS", 0)  # but checked at every call
    root = tmp_path.resolve()
    for d in DIRS:
        (root / d).mkdir(parents=True, exist_ok=True)
    rng = random.Random(5)
    found = 0
    for _ in range(300):
        _change(root, rng)
        time.sleep(0.01)
        for hidden in (False, True):
            remembered = sorted(linkscan.linked_ignore_files(str(root), hidden=hidden))
            saved = linkscan._trees
            monkeypatch.setattr(linkscan, "_trees", {})
            fresh = sorted(linkscan.linked_ignore_files(str(root), hidden=hidden))
            monkeypatch.setattr(linkscan, "_trees", saved)
            assert remembered == fresh
            found += bool(fresh)
    assert found > 100  # the trees compared mostly hold links


def _reference(root: str, hidden: bool) -> tuple[list[str], list[str]]:
    """The ignore-file links and the repositories below `root`, by os.walk: every directory but
    the default excludes (by name), hidden ones only when `hidden`, nothing below a `.git` or an
    entry named like an ignore file."""
    named = {".gitignore", ".ignore", ".rgignore", ".git"}
    links: list[str] = []
    repositories: list[str] = []
    for directory, dirs, files in os.walk(root):
        for name in [*dirs, *files]:
            path = os.path.join(directory, name)
            if name == ".git":
                repositories += [directory] if directory != root else []
                links += [path + "/info/exclude"] if os.path.islink(path + "/info/exclude") else []
            elif name in named and os.path.islink(path):
                links.append(path)
        dirs[:] = [
            d
            for d in dirs
            if d not in named
            and d not in DEFAULT_EXCLUDES
            and (hidden or not d.startswith("."))
            and not os.path.islink(os.path.join(directory, d))
        ]
    return sorted(links), sorted(repositories)


def test_the_walk_finds_what_a_plain_walk_finds(tmp_path, monkeypatch):
    # Links at several depths, in hidden, gitignored, excluded and nested-repository directories,
    # a directory named like an ignore file, a link to a directory (not walked): the scan must
    # find exactly what a plain os.walk finds, on a first walk and on a remembered one.
    root = tmp_path.resolve()
    write(root / "target", "x\n")
    for d in ["a/b/c/d", ".hid/deep", "built", "node_modules/pkg", "sub/.git/info", "x.egg-info", ".gitignore.d"]:
        (root / d).mkdir(parents=True)
    write(root / ".gitignore", "built/\n")
    (root / ".git").mkdir()
    (root / ".ignore").mkdir()  # a directory of that name: never entered, not a link
    write(root / ".ignore" / "inner" / ".gitignore", "")
    os.symlink(root / "a", root / "dirlink")  # a link to a directory is not walked through
    for rel in [
        "a/.rgignore",
        "a/b/c/d/.gitignore",
        ".hid/deep/.ignore",
        "built/.gitignore",
        "node_modules/pkg/.gitignore",
        "sub/.gitignore",
        "x.egg-info/.ignore",
        ".gitignore.d/.rgignore",
    ]:
        os.symlink(root / "target", root / rel)
    os.symlink(root / "target", root / "sub/.git/info/exclude")
    write(root / "a/b/plain.gitignore", "")
    monkeypatch.setattr(linkscan, "FRESH_NS", 0)
    for hidden in (False, True):
        expected = _reference(str(root), hidden)
        for _ in range(2):  # the first walk lists every directory, the second reuses the remembered listings
            found = sorted(linkscan.linked_ignore_files(str(root), hidden=hidden))
            assert (found, linkscan.repositories_below(str(root), hidden=hidden)) == expected
    assert str(root / "built/.gitignore") in expected[0] and str(root / "sub") in expected[1]


def test_a_directory_that_could_not_be_listed_is_listed_again(tmp_path, monkeypatch):
    # A directory whose listing failed (unreadable: made readable later by a chmod, which changes
    # only its own ctime, not its parent's) is not remembered; a later walk must try it again even
    # when every remembered directory is unchanged. The refusal is staged: root reads anything.
    monkeypatch.setattr(linkscan, "RACY_NS", 0)
    monkeypatch.setattr(linkscan, "FRESH_NS", 0)
    root = tmp_path.resolve()
    write(root / "target", "x\n")
    (root / "locked").mkdir()
    os.symlink(root / "target", root / "locked" / ".gitignore")
    real_open_at = linkscan.sandbox.open_at

    def unreadable(dir_fd, rel, *args, **kwargs):
        if rel == "locked":
            raise PermissionError(13, "Permission denied", rel)
        return real_open_at(dir_fd, rel, *args, **kwargs)

    monkeypatch.setattr(linkscan.sandbox, "open_at", unreadable)
    time.sleep(0.01)
    assert linkscan.linked_ignore_files(str(root), hidden=False) == []
    monkeypatch.setattr(linkscan.sandbox, "open_at", real_open_at)  # chmod'ed readable
    assert linkscan.linked_ignore_files(str(root), hidden=False) == [str(root / "locked" / ".gitignore")]


def test_an_info_exclude_made_a_link_later_is_found(tmp_path, monkeypatch):
    # A repository's .git/info/exclude turned into a link (or its info directory made) changes
    # .git/info's (or .git's) mtime, not the repository directory's: the remembered listing of
    # that directory must not hide it, at the root and below it.
    monkeypatch.setattr(linkscan, "RACY_NS", 0)
    monkeypatch.setattr(linkscan, "FRESH_NS", 0)
    root = tmp_path.resolve()
    write(root / "target", "x\n")
    (root / ".git" / "info").mkdir(parents=True)
    (root / "sub" / ".git").mkdir(parents=True)
    time.sleep(0.01)
    assert linkscan.linked_ignore_files(str(root), hidden=False) == []
    os.symlink(root / "target", root / ".git" / "info" / "exclude")
    (root / "sub" / ".git" / "info").mkdir()
    os.symlink(root / "target", root / "sub" / ".git" / "info" / "exclude")
    time.sleep(0.01)
    expected = [str(root / ".git/info/exclude"), str(root / "sub/.git/info/exclude")]
    assert sorted(linkscan.linked_ignore_files(str(root), hidden=False)) == expected
    os.unlink(root / "sub" / ".git" / "info" / "exclude")
    time.sleep(0.01)
    assert linkscan.linked_ignore_files(str(root), hidden=False) == expected[:1]


def test_grep_applies_no_nested_info_exclude_made_a_link_to_a_secret_later(tmp_path, monkeypatch):
    # End to end: the link made after a first Grep would have rg apply the secret's lines as rules.
    import fstools

    monkeypatch.setattr(linkscan, "RACY_NS", 0)
    monkeypatch.setattr(linkscan, "FRESH_NS", 0)
    root = tmp_path.resolve()
    write(root / ".env", "*.py\n")
    write(root / "sub" / "a.py", "needle\n")
    (root / "sub" / ".git" / "info").mkdir(parents=True)
    ctx = fstools.ExecutionContext(working_dir=str(root))
    time.sleep(0.01)
    assert str(root / "sub" / "a.py") in fstools.grep("needle", path=str(root), ctx=ctx).output
    os.symlink(root / ".env", root / "sub" / ".git" / "info" / "exclude")
    time.sleep(0.01)
    r = fstools.grep("needle", path=str(root), ctx=ctx)
    assert str(root / "sub" / "a.py") in r.output, r.metadata
