"""Allow/ask/deny rules by tool and path, with a human confirmation callback."""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._globs.globmatch import glob_match
from .errors import ErrorCode, ToolError

if TYPE_CHECKING:
    from .context import ExecutionContext
    from .spec import ToolSpec

ACTIONS = ("allow", "ask", "deny")


@dataclass(frozen=True)
class PermissionRule:
    """`tool` is a tool name or a glob over names ("*", "Write"); `path` a glob over the
    canonical absolute path ("**/*.lock"; a relative pattern matches at any depth)."""

    tool: str = "*"
    path: str = "**"
    action: str = "allow"

    def __post_init__(self) -> None:
        if self.action not in ACTIONS:
            raise ValueError(f"action must be one of {ACTIONS}, got {self.action!r}")

    def matches(self, tool: str, path: str, answers_to: Iterable[str] = ()) -> bool:
        """Whether the rule applies to `tool` acting on the canonical absolute `path`."""
        return self.covers(tool, answers_to) and glob_match(self.path, path)

    def covers(self, tool: str, answers_to: Iterable[str] = ()) -> bool:
        """Whether the rule applies to `tool`, or to a tool whose rules it answers to (its spec's
        `answers_to`: a rule on Edit covers MultiEdit)."""
        return any(fnmatch.fnmatchcase(name, self.tool) for name in (tool, *answers_to))


@dataclass(frozen=True)
class PermissionRequest:
    """What the confirmation callback is shown: the tool, the path and a preview of the change.

    `answers_to` are the other tools whose rules also govern this call (see ToolSpec).
    """

    tool: str
    path: str
    diff: str | None = None
    details: dict[str, Any] = field(default_factory=dict)
    answers_to: tuple[str, ...] = ()

    def describe(self, max_diff_chars: int = 4000) -> str:
        """What a person is asked to approve: the tool, the path and the (bounded) diff preview."""
        text = f"{self.tool} on {self.path}"
        if not self.diff:
            return text
        diff = self.diff
        if len(diff) > max_diff_chars:
            diff = diff[:max_diff_chars] + f"\n... diff cut at {max_diff_chars} of {len(self.diff)} characters"
        return f"{text}:\n{diff}"


@dataclass
class PermissionManager:
    """Ordered rules: any matching deny wins, otherwise the first matching rule, otherwise `default`."""

    rules: Sequence[PermissionRule] = ()
    confirm: Callable[[PermissionRequest], bool] | None = None
    default: str = "allow"

    def decide(self, tool: str, path: str, answers_to: Iterable[str] = ()) -> str:
        """The action for `tool` on `path`: "allow", "ask" or "deny", by the rules (see the class docstring)."""
        matching = [r for r in self.rules if r.matches(tool, path, answers_to)]
        if any(r.action == "deny" for r in matching):
            return "deny"
        return matching[0].action if matching else self.default

    def denied(self, tool: str, answers_to: Iterable[str] = ()) -> Callable[[str], bool] | None:
        """A test for "decide(tool, path) == 'deny'", or None when no deny rule covers `tool`.

        Listing tools run it on every path they would show, so the rules that cannot match are
        dropped once per call rather than once per path.
        """
        globs = [r.path for r in self.rules if r.action == "deny" and r.covers(tool, answers_to)]
        if not globs:
            return None
        return lambda path: any(glob_match(g, path) for g in globs)

    def authorize(self, request: PermissionRequest, *, dry_run: bool = False, covers: Iterable[str] = ()) -> None:
        """Raise ToolError unless the request may proceed; a dry run changes nothing, so it asks no one.

        `covers` are further paths the call changes (the contents of a deleted tree): a deny on
        any of them refuses the whole call, an ask on any of them asks once for the whole call.
        """
        action, where = self.decide(request.tool, request.path, request.answers_to), request.path
        for path in covers:
            if action == "deny":
                break
            here = self.decide(request.tool, path, request.answers_to)
            if here == "deny" or (here == "ask" and action == "allow"):
                action, where = here, path
        if action == "deny":
            raise ToolError(
                ErrorCode.PERMISSION_DENIED,
                f"Permission denied by rule: {request.tool} on {where}",
            )
        if action == "ask" and not dry_run:
            if self.confirm is None:
                raise ToolError(
                    ErrorCode.PERMISSION_DENIED,
                    f"{request.tool} on {request.path} needs confirmation, but no confirm callback is set",
                )
            if not self.confirm(request):
                raise ToolError(ErrorCode.USER_REJECTED, f"User rejected {request.tool} on {request.path}")


def authorize(
    ctx: ExecutionContext,
    tool: ToolSpec,
    path: str,
    diff: str | None = None,
    *,
    ask: bool = True,
    covers: Iterable[str] = (),
    **details: Any,
) -> None:
    """Ask the context's PermissionManager, if any, whether `tool` may act on `path` (and `covers`).

    A deny rule refuses even a dry run or a no-op; `ask` rules consult the human only for a real
    change (`ask=False` for a no-op, and never in a dry run).
    """
    if ctx.permissions is not None:
        request = PermissionRequest(tool.name, path, diff, details, tuple(tool.answers_to))
        ctx.permissions.authorize(request, dry_run=ctx.dry_run or not ask, covers=covers)


def denied_test(ctx: ExecutionContext, tool: ToolSpec) -> Callable[[str], bool] | None:
    """Whether a deny rule forbids `tool` a path; None (nothing to test) without such rules."""
    return ctx.permissions.denied(tool.name, tool.answers_to) if ctx.permissions is not None else None


def drop_denied(ctx: ExecutionContext, tool: ToolSpec, paths: list[str]) -> list[str]:
    """`paths` minus those a deny rule forbids `tool`: a listing must not show what reading would refuse."""
    denied = denied_test(ctx, tool)
    return paths if denied is None else [p for p in paths if not denied(p)]
