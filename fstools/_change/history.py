"""What Checkpoint, Changes, Rewind and Undo share: the journals of a context's roots, checkpoint ids,
which entry an undo reverts, and diffs between what was and what is."""

from __future__ import annotations

from dataclasses import dataclass

from .._core.context import ExecutionContext
from .._core.errors import ErrorCode, ToolError
from .._journal.entries import Entry, Log
from .._journal.opening import open_storage
from .._journal.states import Kind, State
from .._journal.storage import JournalStorage
from .._journal.store import Unavailable
from .diff import unified_diff, whole_text_changes
from .document import decode_document


def require_journal(ctx: ExecutionContext, tool: str) -> None:
    if ctx.journal == "off":
        raise ToolError(
            ErrorCode.INVALID_ARGUMENT,
            f"{tool} needs the change journal, which is off in this context (ExecutionContext(journal='off')): "
            "nothing was recorded to take back",
        )


def open_journal(root: str) -> JournalStorage:
    try:
        return open_storage(root)
    except Unavailable as exc:
        raise ToolError(ErrorCode.IO_ERROR, f"The change journal of {root} cannot be used: {exc}") from None


def read_log(journal: JournalStorage) -> Log:
    """The journal's log; a damaged one is an error that says so (and how to start anew)."""
    try:
        return journal.read()
    except Unavailable as exc:
        raise ToolError(ErrorCode.IO_ERROR, f"The change journal of {journal.root} cannot be used: {exc}") from None


def append_checkpoint(journal: JournalStorage, label: str | None, timeout: float) -> int:
    """Mark the journal; the checkpoint's sequence number."""
    import time

    try:
        with journal.locked(timeout) as log:
            seq = log.next_seq
            journal.append({"op": "checkpoint", "seq": seq, "label": label, "time": time.time()})
            return seq
    except (Unavailable, TimeoutError, OSError) as exc:
        raise ToolError(ErrorCode.IO_ERROR, f"The change journal of {journal.root} cannot be written: {exc}") from None


@dataclass(frozen=True)
class Mark:
    """One root's part of a checkpoint: the journal (by its random name) and the sequence number."""

    nonce: str
    seq: int

    def __str__(self) -> str:
        return f"{self.seq}-{self.nonce}"


def parse_checkpoint(checkpoint: str) -> list[Mark]:
    marks = []
    for part in checkpoint.strip().split("+"):
        seq, _, nonce = part.partition("-")
        if not seq.isdigit() or not nonce:
            raise ToolError(
                ErrorCode.INVALID_ARGUMENT,
                f"Not a checkpoint id: {checkpoint!r} (an id looks like '12-3f9a0c1b2d4e', as checkpoint returns it)",
            )
        marks.append(Mark(nonce, int(seq)))
    return marks


def find_mark(ctx: ExecutionContext, checkpoint: str) -> list[tuple[JournalStorage, int]]:
    """Each root's journal and the sequence number the checkpoint marks in it; not_found for an unknown id."""
    marks = {m.nonce: m.seq for m in parse_checkpoint(checkpoint)}
    found = []
    for root in ctx.roots:
        journal = open_journal(root)
        if journal.nonce in marks:
            seq = marks.pop(journal.nonce)
            log = read_log(journal)
            if seq >= log.first_kept and not any(c.seq == seq for c in log.checkpoints):
                raise _unknown(checkpoint)
            found.append((journal, seq))
    if marks or not found:
        raise _unknown(checkpoint)
    return found


def _unknown(checkpoint: str) -> ToolError:
    return ToolError(
        ErrorCode.NOT_FOUND,
        f"Unknown checkpoint {checkpoint!r}: the change journal of these directories has no such checkpoint "
        "(Changes lists the journal's entries; Checkpoint makes a new one)",
    )


def dropped_error(log: Log, seq: int) -> ToolError | None:
    """The error for a rewind past entries the bound dropped (naming the paths they touched), if any."""
    if seq + 1 >= log.first_kept:
        return None
    paths = sorted(p for p, s in log.dropped.items() if s > seq)
    listed = "\n".join(f"  {p}" for p in paths[:50]) or "  (their paths were not kept)"
    return ToolError(
        ErrorCode.NOT_FOUND,
        "Cannot rewind that far: the change journal dropped its oldest entries to stay within its size "
        f"(FSTOOLS_JOURNAL_MAX_BYTES), so these paths cannot be restored to the checkpoint; nothing was "
        f"changed:\n{listed}",
        paths=paths,
    )


def undo_target(log: Log, path: str) -> list[Entry]:
    """The entries an undo of `path` may revert, best first: the newest change of it, skipping the
    changes a run of undos just before already took back (undo twice reverts the last two), while
    an undo that other changes followed is a change like any other (undo of an undo restores)."""
    touching = [e for e in reversed(log.landed()) if e.touches(path)]
    undone: set[int] = set()
    in_run = True
    out = []
    for entry in touching:
        if in_run and entry.undoes is not None:
            undone.add(entry.undoes)
            continue
        in_run = False
        if entry.seq not in undone:
            out.append(entry)
    return out


def text_of(journal: JournalStorage, state: State, data: bytes | None = None) -> str | None:
    """A file state's text (from the journal, or `data`), or None when it is not text or not a file."""
    if state.kind != Kind.FILE:
        return "" if state.kind == Kind.ABSENT else None
    if data is None:
        data = journal.read_blob(state.hash or "") if state.hash else None
    if data is None:
        return None
    try:
        return decode_document(data, "").text
    except ToolError:
        return None


def diff_states(path: str, old: str | None, new: str | None, old_state: State, new_state: State) -> str:
    """A unified diff from one state of `path` to another (a line saying so when either is not text)."""
    if old is None or new is None:
        return f"--- {path}\n(not shown: {old_state.describe()} -> {new_state.describe()})\n"
    if old == new and old_state.kind == new_state.kind:
        return ""
    return unified_diff(
        old,
        new,
        whole_text_changes(old, new),
        old_label="/dev/null" if old_state.kind == Kind.ABSENT else path,
        new_label="/dev/null" if new_state.kind == Kind.ABSENT else path,
    )
