"""A pattern that does not compile is reported as the caller wrote it, without rg's `(?:...)` wrapper."""

from __future__ import annotations

import pytest

import fstools
from fstools._grep.regexerror import explain_regex_error


@pytest.fixture
def searched(project, ctx):
    (project / "a.txt").write_text("text\n")
    return ctx


@pytest.mark.parametrize(
    ("pattern", "excerpt"),
    [
        (r"x\p{Foo}", "    x\\p{Foo}\n     ^^^^^^^\nerror: Unicode property not found"),
        ("x{2,1}", "    x{2,1}\n     ^^^^^\nerror: invalid repetition count range"),
        ("(?P<n>a)(?P<n>b)", "    (?P<n>a)(?P<n>b)\n        ^       ^\nerror: duplicate capture group name"),
        ("[z-a]", "    [z-a]\n     ^^^\nerror: invalid character class range"),
    ],
)
def test_carets_point_into_the_callers_pattern(searched, pattern, excerpt):
    r = fstools.grep(pattern, ctx=searched)
    assert r.error_code == "invalid_regex" and "(?:" not in r.error
    assert r.error.startswith(f"Invalid regex pattern: {pattern}\nregex parse error:\n{excerpt}")


@pytest.mark.parametrize(("pattern", "message"), [("foo(", "unclosed group"), ("a)", "unopened group")])
def test_group_errors_drop_the_caret_that_points_at_the_wrapper(searched, pattern, message):
    r = fstools.grep(pattern, ctx=searched)
    assert r.error == f"Invalid regex pattern: {pattern}\nregex parse error:\n    {pattern}\nerror: {message}"


def test_a_multi_line_pattern_keeps_rgs_explanation_only(searched):
    r = fstools.grep("a\nb(", ctx=searched, multiline=True)
    assert r.error == "Invalid regex pattern: a\nb(\nregex parse error:\nerror: unclosed group"


def test_messages_without_an_excerpt_pass_through():
    stderr = 'rg: the literal "\\n" is not allowed in a regex\n\nConsider enabling multiline mode.\n'
    assert (
        explain_regex_error(stderr, "a\nb")
        == 'the literal "\\n" is not allowed in a regex\n\nConsider enabling multiline mode.'
    )


def test_a_caret_line_of_another_shape_is_dropped():
    stderr = "rg: regex parse error:\n    (?:ab)\n    ??\nerror: something\n"
    assert explain_regex_error(stderr, "ab") == "regex parse error:\n    ab\nerror: something"
