"""Rewind: every path fstools changed since a checkpoint, back to its state then, all or none.

The journal's entries after the checkpoint are reverted newest first (content, mode and
existence; created files and directories removed, deleted trees back, moves reversed), each
path reached through the sandbox. Before anything changes, every path must be as fstools left
it (else concurrent_modification names those that are not, unless force=true, which journals
what is there first) and every earlier content must still be in the journal (a rewind past
entries the bound dropped is refused, naming the paths). If a step fails, the steps before it
are undone. The rewind is journaled too: a checkpoint taken before it can take it back.
"""

from __future__ import annotations

from contextlib import ExitStack
from typing import Any

from .._core.context import ExecutionContext
from .._core.errors import ErrorCode, ToolError
from .._core.outputs import DIFF, DRY_RUN, JOURNAL, ResultField
from .._core.params import ToolParameter
from .._core.permissions import authorize
from .._core.public import session, tool
from .._core.result import ToolResult
from .._journal.entries import Entry, Status
from .checkpoint import entries_since, net_changes
from .guard import one_at_a_time
from .history import require_journal
from .restore import Reverter, conflict_error, kept_contents, run_all_or_none


def _newest_per_path(entries: list[Entry]) -> dict[str, Entry]:
    newest: dict[str, Entry] = {}
    for entry in entries:
        for change in entry.paths:
            newest[change.path] = entry
    return newest


def _check(reverter: Reverter, entries: list[Entry]) -> None:
    """Refuse before anything changes: paths changed by someone else, contents the journal lost."""
    newest = _newest_per_path(entries)
    bad, missing = [], []
    for entry in entries:
        mine = [c for c in entry.paths if newest[c.path] is entry]
        cut_short = entry.status == Status.PENDING
        if not reverter.never_landed(entry, None):
            bad += reverter.conflicts(mine, entry.move, cut_short=cut_short)
        missing += reverter.missing(entry.paths, entry.move, cut_short=cut_short)
    if missing:
        raise ToolError(
            ErrorCode.NOT_FOUND,
            "Cannot rewind: the journal no longer holds the earlier content of these paths (too large to keep, "
            "or damaged); nothing was changed:\n" + "\n".join(f"  {p}" for p in sorted(set(missing))[:50]),
            paths=sorted(set(missing)),
        )
    if bad and not reverter.force:
        raise conflict_error(sorted(set(bad)))


def _rewind(ctx: ExecutionContext, checkpoint: str, force: bool, dry_run: bool = False) -> ToolResult:
    require_journal(ctx, "Rewind")
    dry_run = dry_run or ctx.dry_run
    for _ in range(3):
        paths = _paths(_plans(ctx, checkpoint, force))
        if not paths:
            return ToolResult.ok(
                f"Nothing to rewind: no change since checkpoint {checkpoint}", paths=[], diff="", reverted=0
            )
        with one_at_a_time(ctx, *paths):
            plans = _plans(ctx, checkpoint, force)  # again, now that no other change of these paths can run
            if set(_paths(plans)) <= set(paths):
                return _rewind_held(ctx, checkpoint, plans, _paths(plans), dry_run)
    raise ToolError(ErrorCode.TIMEOUT, "Other changes kept coming while the rewind was prepared; try again")


def _plans(ctx: ExecutionContext, checkpoint: str, force: bool) -> list[tuple[Reverter, list[Entry]]]:
    return [
        (Reverter(ctx, journal, "Rewind", force=force), entries) for journal, entries in entries_since(ctx, checkpoint)
    ]


def _paths(plans: list[tuple[Reverter, list[Entry]]]) -> list[str]:
    return sorted({c.path for _, entries in plans for e in entries for c in e.paths})


def _rewind_held(
    ctx: ExecutionContext, checkpoint: str, plans: list[tuple[Reverter, list[Entry]]], paths: list[str], dry_run: bool
) -> ToolResult:
    """The rewind itself, every path held."""
    if not paths:
        return ToolResult.ok(
            f"Nothing to rewind: no change since checkpoint {checkpoint}", paths=[], diff="", reverted=0
        )
    for reverter, entries in plans:
        _check(reverter, entries)
    items = [item for reverter, entries in plans for item in net_changes(ctx, reverter.journal, entries)]
    diff = "\n".join(d.rstrip("\n") for d in (item.diff(backwards=True) for item in items) if d)
    authorize(ctx, rewind.spec, paths[0], diff, covers=paths[1:], entries=sum(len(e) for _, e in plans))
    count = sum(len(e) for _, e in plans)
    meta: dict[str, Any] = {"paths": paths, "diff": diff, "reverted": count}
    listing = "\n".join(f"  {p}" for p in paths[:100])
    if dry_run:
        return ToolResult.ok(
            f"[Dry Run] Would rewind {count} changes to checkpoint {checkpoint}:\n{listing}\n{diff}".rstrip("\n"),
            dry_run=True,
            **meta,
        )
    meta.update(_reverted(ctx, plans, paths))
    return ToolResult.ok(f"Rewound {count} changes to checkpoint {checkpoint}:\n{listing}", **meta)


def _reverted(ctx: ExecutionContext, plans: list[tuple[Reverter, list[Entry]]], paths: list[str]) -> dict[str, Any]:
    """Revert every entry, newest first, all or none; what the result's metadata adds (journal, warnings)."""
    steps = [lambda r=r, e=e: r.revert(e) for r, entries in plans for e in reversed(entries)]
    with ExitStack() as held:  # the rewind's own entries may set the bound off before the older contents are read
        for reverter, entries in plans:
            held.enter_context(reverter.journal.pinning(kept_contents(entries)))
        _run(plans, steps)
    for path in paths:
        ctx.forget_read(path)
    notes = {r.note() for r, _ in plans}
    added: dict[str, Any] = {"journal": next((n for n in notes if n != "recorded"), "recorded")}
    warnings = [w for r, _ in plans for w in r.warnings]
    if warnings:
        added["warnings"] = warnings
    return added


def _run(plans: list[tuple[Reverter, list[Entry]]], steps: list[Any]) -> None:
    """All the steps or none, across the journals of several roots."""
    first = plans[0][0]
    others = [r for r, _ in plans[1:]]
    original = first.rollback

    def rollback() -> list[str]:
        failures = []
        for reverter in reversed(others):
            failures += reverter.rollback()
        return failures + original()

    first.rollback = rollback  # type: ignore[method-assign]
    run_all_or_none(first, steps)
    for reverter in others:
        reverter.finish()


@tool(
    name="Rewind",
    description=(
        "Takes every file fstools changed since a checkpoint back to its state then: content, mode and "
        "existence (created files removed, deleted files and directories back, moves reversed), all or none. "
        "Refuses (concurrent_modification, naming the paths) when another program changed one since, unless "
        "force=true. A rewind can itself be rewound."
    ),
    parameters=(
        ToolParameter("checkpoint", "string", "The checkpoint id (from Checkpoint)", required=True),
        ToolParameter(
            "force",
            "boolean",
            "Even paths another program changed since (what is there now is journaled first)",
            default=False,
        ),
        ToolParameter("dry_run", "boolean", "Show what would change, with the diff; change nothing", default=False),
    ),
    cli_help=(
        "Take every path changed since checkpoint CHECKPOINT back to its state then, all or none. Refuses when "
        "another program changed one of them since, unless --force. --dry-run shows the diff and changes nothing."
    ),
    read_only=False,
    destructive=True,
    results=(
        ResultField("paths", "array", "Every path the rewind takes back", always=True),
        ResultField("reverted", "integer", "Journaled changes taken back", always=True),
        DIFF,
        DRY_RUN,
        JOURNAL,
        ResultField("warnings", "array", "What could not be taken back completely"),
    ),
)
def rewind(
    checkpoint: str, *, force: bool = False, dry_run: bool = False, ctx: ExecutionContext | None = None
) -> ToolResult:
    """Take every path changed since a checkpoint back to its state then, all or none."""
    return _rewind(session(ctx), checkpoint, force, dry_run)
