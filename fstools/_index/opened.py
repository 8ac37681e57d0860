"""The live indexes this process has open, and the hook fstools' own writes call.

Kept apart from the service so that a write, which only needs `notify_changed`, loads
nothing heavy.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING

from .._walk import linkscan

if TYPE_CHECKING:
    from .live import LiveIndex

# Live indexes kept open per process (each holds an inotify instance; a user has 128 by
# default), the least recently opened dropped first.
MAX_OPEN = 8
open_indexes: dict[str, LiveIndex] = {}
lock = threading.Lock()


def forget(root: str) -> None:
    """Close and drop the live index of `root` (the caller holds `lock`)."""
    old = open_indexes.pop(root, None)
    if old is not None and old.watcher is not None:
        old.watcher.close()


def keep(root: str, live: LiveIndex) -> None:
    """Register `live` for `root` (the caller holds `lock`)."""
    forget(root)
    while len(open_indexes) >= MAX_OPEN:
        forget(next(iter(open_indexes)))
    open_indexes[root] = live


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def notify_changed(paths: Iterable[str]) -> None:
    """fstools wrote, created, deleted or moved these files: the open indexes covering them learn
    now, and so does the remembered check for ignore-file links."""
    linkscan.changed()
    if not open_indexes:
        return
    paths = list(paths)
    with lock:
        lives = list(open_indexes.values())
    for live in lives:
        mine = [p for p in paths if _inside(p, live.root)]
        if mine:
            with live.lock:
                try:
                    live.notify(mine)
                except OSError:
                    live.stale = "stale"
