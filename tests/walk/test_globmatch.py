"""The glob dialect shared by permission rules, LS ignores and the sensitive list."""

from __future__ import annotations

import os
import subprocess

import pytest

from fstools._core.binaries import find_binary
from fstools._globs.globmatch import GlobSet, byte_glob_superset, compile_glob, glob_match, glob_to_regex
from tests.helpers.binaries import requires_fd


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


@pytest.mark.parametrize(
    "pattern,name,expected",
    [
        ("[]a].txt", "].txt", True),
        ("[]a].txt", "a.txt", True),
        ("[!]a].txt", "b.txt", True),
        ("[!]a].txt", "].txt", False),
        ("[a-].txt", "-.txt", True),
        ("[&~^].txt", "~.txt", True),
        ("[&~^].txt", "^.txt", True),
        ("[[]x", "[x", True),
        ("{a,b", "{a,b", True),
        ("a}b,c", "a}b,c", True),
        ("{a,{b,c}}.py", "c.py", True),
        ("{,x}.py", ".py", True),
        ("a#b&c~d-e f%g.txt", "a#b&c~d-e f%g.txt", True),
        ("[!a]", "/", False),
    ],
)
def test_class_and_brace_edges(pattern, name, expected):
    assert compile_glob(pattern).match(name) is expected


@requires_fd
def test_regexes_are_valid_for_fd(tmp_path):
    """Every regex fstools builds is handed to fd (Rust regex) as is: fd must accept it and agree."""
    fd = find_binary("fd")
    names = ["].txt", "a.txt", "-.txt", "~.txt", "[x", "{a,b", "c.py", "a#b&c~d-e f%g.txt", "ü.py", "x y.md"]
    for n in names:
        (tmp_path / n).write_text("x")
    patterns = [
        "[]a].txt",
        "[!]a].txt",
        "[a-].txt",
        "[&~^].txt",
        "[[]x",
        "{a,b",
        "{a,{b,c}}.py",
        "a#b&c~d-e f%g.txt",
        "?.py",
        "* *.md",
        "**",
    ]
    for pattern in patterns:
        regex = f"^{tmp_path}/(?:{glob_to_regex(pattern)})$"
        out = subprocess.run(
            [fd, "-tf", "-s", "-p", "-0", "--", regex, str(tmp_path)], capture_output=True, check=True
        ).stdout
        got = {os.path.basename(p) for p in out.decode().split("\0") if p}
        assert got == {n for n in names if compile_glob(pattern).match(n)}, pattern


GLOBSET_PATTERNS = [
    "*.pem",
    ".env",
    ".env.*",
    "id_*",
    "service-account*.json",
    "a?c",
    "[ab]x",
    "**",
    "*",
    ".ssh/**",
    ".aws/credentials",
    "/abs/**",
    "src/**/*.py",
    "{x,y}.cfg",
    r"\*lit",
]
GLOBSET_PATHS = [
    "/p/k.pem",
    "/p/.env",
    "/p/.env.local",
    "/p/id_rsa",
    "/p/service-account-1.json",
    "/p/abc",
    "/p/bx",
    "/p/.ssh/config",
    "/h/.aws/credentials",
    "/abs/x/y",
    "/q/src/a/b.py",
    "/q/src/b.py",
    "/p/y.cfg",
    "/p/*lit",
    "rel/.ssh/k",
    ".env",
    "/p/plain.txt",
    "/p/.ssh",
    "/aws/credentials",
]


@pytest.mark.parametrize("pattern", GLOBSET_PATTERNS)
def test_globset_agrees_with_glob_match(pattern):
    single = GlobSet([pattern])
    for path in GLOBSET_PATHS:
        assert single.matches(path) is glob_match(pattern, path), (pattern, path)


def test_globset_of_many():
    many = GlobSet(GLOBSET_PATTERNS[:8] + GLOBSET_PATTERNS[9:])
    for path in GLOBSET_PATHS:
        assert many.matches(path) is any(glob_match(p, path) for p in many.patterns), path
    assert not GlobSet([]) and not GlobSet([]).matches("/x")


@pytest.mark.parametrize(
    "glob,superset",
    [
        ("*.py", "*.py"),
        ("?.py", "*.py"),
        ("[ab].py", "*.py"),
        ("[!]x].c", "*.c"),
        ("[^]x]", "*"),
        ("*.{ts,tsx}", "*.{ts,tsx}"),
        ("[{].c", "*.c"),
        ("{a", None),
        ("a}", None),
        ("a:b", None),
        ("**", None),
        ("x\\*", None),
        ("lit[.txt", None),
    ],
)
def test_byte_glob_superset(glob, superset):
    assert byte_glob_superset(glob) == superset
    if superset is not None:
        for name in ["a.py", "é.py", "].c", "x.c", "{.c", "q", "a.ts", "b.tsx"]:
            assert not compile_glob(glob).match(name) or compile_glob(superset).match(name), (glob, name)


# Linear-time matching: the automaton agrees with the regex on everything the regex can finish.
from hypothesis import assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from fstools._globs.globmatch import GlobError, GlobMatcher, _Automaton, _expand, _parse  # noqa: E402

_GLOB_CHARS = st.text(alphabet="ab*?/{},[]!-\\.", max_size=10)
_PATHS = st.text(alphabet="ab/.-", max_size=12)


@settings(max_examples=400, deadline=None)
@given(_GLOB_CHARS, _PATHS, st.booleans())
def test_automaton_agrees_with_the_regex(pattern, path, ignore_case):
    import re

    try:
        GlobMatcher(pattern)
    except GlobError:
        assume(False)
    expected = re.compile(f"(?:{glob_to_regex(pattern)})\\Z", re.IGNORECASE if ignore_case else 0).match(path)
    flats = _expand(_parse(pattern))
    assert any(_Automaton(flat, ignore_case).match(path) for flat in flats) is (expected is not None)
    assert GlobMatcher(pattern, ignore_case).match(path) is (expected is not None)


@settings(max_examples=200, deadline=None)
@given(st.lists(_GLOB_CHARS, min_size=1, max_size=3), _PATHS)
def test_globset_with_slow_patterns_agrees_with_glob_match(patterns, path):
    try:
        GlobSet(patterns)
    except GlobError:
        assume(False)
    assert GlobSet(patterns).matches(path) is any(glob_match(p, path) for p in patterns)
    assert GlobSet(patterns).matches("/r/" + path) is any(glob_match(p, "/r/" + path) for p in patterns)


def test_backtracking_shapes_are_matched_by_automata():
    assert not compile_glob("*a" * 8 + "b").safe and not compile_glob("*a" * 8 + "b").match("a" * 200)
    assert compile_glob("*a" * 11 + "/x").match("a" * 40 + "a/x")
    assert not compile_glob("**/a/**/b").safe and compile_glob("**/a/**/b").match("x/a/y/z/b")
    assert GlobSet(["*a" * 8 + "b"]).matches("/d/" + "a" * 60 + "b")
    assert compile_glob("**/*.py").safe and compile_glob("src/*/test_*.py").safe


def test_too_many_alternatives_is_refused():
    with pytest.raises(GlobError):
        GlobMatcher("{a,b}" * 13)
    with pytest.raises(GlobError):
        GlobSet(["[z-a]"])
    assert GlobMatcher("{a,b}" * 11 + "*a*a").match("b" * 11 + "aa")


def test_a_brace_group_holding_a_class_with_a_closing_brace():
    m = compile_glob("{[}],foo}")
    assert m.match("}", 0) and m.match("foo", 0) and not m.match("]", 0)


def test_nested_braces_widen_for_a_byte_engine():
    assert byte_glob_superset("{a,b{c,d}}") == "*"
    assert byte_glob_superset("x{a,b{c,d}}y{e,f}") == "x*y{e,f}"
    assert byte_glob_superset("{[}],foo}") == "{*,foo}"


def test_a_star_run_inside_a_class_is_characters_not_a_wildcard():
    # Found by the automaton test above: collapsing `**` inside `[*-**-!]` turned its reversed range `*-!`
    # (an invalid glob, as the regex says) into the characters `-` and `!`.
    with pytest.raises(GlobError):
        GlobMatcher("[*-**-!]")
    assert GlobMatcher("a[**x]b").match("a*b") and not GlobMatcher("a[**x]b").match("a**b")
    assert GlobMatcher("a**b").match("aXYb")
