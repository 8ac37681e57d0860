"""The glob dialect shared by permission rules, LS ignores and the sensitive list."""

from __future__ import annotations

import pytest

from fstools._globmatch import compile_glob, glob_match


@pytest.mark.parametrize(
    "pattern,path,expected",
    [
        ("*.py", "/a/b/c.py", True),
        ("*.py", "/a/b/c.pyc", False),
        ("**/*.lock", "/x/y/poetry.lock", True),
        ("**/*.lock", "poetry.lock", True),
        ("src/**/*.tsx", "/p/src/a/b.tsx", True),
        ("src/**/*.tsx", "/p/src/b.tsx", True),
        ("src/*.py", "/p/src/a/b.py", False),
        ("*.{ts,tsx}", "a.tsx", True),
        ("*.{ts,tsx}", "a.js", False),
        ("[abc].txt", "b.txt", True),
        ("[!abc].txt", "b.txt", False),
        ("[^abc].txt", "d.txt", True),
        ("?.py", "a.py", True),
        ("?.py", "ab.py", False),
        ("/abs/**", "/abs/x/y", True),
        ("/abs/**", "/other/abs/x", False),
        ("a/**", "/r/a/b/c", True),
        ("x**y", "xzzy", True),
        ("x**y", "x/y", False),
        ("lit[.txt", "lit[.txt", True),
        (r"\*.txt", "*.txt", True),
        (r"\*.txt", "a.txt", False),
        ("a+b(c).txt", "a+b(c).txt", True),
    ],
)
def test_glob_match(pattern, path, expected):
    assert glob_match(pattern, path) is expected


def test_ignore_case_and_cache():
    assert compile_glob("*.PY", True).match("a.py")
    assert compile_glob("*.PY", True) is compile_glob("*.PY", True)
