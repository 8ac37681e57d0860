"""An inotify watch over an index's directories, drained before each answer.

inotify queues an event inside the system call that changes a directory entry or a
file, so reading the queue to its end at the start of a call sees every change that
completed before the call began. Read directly (ctypes, a non-blocking descriptor)
rather than through a library thread, whose buffering would leave that unprovable.
A full queue (IN_Q_OVERFLOW) or a watch that cannot be added makes the index fall back
to a full stat check.
"""

from __future__ import annotations

import ctypes
import errno
import os
import struct
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .._walk.excludes import is_hidden
from .entries import rule_sig
from .listing import IGNORE_NAMES

if TYPE_CHECKING:
    from .live import LiveIndex

IN_MODIFY, IN_ATTRIB, IN_CLOSE_WRITE = 0x2, 0x4, 0x8
IN_MOVED_FROM, IN_MOVED_TO, IN_CREATE, IN_DELETE = 0x40, 0x80, 0x100, 0x200
IN_DELETE_SELF, IN_MOVE_SELF = 0x400, 0x800
IN_Q_OVERFLOW, IN_IGNORED, IN_ONLYDIR, IN_DONT_FOLLOW, IN_ISDIR = 0x4000, 0x8000, 0x1000000, 0x2000000, 0x40000000
IN_NONBLOCK, IN_CLOEXEC = 0o4000, 0o2000000
MASK = (IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE) | (
    IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW
)
_EVENT = struct.Struct("iIII")
# Past this many directories with new names, the tree is listed once instead of each of them.
RELIST_DIRS = 16
_APPEARED = IN_CREATE | IN_MOVED_TO
_LISTING = _APPEARED | IN_DELETE | IN_MOVED_FROM | IN_DELETE_SELF | IN_MOVE_SELF


def _libc() -> ctypes.CDLL | None:
    # The interpreter's own symbols hold libc's: `ctypes.util.find_library` would spawn
    # `ldconfig`, a fork that a multithreaded caller's other threads can deadlock.
    for name in (None, "libc.so.6"):
        try:
            lib = ctypes.CDLL(name, use_errno=True)
            lib.inotify_init1, lib.inotify_add_watch  # noqa: B018 - both must exist
        except (OSError, AttributeError):
            continue
        return lib
    return None


@dataclass
class _Drained:
    """What one drain's events ask for: a new listing of the tree, a full check after the kernel's queue
    overflowed, the new names per directory, the known files to read again."""

    rewalk: bool = False
    overflow: bool = False
    appeared: dict[str, list[str]] = field(default_factory=dict)
    touched: dict[str, None] = field(default_factory=dict)

    def take(self, live: LiveIndex, directory: str, mask: int, name: str) -> None:
        """One event on `name` in the watched `directory`."""
        if mask & _LISTING:  # the probe's recorded files may have changed
            live.probe_ok = False
        if directory in live.hidden_dirs:  # only the probe looks there
            return
        if mask & (IN_DELETE_SELF | IN_MOVE_SELF):
            self.rewalk = True
        elif name in IGNORE_NAMES or name == ".git":
            live.stale = "stale"
        elif mask & IN_ISDIR:
            self.rewalk = self.rewalk or not is_hidden(name)
        elif not is_hidden(name):
            path = os.path.join(directory, name)
            if path in live.position or path in live.overlay:
                self.touched.setdefault(path)  # a write's modify and close events: one read
            elif mask & _APPEARED:
                self.appeared.setdefault(directory, []).append(path)


class Watcher:
    def __init__(self, lib: ctypes.CDLL, fd: int) -> None:
        self._lib = lib
        self.fd = fd
        self.dirs: dict[int, str] = {}
        self.complete = True

    @classmethod
    def start(cls, live: LiveIndex) -> Watcher | None:
        """Watch every directory of `live`; None when inotify is missing or its limits are reached."""
        lib = _libc()
        if lib is None:
            return None
        fd = lib.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        if fd < 0:
            return None
        watcher = cls(lib, fd)
        watcher.add(live.dirs)
        watcher.add(live.hidden_dirs)
        if not watcher.complete:
            watcher.close()
            return None
        return watcher

    def add(self, dirs: object) -> None:
        for d in dirs:  # type: ignore[attr-defined]
            wd = self._lib.inotify_add_watch(self.fd, os.fsencode(d), MASK)
            if wd < 0:
                if ctypes.get_errno() in (errno.ENOSPC, errno.ENOMEM):
                    self.complete = False
                continue  # gone already: its parent's event says so
            self.dirs[wd] = d

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def _read(self) -> bytes:
        chunks = []
        while True:
            try:
                chunk = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)

    def drain(self, live: LiveIndex) -> None:
        """Apply every queued event to `live` (at most one listing of the tree per drain)."""
        if not self.complete:
            live.full_check()
            return
        if any(rule_sig(p) != s for p, s in live.rules.items()):  # in no watched directory: a stat each
            live.stale = "stale"
            return
        data = self._read()
        events = _Drained()
        pos = 0
        while pos + _EVENT.size <= len(data):
            wd, mask, _cookie, size = _EVENT.unpack_from(data, pos)
            name = os.fsdecode(data[pos + _EVENT.size : pos + _EVENT.size + size].rstrip(b"\0"))
            pos += _EVENT.size + size
            if mask & IN_Q_OVERFLOW:
                events.overflow = True
                continue
            directory = self.dirs.get(wd)
            if directory is None or mask & IN_IGNORED:
                continue
            events.take(live, directory, mask, name)
        for path in live.linked_changed():  # written through a name no watch sees
            events.touched.setdefault(path)
        for path in events.touched:
            live.refresh_file(path)
        if events.overflow:
            live.full_check()
        elif events.rewalk or len(events.appeared) > RELIST_DIRS:  # one listing of the tree beats many of a directory
            live.rewalk()
        else:
            for directory, paths in events.appeared.items():
                self._appeared(live, directory, paths)

    def _appeared(self, live: LiveIndex, directory: str, paths: list[str]) -> None:
        """New names in a directory: rg lists the directory again (some may be ignored files)."""
        live.relist_dir(directory)
