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
    def from_json(cls, data: Any) -> PathChange:
        if not isinstance(data, dict) or not isinstance(data.get("path"), str) or not data["path"]:
            raise ValueError(f"a path's change must name the path: {data!r:.60}")
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
        move, paths = data.get("move"), data.get("paths")
        if not isinstance(paths, list):
            raise ValueError("a change's paths must be a list")
        if move is not None and not (
            isinstance(move, list) and len(move) == 2 and all(isinstance(m, str) and m for m in move)
        ):
            raise ValueError(f"a move names its two ends: {move!r:.60}")
        return cls(
            _integer(data, "seq"),
            _text(data, "tool"),
            _number(data, "time"),
            [PathChange.from_json(c) for c in paths],
            (move[0], move[1]) if move else None,
            _integer(data, "undoes", optional=True),
            _integer(data, "group", optional=True),
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

    def add_line(self, data: Any) -> None:
        """Take one parsed line of the log; ValueError when it is not a record this format writes."""
        if not isinstance(data, dict):
            raise ValueError(f"a record is an object, not {type(data).__name__}")
        op = data.get("op")
        if op == "begin":
            entry = Entry.from_begin(data)
            self.entries.append(entry)
            self.by_seq[entry.seq] = entry
            self.next_seq = max(self.next_seq, entry.seq + 1)
        elif op == "end":
            found = self.by_seq.get(_integer(data, "seq"))
            after = data.get("after", {})
            if not isinstance(after, dict):
                raise ValueError("an end record's states must be an object")
            states = {_path(p): State.from_json(s) for p, s in after.items()}
            if found is not None:
                found.finish(states)
        elif op == "abort":
            found = self.by_seq.get(_integer(data, "seq"))
            if found is not None:
                found.status = Status.ABORTED
        elif op == "checkpoint":
            label = data.get("label")
            if label is not None and not isinstance(label, str):
                raise ValueError("a checkpoint's label must be text")
            seq = _integer(data, "seq")
            self.checkpoints.append(Checkpoint(seq, label, _number(data, "time")))
            self.next_seq = max(self.next_seq, seq + 1)
        elif op == "base":
            dropped = data.get("dropped", {})
            if not isinstance(dropped, dict) or not all(isinstance(s, int) for s in dropped.values()):
                raise ValueError("a base record's dropped paths must map to entries")
            self.first_kept = _integer(data, "first_kept")
            self.dropped = {_path(p): s for p, s in dropped.items()}
            self.next_seq = max(self.next_seq, self.first_kept)
        else:
            raise ValueError(f"unknown record {op!r:.40}")

    def landed(self) -> list[Entry]:
        return [e for e in self.entries if e.status != Status.ABORTED]


def _integer(data: dict[str, Any], key: str, *, optional: bool = False) -> Any:
    value = data.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"a record's {key!r} must be a whole number, not {value!r:.40}")
    return value


def _number(data: dict[str, Any], key: str) -> float:
    value = data.get(key)
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise ValueError(f"a record's {key!r} must be a number, not {value!r:.40}")
    return float(value)


def _text(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise ValueError(f"a record's {key!r} must be text, not {value!r:.40}")
    return value


def _path(value: object) -> str:
    if not isinstance(value, str) or not value:
        raise ValueError(f"a path must be text, not {value!r:.40}")
    return value


def _within(path: str, top: str) -> bool:
    return path == top or path.startswith(top.rstrip(os.sep) + os.sep)


def within(path: str, top: str) -> bool:
    """Separator-aware: /a/b is within /a, /a/bc is not."""
    return _within(path, top)
