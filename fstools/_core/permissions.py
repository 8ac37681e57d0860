"""Allow/ask/deny rules by tool and path, with a human confirmation callback."""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._globs.globmatch import glob_match
from .errors import ErrorCode, ToolError

ACTIONS = ("allow", "ask", "deny")
# A tool also obeys the rules written for these names: MultiEdit is a batch of Edits, and a
# patch writes, edits and deletes files.
_ALSO_MATCHES = {"MultiEdit": ("Edit",), "ApplyPatch": ("Write", "Edit", "Delete")}


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

    def matches(self, tool: str, path: str) -> bool:
        """Whether the rule applies to `tool` acting on the canonical absolute `path`."""
        return self.covers(tool) and glob_match(self.path, path)

    def covers(self, tool: str) -> bool:
        """Whether the rule applies to `tool`, or to a tool it stands for (a rule on Edit covers MultiEdit)."""
        return any(fnmatch.fnmatchcase(name, self.tool) for name in (tool, *_ALSO_MATCHES.get(tool, ())))


@dataclass(frozen=True)
class PermissionRequest:
    """What the confirmation callback is shown: the tool, the path and a preview of the change."""

    tool: str
    path: str
    diff: str | None = None
    details: dict[str, Any] = field(default_factory=dict)

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

    def decide(self, tool: str, path: str) -> str:
        """The action for `tool` on `path`: "allow", "ask" or "deny", by the rules (see the class docstring)."""
        matching = [r for r in self.rules if r.matches(tool, path)]
        if any(r.action == "deny" for r in matching):
            return "deny"
        return matching[0].action if matching else self.default

    def denied(self, tool: str) -> Callable[[str], bool] | None:
        """A test for "decide(tool, path) == 'deny'", or None when no deny rule covers `tool`.

        Listing tools run it on every path they would show, so the rules that cannot match are
        dropped once per call rather than once per path.
        """
        globs = [r.path for r in self.rules if r.action == "deny" and r.covers(tool)]
        if not globs:
            return None
        return lambda path: any(glob_match(g, path) for g in globs)

    def authorize(self, request: PermissionRequest, *, dry_run: bool = False, covers: Iterable[str] = ()) -> None:
        """Raise ToolError unless the request may proceed; a dry run changes nothing, so it asks no one.

        `covers` are further paths the call changes (the contents of a deleted tree): a deny on
        any of them refuses the whole call, an ask on any of them asks once for the whole call.
        """
        action, where = self.decide(request.tool, request.path), request.path
        for path in covers:
            if action == "deny":
                break
            here = self.decide(request.tool, path)
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
