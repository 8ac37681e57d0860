"""Checkpoint and Changes: a named point in the change journal, and what changed since one.

A checkpoint is a line in the journal of each allowed root; its id (what Rewind and Changes
take) names those journals and the point in each. Changes lists every path changed since (by
any fstools call, in any process working on the same directory), with a unified diff from its
state then to its state now.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._core.context import ExecutionContext
from .._core.outputs import ResultField
from .._core.params import ToolParameter
from .._core.permissions import authorize, denied_test
from .._core.public import session, tool
from .._core.result import ToolResult
from .._journal.entries import Entry
from .._journal.states import Kind, State
from .._journal.storage import JournalStorage
from .history import (
    Mark,
    append_checkpoint,
    diff_states,
    dropped_error,
    find_mark,
    open_journal,
    read_log,
    require_journal,
    text_of,
)
from .restore import current


def _checkpoint(ctx: ExecutionContext, label: str | None) -> ToolResult:
    require_journal(ctx, "Checkpoint")
    authorize(ctx, checkpoint.spec, ctx.roots[0], ask=False, covers=ctx.roots[1:])
    marks = []
    for root in ctx.roots:
        journal = open_journal(root)
        marks.append(Mark(journal.nonce, append_checkpoint(journal, label, ctx.timeout)))
    mark = "+".join(str(m) for m in marks)
    named = f" {label!r}" if label else ""
    if ctx.arg_style == "flags":  # a person at the command line
        how = f"`fstools rewind {mark}` takes every file back to it; `fstools changes --since {mark}` lists"
    else:
        how = f"rewind(checkpoint={mark!r}) takes every file back to it; changes(since={mark!r}) lists"
    return ToolResult.ok(f"Checkpoint{named}: {mark}\n{how} what changed since.", checkpoint=mark, label=label)


def entries_since(ctx: ExecutionContext, since: str | None) -> list[tuple[JournalStorage, list[Entry]]]:
    """Each root's journal and its landed entries after the checkpoint (all of them without one)."""
    if since is None:
        journals = [(open_journal(root), 0) for root in ctx.roots]
    else:
        journals = find_mark(ctx, since)
    out = []
    for journal, seq in journals:
        log = read_log(journal)
        if since is not None:
            error = dropped_error(log, seq)
            if error is not None:
                raise error
        out.append((journal, [e for e in log.landed() if e.seq > seq]))
    return out


def first_states(entries: list[Entry]) -> dict[str, State]:
    """Each path the entries touched, with its state before the first of them."""
    first: dict[str, State] = {}
    for entry in entries:
        for change in entry.paths:
            first.setdefault(change.path, change.before)
    return first


def _verb(before: State, now: State) -> str:
    if before.kind == Kind.ABSENT:
        return "added" if now.kind != Kind.ABSENT else "unchanged"
    if now.kind == Kind.ABSENT:
        return "deleted"
    return "modified"


@dataclass(frozen=True)
class PathDiff:
    """One path changed since a checkpoint: its state then and now, and the text of both (None: not text)."""

    path: str
    then: State
    now: State
    then_text: str | None
    now_text: str | None

    @property
    def verb(self) -> str:
        return _verb(self.then, self.now)

    def diff(self, *, backwards: bool = False) -> str:
        if backwards:
            return diff_states(self.path, self.now_text, self.then_text, self.now, self.then)
        return diff_states(self.path, self.then_text, self.now_text, self.then, self.now)


def net_changes(ctx: ExecutionContext, journal: JournalStorage, entries: list[Entry]) -> list[PathDiff]:
    """Each path the entries changed whose state now differs from its state before the first of them."""
    out = []
    for path, then in first_states(entries).items():
        now = current(ctx, path)
        if _same(then, now.state):
            continue
        data = now.snapshot.data if now.snapshot is not None else None
        out.append(PathDiff(path, then, now.state, text_of(journal, then), text_of(journal, now.state, data)))
    return out


def _same(then: State, now: State) -> bool:
    if then.kind != now.kind:
        return False
    if then.kind == Kind.FILE:
        return then.hash == now.hash and then.mode == now.mode
    return then.kind != Kind.LINK or then.target == now.target


def _changes(ctx: ExecutionContext, since: str | None) -> ToolResult:
    require_journal(ctx, "Changes")
    authorize(ctx, changes.spec, ctx.roots[0], ask=False, covers=ctx.roots[1:])
    denied = denied_test(ctx, changes.spec)
    files: list[dict[str, Any]] = []
    diffs, lines = [], []
    count = 0
    for journal, entries in entries_since(ctx, since):
        count += len(entries)
        for item in net_changes(ctx, journal, entries):
            if denied is not None and denied(item.path):  # a listing never shows what a deny rule hides
                continue
            files.append(
                {"path": item.path, "change": item.verb, "before": item.then.describe(), "now": item.now.describe()}
            )
            lines.append(f"{item.verb[0].upper()} {item.path}")
            if item.then.kind != Kind.DIR or item.now.kind != Kind.ABSENT and item.now.kind != Kind.DIR:
                diffs.append(item.diff().rstrip("\n"))
    diff = "\n".join(d for d in diffs if d)
    since_text = f"since checkpoint {since}" if since else "in the journal"
    if not files:
        return ToolResult.ok(f"No changes {since_text}.", files=[], diff="", entries=count)
    output = f"{len(files)} path{'s' if len(files) != 1 else ''} changed {since_text}:\n" + "\n".join(lines)
    return ToolResult.ok(f"{output}\n\n{diff}".rstrip("\n"), files=files, diff=diff, entries=count)


@tool(
    name="Checkpoint",
    description=(
        "Marks the files' current state in the change journal and returns its id: Rewind takes every file back "
        "to it, Changes lists what changed since. Take one before a risky multi-file change."
    ),
    parameters=(ToolParameter("label", "string", "A name to remember it by"),),
    cli_help="Mark this point in the change journal and print its id (for `fstools rewind ID` and `fstools changes`).",
    read_only=True,  # it changes no file: a read-only session may mark points too
    results=(
        ResultField("checkpoint", "string", "The checkpoint's id", always=True),
        ResultField("label", ("string", "null"), "The label given", always=True),
    ),
)
def checkpoint(*, label: str | None = None, ctx: ExecutionContext | None = None) -> ToolResult:
    """Mark this point in the change journal; the id is in metadata["checkpoint"]."""
    return _checkpoint(session(ctx), label)


@tool(
    name="Changes",
    description=(
        "Lists every path fstools changed since a checkpoint (or all the change journal holds), by any session "
        "on these directories, with a unified diff from its state then to now."
    ),
    parameters=(ToolParameter("since", "string", "A checkpoint id; default: all the journal holds"),),
    cli_help="List the paths changed since checkpoint ID (--since ID; default: all the journal holds), with diffs.",
    read_only=True,
    results=(
        ResultField(
            "files", "array", "Each path changed: path, change (added, modified, deleted), before, now", always=True
        ),
        ResultField("diff", "string", "Unified diff of every file changed", always=True),
        ResultField("entries", "integer", "Journaled changes since the checkpoint", always=True),
    ),
)
def changes(*, since: str | None = None, ctx: ExecutionContext | None = None) -> ToolResult:
    """Every path changed since a checkpoint, with its diff."""
    return _changes(session(ctx), since)
