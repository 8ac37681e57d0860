"""The tail every change tool ends in: refuse broken syntax, ask permission, stop at a dry run,
write, and end the result with what the review found.

    reviews = [review_change(ctx, target.display, old_text, new_text)]
    change = Landing(spec, diff, reviews, meta, preview=..., done=..., writes=OneFile(target, data, seen))
    return land(ctx, change)

A tool builds its change in memory (the bytes, the diff, the review, the words of both results)
and hands it over; `land` is the only place that decides whether and how it reaches the disk. One
file goes through `guard.save` (journaled as the tool's change), several through a `Transaction`
(all or none, journaled as one change).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from .._content.spliced import Spliced
from .._core.context import ExecutionContext
from .._core.paths import SafePath
from .._core.permissions import authorize
from .._core.result import ToolResult
from .._core.spec import ToolSpec
from .._syntax.review import Review, annotate, refuse_broken
from .atomic import Snapshot
from .guard import save
from .transaction import FileChange, Transaction


class Writes(Protocol):
    """What a change writes: one file, or several all or none."""

    @property
    def path(self) -> str:
        """The path the permission rules are asked about (the first one of several)."""

    def commit(self, ctx: ExecutionContext, tool: str) -> dict[str, Any]:
        """Write it, journaled as `tool`'s change; the metadata the written result adds."""


@dataclass(frozen=True)
class OneFile:
    """One file's new bytes, written over what `seen` saw (None: a new file); `backup` keeps the old as .bak."""

    target: SafePath
    data: bytes | Spliced
    seen: Snapshot | None
    backup: bool = False

    @property
    def path(self) -> str:
        return self.target.path

    def commit(self, ctx: ExecutionContext, tool: str) -> dict[str, Any]:
        written, backup_path = save(ctx, self.target, self.data, self.seen, backup=self.backup, tool=tool)
        added: dict[str, Any] = {"in_place": written.in_place, "journal": written.journal}
        if self.backup:
            added["backup_path"] = backup_path
        return added


@dataclass(frozen=True)
class Files:
    """Several files' changes (writes, creations, deletions), made all or none."""

    changes: list[FileChange]

    @property
    def path(self) -> str:
        return self.changes[0].target.path

    def commit(self, ctx: ExecutionContext, tool: str) -> dict[str, Any]:
        transaction = Transaction(ctx, tool)
        transaction.apply(self.changes)
        added: dict[str, Any] = {"journal": transaction.journal_note()}
        if transaction.warnings:
            added["warnings"] = transaction.warnings
        return added


@dataclass(frozen=True)
class Landing:
    """A change ready to land: whose it is, what it writes and the words of its result.

    `preview` is the dry run's output, `done` the output once written (a kept backup is named
    after it); `meta` is both results' metadata, after what the write adds (`in_place`, `journal`)
    and after `lead`, which comes before it: each tool's results keep the order of their keys.
    `asked` is what the permission callback sees besides the diff, `journal_as` the name the
    journal records the change under (the tool's by default)."""

    spec: ToolSpec
    diff: str
    reviews: Sequence[Review]
    meta: dict[str, Any]
    preview: str
    done: str
    writes: Writes
    asked: dict[str, Any] = field(default_factory=dict)
    lead: dict[str, Any] = field(default_factory=dict)
    journal_as: str | None = None


def land(ctx: ExecutionContext, change: Landing) -> ToolResult:
    """Refuse a change that broke a file's syntax (check_syntax="refuse"), ask the permission rules,
    return the preview in a dry run, else write the change; either result ends with the review."""
    refuse_broken(ctx, change.reviews)
    authorize(ctx, change.spec, change.writes.path, change.diff, **change.asked)
    if ctx.dry_run:
        return annotate(ToolResult.ok(change.preview, **change.lead, **change.meta), change.reviews)
    added = change.writes.commit(ctx, change.journal_as or change.spec.name)
    kept = added.get("backup_path")
    output = f"{change.done}; previous version kept at {kept}" if kept else change.done
    return annotate(ToolResult.ok(output, **change.lead, **added, **change.meta), change.reviews)
