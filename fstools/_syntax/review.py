"""What the change tools call: the review of each changed file, the refusal, the block in the result.

    reviews = [review_change(ctx, target.display, old_text, new_text)]
    refuse_broken(ctx, reviews)            # check_syntax="refuse": raises syntax_error, nothing written
    ...write...
    return annotate(ToolResult.ok(...), reviews)

`review_change` checks the syntax of a file in a known language (the errors the change
introduced, see `check.check_text`), then runs the context's checkers, unless a refusal is
coming anyway, and plans the language server's check. `annotate`, called once the change is
written, runs that check (the server must see the version fstools wrote; its errors are
advice, never a refusal), ends the output with the block a model reads and puts every
diagnostic in `metadata["diagnostics"]` (present only when some file was checked).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .._core.context import ExecutionContext
from .._core.errors import ErrorCode, ToolError
from .._core.result import ToolResult
from .._lsp.languages import kind_of
from .check import MAX_CHECK_BYTES, can_check, check_text
from .checkers import run_checkers
from .diagnostics import Diagnostic, render_block
from .languages import language_for_path

if TYPE_CHECKING:  # the language servers' client is imported by the first change that needs it
    from .._lsp import semantic

HEAD = 256  # bytes of a new text that a #! line is looked for in


@dataclass
class Review:
    """One changed file: what the syntax check and the checkers found, and their warnings."""

    path: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    checked: bool = False
    semantic: semantic.Request | None = None  # the language server's check, run once the change is written

    @property
    def syntax(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.source == "syntax"]


def needs_review(ctx: ExecutionContext, path: str) -> bool:
    """Whether a change of `path` is reviewed at all (cheap: decides before any text is decoded)."""
    if ctx.checkers or (_servers_on(ctx) and kind_of(path) is not None):
        return True
    if ctx.check_syntax == "off":
        return False
    return language_for_path(path) is not None or "." not in os.path.basename(path)


def review_change(ctx: ExecutionContext, path: str, before: str | None, after: str) -> Review:
    """Check the change of the file `path` (as the result names it) from `before` (None: new) to `after`."""
    review = Review(path)
    if not needs_review(ctx, path):
        return review
    if ctx.check_syntax != "off":
        language = language_for_path(path, after[:HEAD].encode("utf-8", "replace"))
        if language is not None and can_check(language) and len(after) <= MAX_CHECK_BYTES:
            review.checked = True
            review.diagnostics = check_text(before, after, language, path)
    if ctx.checkers and not (review.diagnostics and ctx.check_syntax == "refuse"):
        found, warnings = run_checkers(ctx.checkers, path, after, ctx.checker_timeout)
        review.checked = True
        review.diagnostics += found
        review.warnings += warnings
    if _servers_on(ctx) and not review.syntax:  # a server's words on broken syntax repeat the check's
        from .._lsp import semantic

        review.semantic = semantic.plan(ctx, path, before, after)
    return review


def refuse_broken(ctx: ExecutionContext, reviews: Sequence[Review]) -> None:
    """With check_syntax="refuse", fail (syntax_error, nothing written) when a change broke a file's syntax."""
    if ctx.check_syntax != "refuse":
        return
    broken = [d for review in reviews for d in review.syntax]
    if not broken:
        return
    block = render_block(broken)
    files = sorted({d.path for d in broken})
    raise ToolError(
        ErrorCode.SYNTAX_ERROR,
        f"Nothing was written: {block[0].lower()}{block[1:]}\n"
        f"Fix the change so that {' and '.join(files)} still parse"
        f"{'s' if len(files) == 1 else ''} (check_syntax='refuse').",
        diagnostics=[d.as_dict() for d in broken],
    )


def annotate(result: ToolResult, reviews: Sequence[Review]) -> ToolResult:
    """The result with the diagnostics block at the end of its output, in metadata, and the warnings."""
    notices = _semantic_check(result, reviews)
    if not any(review.checked for review in reviews):
        return result
    found = [d for review in reviews for d in review.diagnostics]
    result.metadata["diagnostics"] = [d.as_dict() for d in found]
    warnings = [w for review in reviews for w in review.warnings]
    if warnings:
        result.metadata["warnings"] = [*result.metadata.get("warnings", []), *warnings]
    if found:
        result.output = f"{result.output.rstrip()}\n\n{render_block(found)}"
    if notices:
        result.output = f"{result.output.rstrip()}\n\n" + "\n".join(notices)
    return result


def _semantic_check(result: ToolResult, reviews: Sequence[Review]) -> list[str]:
    """Run the language servers' checks of the written files: their errors join each review's
    diagnostics, their states go to metadata; the notices of checks not done are returned."""
    planned = [review for review in reviews if review.semantic is not None]
    if not planned:
        return []
    from .._lsp import semantic

    outcomes = semantic.check([review.semantic for review in planned if review.semantic is not None])
    for review, outcome in zip(planned, outcomes, strict=True):
        review.checked = True
        review.diagnostics += [_diagnostic(found) for found in outcome.found]
    files = [outcome.as_dict() for outcome in outcomes]
    states = {outcome.state for outcome in outcomes}
    # Several files: not done if any was not, done if any was, else what the first one was.
    worst = next((state for state in ("not_done", "done") if state in states), files[0]["state"])
    summary = dict(files[0]) if len(files) == 1 else {"state": worst}
    summary["files"] = files
    result.metadata["semantic_check"] = summary
    named = next((outcome for outcome in outcomes if outcome.server), None)
    if named is not None:
        result.metadata["language_server"] = {"name": named.server, "state": named.server_state or "unavailable"}
    return [outcome.notice for outcome in outcomes if outcome.notice]


def forget_files(paths: Sequence[str]) -> None:
    """Files (or directories) deleted or moved away: closed in every running language server that
    holds them. Nothing to do, and nothing imported, when no server was ever started."""
    pool = sys.modules.get("fstools._lsp.pool")
    if pool is None or not paths:
        return
    for server in pool.POOL.running():
        if server.state == "ready":
            server.forget(list(paths))


def _servers_on(ctx: ExecutionContext) -> bool:
    return ctx.language_servers is not None and ctx.language_servers != "off"


def _diagnostic(found: semantic.Found) -> Diagnostic:
    return Diagnostic(
        found.path,
        found.line,
        found.column,
        found.message,
        source=found.source,
        text=found.text,
        semantic=True,
        code=found.code,
    )
