"""What the journal remembers of a path: its state before a change and the fingerprint of the state after.

A state is "absent", a regular file (mode, size, mtime_ns, inode, content hash, and whether
its bytes are kept in the journal), a directory (mode) or a symbolic link (its target).
"""

from __future__ import annotations

import os
import stat
from dataclasses import asdict, dataclass, replace
from enum import Enum
from typing import Any


class Kind(str, Enum):
    ABSENT = "absent"
    FILE = "file"
    DIR = "dir"
    LINK = "link"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class State:
    kind: Kind
    mode: int | None = None  # permission bits
    size: int | None = None
    mtime_ns: int | None = None
    ino: int | None = None
    hash: str | None = None  # sha256 of the content, hex; None when it was not computed
    kept: bool = False  # the content is in the journal's blobs under `hash`
    target: str | None = None  # a link's target
    note: str | None = None  # why the content is not kept

    def to_json(self) -> dict[str, Any]:
        return {
            k: (v.value if isinstance(v, Kind) else v)
            for k, v in asdict(self).items()
            if v is not None and v is not False
        }

    @classmethod
    def from_json(cls, data: Any) -> State:
        """The state a log record holds; ValueError when it is not one (a damaged or forged line)."""
        if not isinstance(data, dict):
            raise ValueError(f"a state is an object, not {type(data).__name__}")
        for key, value in data.items():
            if key not in _FIELD_TYPES or (value is not None and not _of_type(value, _FIELD_TYPES[key])):
                raise ValueError(f"a state's {key!r} cannot be {value!r:.40}")
        return cls(**{**data, "kind": Kind(data["kind"])})

    def with_content(self, digest: str | None, kept: bool, note: str | None = None) -> State:
        return replace(self, hash=digest, kept=kept, note=note)

    def restorable(self) -> bool:
        return self.kind != Kind.FILE or (self.kept and self.hash is not None)

    def describe(self) -> str:
        if self.kind == Kind.FILE:
            return f"file ({self.size} bytes, mode {self.mode:o})" if self.mode is not None else "file"
        if self.kind == Kind.LINK:
            return f"symbolic link to {self.target}"
        return "directory" if self.kind == Kind.DIR else "absent"


_FIELD_TYPES: dict[str, type] = {
    "kind": str,
    "mode": int,
    "size": int,
    "mtime_ns": int,
    "ino": int,
    "hash": str,
    "kept": bool,
    "target": str,
    "note": str,
}


def _of_type(value: object, kind: type) -> bool:
    # bool is an int to Python, never to the log: a count of True is a forged line
    return isinstance(value, kind) and (kind is bool or not isinstance(value, bool))


ABSENT = State(Kind.ABSENT)
DIR_STATE = State(Kind.DIR)  # a directory a change created (its mode is the umask's)


def state_of_stat(st: os.stat_result | None, target: str | None = None) -> State:
    """The state a stat shows (content not hashed)."""
    if st is None:
        return ABSENT
    mode = stat.S_IMODE(st.st_mode)
    if stat.S_ISLNK(st.st_mode):
        return State(Kind.LINK, target=target)
    if stat.S_ISDIR(st.st_mode):
        return State(Kind.DIR, mode=mode)
    return State(Kind.FILE, mode=mode, size=st.st_size, mtime_ns=st.st_mtime_ns, ino=st.st_ino)


def same_state(expected: State, now: State) -> bool:
    """Whether `now` is the state `expected` describes: same kind, mode, and content (by hash when
    both have one; else by size and mtime). Directories compare by kind and mode, links by target."""
    if expected.kind != now.kind:
        return False
    if expected.kind == Kind.LINK:
        return expected.target == now.target
    if expected.mode is not None and now.mode is not None and expected.mode != now.mode:
        return False
    if expected.kind != Kind.FILE:
        return True
    if expected.size != now.size:
        return False
    if expected.hash is not None and now.hash is not None:
        return expected.hash == now.hash
    return expected.mtime_ns == now.mtime_ns and expected.ino == now.ino


def quick_match(expected: State, st: os.stat_result) -> bool:
    """Whether a file's stat alone proves it unchanged since `expected` (same inode, size, mtime, mode)."""
    return (
        expected.kind == Kind.FILE
        and stat.S_ISREG(st.st_mode)
        and (expected.ino, expected.size, expected.mtime_ns, expected.mode)
        == (st.st_ino, st.st_size, st.st_mtime_ns, stat.S_IMODE(st.st_mode))
    )
