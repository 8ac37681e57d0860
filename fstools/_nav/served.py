"""The language server as a resolver: where the name used on a line is defined, and used, by the server.

    found = answer(ctx, "definitions", "/repo/app.py", 12, "run")    # Answer: places, or why none

`answer` asks the registered resolvers first (`resolve.register`), then the server. The
server is asked at the name's column on that line (the first whole-word occurrence of
`name` there: a model gives the line, not the column). Every place it answers with passes
the path policy before anything reads or shows it: a place outside the allowed directories
(a library's source, the standard library's stubs, `/usr/include`) or in a secret file is
withheld and counted; when every place is withheld, the server did not decide and the
caller answers by name, saying so. The places kept are still only shown where the caller's
own walk (its `path`, the ignore rules) found the file.
"""

from __future__ import annotations

import os
import re

from .._core.context import ExecutionContext
from .._core.paths import root_of
from .resolve import Answer, Location, Method, resolvers

_IDENTIFIER = r"[\w$]"


class LanguageServerResolver:
    """Asks the file's language server (`_lsp.navigate`); the reason in words when it has no answer."""

    def definitions(self, ctx: ExecutionContext, file_path: str, line: int, name: str) -> Answer:
        return self._ask(ctx, "definitions", file_path, line, name)

    def references(self, ctx: ExecutionContext, file_path: str, line: int, name: str) -> Answer:
        return self._ask(ctx, "references", file_path, line, name)

    def _ask(self, ctx: ExecutionContext, method: Method, file_path: str, line: int, name: str) -> Answer:
        from .._lsp import navigate, semantic

        if not semantic.enabled(ctx):
            return Answer(None, "language servers are off (ExecutionContext.language_servers)")
        column = column_of(file_path, line, name)
        if column is None:
            return Answer(None, f"{name!r} is not on line {line} of {file_path}: the language server was not asked")
        ask = navigate.definition if method == "definitions" else navigate.references
        found = ask(ctx, file_path, line, column, lambda place: _allowed(ctx, place))
        if found.state != "done":
            return Answer(None, found.reason)
        if not found.places:
            if found.withheld:
                return Answer(None, f"{found.server} answered only with {_withheld(found.withheld)}", found.withheld)
            return Answer(None, f"{found.server} found nothing for {name!r} at line {line}:{column}")
        places = [Location(p.path, p.line, p.column, p.byte_column) for p in found.places]
        return Answer(places, withheld=found.withheld, server=found.server)


def column_of(path: str, line: int, name: str) -> int | None:
    """The 1-based character column of the first whole-word `name` on `line` of `path`, or None."""
    try:
        with open(path, encoding="utf-8", errors="surrogateescape", newline="") as f:
            for number, text in enumerate(f, 1):
                if number == line:
                    hit = re.search(rf"(?<!{_IDENTIFIER}){re.escape(name)}(?!{_IDENTIFIER})", text)
                    return hit.start() + 1 if hit else None
    except OSError:
        return None
    return None


def withheld_note(count: int) -> str:
    """What a result says about the places it does not show."""
    return f"(Not shown: {_withheld(count)}.)"


def _withheld(count: int) -> str:
    places = "1 place" if count == 1 else f"{count} places"
    return f"{places} outside the allowed directories or in secret files"


def _allowed(ctx: ExecutionContext, path: str) -> bool:
    """Whether a place the server names may be read and shown: inside a root, not a secret, both as
    named and where its links lead (a link out of the sandbox, or to a secret, is neither read nor shown)."""
    real = os.path.realpath(path)
    for candidate in {path, real}:
        if root_of(ctx, candidate) is None or (ctx.sensitive and ctx.sensitive.first_match(candidate)):
            return False
    return True


SERVED = LanguageServerResolver()


def answer(ctx: ExecutionContext, method: Method, file_path: str, line: int | None, name: str) -> Answer:
    """The first answer of the registered resolvers, then of the language server; else why there is none."""
    if line is None:
        return Answer(None, "no line given: a language server needs the place of the use")
    reasons: list[str] = []
    for resolver in [*resolvers(), SERVED]:
        got = getattr(resolver, method)(ctx, file_path, line, name)
        found = got if isinstance(got, Answer) else Answer(None if got is None else list(got))
        if found.answered:
            return found
        if found.reason:
            reasons.append(found.reason)
    return Answer(None, "; ".join(reasons) or "no resolver answered")
