"""Undo: the last change fstools made to one file (or directory), taken back from the change journal.

The journal proves what the file held, so no prior Read is needed; a file that another program
changed since is left alone (concurrent_modification) unless force=true. The undo is itself a
journaled change: undo twice reverts the last two changes, and an undo that later changes
followed can itself be undone.
"""

from __future__ import annotations

import time
from typing import Any

from .._core.context import ExecutionContext
from .._core.errors import ErrorCode, ToolError
from .._core.outputs import DIFF, DRY_RUN, JOURNAL, ResultField
from .._core.params import ToolParameter
from .._core.paths import resolve_path
from .._core.permissions import authorize
from .._core.public import session, tool
from .._core.result import ToolResult
from .._journal.entries import Entry, Status
from .._journal.states import Kind
from .guard import one_at_a_time
from .history import diff_states, open_journal, read_log, require_journal, text_of, undo_target
from .restore import Reverter, current, kept_contents, run_all_or_none, selected


def preview(reverter: Reverter, entry: Entry, path: str | None) -> tuple[list[str], str]:
    """The paths an entry's revert changes and the diff from what is there now to what comes back."""
    paths, diffs = [], []
    for change in selected(entry, path):
        now = current(reverter.ctx, change.path)
        if entry.move is not None and change.path in entry.move:
            paths.append(change.path)
            continue
        data = now.snapshot.data if now.snapshot is not None else None
        old = text_of(reverter.journal, now.state, data) if now.state.kind == Kind.FILE else ""
        new = text_of(reverter.journal, change.before)
        if now.state.kind != Kind.FILE and change.before.kind != Kind.FILE:
            if now.state.kind != change.before.kind:
                paths.append(change.path)
            continue
        paths.append(change.path)
        diffs.append(diff_states(change.path, old, new, now.state, change.before))
    return paths, "".join(d if d.endswith("\n") or not d else d + "\n" for d in diffs).rstrip("\n")


def describe(entry: Entry) -> str:
    moved = f" ({entry.move[0]} -> {entry.move[1]})" if entry.move else ""
    when = time.strftime("%H:%M:%S", time.localtime(entry.time))
    return f"{entry.tool}{moved} at {when}"


def _undo(ctx: ExecutionContext, file_path: str, force: bool) -> ToolResult:
    require_journal(ctx, "Undo")
    target = resolve_path(ctx, file_path)
    journal = open_journal(target.root)
    with one_at_a_time(ctx, target.path):
        candidates = undo_target(read_log(journal), target.path)
        if not candidates:
            raise ToolError(
                ErrorCode.NOT_FOUND,
                f"Nothing to undo for {target.display}: the change journal holds no change of it "
                "(or every one was undone already)",
            )
        for entry in candidates:
            reverter = Reverter(ctx, journal, "Undo", force=force, undoes=entry.seq)
            if reverter.never_landed(entry, target.path):
                continue  # cut short by a crash before it changed anything
            paths, diff = preview(reverter, entry, target.path)
            return _run(ctx, reverter, entry, target.path, paths, diff)
    raise ToolError(ErrorCode.NOT_FOUND, f"Nothing to undo for {target.display}")


def _run(ctx: ExecutionContext, reverter: Reverter, entry: Entry, path: str, paths: list[str], diff: str) -> ToolResult:
    missing = reverter.missing(selected(entry, path), entry.move, cut_short=entry.status == Status.PENDING)
    if missing:
        raise ToolError(
            ErrorCode.NOT_FOUND,
            f"Cannot undo {describe(entry)}: the journal no longer holds the earlier content of "
            f"{', '.join(missing)} (too large to keep, or dropped); nothing was changed",
            paths=missing,
        )
    authorize(ctx, undo.spec, path, diff, covers=[p for p in paths if p != path], undoes=entry.seq)
    meta: dict[str, Any] = {"path": path, "paths": paths, "diff": diff, "undone": describe(entry)}
    if ctx.dry_run:
        return ToolResult.ok(f"[Dry Run] Would undo {describe(entry)}:\n{diff}".rstrip("\n"), **meta)
    with reverter.journal.pinning(kept_contents([entry])):  # a move's undo reads them after its begin line
        run_all_or_none(reverter, [lambda: _revert(reverter, entry, path)])
    for p in reverter.reverted:
        ctx.forget_read(p)
    meta["journal"] = reverter.note()
    if reverter.warnings:
        meta["warnings"] = reverter.warnings
    return ToolResult.ok(f"Undid {describe(entry)}:\n{diff}".rstrip("\n"), **meta)


def _revert(reverter: Reverter, entry: Entry, path: str) -> None:
    if not reverter.revert(entry, path):
        raise ToolError(ErrorCode.NOT_FOUND, f"Nothing to undo for {path}: its last change never landed")


@tool(
    name="Undo",
    description=(
        "Takes back the last change fstools made to a file (or a directory: its Delete or Move) from the change "
        "journal: previous content, mode and existence. No prior Read needed; again: the change before. "
        "Refuses (concurrent_modification) if another program changed it since, unless force=true."
    ),
    parameters=(
        ToolParameter(
            "file_path",
            "string",
            "Absolute path of the file or directory",
            required=True,
            path=True,
        ),
        ToolParameter(
            "force",
            "boolean",
            "Even if another program changed it since (what is there now is journaled first)",
            default=False,
        ),
    ),
    cli_help=(
        "Take back the last change fstools made to FILE_PATH (its content, mode and existence), from the change "
        "journal. Again: the change before. Refuses when another program changed it since, unless --force. "
        "--dry-run shows the diff and changes nothing."
    ),
    read_only=False,
    destructive=True,
    results=(
        ResultField("path", "string", "The path whose change was undone", always=True),
        ResultField("paths", "array", "Every path the undo changed", always=True),
        ResultField("undone", "string", "The change taken back: tool and time", always=True),
        DIFF,
        DRY_RUN,
        JOURNAL,
        ResultField("warnings", "array", "What could not be taken back completely"),
    ),
)
def undo(file_path: str, *, force: bool = False, ctx: ExecutionContext | None = None) -> ToolResult:
    """Take back the last change fstools made to a file."""
    return _undo(session(ctx), file_path, force)
