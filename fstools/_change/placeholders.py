"""Omission placeholders: `// rest of the code ...`, `# ... existing code ...`, `/* remaining methods unchanged */`.

A model that writes such a line means "keep what was here", but Write and Edit would put
the line itself in place of the code it stands for, silently deleting that code. A change
that *introduces* one (a placeholder already in the file, or in old_string, is the file's
own text) is refused unless the caller sets allow_placeholders.

Only whole-line comments count, and only when the comment reads as an omission: an
ellipsis alone, "rest of ...", "existing/remaining <code> unchanged/...", "<code> omitted",
"... for brevity". The word that says so must end the comment (or be an ellipsis): "# Import
here to avoid a cycle" goes on as prose. A bare `...` in Python is code (Ellipsis), not a
comment, an ellipsis in a doc comment elides an example, and a comment such as
"# Initialize the rest of the fields" does not start with the omission. In Markdown a `#`
line is a heading ("## Rest of the API"): there only HTML comments count.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from .._core.errors import ErrorCode, ToolError

# A whole-line comment's opening mark; its body is the rest of the line, minus a closing mark
# (taken off in Python: a regex with `.*?` between two `\s*` backtracks cubically on long blank runs).
_COMMENT = re.compile(r"\s*(?P<lead>\{\s*/\*+|//+!?|#+|/\*+|\*+|<!--|--|;+|%+)")
_MARKDOWN_COMMENT = re.compile(r"\s*(?P<lead><!--)")
MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdx", ".mkd", ".mdown")
# Doc-comment lines (a block comment's inner `*` line, Rust's `///` and `//!`): an ellipsis
# there elides an example, as documentation does.
_DOC_LEADS = re.compile(r"\*+|///|//!")
_LEAD = r"^[\s.…\[\(<{\-]*"
_ELLIPSIS_ONLY = {"...", "....", "…"}  # longer runs of dots are rulers
_SUBJECT = (
    r"(?:code|implementation|methods?|functions?|class(?:es)?|files?|logic|contents?|lines?|body|imports?|"
    r"tests?|properties|fields|styles|members|cases|handlers|components?|definitions?|exports?|routes?|"
    r"config(?:uration)?|markup|html|text|stuff|parts?|sections?|elements?|items?|entries|rules?|steps?)\b"
)
# What ends an omission comment: the comment ends there (a continued sentence is prose:
# "# Import here to avoid a cycle", "# Remaining elements stay in list order").
_END = r"[\s.…)\]]*$"
_SIGNAL = re.compile(
    r"(?:\.\.\.|…|\b(?:unchanged|omitted|elided|truncated|skipped|remains?(?:\s+(?:the\s+)?same)?|"
    r"stays?(?:\s+(?:the\s+)?same)?|(?:is\s+|are\s+)?(?:the\s+)?same|as\s+before|as\s+is|goes\s+here|"
    r"continues?|not\s+shown|follows?))" + _END + r"|\.\.\.|…",
    re.IGNORECASE,
)
_PHRASES = [
    # "rest of the code ...", "rest of the page", "... remainder of file unchanged"
    re.compile(
        _LEAD + r"(?:the\s+)?(?:rest|remainder)\s+of\s+(?:(?:the|this|your)\s+)?[\w.]+(?:" + _END + r"|\s.*?"
        r"(?:\.\.\.|…|\b(?:unchanged|omitted|here|(?:the\s+)?same|as\s+before)" + _END + r"))",
        re.IGNORECASE,
    ),
    # "existing code ...", "remaining methods unchanged", "other functions stay the same" (with a signal)
    re.compile(
        _LEAD + r"(?:existing|remaining|other|previous|original|unchanged|same|more)\s+(?:\w+\s+){0,2}?" + _SUBJECT,
        re.IGNORECASE,
    ),
    # "code omitted", "your code here", "(implementation omitted)", "... methods unchanged ..."
    re.compile(
        _LEAD + r"(?:(?:the\s+)?(?:\w+\s+)?" + _SUBJECT + r"\s+(?:is\s+|are\s+)?(?:omitted|unchanged|elided|"
        r"truncated|skipped|goes\s+here|remains?|stays?|as\s+before|not\s+shown)|(?:\w+\s+)?(?:code|"
        r"implementation|logic|stuff)\s+here)" + _END,
        re.IGNORECASE,
    ),
    re.compile(r"\bfor\s+brevity\b", re.IGNORECASE),
    # "... existing JSX ...", "... other imports"
    re.compile(
        r"^\s*(?:\.\.\.|…).*\b(?:existing|remaining|other|previous|rest|unchanged|omitted|same)\b", re.IGNORECASE
    ),
]


# The start of every comment-only line (after its line break: a literal first character lets
# the regex engine skip ahead fast), so a large text costs one quick pass.
_COMMENT_LINE = re.compile(r"\n[ \t]*[/#*<;%{-][^\n]*")
_MARKDOWN_COMMENT_LINE = re.compile(r"\n[ \t]*<!--[^\n]*")


@dataclass(frozen=True)
class Placeholder:
    line: int  # 1-based, in the text it was found in
    text: str  # the line, stripped


def _body(comment: str) -> str:
    """A comment's text without its closing mark (`*/`, `*/}`, `-->`) and surrounding blanks."""
    body = comment.strip()
    if body.endswith("-->"):
        return body[:-3].rstrip()
    closed = body[:-1].rstrip() if body.endswith("}") else body
    return closed[:-2].rstrip("*").rstrip() if closed.endswith("*/") else body


def is_placeholder(line: str, *, markdown: bool = False) -> bool:
    """Whether `line` is a comment-only line that stands for omitted code (`markdown`: the line
    is Markdown, where only an HTML comment is a comment)."""
    match = (_MARKDOWN_COMMENT if markdown else _COMMENT).match(line)
    if match is None:
        return False
    body = _body(line[match.end() :])
    if not body.strip(" \t.…()[]"):  # "// ...", "# …", "/* ... */"
        return body.strip(" \t()[]") in _ELLIPSIS_ONLY and not _DOC_LEADS.fullmatch(match.group("lead"))
    if _PHRASES[0].match(body) or _PHRASES[2].match(body) or _PHRASES[3].search(body) or _PHRASES[4].match(body):
        return True
    kept = _PHRASES[1].match(body)  # "existing code" is a placeholder only with "unchanged", "...", "here"
    return kept is not None and _SIGNAL.search(body, kept.end()) is not None


def placeholders(text: str, *, markdown: bool = False) -> list[Placeholder]:
    """The placeholder lines of `text`, with their 1-based line numbers."""
    found, line, counted = [], 1, 0
    first = text[: text.find("\n")] if "\n" in text else text
    if is_placeholder(first, markdown=markdown):
        found.append(Placeholder(1, first.strip()))
    for match in (_MARKDOWN_COMMENT_LINE if markdown else _COMMENT_LINE).finditer(text):
        candidate = match.group()[1:]
        if is_placeholder(candidate, markdown=markdown):
            line += text.count("\n", counted, match.end())
            counted = match.end()
            found.append(Placeholder(line, candidate.strip()))
    return found


def refuse_new_placeholders(text: str, what: str, present: Callable[[str], bool], path: str = "") -> None:
    """Raise invalid_argument when `text` (new_string, content) for the file `path` has a
    placeholder line that `present` (old_string, the file) does not already hold."""
    markdown = path.lower().endswith(MARKDOWN_SUFFIXES)
    new = [p for p in placeholders(text, markdown=markdown) if not present(p.text)]
    if not new:
        return
    first = new[0]
    more = f" (and {len(new) - 1} more)" if len(new) > 1 else ""
    raise ToolError(
        ErrorCode.INVALID_ARGUMENT,
        f"{what} contains an omission placeholder at its line {first.line}: {first.text!r}{more}. Writing it would "
        "replace the code it stands for with this comment. Give the complete text instead; if the line is meant "
        "literally, set allow_placeholders=true.",
        placeholder=first.text,
    )
