"""The journal's records: a change (the paths it touched, each with its state before and after),
a checkpoint, and how the log's lines make them.

A change is written as a `begin` line before any of its paths changes (the states before and
the states it means to leave), then an `end` line with the states it left (or `abort` when it
was given up and undone). A change without either was cut short (a crash): whether it landed
is judged from each path's state at the time it matters.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from .states import State


class Status(str, Enum):
    PENDING = "pending"
    DONE = "done"
    ABORTED = "aborted"


@dataclass(frozen=True)
class PathChange:
    path: str
    before: State
    after: State

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "before": self.before.to_json(), "after": self.after.to_json()}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PathChange:
        return cls(data["path"], State.from_json(data["before"]), State.from_json(data["after"]))


@dataclass
class Entry:
    """One change: `paths` top-down (a directory before what it holds). A move also names its two
    ends: the entry at `move[1]` came from `move[0]`, whatever it held."""

    seq: int
    tool: str
    time: float
    paths: list[PathChange]
    move: tuple[str, str] | None = None
    undoes: int | None = None  # the entry an undo reverted
    group: int | None = None  # the first entry of the rewind this one belongs to
    status: Status = Status.PENDING

    def touches(self, path: str) -> bool:
        if any(c.path == path for c in self.paths):
            return True
        return self.move is not None and any(_within(path, end) for end in self.move)

    def change_of(self, path: str) -> PathChange | None:
        return next((c for c in self.paths if c.path == path), None)

    def begin_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "op": "begin",
            "seq": self.seq,
            "tool": self.tool,
            "time": self.time,
            "paths": [c.to_json() for c in self.paths],
        }
        if self.move is not None:
            data["move"] = list(self.move)
        if self.undoes is not None:
            data["undoes"] = self.undoes
        if self.group is not None:
            data["group"] = self.group
        return data

    @classmethod
    def from_begin(cls, data: dict[str, Any]) -> Entry:
        move = data.get("move")
        return cls(
            data["seq"],
            data["tool"],
            data["time"],
            [PathChange.from_json(c) for c in data["paths"]],
            (move[0], move[1]) if move else None,
            data.get("undoes"),
            data.get("group"),
        )

    def finish(self, after: dict[str, State]) -> None:
        self.paths = [PathChange(c.path, c.before, after.get(c.path, c.after)) for c in self.paths]
        self.status = Status.DONE


@dataclass(frozen=True)
class Checkpoint:
    seq: int
    label: str | None
    time: float

    def id(self, nonce: str) -> str:
        return f"{self.seq}-{nonce}"


@dataclass
class Log:
    """The parsed log: changes and checkpoints in order, and the first sequence number still kept."""

    entries: list[Entry] = field(default_factory=list)
    checkpoints: list[Checkpoint] = field(default_factory=list)
    first_kept: int = 1  # entries before this were dropped to keep the journal in its bound
    next_seq: int = 1
    by_seq: dict[int, Entry] = field(default_factory=dict)
    dropped: dict[str, int] = field(default_factory=dict)  # paths of dropped entries -> the last such entry

    def add_line(self, data: dict[str, Any]) -> None:
        op = data.get("op")
        if op == "begin":
            entry = Entry.from_begin(data)
            self.entries.append(entry)
            self.by_seq[entry.seq] = entry
            self.next_seq = max(self.next_seq, entry.seq + 1)
        elif op == "end":
            found = self.by_seq.get(data["seq"])
            if found is not None:
                found.finish({p: State.from_json(s) for p, s in data.get("after", {}).items()})
        elif op == "abort":
            found = self.by_seq.get(data["seq"])
            if found is not None:
                found.status = Status.ABORTED
        elif op == "checkpoint":
            self.checkpoints.append(Checkpoint(data["seq"], data.get("label"), data["time"]))
            self.next_seq = max(self.next_seq, data["seq"] + 1)
        elif op == "base":
            self.first_kept = data["first_kept"]
            self.dropped = dict(data.get("dropped", {}))
            self.next_seq = max(self.next_seq, data["first_kept"])
        else:
            raise ValueError(f"unknown record {op!r}")

    def landed(self) -> list[Entry]:
        return [e for e in self.entries if e.status != Status.ABORTED]


def _within(path: str, top: str) -> bool:
    return path == top or path.startswith(top.rstrip(os.sep) + os.sep)


def within(path: str, top: str) -> bool:
    """Separator-aware: /a/b is within /a, /a/bc is not."""
    return _within(path, top)
