"""The remembered walk for ignore-file links against a fresh walk of the same tree, after
random changes: the memory never hides a link or reports one that is gone."""

from __future__ import annotations

import os
import random
import shutil
import time
from pathlib import Path

from fstools._walk import linkscan
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
